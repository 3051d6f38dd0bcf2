//! Attribute receivers: darling turns `#[entity(...)]`, `#[attr(...)]`,
//! `#[pk]`, `#[sk]`, `#[gsiN]` and `#[lsiN]` into a model of the entity.

use darling::util::{Flag, Override, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta};
use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::internals::case::RenameRule;
use crate::internals::template::{self, Segment};

/// `#[entity(...)]` and the forwarded key attributes.
#[derive(FromDeriveInput)]
#[darling(
    attributes(entity),
    forward_attrs(
        pk, sk, gsi1, gsi2, gsi3, gsi4, gsi5, gsi6, gsi7, gsi8, gsi9, gsi10, gsi11, gsi12, gsi13,
        gsi14, gsi15, gsi16, gsi17, gsi18, gsi19, gsi20, lsi1, lsi2, lsi3, lsi4, lsi5, vector1,
        vector2, vector3, vector4, access
    )
)]
pub struct EntityOpts {
    pub ident: syn::Ident,
    pub attrs: Vec<syn::Attribute>,
    pub table: syn::Path,
    #[darling(default)]
    pub name: Option<String>,
    #[darling(default)]
    pub rename_all: Option<SpannedValue<String>>,
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
    /// `version = N`: the schema version written with every item.
    #[darling(default)]
    pub version: Option<SpannedValue<u32>>,
    /// `migrate(v1 = OrderV1, ...)`: the stored shapes of older versions.
    #[darling(default)]
    pub migrate: Option<Migrations>,
    /// `adopt = keys`: items without an entity type are read as this
    /// entity when their primary key matches its templates.
    #[darling(default)]
    pub adopt: Option<syn::Path>,
    /// `untyped`: items are written without the entity-type attribute and
    /// recognised by their key templates (implies `adopt = keys`).
    #[darling(default)]
    pub untyped: Flag,
}

/// One `vN = OldShape` of `migrate(...)`.
pub struct Migration {
    pub version: u32,
    /// The `vN` token.
    pub span: Span,
    pub shape: syn::Path,
}

/// `migrate(v1 = OrderV1, v2 = OrderV2)`.
pub struct Migrations {
    pub list: Vec<Migration>,
    /// Where `migrate` is written: errors about the whole list point here.
    pub span: Span,
}

impl FromMeta for Migrations {
    fn from_list(items: &[darling::ast::NestedMeta]) -> darling::Result<Self> {
        let mut errors = darling::Error::accumulator();
        let mut list: Vec<Migration> = Vec::new();
        let expected = "expected `vN = OldShape`, e.g. `migrate(v1 = OrderV1)`";
        for item in items {
            let darling::ast::NestedMeta::Meta(syn::Meta::NameValue(nv)) = item else {
                errors.push(darling::Error::custom(expected).with_span(item));
                continue;
            };
            let version = nv
                .path
                .get_ident()
                .and_then(|id| id.to_string().strip_prefix('v')?.parse::<u32>().ok());
            let Some(version) = version.filter(|v| *v > 0) else {
                errors.push(darling::Error::custom(expected).with_span(&nv.path));
                continue;
            };
            let syn::Expr::Path(shape) = &nv.value else {
                errors.push(
                    darling::Error::custom(format!(
                        "expected the type of the stored shape of version {version}, e.g. `v{version} = OrderV{version}`"
                    ))
                    .with_span(&nv.value),
                );
                continue;
            };
            if list.iter().any(|m| m.version == version) {
                errors.push(
                    darling::Error::custom(format!(
                        "duplicate migration of version {version}; each older version has one stored shape"
                    ))
                    .with_span(&nv.path),
                );
                continue;
            }
            list.push(Migration {
                version,
                span: nv.path.span(),
                shape: shape.path.clone(),
            });
        }
        errors.finish()?;
        let span = items.first().map_or_else(Span::call_site, |i| i.span());
        Ok(Self { list, span })
    }
}

impl EntityOpts {
    /// Reads `#[entity(...)]`; a missing `table = ...` is reported on the
    /// attribute, where darling would point at the derive.
    pub fn parse(input: &syn::DeriveInput) -> darling::Result<Self> {
        // Looked for only when darling refuses the input: most inputs parse.
        Self::from_derive_input(input).map_err(|e| {
            missing_key(
                input,
                "entity",
                "table",
                "name the struct that derives `Table`, e.g. `#[entity(table = AppTable)]`",
            )
            .unwrap_or(e)
        })
    }
}

