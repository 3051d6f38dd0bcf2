//! One handle type for every backend: [`Db`] over a [`SharedExecutor`]
//! (`Arc<dyn Executor>`), the default type parameter of [`Db`]. An
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
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! The dynamic dispatch costs one indirect call per request: executors
//! already return boxed futures (see `benches/embedded.rs`, group
//! `get_shared`).

use crate::entity::Table;
use crate::error::Error;
use crate::exec::{BoxFuture, Executor};

// The shared executor type is the executors' own (the default of `Db`).
pub use crate::exec::SharedExecutor;

/// A backend a [`Db::open`] can open a handle on: an executor for the
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
/// use singletable::exec::BoxFuture;
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

/// An executor that holds its tables itself, so that a handle can create
/// them: the embedded backend implements it, and [`Db`] gains
/// [`Db::in_memory`], [`Db::create_table_if_missing`] and
/// [`Db::delete_table`] over it (the SDK handle has its own, which send
/// CreateTable and DeleteTable).
///
/// ```
/// use singletable::backend::HoldsTables;
/// use singletable::{Db, Embedded, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// let embedded = Embedded::new();
/// assert!(embedded.create_table_if_missing::<App>("App")?);
/// assert!(!embedded.create_table_if_missing::<App>("App")?);
/// HoldsTables::delete_table(&embedded, "App")?;
/// let db: Db<Embedded> = Db::with_executor(embedded, "App");
/// assert!(!db.executor().has_table("App"));
/// # Ok::<(), singletable::Error>(())
/// ```
pub trait HoldsTables: Executor + Sized {
    /// A new, empty backend holding one table named `table`, laid out as
    /// `T` declares it.
    fn with_table<T: Table>(table: &str) -> Result<Self, Error>;
    /// Creates table `table` as `T` declares it unless a table of that name
    /// exists; whether it created it.
    fn create_table_if_missing<T: Table>(&self, table: &str) -> Result<bool, Error>;
    /// Deletes table `table`.
    fn delete_table(&self, table: &str) -> Result<(), Error>;
    /// Brings the global indexes of table `table` to what `T` declares
    /// (UpdateTable, one index per request as DynamoDB allows): adds the
    /// missing ones, each built from the items already stored, and deletes
    /// the extra ones when `extra` says so. With `apply` false, only says
    /// what it would do.
    fn update_table<T: Table>(
        &self,
        table: &str,
        extra: ExtraIndexes,
        apply: bool,
    ) -> Result<TableUpdate, Error>;
}

/// What [`Db::update_table`] does with global indexes the table has and
/// its declaration does not (another client's, or one the declaration
/// dropped).
///
/// ```
/// use singletable::backend::ExtraIndexes;
///
/// assert_ne!(ExtraIndexes::Keep, ExtraIndexes::Delete);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtraIndexes {
    /// Leave them (they are listed in [`TableUpdate::extra`]).
    Keep,
    /// Delete them (DeleteGlobalSecondaryIndex): their entries are gone.
    Delete,
}

/// The global-index changes of an UpdateTable bringing a table to its
/// declaration: what [`Db::update_table`] did, or what
/// [`Db::plan_table_update`] would do. Local indexes are fixed at
/// CreateTable; a difference there is drift, not a plan (see `verify`).
///
/// ```
/// use singletable::backend::TableUpdate;
///
/// let nothing = TableUpdate::default();
/// assert!(nothing.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableUpdate {
    /// Indexes created, in declaration order.
    pub created: Vec<String>,
    /// Indexes deleted.
    pub deleted: Vec<String>,
    /// Indexes the table has and the declaration does not, kept.
    pub extra: Vec<String>,
}

impl TableUpdate {
    /// The plan that brings a table whose global indexes are `existing`
    /// to what `T` declares: the declared indexes it lacks are created, in
    /// declaration order; the ones it has and `T` does not are kept or
    /// deleted as `extra` says. What both backends' `update_table` apply.
    ///
    /// ```
    /// use singletable::backend::{ExtraIndexes, TableUpdate};
    /// use singletable::Table;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", gsi1, gsi2)]
    /// pub struct App;
    ///
    /// let plan = TableUpdate::plan::<App>(["GSI2", "Legacy"], ExtraIndexes::Keep);
    /// assert_eq!(plan.created, ["GSI1"]);
    /// assert_eq!(plan.extra, ["Legacy"]);
    /// let plan = TableUpdate::plan::<App>(["GSI2", "Legacy"], ExtraIndexes::Delete);
    /// assert_eq!(plan.deleted, ["Legacy"]);
    /// ```
    pub fn plan<'a, T: Table>(
        existing: impl IntoIterator<Item = &'a str>,
        extra: ExtraIndexes,
    ) -> Self {
        let existing: Vec<&str> = existing.into_iter().collect();
        // Global and vector indexes: one namespace of index names.
        let declared: Vec<&str> = T::GLOBAL_INDEXES
            .iter()
            .map(|g| g.name)
            .chain(T::VECTOR_INDEXES.iter().map(|v| v.name))
            .collect();
        let mut plan = TableUpdate {
            created: declared
                .iter()
                .filter(|name| !existing.contains(name))
                .map(|name| (*name).to_owned())
                .collect(),
            ..TableUpdate::default()
        };
        for ix in existing {
            if !declared.contains(&ix) {
                match extra {
                    ExtraIndexes::Keep => plan.extra.push(ix.to_owned()),
                    ExtraIndexes::Delete => plan.deleted.push(ix.to_owned()),
                }
            }
        }
        plan
    }

    /// Whether nothing is (or was) created or deleted.
    ///
    /// ```
    /// use singletable::backend::TableUpdate;
    ///
    /// let kept = TableUpdate { extra: vec!["Legacy".into()], ..TableUpdate::default() };
    /// assert!(kept.is_empty()); // an index kept is no change
    /// ```
    pub fn is_empty(&self) -> bool {
        self.created.is_empty() && self.deleted.is_empty()
    }
}
