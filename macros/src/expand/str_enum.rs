//! `#[derive(StrEnum)]`: a unit-only enum stored as a stable string (`S`)
//! and usable as a key part.

use darling::util::SpannedValue;
use darling::{FromDeriveInput, FromVariant};
use proc_macro2::TokenStream;
use quote::quote;

#[derive(FromDeriveInput)]
#[darling(attributes(str_enum))]
struct EnumOpts {
    ident: syn::Ident,
    data: darling::ast::Data<VariantOpts, ()>,
    #[darling(default)]
    rename_all: Option<SpannedValue<String>>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

#[derive(FromVariant)]
#[darling(attributes(str_enum))]
struct VariantOpts {
    ident: syn::Ident,
    fields: darling::ast::Fields<()>,
    #[darling(default)]
    rename: Option<SpannedValue<String>>,
}

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    expand(input).unwrap_or_else(darling::Error::write_errors)
}

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, darling::Error> {
    let syn::Data::Enum(_) = &input.data else {
        return Err(darling::Error::custom(
            "`#[derive(StrEnum)]` needs an enum of unit variants; derive `Entity` or `Document` for structs",
        )
        .with_span(&input.ident));
    };
    let o = EnumOpts::from_derive_input(input)?;
    let mut errors = darling::Error::accumulator();
    let rule = crate::internals::attr::rename_rule(&o.rename_all, &mut errors);
    let krate = o
        .krate
        .as_ref()
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::singletable));
    let ident = &o.ident;
    let variants = o.data.take_enum().unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    let mut idents = Vec::new();
    for v in &variants {
        if !v.fields.is_unit() {
            errors.push(
                darling::Error::custom(format!(
                    "variant `{}` has fields; `#[derive(StrEnum)]` stores unit variants only, as strings",
                    v.ident
                ))
                .with_span(&v.ident),
            );
            continue;
        }
        let (name, span) = match &v.rename {
            Some(r) => (r.as_str().to_owned(), r.span()),
            None => (rule.apply(&v.ident.to_string()), v.ident.span()),
        };
        if name.is_empty() {
            errors.push(
                darling::Error::custom("empty string value; key parts cannot be empty")
                    .with_span(&span),
            );
        }
        if names.contains(&name) {
            errors.push(
                darling::Error::custom(format!(
                    "variant `{}` is stored as {name:?}, like an earlier variant; give each variant its own string",
                    v.ident
                ))
                .with_span(&span),
            );
        }
        names.push(name);
        idents.push(&v.ident);
    }
    if variants.is_empty() {
        errors.push(
            darling::Error::custom("`#[derive(StrEnum)]` needs at least one variant")
                .with_span(ident),
        );
    }
    errors.finish()?;
    let type_name = ident.to_string();
    let n_variants = names.len() as u64;
    let expected = format!(
        "one of {}",
        names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );

    Ok(quote! {
        #[automatically_derived]
        impl #ident {
            /// The string stored for this variant.
            pub const fn as_str(&self) -> &'static str {
                match self { #(Self::#idents => #names,)* }
            }

            /// The variant stored as `s`, if any.
            pub fn from_str_value(s: &str) -> ::core::option::Option<Self> {
                match s {
                    #(#names => ::core::option::Option::Some(Self::#idents),)*
                    _ => ::core::option::Option::None,
                }
            }

            /// Every variant, in declaration order.
            pub const VARIANTS: &'static [Self] = &[#(Self::#idents),*];
        }

        #[automatically_derived]
        impl ::core::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[automatically_derived]
        impl #krate::Attr for #ident {
            fn to_attr(&self) -> ::core::result::Result<#krate::AttributeValue, #krate::EncodeError> {
                ::core::result::Result::Ok(#krate::AttributeValue::S(::std::string::String::from(self.as_str())))
            }
            fn from_attr(__value: #krate::AttributeValue) -> ::core::result::Result<Self, #krate::DecodeError> {
                match __value {
                    #krate::AttributeValue::S(__s) => Self::from_attr_ref(#krate::reader::AttrRef::S(&__s)),
                    __other => Self::from_attr_ref(#krate::reader::AttrRef::Owned(__other)),
                }
            }
            fn from_attr_ref(__value: #krate::reader::AttrRef<'_>) -> ::core::result::Result<Self, #krate::DecodeError> {
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
    })
}