/// The error for a required `key = ...` that no `#[attr(...)]` of the input
/// gives, on the last such attribute or, without one, on the type's name.
pub fn missing_key(
    input: &syn::DeriveInput,
    attr: &str,
    key: &str,
    hint: &str,
) -> Option<darling::Error> {
    let attrs: Vec<&syn::Attribute> = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident(attr))
        .collect();
    // An attribute that does not parse is left to darling to report.
    let present = attrs.iter().any(|a| {
        a.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )
        .map_or(true, |metas| {
            // A misspelling of `key` (`nmae`) is reported as an unknown
            // option and read as `key`: no second error.
            let candidates = [key.to_owned()];
            metas.iter().any(|m| {
                m.path().get_ident().is_some_and(|i| {
                    let name = i.to_string();
                    name == key || crate::internals::hint::closest(&name, &candidates).is_some()
                })
            })
        })
    });
    if present {
        return None;
    }
    Some(match attrs.last() {
        Some(a) => {
            darling::Error::custom(format!("missing `{key} = ...` in `#[{attr}(...)]`; {hint}"))
                .with_span(a.path())
        }
        None => darling::Error::custom(format!("missing `#[{attr}({key} = ...)]`; {hint}"))
            .with_span(&input.ident),
    })
}

/// `#[document(...)]` on nested structs.
#[derive(FromDeriveInput)]
#[darling(attributes(document))]
pub struct DocumentOpts {
    pub ident: syn::Ident,
    #[darling(default)]
    pub rename_all: Option<SpannedValue<String>>,
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// `#[attr(...)]` on a field.
#[derive(FromField)]
#[darling(attributes(attr))]
pub struct FieldOpts {
    pub ident: Option<syn::Ident>,
    pub ty: syn::Type,
    #[darling(default)]
    pub rename: Option<SpannedValue<String>>,
    #[darling(default)]
    pub skip: Flag,
    #[darling(default)]
    pub default: Option<Override<syn::Path>>,
    #[darling(default)]
    pub serde: Flag,
    #[darling(default)]
    pub validate: Option<syn::Path>,
    #[darling(default)]
    pub min: Option<syn::Expr>,
    #[darling(default)]
    pub max: Option<syn::Expr>,
    #[darling(default)]
    pub min_len: Option<usize>,
    #[darling(default)]
    pub max_len: Option<usize>,
    #[darling(default)]
    pub version: Flag,
    #[darling(default)]
    pub ttl: Flag,
    #[darling(default)]
    pub created_at: Flag,
    #[darling(default)]
    pub updated_at: Flag,
    #[darling(default)]
    pub unique: Unique,
    /// In key templates, written as is instead of escaped (`String` only).
    #[darling(default)]
    pub verbatim: Flag,
    /// In key templates, an integer in plain decimal instead of padded.
    #[darling(default)]
    pub unpadded: Flag,
    /// Not stored as an attribute of its own: read back from the primary key.
    #[darling(default)]
    pub from_key: Flag,
}

/// The arguments of `#[gsiN(pk = "...", sk = "...", when = ...)]`.
#[derive(FromMeta)]
struct GsiArgs {
    pk: syn::LitStr,
    #[darling(default)]
    sk: Option<syn::LitStr>,
    #[darling(default)]
    when: Option<syn::Path>,
    #[darling(default)]
    shards: Option<SpannedValue<u16>>,
}

/// The arguments of `#[lsiN(sk = "...")]`.
#[derive(FromMeta)]
struct LsiArgs {
    sk: syn::LitStr,
}

/// A parsed key template with the literal it came from (for spans).
pub struct Template {
    pub lit: syn::LitStr,
    pub segments: Vec<Segment>,
}

impl Template {
    fn parse(lit: syn::LitStr, errors: &mut darling::error::Accumulator) -> Option<Self> {
        match template::parse(&lit.value()) {
            Ok(segments) => Some(Self { lit, segments }),
            Err(msg) => {
                errors.push(darling::Error::custom(msg).with_span(&lit));
                None
            }
        }
    }

