//! Checks that need the whole model: key templates name stored fields, indexes
//! are declared with what they need.

use crate::internals::attr::{self, IndexKind, Template};
use crate::internals::attr_index::AttrIndexDecl;
use crate::internals::hint::{closest, list};
use crate::internals::model::Field;
use crate::internals::template::Segment;

/// Replaces each placeholder that names no stored field by the closest
/// stored field (or drops it), after `check_templates` reported it.
pub(crate) fn repair_templates(keys: &mut attr::Keys, fields: &[Field]) {
    let stored: Vec<String> = fields
        .iter()
        .filter(|f| !f.skipped())
        .map(Field::name)
        .collect();
    let repair = |t: &mut Template| {
        t.segments.retain_mut(|seg| match seg {
            Segment::Field(name) if !stored.contains(name) => match closest(name, &stored) {
                Some(best) => {
                    *name = best.to_owned();
                    true
                }
                None => false,
            },
            _ => true,
        });
    };
    if let Some(t) = keys.pk.as_mut() {
        repair(t);
    }
    if let Some((t, _)) = keys.sk.as_mut() {
        repair(t);
    }
    for ix in &mut keys.indexes {
        if let Some(t) = ix.pk.as_mut() {
            repair(t);
        }
        if let Some(t) = ix.sk.as_mut() {
            repair(t);
        }
    }
}

/// Every placeholder names a stored field.
pub(crate) fn check_templates(
    keys: &attr::Keys,
    fields: &[Field],
    errors: &mut darling::error::Accumulator,
) {
    let mut templates: Vec<(&Template, String)> = Vec::new();
    if let Some(pk) = &keys.pk {
        templates.push((pk, "#[pk]".into()));
    }
    if let Some((sk, _)) = &keys.sk {
        templates.push((sk, "#[sk]".into()));
    }
    for index in &keys.indexes {
        let n = index.name();
        if let Some(t) = &index.pk {
            templates.push((t, format!("#[{n}(pk)]")));
        }
        if let Some(t) = &index.sk {
            templates.push((t, format!("#[{n}(sk)]")));
        }
    }
    let stored: Vec<String> = fields
        .iter()
        .filter(|f| !f.skipped())
        .map(Field::name)
        .collect();
    for (template, place) in templates {
        for name in template.fields() {
            match fields.iter().find(|f| f.name() == name) {
                Some(f) if f.skipped() => errors.push(
                    darling::Error::custom(format!(
                        "placeholder `<{name}>` in `{place}` names a skipped field; a key can only be built from stored fields"
                    ))
                    .with_span(&template.lit),
                ),
                Some(_) => {}
                None => {
                    let hint = match closest(name, &stored) {
                        Some(best) => format!("did you mean `{best}`?"),
                        None => format!("fields are {}", list(&stored)),
                    };
                    errors.push(
                        darling::Error::custom(format!(
                            "unknown field `{name}` in `{place}` template; {hint}"
                        ))
                        .with_span(&template.lit),
                    );
                }
            }
        }
    }
}

/// Index declarations are complete and sparse conditions make sense.
pub(crate) fn check_indexes(
    keys: &attr::Keys,
    fields: &[Field],
    errors: &mut darling::error::Accumulator,
) {
    for index in &keys.indexes {
        if let Some(when) = &index.when
            && let Some(id) = when.get_ident()
            && let Some(f) = fields.iter().find(|f| f.ident == *id)
            && f.skipped()
        {
            errors.push(
                            darling::Error::custom(format!(
                                "sparse condition `{id}` is a skipped field; use a stored `bool` field or a function `fn(&Self) -> bool`"
                            ))
                            .with_span(when),
                        );
        }
        if let IndexKind::Lsi(_) = index.kind
            && keys.sk.is_none()
        {
            errors.push(
                    darling::Error::custom(
                        "a local index needs the table's sort key; declare `#[sk(\"...\")]` on the entity",
                    )
                    .with_span(&index.span),
                );
        }
    }
}

/// The fields named exist, are stored, and each is named once.
pub(crate) fn check_attr_indexes(
    decls: &[AttrIndexDecl],
    fields: &[Field],
    errors: &mut darling::error::Accumulator,
) {
    let names: Vec<String> = fields
        .iter()
        .filter(|f| !f.skipped())
        .map(Field::name)
        .collect();
    for d in decls {
        let all: Vec<&syn::Ident> = d.pk.iter().chain(&d.sk).collect();
        for (i, id) in all.iter().enumerate() {
            let name = id.to_string();
            match fields.iter().find(|f| f.name() == name) {
                None => {
                    let hint = match closest(&name, &names) {
                        Some(c) => format!("did you mean `{c}`?"),
                        None => format!("fields are {}", list(&names)),
                    };
                    errors.push(
                        darling::Error::custom(format!(
                            "unknown field `{name}` in `#[{}]`; {hint}",
                            d.name()
                        ))
                        .with_span(id),
                    );
                }
                Some(f) if f.skipped() || f.opts.serde.is_present() => {
                    errors.push(
                        darling::Error::custom(format!(
                            "field `{name}` is {}, so it cannot be a key attribute of `{}`",
                            if f.skipped() {
                                "not stored (`skip`)"
                            } else {
                                "stored through serde"
                            },
                            d.name()
                        ))
                        .with_span(id),
                    );
                }
                Some(_) if all[..i].contains(id) => errors.push(
                    darling::Error::custom(format!(
                        "field `{name}` is twice in `#[{}]`; each key attribute is one field",
                        d.name()
                    ))
                    .with_span(id),
                ),
                Some(_) => {}
            }
        }
    }
}

