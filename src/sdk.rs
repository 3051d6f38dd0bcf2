//! [`SdkDb`]: the constructors of a [`Db`] over the AWS SDK and its
//! client. Table administration is every handle's (`Db::create_table_if_missing`,
//! `Db::verify`, …, through the executor's `Admin`).

use std::future::Future;

use singletable_aws::SdkExecutor;
use singletable_runtime::backend::{ExtraIndexes, TableUpdate};
use singletable_runtime::definition::{Billing, Drift, TableDefinition};
use singletable_runtime::{Db, Error, Table};

/// The handle over DynamoDB: [`Db<SdkExecutor>`]'s constructors and its
/// SDK client. Every typed operation (`get`, `put`, queries, batches,
/// transactions) and the table administration (CreateTable,
/// DescribeTable, UpdateTable, DeleteTable, drift against the
/// declaration) are [`Db`]'s own, the same on every backend.
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
/// let client: aws_sdk_dynamodb::Client = singletable::SdkExecutor::configured(None).await.client().clone();
/// let explicit = Db::with_executor(singletable::SdkExecutor::new(client), "AppTable"); // any SDK client
///
/// local.create_table_if_missing::<AppTable>().await?;   // CreateTable (+ UpdateTimeToLive)
/// local.create_table_with::<AppTable>(Billing::Provisioned { read: 5, write: 5 }).await?;
/// let described = db.describe().await?;                 // DescribeTable, DescribeTimeToLive
/// for drift in db.verify::<AppTable>().await? {          // declaration against DescribeTable
///     eprintln!("drift: {drift}");
/// }
/// if let Some(arn) = local.stream_arn().await? {   // DescribeTable's LatestStreamArn
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
    /// Deprecated: a handle over an SDK client of your own is
    /// `Db::with_executor(SdkExecutor::new(client), table)`, the one
    /// constructor for any executor.
    #[deprecated(note = "use `Db::with_executor(SdkExecutor::new(client), table)`")]
    fn new(client: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self;

    /// Loads the AWS configuration from the environment (region,
    /// credentials, profile) the way `aws_config::load_defaults` does; when
    /// `DYNAMODB_ENDPOINT` is set, requests go to that endpoint instead
    /// (DynamoDB Local).
    fn from_env(table: impl Into<String>) -> impl Future<Output = Self> + Send;

    /// Deprecated: `Db::open::<T>(Backend::DynamoDb { endpoint }, table)`
    /// opens the same handle (shared), and `Db::from_env` follows
    /// `DYNAMODB_ENDPOINT`.
    #[deprecated(
        note = "use `Db::open::<T>(Backend::DynamoDb { endpoint }, table)`, or `Db::from_env` with DYNAMODB_ENDPOINT"
    )]
    fn configured(
        endpoint: Option<String>,
        table: impl Into<String>,
    ) -> impl Future<Output = Self> + Send;

    /// A handle on DynamoDB Local at `endpoint`, signing as the other
    /// clients of the same DynamoDB Local do, so that it sees the tables
    /// they created: DynamoDB Local (unless started with `-sharedDb`)
    /// keeps a separate set of tables for each access key id and region
    /// a request is signed with. The values, resolved as the AWS SDKs and
    /// CLI resolve them (`singletable_aws::LocalIdentity`):
    ///
    /// * access key: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with
    ///   `AWS_SESSION_TOKEN`) when both are set, else the static keys of
    ///   the profile `AWS_PROFILE` (or `default`) in `~/.aws/credentials`
    ///   / `~/.aws/config`, else `test` / `test`;
    /// * region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the
    ///   profile's `region`, else `us-east-1`.
    ///
    /// A table "missing" on DynamoDB Local that another tool shows is
    /// nearly always one created under other keys or another region.
    ///
    /// ```
    /// use singletable::{Db, SdkDb};
    ///
    /// let db = Db::local("http://127.0.0.1:8000", "App");
    /// let id = singletable_aws::LocalIdentity::from_env();
    /// let region = db.sdk().config().region().map(|r| r.as_ref().to_owned());
    /// assert_eq!(region.as_deref(), Some(id.region.as_str()));
    /// ```
    fn local(endpoint: &str, table: impl Into<String>) -> Self;

    /// The SDK client, for requests singletable does not model.
    fn sdk(&self) -> &aws_sdk_dynamodb::Client;

    /// Forwards to [`Db::create_table_if_missing`], every handle's.
    #[deprecated(
        note = "use `Db::create_table_if_missing::<T>()`, an inherent method of every handle"
    )]
    fn create_table_if_missing<T: Table>(&self)
    -> impl Future<Output = Result<bool, Error>> + Send;

    /// Forwards to [`Db::create_table_with`], every handle's.
    #[deprecated(
        note = "use `Db::create_table_with::<T>(billing)`, an inherent method of every handle"
    )]
    fn create_table_with<T: Table>(
        &self,
        billing: Billing,
    ) -> impl Future<Output = Result<bool, Error>> + Send;

    /// Forwards to [`Db::describe`], every handle's.
    #[deprecated(note = "use `Db::describe()`, an inherent method of every handle")]
    fn describe(&self) -> impl Future<Output = Result<TableDefinition, Error>> + Send;

    /// Forwards to [`Db::stream_arn`], every handle's.
    #[deprecated(note = "use `Db::stream_arn()`, an inherent method of every handle")]
    fn stream_arn(&self) -> impl Future<Output = Result<Option<String>, Error>> + Send;

    /// Forwards to [`Db::verify`], every handle's.
    #[deprecated(note = "use `Db::verify::<T>()`, an inherent method of every handle")]
    fn verify<T: Table>(&self) -> impl Future<Output = Result<Vec<Drift>, Error>> + Send;

    /// Forwards to [`Db::delete_table`], every handle's.
    #[deprecated(note = "use `Db::delete_table()`, an inherent method of every handle")]
    fn delete_table(&self) -> impl Future<Output = Result<(), Error>> + Send;

    /// Forwards to [`Db::update_table`], every handle's.
    #[deprecated(note = "use `Db::update_table::<T>(extra)`, an inherent method of every handle")]
    fn update_table<T: Table>(
        &self,
        extra: ExtraIndexes,
    ) -> impl Future<Output = Result<TableUpdate, Error>> + Send;

    /// Forwards to [`Db::plan_table_update`], every handle's.
    #[deprecated(
        note = "use `Db::plan_table_update::<T>(extra)`, an inherent method of every handle"
    )]
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
        let table = table.into();
        async move {
            let endpoint = std::env::var("DYNAMODB_ENDPOINT").ok();
            Db::with_executor(SdkExecutor::configured(endpoint).await, table)
        }
    }

    fn configured(
        endpoint: Option<String>,
        table: impl Into<String>,
    ) -> impl Future<Output = Self> + Send {
        let table = table.into();
        async move { Db::with_executor(SdkExecutor::configured(endpoint).await, table) }
    }

    fn local(endpoint: &str, table: impl Into<String>) -> Self {
        Db::with_executor(SdkExecutor::local(endpoint), table)
    }

    fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        self.executor().client()
    }

    // The inherent methods of the same names, which method calls reach
    // first: these serve calls through the trait's path only.
    fn create_table_if_missing<T: Table>(
        &self,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        Db::create_table_if_missing::<T>(self)
    }

    fn create_table_with<T: Table>(
        &self,
        billing: Billing,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        Db::create_table_with::<T>(self, billing)
    }

    fn describe(&self) -> impl Future<Output = Result<TableDefinition, Error>> + Send {
        Db::describe(self)
    }

    fn stream_arn(&self) -> impl Future<Output = Result<Option<String>, Error>> + Send {
        Db::stream_arn(self)
    }

    fn verify<T: Table>(&self) -> impl Future<Output = Result<Vec<Drift>, Error>> + Send {
        Db::verify::<T>(self)
    }

    fn delete_table(&self) -> impl Future<Output = Result<(), Error>> + Send {
        Db::delete_table(self)
    }

    fn update_table<T: Table>(
        &self,
        extra: ExtraIndexes,
    ) -> impl Future<Output = Result<TableUpdate, Error>> + Send {
        Db::update_table::<T>(self, extra)
    }

    fn plan_table_update<T: Table>(
        &self,
        extra: ExtraIndexes,
    ) -> impl Future<Output = Result<TableUpdate, Error>> + Send {
        Db::plan_table_update::<T>(self, extra)
    }
}
