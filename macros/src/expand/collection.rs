//! `#[derive(Collection)]`: an enum with one variant per entity type stored
//! in a shared partition ("an order with its items", "everything a user
//! owns" on a global index), read by one Query and decoded by the
//! entity-type attribute. `#[collection(index = gsi1, sk_prefix = "..")]`
//! puts it on an index and narrows it to a sort-key prefix.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::collection::{self, Collection, Index};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    super::or_stub(
        expand(input).map_err(syn::Error::into_compile_error),
        || stub(input),
    )
}

/// The collection's traits and `query`, emitted beside errors that left no
/// member to read the table from.
fn stub(input: &syn::DeriveInput) -> TokenStream {
    let p = quote!(::singletable);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let vis = &input.vis;
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::__private::collection::HasShape for #ident #ty_generics #where_clause {
            const SHAPE: #p::__private::collection::CollectionShape = #p::__private::collection::CollectionShape {
                name: "",
                index: #p::__private::None,
                sk_prefix: #p::__private::None,
                partition: "",
                members: &[],
            };
        }

        #[automatically_derived]
        impl #impl_generics #p::Decode for #ident #ty_generics #where_clause {
            type Table = #p::__private::StubTable;
            fn decode(_: #p::Item, _: #p::OtherTypes) -> #p::Result<#p::__private::Option<Self>> {
                ::core::unimplemented!()
            }
        }

        #[automatically_derived]
        impl #impl_generics #ident #ty_generics #where_clause {
            #[allow(dead_code)]
            #vis fn query<__P>(_: __P) -> #p::Query<Self, #p::OnTable, Self> {
                ::core::unimplemented!()
            }

            #[allow(dead_code)]
            #vis fn scan() -> #p::query::Scan<Self> {
                ::core::unimplemented!()
            }
        }
    }
}

