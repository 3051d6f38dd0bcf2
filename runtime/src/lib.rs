//! Runtime of [singletable](https://docs.rs/singletable): the key codec, the
//! item codec and the traits that `#[derive(Table)]` and `#[derive(Entity)]`
//! implement. Applications depend on the `singletable` facade crate, which
//! re-exports everything here together with the derives.
//!
//! The modules are floors that import only downward, bottom first: values
//! (`value`, the codec's errors), expressions and requests (`expr`,
//! `request`), `error`, codecs and readers (`key`, `clock`, `page`,
//! `reader`, …), executors (`exec`), declarations (`shape`, `entity`,
//! `fields`, …), typed operations (`db`, `query`, `update`, `transact`, …),
//! design tooling (`design`, `admin`); the README's "Layout of the code"
//! lists every module and a test holds the code to it. No backend but the
//! SDK executor is named here: the embedded backend is the crate
//! `singletable-embedded`, built on these floors, and the facade's
//! `Backend` chooses between them.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "client")]
mod admin;
pub mod backend;
pub mod backfill;
pub mod batch;
pub mod capacity;
pub mod clock;
mod codec_error;
#[doc(hidden)]
pub mod collection;
pub mod db;
pub mod definition;
pub mod design;
pub mod entity;
pub mod error;
pub mod exec;
pub mod expr;
mod field_codec;
pub mod fields;
mod guarded;
pub mod key;
pub mod nested;
pub mod page;
pub mod query;
pub mod reader;
pub mod request;
mod serde_bridge;
mod shape;
pub mod shard;
pub mod size;
pub mod stream;
mod timestamp;
pub mod trace;
pub mod transact;
pub mod ttl;
pub mod unique;
pub mod update;
pub mod value;

pub use backend::{HoldsTables, SharedExecutor};
pub use backfill::{Backfill, BackfillReport, Checkpoint};
pub use batch::{BatchGetOutcome, BatchGetter, BatchPolicy, BatchWriter};
pub use clock::Clock;
pub use db::Db;
pub use entity::{
    AttributeKey, Entity, GlobalIndex, KeyAttribute, KeyType, LocalIndex, Partition, Projection,
    SchemaVersion, StreamView, Table,
};
pub use error::{
    CancellationReason, CursorError, DecodeError, DecodeErrorKind, EncodeError, Error, KeyError,
    Result, StreamError,
};
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
#[cfg(feature = "client")]
pub use exec::SdkExecutor;
pub use exec::{Counting, Executor};
pub use expr::{Cmp, Condition, Operand, SortCondition};
pub use fields::{CollectionPath, Cond, Field, FieldPath, KeyField, PkField, StringPath, ValueFor};
pub use key::{IndexKey, KeyPart, KeyPartDecode, PrimaryKey};
pub use nested::{DocField, Document, Entry, Nested};
pub use query::{Decode, OnGlobalIndex, OnLocalIndex, OnTable, OtherTypes, Page, Query};
pub use request::ReturnValues;
pub use shard::ShardedQuery;
pub use transact::{Handle, ReadResults, ReadTransaction, Transaction};
pub use update::{Returned, Update};
pub use value::{Attr, AttributeValue, Blob, Item};

