//! `#[derive(Table)]`: the table's name, key attributes and indexes.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::table::{self, Gsi, KeyAttrDecl, Lsi, Projection};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    super::or_stub(expand(input).map_err(darling::Error::write_errors), || {
        stub(input)
    })
}

/// A `Table` impl and the index impls of every `gsiN`/`lsiN` written in
/// `#[table(...)]`, emitted beside errors that left no model, so the
/// entities of the table raise no second error.
fn stub(input: &syn::DeriveInput) -> TokenStream {
    let metas: Vec<syn::Meta> = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("table"))
        .filter_map(|a| {
            a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .ok()
        })
        .flatten()
        .collect();
    let has = |m: &syn::Meta, flag: &str| match m {
        syn::Meta::List(l) => l
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|inner| inner.iter().any(|i| i.path().is_ident(flag))),
        _ => false,
    };
    let krate = metas
        .iter()
        .find_map(|m| match m {
            syn::Meta::NameValue(nv) if nv.path.is_ident("crate") => match &nv.value {
                syn::Expr::Path(p) => Some(quote!(#p)),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| quote!(::singletable));
    let sk = |no_sk: bool| option_str((!no_sk).then_some(""));
    let table_sk = sk(metas.iter().any(|m| m.path().is_ident("no_sk")));
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let indexes = metas.iter().filter_map(|m| {
        let name = m.path().get_ident()?.to_string();
        let number = |rest: &str, max: u8| rest.parse::<u8>().ok().filter(|n| (1..=max).contains(n));
        if let Some(n) = name.strip_prefix("gsi").and_then(|r| number(r, 20)) {
            let gsk = sk(has(m, "no_sk"));
            return Some(quote! {
                #[automatically_derived]
                impl #impl_generics #krate::__private::Gsi<#n> for #ident #ty_generics #where_clause {
                    const NAME: &'static str = "";
                    const PK_ATTR: &'static str = "";
                    const SK_ATTR: ::core::option::Option<&'static str> = #gsk;
                    const ATTRIBUTES: ::core::option::Option<#krate::AttributeKey> = ::core::option::Option::None;
                }
            });
        }
        if let Some(n) = name.strip_prefix("vector").and_then(|r| number(r, 4)) {
            // Dimensions 0: unknown, which the entities' checks skip.
            return Some(quote! {
                #[automatically_derived]
                impl #impl_generics #krate::__private::Vector<#n> for #ident #ty_generics #where_clause {
                    const INDEX: #krate::vector::VectorIndex = #krate::vector::VectorIndex {
                        number: #n, name: "", attribute: "", dimensions: 0,
                        distance: #krate::vector::Distance::Cosine, hash: &[], filter: &[],
                        projection: #krate::Projection::All,
                    };
                }
            });
        }
        let n = name.strip_prefix("lsi").and_then(|r| number(r, 5))?;
        Some(quote! {
            #[automatically_derived]
            impl #impl_generics #krate::__private::Lsi<#n> for #ident #ty_generics #where_clause {
                const NAME: &'static str = "";
                const SK_ATTR: &'static str = "";
            }
        })
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Table for #ident #ty_generics #where_clause {
            const NAME: &'static str = "";
            const PK: &'static str = "";
            const SK: ::core::option::Option<&'static str> = #table_sk;
            const ENTITY_TYPE: &'static str = "";
            const GLOBAL_INDEXES: &'static [#krate::GlobalIndex] = &[];
            const LOCAL_INDEXES: &'static [#krate::LocalIndex] = &[];
            const RESERVED: &'static [&'static str] = &[];
        }
        #(#indexes)*
    }
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, darling::Error> {
    let (o, unknown_option) = table::parse(input)?;
    let mut errors = darling::Error::accumulator();
    let repaired = unknown_option.is_some();
    errors.extend(unknown_option);
    let model = table::model(&o, repaired, &mut errors);
    // After a mistake the table is still declared, from its model, so its
    // entities raise no second error; the checks across its entities are
    // left out.
    let errors = errors.into_inner();
    let reported = (!errors.is_empty()).then(|| darling::Error::multiple(errors).write_errors());
    let krate = o
        .krate
        .as_ref()
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::singletable));
    let entities: Vec<&syn::Path> = o
        .entities
        .as_ref()
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    let checks = if reported.is_some() {
        TokenStream::new()
    } else {
        entity_checks(
            &krate,
            &o.ident,
            &entities,
            &model.index_names(),
            o.ttl.as_ref().map(|t| t.as_str()),
        )
    };
    let table_impl = table_impl(&krate, &model, &entities);
    let gsi_impls = model.gsis.iter().map(|g| gsi_impl(&krate, &o.ident, g));
    let lsi_impls = model.lsis.iter().map(|l| lsi_impl(&krate, &o.ident, l));
    let vector_impls = model.vectors.iter().map(|v| {
        let n = v.n;
        let def = vector_def(&krate, v);
        let ident = &o.ident;
        quote! {
            #[automatically_derived]
            impl #krate::__private::Vector<#n> for #ident {
                const INDEX: #krate::vector::VectorIndex = #def;
            }
        }
    });
    Ok(quote! {
        #reported
        #checks
        #table_impl
        #(#gsi_impls)*
        #(#lsi_impls)*
        #(#vector_impls)*
    })
}