    pub fn fields(&self) -> Vec<&str> {
        template::fields(&self.segments)
    }

    pub fn text(&self) -> String {
        self.lit.value()
    }
}

/// Which key an attribute declares.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    Gsi(u8),
    Lsi(u8),
}

/// `#[gsiN(...)]` or `#[lsiN(...)]` on an entity.
pub struct IndexDecl {
    pub kind: IndexKind,
    /// The `gsi1` token, where index errors point.
    pub span: Span,
    pub pk: Option<Template>,
    pub sk: Option<Template>,
    /// Sparse-index condition: a `bool` field or a function of the item.
    pub when: Option<syn::Path>,
    /// Write shards of the partition key (1: none).
    pub shards: u16,
}

/// An index key template a decoder reads fields back from (see
/// [`Keys::index_reads`]).
pub struct IndexRead<'a> {
    pub index: &'a IndexDecl,
    /// The index's sort key template (else its partition key's).
    pub sort: bool,
    pub template: &'a Template,
}

impl IndexRead<'_> {
    /// The key builder's name: `gsi2_pk`, `lsi1_sk`.
    pub fn builder(&self) -> String {
        let key = if self.sort { "sk" } else { "pk" };
        format!("{}_{key}", self.index.name())
    }
}

impl IndexDecl {
    /// Whether the key attribute of this index's sort key (`sort`) or
    /// partition key gives its fields back: every item holds it and it is
    /// the template's text. Not so for a sparse index (`when`: absent
    /// while the condition is false) nor for a sharded partition key (its
    /// value ends with a shard suffix).
    pub fn readable(&self, sort: bool) -> bool {
        self.when.is_none() && (sort || self.shards <= 1)
    }

    pub fn name(&self) -> String {
        match self.kind {
            IndexKind::Gsi(n) => format!("gsi{n}"),
            IndexKind::Lsi(n) => format!("lsi{n}"),
        }
    }
}

/// The key declarations of an entity.
pub struct Keys {
    pub pk: Option<Template>,
    pub pk_span: Span,
    pub sk: Option<(Template, Span)>,
    pub indexes: Vec<IndexDecl>,
    /// Global indexes keyed on the items' own attributes.
    pub attr_indexes: Vec<crate::internals::attr_index::AttrIndexDecl>,
    /// The vector indexes the entity feeds.
    pub vectors: Vec<crate::internals::vector::VectorDecl>,
    /// Whether a key template was refused (and left out): checks of the
    /// fields' places in templates then say nothing more.
    pub unparsed: bool,
}