/// Used by generated code only; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::clock::{Timestamp, created_value, time_attr, updated_value};
    pub use crate::design::{
        AccessShape, AttrIndexShape, Card, CardFallback, EntityShape, IndexCollision, IndexShape,
        KeySeg, KeyShape, cardinality, index_collision, partition_holds_markers,
        primary_keys_collide, table_queries_leak,
    };
    pub use crate::entity::HeldField;
    pub use crate::entity::markers::*;
    pub use crate::entity::{
        GsiAttrs, KeyScalar, LsiAttrs, SchemaVersion, TableAttrs, check_attribute_keys, contains,
        first_reserved, gsi_attributes, gsi_attrs, index_projection, key_attribute_value,
        key_type_eq, lsi_attrs, str_eq, table_attrs,
    };
    pub use crate::expr::AttrRange;
    pub use crate::expr::SortCondition;
    pub use crate::key::{
        KeyReader, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, ReadPart, ReadPartFallback,
        WritePart, WritePartFallback, check_len, escape_into, unescape, write_part,
    };
    pub use crate::query::{AttrTarget, Target, entity_type_of, unknown_type};
    pub use crate::serde_bridge::{serde_from_attr, serde_to_attr};
    pub use crate::shard::{shard_of, with_shard};
    pub use crate::ttl::{EpochSeconds, ttl_from_attr};
    pub use crate::unique::{UniquePart, UniquePartFallback, assert_unique};
    pub use crate::update::{IndexKeys, KeyTemplate, Seg, When};
    pub use crate::value::wrong_type;
    pub use ::aws_sdk_dynamodb::types::AttributeValue;
    pub use ::core::marker::PhantomData;
    pub use ::core::{
        default::Default,
        option::Option::{self, None, Some},
        result::Result::{self, Err, Ok},
    };
    pub use ::futures::Stream;
    pub use ::std::{collections::HashMap, string::String, vec, vec::Vec};

    /// The table of an entity whose derive failed; only seen beside errors.
    pub enum StubTable {}
    impl crate::Table for StubTable {
        const NAME: &'static str = "";
        const PK: &'static str = "";
        const SK: Option<&'static str> = None;
        const ENTITY_TYPE: &'static str = "";
        const GLOBAL_INDEXES: &'static [crate::GlobalIndex] = &[];
        const LOCAL_INDEXES: &'static [crate::LocalIndex] = &[];
        const RESERVED: &'static [&'static str] = &[];
    }

    /// Length for `min_len`/`max_len` validations: characters for strings,
    /// elements for collections.
    #[allow(clippy::len_without_is_empty)]
    pub trait Len {
        /// The length.
        fn len(&self) -> usize;
    }
    impl Len for String {
        fn len(&self) -> usize {
            self.chars().count()
        }
    }
    impl<T> Len for Vec<T> {
        fn len(&self) -> usize {
            <[T]>::len(self)
        }
    }
    impl<T, S> Len for ::std::collections::HashSet<T, S> {
        fn len(&self) -> usize {
            ::std::collections::HashSet::len(self)
        }
    }
    impl<T> Len for ::std::collections::BTreeSet<T> {
        fn len(&self) -> usize {
            ::std::collections::BTreeSet::len(self)
        }
    }
    impl<K, V, S> Len for HashMap<K, V, S> {
        fn len(&self) -> usize {
            HashMap::len(self)
        }
    }
    impl<K, V> Len for ::std::collections::BTreeMap<K, V> {
        fn len(&self) -> usize {
            ::std::collections::BTreeMap::len(self)
        }
    }
    impl<T: Len> Len for Option<T> {
        fn len(&self) -> usize {
            self.as_ref().map_or(0, Len::len)
        }
    }

    /// Fails a compile-time check of the derive with `message`, at the
    /// check's call (it tracks its caller): a function, not `panic!`, so
    /// that the many checks expand no macro.
    #[track_caller]
    pub const fn fail(message: &'static str) -> ! {
        panic!("{}", message)
    }

    /// Adds the entity to the error of encoding one of its attributes.
    #[inline]
    pub fn encoded<T>(
        entity: &'static str,
        result: Result<T, crate::EncodeError>,
    ) -> crate::Result<T> {
        result.map_err(|source| crate::Error::Encode { entity, source })
    }

    /// Adds the entity to the error of decoding one of its attributes.
    #[inline]
    pub fn decoded<T>(
        entity: &'static str,
        result: Result<T, crate::DecodeError>,
    ) -> crate::Result<T> {
        result.map_err(|source| crate::Error::Decode { entity, source })
    }

    /// The per-field steps of the derived codecs (see `field_codec`), for
    /// every [`Attr`](crate::Attr) type. The derive calls them as
    /// `<T as FieldCodec>::put(..)`: a field type that is no `Attr` then
    /// gets one error, however many steps name it. The entity's steps take
    /// the entity's name first and return an `Error`; the document's
    /// (`doc_`) return an `EncodeError` or `DecodeError`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be stored as a DynamoDB attribute",
        label = "this field's type has no DynamoDB representation",
        note = "derive `Document` for nested structs or `StrEnum` for unit enums, or add `#[attr(serde)]` to store it through serde"
    )]
    pub trait FieldCodec: Sized {
        /// `field_codec::put` for a field of `entity`.
        fn put(
            entity: &'static str,
            item: &mut crate::Item,
            name: &'static str,
            value: &Self,
        ) -> crate::Result<()>;

        /// `field_codec::put_owned` for a field of `entity`.
        fn put_owned(
            entity: &'static str,
            item: &mut crate::Item,
            name: &'static str,
            value: Self,
        ) -> crate::Result<()>;

        /// `field_codec::take` for a field of `entity`.
        fn take(
            entity: &'static str,
            slot: Option<AttributeValue>,
            name: &str,
        ) -> crate::Result<Self>;

        /// `field_codec::take_read` for a field of `entity`.
        fn take_read(entity: &'static str, slot: Slot<Self>, name: &str) -> crate::Result<Self>;

        /// Decodes an attribute's value into its field's [`Slot`].
        fn read_slot(value: crate::reader::AttrRef<'_>) -> Slot<Self>;

        /// A key field's value as a stored attribute, for an upsert.
        fn key_value(
            entity: &'static str,
            name: &str,
            value: &Self,
        ) -> crate::Result<AttributeValue>;

        /// Whether the field decodes from an absent attribute.
        fn absent_ok() -> bool;

        /// `field_codec::put`, for a document's field.
        fn doc_put(
            item: &mut crate::Item,
            name: &'static str,
            value: &Self,
        ) -> Result<(), crate::EncodeError>;

        /// `field_codec::put_owned`, for a document's field.
        fn doc_put_owned(
            item: &mut crate::Item,
            name: &'static str,
            value: Self,
        ) -> Result<(), crate::EncodeError>;

        /// `field_codec::take`, for a document's field.
        fn doc_take(slot: Option<AttributeValue>, name: &str) -> Result<Self, crate::DecodeError>;
    }

    impl<T: crate::Attr> FieldCodec for T {
        #[inline]
        fn put(
            entity: &'static str,
            item: &mut crate::Item,
            name: &'static str,
            value: &Self,
        ) -> crate::Result<()> {
            encoded(entity, crate::field_codec::put(item, name, value))
        }

        #[inline]
        fn put_owned(
            entity: &'static str,
            item: &mut crate::Item,
            name: &'static str,
            value: Self,
        ) -> crate::Result<()> {
            encoded(entity, crate::field_codec::put_owned(item, name, value))
        }

        #[inline]
        fn take(
            entity: &'static str,
            slot: Option<AttributeValue>,
            name: &str,
        ) -> crate::Result<Self> {
            decoded(entity, crate::field_codec::take(slot, name))
        }

        #[inline]
        fn take_read(entity: &'static str, slot: Slot<Self>, name: &str) -> crate::Result<Self> {
            decoded(entity, crate::field_codec::take_read(slot, name))
        }

        #[inline]
        fn read_slot(value: crate::reader::AttrRef<'_>) -> Slot<Self> {
            Some(T::from_attr_ref(value))
        }

        #[inline]
        fn key_value(
            entity: &'static str,
            name: &str,
            value: &Self,
        ) -> crate::Result<AttributeValue> {
            encoded(entity, value.to_attr().map_err(|e| e.at(name)))
        }

        fn absent_ok() -> bool {
            T::from_absent().is_ok()
        }

        #[inline]
        fn doc_put(
            item: &mut crate::Item,
            name: &'static str,
            value: &Self,
        ) -> Result<(), crate::EncodeError> {
            crate::field_codec::put(item, name, value)
        }

        #[inline]
        fn doc_put_owned(
            item: &mut crate::Item,
            name: &'static str,
            value: Self,
        ) -> Result<(), crate::EncodeError> {
            crate::field_codec::put_owned(item, name, value)
        }

        #[inline]
        fn doc_take(slot: Option<AttributeValue>, name: &str) -> Result<Self, crate::DecodeError> {
            crate::field_codec::take(slot, name)
        }
    }

    /// Inserts an item's primary key attributes (`sk` when the table has
    /// a sort key) and its entity type.
    #[inline]
    pub fn insert_primary(
        item: &mut crate::Item,
        table: &TableAttrs,
        pk: &str,
        sk: Option<&str>,
        entity: &str,
    ) {
        item.insert(String::from(table.pk), AttributeValue::S(pk.to_owned()));
        if let (Some(attr), Some(sk)) = (table.sk, sk) {
            item.insert(String::from(attr), AttributeValue::S(sk.to_owned()));
        }
        item.insert(
            String::from(table.entity_type),
            AttributeValue::S(entity.to_owned()),
        );
    }

    /// Whether a TTL field of type `T` decodes from an absent attribute.
    pub fn ttl_absent_ok<T: EpochSeconds>() -> bool {
        ttl_from_attr::<T>(None).is_ok()
    }

    /// `false`, for fields (through serde) that never decode from an
    /// absent attribute.
    pub fn never() -> bool {
        false
    }

    /// `Entity::from_item` of an entity that reads items attribute by
    /// attribute: the owned item's values are moved, not copied.
    pub fn read_owned<T: crate::Entity>(item: crate::Item) -> crate::Result<T> {
        let mut reader = crate::reader::ItemAttrs::new(item);
        match T::read_item(&mut reader, crate::OtherTypes::Error)? {
            Some(entity) => Ok(entity),
            // Never with `OtherTypes::Error`; an error rather than a panic.
            None => Err(crate::Error::Decode {
                entity: T::ENTITY_TYPE,
                source: crate::DecodeError::missing().at(<T::Table as crate::Table>::ENTITY_TYPE),
            }),
        }
    }

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
        /// it only when it differs.
        #[inline]
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
        /// An attribute that is no field of an entity of type `expected`:
        /// kept when it is one of the table's own, skipped otherwise.
        #[inline]
        pub fn other(
            &mut self,
            table: &TableAttrs,
            name: &str,
            value: crate::reader::AttrRef<'_>,
            expected: &str,
        ) {
            if name == table.entity_type {
                self.entity_type = Some(TypeSeen::of(&value, expected));
            } else if name == table.pk {
                self.pk = Some(value.into_owned());
            } else if table.sk == Some(name) {
                self.sk = Some(value.into_owned());
            }
        }

        /// Whether the item is of type `expected` (see
        /// [`check_entity_type`]).
        #[inline]
        pub fn is_entity(
            &mut self,
            table: &TableAttrs,
            expected: &'static str,
            other: crate::OtherTypes,
        ) -> crate::Result<bool> {
            check_entity_type(self.entity_type.take(), table.entity_type, expected, other)
        }

        /// Refuses a decoded entity whose fields build another key than the
        /// one the item was stored under (see [`check_stored_key`]).
        #[inline]
        pub fn check_key<T: crate::Entity>(self, entity: &T) -> crate::Result<()> {
            check_stored_key(entity, self.pk, self.sk)
        }
    }

    /// Checks the entity-type attribute read from an item (`None` when it
    /// was absent): `Ok(false)` when it names another entity type and
    /// `other` says to skip those, an error when it is absent, not a
    /// string, or another type that is not skipped.
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
            Some(TypeSeen::Other(_)) if other == crate::OtherTypes::Skip => Ok(false),
            Some(TypeSeen::Other(found)) => {
                Err(fail(DecodeError::new(DecodeErrorKind::EntityType {
                    expected,
                    found,
                })))
            }
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
            other => TypeSeen::of(&AttrRef::Owned(other), expected),
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
        let old =
            Old::from_attr(AttributeValue::M(item)).map_err(|source| crate::Error::Decode {
                entity: New::ENTITY_TYPE,
                source,
            })?;
        let new = New::from(old);
        check_stored_key(&new, pk, sk)?;
        Ok(new)
    }

    /// A sparse index's `when =`: a `bool` field or a function returning one.
    #[diagnostic::on_unimplemented(
        message = "a sparse index condition must be a `bool`, not `{Self}`",
        label = "`when` names this",
        note = "use a `bool` field, or a function `fn(&Self) -> bool`"
    )]
    pub trait SparseCondition {
        /// Whether the item gets the index's key attributes.
        fn holds(&self) -> bool;
    }
    impl SparseCondition for bool {
        fn holds(&self) -> bool {
            *self
        }
    }

    /// Asserts at compile time that a field type can be a key part; one
    /// bound, so a wrong type gets one error.
    pub const fn assert_key_part<T: crate::KeyPartDecode>() {}
    /// Asserts at compile time that a field type can be stored.
    pub const fn assert_attr<T: crate::Attr>() {}
}
