//! [`Embedded`]: an in-process DynamoDB for development and tests, with
//! DynamoDB's semantics for every request singletable sends.
//!
//! It executes the same request values as
//! [`SdkExecutor`](https://docs.rs/singletable/latest/singletable/struct.SdkExecutor.html)
//! (the [`Executor`](singletable_core::exec::Executor) trait), so the application picks the backend when it
//! builds its `Db` handle and nothing else changes:
//!
//! ```
//! use singletable::{Db, Embedded, GlobalIndex, LocalIndex, Table};
//!
//! struct AppTable;
//! impl Table for AppTable {
//!     const NAME: &'static str = "AppTable";
//!     const PK: &'static str = "PK";
//!     const SK: Option<&'static str> = Some("SK");
//!     const ENTITY_TYPE: &'static str = "entityType";
//!     const GLOBAL_INDEXES: &'static [GlobalIndex] = &[];
//!     const LOCAL_INDEXES: &'static [LocalIndex] = &[];
//!     const RESERVED: &'static [&'static str] = &["PK", "SK", "entityType"];
//! }
//!
//! let db: Db<Embedded> = Db::in_memory::<AppTable>("AppTable")?;
//! # Ok::<(), singletable::Error>(())
//! ```
//!
//! # What it reproduces
//!
//! Tables with their key schemas; global and local secondary indexes with
//! their projections and sparse entries (an item is in an index only when it
//! has every key attribute of the index); key order (`S` by UTF-8 bytes, `N`
//! numerically as exact decimals, `B` byte-wise); every key condition, both
//! directions, `Limit` counting evaluated items, 1 MB pages and
//! `LastEvaluatedKey` (an index's holds the table's and the index's key
//! attributes); every condition and update action, on top-level attributes
//! and on document paths below them (`a.b[3]`: a write needs its parent, an
//! index past the end of a list appends, list removals name the elements
//! of the item before the update), `ReturnValues`,
//! `ReturnValuesOnConditionCheckFailure`; transactions that apply
//! atomically or not at all, with cancellation reasons; the batch limits
//! (25 writes, 100 keys, no duplicate keys); item and key size limits;
//! DynamoDB's validation errors (empty key strings, key types, number
//! precision, empty sets, overlapping update paths…). Errors come back as the
//! same [`Error`](singletable_core::error::Error) variants the SDK executor produces: condition failures as
//! [`Error::ConditionFailed`](singletable_core::error::Error::ConditionFailed), cancelled transactions as
//! [`Error::TransactionCanceled`](singletable_core::error::Error::TransactionCanceled), everything else as [`Error::Service`](singletable_core::error::Error::Service)
//! whose source is an [`EmbeddedError`] carrying DynamoDB's error code.
//! Consumed capacity is counted as DynamoDB bills it
//! ([`Embedded::consumed_capacity`]).
//!
//! Its reference is DynamoDB Local: property tests run random sequences
//! of requests against both and require identical answers, including the
//! order of items whose keys do not order them (scans, equal index keys),
//! which follows DynamoDB Local's hashes.
//!
//! # Where it differs on purpose
//!
//! - Global indexes are read-your-writes: a write is visible in every index
//!   as soon as it returns (DynamoDB propagates to global indexes
//!   asynchronously). Every read is strongly consistent.
//! - Expired items are deleted when a sweep runs: on demand
//!   ([`Embedded::expire_items`]) or every interval once
//!   [`Embedded::sweep_expired_every`] starts one (DynamoDB deletes them
//!   within a few days, on its own schedule).
//! - No capacity limits: nothing is throttled, batches never return
//!   unprocessed writes (BatchGetItem still stops at 16 MB).
//! - Where DynamoDB Local and DynamoDB disagree, it follows DynamoDB Local:
//!   item sizes count one byte per list or map element.
//! - Where DynamoDB Local is wrong, it follows DynamoDB: a Query
//!   that stops at its `Limit` returns a LastEvaluatedKey even when its
//!   last item sits on the inclusive bound of the key condition, and that
//!   key starts an empty last page ("returns the matching values up to that
//!   point, and a key in LastEvaluatedKey", the API reference says of
//!   `Limit`; DynamoDB Local returns none there and refuses the key);
//!   TransactWriteItems refuses two operations on one item up front,
//!   before any condition is evaluated ("no two actions can target the
//!   same item"; DynamoDB Local refuses them only when both pass their
//!   conditions); a Query page ends
//!   once the items it read reach 1 MB, whether its filter keeps them or
//!   not ("This limit applies before the filter expression is evaluated",
//!   the developer guide says; DynamoDB Local counts only the items a
//!   Query's filter keeps, so its filtered pages run longer); numbers always come
//!   back in canonical form (DynamoDB Local returns numbers written by
//!   UpdateItem as they were sent, `01.50` or `1E+1`), and UpdateItem may not
//!   give a local index's key attribute the wrong type (DynamoDB Local
//!   accepts it and lists the item in the index).
//! - Scans read one segment. A scan of a local index orders items with
//!   equal index keys like a query of it does (DynamoDB Local's scan orders
//!   them by table sort key instead). String sets come back sorted by UTF-16
//!   code units (as DynamoDB Local sorts them), number sets numerically.
//! - Consumed capacity follows DynamoDB's billing rules (4 KB read units,
//!   1 KB write units, index writes, doubled in transactions) and is
//!   reported for successful requests, per table and, for index writes, per
//!   index ([`Embedded::index_write_units`]); it is not compared with
//!   DynamoDB Local, whose accounting differs in details.

