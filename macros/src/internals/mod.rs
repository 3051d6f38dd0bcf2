//! The model layer: attributes parsed into a model (darling receivers, key
//! templates, case rules, indexes), the checks that need the whole model,
//! and the context generators read. Nothing here names `crate::expand`.

pub mod attr;
pub mod attr_index;
pub mod case;
pub mod check;
pub mod ctx;
pub mod hint;
pub mod model;
pub mod style;
pub mod template;
