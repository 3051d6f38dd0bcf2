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
//! the backends [`Embedded`] (in process) and [`SdkExecutor`] (DynamoDB,
//! with [`SdkDb`]'s constructors and table administration), chosen with
//! [`Backend`]; and [`Error`], which names what DynamoDB answered or why
//! nothing was sent. Off the request path: the design document
//! ([`design`]), table definitions and drift ([`definition`]), capacity
//! estimates ([`capacity`]) and NoSQL Workbench models, exported from the
//! design and loaded into a table ([`workbench`]).
//!
//! The facade gathers the workspace's crates: `singletable-runtime` (the
//! request path), `singletable-macros` (the derives), `singletable-tools`
//! (the tooling), `singletable-aws` (the AWS driver, feature `client`) and
//! `singletable-embedded` (the in-process backend, feature `embedded`).

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use singletable_macros::{Collection, Document, Entity, StrEnum, Table};
// An explicit list, as sqlx's facade keeps one: every name here is a
// promise, and a name the runtime adds is not exported until it is listed.
pub use singletable_runtime::{
    Admin, Attr, AttrPartition, AttributeKey, AttributeValue, BatchGetOutcome, BatchGetter,
    BatchPolicy, BatchWriter, Blob, CancellationReason, Clock, Cmp, CollectionPath, Cond,
    Condition, Counting, Cursor, CursorError, Db, Decode, DecodeError, DecodeErrorKind, DocField,
    Document, EncodeError, Entity, Entry, Error, Executor, Field, FieldPath, Fields, GlobalIndex,
    Handle, HoldsTables, IndexKey, Item, KeyAttribute, KeyError, KeyField, KeyOf, KeyPart,
    KeyPartDecode, KeyType, LocalIndex, Nested, OnGlobalIndex, OnLocalIndex, OnTable, Operand,
    OtherTypes, Page, Partition, PkField, PrimaryKey, Projected, Projection, Query, ReadResults,
    ReadTransaction, Refusal, Result, ReturnValues, Returned, SchemaVersion, ShardedQuery,
    SharedExecutor, SortCondition, StreamError, StreamView, StringPath, Table, Transaction, Update,
    ValueFor,
};
pub use singletable_runtime::{
    admin, batch, error, fields, nested, query, shard, sort, trace, transact, ttl, unique, update,
    vector,
};

pub mod backend;

pub mod entity {
    //! The traits the derives implement (`Entity`, `Table`) and the
    //! declarations they carry: key attributes, global and local indexes,
    //! projections, partitions, schema versions, streams.
    //!
    //! ```
    //! use singletable::entity::{Entity, KeyType, Table};
    //!
    //! #[derive(singletable::Table)]
    //! #[table(name = "App")]
    //! pub struct App;
    //!
    //! #[derive(singletable::Entity)]
    //! #[entity(table = App)]
    //! #[pk("USER#<id>")]
    //! #[sk("PROFILE")]
    //! pub struct User { pub id: String }
    //!
    //! assert_eq!(App::NAME, "App");
    //! assert_eq!(App::PK, "PK");
    //! assert_eq!(KeyType::S.as_str(), "S");
    //! assert_eq!(User::SHAPE.pk.template, "USER#<id>");
    //! ```
    pub use singletable_runtime::entity::{
        AccessPattern, AttrPartition, AttributeKey, Entity, GlobalIndex, KeyAttribute, KeyType,
        LocalIndex, OnGsi, OnTablePartition, Partition, Projection, SchemaVersion, StreamView,
        Table,
    };
}

pub mod expr {
    //! Conditions: the typed condition tree the field handles build
    //! (`Order::fields().total.gt(10)`), with its comparison operators and
    //! operands, and the sort-key conditions of queries.
    //!
    //! ```
    //! use singletable::expr::{Cmp, Condition, Operand, Path, SortCondition};
    //! use singletable::AttributeValue;
    //!
    //! let total = Operand::Path(Path::from("total"));
    //! let c = Condition::Compare(total, Cmp::Gt, Operand::Value(AttributeValue::N("10".into())));
    //! assert!(matches!(c, Condition::Compare(_, Cmp::Gt, _)));
    //! let sk = SortCondition::BeginsWith("ORDER#".into());
    //! assert!(matches!(sk, SortCondition::BeginsWith(_)));
    //! ```
    pub use singletable_runtime::expr::{Cmp, Condition, Operand, Path, SortCondition};
}

