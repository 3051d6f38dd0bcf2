//! Support for generated code: what the derives' expansions name as
//! `__private::…`. Not a public API; users never import from here.
//!
//! `codec` holds the item codec's per-field steps, `checks` what a decoded
//! item is checked against (its entity type, its stored key, its schema
//! version); this file the re-exports and the compile-time assertions.

mod checks;
mod codec;

pub use checks::*;
pub use codec::*;

pub use crate::clock::Timestamp;
pub use crate::clock::generated::{created_value, time_attr, updated_value};
pub use crate::decode::generated::types_condition;
pub use crate::entity::SchemaVersion;
pub use crate::entity::generated::markers::*;
pub use crate::entity::generated::{
    GsiAttrs, HeldField, KeyScalar, LsiAttrs, TableAttrs, TableOf, attributed_to,
    check_attribute_keys, claims, claims_key, contains, first_reserved, gsi_attributes, gsi_attrs,
    index_projection, index_projection_of, key_attribute_value, key_matches, key_type_eq,
    lsi_attrs, projects_all, same_attr, sorts_by_type, str_eq, table_attrs,
};
pub use crate::expr::AttrRange;
pub use crate::expr::SortCondition;
pub use crate::key::build::{
    ReadPart, ReadPartFallback, WritePart, WritePartFallback, checked_key, index_key, key_of,
    literal_key, primary_key,
};
pub use crate::key::{
    KeyReader, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, Unpadded, UnpaddedDecode, UnpaddedInt,
    Verbatim, VerbatimStr, check_len, escape_into, key_buffer, unescape, write_part,
};
pub use crate::serde_bridge::{serde_from_attr, serde_to_attr};
pub use crate::value::wrong_type;
pub use ::aws_sdk_dynamodb::types::AttributeValue;
pub use ::core::marker::PhantomData;
pub use ::core::{
    default::Default,
    option::Option::{self, None, Some},
    result::Result::{self, Err, Ok},
};
pub use ::futures_util::Stream;
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

/// Fails a compile-time check of the derive with `message`, at the
/// check's call (it tracks its caller): a function, not `panic!`, so
/// that the many checks expand no macro.
#[track_caller]
pub const fn fail(message: &'static str) -> ! {
    panic!("{}", message)
}

/// `false`, for fields (through serde) that never decode from an
/// absent attribute.
pub fn never() -> bool {
    false
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
/// Asserts at compile time that a `#[attr(verbatim)]` field is a string.
pub const fn assert_verbatim<T: crate::key::VerbatimStr>() {}
/// Asserts at compile time that a `#[attr(unpadded)]` field is an integer.
pub const fn assert_unpadded<T: crate::key::UnpaddedDecode>() {}
/// Asserts at compile time that a field type can be stored.
pub const fn assert_attr<T: crate::Attr>() {}

/// Whether `s` starts with `prefix`, in const context: the design checks'
/// comparison of key templates.
pub const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    crate::shape::starts_with(s, prefix)
}

/// The primary key of `item` when it is one of `E`'s (its key parses with
/// `E`'s templates and its entity type, if any, is `E`'s): what a partial
/// read of `E` (its keys, a projection) decodes.
pub fn own_key<E: crate::Entity>(
    item: &crate::Item,
    other: crate::OtherTypes,
) -> crate::Result<Option<crate::PrimaryKey>> {
    crate::decode::own_key::<E>(item, other)
}

/// Checks what an update's `SET` actions give the attributes of the
/// table's multi-attribute index keys.
pub fn check_attribute_key_actions<T: crate::Table>(
    entity: &'static str,
    actions: &[crate::request::UpdateAction],
) -> crate::Result<()> {
    crate::entity::check_attribute_key_actions::<T>(entity, actions)
}

/// [`KeyReader::finish`], then `values`: a generated key parser's result.
#[inline]
pub fn finish_with<T>(reader: KeyReader<'_>, values: T) -> Result<T, crate::error::Error> {
    reader.finish()?;
    Ok(values)
}