impl Keys {
    /// Fields of the primary key templates.
    pub fn primary_fields(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let templates = self.pk.iter().chain(self.sk.iter().map(|(t, _)| t));
        for t in templates {
            for f in t.fields() {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    }

    /// Whether placeholder `name` ends every template it is in: where a
    /// verbatim value may hold `#` whichever key it is written into.
    pub fn ends_its_templates(&self, name: &str) -> bool {
        let templates = self.pk.iter().chain(self.sk.iter().map(|(t, _)| t)).chain(
            self.indexes
                .iter()
                .flat_map(|i| i.pk.iter().chain(i.sk.iter())),
        );
        templates
            .filter(|t| t.fields().contains(&name))
            .all(|t| matches!(t.segments.last(), Some(Segment::Field(f)) if f == name))
    }

    /// The index key templates decoders read `from_key` fields back from
    /// (`from_key`: the names of those fields): each readable template
    /// ([`IndexDecl::readable`]) holding such a field that the primary
    /// key does not hold, in declaration order.
    pub fn index_reads(&self, from_key: &[String]) -> Vec<IndexRead<'_>> {
        let primary = self.primary_fields();
        let mut out = Vec::new();
        for index in &self.indexes {
            for (sort, t) in [(false, &index.pk), (true, &index.sk)] {
                let Some(template) = t else { continue };
                let holds = template
                    .fields()
                    .into_iter()
                    .any(|f| !primary.contains(&f) && from_key.iter().any(|k| k == f));
                if holds && index.readable(sort) {
                    out.push(IndexRead {
                        index,
                        sort,
                        template,
                    });
                }
            }
        }
        out
    }

    /// Fields of the index key templates.
    pub fn index_fields(&self) -> Vec<&str> {
        self.indexes
            .iter()
            .flat_map(|i| i.pk.iter().chain(i.sk.iter()))
            .flat_map(Template::fields)
            .collect()
    }
}

/// Reads `#[pk]`, `#[sk]`, `#[gsiN]` and `#[lsiN]`; a repeated attribute is
/// reported at its second occurrence.
pub fn parse_keys(
    attrs: &[syn::Attribute],
    ident: &syn::Ident,
    errors: &mut darling::error::Accumulator,
) -> Keys {
    let mut keys = Keys {
        pk: None,
        pk_span: ident.span(),
        sk: None,
        indexes: Vec::new(),
        attr_indexes: Vec::new(),
        vectors: crate::internals::vector::parse(attrs, errors),
        unparsed: false,
    };
    let mut seen: Vec<String> = Vec::new();
    let mut pk_seen = false;
    for attr in attrs {
        let Some(name) = attr.path().get_ident().map(ToString::to_string) else {
            continue;
        };
        if name == "access" || crate::internals::vector::number(attr.path()).is_some() {
            continue;
        }
        let span = attr.path().span();
        if seen.contains(&name) {
            errors.push(
                darling::Error::custom(format!(
                    "duplicate `#[{name}]` attribute; an entity declares each key once"
                ))
                .with_span(attr.path()),
            );
            continue;
        }
        seen.push(name.clone());
        match name.as_str() {
            "pk" | "sk" => {
                let lit = match attr.parse_args::<syn::LitStr>() {
                    Ok(lit) => lit,
                    Err(_) => {
                        errors.push(
                            darling::Error::custom(format!(
                                "expected a key template string: `#[{name}(\"PREFIX#<field>\")]`"
                            ))
                            .with_span(&args_span(attr)),
                        );
                        continue;
                    }
                };
                let template = Template::parse(lit, errors);
                keys.unparsed |= template.is_none();
                if name == "pk" {
                    pk_seen = true;
                    keys.pk = template;
                    keys.pk_span = span;
                } else if let Some(t) = template {
                    keys.sk = Some((t, span));
                }
            }
            gsi if gsi.starts_with("gsi") => {
                let Ok(n) = gsi[3..].parse::<u8>() else {
                    continue;
                };
                if crate::internals::attr_index::is_multi(attr) {
                    keys.attr_indexes
                        .extend(crate::internals::attr_index::parse(attr, n, errors));
                    continue;
                }
                let Some(args) =
                    crate::internals::style::from_meta_repaired::<GsiArgs>(&attr.meta, gsi, errors)
                else {
                    continue;
                };
                let pk = Template::parse(args.pk, errors);
                let sk = args.sk.map(|sk| Template::parse(sk, errors));
                keys.unparsed |= pk.is_none() || sk.as_ref().is_some_and(Option::is_none);
                keys.indexes.push(IndexDecl {
                    kind: IndexKind::Gsi(n),
                    span,
                    pk,
                    sk: sk.flatten(),
                    when: args.when,
                    shards: match args.shards {
                        Some(n) if *n < 2 || *n > 1000 => {
                            errors.push(
                                darling::Error::custom("`shards` must be between 2 and 1000")
                                    .with_span(&n.span()),
                            );
                            1
                        }
                        Some(n) => *n,
                        None => 1,
                    },
                });
            }
            lsi if lsi.starts_with("lsi") => {
                let Ok(n) = lsi[3..].parse::<u8>() else {
                    continue;
                };
                let Some(args) =
                    crate::internals::style::from_meta_repaired::<LsiArgs>(&attr.meta, lsi, errors)
                else {
                    continue;
                };
                let sk = Template::parse(args.sk, errors);
                keys.unparsed |= sk.is_none();
                keys.indexes.push(IndexDecl {
                    kind: IndexKind::Lsi(n),
                    span,
                    pk: None,
                    sk,
                    when: None,
                    shards: 1,
                });
            }
            _ => {}
        }
    }
    if !pk_seen && !seen.contains(&"pk".to_owned()) {
        errors.push(
            darling::Error::custom(
                "missing `#[pk(\"...\")]`; every entity declares its partition key template, e.g. `#[pk(\"USER#<user_id>\")]`",
            )
            .with_span(ident),
        );
    }
    keys
}

/// Where an attribute's arguments are: the `(...)` group, the `= value`, or
/// the bare name.
fn args_span(attr: &syn::Attribute) -> Span {
    match &attr.meta {
        syn::Meta::List(list) => list.delimiter.span().join(),
        syn::Meta::NameValue(nv) => nv.value.span(),
        syn::Meta::Path(path) => path.span(),
    }
}

/// Parses `rename_all`, reporting an unknown rule.
pub fn rename_rule(
    value: &Option<SpannedValue<String>>,
    errors: &mut darling::error::Accumulator,
) -> RenameRule {
    match value {
        None => RenameRule::None,
        Some(v) => match RenameRule::from_str(v) {
            Some(rule) => rule,
            None => {
                errors.push(
                    darling::Error::custom(format!(
                        "unknown `rename_all` rule {:?}; expected one of {}",
                        v.as_str(),
                        RenameRule::NAMES.join(", ")
                    ))
                    .with_span(&v.span()),
                );
                RenameRule::None
            }
        },
    }
}

/// `#[attr(unique)]` (markers in the library's layout) or
/// `#[attr(unique = "CUSTOMEREMAIL#<email>")]` (markers keyed on a declared
/// template).
#[derive(Debug, Default, Clone)]
pub struct Unique(Option<(Span, Option<syn::LitStr>)>);

impl Unique {
    /// Whether the field is unique.
    pub fn is_present(&self) -> bool {
        self.0.is_some()
    }

