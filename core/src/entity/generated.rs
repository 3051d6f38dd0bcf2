//! What generated code calls to read, check and key items: reachable
//! only through `__private`, so documented for maintainers, not users.

#![allow(missing_docs)]

use super::*;

/// Whether `T` reads `item`: its entity type is `T`'s, or it has none and
/// `T` adopts it by its key (see [`claims`]).
pub fn attributed_to<T: Entity>(item: &Item) -> bool {
    let table = table_attrs::<T::Table>();
    match item.get(table.entity_type) {
        Some(crate::value::AttributeValue::S(t)) => t == T::ENTITY_TYPE,
        Some(_) => false,
        None => claims::<T>(item.get(table.pk), table.sk.and_then(|a| item.get(a))),
    }
}

/// Whether `T` claims an item that has no entity-type attribute, stored
/// under the key attributes `pk` and `sk`: `T` declares
/// `#[entity(adopt = keys)]` and the key matches its templates
/// ([`key_matches`]). The one rule every read path asks.
pub fn claims<T: Entity>(
    pk: Option<&crate::value::AttributeValue>,
    sk: Option<&crate::value::AttributeValue>,
) -> bool {
    fn string(v: &crate::value::AttributeValue) -> Option<&str> {
        match v {
            crate::value::AttributeValue::S(s) => Some(s),
            _ => None,
        }
    }
    claims_strs::<T>(pk.map(string), sk.map(string))
}

/// [`claims`] on a key as the item holds it, borrowed.
#[inline]
pub fn claims_key<T: Entity>(key: &crate::reader::TableKey<'_>) -> bool {
    use crate::reader::KeyRef;
    claims_strs::<T>(
        key.pk.as_ref().map(KeyRef::as_s),
        key.sk.as_ref().map(KeyRef::as_s),
    )
}

/// The rule of [`claims`], on each present key attribute's string (`None`
/// inside when it is not a string).
#[inline]
fn claims_strs<T: Entity>(pk: Option<Option<&str>>, sk: Option<Option<&str>>) -> bool {
    if !T::ADOPTS {
        return false;
    }
    let Some(Some(pk)) = pk else {
        return false;
    };
    match sk {
        None => key_matches::<T>(pk, None),
        Some(sk) => sk.is_some_and(|sk| key_matches::<T>(pk, Some(sk))),
    }
}

/// Whether a primary key is one of `T`'s: its key parsers read it
/// ([`Entity::parses_key`]).
pub fn key_matches<T: Entity>(pk: &str, sk: Option<&str>) -> bool {
    T::parses_key(pk, sk)
}

/// Compares the key attributes an item was stored under with the key its
/// decoded fields build; a difference is a
/// [`DecodeErrorKind::KeyMismatch`](crate::DecodeErrorKind::KeyMismatch) at
/// the key attribute.
pub(crate) fn check_stored_key<T: Entity>(
    entity: &T,
    pk: Option<crate::value::AttributeValue>,
    sk: Option<crate::value::AttributeValue>,
) -> Result<(), Error> {
    use crate::reader::TableKey;
    use crate::reader::lend;
    use crate::value::AttributeValue;
    let out = check_table_key(
        entity,
        &TableKey {
            pk: pk.as_ref().map(lend),
            sk: sk.as_ref().map(lend),
        },
    );
    let string = |v: Option<AttributeValue>| match v {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    };
    crate::key::recycle_keys([string(pk), string(sk)]);
    out
}

