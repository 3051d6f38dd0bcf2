//! One handle type for every backend: [`Db`] over a [`SharedExecutor`]
//! (`Arc<dyn Executor>`), the default type parameter of [`Db`]. An
//! application and its tests choose the backend at run time and keep one
//! type, so one test body runs on the embedded backend and on DynamoDB
//! Local without generics:
//!
//! ```
//! use singletable::{Backend, Db, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Notes")]
//! pub struct Notes;
//!
//! #[derive(Entity, Debug, PartialEq)]
//! #[entity(table = Notes, name = "Note")]
//! #[pk("NOTE#<id>")]
//! #[sk("NOTE")]
//! pub struct Note {
//!     pub id: String,
//!     pub text: String,
//! }
//!
//! // One body, one type: `&Db` is `&Db<SharedExecutor>`.
//! async fn body(db: &Db) -> singletable::Result<()> {
//!     db.put(&Note { id: "n1".into(), text: "hi".into() }).await?;
//!     assert!(db.get::<Note>(Note::key("n1")?).await?.is_some());
//!     Ok(())
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // The choice is explicit: nothing falls back to memory by itself.
//! let db = Db::open::<Notes>(Backend::Embedded, "Notes").await?;
//! body(&db).await?;
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! The dynamic dispatch costs one indirect call per request: executors
//! already return boxed futures (see `benches/embedded.rs`, group
//! `get_shared`).

use std::sync::Arc;

use crate::db::Db;
use crate::entity::Table;
use crate::error::Error;
use crate::exec::Executor;

/// Any executor, shared: what a [`Db`] holds when the backend is chosen
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

/// Which DynamoDB a [`Db::open`] reaches. There is no default and no
/// fallback: a service that meant DynamoDB never runs on memory because
/// a variable was unset.
///
/// ```
/// use singletable::{Backend, Db};
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
/// /// The backend from the service's own configuration: no default.
/// fn backend(var: Option<&str>) -> Result<Backend, String> {
///     match var {
///         Some("memory") => Ok(Backend::Embedded),
///         Some("local") => Ok(Backend::DynamoDbLocal { endpoint: "http://127.0.0.1:8000".into() }),
///         Some("aws") => Ok(Backend::DynamoDb { endpoint: None }),
///         other => Err(format!("BACKEND must be memory, local or aws, not {other:?}")),
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// assert!(backend(None).is_err());
/// let db = Db::open::<App>(backend(Some("memory")).unwrap(), "App").await?;
/// db.put(&User { id: "ana".into() }).await?;
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// The embedded in-process backend (feature `embedded`): DynamoDB's
    /// semantics in this process's memory, lost when it exits (see
    /// `Embedded::save`/`load` for snapshots). For tests and local runs.
    Embedded,
    /// DynamoDB through `aws-sdk-dynamodb` (feature `client`), configured
    /// from the environment as `aws_config` does (region, credentials,
    /// profile), at `endpoint` when given (DynamoDB Local, a VPC endpoint).
    DynamoDb {
        /// Endpoint URL; `None` for the region's default.
        endpoint: Option<String>,
    },
    /// DynamoDB Local at this endpoint, with the static test credentials
    /// it accepts (feature `client`).
    DynamoDbLocal {
        /// Endpoint URL, e.g. `http://127.0.0.1:8000`.
        endpoint: String,
    },
}

impl Db<SharedExecutor> {
    /// A handle on table `table` of `backend`. The embedded backend starts
    /// empty with the table created as `T` declares it; DynamoDB tables are
    /// not created (see `Db::create_table_if_missing` on the SDK handle, or
    /// create them with the definition from `TableDefinition`).
    ///
    /// ```
    /// use singletable::{Backend, Db};
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
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db: Db = Db::open::<App>(Backend::Embedded, "App").await?;
    /// db.put(&User { id: "ana".into() }).await?;
    /// assert_eq!(db.get::<User>(User::key("ana")?).await?, Some(User { id: "ana".into() }));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Against DynamoDB Local or AWS (needs the service; not run here):
    ///
    /// ```no_run
    /// # use singletable::{Backend, Db, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # async fn run() -> singletable::Result<()> {
    /// let local = Db::open::<App>(Backend::DynamoDbLocal { endpoint: "http://127.0.0.1:8000".into() }, "App").await?;
    /// let aws = Db::open::<App>(Backend::DynamoDb { endpoint: None }, "App").await?;
    /// # Ok(()) }
    /// ```
    pub async fn open<T: Table>(backend: Backend, table: impl Into<String>) -> Result<Self, Error> {
        let table = table.into();
        match backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded => Ok(Db::in_memory::<T>(table)?.into_shared()),
            #[cfg(feature = "client")]
            Backend::DynamoDb { endpoint } => {
                let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
                if let Some(e) = endpoint {
                    loader = loader.endpoint_url(e);
                }
                let config = loader.load().await;
                Ok(Db::new(aws_sdk_dynamodb::Client::new(&config), table).into_shared())
            }
            #[cfg(feature = "client")]
            Backend::DynamoDbLocal { endpoint } => Ok(Db::local(&endpoint, table).into_shared()),
            #[allow(unreachable_patterns)]
            other => Err(Error::InvalidRequest(format!(
                "backend {other:?} needs a feature of singletable this build does not enable (`embedded` or `client`)"
            ))),
        }
    }
}

impl<E: Executor + 'static> Db<E> {
    /// The same handle (table, cursor secret, executor) behind the shared
    /// executor type, so that code written for `Db` runs on it.
    ///
    /// ```
    /// use singletable::{Counting, Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let counted: Db<Counting<Embedded>> = Db::<Embedded>::in_memory::<App>("App")?.map_executor(Counting::new);
    /// let db: Db = counted.into_shared();
    /// assert_eq!(db.table_name(), "App");
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn into_shared(self) -> Db<SharedExecutor> {
        self.map_executor(|e| Arc::new(e) as SharedExecutor)
    }
}
