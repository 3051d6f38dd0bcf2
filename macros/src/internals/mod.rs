//! The model layer: attributes parsed into a model (darling receivers, key
//! templates, case rules, indexes), the checks that need the whole model,
//! and the context generators read. Each derive has its model here
//! (`table`, `entity`, `collection`, `str_enum`; `Document` reads the
//! fields of `model`), read so that a mistake is reported and left out of
//! it, and the generators still emit the API from what remains. Nothing
//! here names `crate::expand`.

pub mod access;
pub mod attr;
pub mod attr_index;
pub mod case;
pub mod check;
pub mod collection;
pub mod ctx;
pub mod entity;
pub mod hint;
pub mod key_attr;
pub mod model;
pub mod str_enum;
pub mod style;
pub mod table;
pub mod template;
pub mod update_state;
pub mod vector;
pub mod version;