/// What every part of the expansion names.
struct Names<'a> {
    p: TokenStream,
    ident: &'a syn::Ident,
    /// The collection's name, for messages and the shape.
    name: String,
    /// `<First as Entity>::Table`.
    table: TokenStream,
    index_name: Option<String>,
    /// `Option<&str>` literals of the index and the sort-key prefix.
    index_lit: TokenStream,
    prefix_lit: TokenStream,
    /// `index `gsi1`` or `the table`, for messages.
    place: String,
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, syn::Error> {
    let c = collection::parse(input)?;
    let p = quote!(::singletable);
    let first = c.first();
    let index_name = c.opts.index.as_ref().map(|(_, id)| id.to_string());
    let n = Names {
        ident: &input.ident,
        name: input.ident.to_string(),
        table: quote!(<#first as #p::Entity>::Table),
        index_lit: match &index_name {
            Some(n) => quote!(#p::__private::Some(#n)),
            None => quote!(#p::__private::None),
        },
        prefix_lit: match &c.opts.sk_prefix {
            Some(l) => quote!(#p::__private::Some(#l)),
            None => quote!(#p::__private::None),
        },
        place: match &index_name {
            Some(n) => format!("index `{n}`"),
            None => "the table".to_owned(),
        },
        index_name,
        p,
    };
    // After a mistake the members' checks are left out: they would only
    // repeat it (an index left out reads the table).
    let reported = c.errors.clone().map(syn::Error::into_compile_error);
    let checks: Vec<TokenStream> = if reported.is_some() {
        Vec::new()
    } else {
        c.variants
            .iter()
            .map(|(_, ty)| member_check(&n, &c, ty))
            .chain(
                c.opts
                    .partition_from
                    .iter()
                    .map(|ty| producer_check(&n, &c, ty)),
            )
            .collect()
    };
    let shape = shape_impl(&n, &c);
    let decode = decode_impl(&n, &c);
    let query = query_fn(&n, &c, &input.vis);
    let partitions = partition_impls(&n, &c);
    let scan = {
        let (p, ident, vis) = (&n.p, n.ident, &input.vis);
        let doc = format!(
            "A Scan of the table for every item of the collection `{}`'s members (`Scan::new()`), decoded as this enum; the items of other types are skipped. **Cost: a Scan reads the whole table and pays read capacity for every item of every type; never on a hot path**: the collection's partition is read by `query`.",
            n.name
        );
        quote! {
            #[automatically_derived]
            impl #ident {
                #[doc = #doc]
                #[inline]
                #[allow(clippy::self_named_constructors)]
                #vis fn scan() -> #p::query::Scan<Self> {
                    #p::query::Scan::new()
                }
            }
        }
    };
    Ok(quote! {
        #scan

        #reported
        #(#checks)*

        #partitions

        #shape

        #decode

        #query
    })
}

/// Every member lives in the first one's table, in the same partition
/// template of the collection's index, under its sort-key prefix.
fn member_check(n: &Names, c: &Collection, ty: &syn::Type) -> TokenStream {
    let Names {
        p,
        name,
        table,
        index_lit,
        prefix_lit,
        place,
        ..
    } = n;
    let first = c.first();
    let first_name = quote!(#first).to_string();
    let member = quote!(#ty).to_string();
    let no_index = format!(
        "`{member}` is not in {place}, so collection `{name}` never reads it; declare `#[{}(pk = \"...\", sk = \"...\")]` on `{member}` or remove it from the collection",
        n.index_name.as_deref().unwrap_or("pk")
    );
    let other = format!(
        "`{member}` builds its partition key on {place} from another template than `{first_name}`, so they never share a partition; give both the same literal text and placeholders (names may differ), or remove `{member}` from collection `{name}`"
    );
    let outside = format!(
        "the sort key of `{member}` on {place} does not start with `{}`, so sub-collection `{name}` never reads it; remove `{member}` from the collection or change `sk_prefix`",
        c.opts
            .sk_prefix
            .as_ref()
            .map(syn::LitStr::value)
            .unwrap_or_default()
    );
    let sharded = format!(
        "{place} is write-sharded on `{member}`: its items spread over several partitions, which one collection query cannot read; use the access pattern's sharded query instead"
    );
    let prefix_on_attributes = format!(
        "{place} is keyed on typed attributes, not templates, so `sk_prefix` cannot narrow collection `{name}`; remove `sk_prefix`"
    );
    quote_spanned! {ty.span()=>
        const _: () = {
            fn __same_table<T: #p::Entity<Table = #table>>() {}
            let _ = __same_table::<#ty>;
            match #p::__private::collection::member_fit(
                &<#ty as #p::Entity>::SHAPE,
                &<#first as #p::Entity>::SHAPE,
                #index_lit,
                #prefix_lit,
            ) {
                #p::__private::collection::Fit::Fits => {}
                #p::__private::collection::Fit::NoIndex => ::core::panic!(#no_index),
                #p::__private::collection::Fit::OtherPartition => ::core::panic!(#other),
                #p::__private::collection::Fit::OutsidePrefix => ::core::panic!(#outside),
                #p::__private::collection::Fit::Sharded => ::core::panic!(#sharded),
                #p::__private::collection::Fit::PrefixOnAttributes => ::core::panic!(#prefix_on_attributes),
            }
        };
    }
}

/// `impl PartitionOf<Collection>` for each member's partition of the
/// collection's index: the only partitions its `query` takes.
fn partition_impls(n: &Names, c: &Collection) -> TokenStream {
    let Names { p, ident, .. } = n;
    let producers = c
        .variants
        .iter()
        .map(|(_, ty)| *ty)
        .chain(c.opts.partition_from.iter());
    let impls = producers.map(|ty| match c.opts.index {
        Some((Index::Gsi(number), _)) => quote! {
            #[automatically_derived]
            impl #p::__private::entity::PartitionOf<#ident> for #p::Partition<#ty, #p::entity::OnGsi<#number>> {
                fn into_partition_key(self) -> #p::__private::entity::PartitionKey {
                    #p::__private::entity::PartitionKey::Text(self.into_value())
                }
            }
            #[automatically_derived]
            impl #p::__private::entity::PartitionOf<#ident> for #p::entity::AttrPartition<#ty, #number> {
                fn into_partition_key(self) -> #p::__private::entity::PartitionKey {
                    #p::__private::entity::PartitionKey::Attributes(self.into_values())
                }
            }
        },
        _ => quote! {
            #[automatically_derived]
            impl #p::__private::entity::PartitionOf<#ident> for #p::Partition<#ty> {
                fn into_partition_key(self) -> #p::__private::entity::PartitionKey {
                    #p::__private::entity::PartitionKey::Text(self.into_value())
                }
            }
        },
    });
    let members = c.variants.iter().map(|(_, ty)| {
        quote! {
            #[automatically_derived]
            impl #p::__private::collection::MemberOf<#ident> for #ty {}
        }
    });
    quote!(#(#impls)* #(#members)*)
}

