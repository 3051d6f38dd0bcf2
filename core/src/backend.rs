//! What a backend that holds its tables itself offers
//! ([`HoldsTables`]: the embedded backend), and the handle every backend
//! is shared as ([`SharedExecutor`]). Choosing a backend at run time
//! (`Db::open`) is the runtime's.
//!
//! ```
//! use singletable_core::backend::{HoldsTables, SharedExecutor};
//! use singletable::{Embedded, Table};
//! # #[derive(Table)]
//! # #[table(name = "App")]
//! # pub struct App;
//!
//! let shared: SharedExecutor = std::sync::Arc::new(Embedded::with_table::<App>("App")?);
//! assert!(shared.capacity().is_some());
//! # Ok::<(), singletable::Error>(())
//! ```

use crate::entity::Table;
use crate::error::Error;
use crate::exec::Executor;

// The shared executor type is the executors' own (the default of `Db`).
pub use crate::exec::SharedExecutor;

/// An executor that holds its tables itself, so that a handle can start
/// with one: the embedded backend implements it, and `Db` gains
/// `Db::in_memory` over it. Table administration (CreateTable,
/// DescribeTable, UpdateTable, DeleteTable) is every executor's, through
/// [`Admin`](crate::admin::Admin).
///
/// ```
/// use singletable::backend::HoldsTables;
/// use singletable::{Db, Embedded, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// let embedded = Embedded::with_table::<App>("App")?;
/// assert!(embedded.has_table("App"));
/// let db: Db<Embedded> = Db::in_memory::<App>("App")?; // the same, as a handle
/// assert_eq!(db.table_name(), "App");
/// # Ok::<(), singletable::Error>(())
/// ```
pub trait HoldsTables: Executor + Sized {
    /// A new, empty backend holding one table named `table`, laid out as
    /// `T` declares it (its definition, [`TableDefinition::of`]), TTL
    /// included.
    ///
    /// [`TableDefinition::of`]: crate::definition::TableDefinition::of
    fn with_table<T: Table>(table: &str) -> Result<Self, Error>;
}

// Where they were: the admin vocabulary is the admin module's.
pub use crate::admin::{ExtraIndexes, TableUpdate};
