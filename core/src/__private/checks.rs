//! What a decoded item is checked against: its entity type, the key it
//! is stored under, its schema version.

use super::*;
use crate::reader::lend;

/// What an item's entity-type attribute held, seen while reading it.
pub enum TypeSeen {
    /// The expected type.
    Matches,
    /// Another entity type.
    Other(String),
    /// Not a string: DynamoDB's name for its type.
    NotString(&'static str),
}

impl TypeSeen {
    /// Compares the attribute's value with the expected type, copying
    /// it only when it differs. Inlined into the decoders, where
    /// `expected` is a literal: the comparison is then a few instructions.
    #[inline(always)]
    pub fn of(value: &crate::reader::AttrRef<'_>, expected: &str) -> Self {
        match value.as_s() {
            Some(s) if s == expected => Self::Matches,
            Some(s) => Self::Other(s.to_owned()),
            None => Self::NotString(value.type_name()),
        }
    }
}

/// A field's value decoded as an item was read: `None` until the
/// attribute is met, then the decoded value or its error (reported once
/// the item's entity type is known).
pub type Slot<T> = Option<Result<T, crate::DecodeError>>;

/// What an entity's decoder keeps of the table's own attributes while
/// reading an item: the entity type and the key it was stored under.
#[derive(Default)]
pub struct Seen {
    entity_type: Option<TypeSeen>,
    pk: Option<AttributeValue>,
    sk: Option<AttributeValue>,
}

impl Seen {
    /// The entity-type attribute of an item read by a decoder of type
    /// `expected` (see [`TypeSeen::of`]).
    #[inline(always)]
    pub fn entity_type(&mut self, value: crate::reader::AttrRef<'_>, expected: &str) {
        self.entity_type = Some(TypeSeen::of(&value, expected));
    }

    /// A table key attribute (the sort key when `sort`) that the reader
    /// gave among the others, kept for the check against the fields.
    #[inline]
    pub fn key(&mut self, sort: bool, value: crate::reader::AttrRef<'_>) {
        let slot = if sort { &mut self.sk } else { &mut self.pk };
        *slot = Some(stored_key(value));
    }

    /// What the item was stored under, once every attribute was read: the
    /// key the reader lends ([`AttrReader::table_key`]) or the copies
    /// [`Seen::key`] kept, and the entity type.
    ///
    /// [`AttrReader::table_key`]: crate::reader::AttrReader::table_key
    #[inline]
    pub fn stored<'s, T: crate::Entity, R: crate::reader::AttrReader + ?Sized>(
        &'s mut self,
        table: &TableAttrs,
        reader: &'s R,
    ) -> crate::Result<Stored<'s>> {
        let key = match reader.table_key(table.pk, table.sk) {
            Some(Ok(key)) => key,
            Some(Err(e)) => {
                return Err(crate::Error::Decode {
                    entity: T::ENTITY_TYPE,
                    source: e.at(table.pk),
                });
            }
            None => crate::reader::TableKey {
                pk: self.pk.as_ref().map(lend),
                sk: self.sk.as_ref().map(lend),
            },
        };
        Ok(Stored {
            entity_type: self.entity_type.take(),
            key,
        })
    }
}

/// What a decoded item was stored under: its entity type and its table
/// key ([`Seen::stored`]).
pub struct Stored<'a> {
    entity_type: Option<TypeSeen>,
    key: crate::reader::TableKey<'a>,
}

impl Stored<'_> {
    /// Whether the item is of type `T` (see [`check_entity_type`]), or has
    /// no entity type and `T` adopts it by its key
    /// ([`crate::entity::claims`]).
    #[inline]
    pub fn is_entity<T: crate::Entity>(
        &mut self,
        table: &TableAttrs,
        other: crate::OtherTypes,
    ) -> crate::Result<bool> {
        if let Some(TypeSeen::Matches) = self.entity_type {
            return Ok(true);
        }
        if T::ADOPTS && self.entity_type.is_none() && crate::entity::claims_key::<T>(&self.key) {
            return Ok(true);
        }
        check_entity_type(
            self.entity_type.take(),
            table.entity_type,
            T::ENTITY_TYPE,
            other,
        )
    }

    /// The partition key the item is stored under, when it was read and
    /// is a string: where key fields without a stored copy are read from.
    #[inline]
    pub fn pk_str(&self) -> Option<&str> {
        self.key.pk_str()
    }

    /// The sort key the item is stored under (see [`Stored::pk_str`]).
    #[inline]
    pub fn sk_str(&self) -> Option<&str> {
        self.key.sk_str()
    }

    /// Refuses a decoded entity whose fields build another key than the
    /// one the item was stored under (see [`check_stored_key`]).
    #[inline]
    pub fn check_key<T: crate::Entity>(&self, entity: &T) -> crate::Result<()> {
        crate::entity::check_table_key(entity, &self.key)
    }
}

