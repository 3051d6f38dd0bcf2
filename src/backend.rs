//! Which backend a handle opens: the one place that sees every backend
//! the features enable (the embedded backend and the SDK executor are
//! crates of their own), so the runtime names none of them.
//! Everything else of the runtime's `backend` module is re-exported here.
//!
//! ```
//! use singletable::backend::{Backend, SharedExecutor};
//! use singletable::{Db, Table};
//! # #[derive(Table)]
//! # #[table(name = "App")]
//! # pub struct App;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // One handle type, whichever backend the configuration names.
//! let db: Db<SharedExecutor> = Db::open::<App>(Backend::Embedded, "App").await?;
//! assert_eq!(db.table_name(), "App");
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

pub use singletable_runtime::backend::*;
use singletable_runtime::exec::BoxFuture;
use singletable_runtime::{Error, Refusal, Table};

/// Which DynamoDB a [`Db::open`](crate::Db::open) reaches. There is no default and no
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
    /// DynamoDB Local at this endpoint (feature `client`), signing as
    /// `Db::local` does: `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
    /// `AWS_REGION` (or the profile's) when set, `test` / `test` in
    /// `us-east-1` otherwise; DynamoDB Local keeps one set of tables per
    /// access key and region.
    DynamoDbLocal {
        /// Endpoint URL, e.g. `http://127.0.0.1:8000`.
        endpoint: String,
    },
}

impl Open for Backend {
    fn open<T: Table>(self, table: String) -> BoxFuture<'static, Result<SharedExecutor, Error>> {
        Box::pin(async move {
            match self {
                #[cfg(feature = "embedded")]
                Backend::Embedded => Ok(std::sync::Arc::new(
                    <crate::Embedded as crate::HoldsTables>::with_table::<T>(&table)?,
                ) as SharedExecutor),
                #[cfg(feature = "client")]
                Backend::DynamoDb { endpoint } => {
                    drop(table);
                    let exec = crate::SdkExecutor::configured(endpoint).await;
                    Ok(std::sync::Arc::new(exec) as SharedExecutor)
                }
                #[cfg(feature = "client")]
                Backend::DynamoDbLocal { endpoint } => {
                    drop(table);
                    Ok(std::sync::Arc::new(crate::SdkExecutor::local(&endpoint)) as SharedExecutor)
                }
                #[allow(unreachable_patterns)]
                other => {
                    drop(table);
                    let feature = match other {
                        Backend::Embedded => "embedded",
                        _ => "client",
                    };
                    Err(Error::Refused(Refusal::BackendNotBuilt {
                        backend: format!("{other:?}"),
                        feature,
                    }))
                }
            }
        })
    }
}
