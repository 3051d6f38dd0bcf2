//! Typed paths below a field: an entry of a map (`reviewers["ana"]`), an
//! element of a list (`lines[3]`), a field of a nested
//! `#[derive(Document)]` struct (`address.city`), and any chain of them.
//!
//! Each path is typed by the value it names, so conditions and update
//! actions on it take values of that type, and a path that does not exist
//! (a field the document does not have, `entry` on a field that is not a
//! map) does not compile:
//!
//! ```
//! use std::collections::BTreeMap;
//! use singletable::{Document, Entity, FieldPath, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Document, Debug, Clone, PartialEq)]
//! pub struct Address { pub city: String, pub zip: Option<String> }
//!
//! #[derive(Document, Debug, Clone, PartialEq)]
//! pub struct Line { pub sku: String, pub qty: u32 }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(table = App, name = "Order")]
//! #[pk("ORDER#<id>")]
//! #[sk("DETAILS")]
//! pub struct Order {
//!     pub id: String,
//!     pub address: Address,
//!     pub reviewers: BTreeMap<String, bool>,
//!     pub lines: Vec<Line>,
//! }
//!
//! let f = Order::fields();
//! let update = Order::update("o-1")
//!     .set(f.reviewers.entry("ana"), true)                  // SET #n0.#n1 = :v0
//!     .set(f.address.field(|a| a.city), "Lyon".to_owned())  // SET #n2.#n3 = :v1
//!     .add(f.lines.at(0).field(|l| l.qty), 2)               // ADD #n4[0].#n5 :v2
//!     .remove(f.address.field(|a| a.zip))                   // REMOVE #n2.#n6
//!     .only_if(f.reviewers.entry("bob").not_exists());
//! # let _ = update;
//! ```
//!
//! DynamoDB writes below an attribute only where the parent exists: a `set`
//! of a map entry when the map attribute is missing fails with
//! [`Error::Service`](crate::Error::Service) (a ValidationException, "The
//! document path provided in the update expression is invalid for
//! update"); set the whole field first. An index past the end of a list
//! appends. A write below an attribute leaves the rest of the attribute as
//! stored, so two writers of different entries of one map both succeed.

use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;

use crate::entity::Entity;
use crate::expr::PathStep;
use crate::fields::{Check, Field, FieldPath};
use crate::value::Attr;

/// A `#[derive(Document)]` struct: its fields can be named in paths
/// (`f.address.field(|a| a.city)`); see the [module documentation](self)
/// for an example. Implemented by the derive only.
///
/// ```
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
/// let handles = <Address as Document>::fields();
/// let _city = handles.city; // what `field(|a| a.city)` picks
/// ```
pub trait Document: Attr {
    /// The attributes the document reads and writes (stored names): what
    /// an index must project for an access pattern to return the document
    /// (`#[access(name, index = gsiN, select = Summary)]`).
    ///
    /// ```
    /// use singletable::{Document, nested::Document as _};
    ///
    /// #[derive(Document)]
    /// #[document(rename_all = "camelCase")]
    /// pub struct Listing { pub title: String, pub unit_price: u32, #[attr(skip)] pub cached: bool }
    ///
    /// assert_eq!(Listing::ATTRIBUTES, ["title", "unitPrice"]);
    /// ```
    const ATTRIBUTES: &'static [&'static str] = &[];
    /// The generated handles on the document's fields (`AddressFields`).
    type Fields: Copy;
    /// The handles.
    fn fields() -> Self::Fields;
}

/// A field of a document, relative to the document: what the closure of
/// `field(|a| a.city)` picks from the document's generated handles
/// (`AddressFields`); see the [module documentation](self).
///
/// ```
/// use singletable::nested::{DocField, Nested};
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
/// let city: DocField<Address, String> = Address::fields().city;
/// let path: Nested<Order, String> = Order::fields().address.field(|a| a.city);
/// # let _ = (city, path);
/// ```
pub struct DocField<D, T> {
    name: &'static str,
    field: &'static str,
    check: Option<Check<T>>,
    _m: PhantomData<fn() -> (D, T)>,
}

