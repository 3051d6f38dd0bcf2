//! `#[table(...)]`: the darling receivers, and the table's model (its key
//! attributes, its indexes, the attribute names each role reserves) built
//! from them with the checks CreateTable would make.

use darling::util::{Flag, Override, PathList, SpannedValue};
use darling::{FromDeriveInput, FromMeta};
use proc_macro2::Span;

pub use crate::internals::key_attr::{GsiKey, KeyAttrDecl, Projection};

#[derive(FromMeta, Default)]
pub struct GsiOpts {
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
    #[darling(default)]
    pub pk: Option<GsiKey>,
    #[darling(default)]
    pub sk: Option<GsiKey>,
    #[darling(default)]
    pub no_sk: Flag,
    #[darling(default)]
    pub keys_only: Flag,
    #[darling(default)]
    pub include: Option<PathList>,
}

#[derive(FromMeta, Default)]
pub struct LsiOpts {
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
    #[darling(default)]
    pub sk: Option<SpannedValue<String>>,
    #[darling(default)]
    pub keys_only: Flag,
    #[darling(default)]
    pub include: Option<PathList>,
}

#[derive(FromDeriveInput)]
#[darling(attributes(table), supports(struct_unit))]
pub struct TableOpts {
    pub ident: syn::Ident,
    pub name: SpannedValue<String>,
    #[darling(default)]
    pub pk: Option<SpannedValue<String>>,
    #[darling(default)]
    pub sk: Option<SpannedValue<String>>,
    #[darling(default)]
    pub no_sk: Flag,
    #[darling(default)]
    pub entity_type: Option<SpannedValue<String>>,
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
    #[darling(default)]
    pub entities: Option<PathList>,
    #[darling(default)]
    pub collections: Option<PathList>,
    #[darling(default)]
    pub ttl: Option<SpannedValue<String>>,
    #[darling(default)]
    pub stream: Option<syn::Path>,
    #[darling(default)]
    pub schema_version: Option<SpannedValue<String>>,
    /// `other_items = skip`: queries leave out items of other types and
    /// items no entity claims.
    #[darling(default)]
    pub other_items: Option<syn::Path>,
    #[darling(default)]
    pub gsi1: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi2: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi3: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi4: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi5: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi6: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi7: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi8: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi9: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi10: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi11: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi12: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi13: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi14: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi15: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi16: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi17: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi18: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi19: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub gsi20: Option<Override<GsiOpts>>,
    #[darling(default)]
    pub lsi1: Option<Override<LsiOpts>>,
    #[darling(default)]
    pub lsi2: Option<Override<LsiOpts>>,
    #[darling(default)]
    pub lsi3: Option<Override<LsiOpts>>,
    #[darling(default)]
    pub lsi4: Option<Override<LsiOpts>>,
    #[darling(default)]
    pub lsi5: Option<Override<LsiOpts>>,
    #[darling(default)]
    pub vector1: Option<crate::internals::vector::VectorOpts>,
    #[darling(default)]
    pub vector2: Option<crate::internals::vector::VectorOpts>,
    #[darling(default)]
    pub vector3: Option<crate::internals::vector::VectorOpts>,
    #[darling(default)]
    pub vector4: Option<crate::internals::vector::VectorOpts>,
}

impl TableOpts {
    /// Every `gsiN` option, declared or not, by number.
    pub fn gsis(&self) -> [(u8, &Option<Override<GsiOpts>>); 20] {
        [
            (1, &self.gsi1),
            (2, &self.gsi2),
            (3, &self.gsi3),
            (4, &self.gsi4),
            (5, &self.gsi5),
            (6, &self.gsi6),
            (7, &self.gsi7),
            (8, &self.gsi8),
            (9, &self.gsi9),
            (10, &self.gsi10),
            (11, &self.gsi11),
            (12, &self.gsi12),
            (13, &self.gsi13),
            (14, &self.gsi14),
            (15, &self.gsi15),
            (16, &self.gsi16),
            (17, &self.gsi17),
            (18, &self.gsi18),
            (19, &self.gsi19),
            (20, &self.gsi20),
        ]
    }

