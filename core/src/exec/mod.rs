//! Executors turn request values into calls to a DynamoDB: the
//! [`Executor`] trait (one method per operation, its requests as data),
//! the meter of the capacity they consume, and what they share (the
//! throttling codes, the span fields a response fills).
//!
//! `SdkExecutor` calls the real service (or DynamoDB Local) through
//! `aws-sdk-dynamodb`; the embedded backend runs in process. Other
//! executors (a wrapper that counts requests, the runtime's `Counting`)
//! implement the same trait without touching generated code.
//!
//! ```
//! use singletable_core::exec::{Executor, SharedExecutor};
//! use singletable::{Db, Embedded, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! let db = Db::<Embedded>::in_memory::<App>("App")?.into_shared();
//! let shared: &SharedExecutor = db.executor();
//! assert_eq!(shared.capacity().map(|m| m.total()), Some(0.0));
//! # Ok::<(), singletable::Error>(())
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::admin::Admin;
use crate::error::Error;
use crate::reader::{Items, ReaderPage};
use crate::request::{
    BatchGet, BatchGetOutput, BatchOp, BatchWrite, CountPage, DeleteItem, GetItem, Page, PutItem,
    QueryRequest, ScanRequest, TransactGet, TransactWrite, UpdateItem,
};
use crate::value::Item;

pub use crate::future::BoxFuture;

/// Any executor, shared: what a `Db` holds when the backend is chosen
/// at run time.
///
/// ```
/// use singletable::{Db, Embedded, SharedExecutor};
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
/// let shared: Db<SharedExecutor> = Db::<Embedded>::in_memory::<App>("App")?.into_shared();
/// let also: Db = shared.clone(); // `Db` is `Db<SharedExecutor>`
/// assert_eq!(also.table_name(), "App");
/// # Ok::<(), singletable::Error>(())
/// ```
pub type SharedExecutor = Arc<dyn Executor>;

/// Adds up the capacity units requests consumed, as DynamoDB reports them
/// (`ConsumedCapacity.CapacityUnits` of each response; the SDK executor
/// asks for `ReturnConsumedCapacity=TOTAL`), and hands each addition to
/// a listener if one is set (the typed handle's cost recorder,
/// `Db::record_costs`).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use singletable_core::exec::CapacityMeter;
///
/// let meter = CapacityMeter::default();
/// let heard = Arc::new(Mutex::new(Vec::new()));
/// let h = heard.clone();
/// meter.listen(move |units| h.lock().unwrap().push(units));
/// meter.add(0.5); // an eventually consistent read of up to 4 KB
/// meter.add(1.0);
/// assert_eq!(meter.total(), 1.5);
/// assert_eq!(meter.take(), 1.5);
/// assert_eq!(meter.total(), 0.0);
/// assert_eq!(*heard.lock().unwrap(), [0.5, 1.0]);
/// ```
#[derive(Default)]
pub struct CapacityMeter {
    // Thousandths of a unit: DynamoDB reports halves for eventual reads.
    milli: AtomicU64,
    // Set once a listener is: until then `add` reads no lock.
    listening: AtomicBool,
    listener: Mutex<Option<Listener>>,
}

type Listener = Arc<dyn Fn(f64) + Send + Sync>;

impl CapacityMeter {
    /// Adds `units`.
    pub fn add(&self, units: f64) {
        let milli = (units * 1000.0).round();
        if milli.is_finite() && milli >= 0.0 {
            self.milli.fetch_add(milli as u64, Ordering::SeqCst);
            if self.listening.load(Ordering::Relaxed) {
                let listener = self
                    .listener
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                if let Some(listener) = listener {
                    listener(units);
                }
            }
        }
    }

    /// Units consumed since the last reset.
    pub fn total(&self) -> f64 {
        self.milli.load(Ordering::SeqCst) as f64 / 1000.0
    }