/// Checks on `#[attr(version)]`: at most one, not in a key, not skipped.
pub(crate) fn check_fields(
    ctx_fields: &[Field],
    keys: &attr::Keys,
    errors: &mut darling::error::Accumulator,
) {
    let versions: Vec<_> = ctx_fields
        .iter()
        .filter(|f| f.opts.version.is_present())
        .collect();
    for extra in versions.iter().skip(1) {
        errors.push(
            darling::Error::custom("duplicate `#[attr(version)]`; an entity has one version field")
                .with_span(&extra.ident),
        );
    }
    let primary = keys.primary_fields();
    let indexed = keys.index_fields();
    check_unique(ctx_fields, keys, errors);
    check_key_encodings(ctx_fields, keys, errors);
    for f in ctx_fields
        .iter()
        .filter(|f| f.opts.created_at.is_present() && f.opts.updated_at.is_present())
    {
        errors.push(
            darling::Error::custom(
                "a field is either `created_at` or `updated_at`; keep one of them",
            )
            .with_span(&f.opts.updated_at.span()),
        );
    }
    for v in versions {
        let name = v.name();
        if primary.contains(&name.as_str())
            || indexed.contains(&name.as_str())
            || v.skipped()
            || v.opts.serde.is_present()
        {
            errors.push(
                darling::Error::custom(
                    "the version field must be a stored `u64` that is not part of any key",
                )
                .with_span(&v.ident),
            );
        }
    }
}

/// Checks on `#[attr(verbatim)]`, `#[attr(unpadded)]` and
/// `#[attr(from_key)]`: options of key fields, each error at its token.
fn check_key_encodings(
    ctx_fields: &[Field],
    keys: &attr::Keys,
    errors: &mut darling::error::Accumulator,
) {
    for f in ctx_fields {
        let name = f.name();
        let in_template = !templates_using(keys, &name).is_empty();
        let (verbatim, unpadded) = (&f.opts.verbatim, &f.opts.unpadded);
        if verbatim.is_present() && unpadded.is_present() {
            errors.push(
                darling::Error::custom(
                    "`verbatim` is for strings and `unpadded` for integers; keep the one that fits the field's type",
                )
                .with_span(&unpadded.span()),
            );
            continue;
        }
        for (flag, option) in [(verbatim, "verbatim"), (unpadded, "unpadded")] {
            if flag.is_present() && !in_template {
                errors.push(
                    darling::Error::custom(format!(
                        "`{option}` says how `{name}` is written into keys, but no key template has `<{name}>`; remove `{option}`"
                    ))
                    .with_span(&flag.span()),
                );
            }
        }
        let from_key = &f.opts.from_key;
        if !from_key.is_present() {
            continue;
        }
        let message = if let Some(message) = from_key_source(keys, f) {
            message
        } else if f.skipped() || f.opts.serde.is_present() || f.opts.ttl.is_present() {
            "`from_key` is for a key field stored nowhere else; it cannot be `skip`, `serde` or `ttl`"
                .to_owned()
        } else if f.opts.created_at.is_present() || f.opts.updated_at.is_present() {
            "a timestamp stamped on write is stored as its own attribute; remove `from_key`"
                .to_owned()
        } else {
            continue;
        };
        errors.push(darling::Error::custom(message).with_span(&from_key.span()));
    }
}

