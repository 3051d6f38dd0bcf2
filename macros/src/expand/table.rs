//! `#[derive(Table)]`: the table's name, key attributes and indexes.

use darling::util::{Flag, Override, PathList, SpannedValue};
use darling::{FromDeriveInput, FromMeta};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// One attribute of a multi-attribute key: `tenantId = S`.
struct KeyAttrDecl {
    name: String,
    kind: String,
    span: Span,
}

/// A global index's `pk`/`sk`: the synthetic attribute's name
/// (`pk = "GSI1PK"`), or the attributes of a multi-attribute key
/// (`pk(tenantId = S, region = S)`).
enum GsiKey {
    Name(SpannedValue<String>),
    Attrs(Vec<KeyAttrDecl>, Span),
}

impl FromMeta for GsiKey {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::List(list) => {
                let span = list.path.span();
                let metas = list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                    )
                    .map_err(darling::Error::from)?;
                let expected =
                    "expected `attribute = S`, `= N` or `= B`, e.g. `pk(tenantId = S, region = S)`";
                let mut errors = darling::Error::accumulator();
                let mut attrs = Vec::new();
                for m in &metas {
                    let syn::Meta::NameValue(nv) = m else {
                        errors.push(darling::Error::custom(expected).with_span(m));
                        continue;
                    };
                    let Some(name) = nv.path.get_ident() else {
                        errors.push(darling::Error::custom(expected).with_span(&nv.path));
                        continue;
                    };
                    let kind = match &nv.value {
                        syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                        _ => None,
                    };
                    let Some(kind) = kind.filter(|k| matches!(k.as_str(), "S" | "N" | "B")) else {
                        errors.push(
                            darling::Error::custom(format!(
                                "unknown key attribute type; expected `S` (string), `N` (number) or `B` (binary), e.g. `{name} = S`"
                            ))
                            .with_span(&nv.value),
                        );
                        continue;
                    };
                    attrs.push(KeyAttrDecl {
                        name: name.to_string(),
                        kind,
                        span: name.span(),
                    });
                }
                errors.finish()?;
                if attrs.is_empty() {
                    return Err(darling::Error::custom(expected).with_span(&list.path));
                }
                Ok(GsiKey::Attrs(attrs, span))
            }
            other => {
                let v: SpannedValue<String> = FromMeta::from_meta(other)?;
                Ok(GsiKey::Name(v))
            }
        }
    }
}

impl GsiKey {
    fn name(&self) -> Option<&SpannedValue<String>> {
        match self {
            GsiKey::Name(n) => Some(n),
            GsiKey::Attrs(..) => None,
        }
    }
}

#[derive(FromMeta, Default)]
struct GsiOpts {
    #[darling(default)]
    name: Option<String>,
    #[darling(default)]
    pk: Option<GsiKey>,
    #[darling(default)]
    sk: Option<GsiKey>,
    #[darling(default)]
    no_sk: Flag,
    #[darling(default)]
    keys_only: Flag,
    #[darling(default)]
    include: Option<PathList>,
}

#[derive(FromMeta, Default)]
struct LsiOpts {
    #[darling(default)]
    name: Option<String>,
    #[darling(default)]
    sk: Option<SpannedValue<String>>,
    #[darling(default)]
    keys_only: Flag,
    #[darling(default)]
    include: Option<PathList>,
}

#[derive(FromDeriveInput)]
#[darling(attributes(table), supports(struct_unit))]
struct TableOpts {
    ident: syn::Ident,
    name: SpannedValue<String>,
    #[darling(default)]
    pk: Option<SpannedValue<String>>,
    #[darling(default)]
    sk: Option<SpannedValue<String>>,
    #[darling(default)]
    no_sk: Flag,
    #[darling(default)]
    entity_type: Option<SpannedValue<String>>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
    #[darling(default)]
    entities: Option<PathList>,
    #[darling(default)]
    collections: Option<PathList>,
    #[darling(default)]
    ttl: Option<SpannedValue<String>>,
    #[darling(default)]
    stream: Option<syn::Path>,
    #[darling(default)]
    schema_version: Option<SpannedValue<String>>,
    #[darling(default)]
    gsi1: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi2: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi3: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi4: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi5: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi6: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi7: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi8: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi9: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi10: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi11: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi12: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi13: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi14: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi15: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi16: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi17: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi18: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi19: Option<Override<GsiOpts>>,
    #[darling(default)]
    gsi20: Option<Override<GsiOpts>>,
    #[darling(default)]
    lsi1: Option<Override<LsiOpts>>,
    #[darling(default)]
    lsi2: Option<Override<LsiOpts>>,
    #[darling(default)]
    lsi3: Option<Override<LsiOpts>>,
    #[darling(default)]
    lsi4: Option<Override<LsiOpts>>,
    #[darling(default)]
    lsi5: Option<Override<LsiOpts>>,
}

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    expand(input).unwrap_or_else(darling::Error::write_errors)
}

