//! The AWS driver of [singletable](https://docs.rs/singletable): requests
//! sent to DynamoDB through `aws-sdk-dynamodb` ([`SdkExecutor`]), table
//! administration (its `Admin` implementation: CreateTable, DescribeTable,
//! UpdateTable, DeleteTable), and, with
//! feature `streams`, a reader of a table's stream through the DynamoDB
//! Streams API (`StreamReader`). The runtime (`singletable-runtime`) holds
//! the request path without any HTTP client; this crate is the one that
//! brings `aws-config`, the SDK's tokio runtime and its HTTPS client.
//! Applications depend on the `singletable` facade (feature `client`, on by
//! default), which re-exports these items.
//!
//! ```no_run
//! use singletable::{Db, SdkDb, SdkExecutor, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! # async fn run() -> singletable::Result<()> {
//! let db: Db<SdkExecutor> = Db::local("http://127.0.0.1:8000", "App");
//! db.create_table_if_missing::<App>().await?;
//! assert!(db.verify::<App>().await?.is_empty());
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod admin;
mod error;
mod exec;
mod local;
#[cfg(feature = "streams")]
mod streams;

pub use exec::SdkExecutor;
pub use local::{
    FALLBACK_ACCESS_KEY_ID, FALLBACK_REGION, FALLBACK_SECRET_ACCESS_KEY, LocalIdentity,
};
#[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
#[cfg(feature = "streams")]
pub use streams::{SdkStream, StreamReader};