pub mod key {
    //! Keys and key parts: the typed keys the derives build
    //! ([`PrimaryKey`], [`IndexKey`], [`KeyOf`]), the traits a type
    //! implements to be a part of a composite key, and DynamoDB's key
    //! length limits. The encoding rules (escaping, zero-padded numbers,
    //! timestamps) are in [`KeyPart`]'s docs.
    //!
    //! ```
    //! use singletable::key::{self, KeyPart, KeyPartDecode};
    //!
    //! let mut pk = String::from("USER#");
    //! "ana#admin".write_key_part(&mut pk)?;
    //! assert_eq!(pk, "USER#ana%23admin");
    //! assert_eq!(u8::read_key_part("007")?, 7);
    //! assert!(key::MAX_SORT_KEY_BYTES < key::MAX_PARTITION_KEY_BYTES);
    //! # Ok::<(), singletable::KeyError>(())
    //! ```
    pub use singletable_runtime::key::{
        IndexKey, KeyOf, KeyPart, KeyPartDecode, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES,
        PrimaryKey, UniqueValue, Unpadded, Verbatim,
    };
}

pub mod size {
    //! Item sizes by DynamoDB's rules, and its 400 KB item limit, checked
    //! before a write is sent.
    //!
    //! ```
    //! use singletable::size::{MAX_ITEM_BYTES, check_item, item_size};
    //! use singletable::{AttributeValue, Item};
    //!
    //! let mut item = Item::new();
    //! item.insert("PK".into(), AttributeValue::S("USER#1".into()));
    //! assert_eq!(item_size(&item), 2 + 6);
    //! assert!(check_item("User", &item).is_ok());
    //! assert_eq!(MAX_ITEM_BYTES, 400 * 1024);
    //! ```
    pub use singletable_runtime::size::{MAX_ITEM_BYTES, check_item, item_size};
}

pub mod value {
    //! Attribute values: DynamoDB's `AttributeValue`, items, binary
    //! values, and the [`Attr`] trait a type implements to be stored as an
    //! attribute.
    //!
    //! ```
    //! use singletable::value::{Attr, AttributeValue};
    //!
    //! assert_eq!(42u32.to_attr()?, AttributeValue::N("42".into()));
    //! assert_eq!(u32::from_attr(AttributeValue::N("42".into()))?, 42);
    //! # Ok::<(), Box<dyn std::error::Error>>(())
    //! ```
    pub use singletable_runtime::value::{Attr, AttributeValue, Blob, Item};
}

#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
#[cfg(feature = "client")]
pub use sdk::SdkDb;
/// The AWS driver (feature `client`): the crate `singletable-aws`.
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
#[cfg(feature = "client")]
pub use singletable_aws as aws;
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
#[cfg(feature = "client")]
pub use singletable_aws::SdkExecutor;
#[cfg(feature = "client")]
mod sdk;

pub use singletable_tools::cost;
pub use singletable_tools::definition;
pub use singletable_tools::workbench;
pub use singletable_tools::{Backfill, BackfillReport, Checkpoint, backfill};

pub mod capacity {
    //! Capacity units by DynamoDB's rules: the rules themselves (the
    //! runtime's, which the embedded backend meters with) and the
    //! estimates built on them (`singletable-tools`), to know what an item
    //! or an operation costs before running it.
    //!
    //! * A read unit covers 4 KB read with strong consistency; an
    //!   eventually consistent read costs half; a transactional read twice.
    //!   GetItem rounds the item up to 4 KB; Query and Scan round the sum
    //!   of the items read.
    //! * A write unit covers 1 KB, rounded up per item; transactional
    //!   writes cost twice. Every global or local index the write changes
    //!   costs a write of the index entry on top.
    //!
    //! ```
    //! use singletable::capacity::{query_units, read_units, write_units, Read};
    //!
    //! // A 6 KB item: 2 read units strongly consistent, 1 eventually.
    //! assert_eq!(read_units(6 * 1024, Read::Strong), 2.0);
    //! assert_eq!(read_units(6 * 1024, Read::Eventual), 1.0);
    //! // Ten 500-byte items in one Query page: 5000 bytes, rounded once.
    //! assert_eq!(query_units(&[500; 10], Read::Strong), 2.0);
    //! // A 1.5 KB put that also writes one index entry of 200 bytes.
    //! assert_eq!(write_units(1536, false, &[200]), 3.0);
    //! ```
    pub use singletable_runtime::capacity::Read;
    pub use singletable_tools::capacity::{query_units, read_units, write_units};
}

