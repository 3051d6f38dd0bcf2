//! Code generation: each derive's expansion, split by concern. Generators
//! read the model in `crate::internals`; the model never names them.

pub mod access;
pub mod attr_index;
pub mod collection;
pub mod document;
pub mod entity;
pub mod fields;
pub mod shape;
pub mod str_enum;
pub mod table;
pub mod version;
