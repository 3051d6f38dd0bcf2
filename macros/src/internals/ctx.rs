//! What every generator reads: the derive's context, and the helpers its
//! messages and spans share. A leaf: it names only the model.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};

use crate::internals::model::Field;

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

/// A few tokens the generated code names again and again (the crate's
/// paths), kept as trees: `quote!` writes them tree by tree into the
/// stream it builds, where each interpolation of a `TokenStream` costs the
/// proc macro a clone and a concatenation, two calls into the compiler.
#[derive(Clone)]
pub(crate) struct Tokens(Vec<TokenTree>);

impl Tokens {
    pub fn new(tokens: TokenStream) -> Self {
        Tokens(tokens.into_iter().collect())
    }
}

impl ToTokens for Tokens {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.0.iter().cloned());
    }
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
