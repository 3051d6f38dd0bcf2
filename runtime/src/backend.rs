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

use std::sync::Arc;

use crate::db::Db;
use crate::entity::Table;
use crate::error::Error;
use crate::exec::{BoxFuture, Executor};

// The shared executor type is the executors' own (the default of `Db`).
pub use crate::exec::SharedExecutor;

/// A backend a [`Db::open`] can open a handle on: what the facade's
/// `Backend` (the embedded backend, DynamoDB, DynamoDB Local) implements.
/// The runtime knows no backend of its own here: the facade, which sees
/// every backend its features enable, makes the choice.
///
/// ```
/// use singletable::backend::Open;
/// use singletable::{Backend, Db, Embedded, Error, Table};
/// use singletable::exec::BoxFuture;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// /// Always the embedded backend, whatever the configuration says.
/// struct Memory;
/// impl Open for Memory {
///     fn open<T: Table>(self, table: String) -> BoxFuture<'static, Result<Db, Error>> {
///         Box::pin(async move { Ok(Db::<Embedded>::in_memory::<T>(table)?.into_shared()) })
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
    /// A handle on table `table`, created as `T` declares it where the
    /// backend holds its tables itself.
    fn open<T: Table>(self, table: String)
    -> BoxFuture<'static, Result<Db<SharedExecutor>, Error>>;
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
        let mut plan = TableUpdate {
            created: T::GLOBAL_INDEXES
                .iter()
                .filter(|g| !existing.contains(&g.name))
                .map(|g| g.name.to_owned())
                .collect(),
            ..TableUpdate::default()
        };
        for ix in existing {
            if !T::GLOBAL_INDEXES.iter().any(|g| g.name == ix) {
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

impl<E: HoldsTables> Db<E> {
    /// A handle on a new, empty in-memory backend holding one table named
    /// `table`, laid out as `T` declares it. Fails only on a name DynamoDB
    /// would refuse (3 to 255 characters of `a-z A-Z 0-9 _ - .`). The
    /// backend's type is named once, on the handle or the call
    /// (`Db::<Embedded>::in_memory`).
    ///
    /// ```
    /// use singletable::{Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    ///
    /// let db: Db<Embedded> = Db::in_memory::<App>("App")?;
    /// assert!(db.executor().has_table("App"));
    /// assert!(Db::<Embedded>::in_memory::<App>("x").is_err()); // too short for DynamoDB
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn in_memory<T: Table>(table: impl Into<String>) -> Result<Self, Error> {
        let table = table.into();
        let exec = E::with_table::<T>(&table)?;
        Ok(Self::with_executor(exec, table))
    }

    /// Creates this handle's table as `T` declares it unless a table of that
    /// name exists; returns whether it created it (as the SDK handle's
    /// method of the same name does against DynamoDB).
    ///
    /// ```
    /// use singletable::{Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::with_executor(Embedded::new(), "App");
    /// assert!(db.create_table_if_missing::<App>().await?);
    /// assert!(!db.create_table_if_missing::<App>().await?); // already there
    /// db.delete_table().await?;
    /// assert!(!db.executor().has_table("App"));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn create_table_if_missing<T: Table>(&self) -> Result<bool, Error> {
        self.executor()
            .create_table_if_missing::<T>(self.table_name())
    }

    /// Deletes this handle's table (a `ResourceNotFoundException` when it
    /// does not exist, as DynamoDB answers).
    ///
    /// ```
    /// use singletable::{Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.delete_table().await?;
    /// let again = db.delete_table().await.unwrap_err();
    /// assert_eq!(again.code(), Some("ResourceNotFoundException"));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn delete_table(&self) -> Result<(), Error> {
        HoldsTables::delete_table(self.executor(), self.table_name())
    }

    /// Brings the table's global indexes to what `T` declares: creates the
    /// missing ones, each built from the items already stored (as DynamoDB
    /// backfills a new index), and deletes those `T` does not declare when
    /// `extra` is [`ExtraIndexes::Delete`]. Returns what it did. The SDK
    /// handle's method of the same name sends UpdateTable and waits for
    /// each index to be ACTIVE (or gone). A backfill then writes the keys
    /// the new index reads on items written before it was declared.
    ///
    /// ```
    /// use singletable::backend::{ExtraIndexes, TableUpdate};
    /// use singletable::{Db, Embedded, Entity, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct V1;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", gsi1)]
    /// pub struct V2;
    ///
    /// #[derive(Entity)]
    /// #[entity(table = V2)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// #[gsi1(pk = "EMAIL#<email>", sk = "USER")]
    /// #[access(by_email, index = gsi1)]
    /// pub struct User { pub id: String, pub email: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<V1>("App")?;
    /// db.put(&User { id: "ana".into(), email: "ana@example.com".into() }).await?;
    /// let plan = db.plan_table_update::<V2>(ExtraIndexes::Keep).await?;
    /// assert_eq!(plan.created, ["GSI1"]);
    /// assert_eq!(db.update_table::<V2>(ExtraIndexes::Keep).await?, plan);
    /// // Built from the items already stored:
    /// assert_eq!(User::by_email("ana@example.com").all(&db).await?.len(), 1);
    /// // Back to the first declaration, deleting the index:
    /// let back = db.update_table::<V1>(ExtraIndexes::Delete).await?;
    /// assert_eq!(back, TableUpdate { deleted: vec!["GSI1".into()], ..TableUpdate::default() });
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn update_table<T: Table>(&self, extra: ExtraIndexes) -> Result<TableUpdate, Error> {
        self.executor()
            .update_table::<T>(self.table_name(), extra, true)
    }

    /// What [`Db::update_table`] would do, doing nothing.
    ///
    /// ```
    /// use singletable::backend::ExtraIndexes;
    /// use singletable::{Db, Embedded, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", gsi1)]
    /// pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// assert!(db.plan_table_update::<App>(ExtraIndexes::Delete).await?.is_empty());
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn plan_table_update<T: Table>(
        &self,
        extra: ExtraIndexes,
    ) -> Result<TableUpdate, Error> {
        self.executor()
            .update_table::<T>(self.table_name(), extra, false)
    }
}