/// [`check_stored_key`] on a key as the item holds it, borrowed.
pub(crate) fn check_table_key<T: Entity>(
    entity: &T,
    key: &crate::reader::TableKey<'_>,
) -> Result<(), Error> {
    use crate::error::{DecodeError, DecodeErrorKind};
    use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
    use crate::reader::KeyRef;
    if key.pk.is_none() && key.sk.is_none() {
        return Ok(());
    }
    // The stored key compared piece by piece with the fields: no key is
    // built when they agree (and it is within DynamoDB's limits, as the
    // key builders would check), which is every item but a bad one.
    let stored_sk = match (&key.sk, <T::Table as Table>::SK) {
        (Some(v), Some(_)) => v.as_s().filter(|s| s.len() <= MAX_SORT_KEY_BYTES).map(Some),
        (_, None) | (None, _) => Some(None),
    };
    if let (Some(p), Some(stored_sk)) = (key.pk_str(), stored_sk)
        && p.len() <= MAX_PARTITION_KEY_BYTES
        && entity.key_agrees(p, stored_sk)
    {
        return Ok(());
    }
    let table = <T::Table as Table>::PK;
    let mismatch = |attribute: &str, stored: &KeyRef<'_>, expected: String| Error::Decode {
        entity: T::ENTITY_TYPE,
        source: DecodeError::new(DecodeErrorKind::KeyMismatch {
            stored: match stored.as_s() {
                Some(s) => s.to_owned(),
                None => format!("{:?}", stored.clone().into_owned()),
            },
            expected,
        })
        .at(attribute),
    };
    let built = match entity.primary_key() {
        Ok(key) => key,
        Err(e) => {
            let (attribute, stored) = match (&key.pk, &key.sk) {
                (Some(v), _) => (table, v),
                (None, Some(v)) => (<T::Table as Table>::SK.unwrap_or(table), v),
                (None, None) => return Ok(()),
            };
            return Err(mismatch(attribute, stored, format!("no key ({e})")));
        }
    };
    if let Some(stored) = &key.pk
        && stored.as_s() != Some(built.pk.as_str())
    {
        return Err(mismatch(table, stored, built.pk));
    }
    if let (Some(stored), Some(attribute)) = (&key.sk, <T::Table as Table>::SK) {
        let agrees = match (stored.as_s(), &built.sk) {
            (Some(s), Some(b)) => s == b,
            _ => false,
        };
        if !agrees {
            return Err(mismatch(attribute, stored, built.sk.unwrap_or_default()));
        }
    }
    // The built strings go back to the key builders, so that the check
    // allocates nothing once keys were read.
    crate::key::recycle_keys([Some(built.pk), built.sk]);
    Ok(())
}

/// A field of an item an update was given with
/// `Update::knowing`: where it is stored and its
/// key part (`None` for a sparse condition field used in no template).
#[derive(Debug)]
pub struct HeldField {
    /// The Rust field name.
    pub field: &'static str,
    /// The stored attribute name.
    pub attribute: &'static str,
    /// The field's key part.
    pub part: Option<Result<String, Error>>,
}

/// The projection of `T`'s index named `index` (its DynamoDB name); `All`
/// when `T` declares no such index.
pub fn index_projection<T: Table>(index: &str) -> Projection {
    T::GLOBAL_INDEXES
        .iter()
        .find(|g| g.name == index)
        .map(|g| g.projection)
        .or_else(|| {
            T::LOCAL_INDEXES
                .iter()
                .find(|l| l.name == index)
                .map(|l| l.projection)
        })
        .or_else(|| {
            T::VECTOR_INDEXES
                .iter()
                .find(|v| v.name == index)
                .map(|v| v.projection)
        })
        .unwrap_or(Projection::All)
}

/// Checks a value for attribute `attribute` of a multi-attribute index
/// key: DynamoDB refuses empty strings and binaries there, and a value of
/// another type than the index declares.
fn check_key_attribute(
    entity: &'static str,
    attribute: &'static KeyAttribute,
    value: &crate::value::AttributeValue,
) -> Result<(), Error> {
    use crate::value::AttributeValue;
    let empty = match value {
        AttributeValue::S(s) => s.is_empty(),
        AttributeValue::B(b) => b.as_ref().is_empty(),
        _ => false,
    };
    if empty {
        return Err(Error::KeyValue {
            entity,
            field: attribute.name,
            reason: crate::error::KeyError::Empty,
        });
    }
    if KeyType::of(value) != Some(attribute.kind) {
        return Err(Error::Refused(crate::error::Refusal::KeyAttributeType {
            entity,
            attribute: attribute.name,
            found: crate::value::type_name(value),
            expected: attribute.kind.as_str(),
        }));
    }
    Ok(())
}

