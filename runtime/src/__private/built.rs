//! What generated code builds its queries, updates, field handles and
//! vector searches with: constructors of public types that users never
//! call themselves (the derive gives every one its arguments).

use crate::entity::{Entity, VectorIndex};
use crate::error::Error;
use crate::expr::SortCondition;
use crate::fields::{Check, Field, Fields, KeyField, PkField, ValueFor};
use crate::nested::DocField;
use crate::query::Query;
use crate::query::build::{AttrTarget, Target};
use crate::query::{KeyOf, OnGlobalIndex};
use crate::shard::ShardedQuery;
use crate::update::Update;
use crate::value::AttributeValue;
use crate::vector::{HashAttribute, InlineFilter, VectorSearch};

/// A query of the partition `pk` (or the error that building it gave).
#[inline]
pub fn query<T, I, P>(target: Target, pk: Result<String, Error>) -> Query<T, I, P> {
    Query::new(target, pk)
}

/// A query of a multi-attribute index's partition, given the values of its
/// partition attributes in key-schema order (or the error that building
/// them gave).
#[inline]
pub fn query_on_attributes<T, I, P>(
    target: AttrTarget,
    partition: Result<Vec<(&'static str, AttributeValue)>, Error>,
) -> Query<T, I, P> {
    Query::on_attributes(target, partition)
}

/// Adds equality on the next sort attribute of a multi-attribute key.
#[inline]
pub fn with_attr_eq<T, I, P>(
    query: Query<T, I, P>,
    attr: &'static str,
    value: Result<AttributeValue, Error>,
) -> Query<T, I, P> {
    query.with_attr_eq(attr, value)
}

/// A query whose sort-key condition generated code sets: the default scope
/// of a pattern or a collection's prefix.
pub trait WithSort: Sized {
    /// The same query with sort-key condition `sk` (or its error).
    fn with_sort(self, sk: Result<SortCondition, Error>) -> Self;
}

impl<T, I, P> WithSort for Query<T, I, P> {
    #[inline]
    fn with_sort(self, sk: Result<SortCondition, Error>) -> Self {
        Query::with_sort(self, sk)
    }
}

impl<T, P> WithSort for ShardedQuery<T, P> {
    #[inline]
    fn with_sort(self, sk: Result<SortCondition, Error>) -> Self {
        ShardedQuery::with_sort(self, sk)
    }
}

/// A query over `shards` write shards of `base`'s partition.
#[inline]
pub fn sharded<T, P>(base: Query<T, OnGlobalIndex, P>, shards: u16) -> ShardedQuery<T, P> {
    ShardedQuery::new(base, shards)
}

/// The update of an entity's typed key, with the key parts and key values
/// it was built from: one call in each generated `update`.
#[inline]
pub fn update_of_key<E: Entity, S, const P: usize, const V: usize>(
    key: Result<KeyOf<E>, Error>,
    parts: [(&'static str, Result<String, Error>); P],
    values: [(&'static str, Result<AttributeValue, Error>); V],
) -> Update<E, S> {
    Update::of_key(key, parts, values)
}

/// The handles of `E`'s fields.
#[inline]
pub const fn fields<E>() -> Fields<E> {
    Fields::new()
}

/// A handle on attribute `name` of field `field`.
#[inline]
pub const fn field<E, T>(name: &'static str, field: &'static str) -> Field<E, T> {
    Field::new(name, field)
}

/// A handle whose field declares validations: `check` runs them.
#[inline]
pub const fn checked_field<E, T>(
    name: &'static str,
    field: &'static str,
    check: Check<T>,
) -> Field<E, T> {
    Field::checked(name, field, check)
}

/// A handle on a field a secondary index's key is built from.
#[inline]
pub const fn key_field<E, T, S>(name: &'static str, field: &'static str) -> KeyField<E, T, S> {
    KeyField::new(name, field)
}

/// A key field's handle whose field declares validations.
#[inline]
pub const fn checked_key_field<E, T, S>(
    name: &'static str,
    field: &'static str,
    check: Check<T>,
) -> KeyField<E, T, S> {
    KeyField::checked(name, field, check)
}

/// A handle on a primary-key field (conditions only).
#[inline]
pub const fn pk_field<E, T>(name: &'static str, field: &'static str) -> PkField<E, T> {
    PkField::new(name, field)
}

/// A handle on a document's field.
#[inline]
pub const fn doc_field<D, T>(name: &'static str, field: &'static str) -> DocField<D, T> {
    DocField::new(name, field)
}

/// A document field's handle whose field declares validations.
#[inline]
pub const fn checked_doc_field<D, T>(
    name: &'static str,
    field: &'static str,
    check: Check<T>,
) -> DocField<D, T> {
    DocField::checked(name, field, check)
}

/// A vector index's `HASH` attribute, for a search's filters.
#[inline]
pub const fn hash_attribute<T, P>(attribute: &'static str) -> HashAttribute<T, P> {
    HashAttribute::new(attribute)
}

/// A vector index's `INLINE_FILTER` attribute, for a search's filters.
#[inline]
pub const fn inline_filter<T, P>(attribute: &'static str) -> InlineFilter<T, P> {
    InlineFilter::new(attribute)
}

/// A search on `index`, for `vector`, with `TopK` 10.
#[inline]
pub fn vector_search<T, P>(index: &VectorIndex, vector: &[f32]) -> VectorSearch<T, P> {
    VectorSearch::new(index, vector)
}

/// Adds `attribute = value` for a `HASH` attribute of the search.
#[inline]
pub fn search_hash<V, T, P>(
    search: VectorSearch<T, P>,
    attribute: &'static str,
    value: impl ValueFor<V>,
) -> VectorSearch<T, P> {
    search.hash(attribute, value)
}
