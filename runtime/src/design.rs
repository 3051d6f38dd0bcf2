//! The single-table design as data: the shapes the derives declare for
//! every entity, access pattern and index, and the compile-time checks
//! across the entities of one table. The document rendered from them (the
//! layout and access-pattern tables, design warnings) is tooling, in
//! `singletable-tools` (`singletable::design` re-exports both).
//!
//! ```
//! use singletable::{Entity, Table};
//! use singletable_runtime::design::primary_keys_collide;
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! assert_eq!(User::SHAPE.pk.template, "USER#<id>");
//! assert!(primary_keys_collide(&User::SHAPE, &User::SHAPE));
//! ```

mod checks;

// The shapes are data the derives declare; they sit below the traits.
pub use crate::shape::{
    AccessShape, AttrIndexShape, EntityShape, HeldItemNeed, IndexShape, KeySeg, KeyShape,
    template_matches,
};

pub use checks::{
    IndexCollision, index_collision, index_queries_leak, keys_overlap,
    partition_holds_declared_markers, partition_holds_markers, primary_keys_collide, scope_leaks,
    sharded_keys_overlap, table_queries_leak,
};

/// Product of known cardinalities; `None` when any is unknown. Used by
/// generated code.
#[doc(hidden)]
pub fn cardinality(parts: &[Option<u64>]) -> Option<u64> {
    parts
        .iter()
        .try_fold(1u64, |acc, p| p.map(|n| acc.saturating_mul(n)))
}

/// The cardinality of a key template without placeholders (one value):
/// `KeyShape::cardinality` of such keys in generated code.
#[doc(hidden)]
pub fn one_value() -> Option<u64> {
    Some(1)
}

/// Probe for a key part's cardinality without a second error for types that
/// are not key parts.
#[doc(hidden)]
pub struct Card<T: ?Sized>(pub core::marker::PhantomData<T>);

impl<T: crate::key::KeyPart + ?Sized> Card<T> {
    /// The cardinality the key part declares.
    pub fn get(&self) -> Option<u64> {
        T::CARDINALITY
    }
}

/// Fallback of [`Card`] for types that are not key parts.
#[doc(hidden)]
pub trait CardFallback {
    /// Unknown.
    fn get(&self) -> Option<u64> {
        None
    }
}

impl<T: ?Sized> CardFallback for Card<T> {}

/// The derive's probe for [`KeyPart::WIDTH`](crate::KeyPart::WIDTH) in a
/// constant: a type that is no key part (reported once, elsewhere) reads
/// as having no fixed width, through [`WidthFallback`].
#[doc(hidden)]
pub struct Width<T: ?Sized>(pub core::marker::PhantomData<T>);

impl<T: crate::key::KeyPart + ?Sized> Width<T> {
    /// The width the key part declares.
    pub const VALUE: Option<usize> = T::WIDTH;
}

/// Chosen only for a type that is not a key part.
#[doc(hidden)]
pub trait WidthFallback {
    /// Unknown.
    const VALUE: Option<usize> = None;
}

impl<T: ?Sized> WidthFallback for Width<T> {}