fn option_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn projection(krate: &TokenStream, p: &Projection) -> TokenStream {
    match p {
        Projection::All => quote!(#krate::Projection::All),
        Projection::KeysOnly => quote!(#krate::Projection::KeysOnly),
        Projection::Include(names) => quote!(#krate::Projection::Include(&[#(#names),*])),
    }
}

/// `impl Table`: the model's attribute names, index declarations and the
/// shapes of the entities and collections it lists.
fn table_impl(krate: &TokenStream, model: &table::Table, entities: &[&syn::Path]) -> TokenStream {
    let o = model.opts;
    let ident = &o.ident;
    let name = o.name.as_str();
    let (pk, entity_type) = (&model.pk, &model.entity_type);
    let sk_tokens = option_str(model.sk.as_deref());
    let ttl_tokens = option_str(o.ttl.as_ref().map(|t| t.as_str()));
    let stream_tokens = match model.stream {
        Some(v) => {
            let v = quote::format_ident!("{}", v);
            quote!(::core::option::Option::Some(#krate::StreamView::#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let schema_version = &model.schema_version;
    let other_items = model.other_items.map(|v| {
        let v = quote::format_ident!("{}", v);
        quote!(const OTHER_ITEMS: #krate::OtherTypes = #krate::OtherTypes::#v;)
    });
    let gsi_defs = model.gsis.iter().map(|g| gsi_def(krate, g));
    let lsi_defs = model.lsis.iter().map(|l| {
        let (n, lname, lsk) = (l.n, &l.name, &l.sk);
        let proj = projection(krate, &l.projection);
        quote! {
            #krate::LocalIndex { number: #n, name: #lname, sk: #lsk, projection: #proj }
        }
    });
    let vector_defs = model.vectors.iter().map(|v| vector_def(krate, v));
    let reserved = model.reserved.iter().map(|r| &r.name);
    let shapes = entities
        .iter()
        .map(|e| quote!(<#e as #krate::Entity>::SHAPE));
    let collection_shapes =
        o.collections.iter().flat_map(|l| l.iter()).map(
            |c| quote_spanned!(c.span()=> <#c as #krate::__private::collection::HasShape>::SHAPE),
        );
    quote! {
        #[automatically_derived]
        impl #krate::Table for #ident {
            const NAME: &'static str = #name;
            const PK: &'static str = #pk;
            const SK: ::core::option::Option<&'static str> = #sk_tokens;
            const ENTITY_TYPE: &'static str = #entity_type;
            const GLOBAL_INDEXES: &'static [#krate::GlobalIndex] = &[#(#gsi_defs),*];
            const LOCAL_INDEXES: &'static [#krate::LocalIndex] = &[#(#lsi_defs),*];
            const VECTOR_INDEXES: &'static [#krate::vector::VectorIndex] = &[#(#vector_defs),*];
            const RESERVED: &'static [&'static str] = &[#(#reserved),*];
            const ENTITIES: &'static [#krate::__private::EntityShape] = &[#(#shapes),*];
            const COLLECTIONS: &'static [#krate::__private::collection::CollectionShape] = &[#(#collection_shapes),*];
            const TTL: ::core::option::Option<&'static str> = #ttl_tokens;
            const STREAM: ::core::option::Option<#krate::StreamView> = #stream_tokens;
            const SCHEMA_VERSION: &'static str = #schema_version;
            #other_items
        }
    }
}

/// `Option<AttributeKey>`: the attributes of a multi-attribute key.
fn attribute_key(krate: &TokenStream, g: &Gsi) -> TokenStream {
    let Some((partition, sort)) = &g.attributes else {
        return quote!(::core::option::Option::None);
    };
    let list = |attrs: &[KeyAttrDecl]| {
        let items = attrs.iter().map(|a| {
            let (name, kind) = (&a.name, quote::format_ident!("{}", a.kind));
            quote!(#krate::KeyAttribute { name: #name, kind: #krate::KeyType::#kind })
        });
        quote!(&[#(#items),*])
    };
    let (p, s) = (list(partition), list(sort));
    quote!(::core::option::Option::Some(#krate::AttributeKey { partition: #p, sort: #s }))
}

/// The `GlobalIndex` entry of `Table::GLOBAL_INDEXES`.
fn gsi_def(krate: &TokenStream, g: &Gsi) -> TokenStream {
    let (n, gname, gpk) = (g.n, &g.name, &g.pk);
    let gsk_tokens = option_str(g.sk.as_deref());
    let proj = projection(krate, &g.projection);
    let attributes = attribute_key(krate, g);
    quote! {
        #krate::GlobalIndex { number: #n, name: #gname, pk: #gpk, sk: #gsk_tokens, projection: #proj, attributes: #attributes }
    }
}

/// The `VectorIndex` of `vectorN(...)`.
fn vector_def(krate: &TokenStream, v: &crate::internals::vector::VectorIndex) -> TokenStream {
    let (n, name, attribute, dims) = (v.n, &v.name, &v.attribute, v.dimensions);
    let distance = quote::format_ident!("{}", v.distance);
    let list = |attrs: &[KeyAttrDecl]| {
        let items = attrs.iter().map(|a| {
            let (name, kind) = (&a.name, quote::format_ident!("{}", a.kind));
            quote!(#krate::KeyAttribute { name: #name, kind: #krate::KeyType::#kind })
        });
        quote!(&[#(#items),*])
    };
    let (hash, filter) = (list(&v.hash), list(&v.filter));
    let proj = projection(krate, &v.projection);
    quote! {
        #krate::vector::VectorIndex {
            number: #n, name: #name, attribute: #attribute, dimensions: #dims,
            distance: #krate::vector::Distance::#distance, hash: #hash, filter: #filter,
            projection: #proj,
        }
    }
}

/// `impl Gsi<N>`, through which entities reach the index.
fn gsi_impl(krate: &TokenStream, ident: &syn::Ident, g: &Gsi) -> TokenStream {
    let (n, gname, gpk) = (g.n, &g.name, &g.pk);
    let gsk_tokens = option_str(g.sk.as_deref());
    let attributes = attribute_key(krate, g);
    quote! {
        #[automatically_derived]
        impl #krate::__private::Gsi<#n> for #ident {
            const NAME: &'static str = #gname;
            const PK_ATTR: &'static str = #gpk;
            const SK_ATTR: ::core::option::Option<&'static str> = #gsk_tokens;
            const ATTRIBUTES: ::core::option::Option<#krate::AttributeKey> = #attributes;
        }
    }
}

/// `impl Lsi<N>`, through which entities reach the index.
fn lsi_impl(krate: &TokenStream, ident: &syn::Ident, l: &Lsi) -> TokenStream {
    let (n, lname, lsk) = (l.n, &l.name, &l.sk);
    quote! {
        #[automatically_derived]
        impl #krate::__private::Lsi<#n> for #ident {
            const NAME: &'static str = #lname;
            const SK_ATTR: &'static str = #lsk;
        }
    }
}

/// Compile-time checks across the entities listed in `entities(...)`, each
/// pair checked once and reported at the later entity of the pair.
fn entity_checks(
    krate: &TokenStream,
    table: &syn::Ident,
    entities: &[&syn::Path],
    indexes: &[String],
    ttl: Option<&str>,
) -> TokenStream {
    use quote::quote_spanned;
    use syn::spanned::Spanned;
    let p = krate;
    let mut out = TokenStream::new();
    let name = |e: &syn::Path| quote!(#e).to_string().replace(' ', "");
    // Markers of unique values live in partitions `UNIQUE#…#…#…`, which no
    // entity partition may overlap once an entity keeps markers.
    let has_markers = entities
        .iter()
        .map(|e| quote!(!<#e as #p::Entity>::UNIQUE.is_empty()));
    let mut marker_checks = TokenStream::new();
    for (j, b) in entities.iter().enumerate() {
        let span = b.span();
        let bn = name(b);
        let msg = format!("entity `{bn}` is listed in `{table}` but stored in another table");
        out.extend(quote_spanned! {span=>
            const _: () = {
                const fn __same<T: #p::Table>() -> &'static str { T::NAME }
                if !#p::__private::str_eq(__same::<<#b as #p::Entity>::Table>(), <#table as #p::Table>::NAME) {
                    ::core::panic!(#msg);
                }
            };
        });
        let ttl_msg = match ttl {
            Some(t) => format!(
                "entity `{bn}` stores its TTL in a different attribute than the table's `ttl = \"{t}\"`"
            ),
            None => format!(
                "entity `{bn}` has a `#[attr(ttl)]` field but table `{table}` declares no `ttl = \"...\"`"
            ),
        };
        let ttl_check = match ttl {
            Some(t) => {
                quote!(match <#b as #p::Entity>::SHAPE.ttl { ::core::option::Option::Some(a) => !#p::__private::str_eq(a, #t), ::core::option::Option::None => false })
            }
            None => quote!(<#b as #p::Entity>::SHAPE.ttl.is_some()),
        };
        out.extend(quote_spanned! {span=>
            const _: () = if #ttl_check { ::core::panic!(#ttl_msg) };
        });
        let markers_msg = format!(
            "the partition key of entity `{bn}` can be `UNIQUE#...#...#...`, where `{table}` keeps the markers of `#[attr(unique)]` values; start its `#[pk]` template with another literal"
        );
        marker_checks.extend(quote_spanned! {span=>
            const _: () = if MARKERS && #p::__private::partition_holds_markers(&<#b as #p::Entity>::SHAPE) { ::core::panic!(#markers_msg) };
        });
        // Declared markers (`#[attr(unique = "...")]`) live in partitions of
        // their templates; every entity, the owner included, keeps out.
        for a in entities {
            let declared_msg = format!(
                "the partition key of entity `{bn}` can be the key of a marker that `{}` declares with `#[attr(unique = \"...\")]`; give the marker template or the `#[pk]` template another literal text",
                name(a)
            );
            out.extend(quote_spanned! {span=>
                const _: () = if #p::__private::partition_holds_declared_markers(&<#b as #p::Entity>::SHAPE, <#a as #p::Entity>::UNIQUE) { ::core::panic!(#declared_msg) };
            });
        }
        for a in &entities[..j] {
            let an = name(a);
            let a_shape = quote!(<#a as #p::Entity>::SHAPE);
            let b_shape = quote!(<#b as #p::Entity>::SHAPE);
            let dup = format!(
                "entities `{an}` and `{bn}` have the same entity name; give one `#[entity(name = \"...\")]`"
            );
            let collide = format!(
                "entities `{an}` and `{bn}` can produce the same primary key, so one can overwrite the other; change a key template so they differ in a literal segment"
            );
            let leak = format!(
                "a query of `{an}` or `{bn}` scoped to its sort-key prefix can return items of the other in a shared partition; give each a sort key prefix that is not a prefix of the other's (e.g. `ORDER#` and `ITEM#`)"
            );
            out.extend(quote_spanned! {span=>
                const _: () = if #p::__private::str_eq(#a_shape.name, #b_shape.name) { ::core::panic!(#dup) };
                const _: () = if #p::__private::primary_keys_collide(&#a_shape, &#b_shape) { ::core::panic!(#collide) };
                // Colliding keys are the one error for the pair; a leaking
                // scope follows from them.
                const _: () = if #p::__private::table_queries_leak(&#a_shape, &#b_shape)
                    && !#p::__private::primary_keys_collide(&#a_shape, &#b_shape)
                {
                    ::core::panic!(#leak)
                };
            });
            for ix in indexes {
                let sort_keys = format!(
                    "queries of `{an}` or `{bn}` on index `{ix}` can return items of the other: their `{ix}` partition keys can be equal and the sort-key condition each query starts with can match the other's sort keys; give each a distinct sort key prefix in `{ix}`"
                );
                let no_sort_key = format!(
                    "queries of `{an}` or `{bn}` on index `{ix}` can return items of the other: `{ix}` has no sort key, so a query reads its whole partition, and their `{ix}` partition keys can be equal; give their `{ix}` partition keys distinct literal prefixes"
                );
                let shards = |sharded: &str, other: &str| {
                    format!(
                        "queries of `{an}` or `{bn}` on index `{ix}` can return items of the other: `{sharded}` shards its `{ix}` partition key (stored with a `#0`, `#1`, ... suffix), and `{other}`'s `{ix}` partition key can produce the same keys; give their `{ix}` partition keys distinct literal prefixes"
                    )
                };
                let (first, second) = (shards(&an, &bn), shards(&bn, &an));
                let attributes = format!(
                    "entities `{an}` and `{bn}` both map their fields onto `{ix}`, whose keys are the items' own attributes: nothing in the key tells them apart, so each one's queries read the other's items too; start `{ix}`'s sort key with the table's entity-type attribute (`sk(entityType = S, ...)`), or give one of them its own index"
                );
                // One check per pair and index, so one mistake is one error.
                out.extend(quote_spanned! {span=>
                    const _: () = match #p::__private::index_collision(&#a_shape, &#b_shape, #ix) {
                        #p::__private::IndexCollision::None => {}
                        #p::__private::IndexCollision::SortKeys => ::core::panic!(#sort_keys),
                        #p::__private::IndexCollision::NoSortKey => ::core::panic!(#no_sort_key),
                        #p::__private::IndexCollision::Attributes => ::core::panic!(#attributes),
                        #p::__private::IndexCollision::Shards { first: true } => ::core::panic!(#first),
                        #p::__private::IndexCollision::Shards { first: false } => ::core::panic!(#second),
                    };
                });
            }
        }
    }
    out.extend(quote! {
        const _: () = {
            const MARKERS: bool = false #(|| #has_markers)*;
            #marker_checks
        };
    });
    out
}