//! # Sharing and snapshots
//!
//! An `Embedded` is a cheap handle (`Clone`) on one store behind a
//! read-write lock: share it across tokio tasks freely. Requests never wait
//! on I/O; a transaction holds the write lock for its whole duration, which
//! is what makes it atomic. [`Embedded::save`] writes every table to a JSON
//! file and [`Embedded::load`] reads it back, so local data can outlive a
//! run. [`Embedded::open`] makes the store durable on a data directory:
//! each commit goes to a write-ahead log, synced before the write returns
//! (concurrent writes share one sync), so an acknowledged write survives a
//! crash.
//!
//! # Reads in place
//!
//! Items are stored encoded (attribute names as numbers, key attributes
//! only in the position). `Db` reads GetItem and Query results through
//! [`Executor::query_reader`](singletable_core::exec::Executor::query_reader) and [`Executor::get_item_reader`](singletable_core::exec::Executor::get_item_reader): the backend
//! copies the stored bytes of the items into one buffer ([`EncodedItems`])
//! and releases its lock; the generated decoders then read them in place
//! (see [`singletable_core::reader`]), without building item maps. Filters,
//! projections and indexes that project fewer attributes are applied in
//! place too: a filter reads only the attributes it names out of the
//! stored bytes (strings and numbers borrowed, the others passed over
//! undecoded) and evaluates them with the same condition evaluator as
//! conditional writes and transaction checks; a projection copies out only
//! what it names.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod check;
mod codec;
mod cond;
mod crc;
mod definition;
mod durable;
mod encoded;
mod engine;
mod error;
mod expire;
mod feed;
mod filter;
mod hash;
mod json;
mod meter;
mod number;
mod path;
mod project;
mod read;
mod record;
mod redo;
mod schema;
mod search;
mod snapshot;
mod store;
mod table;
mod transact;
mod update;
mod value;
pub mod vector;
mod write;

pub use crc::crc32;
pub use encoded::EncodedItems;
pub use engine::{ConsumedCapacity, EMBEDDED_SHARD, Embedded, EmbeddedStream};
pub use error::EmbeddedError;
pub use feed::ChangeFeed;
pub use schema::{IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema, VectorIndexSchema};
pub use table::{IndexStats, TableStats};