/// The multi-attribute index key attribute named `name`, if any.
fn key_attribute<T: Table>(name: &str) -> Option<&'static KeyAttribute> {
    T::GLOBAL_INDEXES
        .iter()
        .filter_map(|g| g.attributes)
        .flat_map(|k| k.partition.iter().chain(k.sort))
        .find(|a| a.name == name)
}

/// Checks what an item gives the attributes of the table's multi-attribute
/// index keys (see `check_key_attribute`); called by every encoded item,
/// so no put, batch or transaction sends one DynamoDB refuses.
pub fn check_attribute_keys<T: Table>(entity: &'static str, item: &Item) -> Result<(), Error> {
    for g in T::GLOBAL_INDEXES {
        let Some(k) = g.attributes else { continue };
        for a in k.partition.iter().chain(k.sort) {
            if let Some(v) = item.get(a.name) {
                check_key_attribute(entity, a, v)?;
            }
        }
        check_key_bytes(entity, g.name, item, k)?;
    }
    Ok(())
}

/// Refuses an item whose multi-attribute key attributes of one index hold
/// more bytes together than DynamoDB allows (counted by
/// [`crate::size::key_bytes`], as the embedded backend counts them).
fn check_key_bytes(
    entity: &'static str,
    index: &'static str,
    item: &Item,
    key: AttributeKey,
) -> Result<(), Error> {
    use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
    for (attrs, part, max) in [
        (key.partition, "partition", MAX_PARTITION_KEY_BYTES),
        (key.sort, "sort", MAX_SORT_KEY_BYTES),
    ] {
        let len = crate::size::key_bytes(item, attrs.iter().map(|a| a.name));
        if len > max {
            return Err(Error::IndexKeyTooLong {
                entity,
                index,
                part,
                len,
                max,
            });
        }
    }
    Ok(())
}

/// Checks what an update's `SET` actions give the attributes of the
/// table's multi-attribute index keys.
pub(crate) fn check_attribute_key_actions<T: Table>(
    entity: &'static str,
    actions: &[crate::request::UpdateAction],
) -> Result<(), Error> {
    use crate::request::{SetValue, UpdateAction};
    let mut set = Item::new();
    for action in actions {
        if let UpdateAction::Set(name, SetValue::Value(v) | SetValue::IfNotExists(v)) = action
            && let Some(a) = key_attribute::<T>(name)
        {
            check_key_attribute(entity, a, v)?;
            set.insert(name.clone(), v.clone());
        }
    }
    // What the update sets is part of each key: already over the limit,
    // the stored item cannot make it fit.
    for g in T::GLOBAL_INDEXES {
        if let Some(k) = g.attributes {
            check_key_bytes(entity, g.name, &set, k)?;
        }
    }
    Ok(())
}

/// A field's value as a query's key condition compares it, for attribute
/// `attribute` of a multi-attribute index key: DynamoDB refuses empty
/// strings and binaries there.
pub fn key_attribute_value<V: crate::value::Attr>(
    entity: &'static str,
    field: &'static str,
    value: &V,
) -> Result<crate::value::AttributeValue, Error> {
    use crate::value::AttributeValue;
    let v = value
        .to_attr()
        .map_err(|source| Error::Encode { entity, source })?;
    match &v {
        AttributeValue::S(s) if s.is_empty() => Err(Error::KeyValue {
            entity,
            field,
            reason: crate::error::KeyError::Empty,
        }),
        AttributeValue::B(b) if b.as_ref().is_empty() => Err(Error::KeyValue {
            entity,
            field,
            reason: crate::error::KeyError::Empty,
        }),
        _ => Ok(v),
    }
}

