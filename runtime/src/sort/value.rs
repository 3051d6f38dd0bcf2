//! The sort-key bounds generated markers build: reachable only through
//! `__private`.

use crate::value::AttributeValue;

/// One bound of a sort-key condition, as a pattern's marker builds it.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// The sort key built from a template (`ORDER#2025#00000002`).
    Key(String),
    /// The value of one sort attribute of a multi-attribute key.
    Attr(&'static str, AttributeValue),
}