    /// Returns the total and starts again from zero.
    pub fn take(&self) -> f64 {
        self.milli.swap(0, Ordering::SeqCst) as f64 / 1000.0
    }

    /// Calls `listener` with every addition from now on (in place of any
    /// listener set before).
    pub fn listen(&self, listener: impl Fn(f64) + Send + Sync + 'static) {
        *self.listener.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(listener));
        self.listening.store(true, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for CapacityMeter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CapacityMeter")
            .field("total", &self.total())
            .field("listening", &self.listening.load(Ordering::Relaxed))
            .finish()
    }
}

/// Executes singletable's requests against some DynamoDB: one method per
/// DynamoDB operation, taking the request as data
/// ([`crate::request`]). `Db` builds the requests and calls
/// these; an executor of your own (a wrapper that logs, injects failures
/// or counts, like the runtime's `Counting`) sees every request. Table administration
/// is the supertrait's, [`Admin`]: an executor implements both (an
/// `impl Admin for MyExecutor {}` refuses it).
///
/// ```
/// use singletable_core::exec::Executor;
/// use singletable_core::request::GetItem;
/// use singletable::{Db, Embedded, Entity, Table};
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
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into() }).await?;
/// // The GetItem that `db.get` sends, sent by hand:
/// let req = GetItem { table: "App".into(), key: User::key("ana")?.key().to_item::<App>(), consistent: false };
/// let item = db.executor().get_item(req).await?.unwrap();
/// assert_eq!(item["entityType"].as_s().unwrap(), "User");
/// assert!(db.executor().capacity().is_some());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub trait Executor: Admin + Send + Sync {
    /// The meter of consumed capacity, for executors that report it.
    fn capacity(&self) -> Option<&CapacityMeter> {
        None
    }

    /// GetItem; `None` when no item has the key.
    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>>;
    /// PutItem; the replaced item when `return_old` was set.
    fn put_item(&self, req: PutItem) -> BoxFuture<'_, Result<Option<Item>, Error>>;
    /// DeleteItem; the deleted item when `return_old` was set.
    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, Result<Option<Item>, Error>>;
    /// One Query page.
    fn query(&self, req: QueryRequest) -> BoxFuture<'_, Result<Page, Error>>;
    /// One Scan page.
    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>>;
    /// TransactWriteItems.
    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, Result<(), Error>>;
    /// UpdateItem; the returned attributes asked for by `return_values`.
    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, Result<Option<Item>, Error>>;
    /// One BatchWriteItem request; returns the unprocessed writes.
    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, Result<Vec<BatchOp>, Error>>;
    /// One BatchGetItem request.
    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, Result<BatchGetOutput, Error>>;
    /// TransactGetItems; one entry per get, in order.
    fn transact_get(&self, req: TransactGet) -> BoxFuture<'_, Result<Vec<Option<Item>>, Error>>;

    /// One Query page, its items handed to decoders (see [`Items`]) so that they
    /// can read them in place (see [`crate::reader`]). The default reads
    /// [`Executor::query`]'s items; an executor that stores items in another
    /// form can hand them out without building maps.
    fn query_reader(&self, req: QueryRequest) -> BoxFuture<'_, Result<ReaderPage, Error>> {
        Box::pin(async move { self.query(req).await.map(ReaderPage::from) })
    }

    /// One Query page with `Select=COUNT`: how many items matched (after
    /// the filter) and where the next page starts; no item is returned.
    /// The default runs [`Executor::query`] and counts its items.
    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, Result<CountPage, Error>> {
        Box::pin(async move {
            let page = self.query(req).await?;
            Ok(CountPage {
                count: page.items.len(),
                scanned: None,
                last_key: page.last_key,
            })
        })
    }

    /// How many items the table holds, as far as the executor can tell
    /// cheaply: DescribeTable's `ItemCount` for the SDK executor (which
    /// DynamoDB refreshes about every six hours), the exact count for the
    /// embedded backend. Progress reports estimate the time left with it;
    /// the default knows nothing.
    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, Result<Option<u64>, Error>> {
        let _ = table;
        Box::pin(async { Ok(None) })
    }

    /// SearchVectors: the `top_k` items most similar to the query vector,
    /// most similar first, with their scores. The default refuses: an
    /// executor of your own implements it to search.
    fn search_vectors(
        &self,
        req: crate::request::SearchVectors,
    ) -> BoxFuture<'_, Result<Vec<crate::request::ScoredItem>, Error>> {
        let _ = req;
        Box::pin(async {
            Err(Error::Refused(crate::error::Refusal::Unsupported {
                operation: "SearchVectors",
            }))
        })
    }

    /// GetItem, the item (if any) for the decoders. The default
    /// reads [`Executor::get_item`]'s item.
    fn get_item_reader(&self, req: GetItem) -> BoxFuture<'_, Result<Items, Error>> {
        Box::pin(async move {
            let item = self.get_item(req).await?;
            Ok(Items::from(item.into_iter().collect::<Vec<_>>()))
        })
    }
}

