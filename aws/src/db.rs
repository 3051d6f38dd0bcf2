//! [`SdkDb`]: what a [`Db`] over the AWS SDK adds to every handle's
//! operations: its constructors and table administration.

use std::future::Future;

use singletable_runtime::backend::{ExtraIndexes, TableUpdate};
use singletable_runtime::{Db, Error, Table};
use singletable_tools::definition::{Billing, Drift, TableDefinition};

use crate::SdkExecutor;
use crate::admin;

/// The handle over DynamoDB: [`Db<SdkExecutor>`]'s constructors, its SDK
/// client, and the table administration a deployment check, a test or an
/// example needs (CreateTable, DescribeTable, DeleteTable, drift against
/// the declaration). Every typed operation (`get`, `put`, queries,
/// batches, transactions) is [`Db`]'s own, the same on every backend.
///
/// Bring the trait into scope (`use singletable::SdkDb;`) and call its
/// constructors on `Db`; with one implementation, `Db::local(..)` is a
/// `Db<SdkExecutor>`.
///
/// Against DynamoDB (`no_run`: it needs the service or DynamoDB Local):
///
/// ```no_run
/// use singletable::definition::Billing;
/// use singletable::backend::ExtraIndexes;
/// use singletable::{Db, SdkDb};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "AppTable", gsi1)]
/// # pub struct AppTable;
///
/// # async fn run() -> singletable::Result<()> {
/// let db = Db::from_env("AppTable").await;              // aws_config; DYNAMODB_ENDPOINT if set
/// let local = Db::local("http://127.0.0.1:8000", "AppTable");
/// let endpoint = Some("http://127.0.0.1:8000".to_owned());
/// let configured = Db::configured(endpoint, "AppTable").await; // aws_config, this endpoint
/// let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
/// let explicit = Db::new(aws_sdk_dynamodb::Client::new(&config), "AppTable");
///
/// local.create_table_if_missing::<AppTable>().await?;   // CreateTable (+ UpdateTimeToLive)
/// local.create_table_with::<AppTable>(Billing::Provisioned { read: 5, write: 5 }).await?;
/// let described = db.describe().await?;                 // DescribeTable, DescribeTimeToLive
/// for drift in db.verify::<AppTable>().await? {          // declaration against DescribeTable
///     eprintln!("drift: {drift}");
/// }
/// if let Some(arn) = configured.stream_arn().await? {   // DescribeTable's LatestStreamArn
///     println!("stream: {arn}");
/// }
/// let tables = explicit.sdk().list_tables().send().await; // the SDK client, for the rest
/// let plan = db.plan_table_update::<AppTable>(ExtraIndexes::Keep).await?; // what it would do
/// db.update_table::<AppTable>(ExtraIndexes::Keep).await?; // UpdateTable per index, until ACTIVE
/// local.delete_table().await?;                           // DeleteTable
/// # let _ = (described, tables, plan);
/// # Ok(()) }
/// ```
pub trait SdkDb: Sized {
    /// A handle over an SDK client configured as usual (`aws_config`).
    fn new(client: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self;

    /// Loads the AWS configuration from the environment (region,
    /// credentials, profile) the way `aws_config::load_defaults` does; when
    /// `DYNAMODB_ENDPOINT` is set, requests go to that endpoint instead
    /// (DynamoDB Local).
    fn from_env(table: impl Into<String>) -> impl Future<Output = Self> + Send;

    /// Loads the AWS configuration from the environment (region,
    /// credentials, profile) the way `aws_config::load_defaults` does;
    /// requests go to `endpoint` when given (DynamoDB Local, a VPC
    /// endpoint), to the region's default otherwise.
    fn configured(
        endpoint: Option<String>,
        table: impl Into<String>,
    ) -> impl Future<Output = Self> + Send;

    /// A handle on DynamoDB Local at `endpoint`, with the static test
    /// credentials it accepts.
    fn local(endpoint: &str, table: impl Into<String>) -> Self;

    /// The SDK client, for requests singletable does not model.
    fn sdk(&self) -> &aws_sdk_dynamodb::Client;

    /// Creates this handle's table as `T` declares it (key schema, every
    /// global and local index with its projection, the vector indexes,
    /// on-demand billing, the stream, TTL) unless a table of that name
    /// exists. Returns whether it created it.
    fn create_table_if_missing<T: Table>(&self)
    -> impl Future<Output = Result<bool, Error>> + Send;

    /// Like [`SdkDb::create_table_if_missing`], with the billing mode given
    /// (a provisioned table with vector indexes is refused before sending,
    /// as DynamoDB refuses it).
    fn create_table_with<T: Table>(
        &self,
        billing: Billing,
    ) -> impl Future<Output = Result<bool, Error>> + Send;

    /// The table as DynamoDB describes it (DescribeTable and
    /// DescribeTimeToLive), in the shape of a [`TableDefinition`].
    fn describe(&self) -> impl Future<Output = Result<TableDefinition, Error>> + Send;

    /// The ARN of the table's current stream (DescribeTable's
    /// `LatestStreamArn`), `None` when the table has no stream: what a
    /// `StreamReader` (feature `streams`) reads.
    fn stream_arn(&self) -> impl Future<Output = Result<Option<String>, Error>> + Send;

    /// Compares the table DynamoDB describes with declaration `T`: missing
    /// or extra indexes (global, local and vector), wrong key schemas,
    /// wrong projections, vector indexes of other dimensions, distance or
    /// search schema, key attributes of other types, the stream and its
    /// view, TTL. An empty list means no
    /// drift.
    fn verify<T: Table>(&self) -> impl Future<Output = Result<Vec<Drift>, Error>> + Send;

    /// Deletes this handle's table (DeleteTable). For tests and examples.
    fn delete_table(&self) -> impl Future<Output = Result<(), Error>> + Send;

    /// Brings the table's global and vector indexes to what `T` declares
    /// (`GlobalSecondaryIndexUpdates`, `VectorIndexUpdates`): one
    /// UpdateTable per index created (and per index deleted, when `extra`
    /// is [`ExtraIndexes::Delete`]), each followed by DescribeTable polls
    /// until the index is ACTIVE and backfilled (or gone), reported as
    /// `tracing` events. Returns what it did; the same as the embedded
    /// handle's `update_table`, which builds the index at once.
    fn update_table<T: Table>(
        &self,
        extra: ExtraIndexes,
    ) -> impl Future<Output = Result<TableUpdate, Error>> + Send;

    /// What [`SdkDb::update_table`] would do (one DescribeTable), doing
    /// nothing.
    fn plan_table_update<T: Table>(
        &self,
        extra: ExtraIndexes,
    ) -> impl Future<Output = Result<TableUpdate, Error>> + Send;
}

impl SdkDb for Db<SdkExecutor> {
    fn new(client: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self {
        Db::with_executor(SdkExecutor::new(client), table)
    }

    fn from_env(table: impl Into<String>) -> impl Future<Output = Self> + Send {
        Self::configured(std::env::var("DYNAMODB_ENDPOINT").ok(), table)
    }

    fn configured(
        endpoint: Option<String>,
        table: impl Into<String>,
    ) -> impl Future<Output = Self> + Send {
        let table = table.into();
        async move {
            let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
            if let Some(endpoint) = endpoint {
                loader = loader.endpoint_url(endpoint);
            }
            let config = loader.load().await;
            Self::new(aws_sdk_dynamodb::Client::new(&config), table)
        }
    }

    fn local(endpoint: &str, table: impl Into<String>) -> Self {
        Db::with_executor(SdkExecutor::local(endpoint), table)
    }

    fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        self.executor().client()
    }

