//! Which field handles and paths each action takes: [`Settable`] for
//! `set`, [`NonKeyPath`] for `set_if_not_exists`, `add`, `delete`,
//! `append` and `prepend`, [`Removable`] for `remove`, [`Addable`] and
//! [`SetType`] for the values of `add` and `delete`.

use super::*;

/// Fields that can be set by an update: every stored field except the
/// primary key's, and every path below a field (map entries, list
/// elements, fields of nested documents).
///
/// ```
/// use singletable::__private::update::Settable;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub name: String }
///
/// fn settable<F: Settable<User, String>>(_: F) {}
/// settable(User::fields().name);
/// ```
///
/// A primary-key field is not:
///
/// ```compile_fail
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub name: String }
/// let u = User::update("ana").set(User::fields().id, "bo".to_string()); // `PkField` cannot be updated
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be updated",
    label = "primary-key fields are immutable",
    note = "an item's primary key cannot change; write a new item (and delete the old one) instead"
)]
pub trait Settable<E: Entity, T: Attr>: FieldPath<E, T> {
    /// What setting it marks in the update's state (see the typestate, `Ready`): `()`
    /// for a field no key needs beside another, a [`Slot`] otherwise.
    type Slot;
    /// Runs the field's declared validations (`min`, `max`, `min_len`,
    /// `max_len`, `validate`) on `value`: what `set` checks before sending.
    fn check(&self, value: &T) -> Result<(), String>;
    /// `value` as a key part, when a secondary index's key is built from
    /// the path (`None` for a path no key holds): what `set` rewrites the
    /// index keys with.
    fn key_part(&self, value: &T) -> Option<Result<String, Error>>;
    /// Whether a value stored as absent (`None`, an empty set) removes the
    /// path: true for attributes and document fields, whose codecs leave
    /// such values out; false for map entries and list elements, which
    /// store `NULL` like the whole map or list would.
    fn absent_removes(&self) -> bool {
        true
    }
}

impl<E: Entity, T: Attr> Settable<E, T> for Field<E, T> {
    type Slot = ();
    fn check(&self, value: &T) -> Result<(), String> {
        Field::check(self, value)
    }
    fn key_part(&self, _: &T) -> Option<Result<String, Error>> {
        None
    }
}

impl<E: Entity, T: Attr + KeyPart, M> Settable<E, T> for KeyField<E, T, M> {
    type Slot = M;
    fn check(&self, value: &T) -> Result<(), String> {
        KeyField::check(self, value)
    }
    fn key_part(&self, value: &T) -> Option<Result<String, Error>> {
        let mut out = String::new();
        let field = self.field_name();
        Some(crate::key::write_part(E::ENTITY_TYPE, field, value, &mut out).map(|()| out))
    }
}

impl<E: Entity, T: Attr> Settable<E, T> for Entry<E, T> {
    type Slot = ();
    fn check(&self, _: &T) -> Result<(), String> {
        Ok(())
    }
    fn key_part(&self, _: &T) -> Option<Result<String, Error>> {
        None
    }
    fn absent_removes(&self) -> bool {
        false
    }
}

impl<E: Entity, T: Attr> Settable<E, T> for Nested<E, T> {
    type Slot = ();
    fn check(&self, value: &T) -> Result<(), String> {
        Nested::check(self, value)
    }
    fn key_part(&self, _: &T) -> Option<Result<String, Error>> {
        None
    }
}