impl Drop for Seen {
    /// The key strings [`Seen::key`] copied go back to the key
    /// builders.
    #[inline]
    fn drop(&mut self) {
        if let (None, None) = (&self.pk, &self.sk) {
            return;
        }
        let string = |v: Option<AttributeValue>| match v {
            Some(AttributeValue::S(s)) => Some(s),
            _ => None,
        };
        crate::key::recycle_keys([string(self.pk.take()), string(self.sk.take())]);
    }
}

/// A stored key attribute, kept until the decoded fields are checked
/// against it: a borrowed string is copied into a recycled key buffer.
#[inline]
fn stored_key(value: crate::reader::AttrRef<'_>) -> AttributeValue {
    match value {
        crate::reader::AttrRef::S(s) => {
            let mut k = crate::key::key_buffer(s.len());
            k.push_str(s);
            AttributeValue::S(k)
        }
        other => other.into_owned(),
    }
}

/// Checks the entity-type attribute read from an item (`None` when it
/// was absent): `Ok(false)` when `other` says to skip items of other
/// types and this one is not of type `expected` (another type, no type at
/// all, as items other clients wrote, or a type that is not a string); an
/// error for those when they are not skipped.
pub fn check_entity_type(
    seen: Option<TypeSeen>,
    attribute: &str,
    expected: &'static str,
    other: crate::OtherTypes,
) -> crate::Result<bool> {
    use crate::error::{DecodeError, DecodeErrorKind};
    let fail = |e: DecodeError| crate::Error::Decode {
        entity: expected,
        source: e.at(attribute),
    };
    match seen {
        Some(TypeSeen::Matches) => Ok(true),
        // An item it cannot attribute to `expected` is another's.
        _ if other == crate::OtherTypes::Skip => Ok(false),
        Some(TypeSeen::Other(found)) => Err(fail(DecodeError::new(DecodeErrorKind::EntityType {
            expected,
            found,
        }))),
        Some(TypeSeen::NotString(found)) => {
            Err(fail(DecodeError::new(DecodeErrorKind::WrongType {
                expected: "S (entity type)",
                found,
            })))
        }
        None => Err(fail(DecodeError::missing())),
    }
}

/// Checks the value of the entity-type attribute, `None` when absent.
pub fn check_entity_type_value(
    found: Option<AttributeValue>,
    attribute: &str,
    expected: &'static str,
) -> crate::Result<()> {
    use crate::reader::AttrRef;
    let seen = found.map(|v| match v {
        AttributeValue::S(s) => TypeSeen::of(&AttrRef::S(&s), expected),
        other => TypeSeen::of(&AttrRef::owned(other), expected),
    });
    check_entity_type(seen, attribute, expected, crate::OtherTypes::Error).map(|_| ())
}

/// Refuses an item whose key attributes are not the key its decoded
/// fields build: key fields are stored as plain attributes too, and a
/// value that contradicts the key would redirect the next write of the
/// entity to another item. `None` (the attribute was not read, for
/// example under a projection) contradicts nothing.
pub fn check_stored_key<T: crate::Entity>(
    entity: &T,
    pk: Option<AttributeValue>,
    sk: Option<AttributeValue>,
) -> crate::Result<()> {
    if pk.is_none() && sk.is_none() {
        return Ok(());
    }
    crate::entity::check_stored_key(entity, pk, sk)
}

