//! The engine: `Embedded`, one store of tables behind a lock, the
//! executor and administration every backend implements, and the
//! inherent methods tests and tools use (schemas, stats, snapshots,
//! streams). `lib.rs` only gathers the rooms and re-exports.

mod admin;

use std::fmt;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::error::Error;
use crate::error::{Fail, Res};
use crate::feed::ChangeFeed;
use crate::schema::{IndexSchema, TableSchema, VectorIndexSchema};
use crate::store::Store;
use crate::table::TableData;
use crate::table::TableStats;
use crate::value::Item;
use crate::{feed, project, read, schema, search, snapshot, transact, value, write};
use singletable_core::entity::Table;
use singletable_core::exec::{BoxFuture, CapacityMeter, Executor};
use singletable_core::reader::{Items, ReaderPage};
use singletable_core::request::{
    BatchGet, BatchGetOutput, BatchOp, BatchWrite, CountPage, DeleteItem, GetItem, Page, PutItem,
    QueryRequest, ScanRequest, TransactGet, TransactWrite, UpdateItem,
};

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

/// An in-process DynamoDB: an [`Executor`] that keeps tables in memory with
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

fn check_table_name(name: &str) -> Res<()> {
    if name.len() < 3 || name.len() > 255 || !schema::valid_name(name) {
        return Err(Fail::validation(
            "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'",
        ));
    }
    Ok(())
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

    /// CreateTable: a table named `name` laid out as `T` declares it (key
    /// schema, global and local indexes with their projections). Fails with
    /// a `ResourceInUseException` when the table exists.
    pub fn create_table<T: Table>(&self, name: &str) -> Result<(), Error> {
        self.create_table_with(name, TableSchema::of::<T>())
    }

    /// CreateTable from an explicit schema (for number or binary keys,
    /// which [`Table`] declarations do not have).
    pub fn create_table_with(&self, name: &str, schema: TableSchema) -> Result<(), Error> {
        match self.create(name, schema) {
            Ok(true) => Ok(()),
            Ok(false) => Err(Fail::code(
                "ResourceInUseException",
                format!("Cannot create preexisting table: {name}"),
            )
            .into_error("CreateTable")),
            Err(e) => Err(e.into_error("CreateTable")),
        }
    }

    /// Creates the table unless it exists; whether it did.
    fn create(&self, name: &str, schema: TableSchema) -> Res<bool> {
        check_table_name(name)?;
        schema.validate()?;
        let mut store = self.write();
        if store.tables.contains_key(name) {
            return Ok(false);
        }
        store
            .tables
            .insert(name.to_owned(), TableData::new(schema, self.meter.clone()));
        Ok(true)
    }

    /// DeleteTable: removes the table and its items.
    pub fn delete_table(&self, name: &str) -> Result<(), Error> {
        match self.write().tables.remove(name) {
            Some(_) => Ok(()),
            None => Err(Fail::no_table().into_error("DeleteTable")),
        }
    }

    /// Whether a table of that name exists.
    pub fn has_table(&self, name: &str) -> bool {
        self.read().tables.contains_key(name)
    }

    /// The tables, sorted by name.
    pub fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.read().tables.keys().cloned().collect();
        names.sort();
        names
    }

    /// Adds a global secondary index to a table and fills it from the
    /// items already there (UpdateTable with a `Create` index update; the
    /// index is usable at once, where DynamoDB backfills it first).
    ///
    /// ```
    /// use singletable::embedded::{IndexProjection, IndexSchema, KeyAttr, TableSchema};
    /// use singletable::Embedded;
    ///
    /// let db = Embedded::new();
    /// let schema = TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] };
    /// db.create_table_with("App", schema)?;
    /// let gsi = IndexSchema {
    ///     name: "byEmail".into(), global: true, pk: KeyAttr::s("email"), sk: None,
    ///     pk_rest: vec![], sk_rest: vec![], projection: IndexProjection::KeysOnly,
    /// };
    /// db.add_global_index("App", gsi)?;
    /// assert_eq!(db.schema("App").unwrap().indexes.len(), 1);
    /// assert!(db.remove_global_index("App", "byEmail")?);
    /// assert!(db.schema("App").unwrap().indexes.is_empty());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn add_global_index(&self, table: &str, index: IndexSchema) -> Result<(), Error> {
        if !index.global {
            return Err(Fail::validation(
                "Local secondary indexes can only be created with the table",
            )
            .into_error("UpdateTable"));
        }
        let mut store = self.write();
        let data = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        data.add_index(index)
            .map_err(|e| e.into_error("UpdateTable"))
    }

    /// Removes a global secondary index (UpdateTable with a `Delete`
    /// index update); `false` when the table has no such index. See
    /// [`Embedded::add_global_index`].
    ///
    /// ```
    /// use singletable::embedded::{KeyAttr, TableSchema};
    /// use singletable::Embedded;
    ///
    /// let db = Embedded::new();
    /// db.create_table_with("App", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// assert!(!db.remove_global_index("App", "byEmail")?); // no such index
    /// assert!(db.remove_global_index("Missing", "byEmail").is_err());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn remove_global_index(&self, table: &str, index: &str) -> Result<bool, Error> {
        let mut store = self.write();
        let data = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        if !data
            .schema
            .indexes
            .iter()
            .any(|ix| ix.global && ix.name == index)
        {
            return Ok(false);
        }
        Ok(data.remove_index(index))
    }

    /// Adds a vector index to a table and fills it from the items already
    /// there (UpdateTable with a `VectorIndexUpdates` `Create`; the index
    /// is usable at once, where DynamoDB backfills it first). Items without
    /// a valid vector or a `HASH` attribute are left out, as DynamoDB's
    /// backfill leaves them.
    ///
    /// ```
    /// use singletable::embedded::{IndexProjection, VectorIndexSchema};
    /// use singletable::vector::Distance;
    /// use singletable::{Db, Embedded, Entity, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("DOC#<id>")]
    /// #[sk("DOC")]
    /// pub struct Doc { pub id: String, pub emb: Vec<f32> }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&Doc { id: "a".into(), emb: vec![3.0, 4.0] }).await?;
    /// let ix = VectorIndexSchema {
    ///     name: "Similar".into(), attribute: "emb".into(), dimensions: 2, distance: Distance::Euclidean,
    ///     hash: vec![], filter: vec![], projection: IndexProjection::All,
    /// };
    /// db.executor().add_vector_index("App", ix)?;
    /// assert_eq!(db.executor().table_stats("App").unwrap().vectors[0].item_count, 1); // the stored item
    /// assert!(db.executor().remove_vector_index("App", "Similar")?);
    /// assert!(!db.executor().remove_vector_index("App", "Similar")?);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn add_vector_index(&self, table: &str, index: VectorIndexSchema) -> Result<(), Error> {
        let mut store = self.write();
        let data = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        data.add_vector_index(index)
            .map_err(|e| e.into_error("UpdateTable"))
    }

    /// Removes a vector index (UpdateTable with a `VectorIndexUpdates`
    /// `Delete`); `false` when the table has no such vector index. See
    /// [`Embedded::add_vector_index`].
    ///
    /// ```
    /// use singletable::Embedded;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(name = "Similar", dimensions = 2, distance = cosine))]
    /// # pub struct App;
    /// let db = Embedded::new();
    /// db.create_table::<App>("App")?;
    /// assert!(db.remove_vector_index("App", "Similar")?);
    /// assert!(db.schema("App").unwrap().vectors.is_empty());
    /// assert!(db.remove_vector_index("Missing", "Similar").is_err());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn remove_vector_index(&self, table: &str, index: &str) -> Result<bool, Error> {
        let mut store = self.write();
        let data = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        Ok(data.remove_vector_index(index))
    }

    /// UpdateTable `StreamSpecification`: gives a table without a stream a
    /// stream of `view`, whose change feed starts empty. Fails with
    /// DynamoDB's `ValidationException` when the table already has one.
    ///
    /// ```
    /// use singletable::StreamView;
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    ///
    /// let db = Embedded::new();
    /// db.create_table_with("App", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// db.enable_stream("App", StreamView::KeysOnly)?;
    /// assert_eq!(db.schema("App").unwrap().stream, Some(StreamView::KeysOnly));
    /// assert!(db.enable_stream("App", StreamView::NewImage).is_err());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn enable_stream(
        &self,
        table: &str,
        view: singletable_core::entity::StreamView,
    ) -> Result<(), Error> {
        let mut store = self.write();
        let data = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        if data.feed.is_some() {
            return Err(
                Fail::validation("Table already has an enabled stream").into_error("UpdateTable")
            );
        }
        data.schema.stream = Some(view);
        data.feed = Some(feed::Feed::new(view));
        Ok(())
    }

    /// The schema of a table.
    pub fn schema(&self, table: &str) -> Option<TableSchema> {
        self.read().tables.get(table).map(|t| t.schema.clone())
    }

    /// Number of items in a table.
    pub fn item_count(&self, table: &str) -> Option<usize> {
        self.read().tables.get(table).map(|t| t.items().len())
    }

    /// What DescribeTable reports of a table's contents: its item count
    /// and size (`TableSizeBytes`, item sizes as DynamoDB counts them) and
    /// each index's (`IndexSizeBytes`: the attributes it projects of the
    /// items it holds). `None` when the table does not exist. Reads every
    /// item.
    ///
    /// ```
    /// use singletable::AttributeValue;
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    /// use singletable_core::request::PutItem;
    /// use singletable::Executor;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Embedded::new();
    /// db.create_table_with("Sizes", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// let item = [("PK".to_owned(), AttributeValue::S("a".into())), ("n".to_owned(), AttributeValue::N("1".into()))];
    /// let put = PutItem { table: "Sizes".into(), item: item.into_iter().collect(), condition: None, return_old: false, return_on_condition_failure: false };
    /// db.put_item(put).await?;
    /// let stats = db.table_stats("Sizes").unwrap();
    /// assert_eq!((stats.item_count, stats.size_bytes), (1, 6)); // "PK" + "a", "n" + 1 digit + 1
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn table_stats(&self, table: &str) -> Option<TableStats> {
        self.read().tables.get(table).and_then(|t| t.stats().ok())
    }

    /// The size in bytes of the item collection of partition key value
    /// `pk` in `table`: its items and their local index entries, what
    /// DynamoDB's `ItemCollectionMetrics` estimates (and limits to 10 GB
    /// on tables with local indexes). `None` when the table does not exist.
    ///
    /// ```
    /// use singletable::AttributeValue;
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    ///
    /// let db = Embedded::new();
    /// db.create_table_with("Sizes", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// assert_eq!(db.item_collection_size("Sizes", &AttributeValue::S("a".into())), Some(0));
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn item_collection_size(
        &self,
        table: &str,
        pk: &singletable_core::value::AttributeValue,
    ) -> Option<u64> {
        self.read()
            .tables
            .get(table)
            .and_then(|t| t.collection_size(pk).ok())
    }

    /// UpdateTimeToLive: the attribute whose epoch-seconds value ends an
    /// item's life in `table` (`None`: TTL disabled). The setting is kept in
    /// snapshots ([`Embedded::save`]); items are not deleted when they expire
    /// (see the module docs). Fails when the table does not exist.
    ///
    /// ```
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    ///
    /// let db = Embedded::new();
    /// db.create_table_with("Sessions", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// db.set_time_to_live("Sessions", Some("expires"))?;
    /// assert_eq!(db.time_to_live("Sessions").as_deref(), Some("expires"));
    /// db.set_time_to_live("Sessions", None)?;
    /// assert_eq!(db.time_to_live("Sessions"), None);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn set_time_to_live(&self, table: &str, attribute: Option<&str>) -> Result<(), Error> {
        let mut store = self.write();
        let t = store
            .tables
            .get_mut(table)
            .ok_or_else(|| Fail::no_table().into_error("UpdateTimeToLive"))?;
        t.time_to_live = attribute.map(str::to_owned);
        Ok(())
    }

    /// The TTL attribute of `table`, when TTL is enabled
    /// (DescribeTimeToLive); see [`Embedded::set_time_to_live`].
    ///
    /// ```
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    ///
    /// let db = Embedded::new();
    /// db.create_table_with("Carts", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: None, vectors: vec![] })?;
    /// assert_eq!(db.time_to_live("Carts"), None); // disabled until UpdateTimeToLive
    /// assert_eq!(db.time_to_live("Missing"), None);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn time_to_live(&self, table: &str) -> Option<String> {
        self.read()
            .tables
            .get(table)
            .and_then(|t| t.time_to_live.clone())
    }

    /// Capacity a table's requests consumed so far.
    pub fn consumed_capacity(&self, table: &str) -> Option<ConsumedCapacity> {
        self.read().tables.get(table).map(|t| ConsumedCapacity {
            read_units: t.capacity.read_units(),
            write_units: t.capacity.write_units(),
        })
    }

    /// The records of `table`'s stream, oldest first: what DynamoDB's stream
    /// of the table would hold after the same writes (see
    /// [`singletable_core::stream`]), kept for 24 hours. Fails when the table does not
    /// exist or has no stream (`#[table(stream = ...)]`).
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// use singletable::stream::EventKind;
    /// # #[derive(Table)]
    /// # #[table(name = "Docs", stream = keys_only)]
    /// # pub struct Docs;
    /// # #[derive(Entity)]
    /// # #[entity(table = Docs, name = "Line")]
    /// # #[pk("DOC#<doc>")]
    /// # #[sk("LINE#<n>")]
    /// # pub struct Line { pub doc: String, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    /// db.put(&Line { doc: "d".into(), n: 1 }).await?;
    /// db.delete::<Line>(Line::key("d", 1)?).await?;
    /// let kinds: Vec<EventKind> =
    ///     db.executor().change_feed("Docs")?.iter().map(|r| r.event).collect();
    /// assert_eq!(kinds, [EventKind::Insert, EventKind::Remove]);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn change_feed(
        &self,
        table: &str,
    ) -> Result<Vec<singletable_core::stream::StreamRecord>, Error> {
        let store = self.read();
        let t = store
            .table(table)
            .map_err(|e| e.into_error("DescribeStream"))?;
        match &t.feed {
            Some(feed) => Ok(feed.records()),
            None => Err(no_stream(table)),
        }
    }

    /// The records of `table`'s stream committed from now on, as they are
    /// committed: a [`Stream`](futures_util::Stream) a handler under test can
    /// consume while the code under test writes.
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", stream = keys_only)]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # pub struct Order { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// let mut feed = db.executor().subscribe("Shop")?;
    /// db.put(&Order { id: "o1".into() }).await?;
    /// assert_eq!(feed.drain().len(), 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn subscribe(&self, table: &str) -> Result<ChangeFeed, Error> {
        let mut store = self.write();
        let t = store
            .table_mut(table)
            .map_err(|e| e.into_error("DescribeStream"))?;
        match &mut t.feed {
            Some(feed) => Ok(ChangeFeed::new(feed.subscribe())),
            None => Err(no_stream(table)),
        }
    }

    /// `table`'s stream, read from a position
    /// ([`StreamSource`](singletable_core::stream::StreamSource)): what the AWS
    /// driver's `StreamReader` is on DynamoDB, so that one consumer runs on
    /// both. The stream has one shard, [`EMBEDDED_SHARD`].
    ///
    /// ```
    /// # use singletable::Embedded;
    /// use singletable_core::stream::{StreamPosition, StreamSource};
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", stream = keys_only)]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # pub struct Order { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// db.put(&Order { id: "o1".into() }).await?;
    /// let stream = db.executor().stream("Shop")?;
    /// let batch = stream.read_after(&StreamPosition::default()).await?;
    /// assert_eq!(batch.records.len(), 1);
    /// assert!(stream.read_after(&batch.position).await?.records.is_empty());
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn stream(&self, table: &str) -> Result<EmbeddedStream, Error> {
        let store = self.read();
        let t = store
            .table(table)
            .map_err(|e| e.into_error("DescribeStream"))?;
        if t.feed.is_none() {
            return Err(no_stream(table));
        }
        Ok(EmbeddedStream {
            embedded: self.clone(),
            table: table.to_owned(),
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

/// The one shard of an embedded table's stream.
///
/// ```
/// assert!(singletable::embedded::EMBEDDED_SHARD.starts_with("shardId-"));
/// ```
pub const EMBEDDED_SHARD: &str = "shardId-00000000000000000000-embedded";

/// An embedded table's stream read from a position, from
/// [`Embedded::stream`]: the same [`StreamSource`](singletable_core::stream::StreamSource)
/// as the AWS driver's `StreamReader`.
///
/// ```
/// # use singletable::Embedded;
/// use singletable_core::stream::{StreamPosition, StreamSource};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "Shop", stream = keys_only)]
/// # pub struct Shop;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let embedded = Embedded::new();
/// embedded.create_table::<Shop>("Shop")?;
/// let stream = embedded.stream("Shop")?;
/// assert!(stream.read_after(&StreamPosition::default()).await?.records.is_empty());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct EmbeddedStream {
    embedded: Embedded,
    table: String,
}

impl singletable_core::stream::StreamSource for EmbeddedStream {
    fn read_after<'a>(
        &'a self,
        position: &'a singletable_core::stream::StreamPosition,
    ) -> BoxFuture<'a, Result<singletable_core::stream::StreamBatch, Error>> {
        Box::pin(async move {
            let trimmed = || {
                Fail::code(
                    "TrimmedDataAccessException",
                    "The position names records that are no longer in the stream",
                )
                .into_error("GetShardIterator")
            };
            if position.shards().any(|s| s != EMBEDDED_SHARD) {
                return Err(trimmed());
            }
            let after = position
                .after(EMBEDDED_SHARD)
                .map(|s| s.parse::<u64>().map_err(|_| trimmed()))
                .transpose()?;
            let store = self.embedded.read();
            let t = store
                .table(&self.table)
                .map_err(|e| e.into_error("DescribeStream"))?;
            let feed = t.feed.as_ref().ok_or_else(|| no_stream(&self.table))?;
            let records = feed.records_after(after).ok_or_else(trimmed)?;
            let mut next = position.clone();
            if let Some(last) = records.last() {
                next.advance(EMBEDDED_SHARD, &last.sequence_number);
            }
            Ok(singletable_core::stream::StreamBatch {
                records,
                position: next,
            })
        })
    }
}