struct Projection {
    tokens: TokenStream,
}

fn projection(
    keys_only: &Flag,
    include: &Option<PathList>,
    errors: &mut darling::error::Accumulator,
    krate: &TokenStream,
) -> Projection {
    let tokens = match (keys_only.is_present(), include) {
        (true, Some(_)) => {
            errors.push(
                darling::Error::custom(
                    "an index projects either `keys_only` or `include(...)`, not both",
                )
                .with_span(&keys_only.span()),
            );
            quote!(#krate::Projection::KeysOnly)
        }
        (true, None) => quote!(#krate::Projection::KeysOnly),
        (false, Some(list)) => {
            let names = list.iter().map(darling::util::path_to_string);
            quote!(#krate::Projection::Include(&[#(#names),*]))
        }
        (false, None) => quote!(#krate::Projection::All),
    };
    Projection { tokens }
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, darling::Error> {
    if !matches!(&input.data, syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Unit)) {
        return Err(darling::Error::custom(
            "`#[derive(Table)]` goes on a unit struct such as `struct AppTable;`; the items' fields belong to the entities",
        )
        .with_span(&input.ident));
    }
    if let Some(err) = crate::internals::attr::missing_key(
        input,
        "table",
        "name",
        "give the DynamoDB table's name, e.g. `#[table(name = \"AppTable\")]`",
    ) {
        return Err(err);
    }
    let mut unknown_option = None;
    let o = match TableOpts::from_derive_input(input) {
        Ok(o) => o,
        Err(e) => {
            // An unknown option: report it, and go on without it, so the
            // entities of the table raise no second error.
            let repaired = crate::internals::style::without_unknown(&input.attrs, "table", &e)
                .and_then(|attrs| {
                    let mut input = input.clone();
                    input.attrs = attrs;
                    TableOpts::from_derive_input(&input).ok()
                });
            let e = crate::internals::style::restyle(e, "table", || {
                Some(crate::internals::style::listed(
                    crate::internals::style::TABLE_OPTIONS,
                    "`gsi1`…`gsi20`, `lsi1`…`lsi5`",
                ))
            });
            match repaired {
                Some(o) => {
                    unknown_option = Some(e.write_errors());
                    o
                }
                None => return Err(e),
            }
        }
    };
    let mut errors = darling::Error::accumulator();
    let krate = o
        .krate
        .as_ref()
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::singletable));
    let ident = &o.ident;
    let name = o.name.as_str();
    if name.is_empty() {
        errors.push(darling::Error::custom("empty table name").with_span(&o.name.span()));
    }
    let pk =
        o.pk.as_ref()
            .map(|s| s.as_str().to_owned())
            .unwrap_or_else(|| "PK".into());
    if let (Some(sk), true) = (&o.sk, o.no_sk.is_present()) {
        errors.push(
            darling::Error::custom("`sk` and `no_sk` contradict each other; keep one")
                .with_span(&sk.span()),
        );
    }
    let sk: Option<String> = if o.no_sk.is_present() {
        None
    } else {
        Some(
            o.sk.as_ref()
                .map(|s| s.as_str().to_owned())
                .unwrap_or_else(|| "SK".into()),
        )
    };
    let entity_type = o
        .entity_type
        .as_ref()
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|| "entityType".into());

    // Every key attribute with its role, and the value to point at when it
    // collides (`None` for a default name).
    let spanned = |v: &Option<SpannedValue<String>>| v.as_ref().map(|s| s.span());
    let mut reserved: Vec<(String, String, Option<Span>)> = vec![(
        pk.clone(),
        "the table's partition key".into(),
        spanned(&o.pk),
    )];
    if let Some(sk) = &sk {
        reserved.push((sk.clone(), "the table's sort key".into(), spanned(&o.sk)));
    }
    reserved.push((
        entity_type.clone(),
        "the entity-type attribute".into(),
        spanned(&o.entity_type),
    ));

    let mut gsi_defs = Vec::new();
    let mut gsi_impls = Vec::new();
    // The attributes of multi-attribute keys: name, type, index, span.
    let mut multi_attrs: Vec<(String, String, u8, Span)> = Vec::new();
    let gsis: [(u8, &Option<Override<GsiOpts>>); 20] = [
        (1, &o.gsi1),
        (2, &o.gsi2),
        (3, &o.gsi3),
        (4, &o.gsi4),
        (5, &o.gsi5),
        (6, &o.gsi6),
        (7, &o.gsi7),
        (8, &o.gsi8),
        (9, &o.gsi9),
        (10, &o.gsi10),
        (11, &o.gsi11),
        (12, &o.gsi12),
        (13, &o.gsi13),
        (14, &o.gsi14),
        (15, &o.gsi15),
        (16, &o.gsi16),
        (17, &o.gsi17),
        (18, &o.gsi18),
        (19, &o.gsi19),
        (20, &o.gsi20),
    ];
    for (n, opt) in gsis {
        let Some(opt) = opt else { continue };
        let default = GsiOpts::default();
        let g = match opt {
            Override::Inherit => &default,
            Override::Explicit(g) => g,
        };
        let gname = g.name.clone().unwrap_or_else(|| format!("GSI{n}"));
        let proj = projection(&g.keys_only, &g.include, &mut errors, &krate).tokens;
        let multi = multi_key(n, g, &mut errors);
        let (gpk, gsk, attributes) = match &multi {
            Some((partition, sort)) => {
                for a in partition.iter().chain(sort) {
                    multi_attrs.push((a.name.clone(), a.kind.clone(), n, a.span));
                }
                let list = |attrs: &[&KeyAttrDecl]| {
                    let items = attrs.iter().map(|a| {
                        let (name, kind) = (&a.name, format_ident!("{}", a.kind));
                        quote!(#krate::KeyAttribute { name: #name, kind: #krate::KeyType::#kind })
                    });
                    quote!(&[#(#items),*])
                };
                let (p, s) = (list(partition), list(sort));
                (
                    partition[0].name.clone(),
                    sort.first().map(|a| a.name.clone()),
                    quote!(::core::option::Option::Some(#krate::AttributeKey { partition: #p, sort: #s })),
                )
            }
            None => {
                let gpk =
                    g.pk.as_ref()
                        .and_then(GsiKey::name)
                        .map_or_else(|| format!("GSI{n}PK"), |s| s.as_str().to_owned());
                let gsk = if g.no_sk.is_present() {
                    None
                } else {
                    Some(
                        g.sk.as_ref()
                            .and_then(GsiKey::name)
                            .map_or_else(|| format!("GSI{n}SK"), |s| s.as_str().to_owned()),
                    )
                };
                reserved.push((
                    gpk.clone(),
                    format!("the partition key of `gsi{n}`"),
                    spanned(&g.pk.as_ref().and_then(GsiKey::name).cloned()),
                ));
                if let Some(gsk) = &gsk {
                    reserved.push((
                        gsk.clone(),
                        format!("the sort key of `gsi{n}`"),
                        spanned(&g.sk.as_ref().and_then(GsiKey::name).cloned()),
                    ));
                }
                (gpk, gsk, quote!(::core::option::Option::None))
            }
        };
        let gsk_tokens = match &gsk {
            Some(s) => quote!(::core::option::Option::Some(#s)),
            None => quote!(::core::option::Option::None),
        };
        gsi_defs.push(quote! {
            #krate::GlobalIndex { number: #n, name: #gname, pk: #gpk, sk: #gsk_tokens, projection: #proj, attributes: #attributes }
        });
        gsi_impls.push(quote! {
            #[automatically_derived]
            impl #krate::__private::Gsi<#n> for #ident {
                const NAME: &'static str = #gname;
                const PK_ATTR: &'static str = #gpk;
                const SK_ATTR: ::core::option::Option<&'static str> = #gsk_tokens;
                const ATTRIBUTES: ::core::option::Option<#krate::AttributeKey> = #attributes;
            }
        });
    }

    let mut lsi_defs = Vec::new();
    let mut lsi_impls = Vec::new();
    let lsis: [(u8, &Option<Override<LsiOpts>>); 5] = [
        (1, &o.lsi1),
        (2, &o.lsi2),
        (3, &o.lsi3),
        (4, &o.lsi4),
        (5, &o.lsi5),
    ];
    for (n, opt) in lsis {
        let Some(opt) = opt else { continue };
        let default = LsiOpts::default();
        let l = match opt {
            Override::Inherit => &default,
            Override::Explicit(l) => l,
        };
        if sk.is_none() {
            errors.push(
                darling::Error::custom(format!(
                    "local index `lsi{n}` needs a table with a sort key; remove `no_sk`"
                ))
                .with_span(&o.no_sk.span()),
            );
        }
        let lsk =
            l.sk.as_ref()
                .map_or_else(|| format!("LSI{n}SK"), |s| s.as_str().to_owned());
        let lname = l.name.clone().unwrap_or_else(|| format!("LSI{n}"));
        let proj = projection(&l.keys_only, &l.include, &mut errors, &krate).tokens;
        reserved.push((
            lsk.clone(),
            format!("the sort key of `lsi{n}`"),
            spanned(&l.sk),
        ));
        lsi_defs.push(quote! {
            #krate::LocalIndex { number: #n, name: #lname, sk: #lsk, projection: #proj }
        });
        lsi_impls.push(quote! {
            #[automatically_derived]
            impl #krate::__private::Lsi<#n> for #ident {
                const NAME: &'static str = #lname;
                const SK_ATTR: &'static str = #lsk;
            }
        });
    }

    // Two roles sharing one attribute name would make items ambiguous. The
    // error points at the later name the user wrote, else the earlier one.
    for (i, (a, role, span)) in reserved.iter().enumerate() {
        if let Some((_, first, first_span)) = reserved[..i].iter().find(|(b, ..)| b == a) {
            let span = span.or(*first_span).unwrap_or_else(|| ident.span());
            errors.push(
                darling::Error::custom(format!(
                    "attribute name `{a}` is both {first} and {role}; give each key its own attribute name"
                ))
                .with_span(&span),
            );
        }
    }
    // A multi-attribute key's attributes are the entities' own fields: they
    // may be shared between indexes (with one type), never be a synthetic
    // key or the entity-type attribute.
    for (i, (a, kind, n, span)) in multi_attrs.iter().enumerate() {
        if let Some((_, role, _)) = reserved.iter().find(|(b, ..)| b == a) {
            errors.push(
                darling::Error::custom(format!(
                    "attribute name `{a}` of `gsi{n}`'s key is also {role}; name an attribute the entities store"
                ))
                .with_span(span),
            );
        } else if let Some((_, other, m, _)) = multi_attrs[..i]
            .iter()
            .find(|(b, k, ..)| b == a && k != kind)
        {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{a}` is `{kind}` here but `{other}` in `gsi{m}`; an attribute has one type in every key"
                ))
                .with_span(span),
            );
        }
    }
    let schema_version = o
        .schema_version
        .as_ref()
        .map_or_else(|| "schemaVersion".to_owned(), |s| s.as_str().to_owned());
    if let Some(v) = &o.schema_version {
        if v.is_empty() {
            errors.push(
                darling::Error::custom("empty `schema_version` attribute name")
                    .with_span(&v.span()),
            );
        } else if let Some((_, role, _)) = reserved.iter().find(|(a, ..)| a == v.as_str()) {
            errors.push(
                darling::Error::custom(format!(
                    "attribute name `{}` is both {role} and the schema-version attribute; give each its own name",
                    v.as_str()
                ))
                .with_span(&v.span()),
            );
        }
    }
    let stream_tokens = match &o.stream {
        None => quote!(::core::option::Option::None),
        Some(path) => {
            let view = path.get_ident().map(ToString::to_string);
            let variant = match view.as_deref() {
                Some("keys_only") => Some(quote!(KeysOnly)),
                Some("new_image") => Some(quote!(NewImage)),
                Some("old_image") => Some(quote!(OldImage)),
                Some("new_and_old_images") => Some(quote!(NewAndOldImages)),
                _ => None,
            };
            match variant {
                Some(v) => quote!(::core::option::Option::Some(#krate::StreamView::#v)),
                None => {
                    let shown = quote!(#path).to_string().replace(' ', "");
                    errors.push(
                        darling::Error::custom(format!(
                            "unknown stream view `{shown}`; expected `keys_only`, `new_image`, `old_image` or `new_and_old_images`"
                        ))
                        .with_span(path),
                    );
                    quote!(::core::option::Option::None)
                }
            }
        }
    };
    let reserved = reserved.iter().map(|(a, ..)| a);
    errors.finish()?;

    let sk_tokens = match &sk {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let ttl_tokens = match &o.ttl {
        Some(t) => {
            let t = t.as_str();
            quote!(::core::option::Option::Some(#t))
        }
        None => quote!(::core::option::Option::None),
    };
    let index_names: Vec<String> = gsis
        .iter()
        .filter(|(_, o)| o.is_some())
        .map(|(n, _)| format!("gsi{n}"))
        .chain(
            lsis.iter()
                .filter(|(_, o)| o.is_some())
                .map(|(n, _)| format!("lsi{n}")),
        )
        .collect();
    let entities: Vec<&syn::Path> = o
        .entities
        .as_ref()
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    let shapes = entities
        .iter()
        .map(|e| quote!(<#e as #krate::Entity>::SHAPE));
    let collection_shapes: Vec<TokenStream> = o
        .collections
        .as_ref()
        .map(|l| {
            l.iter()
                .map(|c| quote_spanned!(c.span()=> <#c as #krate::collection::HasShape>::SHAPE))
                .collect()
        })
        .unwrap_or_default();
    let checks = entity_checks(
        &krate,
        ident,
        &entities,
        &index_names,
        o.ttl.as_ref().map(|t| t.as_str()),
    );
    Ok(quote! {
        #unknown_option
        #checks
        #[automatically_derived]
        impl #krate::Table for #ident {
            const NAME: &'static str = #name;
            const PK: &'static str = #pk;
            const SK: ::core::option::Option<&'static str> = #sk_tokens;
            const ENTITY_TYPE: &'static str = #entity_type;
            const GLOBAL_INDEXES: &'static [#krate::GlobalIndex] = &[#(#gsi_defs),*];
            const LOCAL_INDEXES: &'static [#krate::LocalIndex] = &[#(#lsi_defs),*];
            const RESERVED: &'static [&'static str] = &[#(#reserved),*];
            const ENTITIES: &'static [#krate::__private::EntityShape] = &[#(#shapes),*];
            const COLLECTIONS: &'static [#krate::collection::CollectionShape] = &[#(#collection_shapes),*];
            const TTL: ::core::option::Option<&'static str> = #ttl_tokens;
            const STREAM: ::core::option::Option<#krate::StreamView> = #stream_tokens;
            const SCHEMA_VERSION: &'static str = #schema_version;
        }
        #(#gsi_impls)*
        #(#lsi_impls)*
    })
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
                const _: () = if #p::__private::table_queries_leak(&#a_shape, &#b_shape) { ::core::panic!(#leak) };
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
                    "entities `{an}` and `{bn}` both map their fields onto `{ix}`, whose keys are the items' own attributes: nothing in the key tells them apart, so each one's queries read the other's items too; give one of them its own index"
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

/// The partition and sort attributes of a multi-attribute key, checked as
/// CreateTable checks them; `None` for a template index.
fn multi_key<'a>(
    n: u8,
    g: &'a GsiOpts,
    errors: &mut darling::error::Accumulator,
) -> Option<(Vec<&'a KeyAttrDecl>, Vec<&'a KeyAttrDecl>)> {
    let partition = match &g.pk {
        Some(GsiKey::Attrs(a, _)) => a,
        _ => {
            if let Some(GsiKey::Attrs(_, span)) = &g.sk {
                errors.push(
                    darling::Error::custom(format!(
                        "`gsi{n}` has sort attributes `sk(...)` but a synthetic partition key; declare its partition attributes too, e.g. `pk(tenantId = S)`"
                    ))
                    .with_span(span),
                );
            }
            return None;
        }
    };
    let sort: Vec<&KeyAttrDecl> = match &g.sk {
        Some(GsiKey::Attrs(a, _)) => a.iter().collect(),
        Some(GsiKey::Name(name)) => {
            errors.push(
                darling::Error::custom(format!(
                    "`gsi{n}` has partition attributes `pk(...)`, so its sort key is attributes too: `sk(createdAt = N)`, or no `sk` for none"
                ))
                .with_span(&name.span()),
            );
            Vec::new()
        }
        None => Vec::new(),
    };
    if g.no_sk.is_present() && !sort.is_empty() {
        errors.push(
            darling::Error::custom("`sk(...)` and `no_sk` contradict each other; keep one")
                .with_span(&g.no_sk.span()),
        );
    }
    let partition: Vec<&KeyAttrDecl> = partition.iter().collect();
    for (attrs, what) in [(&partition, "partition"), (&sort, "sort")] {
        if let Some(fifth) = attrs.get(4) {
            errors.push(
                darling::Error::custom(format!(
                    "`gsi{n}` has {} {what} attributes; DynamoDB allows at most 4",
                    attrs.len()
                ))
                .with_span(&fifth.span),
            );
        }
    }
    let all: Vec<&&KeyAttrDecl> = partition.iter().chain(&sort).collect();
    for (i, a) in all.iter().enumerate() {
        if all[..i].iter().any(|b| b.name == a.name) {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{}` is twice in `gsi{n}`'s key; each key attribute is listed once",
                    a.name
                ))
                .with_span(&a.span),
            );
        }
    }
    Some((partition, sort))
}
