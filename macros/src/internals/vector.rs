//! Vector indexes: `#[table(vector1(...))]` on the table, parsed and
//! checked as CreateTable checks its `VectorIndexes`, and the entity's
//! `#[vector1(vector = field, hash(..), filter(..))]` that feeds one.

use darling::FromMeta;
use darling::util::{Flag, PathList, SpannedValue};
use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::internals::table::{GsiKey, KeyAttrDecl, Projection};

/// `vectorN(...)` on the table, as written.
#[derive(FromMeta)]
pub struct VectorOpts {
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
    #[darling(default)]
    pub attribute: Option<SpannedValue<String>>,
    pub dimensions: SpannedValue<u32>,
    pub distance: syn::Path,
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
/// not the vector attribute.
pub fn model(
    n: u8,
    v: &VectorOpts,
    projection: Projection,
    errors: &mut darling::error::Accumulator,
) -> VectorIndex {
    let distance = match v.distance.get_ident().map(ToString::to_string).as_deref() {
        Some("cosine") => "Cosine",
        Some("euclidean") => "Euclidean",
        Some("dot_product") => "DotProduct",
        _ => {
            errors.push(
                darling::Error::custom(
                    "unknown distance function; expected `cosine`, `euclidean` or `dot_product`",
                )
                .with_span(&v.distance),
            );
            "Cosine"
        }
    };
    if *v.dimensions == 0 {
        errors.push(
            darling::Error::custom("a vector index has at least 1 dimension")
                .with_span(&v.dimensions.span()),
        );
    }
    let name = v
        .name
        .as_ref()
        .map_or_else(|| format!("VECTOR{n}"), |s| s.as_str().to_owned());
    if let Some(s) = &v.name
        && (s.len() < 3
            || s.len() > 255
            || !s
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
    {
        errors.push(
            darling::Error::custom(
                "an index name has 3 to 255 characters among `a-z A-Z 0-9 _ - .`",
            )
            .with_span(&s.span()),
        );
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
        dimensions: *v.dimensions,
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
    pub vector: syn::Ident,
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
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}` in `#[vector{n}]`; expected `vector = field`, `hash(field, ..)` or `filter(field, ..)`"),
                        ));
                    }
                }
                if !input.is_empty() {
                    input.parse::<syn::Token![,]>()?;
                }
            }
            let vector = vector.ok_or_else(|| {
                syn::Error::new(span, format!("`#[vector{n}]` needs the field holding the vector: `#[vector{n}(vector = embedding)]`"))
            })?;
            Ok(VectorDecl { n, span, vector, hash, filter })
        });
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
