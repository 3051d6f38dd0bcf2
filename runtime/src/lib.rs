//! The typed API of [singletable](https://docs.rs/singletable): `Db` and
//! the operations users call on it (queries, updates, transactions,
//! batches, unique values, TTL, vector search, tracing) and the
//! design's compile-time checks, over `singletable-core` (values, keys,
//! requests, executors, the entity traits), whose modules it re-exports.
//! Applications depend on the `singletable` facade crate, which re-exports
//! what they name from here together with the derives.
//!
//! The modules are floors that import only downward; the README's Layout
//! table lists them and a test holds the code to it. No backend is named
//! here and no HTTP client is built: the AWS driver (`singletable-aws`) and
//! the embedded backend (`singletable-embedded`) are executors over core,
//! and the facade's `Backend` chooses between them. Tooling off the
//! request path (the design document, table definitions and drift,
//! capacity estimates) is the crate `singletable-tools`.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use singletable_core::{
    admin, capacity, decode, error, expr, key, reader, request, shape, size, stream, value,
};

pub mod backend;
pub mod batch;
pub mod clock;
pub mod collection;
pub mod cost;
pub mod db;
pub mod definition;
mod deprecated;
pub mod design;
pub mod entity;
pub mod exec;
pub mod fields;
mod guarded;
pub mod nested;
pub mod page;
pub mod query;
pub mod shard;
pub mod sort;
pub mod trace;
pub mod transact;
pub mod ttl;
pub mod unique;
pub mod update;
pub mod vector;

pub use admin::Admin;
pub use backend::{HoldsTables, SharedExecutor};
pub use batch::{BatchGetOutcome, BatchGetter, BatchPolicy, BatchWriter};
pub use clock::Clock;
pub use db::Db;
pub use entity::{
    AttrPartition, AttributeKey, Entity, GlobalIndex, KeyAttribute, KeyType, LocalIndex, Partition,
    Projection, SchemaVersion, StreamView, Table,
};
pub use error::{
    CancellationReason, CursorError, DecodeError, DecodeErrorKind, EncodeError, Error, KeyError,
    Refusal, Result, StreamError,
};
pub use exec::{Counting, Executor};
pub use expr::{Cmp, Condition, Operand, SortCondition};
pub use fields::{
    CollectionPath, Cond, Field, FieldPath, Fields, KeyField, PkField, StringPath, ValueFor,
};
pub use key::{IndexKey, KeyPart, KeyPartDecode, PrimaryKey};
pub use nested::{DocField, Document, Entry, Nested};
pub use query::{
    Cursor, Decode, KeyOf, OnGlobalIndex, OnLocalIndex, OnTable, OtherTypes, Page, Projected, Query,
};
pub use request::ReturnValues;
pub use shard::ShardedQuery;
pub use transact::{Handle, ReadResults, ReadTransaction, Transaction};
pub use update::{Returned, Update};
pub use value::{Attr, AttributeValue, Blob, Item};

/// Used by generated code only; not a public API.
#[doc(hidden)]
pub mod __private;
