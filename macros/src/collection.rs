//! `#[derive(Collection)]`: an enum with one variant per entity type stored
//! in a shared partition ("an order with its items"), read by one Query and
//! decoded by the entity-type attribute.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    expand(input).unwrap_or_else(syn::Error::into_compile_error)
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, syn::Error> {
    let syn::Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Collection)]` needs an enum with one single-field variant per entity, e.g. `enum OrderDetails { Order(Order), Item(OrderItem) }`",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "`#[derive(Collection)]` does not support generic enums",
        ));
    }
    let mut errors: Option<syn::Error> = None;
    let mut variants = Vec::new();
    for v in &data.variants {
        match &v.fields {
            syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                variants.push((&v.ident, &f.unnamed[0].ty));
            }
            _ => {
                let e = syn::Error::new(
                    v.ident.span(),
                    format!(
                        "variant `{}` must hold exactly one entity, like `{}(MyEntity)`",
                        v.ident, v.ident
                    ),
                );
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let Some((_, first)) = variants.first() else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Collection)]` needs at least one variant",
        ));
    };
    let p = quote!(::singletable);
    let ident = &input.ident;
    let vis = &input.vis;
    let name = ident.to_string();
    let table = quote!(<#first as #p::Entity>::Table);
    // Every variant lives in the first one's table and partition template.
    let checks = variants.iter().skip(1).map(|(_, ty)| {
        let msg = format!(
            "every entity of collection `{name}` must share the partition key template of `{}`",
            quote!(#first)
        );
        quote_spanned! {ty.span()=>
            const _: () = {
                fn __same_table<T: #p::Entity<Table = #table>>() {}
                let _ = __same_table::<#ty>;
                if !#p::__private::str_eq(<#ty as #p::Entity>::PK_TEMPLATE, <#first as #p::Entity>::PK_TEMPLATE) {
                    ::core::panic!(#msg);
                }
            };
        }
    });
    let arms = variants.iter().map(|(v, ty)| {
        quote! {
            #p::__private::Some(__t) if __t == <#ty as #p::Entity>::ENTITY_TYPE => {
                <#ty as #p::Entity>::from_item(__item).map(|__e| #p::__private::Some(Self::#v(__e)))
            }
        }
    });
    let doc = format!(
        "Every item of the collection `{name}` in one partition: one Query, decoded by entity type. Items of other types fail the query unless `skip_other_types()` is set."
    );
    Ok(quote! {
        #(#checks)*

        #[automatically_derived]
        impl #p::Decode for #ident {
            fn decode(__item: #p::Item, __other: #p::OtherTypes) -> #p::Result<#p::__private::Option<Self>> {
                let __attr = <#table as #p::Table>::ENTITY_TYPE;
                match #p::__private::entity_type_of(&__item, __attr) {
                    #(#arms)*
                    _ => match __other {
                        #p::OtherTypes::Skip => #p::__private::Ok(#p::__private::None),
                        #p::OtherTypes::Error => #p::__private::Err(#p::__private::unknown_type(#name, &__item, __attr)),
                    },
                }
            }

            fn ttl_attribute() -> #p::__private::Option<&'static str> {
                <#table as #p::Table>::TTL
            }

            fn cursor_scope() -> &'static str {
                ::core::concat!("collection:", #name)
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #doc]
            #vis fn query(partition: #p::Partition<#table>) -> #p::Query<Self, #p::OnTable> {
                let __table = #p::__private::table_attrs::<#table>();
                #p::Query::new(
                    #p::__private::Target {
                        pattern: #name,
                        index: #p::__private::None,
                        pk_attr: __table.pk,
                        sk_attr: __table.sk,
                        table_pk: __table.pk,
                        table_sk: __table.sk,
                    },
                    #p::__private::Ok(partition.into_value()),
                )
            }
        }
    })
}