    /// Every `vectorN` option, declared or not, by number.
    pub fn vectors(&self) -> [(u8, &Option<crate::internals::vector::VectorOpts>); 4] {
        [
            (1, &self.vector1),
            (2, &self.vector2),
            (3, &self.vector3),
            (4, &self.vector4),
        ]
    }

    /// Every `lsiN` option, declared or not, by number.
    pub fn lsis(&self) -> [(u8, &Option<Override<LsiOpts>>); 5] {
        [
            (1, &self.lsi1),
            (2, &self.lsi2),
            (3, &self.lsi3),
            (4, &self.lsi4),
            (5, &self.lsi5),
        ]
    }
}

/// A declared global index, its defaults filled in.
pub struct Gsi {
    pub n: u8,
    pub name: String,
    /// The partition key attribute (the first one of a multi-attribute key).
    pub pk: String,
    pub sk: Option<String>,
    pub projection: Projection,
    /// The partition and sort attributes of a multi-attribute key.
    pub attributes: Option<(Vec<KeyAttrDecl>, Vec<KeyAttrDecl>)>,
}

/// A declared local index, its defaults filled in.
pub struct Lsi {
    pub n: u8,
    pub name: String,
    pub sk: String,
    pub projection: Projection,
}

/// An attribute name one role takes: its name, the role, and the value to
/// point at when it collides (`None` for a default name).
pub struct Reserved {
    pub name: String,
    pub role: String,
    pub span: Option<Span>,
    /// `Some("gsi1")` for a key of a global index, which may be an
    /// attribute another key already writes (the table's sort key, another
    /// index's key): entities then write one template into it.
    pub index: Option<String>,
}

/// The table, as its `impl Table` states it.
pub struct Table<'a> {
    pub opts: &'a TableOpts,
    pub pk: String,
    pub sk: Option<String>,
    pub entity_type: String,
    pub gsis: Vec<Gsi>,
    pub lsis: Vec<Lsi>,
    pub vectors: Vec<crate::internals::vector::VectorIndex>,
    /// Every key attribute with its role, in declaration order.
    pub reserved: Vec<Reserved>,
    pub schema_version: String,
    /// The `StreamView` variant of `stream = ...`, if it names one.
    pub stream: Option<&'static str>,
    /// The `OtherTypes` variant of `other_items = ...`, if given.
    pub other_items: Option<&'static str>,
}

impl Table<'_> {
    /// `gsi1`, `lsi2`: the names of the declared indexes.
    pub fn index_names(&self) -> Vec<String> {
        let gsis = self.gsis.iter().map(|g| format!("gsi{}", g.n));
        gsis.chain(self.lsis.iter().map(|l| format!("lsi{}", l.n)))
            .collect()
    }
}

fn spanned(v: &Option<SpannedValue<String>>) -> Option<Span> {
    v.as_ref().map(|s| s.span())
}

fn or_default(v: &Option<SpannedValue<String>>, default: &str) -> String {
    v.as_ref()
        .map_or_else(|| default.to_owned(), |s| s.as_str().to_owned())
}

