//! `#[derive(Document)]`: a nested struct stored as a map (`M`) attribute,
//! with the same field options and codec as an entity.

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::attr::{self, DocumentOpts};
use crate::internals::ctx::Tokens;
use crate::internals::model::{self, Codec};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    super::or_stub(expand(input).map_err(darling::Error::write_errors), || {
        stub(input)
    })
}

/// An `Attr` impl emitted beside the errors of a struct that has no
/// fields to model.
fn stub(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    quote! {
        #[automatically_derived]
        impl ::singletable::Attr for #ident {
            fn to_attr(&self) -> ::core::result::Result<::singletable::AttributeValue, ::singletable::EncodeError> { ::core::unimplemented!() }
            fn from_attr(_: ::singletable::AttributeValue) -> ::core::result::Result<Self, ::singletable::DecodeError> { ::core::unimplemented!() }
        }
    }
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, darling::Error> {
    let named = model::named_fields(input, "Document")?;
    let (opts, unknown) = crate::internals::style::parse_repaired(
        input,
        "document",
        DocumentOpts::from_derive_input,
        || crate::internals::style::options_of::<DocumentOpts>("document"),
    )?;
    let mut errors = darling::Error::accumulator();
    errors.extend(unknown);
    let rule = attr::rename_rule(&opts.rename_all, &mut errors);
    let fields = model::fields(named, rule, &mut errors);
    // After a mistake the document is still generated from its fields (a
    // field whose `#[attr]` is wrong keeps default options), so the code
    // using it raises no second error.
    let errors = errors.into_inner();
    let reported = (!errors.is_empty()).then(|| darling::Error::multiple(errors).write_errors());

    let krate = Tokens::new(
        opts.krate
            .as_ref()
            .map(|p| quote!(#p))
            .unwrap_or_else(|| quote!(::singletable)),
    );
    let ident = &opts.ident;
    let private = Tokens::new(quote!(#krate::__private));
    let codec = Codec {
        krate: &krate,
        private: &private,
        fields: &fields,
        entity: None,
    };
    let encode_ref = codec.encode(false);
    let encode_owned = codec.encode(true);
    let scan = codec.scan(None);
    let init = codec.init(false);
    let n = codec.stored_count();
    let name = ident.to_string();
    let validate = codec.validate(&name, true);
    let (fields_struct, fields_impl) = paths(&krate, &input.vis, ident, &fields);
    let validation_error = quote! {
        |__e: #krate::Error| #krate::EncodeError::new(__e.to_string())
    };
    Ok(quote! {
        #reported
        #[automatically_derived]
        impl #krate::Attr for #ident {
            const DYNAMODB_TYPE: ::core::option::Option<&'static str> = ::core::option::Option::Some("M");

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

        #fields_struct
        #fields_impl
    })
}

/// The document's field handles (`AddressFields`, reached from a path as
/// `f.address.field(|a| a.city)`), their validation functions, and the
/// `Document` impl.
fn paths(
    krate: &Tokens,
    vis: &syn::Visibility,
    ident: &syn::Ident,
    fields: &[model::Field],
) -> (TokenStream, TokenStream) {
    let fields_ty = format_ident!("{}Fields", ident);
    let stored_names = fields.iter().filter(|f| !f.skipped()).map(|f| &f.stored);
    let mut decls = Vec::new();
    let mut inits = Vec::new();
    let mut check_fns = Vec::new();
    for f in fields.iter().filter(|f| model::has_handle(f)) {
        let (fid, ty, name, stored) = (&f.ident, &f.ty, f.name(), &f.stored);
        let doc = format!("Field `{name}`, stored as `{stored}`.");
        decls.push(quote! {
            #[doc = #doc]
            pub #fid: #krate::nested::DocField<#ident, #ty>
        });
        match model::check_fn(f) {
            Some(check) => {
                let body = model::checks(
                    krate,
                    f,
                    &quote!(__v),
                    |msg| quote!(return #krate::__private::Err(#msg);),
                );
                check_fns.push(quote! {
                    #[doc(hidden)]
                    fn #check(__v: &#ty) -> #krate::__private::Result<(), #krate::__private::String> {
                        #body
                        #krate::__private::Ok(())
                    }
                });
                inits.push(
                    quote!(#fid: #krate::__private::checked_doc_field(#stored, #name, Self::#check)),
                );
            }
            None => inits.push(quote!(#fid: #krate::__private::doc_field(#stored, #name))),
        }
    }
    let doc = format!(
        "Typed handles on the fields of `{ident}`, for paths below a field holding one: `f.field(|d| d.name)`."
    );
    let outside = quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #fields_ty {
            #(#decls,)*
        }
    };
    let inside = quote! {
        #[automatically_derived]
        #[allow(dead_code)]
        impl #ident {
            #(#check_fns)*
        }

        #[automatically_derived]
        impl #krate::nested::Document for #ident {
            const ATTRIBUTES: &'static [&'static str] = &[#(#stored_names),*];
            type Fields = #fields_ty;
            fn fields() -> #fields_ty {
                #fields_ty { #(#inits,)* }
            }
        }
    };
    (outside, inside)
}
