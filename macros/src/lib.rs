//! Derive macros of [singletable](https://docs.rs/singletable). Use them
//! through the `singletable` crate, which re-exports them with the runtime
//! their generated code calls.
//!
//! Each derive parses its input into a model, checks it, and expands it;
//! every error is reported on the token to fix, all errors of one derive
//! together, with a stub impl beside them so no follow-up errors appear.

mod access;
mod attr;
mod case;
mod collection;
mod document;
mod entity;
mod fields;
mod model;
mod shape;
mod str_enum;
mod table;
mod template;
mod version;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Declares a DynamoDB table: name, key attributes, indexes.
///
/// Besides the keys and indexes, `#[table(...)]` takes:
///
/// - `stream = keys_only | new_image | old_image | new_and_old_images`: the
///   table has a DynamoDB stream with that view (`StreamViewType`).
///   CreateTable enables it, the CLI JSON and the CloudFormation resource
///   carry it, `Db::verify` reports a table whose stream differs, and the
///   embedded backend keeps a change feed of the same records
///   (`Embedded::change_feed`); `singletable::stream` decodes the records
///   into typed changes.
/// - `schema_version = "attr"`: the attribute holding the schema version of
///   entities that declare one (`#[entity(version = N)]`); default
///   `schemaVersion`.
#[proc_macro_derive(Table, attributes(table))]
pub fn derive_table(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    table::derive(&input).into()
}

/// Declares an entity stored in a table: key templates, indexes, codec.
///
/// Each `#[access(name, ...)]` adds `Entity::name(..)`, returning a query
/// type named after the entity and the pattern in PascalCase, defined next
/// to the entity: `#[access(orders_by_status, index = gsi1)]` on `Order`
/// gives `Order::orders_by_status(..) -> OrderOrdersByStatusQuery`.
///
/// # Schema versions
///
/// `#[entity(version = N)]` writes the attribute `schemaVersion = N` (see
/// `#[table(schema_version = ...)]`) with every item; items stored without
/// it are version 1. Items of an older version read as the current type:
/// through the stored shape that `migrate(vK = OldShape, ...)` names for
/// their version (a `#[derive(Document)]` struct of the attributes as they
/// were stored, converted with `impl From<OldShape> for Entity`), or, for
/// versions without a migration, field by field, with the fields' defaults
/// (`#[attr(default)]`) for what they lack. An item of a newer version than
/// the code's is a decode error (`DecodeErrorKind::SchemaVersion`). The
/// entity type and the keys do not depend on the version, so old and new
/// items share partitions and queries. Updates apply only to items stored
/// under a version newer than every migrated one; a backfill
/// (`db.backfill::<Entity>()`) rewrites old items in the current shape.
///
/// ```
/// use singletable::{Document, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// /// How version 1 stored a customer: one `name`.
/// #[derive(Document)]
/// pub struct CustomerV1 {
///     pub id: String,
///     pub name: String,
/// }
///
/// #[derive(Entity, Debug, PartialEq)]
/// #[entity(table = App, name = "Customer", version = 2, migrate(v1 = CustomerV1))]
/// #[pk("CUSTOMER#<id>")]
/// #[sk("PROFILE")]
/// pub struct Customer {
///     pub id: String,
///     pub first_name: String,
///     pub last_name: String,
/// }
///
/// impl From<CustomerV1> for Customer {
///     fn from(v1: CustomerV1) -> Self {
///         let (first, last) = v1.name.split_once(' ').unwrap_or((&v1.name, ""));
///         Customer { id: v1.id, first_name: first.into(), last_name: last.into() }
///     }
/// }
///
/// # fn main() -> singletable::Result<()> {
/// let mut old = singletable::Item::new();
/// for (k, v) in [("PK", "CUSTOMER#c1"), ("SK", "PROFILE"), ("entityType", "Customer"),
///                ("id", "c1"), ("name", "Ada Lovelace")] {
///     old.insert(k.into(), singletable::AttributeValue::S(v.into()));
/// }
/// let c = Customer::from_item(old)?;
/// assert_eq!((c.first_name.as_str(), c.last_name.as_str()), ("Ada", "Lovelace"));
/// assert_eq!(c.to_item()?["schemaVersion"].as_n().unwrap(), "2");
/// # Ok(())
/// # }
/// ```
#[proc_macro_derive(
    Entity,
    attributes(
        entity, attr, pk, sk, gsi1, gsi2, gsi3, gsi4, gsi5, gsi6, gsi7, gsi8, gsi9, gsi10, gsi11,
        gsi12, gsi13, gsi14, gsi15, gsi16, gsi17, gsi18, gsi19, gsi20, lsi1, lsi2, lsi3, lsi4,
        lsi5, access
    )
)]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    entity::derive(&input).into()
}

/// A nested struct stored as a map attribute (`M`).
#[proc_macro_derive(Document, attributes(document, attr))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    document::derive(&input).into()
}

/// A unit-only enum stored as a string and usable in keys.
#[proc_macro_derive(StrEnum, attributes(str_enum))]
pub fn derive_str_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    str_enum::derive(&input).into()
}

/// An enum of entities sharing one partition, read by one Query and decoded
/// by the entity-type attribute.
#[proc_macro_derive(Collection, attributes(collection))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    collection::derive(&input).into()
}
