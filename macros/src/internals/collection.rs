//! `#[derive(Collection)]`'s model: its options (`index = gsiN | lsiN`,
//! `sk_prefix = "..."`) and its members, one entity per variant.

use syn::parse::Parse;
use syn::spanned::Spanned;

/// Where the collection lives: `index = gsiN | lsiN` (the table by
/// default) and an optional `sk_prefix` (a sub-collection).
#[derive(Default)]
pub struct Options {
    pub index: Option<(Index, syn::Ident)>,
    pub sk_prefix: Option<syn::LitStr>,
    /// `partition_from = Account` / `partition_from = [Account, Org]`:
    /// entities that are not members but whose `partition(..)` (or
    /// `gsiN_partition(..)`) builds the collection's partition too.
    pub partition_from: Vec<syn::Type>,
}

#[derive(Clone, Copy)]
pub enum Index {
    Gsi(u8),
    Lsi(u8),
}

/// Adds `e` to the errors found so far.
fn push(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

/// Reads `#[collection(...)]`. A wrong option is reported into `errors`
/// and left out, so the collection still reads its table or index.
pub fn options(input: &syn::DeriveInput, errors: &mut Option<syn::Error>) -> Options {
    let mut out = Options::default();
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("collection"))
    {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("index") {
                let ident: syn::Ident = meta.value()?.parse()?;
                let text = ident.to_string();
                let number = |rest: &str, max: u8| rest.parse::<u8>().ok().filter(|n| (1..=max).contains(n));
                let index = match (text.strip_prefix("gsi"), text.strip_prefix("lsi")) {
                    (Some(n), _) => number(n, 20).map(Index::Gsi),
                    (_, Some(n)) => number(n, 5).map(Index::Lsi),
                    _ => None,
                };
                match index {
                    None => push(errors, syn::Error::new(
                        ident.span(),
                        format!("unknown index `{text}`; write `index = gsiN` (1 to 20) or `index = lsiN` (1 to 5), or leave `index` out for the table"),
                    )),
                    Some(_) if out.index.is_some() => {
                        push(errors, meta.error("duplicate `index`; a collection reads one index"));
                    }
                    Some(index) => out.index = Some((index, ident)),
                }
            } else if meta.path.is_ident("sk_prefix") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                if lit.value().is_empty() {
                    push(errors, syn::Error::new(lit.span(), "empty `sk_prefix`; leave it out to read the whole partition"));
                } else if out.sk_prefix.is_some() {
                    push(errors, meta.error("duplicate `sk_prefix`"));
                } else {
                    out.sk_prefix = Some(lit);
                }
            } else if meta.path.is_ident("partition_from") {
                let value = meta.value()?;
                if value.peek(syn::token::Bracket) {
                    let inner;
                    syn::bracketed!(inner in value);
                    let list = inner.parse_terminated(syn::Type::parse, syn::Token![,])?;
                    if list.is_empty() {
                        push(errors, meta.error("empty `partition_from`; name the entities whose partition this collection reads, or leave it out"));
                    }
                    out.partition_from.extend(list);
                } else {
                    out.partition_from.push(value.parse()?);
                }
            } else {
                let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                let options = ["index".to_owned(), "sk_prefix".to_owned(), "partition_from".to_owned()];
                let hint = match crate::internals::hint::closest(&name, &options) {
                    Some(best) => format!("did you mean `{best}`? "),
                    None => String::new(),
                };
                push(errors, meta.error(format!("unknown option `{name}` in `#[collection(...)]`; {hint}options are `index = gsiN | lsiN`, `sk_prefix = \"...\"`, `partition_from = Entity`")));
                // Past its value, to the next option.
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    meta.input.parse::<proc_macro2::Group>()?;
                }
            }
            Ok(())
        });
        if let Err(e) = parsed {
            push(errors, e);
        }
    }
    out
}

/// A read and checked `#[derive(Collection)]`.
pub struct Collection<'a> {
    pub opts: Options,
    /// Every mistake found; what could be read is still in the model.
    pub errors: Option<syn::Error>,
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
/// A variant that holds no single entity is reported and left out; an
/// input without a model (not an enum, generic, no member) is an error.
pub fn parse(input: &syn::DeriveInput) -> Result<Collection<'_>, syn::Error> {
    let mut errors: Option<syn::Error> = None;
    let opts = options(input, &mut errors);
    let fail = |mut errors: Option<syn::Error>, e: syn::Error| {
        push(&mut errors, e);
        errors.unwrap_or_else(|| unreachable!("one error was pushed"))
    };
    let syn::Data::Enum(data) = &input.data else {
        return Err(fail(
            errors,
            syn::Error::new(
                input.ident.span(),
                "`#[derive(Collection)]` needs an enum with one single-field variant per entity, e.g. `enum OrderDetails { Order(Order), Item(OrderItem) }`",
            ),
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(fail(
            errors,
            syn::Error::new(
                input.generics.span(),
                "`#[derive(Collection)]` does not support generic enums",
            ),
        ));
    }
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
                push(&mut errors, e);
            }
        }
    }
    if variants.is_empty() && data.variants.is_empty() {
        return Err(fail(
            errors,
            syn::Error::new(
                input.ident.span(),
                "`#[derive(Collection)]` needs at least one variant",
            ),
        ));
    }
    match errors {
        Some(e) if variants.is_empty() => Err(e),
        errors => Ok(Collection {
            opts,
            errors,
            variants,
        }),
    }
}
