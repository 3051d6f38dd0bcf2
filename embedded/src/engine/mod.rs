//! The engine: `Embedded`, one store of tables behind a lock, the
//! executor and administration every backend implements, and the
//! inherent methods tests and tools use (schemas, stats, snapshots,
//! streams). `lib.rs` only gathers the rooms and re-exports.
//!
//! The rooms: `tables` (CreateTable, DeleteTable, indexes, streams and
//! TTL settings, schemas and stats), `streams` (the change feed and
//! `EmbeddedStream`), `executor` (the `Executor`), `admin` (`Admin`),
//! `ttl` (the sweep that deletes expired items).

mod admin;
mod executor;
mod streams;
mod tables;
mod ttl;

use std::fmt;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::error::Error;
use crate::store::Store;
use crate::{durable, project, read, snapshot, value};
use singletable_core::exec::CapacityMeter;

pub use streams::{EMBEDDED_SHARD, EmbeddedStream};

/// Capacity consumed by a table's requests, as DynamoDB bills it: reads in
/// 4 KB units (half for eventually consistent reads, double in
/// transactions; a Query or Scan rounds the bytes of all items it read),
/// writes in 1 KB units of the larger of the old and new item (double in
/// transactions). Counted, never enforced.
///
/// ```
/// use singletable::embedded::ConsumedCapacity;
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
/// db.put(&User { id: "ana".into() }).await?;       // 1 write unit
/// db.get::<User>(User::key("ana")?).await?;         // 0.5 read unit
/// assert_eq!(
///     db.executor().consumed_capacity("App"),
///     Some(ConsumedCapacity { read_units: 0.5, write_units: 1.0 }),
/// );
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ConsumedCapacity {
    /// Read capacity units.
    pub read_units: f64,
    /// Write capacity units.
    pub write_units: f64,
}

/// An in-process DynamoDB: an [`Executor`](singletable_core::exec::Executor) that keeps tables in memory with
/// DynamoDB's semantics (see the [crate documentation](crate) for what it
/// reproduces and where it differs on purpose).
///
/// Cloning is cheap and clones share the same tables.
///
/// ```
/// use singletable::embedded::{KeyAttr, TableSchema};
/// use singletable::{Db, Embedded, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity, Debug, PartialEq)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let embedded = Embedded::new();
/// embedded.create_table::<App>("App")?;                       // CreateTable
/// assert!(embedded.create_table::<App>("App").is_err());      // ResourceInUseException
/// embedded.create_table_with("Counters", TableSchema { pk: KeyAttr::s("id"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
/// assert_eq!(embedded.table_names(), ["App", "Counters"]);
/// assert!(embedded.has_table("Counters"));
/// assert_eq!(embedded.schema("App"), Some(TableSchema::of::<App>()));
///
/// // Handles over clones share the tables.
/// let db = Db::with_executor(embedded.clone(), "App");
/// db.put(&User { id: "ana".into() }).await?;
/// assert_eq!(embedded.item_count("App"), Some(1));
/// assert_eq!(embedded.consumed_capacity("App").unwrap().write_units, 1.0);
///
/// // A snapshot survives the process: save, then load into a new backend.
/// let path = std::env::temp_dir().join(format!("singletable-doc-{}.json", std::process::id()));
/// embedded.save(&path)?;
/// let restored = Db::with_executor(Embedded::load(&path)?, "App");
/// assert_eq!(restored.get::<User>(User::key("ana")?).await?, Some(User { id: "ana".into() }));
/// std::fs::remove_file(&path).ok();
///
/// embedded.delete_table("Counters")?;                          // DeleteTable
/// assert!(!embedded.has_table("Counters"));
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Default)]
pub struct Embedded {
    store: Arc<RwLock<Store>>,
    meter: Arc<CapacityMeter>,
    /// The write-ahead log, when the store was opened on a data directory.
    log: Option<Arc<durable::Log>>,
    /// The generation of the background TTL sweep
    /// ([`Embedded::sweep_expired_every`]): a sweep thread stops once it
    /// changes.
    sweeper: Arc<std::sync::atomic::AtomicU64>,
}

