//! `#[derive(Collection)]`'s model: its options (`index = gsiN | lsiN`,
//! `sk_prefix = "..."`) and its members, one entity per variant.

use syn::spanned::Spanned;

/// Where the collection lives: `index = gsiN | lsiN` (the table by
/// default) and an optional `sk_prefix` (a sub-collection).
#[derive(Default)]
pub struct Options {
    pub index: Option<(Index, syn::Ident)>,
    pub sk_prefix: Option<syn::LitStr>,
}

#[derive(Clone, Copy)]
pub enum Index {
    Gsi(u8),
    Lsi(u8),
}

pub fn options(input: &syn::DeriveInput) -> Result<Options, syn::Error> {
    let mut out = Options::default();
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("collection"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("index") {
                let ident: syn::Ident = meta.value()?.parse()?;
                let text = ident.to_string();
                let number = |rest: &str| rest.parse::<u8>().ok().filter(|n| (1..=20).contains(n));
                let index = match (text.strip_prefix("gsi"), text.strip_prefix("lsi")) {
                    (Some(n), _) => number(n).map(Index::Gsi),
                    (_, Some(n)) => number(n).map(Index::Lsi),
                    _ => None,
                };
                let Some(index) = index else {
                    return Err(syn::Error::new(
                        ident.span(),
                        format!("unknown index `{text}`; write `index = gsiN` (1 to 20) or `index = lsiN` (1 to 5), or leave `index` out for the table"),
                    ));
                };
                if out.index.is_some() {
                    return Err(meta.error("duplicate `index`; a collection reads one index"));
                }
                out.index = Some((index, ident));
                Ok(())
            } else if meta.path.is_ident("sk_prefix") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                if lit.value().is_empty() {
                    return Err(syn::Error::new(lit.span(), "empty `sk_prefix`; leave it out to read the whole partition"));
                }
                if out.sk_prefix.is_some() {
                    return Err(meta.error("duplicate `sk_prefix`"));
                }
                out.sk_prefix = Some(lit);
                Ok(())
            } else {
                Err(meta.error("unknown option; `#[collection(...)]` takes `index = gsiN | lsiN` and `sk_prefix = \"...\"`"))
            }
        })?;
    }
    Ok(out)
}

/// A read and checked `#[derive(Collection)]`.
pub struct Collection<'a> {
    pub opts: Options,
    /// Each variant and the entity it holds.
    pub variants: Vec<(&'a syn::Ident, &'a syn::Type)>,
}

impl<'a> Collection<'a> {
    /// The first member, whose table and partition the others share.
    pub fn first(&self) -> &'a syn::Type {
        self.variants[0].1
    }
}

/// Reads the collection: an enum of one-entity variants, and its options.
pub fn parse(input: &syn::DeriveInput) -> Result<Collection<'_>, syn::Error> {
    let opts = options(input)?;
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
    if variants.is_empty() {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Collection)]` needs at least one variant",
        ));
    }
    Ok(Collection { opts, variants })
}