impl<E: Executor + ?Sized> Executor for Arc<E> {
    fn capacity(&self) -> Option<&CapacityMeter> {
        (**self).capacity()
    }
    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        (**self).get_item(req)
    }
    fn put_item(&self, req: PutItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        (**self).put_item(req)
    }
    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        (**self).delete_item(req)
    }
    fn query(&self, req: QueryRequest) -> BoxFuture<'_, Result<Page, Error>> {
        (**self).query(req)
    }
    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>> {
        (**self).scan(req)
    }
    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, Result<(), Error>> {
        (**self).transact_write(req)
    }
    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        (**self).update_item(req)
    }
    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, Result<Vec<BatchOp>, Error>> {
        (**self).batch_write(req)
    }
    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, Result<BatchGetOutput, Error>> {
        (**self).batch_get(req)
    }
    fn transact_get(&self, req: TransactGet) -> BoxFuture<'_, Result<Vec<Option<Item>>, Error>> {
        (**self).transact_get(req)
    }
    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, Result<CountPage, Error>> {
        (**self).query_count(req)
    }
    fn query_reader(&self, req: QueryRequest) -> BoxFuture<'_, Result<ReaderPage, Error>> {
        (**self).query_reader(req)
    }
    fn get_item_reader(&self, req: GetItem) -> BoxFuture<'_, Result<Items, Error>> {
        (**self).get_item_reader(req)
    }
    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, Result<Option<u64>, Error>> {
        (**self).estimated_item_count(table)
    }
    fn search_vectors(
        &self,
        req: crate::request::SearchVectors,
    ) -> BoxFuture<'_, Result<Vec<crate::request::ScoredItem>, Error>> {
        (**self).search_vectors(req)
    }
}

/// Records what a response reports on the current request span: the items
/// it scanned and the capacity it consumed. Executors call it inside the
/// span the typed handle (`singletable::Db`) opens for the request (the
/// AWS driver's does for every response); outside any span it does
/// nothing.
///
/// ```
/// // No span is entered here: recording is a no-op, never a panic.
/// singletable_core::exec::record_response(Some(3), Some(0.5));
/// ```
pub fn record_response(scanned: Option<i64>, consumed: Option<f64>) {
    let span = tracing::Span::current();
    if let Some(s) = scanned {
        span.record("aws.dynamodb.scanned_count", s);
    }
    if let Some(c) = consumed {
        span.record("aws.dynamodb.consumed_capacity", c);
    }
}

/// The error codes with which DynamoDB throttles a request: what
/// [`Error::Throttled`](crate::error::Error::Throttled) carries, which an
/// executor maps its throttling answers to.
///
/// ```
/// assert!(singletable_core::exec::THROTTLING_CODES.contains(&"ThrottlingException"));
/// ```
pub const THROTTLING_CODES: &[&str] = &[
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
];