crate::fields::settable_field!(DocField);

impl<D, T> Clone for DocField<D, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D, T> Copy for DocField<D, T> {}
impl<D, T> std::fmt::Debug for DocField<D, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DocField({})", self.name)
    }
}

/// A path to an entry of a map or an element of a list, typed by its
/// value: made by `entry(key)` and `at(index)`.
///
/// Removing one always reads back (the map lacks the key, the list is one
/// shorter), whatever its type. Setting one to `None` stores `NULL`, as
/// the map or list itself would be encoded. See the [module
/// documentation](self) for an example.
///
/// ```
/// use singletable::nested::Entry;
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
/// let ana: Entry<Order, bool> = Order::fields().reviewers.entry("ana");
/// let qty: singletable::nested::Nested<Order, u32> = Order::fields().lines.at(2).field(|l| l.qty);
/// let _update = Order::update("o1").set(ana, true).add(qty, 1); // SET #n0.#n1 = :v0 ADD #n2[2].#n3 :v1
/// ```
pub struct Entry<E, T> {
    attribute: &'static str,
    field: &'static str,
    steps: Vec<PathStep>,
    _m: PhantomData<fn() -> (E, T)>,
}

/// A path to a field of a nested document, typed by the field: made by
/// `field(|d| d.name)`.
///
/// Values set there pass the field's declared validations, as top-level
/// values do; setting an `Option` field to `None` removes it, as the
/// document codec leaves it out. See the [module documentation](self) for
/// an example.
///
/// ```
/// use singletable::nested::Nested;
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
/// let zip: Nested<Order, Option<String>> = Order::fields().address.field(|a| a.zip);
/// let _update = Order::update("o1").remove(zip); // REMOVE #n0.#n1
/// ```
pub struct Nested<E, T> {
    attribute: &'static str,
    field: &'static str,
    steps: Vec<PathStep>,
    check: Option<Check<T>>,
    _m: PhantomData<fn() -> (E, T)>,
}

impl<E, T> Clone for Entry<E, T> {
    fn clone(&self) -> Self {
        Self {
            attribute: self.attribute,
            field: self.field,
            steps: self.steps.clone(),
            _m: PhantomData,
        }
    }
}

impl<E, T> Clone for Nested<E, T> {
    fn clone(&self) -> Self {
        Self {
            attribute: self.attribute,
            field: self.field,
            steps: self.steps.clone(),
            check: self.check,
            _m: PhantomData,
        }
    }
}

impl<E, T> std::fmt::Debug for Entry<E, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Entry({}{:?})", self.attribute, self.steps)
    }
}

impl<E, T> std::fmt::Debug for Nested<E, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Nested({}{:?})", self.attribute, self.steps)
    }
}

impl<E: Entity, T: Attr> FieldPath<E, T> for Entry<E, T> {
    fn attribute(&self) -> &'static str {
        self.attribute
    }
    fn field_name(&self) -> &'static str {
        self.field
    }
    fn steps(&self) -> &[PathStep] {
        &self.steps
    }
}

crate::fields::condition_methods!(Entry);
crate::fields::condition_methods!(Nested);

impl<E: Entity, T: Attr> FieldPath<E, T> for Nested<E, T> {
    fn attribute(&self) -> &'static str {
        self.attribute
    }
    fn field_name(&self) -> &'static str {
        self.field
    }
    fn steps(&self) -> &[PathStep] {
        &self.steps
    }
}

impl<E, T> Nested<E, T> {
    /// Runs the document field's declared validations on `value`.
    pub(crate) fn check(&self, value: &T) -> Result<(), String> {
        self.check.map_or(Ok(()), |check| check(value))
    }
}

// Which paths have `entry`, `at` and `field`: the bounds of those methods,
// public only through `__private::nested` (users never name them).
pub(crate) mod holds {
    use super::*;