/// The table's model, every mistake in it reported into `errors`.
pub fn model<'a>(
    o: &'a TableOpts,
    repaired: bool,
    errors: &mut darling::error::Accumulator,
) -> Table<'a> {
    crate::internals::key_attr::check_name("table", &o.name, errors);
    if let (Some(sk), true) = (&o.sk, o.no_sk.is_present()) {
        errors.push(
            darling::Error::custom("`sk` and `no_sk` contradict each other; keep one")
                .with_span(&sk.span()),
        );
    }
    let pk = or_default(&o.pk, "PK");
    let sk = (!o.no_sk.is_present()).then(|| or_default(&o.sk, "SK"));
    let entity_type = or_default(&o.entity_type, "entityType");
    let mut reserved = vec![Reserved {
        name: pk.clone(),
        role: "the table's partition key".into(),
        span: spanned(&o.pk),
        index: None,
    }];
    if let Some(sk) = &sk {
        reserved.push(Reserved {
            name: sk.clone(),
            role: "the table's sort key".into(),
            span: spanned(&o.sk),
            index: None,
        });
    }
    reserved.push(Reserved {
        name: entity_type.clone(),
        role: "the entity-type attribute".into(),
        span: spanned(&o.entity_type),
        index: None,
    });
    let mut table = Table {
        opts: o,
        pk,
        sk,
        entity_type,
        gsis: Vec::new(),
        lsis: Vec::new(),
        vectors: Vec::new(),
        reserved,
        schema_version: or_default(&o.schema_version, "schemaVersion"),
        stream: None,
        other_items: None,
    };
    // The attributes of multi-attribute keys: name, type, index, span.
    let mut multi_attrs: Vec<(String, String, u8, Span)> = Vec::new();
    for (n, opt) in o.gsis() {
        if let Some(opt) = opt {
            let gsi = global_index(n, opt, &mut table.reserved, errors);
            // The entity-type attribute may lead a sort key (as a string):
            // the index then holds several entities, sorted by type first.
            if let Some((p, s)) = &gsi.attributes {
                let sort = s.iter().enumerate().map(|(i, a)| (Some(i), a));
                for (i, a) in p.iter().map(|a| (None, a)).chain(sort) {
                    if a.name != table.entity_type {
                        multi_attrs.push((a.name.clone(), a.kind.clone(), n, a.span));
                    } else if i != Some(0) || a.kind != "S" {
                        errors.push(
                            darling::Error::custom(format!(
                                "`{}` is the entity-type attribute: a multi-attribute key may start its sort key with it, as a string (`sk({} = S, ...)`), and use it nowhere else",
                                a.name, a.name
                            ))
                            .with_span(&a.span),
                        );
                    }
                }
            }
            table.gsis.push(gsi);
        }
    }
    for (n, opt) in o.lsis() {
        if let Some(opt) = opt {
            let lsi = local_index(n, opt, &table, errors);
            table.reserved.push(Reserved {
                name: lsi.sk.clone(),
                role: format!("the sort key of `lsi{n}`"),
                span: match opt {
                    Override::Explicit(l) => spanned(&l.sk),
                    Override::Inherit => None,
                },
                index: None,
            });
            table.lsis.push(lsi);
        }
    }
    for (n, opt) in o.vectors() {
        if let Some(v) = opt {
            let projection = projection(&v.keys_only, &v.include, errors);
            let vector =
                crate::internals::vector::model(n, v, projection, &o.ident, repaired, errors);
            check_vector(&vector, &table, &multi_attrs, errors);
            table.vectors.push(vector);
        }
    }
    check_reserved(&table.reserved, &o.ident, errors);
    check_multi_attrs(&multi_attrs, &table.reserved, errors);
    check_schema_version(o, &table.reserved, errors);
    table.stream = stream_view(o, errors);
    table.other_items = other_items(o, errors);
    table
}

fn projection(
    keys_only: &Flag,
    include: &Option<PathList>,
    errors: &mut darling::error::Accumulator,
) -> Projection {
    match (keys_only.is_present(), include) {
        (true, Some(_)) => {
            errors.push(
                darling::Error::custom(
                    "an index projects either `keys_only` or `include(...)`, not both",
                )
                .with_span(&keys_only.span()),
            );
            Projection::KeysOnly
        }
        (true, None) => Projection::KeysOnly,
        (false, Some(list)) => {
            Projection::Include(list.iter().map(darling::util::path_to_string).collect())
        }
        (false, None) => Projection::All,
    }
}