/// Paths that are part of no key: the ones `set_if_not_exists`, `add`,
/// `delete`, `append` and `prepend` accept, whose result the update cannot
/// know, so no key could be rebuilt from it.
///
/// ```
/// use singletable::__private::update::NonKeyPath;
/// # use std::collections::BTreeMap;
/// # use singletable::{Document, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Document, Debug, Clone, PartialEq)]
/// # pub struct Address { pub city: String, pub zip: Option<String> }
/// # #[derive(Document, Debug, Clone, PartialEq)]
/// # pub struct Line { pub sku: String, pub qty: u32 }
/// # #[derive(Entity, Debug, Clone)]
/// # #[entity(table = App, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct Order {
/// #     pub id: String,
/// #     pub address: Address,
/// #     pub reviewers: BTreeMap<String, bool>,
/// #     pub lines: Vec<Line>,
/// #     pub note: Option<String>,
/// #     pub visits: u32,
/// # }
/// fn non_key<P: NonKeyPath<Order, u32>>(_: P) {}
/// non_key(Order::fields().visits);
/// non_key(Order::fields().lines.at(0).field(|l| l.qty));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is part of a key; this update action cannot keep the key in sync",
    label = "a key field can only be changed with `set`",
    note = "`set` rewrites every index key built from the field in the same request"
)]
pub trait NonKeyPath<E: Entity, T: Attr>: Settable<E, T> {}
impl<E: Entity, T: Attr> NonKeyPath<E, T> for Field<E, T> {}
impl<E: Entity, T: Attr> NonKeyPath<E, T> for Entry<E, T> {}
impl<E: Entity, T: Attr> NonKeyPath<E, T> for Nested<E, T> {}

/// Paths `remove` accepts: `Option` fields (they read back as `None`),
/// `Option` fields of nested documents, map entries and list elements.
///
/// ```
/// use singletable::__private::update::Removable;
/// # use std::collections::BTreeMap;
/// # use singletable::{Document, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Document, Debug, Clone, PartialEq)]
/// # pub struct Address { pub city: String, pub zip: Option<String> }
/// # #[derive(Document, Debug, Clone, PartialEq)]
/// # pub struct Line { pub sku: String, pub qty: u32 }
/// # #[derive(Entity, Debug, Clone)]
/// # #[entity(table = App, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct Order {
/// #     pub id: String,
/// #     pub address: Address,
/// #     pub reviewers: BTreeMap<String, bool>,
/// #     pub lines: Vec<Line>,
/// #     pub note: Option<String>,
/// #     pub visits: u32,
/// # }
/// fn removable<T: singletable::Attr, P: Removable<Order, T>>(_: P) {}
/// removable(Order::fields().note);
/// removable(Order::fields().reviewers.entry("ana"));
/// removable(Order::fields().address.field(|a| a.zip));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be removed",
    label = "only `Option` fields, map entries and list elements can be removed",
    note = "an item without this attribute could not be read back; `set` a new value instead"
)]
pub trait Removable<E: Entity, T: Attr>: FieldPath<E, T> {
    /// Whether the field's validations accept its absence: what `remove`
    /// checks before sending.
    fn check_removal(&self) -> Result<(), String>;
}

impl<E: Entity, T: Attr> Removable<E, Option<T>> for Field<E, Option<T>> {
    fn check_removal(&self) -> Result<(), String> {
        Field::check(self, &None)
    }
}

impl<E: Entity, T: Attr> Removable<E, Option<T>> for Nested<E, Option<T>> {
    fn check_removal(&self) -> Result<(), String> {
        Nested::check(self, &None)
    }
}

impl<E: Entity, T: Attr> Removable<E, T> for Entry<E, T> {
    fn check_removal(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Numbers and sets, which `ADD` accepts.
///
/// ```
/// use std::collections::BTreeSet;
/// use singletable::__private::update::Addable;
///
/// fn addable<T: Addable>() {}
/// addable::<u64>();
/// addable::<f64>();
/// addable::<BTreeSet<String>>();
/// ```
pub trait Addable: Attr {}
macro_rules! addable {
    ($($t:ty),*) => {$(impl Addable for $t {})*};
}
addable!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);
impl<V> Addable for BTreeSet<V> where BTreeSet<V>: Attr {}
impl<V, S> Addable for std::collections::HashSet<V, S> where std::collections::HashSet<V, S>: Attr {}

/// Sets, which `DELETE` accepts.
///
/// ```
/// use std::collections::HashSet;
/// use singletable::__private::update::SetType;
///
/// fn set_type<T: SetType>() {}
/// set_type::<HashSet<u32>>();
/// ```
pub trait SetType: Attr {}
impl<V> SetType for BTreeSet<V> where BTreeSet<V>: Attr {}
impl<V, S> SetType for std::collections::HashSet<V, S> where std::collections::HashSet<V, S>: Attr {}
