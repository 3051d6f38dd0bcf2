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
mod style;
mod table;
mod template;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Declares a DynamoDB table: name, key attributes, indexes.
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
/// Field attributes (`#[attr(...)]`): `rename`, `skip`, `default`, `serde`,
/// the validations `min`, `max`, `min_len`, `max_len`, `validate`, and
/// `version`, `ttl`; `created_at` and `updated_at`, which every write stamps
/// from the handle's clock before any key is built, so they may be used in
/// key templates; `unique`, which keeps one marker item per value so that
/// no two items of the entity hold the same value (not allowed on a field
/// of a key template). The README's field options describe each.
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

/// A nested struct stored as a map attribute (`M`), with the field
/// options of an entity (`rename`, `skip`, `default`, validations). It
/// also implements `singletable::Document` and generates `<Name>Fields`,
/// the handles typed paths pick a field from:
/// `Order::fields().address.field(|a| a.city)`.
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