/// `gsiN(...)`: its attribute names, defaults filled in, the synthetic ones
/// added to `reserved`.
fn global_index(
    n: u8,
    opt: &Override<GsiOpts>,
    reserved: &mut Vec<Reserved>,
    errors: &mut darling::error::Accumulator,
) -> Gsi {
    let default = GsiOpts::default();
    let g = match opt {
        Override::Inherit => &default,
        Override::Explicit(g) => g,
    };
    if let Some(name) = &g.name {
        crate::internals::key_attr::check_name("index", name, errors);
    }
    let name = or_default(&g.name, &format!("GSI{n}"));
    let projection = projection(&g.keys_only, &g.include, errors);
    let attributes = multi_key(n, g, errors).map(|(p, s)| {
        let owned = |a: Vec<&KeyAttrDecl>| -> Vec<KeyAttrDecl> { a.into_iter().cloned().collect() };
        (owned(p), owned(s))
    });
    let (pk, sk) = match &attributes {
        Some((partition, sort)) => (
            partition[0].name.clone(),
            sort.first().map(|a| a.name.clone()),
        ),
        None => {
            let named = |k: &Option<GsiKey>| k.as_ref().and_then(GsiKey::name).cloned();
            let pk = or_default(&named(&g.pk), &format!("GSI{n}PK"));
            let sk =
                (!g.no_sk.is_present()).then(|| or_default(&named(&g.sk), &format!("GSI{n}SK")));
            reserved.push(Reserved {
                name: pk.clone(),
                role: format!("the partition key of `gsi{n}`"),
                span: spanned(&named(&g.pk)),
                index: Some(format!("gsi{n}")),
            });
            if let Some(sk) = &sk {
                reserved.push(Reserved {
                    name: sk.clone(),
                    role: format!("the sort key of `gsi{n}`"),
                    span: spanned(&named(&g.sk)),
                    index: Some(format!("gsi{n}")),
                });
            }
            (pk, sk)
        }
    };
    Gsi {
        n,
        name,
        pk,
        sk,
        projection,
        attributes,
    }
}

/// `lsiN(...)`, defaults filled in; the table needs a sort key.
fn local_index(
    n: u8,
    opt: &Override<LsiOpts>,
    table: &Table,
    errors: &mut darling::error::Accumulator,
) -> Lsi {
    let default = LsiOpts::default();
    let l = match opt {
        Override::Inherit => &default,
        Override::Explicit(l) => l,
    };
    if table.sk.is_none() {
        errors.push(
            darling::Error::custom(format!(
                "local index `lsi{n}` needs a table with a sort key; remove `no_sk`"
            ))
            .with_span(&table.opts.no_sk.span()),
        );
    }
    Lsi {
        n,
        sk: or_default(&l.sk, &format!("LSI{n}SK")),
        name: {
            if let Some(name) = &l.name {
                crate::internals::key_attr::check_name("index", name, errors);
            }
            or_default(&l.name, &format!("LSI{n}"))
        },
        projection: projection(&l.keys_only, &l.include, errors),
    }
}

/// Two roles sharing one attribute name would make items ambiguous. The
/// error points at the later name the user wrote, else the earlier one.
fn check_reserved(
    reserved: &[Reserved],
    ident: &syn::Ident,
    errors: &mut darling::error::Accumulator,
) {
    for (i, r) in reserved.iter().enumerate() {
        // A global index's key may be an attribute the table's key or
        // another index's key writes, never the entity type, a local
        // index's key or the index's other key.
        let shared = |b: &Reserved| {
            let key = |x: &Reserved| x.index.is_some() || x.role.starts_with("the table's");
            (r.index.is_some() || b.index.is_some()) && key(r) && key(b) && r.index != b.index
        };
        if let Some(first) = reserved[..i]
            .iter()
            .find(|b| b.name == r.name && !shared(b))
        {
            let span = r.span.or(first.span).unwrap_or_else(|| ident.span());
            errors.push(
                darling::Error::custom(format!(
                    "attribute name `{}` is both {} and {}; give each key its own attribute name",
                    r.name, first.role, r.role
                ))
                .with_span(&span),
            );
        }
    }
}

