//! Vector indexes: `#[table(vector1(...))]` on the table, parsed and
//! checked as CreateTable checks its `VectorIndexes`, and the entity's
//! `#[vector1(vector = field, hash(..), filter(..))]` that feeds one.

use darling::FromMeta;
use darling::util::{Flag, PathList, SpannedValue};
use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::internals::key_attr::{GsiKey, KeyAttrDecl, Projection};

/// `vectorN(...)` on the table, as written.
#[derive(FromMeta)]
pub struct VectorOpts {
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
    #[darling(default)]
    pub attribute: Option<SpannedValue<String>>,
    #[darling(default)]
    pub dimensions: Option<SpannedValue<u32>>,
    #[darling(default)]
    pub distance: Option<syn::Path>,
    #[darling(default)]
    pub hash: Option<GsiKey>,
    #[darling(default)]
    pub filter: Option<GsiKey>,
    #[darling(default)]
    pub keys_only: Flag,
    #[darling(default)]
    pub include: Option<PathList>,
}

/// A declared vector index, its defaults filled in.
pub struct VectorIndex {
    pub n: u8,
    pub name: String,
    pub attribute: String,
    pub dimensions: u32,
    /// The `Distance` variant.
    pub distance: &'static str,
    pub hash: Vec<KeyAttrDecl>,
    pub filter: Vec<KeyAttrDecl>,
    pub projection: Projection,
}

fn attrs(
    key: &Option<GsiKey>,
    what: &str,
    n: u8,
    errors: &mut darling::error::Accumulator,
) -> Vec<KeyAttrDecl> {
    match key {
        None => Vec::new(),
        Some(GsiKey::Attrs(a, _)) => a.clone(),
        Some(GsiKey::Name(name)) => {
            errors.push(
                darling::Error::custom(format!(
                    "`{what}` of `vector{n}` lists attributes with their types, e.g. `{what}(category = S)`"
                ))
                .with_span(&name.span()),
            );
            Vec::new()
        }
    }
}

