//! Runtime of [singletable](https://docs.rs/singletable): the key codec, the
//! item codec and the traits that `#[derive(Table)]` and `#[derive(Entity)]`
//! implement. Applications depend on the `singletable` facade crate, which
//! re-exports everything here together with the derives.
//!
//! The modules are floors that import only downward, bottom first: values
//! (`value`, the codec's errors), expressions and requests (`expr`,
//! `request`), `error`, codecs and readers (`key`, `clock`, `page`,
//! `reader`, …), executors (`exec`), declarations (`shape`, `entity`,
//! `fields`, …), typed operations (`db`, `query`, `update`, `transact`, …),
//! the design's shapes and checks (`design`); the README's "Layout of the
//! code" lists every module and a test holds the code to it. No backend is
//! named here and no HTTP client is built: the AWS driver is the crate
//! `singletable-aws`, the embedded backend the crate
//! `singletable-embedded`, both built on these floors, and the facade's
//! `Backend` chooses between them. Tooling off the request path (the design
//! document, table definitions and drift, capacity estimates) is the crate
//! `singletable-tools`.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use singletable_core::{
    admin, backend, capacity, clock, decode, definition, entity, error, exec, expr, key, reader,
    request, shape, size, stream, value,
};

pub mod backfill;
pub mod batch;
#[doc(hidden)]
pub mod collection;
pub mod db;
pub mod design;
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
pub use backfill::{Backfill, BackfillReport, Checkpoint};
pub use batch::{BatchGetOutcome, BatchGetter, BatchPolicy, BatchWriter};
pub use clock::Clock;
pub use db::Db;
pub use entity::{
    AttrPartition, AttributeKey, Entity, GlobalIndex, KeyAttribute, KeyType, LocalIndex, Partition,
    Projection, SchemaVersion, StreamView, Table,
};
pub use error::{
    CancellationReason, CursorError, DecodeError, DecodeErrorKind, EncodeError, Error, KeyError,
    Result, StreamError,
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