/// A multi-attribute key's attributes are the entities' own fields: they
/// may be shared between indexes (with one type), never be a synthetic key
/// or the entity-type attribute.
fn check_multi_attrs(
    multi_attrs: &[(String, String, u8, Span)],
    reserved: &[Reserved],
    errors: &mut darling::error::Accumulator,
) {
    for (i, (a, kind, n, span)) in multi_attrs.iter().enumerate() {
        if let Some(r) = reserved.iter().find(|r| r.name == *a) {
            errors.push(
                darling::Error::custom(format!(
                    "attribute name `{a}` of `gsi{n}`'s key is also {}; name an attribute the entities store",
                    r.role
                ))
                .with_span(span),
            );
        } else if let Some((_, other, m, _)) = multi_attrs[..i]
            .iter()
            .find(|(b, k, ..)| b == a && k != kind)
        {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{a}` is `{kind}` here but `{other}` in `gsi{m}`; an attribute has one type in every key"
                ))
                .with_span(span),
            );
        }
    }
}

/// A vector index's attributes are the entities' own: not a key the
/// library writes, and with one type wherever a key names them.
fn check_vector(
    v: &crate::internals::vector::VectorIndex,
    table: &Table,
    multi_attrs: &[(String, String, u8, Span)],
    errors: &mut darling::error::Accumulator,
) {
    let n = v.n;
    if let Some(r) = table.reserved.iter().find(|r| r.name == v.attribute) {
        let span = table.opts.vectors()[usize::from(n) - 1]
            .1
            .as_ref()
            .and_then(|o| o.attribute.as_ref())
            .map_or_else(|| table.opts.ident.span(), |a| a.span());
        errors.push(
            darling::Error::custom(format!(
                "`vector{n}`'s vector attribute `{}` is also {}; name an attribute the entities store (`attribute = \"embedding\"`)",
                v.attribute, r.role
            ))
            .with_span(&span),
        );
    }
    for a in v.hash.iter().chain(&v.filter) {
        if let Some(r) = table
            .reserved
            .iter()
            .find(|r| r.name == a.name && r.name != table.entity_type)
        {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{}` of `vector{n}`'s search schema is also {}; name an attribute the entities store",
                    a.name, r.role
                ))
                .with_span(&a.span),
            );
        } else if let Some((_, other, m, _)) = multi_attrs
            .iter()
            .find(|(b, k, ..)| *b == a.name && *k != a.kind)
        {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{}` is `{}` here but `{other}` in `gsi{m}`; an attribute has one type in every key",
                    a.name, a.kind
                ))
                .with_span(&a.span),
            );
        }
    }
}

/// `other_items = skip` / `= error`: the `OtherTypes` variant queries of
/// the table start with.
pub fn other_items(
    o: &TableOpts,
    errors: &mut darling::error::Accumulator,
) -> Option<&'static str> {
    let path = o.other_items.as_ref()?;
    match path.get_ident().map(ToString::to_string).as_deref() {
        Some("skip") => Some("Skip"),
        Some("error") => Some("Error"),
        _ => {
            errors.push(
                darling::Error::custom(
                    "expected `other_items = skip` (queries leave out items of other types and items no entity claims) or `other_items = error` (the default: they fail the query)",
                )
                .with_span(path),
            );
            None
        }
    }
}

/// `schema_version = "..."` names an attribute of its own.
fn check_schema_version(
    o: &TableOpts,
    reserved: &[Reserved],
    errors: &mut darling::error::Accumulator,
) {
    let Some(v) = &o.schema_version else { return };
    if v.is_empty() {
        errors.push(
            darling::Error::custom("empty `schema_version` attribute name").with_span(&v.span()),
        );
    } else if let Some(r) = reserved.iter().find(|r| r.name == v.as_str()) {
        errors.push(
            darling::Error::custom(format!(
                "attribute name `{}` is both {} and the schema-version attribute; give each its own name",
                v.as_str(),
                r.role
            ))
            .with_span(&v.span()),
        );
    }
}

