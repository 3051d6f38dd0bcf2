//! Table administration, one trait for every executor: [`Admin`] creates,
//! describes, updates and deletes a table from its definition
//! ([`TableDefinition`]), as DynamoDB's CreateTable, DescribeTable,
//! UpdateTable and DeleteTable do. Every [`Executor`](crate::exec::Executor)
//! is an `Admin`, so the shared handle (`Db<SharedExecutor>`, an
//! `Arc<dyn Executor>`) administers its table like the SDK's and the
//! embedded backend's. The typed methods users call
//! (`Db::create_table_if_missing::<T>()`, `Db::verify::<T>()`, …) build
//! the definition from the declaration and call these.
//!
//! ```
//! use singletable::admin::Admin;
//! use singletable::definition::{Billing, TableDefinition};
//! use singletable::{Embedded, SharedExecutor, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1)]
//! pub struct App;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let exec: SharedExecutor = std::sync::Arc::new(Embedded::new());
//! let def = TableDefinition::of::<App>("App", Billing::OnDemand);
//! assert!(exec.create_table("App", &def).await?);
//! assert!(!exec.create_table("App", &def).await?); // it exists
//! let described = exec.describe_table("App").await?;
//! assert_eq!(described.global_secondary_indexes[0].index_name, "GSI1");
//! exec.delete_table("App").await?;
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use crate::definition::TableDefinition;
use crate::entity::Table;
use crate::error::Error;
use crate::future::BoxFuture;

/// Table administration as DynamoDB's control plane does it, in terms of
/// [`TableDefinition`]s, so that it works through `dyn`: every
/// [`Executor`](crate::exec::Executor) implements it (it is a supertrait).
/// The SDK executor sends CreateTable (and UpdateTimeToLive),
/// DescribeTable (and DescribeTimeToLive), UpdateTable and DeleteTable;
/// the embedded backend changes its tables at once. Each method's default
/// refuses ([`Refusal::Unsupported`](crate::Refusal::Unsupported)): an
/// executor of your own that wraps another delegates them (as the runtime's `Counting`
/// does), one that does not hold tables can leave them
/// (`impl Admin for MyExecutor {}`).
///
/// ```
/// use singletable::admin::Admin;
/// use singletable::backend::ExtraIndexes;
/// use singletable::definition::{compare, Billing, TableDefinition};
/// use singletable::{Embedded, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", stream = new_image)]
/// pub struct V1;
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1, stream = new_image)]
/// pub struct V2;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let embedded = Embedded::new();
/// let v1 = TableDefinition::of::<V1>("App", Billing::OnDemand);
/// // The trait's path: `Embedded` has inherent methods of these names.
/// Admin::create_table(&embedded, "App", &v1).await?;
/// assert!(compare(&v1, &embedded.describe_table("App").await?).is_empty());
/// assert!(embedded.stream_arn("App").await?.is_some());
///
/// let v2 = TableDefinition::of::<V2>("App", Billing::OnDemand);
/// let plan = Admin::update_table(&embedded, "App", &v2, ExtraIndexes::Keep, false).await?;
/// assert_eq!(plan.created, ["GSI1"]);
/// assert_eq!(Admin::update_table(&embedded, "App", &v2, ExtraIndexes::Keep, true).await?, plan);
/// assert!(compare(&v2, &embedded.describe_table("App").await?).is_empty());
/// Admin::delete_table(&embedded, "App").await?;
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub trait Admin: Send + Sync {
    /// CreateTable: table `table` as `definition` describes it (key schema,
    /// global and local indexes with their projections, vector indexes,
    /// billing, stream; then UpdateTimeToLive for its TTL attribute),
    /// unless a table of that name exists (DescribeTable first). Returns
    /// whether it created it. The table is named `table`, whatever
    /// `definition.table_name` says. A definition DynamoDB would refuse
    /// ([`TableDefinition::problem`]) is refused before anything is sent
    /// ([`Refusal::TableDefinition`](crate::Refusal::TableDefinition)).
    fn create_table<'a>(
        &'a self,
        table: &'a str,
        definition: &'a TableDefinition,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        let _ = definition;
        refuse("CreateTable", table)
    }

    /// DescribeTable (and DescribeTimeToLive): the table as the backend
    /// holds it, in the shape of a [`TableDefinition`], ready for
    /// the runtime's `definition::compare`. A missing table is the
    /// service's `ResourceNotFoundException`.
    fn describe_table<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<TableDefinition, Error>> {
        refuse("DescribeTable", table)
    }

    /// Brings the global and vector indexes of table `table` to what
    /// `declared` has: the missing ones are created (UpdateTable, one index
    /// per request as DynamoDB takes them, each built from the items
    /// already stored), the ones `declared` lacks are kept or deleted as
    /// `extra` says. With `apply` false, only the plan (one
    /// DescribeTable). Returns what it did, or would do
    /// ([`TableUpdate::between`]). The SDK executor waits after each
    /// change until the index is ACTIVE and backfilled (or gone); the
    /// embedded backend applies at once.
    fn update_table<'a>(
        &'a self,
        table: &'a str,
        declared: &'a TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> BoxFuture<'a, Result<TableUpdate, Error>> {
        let _ = (declared, extra, apply);
        refuse("UpdateTable", table)
    }

    /// DeleteTable: the table and its items are gone. A missing table is
    /// the service's `ResourceNotFoundException`.
    fn delete_table<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        refuse("DeleteTable", table)
    }

    /// The ARN of the table's current stream (DescribeTable's
    /// `LatestStreamArn`), `None` when the table has no stream.
    fn stream_arn<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<Option<String>, Error>> {
        refuse("DescribeTable", table)
    }
}

