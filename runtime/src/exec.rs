//! Executors: core's [`Executor`] trait, its capacity meter and shared
//! handle (re-exported from `singletable-core`), and [`Counting`], the
//! wrapper that counts the requests an executor sends.
//!
//! ```
//! use singletable::{Counting, Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("ORDER#<n>")]
//! #[access(orders)]
//! pub struct Order { pub id: String, pub n: u32 }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?.map_executor(Counting::new);
//! for n in 0..5 {
//!     db.put(&Order { id: "ana".into(), n }).await?;
//! }
//! db.executor().reset();
//! assert_eq!(Order::orders("ana").all(&db).await?.len(), 5);
//! assert_eq!(db.executor().count(), 1); // one access pattern, one Query
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};

pub use singletable_core::exec::*;

use singletable_core::admin::{Admin, ExtraIndexes, TableUpdate};
use singletable_core::definition::TableDefinition;
use singletable_core::error::Error;
use singletable_core::reader::{Items, ReaderPage};
use singletable_core::request::{
    BatchGet, BatchGetOutput, BatchOp, BatchWrite, CountPage, DeleteItem, GetItem, Page, PutItem,
    QueryRequest, ScanRequest, ScoredItem, SearchVectors, TransactGet, TransactWrite, UpdateItem,
};
use singletable_core::value::Item;

/// Wraps an executor and counts the requests it sends: the way to show that
/// an access pattern costs exactly one request.
///
/// ```
/// use singletable::{Counting, Db, Embedded, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let embedded = Db::<Embedded>::in_memory::<App>("App")?;
/// let db = Db::with_executor(Counting::new(embedded.executor().clone()), "App");
/// db.put(&User { id: "ana".into() }).await?;
/// db.get::<User>(User::key("ana")?).await?;
/// assert_eq!(db.executor().count(), 2); // PutItem, GetItem
/// db.executor().reset();
/// assert_eq!(db.executor().count(), 0);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Default)]
pub struct Counting<E> {
    inner: E,
    count: AtomicUsize,
}

impl<E> Counting<E> {
    /// Wraps `inner`.
    pub fn new(inner: E) -> Self {
        Self {
            inner,
            count: AtomicUsize::new(0),
        }
    }

    /// Requests sent so far.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Sets the count back to zero.
    pub fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
    }

    fn tick(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
    }
}

impl<E: Executor> Executor for Counting<E> {
    fn capacity(&self) -> Option<&CapacityMeter> {
        self.inner.capacity()
    }
    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.tick();
        self.inner.get_item(req)
    }
    fn put_item(&self, req: PutItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.tick();
        self.inner.put_item(req)
    }
    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.tick();
        self.inner.delete_item(req)
    }
    fn query(&self, req: QueryRequest) -> BoxFuture<'_, Result<Page, Error>> {
        self.tick();
        self.inner.query(req)
    }
    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>> {
        self.tick();
        self.inner.scan(req)
    }
    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, Result<(), Error>> {
        self.tick();
        self.inner.transact_write(req)
    }
    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.tick();
        self.inner.update_item(req)
    }
    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, Result<Vec<BatchOp>, Error>> {
        self.tick();
        self.inner.batch_write(req)
    }
    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, Result<BatchGetOutput, Error>> {
        self.tick();
        self.inner.batch_get(req)
    }
    fn transact_get(&self, req: TransactGet) -> BoxFuture<'_, Result<Vec<Option<Item>>, Error>> {
        self.tick();
        self.inner.transact_get(req)
    }
    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, Result<CountPage, Error>> {
        self.tick();
        self.inner.query_count(req)
    }
    fn query_reader(&self, req: QueryRequest) -> BoxFuture<'_, Result<ReaderPage, Error>> {
        self.tick();
        self.inner.query_reader(req)
    }
    fn get_item_reader(&self, req: GetItem) -> BoxFuture<'_, Result<Items, Error>> {
        self.tick();
        self.inner.get_item_reader(req)
    }
    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, Result<Option<u64>, Error>> {
        self.tick();
        self.inner.estimated_item_count(table)
    }
    fn search_vectors(&self, req: SearchVectors) -> BoxFuture<'_, Result<Vec<ScoredItem>, Error>> {
        self.tick();
        self.inner.search_vectors(req)
    }
}

/// Each administration call counts as one request (the SDK executor's
/// `update_table` sends several: UpdateTable, then DescribeTable polls).
impl<E: Admin> Admin for Counting<E> {
    fn create_table<'a>(
        &'a self,
        table: &'a str,
        definition: &'a TableDefinition,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        self.tick();
        self.inner.create_table(table, definition)
    }
    fn describe_table<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<TableDefinition, Error>> {
        self.tick();
        self.inner.describe_table(table)
    }
    fn update_table<'a>(
        &'a self,
        table: &'a str,
        declared: &'a TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> BoxFuture<'a, Result<TableUpdate, Error>> {
        self.tick();
        self.inner.update_table(table, declared, extra, apply)
    }
    fn delete_table<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        self.tick();
        self.inner.delete_table(table)
    }
    fn stream_arn<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<Option<String>, Error>> {
        self.tick();
        self.inner.stream_arn(table)
    }
}