fn no_stream(table: &str) -> Error {
    Fail::validation(format!(
        "Table {table} has no stream: declare one with #[table(stream = ...)]"
    ))
    .into_error("DescribeStream")
}

fn io_error(operation: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Service {
        operation,
        code: None,
        message: e.to_string(),
        source: Box::new(e),
    }
}

impl Executor for Embedded {
    fn capacity(&self) -> Option<&CapacityMeter> {
        Some(&self.meter)
    }

    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(
            async move { read::get_item(&self.read(), &req).map_err(|e| e.into_error("GetItem")) },
        )
    }

    fn put_item(&self, req: PutItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            write::put_item(&mut self.write(), req).map_err(|e| e.into_error("PutItem"))
        })
    }

    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            write::delete_item(&mut self.write(), &req).map_err(|e| e.into_error("DeleteItem"))
        })
    }

    fn query(&self, req: QueryRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move { read::query(&self.read(), &req).map_err(|e| e.into_error("Query")) })
    }

    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move { read::scan(&self.read(), &req).map_err(|e| e.into_error("Scan")) })
    }

    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move {
            transact::transact_write(&mut self.write(), &req)
                .map_err(|e| e.into_error("TransactWriteItems"))
        })
    }

    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            write::update_item(&mut self.write(), &req).map_err(|e| e.into_error("UpdateItem"))
        })
    }

    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, Result<Vec<BatchOp>, Error>> {
        Box::pin(async move {
            write::batch_write(&mut self.write(), &req).map_err(|e| e.into_error("BatchWriteItem"))
        })
    }

    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, Result<BatchGetOutput, Error>> {
        Box::pin(async move {
            read::batch_get(&self.read(), &req).map_err(|e| e.into_error("BatchGetItem"))
        })
    }

    fn transact_get(&self, req: TransactGet) -> BoxFuture<'_, Result<Vec<Option<Item>>, Error>> {
        Box::pin(async move {
            read::transact_get(&self.read(), &req).map_err(|e| e.into_error("TransactGetItems"))
        })
    }

    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, Result<Option<u64>, Error>> {
        let count = self.item_count(table).map(|n| n as u64);
        Box::pin(async move { Ok(count) })
    }

    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, Result<CountPage, Error>> {
        Box::pin(
            async move { read::query_count(&self.read(), &req).map_err(|e| e.into_error("Query")) },
        )
    }

    fn query_reader(&self, req: QueryRequest) -> BoxFuture<'_, Result<ReaderPage, Error>> {
        Box::pin(async move {
            read::query_reader(&self.read(), &req).map_err(|e| e.into_error("Query"))
        })
    }

    fn search_vectors(
        &self,
        req: singletable_core::vector::SearchVectors,
    ) -> BoxFuture<'_, Result<Vec<singletable_core::vector::ScoredItem>, Error>> {
        Box::pin(async move {
            search::search_vectors(&self.read(), &req).map_err(|e| e.into_error("SearchVectors"))
        })
    }

    fn get_item_reader(&self, req: GetItem) -> BoxFuture<'_, Result<Items, Error>> {
        Box::pin(async move {
            read::get_item_encoded(&self.read(), &req)
                .map(Items::Encoded)
                .map_err(|e| e.into_error("GetItem"))
        })
    }
}

impl singletable_core::HoldsTables for Embedded {
    fn with_table<T: Table>(table: &str) -> Result<Self, Error> {
        let embedded = Embedded::new();
        let definition = singletable_core::definition::TableDefinition::of::<T>(
            table,
            singletable_core::definition::Billing::OnDemand,
        );
        embedded.create_defined(table, &definition)?;
        Ok(embedded)
    }
}
