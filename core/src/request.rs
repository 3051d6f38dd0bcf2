//! Operations as values: each DynamoDB request singletable sends is built
//! here as data first, then handed to an [`Executor`](crate::exec::Executor),
//! which turns it into SDK calls (or, in tests, counts or alters it).
//!
//! Applications use the typed operations of `Db`, the
//! generated queries and updates; these values are what they send, and
//! what a custom executor receives. Sending one by hand:
//!
//! ```
//! use singletable_core::exec::Executor;
//! use singletable_core::request::PutItem;
//! use singletable::{Condition, Db, Embedded, Entity, Error, Table};
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
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?;
//! let put = PutItem {
//!     table: "App".into(),
//!     item: User { id: "ana".into() }.to_item()?,
//!     condition: Some(Condition::not_exists(App::PK)),
//!     return_old: false,
//!     return_on_condition_failure: false,
//! };
//! db.executor().put_item(put.clone()).await?;
//! assert!(matches!(db.executor().put_item(put).await, Err(Error::ConditionFailed { .. })));
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use crate::expr::{Condition, KeyCondition, Path, PathRef, Rendered};
use crate::value::Item;

mod update;
mod vector;

pub use update::{ActionKind, SetOperand, SetValue, UpdateAction, UpdateItem};
pub use vector::{MAX_TOP_K, ScoredItem, SearchVectors};

/// GetItem: one item by its full primary key. One read unit per 4 KB
/// strongly consistent, half that eventually consistent.
///
/// ```
/// use singletable_core::{exec::Executor, request::GetItem};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// let get = GetItem { table: "App".into(), key: User::key("ana")?.key().to_item::<App>(), consistent: true };
/// let item = db.executor().get_item(get).await?.expect("stored");
/// assert_eq!(User::from_item(item)?, User { id: "ana".into(), visits: 1 });
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GetItem {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// Strongly consistent read (costs twice an eventually consistent one).
    pub consistent: bool,
}

/// PutItem: create or replace one item (the whole item; a write unit per
/// KB). See the [module example](self).
///
/// ```
/// use singletable_core::{exec::Executor, request::PutItem};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let put = PutItem {
///     table: "App".into(),
///     item: User { id: "ana".into(), visits: 1 }.to_item()?,
///     condition: None,
///     return_old: true,
///     return_on_condition_failure: false,
/// };
/// assert_eq!(db.executor().put_item(put.clone()).await?, None); // nothing replaced
/// assert!(db.executor().put_item(put).await?.is_some());        // ReturnValues=ALL_OLD
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PutItem {
    /// Table name.
    pub table: String,
    /// The whole item, key attributes included.
    pub item: Item,
    /// Written only if this holds.
    pub condition: Option<Condition>,
    /// Return the replaced item (`ReturnValues=ALL_OLD`).
    pub return_old: bool,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// DeleteItem: delete one item by key.
///
/// ```
/// use singletable::Condition;
/// use singletable_core::{exec::Executor, request::DeleteItem};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// let delete = DeleteItem {
///     table: "App".into(),
///     key: User::key("ana")?.key().to_item::<App>(),
///     condition: Some(Condition::exists(App::PK)),
///     return_old: true,
///     return_on_condition_failure: false,
/// };
/// let old = db.executor().delete_item(delete).await?.unwrap();
/// assert_eq!(old["visits"].as_n().unwrap(), "1");
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteItem {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// Deleted only if this holds.
    pub condition: Option<Condition>,
    /// Return the deleted item (`ReturnValues=ALL_OLD`).
    pub return_old: bool,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// ConditionCheck inside a transaction: a condition on an item that is not
/// written.
///
/// ```
/// use singletable::Condition;
/// use singletable_core::exec::Executor;
/// use singletable_core::request::{ConditionCheck, PutItem, TransactWrite, TransactWriteOp};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let check = ConditionCheck {
///     table: "App".into(),
///     key: User::key("admin")?.key().to_item::<App>(),
///     condition: Condition::exists(App::PK),
///     return_on_condition_failure: false,
/// };
/// let put = PutItem {
///     table: "App".into(),
///     item: User { id: "ana".into(), visits: 0 }.to_item()?,
///     condition: None,
///     return_old: false,
///     return_on_condition_failure: false,
/// };
/// let tx = TransactWrite {
///     ops: vec![TransactWriteOp::ConditionCheck(check), TransactWriteOp::Put(put)],
///     ..Default::default()
/// };
/// // No admin: the whole transaction is cancelled, nothing is written.
/// assert!(db.executor().transact_write(tx).await.is_err());
/// assert!(db.get::<User>(User::key("ana")?).await?.is_none());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionCheck {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// The condition that must hold.
    pub condition: Condition,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// Query: items of one partition, optionally narrowed by a sort-key condition.
/// Reads at most 1 MB per page, before the filter; read units are the
/// page's item sizes summed and rounded up to 4 KB.
///
/// ```
/// use singletable_core::expr::{KeyCondition, SortCondition};
/// use singletable_core::{exec::Executor, request::QueryRequest};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// let query = QueryRequest {
///     table: "App".into(),
///     index: None,
///     key: KeyCondition {
///         pk_attr: "PK".into(),
///         pk: User::pk("ana")?,
///         sk: Some(("SK".into(), SortCondition::BeginsWith("PROF".into()))),
///         attrs: None,
///     },
///     filter: None,
///     limit: Some(10),
///     forward: true,
///     consistent: false,
///     projection: Some(vec!["visits".into()]),
///     start: None,
/// };
/// let page = db.executor().query(query).await?;
/// assert_eq!(page.items.len(), 1);
/// assert_eq!(page.items[0].len(), 1); // only the projected attribute
/// assert!(page.last_key.is_none());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRequest {
    /// Table name.
    pub table: String,
    /// Index name, `None` for the table.
    pub index: Option<String>,
    /// Partition and sort key condition.
    pub key: KeyCondition,
    /// Filter applied after reading; it does not reduce consumed capacity.
    pub filter: Option<Condition>,
    /// Maximum number of items evaluated (before the filter) in this page.
    pub limit: Option<i32>,
    /// Ascending sort-key order when true.
    pub forward: bool,
    /// Strongly consistent read (tables and local indexes only).
    pub consistent: bool,
    /// Attributes (or document paths below them) to return; `None`
    /// returns all projected attributes.
    pub projection: Option<Vec<Path>>,
    /// Continue after this key (`ExclusiveStartKey`).
    pub start: Option<Item>,
}

/// Scan: reads every item of the table or index, page by page. Costly: it
/// consumes capacity for every item read, whatever the filter keeps.
/// `Db::scan_all` sends it page by page:
///
/// ```
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// db.put(&User { id: "bo".into(), visits: 2 }).await?;
/// // Scan requests until LastEvaluatedKey is absent; every item is read.
/// assert_eq!(db.scan_all::<User>().await?.len(), 2);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ScanRequest {
    /// Table name.
    pub table: String,
    /// Index name, `None` for the table.
    pub index: Option<String>,
    /// Filter applied after reading.
    pub filter: Option<Condition>,
    /// Maximum number of items evaluated in this page.
    pub limit: Option<i32>,
    /// Strongly consistent read (tables and local indexes only).
    pub consistent: bool,
    /// Continue after this key.
    pub start: Option<Item>,
    /// Read one segment of a parallel scan, `None` for the whole table.
    pub segment: Option<ScanSegment>,
    /// Returns only these attributes (`ProjectionExpression`); `None` for
    /// what the table or index holds.
    pub projection: Option<Vec<Path>>,
}