/// The scalar type a Rust type is stored as, for the derive's check that
/// a field fits the multi-attribute index attribute it is mapped to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an attribute of a multi-attribute index key",
    label = "this field is mapped to a key attribute",
    note = "key attributes are strings (`String`, string enums), numbers (integers) or binaries (`Vec<u8>`)"
)]
pub trait KeyScalar {
    /// `S`, `N` or `B`.
    const KIND: KeyType;
}

macro_rules! key_scalar {
    ($kind:ident: $($t:ty),*) => { $(impl KeyScalar for $t { const KIND: KeyType = KeyType::$kind; })* };
}
key_scalar!(S: String, &str, char);
key_scalar!(N: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
key_scalar!(B: Vec<u8>, crate::value::Blob);

impl<T: KeyScalar> KeyScalar for Option<T> {
    const KIND: KeyType = T::KIND;
}

/// Whether two key types are the same, in const context.
pub const fn key_type_eq(a: KeyType, b: KeyType) -> bool {
    a as u8 == b as u8
}

/// Const-evaluable string equality, used by the derive's compile-time checks.
pub const fn str_eq(a: &str, b: &str) -> bool {
    crate::shape::str_eq(a, b)
}

/// A table's key attribute names, read in const context by the derive's
/// compile-time checks. One value per table, so a wrong `table = ...` is
/// reported once.
/// The projection of `T`'s index named `index`, at compile time (`All`
/// when `T` declares no such index), for the derive's checks.
pub const fn index_projection_of<T: Table>(index: &str) -> Projection {
    let mut i = 0;
    while i < T::GLOBAL_INDEXES.len() {
        if str_eq(T::GLOBAL_INDEXES[i].name, index) {
            return T::GLOBAL_INDEXES[i].projection;
        }
        i += 1;
    }
    let mut i = 0;
    while i < T::LOCAL_INDEXES.len() {
        if str_eq(T::LOCAL_INDEXES[i].name, index) {
            return T::LOCAL_INDEXES[i].projection;
        }
        i += 1;
    }
    let mut i = 0;
    while i < T::VECTOR_INDEXES.len() {
        if str_eq(T::VECTOR_INDEXES[i].name, index) {
            return T::VECTOR_INDEXES[i].projection;
        }
        i += 1;
    }
    Projection::All
}

/// Whether an index of projection `p` holds `attributes` and, when given,
/// the entity-type attribute: what decoding whole items from it reads.
pub const fn projects_all(p: Projection, attributes: &[&str], entity_type: Option<&str>) -> bool {
    let listed = match p {
        Projection::All => return true,
        Projection::KeysOnly => &[] as &[&str],
        Projection::Include(list) => list,
    };
    if let Some(t) = entity_type
        && !contains(listed, t)
    {
        return false;
    }
    let mut i = 0;
    while i < attributes.len() {
        if !contains(listed, attributes[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two key attributes are one attribute: both present and equal.
pub const fn same_attr(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => str_eq(a, b),
        _ => false,
    }
}

#[derive(Debug, Clone, Copy)]
pub struct TableAttrs {
    pub pk: &'static str,
    pub sk: Option<&'static str>,
    pub entity_type: &'static str,
    pub reserved: &'static [&'static str],
    pub schema_version: &'static str,
}

pub const fn table_attrs<T: Table>() -> TableAttrs {
    TableAttrs {
        pk: T::PK,
        sk: T::SK,
        entity_type: T::ENTITY_TYPE,
        reserved: T::RESERVED,
        schema_version: T::SCHEMA_VERSION,
    }
}

/// [`table_attrs`] of `T` as one `'static` value per table type, which
/// the derive's code for every entity of the table refers to.
pub struct TableOf<T>(core::marker::PhantomData<T>);

impl<T: Table> TableOf<T> {
    /// The key and entity-type attributes of table `T`.
    pub const ATTRS: &'static TableAttrs = &table_attrs::<T>();
}

pub const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if str_eq(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

/// The position of the first of `names` that is one of `reserved`
/// (`usize::MAX` when none is), for the derive's compile-time check that
/// no field is stored under a key attribute's name.
pub const fn first_reserved(reserved: &[&str], names: &[&str]) -> usize {
    let mut i = 0;
    while i < names.len() {
        if contains(reserved, names[i]) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// A global index's key attribute names, for the derive.
#[derive(Debug, Clone, Copy)]
pub struct GsiAttrs {
    pub name: &'static str,
    pub pk: &'static str,
    pub sk: Option<&'static str>,
}

pub const fn gsi_attrs<T: markers::Gsi<N>, const N: u8>() -> GsiAttrs {
    GsiAttrs {
        name: <T as markers::Gsi<N>>::NAME,
        pk: T::PK_ATTR,
        sk: T::SK_ATTR,
    }
}

/// The attributes of a multi-attribute global index key, for the derive
/// (`None` for a template index).
pub const fn gsi_attributes<T: markers::Gsi<N>, const N: u8>() -> Option<AttributeKey> {
    <T as markers::Gsi<N>>::ATTRIBUTES
}

/// Whether multi-attribute index key `key` sorts by entity type first: its
/// first sort attribute is the table's entity-type attribute
/// `entity_type`, which every typed entity writes. Several entities share
/// such an index, each one's queries starting with `entityType = <its
/// name>`.
pub const fn sorts_by_type(key: Option<AttributeKey>, entity_type: &str) -> bool {
    match key {
        Some(k) => !k.sort.is_empty() && str_eq(k.sort[0].name, entity_type),
        None => false,
    }
}

/// A local index's name and sort key attribute, for the derive.
#[derive(Debug, Clone, Copy)]
pub struct LsiAttrs {
    pub name: &'static str,
    pub sk: &'static str,
}

pub const fn lsi_attrs<T: markers::Lsi<N>, const N: u8>() -> LsiAttrs {
    LsiAttrs {
        name: <T as markers::Lsi<N>>::NAME,
        sk: T::SK_ATTR,
    }
}

/// Marker traits through which the derive checks, at compile time, that an
/// entity only uses indexes its table declares.
pub mod markers {
    use super::Table;

    /// Implemented by tables that declare global index `gsi<N>`.
    #[diagnostic::on_unimplemented(
        message = "table `{Self}` does not declare global index `gsi{N}`",
        label = "the entity uses `gsi{N}` here",
        note = "add `gsi{N}` to the table's `#[table(...)]` attribute"
    )]
    pub trait Gsi<const N: u8>: Table {
        /// Index name.
        const NAME: &'static str;
        /// Partition key attribute.
        const PK_ATTR: &'static str;
        /// Sort key attribute, if the index has one.
        const SK_ATTR: Option<&'static str>;
        /// The attributes of a multi-attribute key, `None` for a template
        /// index.
        const ATTRIBUTES: Option<super::AttributeKey> = None;
    }

    /// Implemented by tables that declare vector index `vector<N>`.
    #[diagnostic::on_unimplemented(
        message = "table `{Self}` does not declare vector index `vector{N}`",
        label = "the entity uses `vector{N}` here",
        note = "add `vector{N}(dimensions = .., distance = ..)` to the table's `#[table(...)]` attribute"
    )]
    pub trait Vector<const N: u8>: Table {
        /// The index.
        const INDEX: super::VectorIndex;
    }

    /// Implemented by tables that declare local index `lsi<N>`.
    #[diagnostic::on_unimplemented(
        message = "table `{Self}` does not declare local index `lsi{N}`",
        label = "the entity uses `lsi{N}` here",
        note = "add `lsi{N}` to the table's `#[table(...)]` attribute"
    )]
    pub trait Lsi<const N: u8>: Table {
        /// Index name.
        const NAME: &'static str;
        /// Sort key attribute.
        const SK_ATTR: &'static str;
    }
}