pub mod design {
    //! The single-table design as data and what is generated from it: the
    //! shapes the derives declare and the compile-time checks across the
    //! entities of one table (the runtime's), and the layout and
    //! access-pattern document with its design warnings
    //! (`singletable-tools`).
    //!
    //! ```
    //! use singletable::{Entity, StrEnum, Table};
    //!
    //! #[derive(Table)]
    //! #[table(name = "App", gsi1, entities(User, Order))]
    //! pub struct App;
    //!
    //! #[derive(StrEnum, Debug, Clone, Copy, PartialEq)]
    //! pub enum Status { New, Shipped }
    //!
    //! #[derive(Entity)]
    //! #[entity(table = App, rename_all = "camelCase")]
    //! #[pk("USER#<user_id>")]
    //! #[sk("PROFILE")]
    //! pub struct User { pub user_id: String }
    //!
    //! #[derive(Entity)]
    //! #[entity(table = App, rename_all = "camelCase")]
    //! #[pk("USER#<user_id>")]
    //! #[sk("ORDER#<order_id>")]
    //! #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
    //! #[access(by_status, index = gsi1)]
    //! pub struct Order { pub user_id: String, pub order_id: String, pub status: Status }
    //!
    //! let doc = singletable::design::document::<App>();
    //! assert!(doc.starts_with("# `App` single-table design"));
    //! assert!(doc.contains("| Order | `USER#<userId>` | `ORDER#<orderId>` | `STATUS#<status>` | `ORDER#<orderId>` |"));
    //! // Two statuses only: every write of an order lands in one of two GSI1 partitions.
    //! assert!(doc.contains("## Design warnings"));
    //! ```
    pub use singletable_tools::design::{document, warnings};
}

pub mod stream {
    //! Stream records (core's `stream`: what executors deliver) as typed
    //! changes (the tools' consumers: [`changes`], [`Change`]), and with
    //! feature `streams` the AWS driver's reader of whole streams.
    //!
    //! ```
    //! use singletable::stream::{EventKind, StreamView};
    //!
    //! assert_eq!(EventKind::from_name("MODIFY"), Some(EventKind::Modify));
    //! assert_eq!(StreamView::from_name("NEW_AND_OLD_IMAGES"), Some(StreamView::NewAndOldImages));
    //! ```
    #[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
    #[cfg(feature = "streams")]
    pub use singletable_aws::StreamReader;
    #[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
    #[cfg(feature = "streams")]
    #[doc(no_inline)]
    pub use singletable_runtime::stream::aws_sdk_dynamodbstreams;
    #[cfg_attr(docsrs, doc(cfg(feature = "lambda")))]
    #[cfg(feature = "lambda")]
    pub use singletable_runtime::stream::lambda;
    pub use singletable_runtime::stream::{
        EventKind, IntoStreamRecord, StreamPosition, StreamRecord, StreamView,
    };
    pub use singletable_tools::stream::{Change, Event, changes};
}

pub mod clock {
    //! Time: the clock a handle stamps writes with (system time, or a fixed
    //! or stepping one in tests), the stamp of one write, and the
    //! [`Timestamp`] trait of the types a `#[created]` or `#[updated]`
    //! field may have.
    //!
    //! ```
    //! use singletable::clock::{Clock, Timestamp};
    //! use std::time::{Duration, UNIX_EPOCH};
    //!
    //! let clock = Clock::fixed(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    //! assert_eq!(u64::at(clock.now()), 1_700_000_000);
    //! assert!(0u64.is_unset());
    //! ```
    pub use singletable_runtime::clock::{Clock, Created, Stamp, Timestamp};
}
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

/// The README's Rust examples, compiled and run by `cargo test --doc` as
/// written (the two that are fragments of a larger program, a test in
/// another crate and a tour with top-level `await`, are marked `ignore`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
