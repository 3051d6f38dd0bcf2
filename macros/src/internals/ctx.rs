//! What every generator reads: the derive's context, and the helpers its
//! messages and spans share. A leaf: it names only the model.

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::internals::model::Field;
pub(crate) use crate::internals::model::Tokens;

pub(crate) struct Ctx<'a> {
    /// The crate's path inside the derive's `const _` block.
    pub krate: &'a Tokens,
    /// The crate's `__private` module inside the block.
    pub private: &'a Tokens,
    /// The crate's path outside it (the types users name).
    pub outer: &'a Tokens,
    pub entity_ident: &'a syn::Ident,
    pub entity: &'a str,
    pub fields: &'a [Field],
    pub vis: &'a syn::Visibility,
}

/// Re-spans a path so a trait error about it points at `span`.
pub(crate) fn respan(path: &syn::Path, span: Span) -> TokenStream {
    let tokens = quote!(#path);
    tokens
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}