/// A `partition_from` entity lives in the collection's table and builds
/// its partition on the collection's index from the same template as the
/// first member.
fn producer_check(n: &Names, c: &Collection, ty: &syn::Type) -> TokenStream {
    let Names {
        p,
        name,
        table,
        index_lit,
        place,
        ..
    } = n;
    let first = c.first();
    let first_name = quote!(#first).to_string();
    let producer = quote!(#ty).to_string();
    let no_index = format!(
        "`{producer}` has no partition on {place}, so it cannot build the partition collection `{name}` reads; remove it from `partition_from`"
    );
    let other = format!(
        "`{producer}` builds its partition on {place} from another template than `{first_name}`, so its partition is not the one collection `{name}` reads; remove it from `partition_from`"
    );
    let sharded = format!(
        "{place} is write-sharded on `{producer}`: its partition is not one value; remove it from `partition_from`"
    );
    quote_spanned! {ty.span()=>
        const _: () = {
            fn __same_table<T: #p::Entity<Table = #table>>() {}
            let _ = __same_table::<#ty>;
            match #p::__private::collection::member_fit(
                &<#ty as #p::Entity>::SHAPE,
                &<#first as #p::Entity>::SHAPE,
                #index_lit,
                #p::__private::None,
            ) {
                #p::__private::collection::Fit::Fits | #p::__private::collection::Fit::OutsidePrefix | #p::__private::collection::Fit::PrefixOnAttributes => {}
                #p::__private::collection::Fit::NoIndex => ::core::panic!(#no_index),
                #p::__private::collection::Fit::OtherPartition => ::core::panic!(#other),
                #p::__private::collection::Fit::Sharded => ::core::panic!(#sharded),
            }
        };
    }
}

/// The `ENTITY_TYPE` of each member.
fn member_types(p: &TokenStream, c: &Collection) -> Vec<TokenStream> {
    c.variants
        .iter()
        .map(|(_, ty)| quote!(<#ty as #p::Entity>::ENTITY_TYPE))
        .collect()
}

/// `impl HasShape`, for the design document.
fn shape_impl(n: &Names, c: &Collection) -> TokenStream {
    let Names {
        p,
        ident,
        name,
        index_lit,
        prefix_lit,
        ..
    } = n;
    let first = c.first();
    let types = member_types(p, c);
    quote! {
        #[automatically_derived]
        impl #p::__private::collection::HasShape for #ident {
            const SHAPE: #p::__private::collection::CollectionShape = #p::__private::collection::CollectionShape {
                name: #name,
                index: #index_lit,
                sk_prefix: #prefix_lit,
                partition: #p::__private::collection::partition_template(&<#first as #p::Entity>::SHAPE, #index_lit),
                members: &[#(#types),*],
            };
        }
    }
}

/// `impl Decode`: each item decoded as the member its entity type names.
fn decode_impl(n: &Names, c: &Collection) -> TokenStream {
    let Names {
        p,
        ident,
        name,
        table,
        ..
    } = n;
    let arms = c.variants.iter().map(|(v, ty)| {
        quote! {
            #p::__private::Some(__t) if __t == <#ty as #p::Entity>::ENTITY_TYPE => {
                <#ty as #p::Entity>::from_item(__item).map(|__e| #p::__private::Some(Self::#v(__e)))
            }
        }
    });
    let types = member_types(p, c);
    let member_tys: Vec<&syn::Type> = c.variants.iter().map(|(_, ty)| *ty).collect();
    let adopt_arms = c.variants.iter().map(|(v, ty)| {
        quote! {
            _ if <#ty as #p::Entity>::ADOPTS && #p::__private::attributed_to::<#ty>(&__item) => {
                <#ty as #p::Entity>::from_item(__item).map(|__e| #p::__private::Some(Self::#v(__e)))
            }
        }
    });
    let adopters: Vec<&syn::Type> = c.variants.iter().map(|(_, ty)| *ty).collect();
    let claim_steps = adopters.iter().enumerate().map(|(i, ty)| {
        quote! {
            if #p::__private::claims::<#ty>(__pk, __sk) {
                return #p::__private::Some(#i);
            }
        }
    });
    let read_arms = c.variants.iter().enumerate().map(|(i, (v, ty))| {
        quote! {
            #p::__private::collection::Peek::Member(#i) => {
                <#ty as #p::Entity>::read_item(__reader, __other).map(|__e| __e.map(Self::#v))
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #p::Decode for #ident {
            type Table = #table;

            fn key_matches(__pk: &str, __sk: #p::__private::Option<&str>) -> bool {
                false #(|| <#member_tys as #p::Decode>::key_matches(__pk, __sk))*
            }

            fn decode(__item: #p::Item, __other: #p::OtherTypes) -> #p::Result<#p::__private::Option<Self>> {
                let __attr = <#table as #p::Table>::ENTITY_TYPE;
                match #p::__private::entity_type_of(&__item, __attr) {
                    #(#arms)*
                    #(#adopt_arms)*
                    _ => match __other {
                        #p::OtherTypes::Skip => #p::__private::Ok(#p::__private::None),
                        #p::OtherTypes::Error => #p::__private::Err(#p::__private::unknown_type(#name, &__item, __attr)),
                    },
                }
            }

            fn read<__R: #p::__private::reader::AttrReader + ?::core::marker::Sized>(
                __reader: &mut __R,
                __other: #p::OtherTypes,
            ) -> #p::Result<#p::__private::Option<Self>> {
                let __attr = <#table as #p::Table>::ENTITY_TYPE;
                // The member that adopts an item without an entity type:
                // the first, in declaration order, whose templates match.
                let __claim = |__pk: #p::__private::Option<&#p::__private::AttributeValue>,
                               __sk: #p::__private::Option<&#p::__private::AttributeValue>|
                 -> #p::__private::Option<usize> {
                    #(#claim_steps)*
                    #p::__private::None
                };
                let __adopters = if false #(|| <#adopters as #p::Entity>::ADOPTS)* {
                    #p::__private::Some(#p::__private::collection::Adopters {
                        pk: <#table as #p::Table>::PK,
                        sk: <#table as #p::Table>::SK,
                        claim: &__claim,
                    })
                } else {
                    #p::__private::None
                };
                match #p::__private::collection::peek_entity_type(__reader, __attr, &[#(#types),*], #name, __adopters)? {
                    #(#read_arms)*
                    #p::__private::collection::Peek::Collected(__item) => <Self as #p::Decode>::decode(__item, __other),
                    #p::__private::collection::Peek::Member(_) | #p::__private::collection::Peek::Other(_) if __other == #p::OtherTypes::Skip => {
                        #p::__private::Ok(#p::__private::None)
                    }
                    #p::__private::collection::Peek::Member(_) | #p::__private::collection::Peek::Other(_) => {
                        let __item = #p::__private::reader::collect_item(__reader).map_err(|__e| #p::Error::Decode { entity: #name, source: __e })?;
                        #p::__private::Err(#p::__private::unknown_type(#name, &__item, __attr))
                    }
                }
            }

            fn ttl_attribute() -> #p::__private::Option<&'static str> {
                <#table as #p::Table>::TTL
            }

            fn cursor_scope() -> &'static str {
                ::core::concat!("collection:", #name)
            }

            fn index_projection(__index: &str) -> #p::Projection {
                #p::__private::index_projection::<#table>(__index)
            }

            fn type_condition(__attr: &str) -> #p::__private::Option<#p::Condition> {
                #p::__private::types_condition(__attr, &[#(#types),*])
            }

            fn adopts() -> bool {
                false #(|| <#member_tys as #p::Entity>::ADOPTS)*
            }
        }
    }
}

