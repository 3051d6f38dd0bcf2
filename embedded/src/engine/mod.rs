//! The engine: `Embedded`, one store of tables behind a lock, the
//! executor and administration every backend implements, and the
//! inherent methods tests and tools use (schemas, stats, snapshots,
//! streams). `lib.rs` only gathers the rooms and re-exports.
//!
//! The rooms: `tables` (CreateTable, DeleteTable, indexes, streams and
//! TTL settings, schemas and stats), `streams` (the change feed and
//! `EmbeddedStream`), `executor` (the `Executor`), `admin` (`Admin`).

mod admin;
mod executor;
mod streams;
mod tables;

use std::fmt;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::error::Error;
use crate::store::Store;
use crate::{project, read, snapshot, value};
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

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Store> {
        self.store.write().unwrap_or_else(PoisonError::into_inner)
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
        })
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

fn io_error(operation: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Service {
        operation,
        code: None,
        message: e.to_string(),
        source: Box::new(e),
    }
}
