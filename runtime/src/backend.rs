//! One handle type for every backend: `Db` over a [`SharedExecutor`]
//! (`Arc<dyn Executor>`), the default type parameter of `Db`. An
//! application and its tests choose the backend at run time and keep one
//! type, so one test body runs on the embedded backend and on DynamoDB
//! Local without generics:
//!
//! ```
//! use singletable::{Backend, Db, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Notes")]
//! pub struct Notes;
//!
//! #[derive(Entity, Debug, PartialEq)]
//! #[entity(table = Notes, name = "Note")]
//! #[pk("NOTE#<id>")]
//! #[sk("NOTE")]
//! pub struct Note {
//!     pub id: String,
//!     pub text: String,
//! }
//!
//! // One body, one type: `&Db` is `&Db<SharedExecutor>`.
//! async fn body(db: &Db) -> singletable::Result<()> {
//!     db.put(&Note { id: "n1".into(), text: "hi".into() }).await?;
//!     assert!(db.get::<Note>(Note::key("n1")?).await?.is_some());
//!     Ok(())
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // The choice is explicit: nothing falls back to memory by itself.
//! let db = Db::open::<Notes>(Backend::Embedded, "Notes").await?;
//! body(&db).await?;
//! // Table administration is the shared handle's too (the executor's `Admin`).
//! assert!(db.verify::<Notes>().await?.is_empty());
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! The dynamic dispatch costs one indirect call per request: executors
//! already return boxed futures (see `benches/embedded.rs`, group
//! `get_shared`).
//!
//! Here: [`Open`], what `Db::open` opens a handle on, and core's
//! backend vocabulary ([`HoldsTables`], [`SharedExecutor`]), re-exported.

pub use singletable_core::backend::*;

use singletable_core::entity::Table;
use singletable_core::error::Error;
use singletable_core::exec::BoxFuture;

/// A backend a `Db::open` can open a handle on: an executor for the
/// table, created as `T` declares it where the backend holds its tables
/// itself. What the facade's
/// `Backend` (the embedded backend, DynamoDB, DynamoDB Local) implements.
/// The runtime knows no backend of its own here: the facade, which sees
/// every backend its features enable, makes the choice.
///
/// ```
/// use singletable::backend::Open;
/// use singletable::{Backend, Db, Embedded, Error, Table};
/// use singletable::backend::{HoldsTables, SharedExecutor};
/// use singletable_core::exec::BoxFuture;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// /// Always the embedded backend, whatever the configuration says.
/// struct Memory;
/// impl Open for Memory {
///     fn open<T: Table>(self, table: String) -> BoxFuture<'static, Result<SharedExecutor, Error>> {
///         Box::pin(async move { Ok(std::sync::Arc::new(Embedded::with_table::<T>(&table)?) as SharedExecutor) })
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::open::<App>(Memory, "App").await?;
/// assert_eq!(db.table_name(), "App");
/// let same = Db::open::<App>(Backend::Embedded, "App").await?;
/// assert_eq!(same.table_name(), "App");
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub trait Open {
    /// An executor for table `table`, created as `T` declares it where the
    /// backend holds its tables itself.
    fn open<T: Table>(self, table: String) -> BoxFuture<'static, Result<SharedExecutor, Error>>;
}
