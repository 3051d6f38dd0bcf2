//! Tables on the engine: CreateTable and DeleteTable, the indexes, the
//! stream and TTL settings an UpdateTable changes, and what DescribeTable
//! reports (schemas, item counts, sizes).

use crate::error::{Error, Fail, Res};
use crate::schema::{self, IndexSchema, TableSchema, VectorIndexSchema};
use crate::table::{TableData, TableStats};
use singletable_core::entity::Table;

use super::Embedded;

fn check_table_name(name: &str) -> Res<()> {
    if name.len() < 3 || name.len() > 255 || !schema::valid_name(name) {
        return Err(Fail::validation(
            "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'",
        ));
    }
    Ok(())
}

impl Embedded {
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
    pub(super) fn create(&self, name: &str, schema: TableSchema) -> Res<bool> {
        check_table_name(name)?;
        schema.validate()?;
        let mut store = self.write();
        if store.tables.contains_key(name) {
            return Ok(false);
        }
        let data = TableData::new(schema, self.meter.clone());
        store.insert_table(name, data);
        Ok(true)
    }

    /// DeleteTable: removes the table and its items.
    pub fn delete_table(&self, name: &str) -> Result<(), Error> {
        match self.write().remove_table(name) {
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
        data.add_index(index, crate::check::fits_index)
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
        data.enable_stream(view);
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
    /// snapshots ([`Embedded::save`]); expired items are deleted by a TTL
    /// sweep ([`Embedded::expire_items`], [`Embedded::sweep_expired_every`]).
    /// Fails when the table does not exist.
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
        t.set_time_to_live(attribute.map(str::to_owned));
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
}