/// The schema version stored with an item of `entity` (version 1 when
/// the attribute is absent: written before the entity declared
/// versions); an error when it is not a number or is newer than
/// `current`.
pub fn schema_version_of(
    item: &crate::Item,
    attribute: &str,
    entity: &'static str,
    current: u32,
) -> crate::Result<u64> {
    use crate::error::{DecodeError, DecodeErrorKind};
    let fail = |kind| crate::Error::Decode {
        entity,
        source: DecodeError::new(kind).at(attribute),
    };
    match item.get(attribute) {
        None => Ok(1),
        Some(AttributeValue::N(n)) => match n.parse::<u64>() {
            Ok(v) if v <= u64::from(current) => Ok(v),
            Ok(stored) => Err(fail(DecodeErrorKind::SchemaVersion { stored, current })),
            Err(_) => Err(fail(DecodeErrorKind::InvalidNumber {
                value: n.clone(),
                ty: "u64 (schema version)",
            })),
        },
        Some(other) => Err(crate::Error::Decode {
            entity,
            source: crate::value::wrong_type("N (schema version)", other).at(attribute),
        }),
    }
}

/// Reads an item stored in an older shape of `New`: decodes it as the
/// old shape `Old` (a `#[derive(Document)]` struct of the stored
/// attributes) and converts it with `From`. The entity type is checked
/// first, and the converted entity's key fields must still build the
/// key the item is stored under.
pub fn migrate<Old: crate::Attr, New: crate::Entity + From<Old>>(
    item: crate::Item,
) -> crate::Result<New> {
    let table = crate::entity::table_attrs::<New::Table>();
    check_entity_type_value(
        item.get(table.entity_type).cloned(),
        table.entity_type,
        New::ENTITY_TYPE,
    )?;
    let pk = item.get(table.pk).cloned();
    let sk = table.sk.and_then(|a| item.get(a).cloned());
    let old = Old::from_attr(AttributeValue::M(item)).map_err(|source| crate::Error::Decode {
        entity: New::ENTITY_TYPE,
        source,
    })?;
    let new = New::from(old);
    check_stored_key(&new, pk, sk)?;
    Ok(new)
}

/// Fills a decoder's `slot` of a key field the item holds no copy of from
/// the stored key value `key`, read by the entity's key parser `parse`
/// (a template with one placeholder): only when the slot is empty, so
/// items that carry every copy pay nothing. One call in each decoder
/// instead of a block of its own.
#[inline]
pub fn fill_from_key<T>(
    slot: &mut Slot<T>,
    key: Option<&str>,
    parse: fn(&str) -> crate::Result<T>,
) -> crate::Result<()> {
    if slot.is_none()
        && let Some(key) = key
    {
        *slot = Some(Ok(parse(key)?));
    }
    Ok(())
}

/// The string of an index key attribute a decoder kept for the fields
/// only that key holds (`#[attr(from_key)]` on an index template's
/// field): `None` when the item has none (a sparse index, a projection
/// without it), a decode error at the attribute when it is no string.
#[inline]
pub fn index_key_str<'a>(
    entity: &'static str,
    attribute: &'static str,
    value: &'a Option<AttributeValue>,
) -> crate::Result<Option<&'a str>> {
    match value {
        None => Ok(None),
        Some(AttributeValue::S(s)) => Ok(Some(s)),
        Some(other) => Err(crate::Error::Decode {
            entity,
            source: crate::value::wrong_type("S", other).at(attribute),
        }),
    }
}

/// Refuses a decoded entity whose fields build another index key
/// (`built`) than the one the item holds (`stored`), when fields were read
/// from that key: a key part that does not read back to the same key, or
/// a value that contradicts another key holding the same field, is
/// [`crate::DecodeErrorKind::KeyMismatch`] at the index key attribute, as for
/// the primary key.
#[inline]
pub fn check_index_key(
    entity: &'static str,
    attribute: &'static str,
    stored: Option<&str>,
    built: crate::Result<String>,
) -> crate::Result<()> {
    let Some(stored) = stored else {
        return Ok(());
    };
    let built = built?;
    if built == stored {
        return Ok(());
    }
    Err(crate::Error::Decode {
        entity,
        source: crate::DecodeError::new(crate::DecodeErrorKind::KeyMismatch {
            stored: stored.to_owned(),
            expected: built,
        })
        .at(attribute),
    })
}
