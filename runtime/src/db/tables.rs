//! Table administration through a handle: creating, describing, checking,
//! updating and deleting its table, and the table's stream.

use super::*;

// Table administration, the same on every backend (the executor's
// `Admin`), the shared handle included.
impl<E: Executor> Db<E> {
    /// Creates this handle's table as `T` declares it (key schema, every
    /// global and local index with its projection, the vector indexes,
    /// on-demand billing, the stream, TTL) unless a table of that name
    /// exists; returns whether it created it. Against DynamoDB: a
    /// DescribeTable, then CreateTable and UpdateTimeToLive.
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
        self.create_table_with::<T>(Billing::OnDemand).await
    }

    /// Like [`Db::create_table_if_missing`], with the billing mode given
    /// (a provisioned table with vector indexes is refused before
    /// sending, as DynamoDB refuses it: [`TableDefinition::problem`]).
    ///
    /// ```
    /// use singletable::definition::Billing;
    /// use singletable::{Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 2, distance = cosine))]
    /// # pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::with_executor(Embedded::new(), "App");
    /// let refused = db.create_table_with::<App>(Billing::Provisioned { read: 5, write: 5 }).await;
    /// assert!(refused.unwrap_err().to_string().contains("on-demand"));
    /// assert!(db.create_table_with::<App>(Billing::OnDemand).await?);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn create_table_with<T: Table>(&self, billing: Billing) -> Result<bool, Error> {
        let definition = TableDefinition::of::<T>(self.table_name(), billing);
        Admin::create_table(self.executor(), self.table_name(), &definition).await
    }

    /// The table as the backend describes it (DescribeTable and
    /// DescribeTimeToLive against DynamoDB), in the shape of a
    /// [`TableDefinition`].
    ///
    /// ```
    /// use singletable::{Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1, ttl = "expiresAt")]
    /// # pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let described = db.describe().await?;
    /// assert_eq!(described.global_secondary_indexes[0].index_name, "GSI1");
    /// assert_eq!(described.ttl_attribute.as_deref(), Some("expiresAt"));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn describe(&self) -> Result<TableDefinition, Error> {
        Admin::describe_table(self.executor(), self.table_name()).await
    }

    /// Compares the table the backend describes with declaration `T`:
    /// missing or extra indexes (global, local and vector), wrong key
    /// schemas, wrong projections, vector indexes of other dimensions,
    /// distance or search schema, key attributes of other types, the
    /// stream and its view, TTL ([`compare`]). An empty list means no
    /// drift. One [`Db::describe`].
    ///
    /// ```
    /// use singletable::definition::Drift;
    /// use singletable::{Db, Embedded, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct V1;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", gsi1)]
    /// pub struct V2;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<V1>("App")?;
    /// assert!(db.verify::<V1>().await?.is_empty());
    /// assert_eq!(db.verify::<V2>().await?, [Drift::MissingIndex("GSI1".into())]);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn verify<T: Table>(&self) -> Result<Vec<Drift>, Error> {
        let declared = TableDefinition::of::<T>(self.table_name(), Billing::OnDemand);
        let actual = self.describe().await?;
        Ok(compare(&declared, &actual))
    }

    /// Deletes this handle's table (DeleteTable; a
    /// `ResourceNotFoundException` when it does not exist, as DynamoDB
    /// answers).
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
        Admin::delete_table(self.executor(), self.table_name()).await
    }

    /// The ARN of the table's current stream (DescribeTable's
    /// `LatestStreamArn`), `None` when the table has no stream: what a
    /// stream reader reads.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", stream = new_and_old_images)]
    /// pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// assert!(db.stream_arn().await?.is_some_and(|arn| arn.contains(":table/App/stream/")));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn stream_arn(&self) -> Result<Option<String>, Error> {
        Admin::stream_arn(self.executor(), self.table_name()).await
    }

    /// Brings the table's global and vector indexes to what `T` declares:
    /// creates the missing ones, each built from the items already stored
    /// (as DynamoDB backfills a new index), and deletes those `T` does not
    /// declare when `extra` is [`ExtraIndexes::Delete`]. Returns what it
    /// did. Against DynamoDB: one UpdateTable per index, each followed by
    /// DescribeTable polls until the index is ACTIVE and backfilled (or
    /// gone), reported as `tracing` events; the embedded backend builds
    /// the index at once.
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
        let declared = TableDefinition::of::<T>(self.table_name(), Billing::OnDemand);
        Admin::update_table(self.executor(), self.table_name(), &declared, extra, true).await
    }

    /// What [`Db::update_table`] would do, doing nothing (one
    /// DescribeTable against DynamoDB).
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
        let declared = TableDefinition::of::<T>(self.table_name(), Billing::OnDemand);
        Admin::update_table(self.executor(), self.table_name(), &declared, extra, false).await
    }
}
