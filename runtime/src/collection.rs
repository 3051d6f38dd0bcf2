//! What `#[derive(Collection)]` generates code against: its shape, for
//! the design document; the compile-time
//! check that every member lives in the collection's partition (of the
//! table, a global index or a local index) under its sort-key prefix, and
//! the in-place reading of a collection's items.

use crate::error::{DecodeError, Error};
use crate::reader::AttrReader;
pub use crate::shape::CollectionShape;
use crate::shape::{EntityShape, KeySeg, KeyShape};
use crate::value::{AttributeValue, Item};
use singletable_core::__private::str_eq;

/// Implemented by `#[derive(Collection)]`: the collection's shape.
pub trait HasShape {
    /// The shape, for the design document.
    const SHAPE: CollectionShape;
}

pub(crate) mod generated;

/// Entity `Self` is a member of collection `C` (a variant of its enum):
/// `#[derive(Collection)]` implements it for each member. A condition on
/// a member's fields filters a query of the collection
/// ([`Cond::in_collection`](crate::Cond::in_collection)); one on another
/// entity's fields would hold for every item, so it does not compile.
///
/// ```
/// use singletable::__private::collection::MemberOf;
/// use singletable::{Collection, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug)]
/// # #[entity(table = App)]
/// # #[pk("ORDER#<id>")]
/// # #[sk("ORDER")]
/// # pub struct Order { pub id: String }
/// #[derive(Collection, Debug)]
/// pub enum Orders { Order(Order) }
///
/// fn member<E: MemberOf<C>, C>() {}
/// member::<Order, Orders>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a member of collection `{C}`",
    label = "a condition on the fields of `{Self}`, which `{C}` never reads",
    note = "a condition on a non-member's fields would hold for every item of the query; filter on the fields of one of `{C}`'s variants, or add `{Self}` to the collection"
)]
pub trait MemberOf<C> {}

#[cfg(test)]
mod tests {
    use super::generated::template_starts_with;

    #[test]
    fn prefixes_stop_at_placeholders() {
        assert!(template_starts_with(
            "OWNED#TICKET#<number>",
            "OWNED#TICKET#"
        ));
        assert!(template_starts_with("OWNED#TICKET#<number>", "OWNED#"));
        assert!(!template_starts_with("OWNED#<kind>#X", "OWNED#TICKET#"));
        assert!(!template_starts_with("REPO#<name>", "OWNED#"));
        assert!(template_starts_with("A", ""));
    }
}
