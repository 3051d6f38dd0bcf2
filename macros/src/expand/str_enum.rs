//! `#[derive(StrEnum)]`: a unit-only enum stored as a stable string (`S`)
//! and usable as a key part.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::str_enum::{self, StrEnum};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    expand(input)
}

/// The enum's API, after a mistake too (from the variants that could be
/// read, or none), so that the code using it raises no second error.
fn expand(input: &syn::DeriveInput) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let e = str_enum::parse(input, &mut errors).unwrap_or_else(|err| {
        errors.push(err);
        StrEnum {
            ident: input.ident.clone(),
            krate: None,
            variants: Vec::new(),
            partial: true,
        }
    });
    let errors = errors.into_inner();
    let lenient = !errors.is_empty();
    let reported = lenient.then(|| darling::Error::multiple(errors).write_errors());
    let krate = e
        .krate
        .as_ref()
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::singletable));
    let inherent = inherent_impl(&e, lenient);
    let attr = attr_impls(&krate, &e);
    let key_part = key_part_impls(&krate, &e);
    quote! {
        #reported
        #inherent
        #attr
        #key_part
    }
}

/// `as_str`, `from_str_value` and `VARIANTS`.
fn inherent_impl(e: &StrEnum, lenient: bool) -> TokenStream {
    let ident = &e.ident;
    // Beside an error: the variants left out, and strings given twice.
    let (rest, allow) = if lenient {
        let rest = e.partial.then(|| quote!(_ => ::core::unreachable!(),));
        (rest, Some(quote!(#[allow(unreachable_patterns)])))
    } else {
        (None, None)
    };
    let idents = e.variants.iter().map(|(v, _)| v);
    let names = e.variants.iter().map(|(_, n)| n);
    let (idents2, names2) = (idents.clone(), names.clone());
    let idents3 = idents.clone();
    quote! {
        #[automatically_derived]
        impl #ident {
            /// The string stored for this variant.
            #allow
            pub const fn as_str(&self) -> &'static str {
                match self { #(Self::#idents => #names,)* #rest }
            }

            /// The variant stored as `s`, if any.
            #allow
            pub fn from_str_value(s: &str) -> ::core::option::Option<Self> {
                match s {
                    #(#names2 => ::core::option::Option::Some(Self::#idents2),)*
                    _ => ::core::option::Option::None,
                }
            }

            /// Every variant, in declaration order.
            pub const VARIANTS: &'static [Self] = &[#(Self::#idents3),*];
        }
    }
}

/// `Display` and `Attr`: the variant's string.
fn attr_impls(krate: &TokenStream, e: &StrEnum) -> TokenStream {
    let ident = &e.ident;
    let type_name = ident.to_string();
    let expected = format!(
        "one of {}",
        e.variants
            .iter()
            .map(|(_, n)| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    quote! {
        #[automatically_derived]
        impl ::core::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[automatically_derived]
        impl #krate::Attr for #ident {
            const DYNAMODB_TYPE: ::core::option::Option<&'static str> = ::core::option::Option::Some("S");
            fn to_attr(&self) -> ::core::result::Result<#krate::AttributeValue, #krate::EncodeError> {
                ::core::result::Result::Ok(#krate::AttributeValue::S(::std::string::String::from(self.as_str())))
            }
            fn from_attr(__value: #krate::AttributeValue) -> ::core::result::Result<Self, #krate::DecodeError> {
                match __value {
                    #krate::AttributeValue::S(__s) => Self::from_attr_ref(#krate::__private::reader::AttrRef::S(&__s)),
                    __other => Self::from_attr_ref(#krate::__private::reader::AttrRef::owned(__other)),
                }
            }
            fn from_attr_ref(__value: #krate::__private::reader::AttrRef<'_>) -> ::core::result::Result<Self, #krate::DecodeError> {
                match __value.as_s() {
                    ::core::option::Option::Some(__s) => Self::from_str_value(__s).ok_or_else(|| {
                        #krate::DecodeError::new(#krate::DecodeErrorKind::Invalid(
                            ::std::format!("{:?} is not a {}; expected {}", __s, #type_name, #expected),
                        ))
                    }),
                    ::core::option::Option::None => ::core::result::Result::Err(
                        __value.wrong_type(::core::concat!("S (", #type_name, ")")),
                    ),
                }
            }
        }
    }
}

/// `KeyPart`, `KeyScalar` and `KeyPartDecode`: the variant's string,
/// escaped, as one key segment.
fn key_part_impls(krate: &TokenStream, e: &StrEnum) -> TokenStream {
    let ident = &e.ident;
    let type_name = ident.to_string();
    let n_variants = e.variants.len() as u64;
    quote! {
        #[automatically_derived]
        impl #krate::KeyPart for #ident {
            const CARDINALITY: ::core::option::Option<u64> = ::core::option::Option::Some(#n_variants);
            fn write_key_part(&self, out: &mut ::std::string::String) -> ::core::result::Result<(), #krate::KeyError> {
                #krate::__private::escape_into(self.as_str(), out)
            }
        }

        #[automatically_derived]
        impl #krate::__private::KeyScalar for #ident {
            const KIND: #krate::KeyType = #krate::KeyType::S;
        }

        #[automatically_derived]
        impl #krate::KeyPartDecode for #ident {
            fn read_key_part(segment: &str) -> ::core::result::Result<Self, #krate::KeyError> {
                let __s = #krate::__private::unescape(segment)?;
                Self::from_str_value(&__s).ok_or_else(|| #krate::KeyError::Segment {
                    segment: ::std::string::String::from(segment),
                    expected: #type_name,
                })
            }
        }
    }
}