/// `Collection::query(partition)`: one Query of the partition on the
/// collection's index, narrowed to its sort-key prefix.
fn query_fn(n: &Names, c: &Collection, vis: &syn::Visibility) -> TokenStream {
    let Names {
        p,
        ident,
        name,
        table,
        ..
    } = n;
    // The query in `__query`, narrowed to the prefix when there is one.
    let with_prefix = match &c.opts.sk_prefix {
        Some(l) => {
            quote!(#p::__private::WithSort::with_sort(__query, #p::__private::Ok(#p::__private::SortCondition::BeginsWith(#p::__private::String::from(#l)))))
        }
        None => quote!(__query),
    };
    let doc = doc(n, c);
    if let Some((Index::Gsi(number), _)) = c.opts.index {
        return gsi_query_fn(n, number, with_prefix, vis, &doc);
    }
    let (place_ty, index_expr, pk_attr, sk_attr) = match c.opts.index {
        None => (
            quote!(#p::OnTable),
            quote!(#p::__private::None),
            quote!(__table.pk),
            quote!(__table.sk),
        ),
        Some((Index::Gsi(_), _)) => unreachable!("read by `gsi_query_fn`"),
        Some((Index::Lsi(n), _)) => (
            quote!(#p::OnLocalIndex),
            quote!(#p::__private::Some(<#table as #p::__private::Lsi<#n>>::NAME)),
            quote!(__table.pk),
            quote!(#p::__private::Some(<#table as #p::__private::Lsi<#n>>::SK_ATTR)),
        ),
    };
    quote! {
        #[automatically_derived]
        impl #ident {
            #[doc = #doc]
            #vis fn query(partition: impl #p::__private::entity::PartitionOf<Self>) -> #p::Query<Self, #place_ty, Self> {
                let __table = #p::__private::table_attrs::<#table>();
                let __pk = match partition.into_partition_key() {
                    #p::__private::entity::PartitionKey::Text(__pk) => __pk,
                    #p::__private::entity::PartitionKey::Attributes(_) => ::core::unreachable!("a table partition is a key value"),
                };
                let __query = #p::__private::query(
                    #p::__private::Target {
                        pattern: #name,
                        index: #index_expr,
                        pk_attr: #pk_attr,
                        sk_attr: #sk_attr,
                        table_pk: __table.pk,
                        table_sk: __table.sk,
                    },
                    #p::__private::Ok(__pk),
                );
                #with_prefix
            }
        }
    }
}

/// The doc of `query`.
fn doc(n: &Names, c: &Collection) -> String {
    format!(
        "Every item of the collection `{}` in one partition of {}{}: one Query per page, decoded by entity type. Items of other types fail the query unless `skip_other_types()` is set.",
        n.name,
        n.place,
        c.opts
            .sk_prefix
            .as_ref()
            .map(|l| format!(" whose sort key starts with `{}`", l.value()))
            .unwrap_or_default()
    )
}

/// `query` of a collection on global index `gsi<number>`: a partition of a
/// template index (`Partition<T, OnGsi<N>>`, narrowed to the sort-key
/// prefix) or of a multi-attribute one (`AttrPartition<T, N>`, its
/// partition attributes), whichever the members' `gsi<N>_partition` gives.
fn gsi_query_fn(
    n: &Names,
    number: u8,
    with_prefix: TokenStream,
    vis: &syn::Visibility,
    doc: &str,
) -> TokenStream {
    let Names {
        p,
        ident,
        name,
        table,
        ..
    } = n;
    let gsi = quote!(<#table as #p::__private::Gsi<#number>>);
    let prefix = with_prefix;
    quote! {
        #[automatically_derived]
        impl #ident {
            #[doc = #doc]
            #vis fn query(partition: impl #p::__private::entity::PartitionOf<Self>) -> #p::Query<Self, #p::OnGlobalIndex, Self> {
                let __table = #p::__private::table_attrs::<#table>();
                match partition.into_partition_key() {
                    #p::__private::entity::PartitionKey::Text(__pk) => {
                        let __query = #p::__private::query(
                            #p::__private::Target {
                                pattern: #name,
                                index: #p::__private::Some(#gsi::NAME),
                                pk_attr: #gsi::PK_ATTR,
                                sk_attr: #gsi::SK_ATTR,
                                table_pk: __table.pk,
                                table_sk: __table.sk,
                            },
                            #p::__private::Ok(__pk),
                        );
                        #prefix
                    }
                    #p::__private::entity::PartitionKey::Attributes(__values) => #p::__private::query_on_attributes(
                        #p::__private::AttrTarget {
                            pattern: #name,
                            index: #gsi::NAME,
                            key: match #gsi::ATTRIBUTES {
                                #p::__private::Some(__k) => __k,
                                #p::__private::None => #p::AttributeKey { partition: &[], sort: &[] },
                            },
                            table_pk: __table.pk,
                            table_sk: __table.sk,
                        },
                        #p::__private::Ok(__values),
                    ),
                }
            }
        }
    }
}