impl Db<SharedExecutor> {
    /// A handle on table `table` of `backend` (the facade's `Backend`: the
    /// embedded backend, DynamoDB or DynamoDB Local). The embedded backend
    /// starts empty with the table created as `T` declares it; DynamoDB
    /// tables are not created (see `Db::create_table_if_missing` on the SDK
    /// handle, or create them with the definition from `TableDefinition`).
    ///
    /// ```
    /// use singletable::{Backend, Db};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug, PartialEq)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db: Db = Db::open::<App>(Backend::Embedded, "App").await?;
    /// db.put(&User { id: "ana".into() }).await?;
    /// assert_eq!(db.get::<User>(User::key("ana")?).await?, Some(User { id: "ana".into() }));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Against DynamoDB Local or AWS (needs the service; not run here):
    ///
    /// ```no_run
    /// # use singletable::{Backend, Db, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # async fn run() -> singletable::Result<()> {
    /// let local = Db::open::<App>(Backend::DynamoDbLocal { endpoint: "http://127.0.0.1:8000".into() }, "App").await?;
    /// let aws = Db::open::<App>(Backend::DynamoDb { endpoint: None }, "App").await?;
    /// # Ok(()) }
    /// ```
    pub async fn open<T: Table>(
        backend: impl Open,
        table: impl Into<String>,
    ) -> Result<Self, Error> {
        backend.open::<T>(table.into()).await
    }
}

impl<E: Executor + 'static> Db<E> {
    /// The same handle (table, cursor secret, executor) behind the shared
    /// executor type, so that code written for `Db` runs on it.
    ///
    /// ```
    /// use singletable::{Counting, Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let counted: Db<Counting<Embedded>> = Db::<Embedded>::in_memory::<App>("App")?.map_executor(Counting::new);
    /// let db: Db = counted.into_shared();
    /// assert_eq!(db.table_name(), "App");
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn into_shared(self) -> Db<SharedExecutor> {
        self.map_executor(|e| Arc::new(e) as SharedExecutor)
    }
}