    /// The `unique` token.
    pub fn span(&self) -> Span {
        self.0.as_ref().map_or_else(Span::call_site, |(s, _)| *s)
    }

    /// The declared marker key template, if any.
    pub fn template(&self) -> Option<&syn::LitStr> {
        self.0.as_ref().and_then(|(_, t)| t.as_ref())
    }

    /// The declared template of the marker of `field`, split at its one
    /// placeholder: `None` without a template, the error message for a
    /// template that is not literal text, `<field>`, literal text.
    pub fn marker(&self, field: &str) -> Option<Result<MarkerTemplate, String>> {
        let lit = self.template()?;
        let text = lit.value();
        let segments = match template::parse(&text) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let example = format!("CUSTOMEREMAIL#<{field}>");
        if let Some(other) = template::fields(&segments)
            .into_iter()
            .find(|f| *f != field)
        {
            return Some(Err(format!(
                "the marker template of `{field}` names `<{other}>`; a marker's key holds its own field's value only: write `<{field}>`, e.g. `unique = \"{example}\"`"
            )));
        }
        let lit_at = |i: usize| match segments.get(i) {
            Some(Segment::Lit(l)) => Some(l.clone()),
            _ => None,
        };
        Some(
            match segments.iter().position(|s| matches!(s, Segment::Field(_))) {
                None => Err(format!(
                    "the marker template `{text}` does not name `<{field}>`, so every value would share one marker; write e.g. `unique = \"{example}\"`"
                )),
                Some(0) => Err(format!(
                    "the marker template `{text}` starts with `<{field}>`; start it with literal text that no other key starts with, e.g. `unique = \"{example}\"`"
                )),
                Some(i) => Ok(MarkerTemplate {
                    template: Template {
                        lit: lit.clone(),
                        segments: segments.clone(),
                    },
                    before: lit_at(i - 1).unwrap_or_default(),
                    after: lit_at(i + 1).unwrap_or_default(),
                }),
            },
        )
    }
}

/// A declared marker key template split at its placeholder: the key of
/// value `v` is `before + v + after`.
pub struct MarkerTemplate {
    pub template: Template,
    pub before: String,
    pub after: String,
}

impl FromMeta for Unique {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::Path(p) => Ok(Self(Some((p.span(), None)))),
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                path,
                ..
            }) => Ok(Self(Some((path.span(), Some(s.clone()))))),
            syn::Meta::NameValue(nv) => Err(darling::Error::custom(
                "expected a marker key template, e.g. `unique = \"CUSTOMEREMAIL#<email>\"`, or `unique` alone",
            )
            .with_span(&nv.value)),
            syn::Meta::List(l) => Err(darling::Error::custom(
                "expected `unique` or `unique = \"CUSTOMEREMAIL#<email>\"`",
            )
            .with_span(l)),
        }
    }
}