/// The default of an executor that does not administer tables: refused,
/// as [`Refusal::Unsupported`](crate::Refusal::Unsupported).
fn refuse<'a, T: Send + 'a>(
    operation: &'static str,
    table: &str,
) -> BoxFuture<'a, Result<T, Error>> {
    let _ = table;
    Box::pin(async move {
        Err(Error::Refused(crate::error::Refusal::Unsupported {
            operation,
        }))
    })
}

impl<A: Admin + ?Sized> Admin for std::sync::Arc<A> {
    fn create_table<'a>(
        &'a self,
        table: &'a str,
        definition: &'a TableDefinition,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        (**self).create_table(table, definition)
    }
    fn describe_table<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<TableDefinition, Error>> {
        (**self).describe_table(table)
    }
    fn update_table<'a>(
        &'a self,
        table: &'a str,
        declared: &'a TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> BoxFuture<'a, Result<TableUpdate, Error>> {
        (**self).update_table(table, declared, extra, apply)
    }
    fn delete_table<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        (**self).delete_table(table)
    }
    fn stream_arn<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<Option<String>, Error>> {
        (**self).stream_arn(table)
    }
}

/// What `Db::update_table` does with global indexes the table has and
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
/// declaration: what `Db::update_table` did, or what
/// `Db::plan_table_update` would do. Local indexes are fixed at
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
        Self::between(
            &TableDefinition::of::<T>(T::NAME, crate::definition::Billing::OnDemand),
            existing,
            extra,
        )
    }

    /// The plan that brings a table whose global and vector indexes are
    /// `existing` to definition `declared`: what [`TableUpdate::plan`] does
    /// for a declaration, for a definition (what [`Admin::update_table`]
    /// implementations apply).
    ///
    /// ```
    /// use singletable::backend::{ExtraIndexes, TableUpdate};
    /// use singletable::definition::{Billing, TableDefinition};
    /// use singletable::Table;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", gsi1, gsi2)]
    /// pub struct App;
    ///
    /// let declared = TableDefinition::of::<App>("App", Billing::OnDemand);
    /// let plan = TableUpdate::between(&declared, ["GSI1"], ExtraIndexes::Keep);
    /// assert_eq!(plan.created, ["GSI2"]);
    /// assert!(plan.extra.is_empty());
    /// ```
    pub fn between<'a>(
        declared: &TableDefinition,
        existing: impl IntoIterator<Item = &'a str>,
        extra: ExtraIndexes,
    ) -> Self {
        let existing: Vec<&str> = existing.into_iter().collect();
        // Global and vector indexes: one namespace of index names.
        let declared: Vec<&str> = declared
            .global_secondary_indexes
            .iter()
            .map(|g| g.index_name.as_str())
            .chain(
                declared
                    .vector_indexes
                    .iter()
                    .map(|v| v.index_name.as_str()),
            )
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