/// Why `#[attr(from_key)]` on `f` has no key to read it back from, if it
/// has none: the primary key holds the field, or an index key template
/// every item holds as written ([`attr::IndexDecl::readable`]).
fn from_key_source(keys: &attr::Keys, f: &Field) -> Option<String> {
    let name = f.name();
    if keys.primary_fields().contains(&name.as_str()) {
        return None;
    }
    let mut unreadable = None;
    for ix in &keys.indexes {
        for (sort, t) in [(false, &ix.pk), (true, &ix.sk)] {
            if !t
                .as_ref()
                .is_some_and(|t| t.fields().contains(&name.as_str()))
            {
                continue;
            }
            if ix.readable(sort) {
                return None;
            }
            let place = format!("#[{}({})]", ix.name(), if sort { "sk" } else { "pk" });
            unreadable.get_or_insert(if ix.when.is_some() {
                format!(
                    "`from_key` would read `{name}` back from `{place}`, the key of a sparse index (`when`), which items outside the index do not hold, so `{name}` would be stored nowhere; remove `from_key`, or put `<{name}>` in a key every item holds"
                )
            } else {
                format!(
                    "`from_key` would read `{name}` back from `{place}`, a sharded partition key whose value ends with a shard suffix; remove `from_key`, or put `<{name}>` in another key template"
                )
            });
        }
    }
    if unreadable.is_some() {
        return unreadable;
    }
    if keys.unparsed {
        // A refused template may be the one that holds it.
        return None;
    }
    let multi = keys
        .attr_indexes
        .iter()
        .find(|d| d.pk.iter().chain(&d.sk).any(|id| *id == f.ident));
    Some(match multi {
        Some(d) => format!(
            "`{name}` is a key attribute of multi-attribute index `{}`: the index reads the field's own attribute, which must then be stored; remove `from_key`",
            d.name()
        ),
        None => format!(
            "`from_key` reads `{name}` back from a key, but no key template (`#[pk]`, `#[sk]`, `#[gsiN(..)]`, `#[lsiN(..)]`) has `<{name}>`; remove `from_key` or put `<{name}>` in a key template"
        ),
    })
}

/// The key templates that use field `name`, as written in the attributes
/// (`#[pk]`, `#[gsi1(sk)]`), primary key first.
fn templates_using(keys: &attr::Keys, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if keys.pk.as_ref().is_some_and(|t| t.fields().contains(&name)) {
        out.push("#[pk]".to_owned());
    }
    if keys
        .sk
        .as_ref()
        .is_some_and(|(t, _)| t.fields().contains(&name))
    {
        out.push("#[sk]".to_owned());
    }
    for ix in &keys.indexes {
        let n = ix.name();
        if ix.pk.as_ref().is_some_and(|t| t.fields().contains(&name)) {
            out.push(format!("#[{n}(pk)]"));
        }
        if ix.sk.as_ref().is_some_and(|t| t.fields().contains(&name)) {
            out.push(format!("#[{n}(sk)]"));
        }
    }
    out
}

/// Checks on `#[attr(unique)]`: a stored field of a key-part type that is
/// in no key template, each error at the `unique` token.
fn check_unique(ctx_fields: &[Field], keys: &attr::Keys, errors: &mut darling::error::Accumulator) {
    let primary = keys.primary_fields();
    for f in ctx_fields.iter().filter(|f| f.opts.unique.is_present()) {
        let name = f.name();
        let span = f.opts.unique.span();
        let message = if let Some(place) = templates_using(keys, &name).first() {
            if primary.contains(&name.as_str()) {
                format!(
                    "`#[attr(unique)]` on `{name}`, a field of the primary key `{place}`, which is unique already; remove `unique`"
                )
            } else {
                format!(
                    "`#[attr(unique)]` on `{name}`, a field of key template `{place}`; a unique field cannot be a key field: remove `unique`, or take `<{name}>` out of the template"
                )
            }
        } else if f.skipped() {
            "a skipped field is not stored, so `unique` has no effect; remove `skip` or `unique`"
                .to_owned()
        } else if f.opts.serde.is_present() {
            "a unique value must be a key part, not a `serde` field; remove `serde` or `unique`"
                .to_owned()
        } else {
            continue;
        };
        errors.push(darling::Error::custom(message).with_span(&span));
    }
    check_marker_templates(ctx_fields, errors);
}

/// Checks on `#[attr(unique = "...")]`: each template is literal text,
/// `<field>` (the field itself), literal text; no two fields declare the
/// same marker key. Each error at the template.
fn check_marker_templates(ctx_fields: &[Field], errors: &mut darling::error::Accumulator) {
    let mut seen: Vec<(String, attr::MarkerTemplate)> = Vec::new();
    for f in ctx_fields {
        let (Some(lit), Some(marker)) = (f.opts.unique.template(), f.opts.unique.marker(&f.name()))
        else {
            continue;
        };
        match marker {
            Err(message) => errors.push(darling::Error::custom(message).with_span(lit)),
            Ok(m) => {
                let same = seen
                    .iter()
                    .find(|(_, o)| (&o.before, &o.after) == (&m.before, &m.after));
                if let Some((other, o)) = same {
                    errors.push(
                        darling::Error::custom(format!(
                            "`{}` and `{other}` declare the same marker key (`{}` and `{}`), so a value of one would block the same value of the other; give one of them another literal text",
                            f.name(),
                            m.template.lit.value(),
                            o.template.lit.value()
                        ))
                        .with_span(lit),
                    );
                } else {
                    seen.push((f.name(), m));
                }
            }
        }
    }
}