/// One segment of a parallel Scan (`Segment`, `TotalSegments`): DynamoDB
/// splits the items by the hash of their partition key into
/// `total_segments` disjoint parts, which separate workers read at once.
///
/// ```
/// use singletable_core::request::ScanSegment;
///
/// // Four workers, each reading one segment of the table.
/// let segments: Vec<ScanSegment> = (0..4).map(|segment| ScanSegment { segment, total_segments: 4 }).collect();
/// assert_eq!(segments[3].segment, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScanSegment {
    /// This segment, from 0.
    pub segment: u32,
    /// How many segments the scan is split into (1 to 1,000,000).
    pub total_segments: u32,
}

/// One write inside a TransactWriteItems request. See [`ConditionCheck`]
/// for an example.
///
/// ```
/// use singletable_core::request::{TransactWrite, TransactWriteOp};
///
/// let tx = TransactWrite::default();
/// assert!(tx.ops.iter().all(|op| matches!(op, TransactWriteOp::Put(_))));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum TransactWriteOp {
    /// A put, with an optional condition.
    Put(PutItem),
    /// A delete, with an optional condition.
    Delete(DeleteItem),
    /// A condition on an item that is not written.
    ConditionCheck(ConditionCheck),
    /// An update, with an optional condition.
    Update(UpdateItem),
}

/// TransactWriteItems: up to 100 writes that all succeed or all fail; each
/// costs twice a plain write. `Transaction`
/// builds it from typed operations.
///
/// ```
/// use singletable_core::{exec::Executor, request::{PutItem, TransactWrite, TransactWriteOp}};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let put = |id: &str| -> singletable::Result<TransactWriteOp> {
///     Ok(TransactWriteOp::Put(PutItem {
///         table: "App".into(),
///         item: User { id: id.into(), visits: 0 }.to_item()?,
///         condition: None,
///         return_old: false,
///         return_on_condition_failure: false,
///     }))
/// };
/// let tx = TransactWrite { ops: vec![put("ana")?, put("bo")?], token: Some("signup-42".into()) };
/// db.executor().transact_write(tx).await?;
/// assert_eq!(db.scan_all::<User>().await?.len(), 2);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransactWrite {
    /// The operations, in order; cancellation reasons refer to these positions.
    pub ops: Vec<TransactWriteOp>,
    /// Idempotency token: a retry with the same token within 10 minutes is
    /// not applied twice.
    pub token: Option<String>,
}

