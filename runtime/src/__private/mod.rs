//! Support for generated code: what the derives' expansions name as
//! `__private::…`. Not a public API; users never import from here.
//!
//! The core's support (the item codec's per-field steps, the checks a
//! decoded item goes through, the key codec's parts) and, beside it, what
//! the typed API adds: the design's checks, field handles, queries,
//! sharding, TTL, unique values, updates and vector probes.

pub use singletable_core::__private::*;

mod built;
mod probes;
pub use built::*;
pub use probes::*;

pub use crate::{clock, entity, reader};

/// The request spans, for the benchmark of their cost.
pub mod trace {
    pub use crate::trace::spans::{Request, span, traced};
}

/// The update typestate's markers and the bounds of the update actions:
/// what the derive implements for each entity and each field handle.
pub mod update {
    pub use crate::update::paths::{Addable, NonKeyPath, Removable, SetType, Settable};
    pub use crate::update::state::{Dynamic, Given, Known, Mark, Ready, SetNow, Slot, Unset};
}

/// The bounds that say which paths have `entry`, `at` and `field`.
pub mod nested {
    pub use crate::nested::holds::{HoldsDocument, ListType, MapType};
}

/// The sort-key traits the derive implements for each pattern's marker.
pub mod sort {
    pub use crate::sort::marker::{Same, SortKey, SortPrefix};
}

pub use crate::query::consistent::ConsistentRead;

/// The collections' traits and what generated collections call.
pub mod collection {
    pub use crate::collection::generated::*;
    pub use crate::collection::*;
}
pub use singletable_core::vector::check_vector;

pub use crate::design::{
    AccessShape, AttrIndexShape, EntityShape, IndexCollision, IndexShape, KeySeg, KeyShape,
    index_collision, partition_holds_declared_markers, partition_holds_markers,
    primary_keys_collide, table_queries_leak,
};
pub use crate::fields::generated::HasFields;
pub use crate::query::build::{AttrTarget, Target};
pub use crate::query::projected::unknown_type;
pub use crate::reader::entity_type_of;
pub use crate::shape::{IndexKeys, KeyTemplate, Seg, When};
pub use crate::shard::hash::{shard_of, with_shard};
pub use crate::sort::value::SortValue;
pub use crate::ttl::EpochSeconds;

/// Reads a TTL attribute (`N` epoch seconds; absent or `NULL` for none).
pub fn ttl_from_attr<T: EpochSeconds>(
    value: Option<AttributeValue>,
) -> Result<T, crate::error::DecodeError> {
    match value {
        None | Some(AttributeValue::Null(_)) => T::from_epoch(None),
        Some(AttributeValue::N(n)) => {
            let secs = n.parse::<i64>().map_err(|_| {
                crate::error::DecodeError::new(crate::error::DecodeErrorKind::InvalidNumber {
                    value: n.clone(),
                    ty: "epoch seconds",
                })
            })?;
            T::from_epoch(Some(secs))
        }
        Some(other) => Err(crate::value::wrong_type("N (epoch seconds)", &other)),
    }
}

/// Whether a TTL field of type `T` decodes from an absent attribute.
pub fn ttl_absent_ok<T: EpochSeconds>() -> bool {
    ttl_from_attr::<T>(None).is_ok()
}

/// The partition `pk` of entity `E` on the table or index `P`: what a
/// generated partition builder returns.
pub fn partition<E, P>(pk: String) -> crate::entity::Partition<E, P> {
    crate::entity::Partition::new(pk)
}

/// The partition of a multi-attribute index `N` of entity `E`, from its
/// attribute values: what a generated partition builder returns.
pub fn attr_partition<E, const N: u8>(
    values: Vec<(&'static str, AttributeValue)>,
) -> crate::entity::AttrPartition<E, N> {
    crate::entity::AttrPartition::new(values)
}