/// `vectorN(...)`, checked: a known distance function, at least one
/// dimension, a valid index name, each search-schema attribute once and
/// not the vector attribute. `repaired`: an unknown option was reported
/// (a misspelt `dimensions` or `distance` is not reported missing too).
pub fn model(
    n: u8,
    v: &VectorOpts,
    projection: Projection,
    table: &syn::Ident,
    repaired: bool,
    errors: &mut darling::error::Accumulator,
) -> VectorIndex {
    let missing = |what: &str, example: &str, errors: &mut darling::error::Accumulator| {
        if !repaired {
            errors.push(
                darling::Error::custom(format!(
                    "`vector{n}` needs `{what}`, e.g. `vector{n}({example})`"
                ))
                .with_span(table),
            );
        }
    };
    let distance = match &v.distance {
        None => {
            missing("distance", "dimensions = 768, distance = cosine", errors);
            "Cosine"
        }
        Some(d) => match d.get_ident().map(ToString::to_string).as_deref() {
            Some("cosine") => "Cosine",
            Some("euclidean") => "Euclidean",
            Some("dot_product") => "DotProduct",
            _ => {
                errors.push(
                    darling::Error::custom(
                        "unknown distance function; expected `cosine`, `euclidean` or `dot_product`",
                    )
                    .with_span(d),
                );
                "Cosine"
            }
        },
    };
    let dimensions = match &v.dimensions {
        None => {
            missing("dimensions", "dimensions = 768, distance = cosine", errors);
            1
        }
        Some(d) if **d == 0 => {
            errors.push(
                darling::Error::custom("a vector index has at least 1 dimension")
                    .with_span(&d.span()),
            );
            1
        }
        Some(d) => **d,
    };
    let name = v
        .name
        .as_ref()
        .map_or_else(|| format!("VECTOR{n}"), |s| s.as_str().to_owned());
    if let Some(s) = &v.name {
        crate::internals::key_attr::check_name("index", s, errors);
    }
    let attribute = v
        .attribute
        .as_ref()
        .map_or_else(|| "embedding".to_owned(), |s| s.as_str().to_owned());
    let hash = attrs(&v.hash, "hash", n, errors);
    let filter = attrs(&v.filter, "filter", n, errors);
    let all: Vec<&KeyAttrDecl> = hash.iter().chain(&filter).collect();
    for (i, a) in all.iter().enumerate() {
        if all[..i].iter().any(|b| b.name == a.name) {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{}` is twice in `vector{n}`'s search schema; each is `hash` or `filter`, once",
                    a.name
                ))
                .with_span(&a.span),
            );
        } else if a.name == attribute {
            errors.push(
                darling::Error::custom(format!(
                    "`{}` is `vector{n}`'s vector attribute; the search schema names other attributes",
                    a.name
                ))
                .with_span(&a.span),
            );
        }
    }
    VectorIndex {
        n,
        name,
        attribute,
        dimensions,
        distance,
        hash,
        filter,
        projection,
    }
}

/// `#[vectorN(vector = field, hash(a, b), filter(c))]` on an entity.
pub struct VectorDecl {
    pub n: u8,
    pub span: Span,
    /// `None` after a misspelt option (reported): the checks are left out.
    pub vector: Option<syn::Ident>,
    /// An option was misspelt (and reported): the checks are left out, the
    /// search is still generated.
    pub repaired: bool,
    pub hash: Vec<syn::Ident>,
    pub filter: Vec<syn::Ident>,
}

impl VectorDecl {
    /// `vector1`.
    pub fn name(&self) -> String {
        format!("vector{}", self.n)
    }
}

/// The number of `vectorN`, if `path` is one (`vector1`..`vector9`).
pub fn number(path: &syn::Path) -> Option<u8> {
    let id = path.get_ident()?.to_string();
    let n: u8 = id.strip_prefix("vector")?.parse().ok()?;
    (1..=9).contains(&n).then_some(n)
}

/// Reads every `#[vectorN(...)]` of an entity.
pub fn parse(
    attrs: &[syn::Attribute],
    errors: &mut darling::error::Accumulator,
) -> Vec<VectorDecl> {
    let mut out: Vec<VectorDecl> = Vec::new();
    for attr in attrs {
        let Some(n) = number(attr.path()) else {
            continue;
        };
        let span = attr.path().span();
        let mut wrong: Vec<syn::Error> = Vec::new();
        let parsed = attr.parse_args_with(|input: syn::parse::ParseStream| {
            let mut vector = None;
            let mut hash = Vec::new();
            let mut filter = Vec::new();
            while !input.is_empty() {
                let key: syn::Ident = input.parse()?;
                match key.to_string().as_str() {
                    "vector" => {
                        input.parse::<syn::Token![=]>()?;
                        vector = Some(input.parse::<syn::Ident>()?);
                    }
                    "hash" | "filter" => {
                        let content;
                        syn::parenthesized!(content in input);
                        let ids = content
                            .parse_terminated(syn::Ident::parse_any_ident, syn::Token![,])?;
                        let list = if key == "hash" { &mut hash } else { &mut filter };
                        list.extend(ids);
                    }
                    other => {
                        wrong.push(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}` in `#[vector{n}]`; expected `vector = field`, `hash(field, ..)` or `filter(field, ..)`"),
                        ));
                        // Past its value, to the next option.
                        if input.parse::<Option<syn::Token![=]>>()?.is_some() {
                            input.parse::<syn::Expr>()?;
                        } else if input.peek(syn::token::Paren) {
                            let content;
                            syn::parenthesized!(content in input);
                            content.parse::<proc_macro2::TokenStream>()?;
                        }
                    }
                }
                if !input.is_empty() {
                    input.parse::<syn::Token![,]>()?;
                }
            }
            if vector.is_none() && wrong.is_empty() {
                return Err(syn::Error::new(span, format!("`#[vector{n}]` needs the field holding the vector: `#[vector{n}(vector = embedding)]`")));
            }
            Ok(VectorDecl { n, span, vector, repaired: !wrong.is_empty(), hash, filter })
        });
        errors.extend(wrong.into_iter().map(darling::Error::from));
        match parsed {
            Ok(d) if out.iter().any(|o| o.n == d.n) => errors
                .push(darling::Error::custom(format!("duplicate `#[vector{n}]`")).with_span(&span)),
            Ok(d) => out.push(d),
            Err(e) => errors.push(darling::Error::from(e)),
        }
    }
    out
}

trait ParseAny {
    fn parse_any_ident(input: syn::parse::ParseStream) -> syn::Result<syn::Ident>;
}

impl ParseAny for syn::Ident {
    fn parse_any_ident(input: syn::parse::ParseStream) -> syn::Result<syn::Ident> {
        input.parse()
    }
}
