//! Code generation: each derive's expansion, split by concern. Generators
//! read the model in `crate::internals`; the model never names them.

pub mod access;
pub mod attr_index;
pub mod collection;
pub mod document;
pub mod entity;
pub mod fields;
pub mod shape;
pub mod str_enum;
pub mod table;
pub mod vector;
pub mod version;

use proc_macro2::TokenStream;

/// The expansion, or after errors that left no model, the errors with the
/// derive's stub API beside them: the trait impls the rest of the code
/// needs, so that no second error follows.
pub fn or_stub(
    expansion: Result<TokenStream, TokenStream>,
    stub: impl FnOnce() -> TokenStream,
) -> TokenStream {
    expansion.unwrap_or_else(|mut errors| {
        errors.extend(stub());
        errors
    })
}

#[cfg(test)]
mod every_option;