    async fn create_table_if_missing<T: Table>(&self) -> Result<bool, Error> {
        self.create_table_with::<T>(Billing::OnDemand).await
    }

    async fn create_table_with<T: Table>(&self, billing: Billing) -> Result<bool, Error> {
        admin::create_table::<T>(self.sdk(), self.table_name(), billing).await
    }

    async fn describe(&self) -> Result<TableDefinition, Error> {
        admin::describe(self.sdk(), self.table_name()).await
    }

    async fn stream_arn(&self) -> Result<Option<String>, Error> {
        admin::stream_arn(self.sdk(), self.table_name()).await
    }

    async fn verify<T: Table>(&self) -> Result<Vec<Drift>, Error> {
        admin::verify::<T>(self.sdk(), self.table_name()).await
    }

    async fn delete_table(&self) -> Result<(), Error> {
        admin::delete_table(self.sdk(), self.table_name()).await
    }

    async fn update_table<T: Table>(&self, extra: ExtraIndexes) -> Result<TableUpdate, Error> {
        admin::update_table::<T>(self.sdk(), self.table_name(), extra, true).await
    }

    async fn plan_table_update<T: Table>(&self, extra: ExtraIndexes) -> Result<TableUpdate, Error> {
        admin::update_table::<T>(self.sdk(), self.table_name(), extra, false).await
    }
}