/// The store, locked for a write. When the store is durable, the changes
/// the write made go to the log as one record when the guard is dropped,
/// before the lock is released: records are in commit order.
pub(crate) struct Writing<'a> {
    guard: RwLockWriteGuard<'a, Store>,
    log: Option<&'a durable::Log>,
}

impl std::ops::Deref for Writing<'_> {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.guard
    }
}

impl std::ops::DerefMut for Writing<'_> {
    fn deref_mut(&mut self) -> &mut Store {
        &mut self.guard
    }
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        if let Some(log) = self.log
            && let Some(payload) = self.guard.take_redo()
        {
            log.append(&payload);
        }
    }
}

impl fmt::Debug for Embedded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Embedded")
            .field("tables", &self.table_names())
            .finish()
    }
}

impl Embedded {
    /// An empty backend with no tables.
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Store> {
        self.store.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self) -> Writing<'_> {
        Writing {
            guard: self.store.write().unwrap_or_else(PoisonError::into_inner),
            log: self.log.as_deref(),
        }
    }

    /// Capacity a table's requests consumed so far.
    pub fn consumed_capacity(&self, table: &str) -> Option<ConsumedCapacity> {
        self.read().tables.get(table).map(|t| ConsumedCapacity {
            read_units: t.capacity.read_units(),
            write_units: t.capacity.write_units(),
        })
    }

    /// Checks a ProjectionExpression's paths as DynamoDB does before any
    /// read: not empty, names it accepts, well-formed paths, no two paths
    /// that overlap or conflict (`Invalid ProjectionExpression: Two
    /// document paths overlap ...`). Query checks its projection itself;
    /// code that applies one with [`Embedded::project`] (the endpoint's
    /// GetItem, Scan and batch reads) checks it here first.
    ///
    /// ```
    /// use singletable::embedded::Embedded;
    /// use singletable::expr::Path;
    ///
    /// assert!(Embedded::check_projection(&[Path::from("a"), Path::from("b")]).is_ok());
    /// assert!(Embedded::check_projection(&[Path::from("a"), Path::from("a")]).is_err());
    /// ```
    pub fn check_projection(paths: &[singletable_core::expr::Path]) -> Result<(), Error> {
        read::projection_paths(paths).map_err(|e| e.into_error("ProjectionExpression"))
    }

    /// What a ProjectionExpression's `paths` keep of `item`, by the one
    /// projection every read of the engine applies (Query applies its
    /// request's projection with it): an attribute named whole is kept
    /// whole, one named below keeps only the map entries and list elements
    /// named (list elements in list order), a path that does not resolve
    /// keeps nothing. The endpoint's GetItem, Scan and batch and
    /// transaction reads, whose requests carry no projection, apply theirs
    /// here after [`Embedded::check_projection`].
    ///
    /// ```
    /// use singletable::embedded::Embedded;
    /// use singletable::expr::Path;
    /// use singletable::value::{AttributeValue, Item};
    ///
    /// let s = |x: &str| AttributeValue::S(x.into());
    /// let mut item = Item::new();
    /// item.insert("l".into(), AttributeValue::L(vec![s("a"), s("b"), s("c")]));
    /// item.insert("x".into(), s("y"));
    /// let out = Embedded::project(item, &[Path::new("l").index(2), Path::new("l").index(0)]);
    /// assert_eq!(out.len(), 1);
    /// assert_eq!(out["l"], AttributeValue::L(vec![s("a"), s("c")]));
    /// ```
    pub fn project(item: value::Item, paths: &[singletable_core::expr::Path]) -> value::Item {
        project::Projection::new(paths).apply(item)
    }

    /// Writes every table (schema and items) to `path` as JSON, items in
    /// DynamoDB's JSON format. The file is written beside `path` first and
    /// renamed over it, so a crash never leaves half a snapshot.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let doc = snapshot::to_json(&self.read()).map_err(|e| e.into_error("SaveSnapshot"))?;
        let text = serde_json::to_vec(&doc).map_err(|e| io_error("SaveSnapshot", e))?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, text).map_err(|e| io_error("SaveSnapshot", e))?;
        std::fs::rename(&tmp, path).map_err(|e| io_error("SaveSnapshot", e))
    }

    /// A backend holding the tables of a snapshot written by
    /// [`Embedded::save`]; every item is validated as PutItem would.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Error> {
        let text = std::fs::read(path).map_err(|e| io_error("LoadSnapshot", e))?;
        let doc: serde_json::Value =
            serde_json::from_slice(&text).map_err(|e| io_error("LoadSnapshot", e))?;
        let meter = Arc::new(CapacityMeter::default());
        let store = snapshot::from_json(&doc, &meter).map_err(|e| e.into_error("LoadSnapshot"))?;
        Ok(Self {
            store: Arc::new(RwLock::new(store)),
            meter,
            log: None,
            sweeper: Arc::default(),
        })
    }

    /// A durable backend on the data directory `dir` (created when
    /// missing): the tables the directory holds, and every change from
    /// now on written to its log before it is acknowledged. An
    /// acknowledged write survives the process being killed (`kill -9`)
    /// and the machine losing power; a restart on the same directory has
    /// the same tables, items, settings, annotations and streams.
    ///
    /// A write is acknowledged once [`Embedded::flushed`] resolves after
    /// it: the [`Executor`](singletable_core::exec::Executor) methods wait
    /// for it before they return; the administration methods (which are
    /// not `async`) leave the wait to the caller. Concurrent writes share
    /// one sync of the log (group commit). The log is compacted into a
    /// snapshot in the background once it passes 64 MB, and by
    /// [`Embedded::compact`]. A log whose tail is torn or corrupt (a crash
    /// mid-write, a damaged disk) is cut at its last whole record, with a
    /// message on stderr saying where. The format is described in the
    /// endpoint's documentation (`docs/endpoint.md`, "Durable storage").
    ///
    /// ```
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    /// use singletable_core::request::PutItem;
    /// use singletable::{AttributeValue, Executor, Item};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let dir = std::env::temp_dir().join(format!("singletable-open-doc-{}", std::process::id()));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// let db = Embedded::open(&dir)?;
    /// db.create_table_with("App", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// db.flushed().await?;
    /// let item = Item::from([("PK".into(), AttributeValue::S("a".into()))]);
    /// db.put_item(PutItem { table: "App".into(), item, condition: None, return_old: false, return_on_condition_failure: false }).await?;
    /// drop(db);
    ///
    /// let again = Embedded::open(&dir)?; // what a restart reads back
    /// assert_eq!(again.item_count("App"), Some(1));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, Error> {
        let meter = Arc::new(CapacityMeter::default());
        let (store, log, file) = durable::open(dir.as_ref(), &meter)
            .map_err(|m| storage_error("OpenDataDirectory", m))?;
        let store = Arc::new(RwLock::new(store));
        durable::start(log.clone(), file, Arc::downgrade(&store));
        Ok(Self {
            store,
            meter,
            log: Some(log),
            sweeper: Arc::default(),
        })
    }

    /// Resolves once every change made so far is in the log and synced
    /// (at once for a backend that is not durable, see
    /// [`Embedded::open`]); fails when the log can no longer be written
    /// (the change is then in memory only).
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = singletable::Embedded::new();
    /// db.flushed().await?; // in memory: nothing to wait for
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn flushed(&self) -> Result<(), Error> {
        let Some(log) = &self.log else {
            return Ok(());
        };
        let waiter = log.waiter().map_err(|m| storage_error("Flush", m))?;
        match waiter {
            None => Ok(()),
            Some(rx) => rx
                .await
                .map_err(|_| storage_error("Flush", "the log writer stopped".into()))?
                .map_err(|m| storage_error("Flush", m)),
        }
    }

    /// Writes a durable backend's snapshot now and removes the log it
    /// replaces (what happens in the background once the log passes 64
    /// MB); nothing for a backend that is not durable. See
    /// [`Embedded::open`].
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("singletable-compact-doc-{}", std::process::id()));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// let db = singletable::Embedded::open(&dir)?;
    /// db.compact()?;
    /// assert!(std::fs::read_dir(&dir)?.flatten().any(|e| e.file_name().to_string_lossy().starts_with("snapshot-")));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compact(&self) -> Result<(), Error> {
        match &self.log {
            Some(log) => {
                durable::compact_now(log, &self.store).map_err(|m| storage_error("Compact", m))
            }
            None => Ok(()),
        }
    }

    /// Keeps `text` with `table` (replacing what it had): what a layer
    /// above the engine knows of the table beyond its schema (the
    /// endpoint keeps billing mode, creation time, throughput and tags
    /// here). It goes with the table: into snapshots and the log, away
    /// with DeleteTable. Fails when the table does not exist.
    ///
    /// ```
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    ///
    /// let db = Embedded::new();
    /// db.create_table_with("App", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// assert_eq!(db.annotation("App"), None);
    /// db.annotate("App", r#"{"billing":"PAY_PER_REQUEST"}"#)?;
    /// assert_eq!(db.annotation("App").as_deref(), Some(r#"{"billing":"PAY_PER_REQUEST"}"#));
    /// assert!(db.annotate("Missing", "x").is_err());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn annotate(&self, table: &str, text: impl Into<String>) -> Result<(), Error> {
        let mut store = self.write();
        let t = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        t.annotate(text.into());
        Ok(())
    }

    /// What [`Embedded::annotate`] kept with `table`.
    ///
    /// ```
    /// assert_eq!(singletable::Embedded::new().annotation("Missing"), None);
    /// ```
    pub fn annotation(&self, table: &str) -> Option<String> {
        self.read().tables.get(table)?.annotation.clone()
    }

    /// Write units each secondary index of `table` consumed so far, in the
    /// order of its schema's indexes (`None` when the table does not
    /// exist): what DynamoDB reports per index under
    /// `ReturnConsumedCapacity=INDEXES`. An index entry a write adds,
    /// removes or changes costs its size (the attributes the index
    /// projects) in 1 KB units, doubled in a transaction; these units are
    /// also in [`consumed_capacity`](Embedded::consumed_capacity)'s
    /// `write_units`.
    ///
    /// ```
    /// use singletable::embedded::{IndexProjection, IndexSchema, KeyAttr, TableSchema};
    /// use singletable_core::request::PutItem;
    /// use singletable::{AttributeValue, Embedded, Executor, Item};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Embedded::new();
    /// let by_email = IndexSchema {
    ///     name: "byEmail".into(), global: true, pk: KeyAttr::s("email"), sk: None,
    ///     pk_rest: vec![], sk_rest: vec![], projection: IndexProjection::KeysOnly,
    /// };
    /// db.create_table_with("App", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![by_email], stream: None, vectors: vec![] })?;
    /// let s = |v: &str| AttributeValue::S(v.into());
    /// let item = Item::from([("PK".into(), s("USER#ana")), ("email".into(), s("ana@example.com"))]);
    /// db.put_item(PutItem { table: "App".into(), item, condition: None, return_old: false, return_on_condition_failure: false }).await?;
    /// // One unit for the item, one for its entry in the index.
    /// assert_eq!(db.index_write_units("App"), Some(vec![("byEmail".to_owned(), 1.0)]));
    /// assert_eq!(db.consumed_capacity("App").unwrap().write_units, 2.0);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn index_write_units(&self, table: &str) -> Option<Vec<(String, f64)>> {
        let store = self.read();
        let t = store.tables.get(table)?;
        Some(
            t.schema
                .indexes
                .iter()
                .enumerate()
                .map(|(i, ix)| (ix.name.clone(), t.capacity.index_write_units(i)))
                .collect(),
        )
    }
}

fn storage_error(operation: &'static str, message: String) -> Error {
    crate::error::Fail::internal(message).into_error(operation)
}

fn io_error(operation: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Service {
        operation,
        code: None,
        message: e.to_string(),
        source: Box::new(e),
    }
}