    /// Types stored as maps with string keys (and `Option`s of them): paths
    /// on them have `entry(key)`.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use singletable::__private::nested::MapType;
    ///
    /// fn entry_type<M: MapType<Value = bool>>() {}
    /// entry_type::<BTreeMap<String, bool>>();
    /// entry_type::<Option<BTreeMap<String, bool>>>();
    /// ```
    pub trait MapType {
        /// The type of an entry.
        type Value;
    }
    impl<V, S> MapType for HashMap<String, V, S> {
        type Value = V;
    }
    impl<V> MapType for BTreeMap<String, V> {
        type Value = V;
    }
    impl<M: MapType> MapType for Option<M> {
        type Value = M::Value;
    }

    /// Types stored as lists (and `Option`s of them): paths on them have
    /// `at(index)`.
    ///
    /// ```
    /// use singletable::__private::nested::ListType;
    ///
    /// fn element_type<L: ListType<Element = u8>>() {}
    /// element_type::<Vec<u8>>();
    /// ```
    pub trait ListType {
        /// The type of an element.
        type Element;
    }
    impl<V> ListType for Vec<V> {
        type Element = V;
    }
    impl<L: ListType> ListType for Option<L> {
        type Element = L::Element;
    }

    /// Documents (and `Option`s of them): paths on them have
    /// `field(|d| d.name)`.
    ///
    /// ```
    /// use singletable::__private::nested::HoldsDocument;
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
    /// fn holds<H: HoldsDocument<Document = Address>>() {}
    /// holds::<Address>();
    /// holds::<Option<Address>>();
    /// ```
    pub trait HoldsDocument {
        /// The document.
        type Document: Document;
    }
    impl<D: Document> HoldsDocument for D {
        type Document = D;
    }
    impl<D: Document> HoldsDocument for Option<D> {
        type Document = D;
    }
}
use holds::{HoldsDocument, ListType, MapType};

fn below<E, T>(
    attribute: &'static str,
    field: &'static str,
    steps: &[PathStep],
    step: PathStep,
) -> Entry<E, T> {
    let mut steps = steps.to_vec();
    steps.push(step);
    Entry {
        attribute,
        field,
        steps,
        _m: PhantomData,
    }
}

/// `entry`, `at` and `field` on every handle whose value can hold them.
macro_rules! descend {
    ($ty:ident) => {
        impl<E: Entity, X: Attr + MapType> $ty<E, X> {
            /// The entry `key` of this map (a `HashMap` or `BTreeMap` with
            /// `String` keys, or an `Option` of one): `path.key` with `key`
            /// as one placeholdered name, so `.`, `[` or `#` in it are safe.
            pub fn entry(&self, key: impl Into<String>) -> Entry<E, X::Value> {
                below(
                    self.attribute(),
                    self.field_name(),
                    self.steps(),
                    PathStep::Key(key.into()),
                )
            }
        }

        impl<E: Entity, X: Attr + ListType> $ty<E, X> {
            /// The element `index` of this list (a `Vec`, or an `Option` of
            /// one): `path[index]`. An update
            /// that sets an index past the end appends; a condition on one
            /// finds no value.
            pub fn at(&self, index: usize) -> Entry<E, X::Element> {
                below(
                    self.attribute(),
                    self.field_name(),
                    self.steps(),
                    PathStep::Index(index),
                )
            }
        }

        impl<E: Entity, X: Attr + HoldsDocument> $ty<E, X> {
            /// The field of this document (a `#[derive(Document)]` type, or
            /// an `Option` of one) that `pick` names among the document's
            /// handles: `f.address.field(|a| a.city)` is the
            /// path `address.city`, typed by `city`.
            pub fn field<U>(
                &self,
                pick: impl FnOnce(<X::Document as Document>::Fields) -> DocField<X::Document, U>,
            ) -> Nested<E, U> {
                let f = pick(<X::Document as Document>::fields());
                let mut steps = self.steps().to_vec();
                steps.push(PathStep::Key(f.name.to_owned()));
                Nested {
                    attribute: self.attribute(),
                    field: f.field,
                    steps,
                    check: f.check,
                    _m: PhantomData,
                }
            }
        }
    };
}

descend!(Field);
descend!(Entry);
descend!(Nested);
