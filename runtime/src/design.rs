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
    AccessShape, AttrIndexShape, EntityShape, IndexShape, KeySeg, KeyShape, template_matches,
};

pub use checks::{
    IndexCollision, index_collision, index_queries_leak, keys_overlap,
    partition_holds_declared_markers, partition_holds_markers, primary_keys_collide, scope_leaks,
    sharded_keys_overlap, table_queries_leak,
};
