//! `#[access(name, index = gsiN)]`: the access patterns an entity declares,
//! parsed and resolved against its key declarations.

use syn::parse::ParseStream;

use crate::internals::attr::{IndexKind, Keys, Template};

/// One `#[access(...)]` declaration.
pub struct Access {
    pub name: syn::Ident,
    /// `gsi1`, `lsi2`; `None` for the table.
    pub index: Option<syn::Ident>,
    /// `keys`: the pattern returns `KeyOf<Entity>`, the items' primary
    /// keys (what a keys-only index holds), not whole items.
    pub keys: Option<syn::Ident>,
    /// `select = Summary`: the pattern returns `Projected<Entity, Summary>`,
    /// a `#[derive(Document)]` of the attributes the index projects.
    pub select: Option<syn::Path>,
}

/// Reads every `#[access(name, index = gsiN)]`.
pub fn parse(attrs: &[syn::Attribute], errors: &mut darling::error::Accumulator) -> Vec<Access> {
    let mut out: Vec<Access> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("access")) {
        // A wrong option is reported and left out: the pattern is still
        // generated, so its callers raise no second error.
        let mut wrong: Vec<syn::Error> = Vec::new();
        let parsed = attr.parse_args_with(|input: ParseStream| {
            let name: syn::Ident = input.parse()?;
            let mut index = None;
            let mut keys: Option<syn::Ident> = None;
            let mut select: Option<syn::Path> = None;
            while !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
                if input.is_empty() {
                    break;
                }
                let key: syn::Ident = input.parse()?;
                if key == "keys" && !input.peek(syn::Token![=]) {
                    if keys.is_some() {
                        wrong.push(syn::Error::new(key.span(), "duplicate `keys` option in `#[access]`"));
                    }
                    keys = Some(key);
                    continue;
                }
                if key == "select" {
                    input.parse::<syn::Token![=]>()?;
                    let path: syn::Path = input.parse()?;
                    if select.is_some() {
                        wrong.push(syn::Error::new(key.span(), "duplicate `select` option in `#[access]`"));
                    } else if keys.is_some() {
                        wrong.push(syn::Error::new(
                            key.span(),
                            "`keys` and `select` contradict each other: a pattern returns keys or a projected document; keep one",
                        ));
                    } else {
                        select = Some(path);
                    }
                    continue;
                }
                if key != "index" {
                    wrong.push(syn::Error::new(
                        key.span(),
                        format!("unknown option `{key}` in `#[access]`; expected `index = gsiN`, `index = lsiN`, `keys` or `select = Document`"),
                    ));
                    // Past its value, to the next option.
                    if input.parse::<Option<syn::Token![=]>>()?.is_some() {
                        input.parse::<syn::Expr>()?;
                    }
                    continue;
                }
                input.parse::<syn::Token![=]>()?;
                let value = input.parse::<syn::Ident>()?;
                if index.is_some() {
                    wrong.push(syn::Error::new(key.span(), "duplicate `index` option in `#[access]`"));
                } else {
                    index = Some(value);
                }
            }
            Ok(Access {
                name,
                index,
                keys,
                select,
            })
        });
        errors.extend(wrong.into_iter().map(darling::Error::from));
        match parsed {
            Ok(a) => {
                if out.iter().any(|o| o.name == a.name) {
                    errors.push(
                        darling::Error::custom(format!("duplicate access pattern `{}`", a.name))
                            .with_span(&a.name),
                    );
                } else {
                    out.push(a);
                }
            }
            Err(e) => errors.push(darling::Error::from(e)),
        }
    }
    out
}

/// What a pattern reads, resolved against the entity's key declarations.
pub struct Resolved<'a> {
    pub pk: &'a Template,
    pub pk_builder: String,
    pub sk: Option<&'a Template>,
    pub sk_builder: String,
    pub kind: Option<IndexKind>,
    pub shards: u16,
}

pub fn resolve<'a>(access: &Access, keys: &'a Keys) -> Result<Resolved<'a>, darling::Error> {
    let pk = keys
        .pk
        .as_ref()
        .ok_or_else(|| darling::Error::custom("missing `#[pk]`").with_span(&access.name))?;
    let Some(index) = &access.index else {
        return Ok(Resolved {
            pk,
            pk_builder: "pk".into(),
            sk: keys.sk.as_ref().map(|(t, _)| t),
            sk_builder: "sk".into(),
            kind: None,
            shards: 1,
        });
    };
    let name = index.to_string();
    let decl = keys.indexes.iter().find(|i| i.name() == name).ok_or_else(|| {
        darling::Error::custom(format!(
            "access pattern `{}` reads `{name}`, but this entity declares no `#[{name}(...)]`; declare the entity's keys in that index first",
            access.name
        ))
        .with_span(index)
    })?;
    Ok(match decl.kind {
        IndexKind::Gsi(_) => Resolved {
            pk: decl.pk.as_ref().unwrap_or(pk),
            pk_builder: format!("{name}_pk"),
            sk: decl.sk.as_ref(),
            sk_builder: format!("{name}_sk"),
            kind: Some(decl.kind),
            shards: decl.shards,
        },
        IndexKind::Lsi(_) => Resolved {
            pk,
            pk_builder: "pk".into(),
            sk: decl.sk.as_ref(),
            sk_builder: format!("{name}_sk"),
            kind: Some(decl.kind),
            shards: 1,
        },
    })
}

/// Reports access patterns that read an index the entity does not declare.
pub fn check(accesses: &[Access], keys: &Keys, errors: &mut darling::error::Accumulator) {
    for access in accesses
        .iter()
        .filter(|a| attr_index(a, keys).is_none() && vector_index(a, keys).is_none())
    {
        errors.handle(resolve(access, keys));
    }
}

/// The multi-attribute index a pattern reads, if it reads one.
pub fn attr_index<'a>(
    access: &Access,
    keys: &'a Keys,
) -> Option<&'a crate::internals::attr_index::AttrIndexDecl> {
    let index = access.index.as_ref()?.to_string();
    keys.attr_indexes.iter().find(|d| d.name() == index)
}

/// The vector index a pattern searches, if it searches one.
pub fn vector_index<'a>(
    access: &Access,
    keys: &'a Keys,
) -> Option<&'a crate::internals::vector::VectorDecl> {
    let index = access.index.as_ref()?.to_string();
    keys.vectors.iter().find(|d| d.name() == index)
}
