//! What generated code builds a read's entity-type filter with: reachable
//! only through `__private`.

use super::*;

/// Items whose entity-type attribute `attribute` is one of `types`:
/// [`Decode::type_condition`] of an entity and of a collection.
pub fn types_condition(attribute: &str, types: &[&str]) -> Option<Condition> {
    types
        .iter()
        .map(|t| Condition::eq(attribute, AttributeValue::S((*t).to_owned())))
        .reduce(Condition::or)
}
