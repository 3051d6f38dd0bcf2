//! `#[derive(Document)]`: a nested struct stored as a map (`M`) attribute,
//! with the same field options and codec as an entity.

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::quote;

use crate::attr::{self, DocumentOpts};
use crate::model::{self, Codec};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    expand(input).unwrap_or_else(|e| {
        let errors = e.write_errors();
        let ident = &input.ident;
        // A stub impl keeps the user's other code free of follow-up errors.
        quote! {
            #errors
            #[automatically_derived]
            impl ::singletable::Attr for #ident {
                fn to_attr(&self) -> ::core::result::Result<::singletable::AttributeValue, ::singletable::EncodeError> { ::core::unimplemented!() }
                fn from_attr(_: ::singletable::AttributeValue) -> ::core::result::Result<Self, ::singletable::DecodeError> { ::core::unimplemented!() }
            }
        }
    })
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, darling::Error> {
    let named = model::named_fields(input, "Document")?;
    let opts = DocumentOpts::from_derive_input(input)?;
    let mut errors = darling::Error::accumulator();
    let rule = attr::rename_rule(&opts.rename_all, &mut errors);
    let fields = model::fields(named, rule, &mut errors);
    errors.finish()?;

    let krate = opts
        .krate
        .as_ref()
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::singletable));
    let ident = &opts.ident;
    let codec = Codec {
        krate: &krate,
        fields: &fields,
    };
    let same = |e: TokenStream| e;
    let encode_ref = codec.encode(false, same);
    let encode_owned = codec.encode(true, same);
    let scan = codec.scan(None);
    let init = codec.init(false, same);
    let n = codec.stored_count();
    let name = ident.to_string();
    let validate = codec.validate(&name, false);
    let validation_error = quote! {
        |__e: #krate::Error| #krate::EncodeError::new(__e.to_string())
    };
    Ok(quote! {
        #[automatically_derived]
        impl #krate::Attr for #ident {
            fn to_attr(&self) -> ::core::result::Result<#krate::AttributeValue, #krate::EncodeError> {
                self.__singletable_validate().map_err(#validation_error)?;
                let mut __item: #krate::Item = #krate::__private::HashMap::with_capacity(#n);
                #encode_ref
                ::core::result::Result::Ok(#krate::AttributeValue::M(__item))
            }

            fn into_attr(self) -> ::core::result::Result<#krate::AttributeValue, #krate::EncodeError> {
                self.__singletable_validate().map_err(#validation_error)?;
                let mut __item: #krate::Item = #krate::__private::HashMap::with_capacity(#n);
                #encode_owned
                ::core::result::Result::Ok(#krate::AttributeValue::M(__item))
            }

            fn from_attr(__value: #krate::AttributeValue) -> ::core::result::Result<Self, #krate::DecodeError> {
                let __item = match __value {
                    #krate::AttributeValue::M(__m) => __m,
                    __other => return ::core::result::Result::Err(#krate::__private::wrong_type(
                        ::core::concat!("M (", #name, ")"),
                        &__other,
                    )),
                };
                #scan
                ::core::result::Result::Ok(Self { #init })
            }
        }

        #[automatically_derived]
        impl #ident {
            fn __singletable_validate(&self) -> #krate::Result<()> {
                #validate
                #krate::__private::Ok(())
            }
        }
    })
}