/// A result page of a Query or Scan.
///
/// ```
/// use singletable_core::request::Page;
///
/// let last = Page::default();
/// assert!(last.items.is_empty() && last.last_key.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Page {
    /// Items of the page, in order.
    pub items: Vec<Item>,
    /// Where the next page starts; `None` on the last page.
    pub last_key: Option<Item>,
    /// Items evaluated before the filter (`ScannedCount`), when the
    /// executor reports it.
    pub scanned: Option<usize>,
}

/// One page of a Query with `Select=COUNT`: the same read capacity as
/// reading the items, none transferred.
///
/// ```
/// use singletable_core::expr::KeyCondition;
/// use singletable_core::{exec::Executor, request::QueryRequest};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// let query = QueryRequest {
///     table: "App".into(),
///     index: None,
///     key: KeyCondition { pk_attr: "PK".into(), pk: User::pk("ana")?, sk: None, attrs: None },
///     filter: None,
///     limit: None,
///     forward: true,
///     consistent: false,
///     projection: None,
///     start: None,
/// };
/// let counted = db.executor().query_count(query).await?;
/// assert_eq!(counted.count, 1);
/// assert!(counted.last_key.is_none());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CountPage {
    /// Items of the page that matched (after the filter).
    pub count: usize,
    /// Items evaluated before the filter, when the executor reports it.
    pub scanned: Option<usize>,
    /// Where the next page starts; `None` on the last page.
    pub last_key: Option<Item>,
}

/// What an UpdateItem or PutItem returns (`ReturnValues`).
///
/// ```
/// use singletable::{Returned, ReturnValues};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// let f = User::fields();
/// let returned = User::update("ana").set(f.visits, 2).execute_returning(&db, ReturnValues::AllOld).await?;
/// assert!(matches!(returned, Returned::Item(Some(User { visits: 1, .. }))));
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReturnValues {
    /// Nothing.
    #[default]
    None,
    /// The whole item before the write.
    AllOld,
    /// The whole item after the write.
    AllNew,
    /// The updated attributes, before the write.
    UpdatedOld,
    /// The updated attributes, after the write.
    UpdatedNew,
}

/// One write of a BatchWriteItem request (no conditions allowed).
///
/// ```
/// use singletable_core::{request::BatchOp};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
///
/// let put = BatchOp::Put(User { id: "ana".into() }.to_item()?);
/// let delete = BatchOp::Delete(User::key("bo")?.key().to_item::<App>());
/// assert!(matches!(delete, BatchOp::Delete(ref key) if key.len() == 2));
/// # let _ = put;
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum BatchOp {
    /// PutRequest with the whole item.
    Put(Item),
    /// DeleteRequest with the key attributes.
    Delete(Item),
}

/// BatchWriteItem: up to 25 puts and deletes, each applied on its own.
/// `BatchWriter` splits any number of writes
/// into such requests and retries what comes back unprocessed.
///
/// ```
/// use singletable_core::{exec::Executor, request::{BatchOp, BatchWrite}};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let ops = vec![
///     BatchOp::Put(User { id: "ana".into(), visits: 0 }.to_item()?),
///     BatchOp::Put(User { id: "bo".into(), visits: 0 }.to_item()?),
/// ];
/// let unprocessed = db.executor().batch_write(BatchWrite { table: "App".into(), ops }).await?;
/// assert!(unprocessed.is_empty());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BatchWrite {
    /// Table name.
    pub table: String,
    /// The writes.
    pub ops: Vec<BatchOp>,
}

/// BatchGetItem: up to 100 items by key.
///
/// ```
/// use singletable_core::{exec::Executor, request::{BatchGet, BatchGetOutput}};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 0 }).await?;
/// let keys = vec![User::key("ana")?.key().to_item::<App>(), User::key("bo")?.key().to_item::<App>()];
/// let out: BatchGetOutput = db.executor().batch_get(BatchGet { table: "App".into(), keys, consistent: false }).await?;
/// assert_eq!(out.items.len(), 1); // missing keys are simply absent
/// assert!(out.unprocessed.is_empty());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BatchGet {
    /// Table name.
    pub table: String,
    /// Keys to read.
    pub keys: Vec<Item>,
    /// Strongly consistent reads.
    pub consistent: bool,
}

/// What a BatchGetItem request returned. See [`BatchGet`] for an example.
///
/// ```
/// let nothing = singletable_core::request::BatchGetOutput::default();
/// assert!(nothing.items.is_empty() && nothing.unprocessed.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchGetOutput {
    /// Items found, in no particular order.
    pub items: Vec<Item>,
    /// Keys DynamoDB did not process; to be retried.
    pub unprocessed: Vec<Item>,
}

/// TransactGetItems: up to 100 items read atomically (twice the read
/// cost of a strongly consistent read).
///
/// ```
/// use singletable_core::{exec::Executor, request::TransactGet};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 3 }).await?;
/// let gets = vec![
///     ("App".to_string(), User::key("ana")?.key().to_item::<App>()),
///     ("App".to_string(), User::key("bo")?.key().to_item::<App>()),
/// ];
/// let items = db.executor().transact_get(TransactGet { gets }).await?;
/// assert!(items[0].is_some() && items[1].is_none()); // in request order
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransactGet {
    /// `(table, key)` pairs, in order.
    pub gets: Vec<(String, Item)>,
}
