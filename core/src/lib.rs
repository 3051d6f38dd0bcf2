//! The core of [singletable](https://docs.rs/singletable): what executors
//! and generated code need, and nothing of the typed API users call.
//!
//! Applications depend on the `singletable` facade, which re-exports what
//! they name from here; backends (the embedded engine, the AWS driver, the
//! endpoint) depend on this crate alone.
//!
//! The modules are floors that import only downward, bottom first:
//! values and their codec errors (`value`), keys and the key codec
//! (`key`), `error`, expressions and requests (`expr`, `request`, with the
//! capacity rules in `capacity` and item sizes in `size`), the reader and
//! the page and stored-item byte format (`reader`), executors and table
//! administration (`exec`, `admin`, `backend`, with the table
//! definitions in `definition`), the declarations the derives
//! implement (`shape`, `entity`, `clock`) and `__private`, which holds what
//! generated code needs.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod admin;
pub mod backend;
pub mod capacity;
pub mod clock;
mod codec_error;
pub mod decode;
pub mod definition;
pub mod entity;
pub mod error;
pub mod exec;
pub mod expr;
mod field_codec;
mod future;
pub mod key;
pub mod reader;
mod refusal;
pub mod request;
mod serde_bridge;
pub mod shape;
pub mod size;
pub mod stream;
mod timestamp;
pub mod value;
pub mod vector;

pub use admin::Admin;
pub use backend::{HoldsTables, SharedExecutor};
pub use decode::Decode;
pub use entity::{
    AttributeKey, Entity, GlobalIndex, KeyAttribute, KeyType, LocalIndex, Projection,
    SchemaVersion, StreamView, Table,
};
pub use error::{
    CancellationReason, CursorError, DecodeError, DecodeErrorKind, EncodeError, Error, KeyError,
    Refusal, Result, StreamError,
};
pub use exec::Executor;
pub use expr::{Cmp, Condition, Operand, SortCondition};
pub use key::{IndexKey, KeyOf, KeyPart, KeyPartDecode, PrimaryKey};
pub use reader::OtherTypes;
pub use request::ReturnValues;
pub use value::{Attr, AttributeValue, Blob, Item};

/// Used by generated code only; not a public API.
#[doc(hidden)]
pub mod __private;
