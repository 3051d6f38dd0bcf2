//! `#[derive(StrEnum)]`'s model: the enum's unit variants and the string
//! each is stored as (`#[str_enum(rename_all = "...")]`, `rename = "..."`).

use darling::util::SpannedValue;
use darling::{FromDeriveInput, FromVariant};

#[derive(FromDeriveInput)]
#[darling(attributes(str_enum))]
pub struct EnumOpts {
    pub ident: syn::Ident,
    pub data: darling::ast::Data<VariantOpts, ()>,
    #[darling(default)]
    pub rename_all: Option<SpannedValue<String>>,
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
}

#[derive(FromVariant)]
#[darling(attributes(str_enum))]
pub struct VariantOpts {
    pub ident: syn::Ident,
    pub fields: darling::ast::Fields<()>,
    #[darling(default)]
    pub rename: Option<SpannedValue<String>>,
}

/// A read and checked `#[derive(StrEnum)]`.
pub struct StrEnum {
    pub ident: syn::Ident,
    pub krate: Option<syn::Path>,
    /// Each unit variant and the string stored for it.
    pub variants: Vec<(syn::Ident, String)>,
    /// Whether a variant with fields was left out.
    pub partial: bool,
}

/// Reads the enum; every mistake in it is reported into `errors`, and an
/// unknown option or a variant with fields is left out of the model.
pub fn parse(
    input: &syn::DeriveInput,
    errors: &mut darling::error::Accumulator,
) -> Result<StrEnum, darling::Error> {
    let syn::Data::Enum(_) = &input.data else {
        return Err(darling::Error::custom(
            "`#[derive(StrEnum)]` needs an enum of unit variants; derive `Entity` or `Document` for structs",
        )
        .with_span(&input.ident));
    };
    let (o, unknown) = crate::internals::style::parse_repaired(
        input,
        "str_enum",
        EnumOpts::from_derive_input,
        || Some("`crate`, `rename_all` on the enum, `rename` on a variant".to_owned()),
    )?;
    errors.extend(unknown);
    let rule = crate::internals::attr::rename_rule(&o.rename_all, errors);
    let variants = o.data.take_enum().unwrap_or_default();
    let mut out: Vec<(syn::Ident, String)> = Vec::new();
    let mut partial = false;
    for v in &variants {
        if !v.fields.is_unit() {
            partial = true;
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
        if out.iter().any(|(_, n)| *n == name) {
            errors.push(
                darling::Error::custom(format!(
                    "variant `{}` is stored as {name:?}, like an earlier variant; give each variant its own string",
                    v.ident
                ))
                .with_span(&span),
            );
        }
        out.push((v.ident.clone(), name));
    }
    if variants.is_empty() {
        errors.push(
            darling::Error::custom("`#[derive(StrEnum)]` needs at least one variant")
                .with_span(&o.ident),
        );
    }
    Ok(StrEnum {
        ident: o.ident,
        krate: o.krate,
        variants: out,
        partial,
    })
}
