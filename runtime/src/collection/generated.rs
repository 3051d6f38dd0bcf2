//! What generated code matches collection members with: the partition a
//! member shares, whether its keys fit, and the entity type of an item
//! read. Reachable only through `__private`.

use super::*;

/// The partition key template `entity` has on `index` (`None`: the
/// table), `""` when it is not in that index.
pub const fn partition_template(entity: &EntityShape, index: Option<&str>) -> &'static str {
    match keys_on(entity, index) {
        Some((pk, _, _)) => pk.template,
        None => "",
    }
}

/// How a member entity fits a collection, as [`member_fit`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// It lives in the collection's partition, under its prefix.
    Fits,
    /// It does not declare the collection's index.
    NoIndex,
    /// Its partition key template differs from the first member's.
    OtherPartition,
    /// Its sort key does not start with the sub-collection's prefix.
    OutsidePrefix,
    /// The index's partition key is write-sharded.
    Sharded,
    /// A sort-key prefix on a multi-attribute index, whose sort key is
    /// typed attributes rather than a template.
    PrefixOnAttributes,
}

const fn segs_eq(a: &[KeySeg], b: &[KeySeg]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i].field != b[i].field || !str_eq(a[i].lit, b[i].lit) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether every key the template builds starts with `prefix`: the
/// template's literal text before its first placeholder does.
pub(crate) const fn template_starts_with(template: &str, prefix: &str) -> bool {
    let (t, p) = (template.as_bytes(), prefix.as_bytes());
    if p.len() > t.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if t[i] == b'<' || t[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The partition and sort key shapes an entity has on `index` (`None`:
/// the table); the partition is `None` when the entity is not in it.
const fn keys_on(
    e: &EntityShape,
    index: Option<&str>,
) -> Option<(KeyShape, Option<KeyShape>, u16)> {
    let Some(name) = index else {
        return Some((e.pk, e.sk, 1));
    };
    let mut i = 0;
    while i < e.indexes.len() {
        let ix = &e.indexes[i];
        if str_eq(ix.name, name) {
            return match (ix.global, ix.pk) {
                (true, Some(pk)) => Some((pk, ix.sk, ix.shards)),
                (true, None) => None,
                // A local index shares the table's partition key.
                (false, _) => Some((e.pk, ix.sk, 1)),
            };
        }
        i += 1;
    }
    None
}

/// How `member` fits a collection on `index` (`None`: the table) whose
/// first member is `first`, with an optional sort-key `prefix`
/// (sub-collection). Evaluated at compile time by the derive.
pub const fn member_fit(
    member: &EntityShape,
    first: &EntityShape,
    index: Option<&str>,
    prefix: Option<&str>,
) -> Fit {
    if let Some(name) = index
        && member.attribute_index(name).is_some()
    {
        // A multi-attribute index: every entity on it maps the table's
        // partition attributes, so they share its partitions.
        return match (prefix, first.attribute_index(name)) {
            (Some(_), _) => Fit::PrefixOnAttributes,
            (None, Some(_)) => Fit::Fits,
            (None, None) => Fit::OtherPartition,
        };
    }
    let Some((pk, sk, shards)) = keys_on(member, index) else {
        return Fit::NoIndex;
    };
    if shards > 1 {
        return Fit::Sharded;
    }
    let Some((first_pk, _, _)) = keys_on(first, index) else {
        // The first member's own check reports it.
        return Fit::Fits;
    };
    if !segs_eq(pk.segs, first_pk.segs) {
        return Fit::OtherPartition;
    }
    if let Some(prefix) = prefix {
        match sk {
            Some(sk) if template_starts_with(sk.template, prefix) => {}
            _ => return Fit::OutsidePrefix,
        }
    }
    Fit::Fits
}

/// What [`peek_entity_type`] found.
#[derive(Debug)]
pub enum Peek {
    /// The item is of member `i` (an index into the types given); the
    /// reader is back at the item's first attribute.
    Member(usize),
    /// Another entity type (or none: `None`); the reader is back at the
    /// item's first attribute.
    Other(Option<String>),
    /// The reader cannot go back: the item, read into a map.
    Collected(Item),
}

/// How a collection whose members adopt items (`#[entity(adopt = keys)]`)
/// finds the member of an item without an entity type: the table's key
/// attributes, and the member claiming a key (the first in declaration
/// order whose templates match, see `claims` in `__private`).
pub struct Adopters<'a> {
    /// The table's partition key attribute.
    pub pk: &'a str,
    /// The table's sort key attribute, if it has one.
    pub sk: Option<&'a str>,
    /// The member claiming a key, by its index in declaration order.
    #[allow(clippy::type_complexity)]
    pub claim: &'a dyn Fn(Option<&AttributeValue>, Option<&AttributeValue>) -> Option<usize>,
}

/// Finds an item's entity type before decoding it, so that the member's
/// decoder then reads the item in place. Readers that cannot go back
/// (see [`AttrReader::rewind`]) give the item as a map instead. With
/// `adopters`, an item without an entity type is the member that claims
/// its key.
pub fn peek_entity_type<R: AttrReader + ?Sized>(
    reader: &mut R,
    attribute: &str,
    types: &[&str],
    collection: &'static str,
    adopters: Option<Adopters<'_>>,
) -> Result<Peek, Error> {
    let fail = |source: DecodeError| Error::Decode {
        entity: collection,
        source,
    };
    if !reader.rewind() {
        return crate::reader::collect_item(reader)
            .map(Peek::Collected)
            .map_err(fail);
    }
    let mut found = None;
    let (mut pk, mut sk) = (None, None);
    loop {
        // Adopters read the key attributes too, which `next_data_attr`
        // may leave out.
        let attr = match adopters {
            Some(_) => reader.next_attr(),
            None => reader.next_data_attr(),
        };
        let Some(attr) = attr else { break };
        let (name, value) = attr.map_err(fail)?;
        if name == attribute {
            found = Some(match value.as_s() {
                Some(t) => match types.iter().position(|m| *m == t) {
                    Some(i) => Peek::Member(i),
                    None => Peek::Other(Some(t.to_owned())),
                },
                None => Peek::Other(None),
            });
            break;
        }
        if let Some(a) = &adopters {
            if name == a.pk {
                pk = Some(value.into_owned());
            } else if a.sk == Some(name) {
                sk = Some(value.into_owned());
            }
        }
    }
    reader.rewind();
    let found =
        found.unwrap_or_else(
            || match adopters.and_then(|a| (a.claim)(pk.as_ref(), sk.as_ref())) {
                Some(i) => Peek::Member(i),
                None => Peek::Other(None),
            },
        );
    Ok(found)
}
