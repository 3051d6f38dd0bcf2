//! Multi-attribute index keys: `#[gsi4(pk(tenant_id, region), sk(status,
//! created_at))]` maps fields, in order, onto the attributes the table
//! declares for `gsi4` (`#[table(gsi4(pk(tenantId = S, ...), sk(...)))]`).
//! No synthetic attribute is written; the compile-time checks hold each
//! field to its attribute's name and type, and the access patterns of such
//! an index follow DynamoDB's key-condition rules in their types: one
//! argument per partition attribute, then, sort attribute by sort
//! attribute, `<field>_eq` (which leads to the next attribute's methods) or
//! one range condition (which ends the key condition).

use proc_macro2::Span;
use syn::spanned::Spanned;

/// `#[gsiN(pk(a, b), sk(c, d))]` on an entity.
pub struct AttrIndexDecl {
    pub n: u8,
    /// The `gsiN` token.
    pub span: Span,
    pub pk: Vec<syn::Ident>,
    pub sk: Vec<syn::Ident>,
}

impl AttrIndexDecl {
    pub fn name(&self) -> String {
        format!("gsi{}", self.n)
    }
}

/// Whether `#[gsiN(...)]` is the multi-attribute form: `pk(...)` is a list.
pub fn is_multi(attr: &syn::Attribute) -> bool {
    attr.parse_args_with(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
    )
    .is_ok_and(|metas| {
        metas
            .iter()
            .any(|m| matches!(m, syn::Meta::List(l) if l.path.is_ident("pk") || l.path.is_ident("sk")))
    })
}

/// Reads `#[gsiN(pk(a, b), sk(c))]`.
pub fn parse(
    attr: &syn::Attribute,
    n: u8,
    errors: &mut darling::error::Accumulator,
) -> Option<AttrIndexDecl> {
    let metas = match attr
        .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
    {
        Ok(m) => m,
        Err(e) => {
            errors.push(e.into());
            return None;
        }
    };
    let mut decl = AttrIndexDecl {
        n,
        span: attr.path().span(),
        pk: Vec::new(),
        sk: Vec::new(),
    };
    let mut seen_sk = false;
    for m in &metas {
        let fields = |l: &syn::MetaList, errors: &mut darling::error::Accumulator| match l
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
            ) {
            Ok(ids) if !ids.is_empty() => ids.into_iter().collect(),
            _ => {
                errors.push(
                        darling::Error::custom(format!(
                            "expected field names, e.g. `#[gsi{n}(pk(tenant_id, region), sk(status, created_at))]`"
                        ))
                        .with_span(&l.delimiter.span().join()),
                    );
                Vec::new()
            }
        };
        match m {
            syn::Meta::List(l) if l.path.is_ident("pk") => decl.pk = fields(l, errors),
            syn::Meta::List(l) if l.path.is_ident("sk") => {
                seen_sk = true;
                decl.sk = fields(l, errors);
            }
            other => {
                let what = other
                    .path()
                    .get_ident()
                    .map_or_else(String::new, ToString::to_string);
                let msg = match what.as_str() {
                    "when" => format!(
                        "`when` does not apply to a multi-attribute index: an item is in `gsi{n}` while it has every key attribute; make a key field an `Option` for a sparse index"
                    ),
                    "shards" => format!(
                        "`shards` does not apply to a multi-attribute index: DynamoDB spreads `gsi{n}` over its partition attributes' values; add a partition attribute instead"
                    ),
                    "pk" | "sk" => format!(
                        "a multi-attribute index maps fields, not templates: `{what}(field, ...)`"
                    ),
                    _ => format!(
                        "unknown option `{what}` in a multi-attribute `#[gsi{n}(...)]`; expected `pk(field, ...)` and `sk(field, ...)`"
                    ),
                };
                errors.push(darling::Error::custom(msg).with_span(other.path()));
            }
        }
    }
    if decl.pk.is_empty() && !metas.is_empty() && !seen_sk {
        return None;
    }
    if decl.pk.is_empty() {
        errors.push(
            darling::Error::custom(format!(
                "missing `pk(...)`; name the fields of `gsi{n}`'s partition attributes, e.g. `#[gsi{n}(pk(tenant_id), sk(created_at))]`"
            ))
            .with_span(attr.path()),
        );
        return None;
    }
    Some(decl)
}
