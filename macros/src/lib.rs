//! Derive macros of [singletable](https://docs.rs/singletable). Use them
//! through the `singletable` crate, which re-exports them with the runtime
//! their generated code calls; their reference (every attribute, what each
//! derive generates) is on each derive, and reads best there, as
//! `singletable::Table`, `singletable::Entity`, `singletable::Document`,
//! `singletable::StrEnum` and `singletable::Collection`, where its links
//! lead into the runtime's items.
//!
//! Each derive parses its input into a model, checks it, and expands it;
//! every error is reported on the token to fix, all errors of one derive
//! together, with a stub impl beside them so no follow-up errors appear.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod expand;
mod internals;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

#[doc = include_str!("../doc/table.md")]
#[proc_macro_derive(Table, attributes(table))]
pub fn derive_table(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::table::derive(&input).into()
}

#[doc = include_str!("../doc/entity.md")]
#[proc_macro_derive(
    Entity,
    attributes(
        entity, attr, pk, sk, gsi1, gsi2, gsi3, gsi4, gsi5, gsi6, gsi7, gsi8, gsi9, gsi10, gsi11,
        gsi12, gsi13, gsi14, gsi15, gsi16, gsi17, gsi18, gsi19, gsi20, lsi1, lsi2, lsi3, lsi4,
        lsi5, vector1, vector2, vector3, vector4, access
    )
)]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::entity::derive(&input).into()
}

#[doc = include_str!("../doc/document.md")]
#[proc_macro_derive(Document, attributes(document, attr))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::document::derive(&input).into()
}

#[doc = include_str!("../doc/str_enum.md")]
#[proc_macro_derive(StrEnum, attributes(str_enum))]
pub fn derive_str_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::str_enum::derive(&input).into()
}

#[doc = include_str!("../doc/collection.md")]
#[proc_macro_derive(Collection, attributes(collection))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::collection::derive(&input).into()
}
