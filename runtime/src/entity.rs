//! The traits `#[derive(Table)]` and `#[derive(Entity)]` implement and
//! the declarations they carry (core's, re-exported), and the typed
//! partitions the generated `partition(..)` builders return, which
//! multi-entity queries (`#[derive(Collection)]`) read, and the
//! [`AccessPattern`] trait of the generated query markers.
//!
//! ```
//! use singletable::entity::{Entity, OnTablePartition, Partition, Table};
//!
//! #[derive(singletable::Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(singletable::Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! let p: Partition<User, OnTablePartition> = User::partition("ana")?;
//! assert_eq!((App::PK, User::ENTITY_TYPE, p.value()), ("PK", "User", "USER#ana"));
//! # Ok::<(), singletable::Error>(())
//! ```

pub use singletable_core::entity::*;

mod partition;

pub use partition::{AttrPartition, OnGsi, OnTablePartition, Partition, PartitionKey, PartitionOf};

/// An access pattern, named by the marker type the derive generates for it:
/// `#[access(by_status, index = gsi1)]` on `Order` generates the query
/// function `Order::by_status` and the marker `OrderByStatusQuery`, which
/// implements this trait. Code that refers to a pattern by its marker (a
/// declared workload, `singletable::cost`) stops compiling when the
/// pattern is renamed or removed.
///
/// ```
/// use singletable::entity::AccessPattern;
/// use singletable::{Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ORDER#<id>")]
/// #[sk("ORDER")]
/// #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>")]
/// #[access(by_status, index = gsi1)]
/// pub struct Order { pub id: String, pub status: String }
///
/// assert_eq!(<OrderByStatusQuery as AccessPattern>::NAME, "by_status");
/// assert_eq!(<<OrderByStatusQuery as AccessPattern>::Entity as Entity>::ENTITY_TYPE, "Order");
/// ```
pub trait AccessPattern {
    /// The entity that declares the pattern.
    type Entity: singletable_core::entity::Entity;
    /// The pattern's name, as declared (`by_status`).
    const NAME: &'static str;
}
