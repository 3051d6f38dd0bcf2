//! # singletable
//!
//! DynamoDB single-table design for Rust. Declare the table and each entity
//! once, in attributes; the derives generate typed key builders, key parsers
//! and a direct item codec, and check the declaration at compile time.
//!
//! ```
//! use singletable::{Entity, StrEnum, Table};
//!
//! #[derive(Table)]
//! #[table(name = "AppTable", gsi1, gsi2)]
//! pub struct AppTable;
//!
//! #[derive(StrEnum, Debug, Clone, Copy, PartialEq)]
//! #[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
//! pub enum OrderStatus { Pending, Shipped }
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(table = AppTable, name = "Order", rename_all = "camelCase")]
//! #[pk("ORDER#<order_id>")]
//! #[sk("DETAILS")]
//! #[gsi1(pk = "ORDERSTATUS#<status>", sk = "ORDER#<order_id>")]
//! #[gsi2(pk = "ORDERBYDATE", sk = "DATE#<created_at>")]
//! pub struct Order {
//!     pub order_id: String,
//!     pub user_id: String,
//!     pub status: OrderStatus,
//!     pub total: f64,
//!     pub created_at: String,
//! }
//!
//! # fn main() -> singletable::Result<()> {
//! assert_eq!(Order::pk("o-1")?, "ORDER#o-1");
//! assert_eq!(Order::gsi1_pk(&OrderStatus::Pending)?, "ORDERSTATUS#PENDING");
//! // A value can never forge another key: the delimiter is escaped.
//! assert_eq!(Order::pk("o#1")?, "ORDER#o%231");
//! assert_eq!(Order::parse_pk("ORDER#o%231")?, "o#1");
//!
//! let order = Order {
//!     order_id: "o-1".into(),
//!     user_id: "u-1".into(),
//!     status: OrderStatus::Pending,
//!     total: 42.5,
//!     created_at: "2024-05-01T12:00:00Z".into(),
//! };
//! let item = order.to_item()?;
//! assert_eq!(item["GSI1PK"].as_s().unwrap(), "ORDERSTATUS#PENDING");
//! assert_eq!(Order::from_item(item)?, order);
//! # Ok(())
//! # }
//! ```
//!
//! # Reference
//!
//! The derives' documentation is the reference of every attribute (its
//! syntax, default, effect on the stored item and the request underneath,
//! with a running example) and of what each derive generates:
//!
//! - [`#[derive(Table)]`](derive@Table): the table, its key attributes,
//!   indexes, TTL attribute, and the cross-entity checks;
//! - [`#[derive(Entity)]`](derive@Entity): key templates, `#[gsiN]` /
//!   `#[lsiN]` index keys, `#[access]` patterns, `#[attr]` field options,
//!   and the generated key builders, parsers, field handles, updates and
//!   queries;
//! - [`#[derive(Document)]`](derive@Document): nested structs stored as maps;
//! - [`#[derive(StrEnum)]`](derive@StrEnum): unit enums stored as strings;
//! - [`#[derive(Collection)]`](derive@Collection): several entity types of
//!   one partition read by one Query.
//!
//! At run time: [`Db`] (every operation, one request each), the access
//! patterns' [`Query`], [`Update`], [`Transaction`], [`BatchWriter`];
//! the backends [`Embedded`] (in process) and [`SdkExecutor`] (DynamoDB),
//! chosen with [`Backend`]; and [`Error`], which names what DynamoDB
//! answered or why nothing was sent.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use singletable_macros::{Collection, Document, Entity, StrEnum, Table};
pub use singletable_runtime::*;

pub mod backend;
pub use backend::Backend;
/// The embedded backend (feature `embedded`): the crate
/// `singletable-embedded`.
#[cfg_attr(docsrs, doc(cfg(feature = "embedded")))]
#[cfg(feature = "embedded")]
pub use singletable_embedded as embedded;
#[cfg_attr(docsrs, doc(cfg(feature = "embedded")))]
#[cfg(feature = "embedded")]
pub use singletable_embedded::Embedded;

#[doc(hidden)]
pub use singletable_runtime::__private;