/// The `StreamView` variant `stream = ...` names.
fn stream_view(o: &TableOpts, errors: &mut darling::error::Accumulator) -> Option<&'static str> {
    let path = o.stream.as_ref()?;
    let view = path.get_ident().map(ToString::to_string);
    let variant = match view.as_deref() {
        Some("keys_only") => Some("KeysOnly"),
        Some("new_image") => Some("NewImage"),
        Some("old_image") => Some("OldImage"),
        Some("new_and_old_images") => Some("NewAndOldImages"),
        _ => None,
    };
    if variant.is_none() {
        let shown = quote::quote!(#path).to_string().replace(' ', "");
        errors.push(
            darling::Error::custom(format!(
                "unknown stream view `{shown}`; expected `keys_only`, `new_image`, `old_image` or `new_and_old_images`"
            ))
            .with_span(path),
        );
    }
    variant
}

/// The partition and sort attributes of a multi-attribute key, checked as
/// CreateTable checks them; `None` for a template index.
fn multi_key<'a>(
    n: u8,
    g: &'a GsiOpts,
    errors: &mut darling::error::Accumulator,
) -> Option<(Vec<&'a KeyAttrDecl>, Vec<&'a KeyAttrDecl>)> {
    let partition = match &g.pk {
        Some(GsiKey::Attrs(a, _)) => a,
        _ => {
            if let Some(GsiKey::Attrs(_, span)) = &g.sk {
                errors.push(
                    darling::Error::custom(format!(
                        "`gsi{n}` has sort attributes `sk(...)` but a synthetic partition key; declare its partition attributes too, e.g. `pk(tenantId = S)`"
                    ))
                    .with_span(span),
                );
            }
            return None;
        }
    };
    let sort: Vec<&KeyAttrDecl> = match &g.sk {
        Some(GsiKey::Attrs(a, _)) => a.iter().collect(),
        Some(GsiKey::Name(name)) => {
            errors.push(
                darling::Error::custom(format!(
                    "`gsi{n}` has partition attributes `pk(...)`, so its sort key is attributes too: `sk(createdAt = N)`, or no `sk` for none"
                ))
                .with_span(&name.span()),
            );
            Vec::new()
        }
        None => Vec::new(),
    };
    if g.no_sk.is_present() && !sort.is_empty() {
        errors.push(
            darling::Error::custom("`sk(...)` and `no_sk` contradict each other; keep one")
                .with_span(&g.no_sk.span()),
        );
    }
    let partition: Vec<&KeyAttrDecl> = partition.iter().collect();
    for (attrs, what) in [(&partition, "partition"), (&sort, "sort")] {
        if let Some(fifth) = attrs.get(4) {
            errors.push(
                darling::Error::custom(format!(
                    "`gsi{n}` has {} {what} attributes; DynamoDB allows at most 4",
                    attrs.len()
                ))
                .with_span(&fifth.span),
            );
        }
    }
    let all: Vec<&&KeyAttrDecl> = partition.iter().chain(&sort).collect();
    for (i, a) in all.iter().enumerate() {
        if all[..i].iter().any(|b| b.name == a.name) {
            errors.push(
                darling::Error::custom(format!(
                    "attribute `{}` is twice in `gsi{n}`'s key; each key attribute is listed once",
                    a.name
                ))
                .with_span(&a.span),
            );
        }
    }
    Some((partition, sort))
}

/// Reads `#[table(...)]` on a unit struct. An unknown option is reported
/// (the second value) and left out, so the table still has a model and its
/// entities raise no second error.
pub fn parse(
    input: &syn::DeriveInput,
) -> Result<(TableOpts, Option<darling::Error>), darling::Error> {
    if !matches!(&input.data, syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Unit)) {
        return Err(darling::Error::custom(
            "`#[derive(Table)]` goes on a unit struct such as `struct AppTable;`; the items' fields belong to the entities",
        )
        .with_span(&input.ident));
    }
    if let Some(err) = crate::internals::attr::missing_key(
        input,
        "table",
        "name",
        "give the DynamoDB table's name, e.g. `#[table(name = \"AppTable\")]`",
    ) {
        return Err(err);
    }
    crate::internals::style::parse_repaired(input, "table", TableOpts::from_derive_input, || {
        Some(crate::internals::style::listed(
            crate::internals::style::TABLE_OPTIONS,
            "`gsi1`…`gsi20`, `lsi1`…`lsi5`, `vector1`…`vector4`",
        ))
    })
}
