//! Compile-time checks of an entity against its table, each spanned on
//! the token to fix.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::attr::{self, IndexDecl, IndexKind};
use crate::internals::ctx::{Ctx, respan};
use crate::internals::model::Field;

impl Ctx<'_> {
    /// Compile-time checks against the table, each spanned on the token to fix.
    pub(super) fn compile_checks(&self, table: &syn::Path, keys: &attr::Keys) -> TokenStream {
        let pv = self.private;
        let mut out = TokenStream::new();
        let table_span = table.span();
        out.extend(quote_spanned! {table_span=>
            const TABLE: &#pv::TableAttrs = #pv::TableOf::<#table>::ATTRS;
        });
        // The checks of one const (it stops at the first that fails), each
        // panic spanned on its token.
        let mut checks = TokenStream::new();
        let entity = self.entity;
        match &keys.sk {
            Some((_, span)) => {
                let msg = format!(
                    "entity `{entity}` declares `#[sk]`, but its table has no sort key; remove `#[sk]` or give the table a sort key"
                );
                checks.extend(quote_spanned! {*span=>
                    if TABLE.sk.is_none() { __private::fail(#msg) }
                });
            }
            None => {
                let msg = format!(
                    "entity `{entity}` declares no `#[sk]`, but its table has a sort key; add `#[sk(\"...\")]` to the entity"
                );
                let span = keys.pk_span;
                checks.extend(quote_spanned! {span=>
                    if TABLE.sk.is_some() { __private::fail(#msg) }
                });
            }
        }
        for index in &keys.indexes {
            out.extend(self.index_check(table, index));
        }
        out.extend(self.shared_attribute_checks(keys));
        // Stored names must not collide with the table's key attributes:
        // one check for all fields, each field's message spanned on it.
        let stored: Vec<&Field> = self.fields.iter().filter(|f| f.written()).collect();
        let names = stored.iter().map(|f| &f.stored);
        let arms = stored.iter().enumerate().map(|(i, f)| {
            let msg = format!(
                "field `{}` is stored as `{}`, a key or entity-type attribute of the table; rename it with `#[attr(rename = \"...\")]`",
                f.name(),
                f.stored
            );
            quote_spanned! {f.stored_span=> #i => __private::fail(#msg), }
        });
        if !stored.is_empty() {
            checks.extend(quote! {
                match #pv::first_reserved(TABLE.reserved, &[#(#names),*]) {
                    #(#arms)*
                    _ => {}
                }
            });
        }
        // Placeholder types must be key parts; the error points at the type.
        let asserts = &mut checks;
        let mut done: Vec<String> = Vec::new();
        let all_templates = keys.pk.iter().chain(keys.sk.iter().map(|(t, _)| t)).chain(
            keys.indexes
                .iter()
                .flat_map(|i| i.pk.iter().chain(i.sk.iter())),
        );
        for t in all_templates {
            for name in t.fields() {
                if done.iter().any(|d| d == name) {
                    continue;
                }
                done.push(name.to_owned());
                let f = self.field(name);
                let ty = &f.ty;
                let assert = if f.opts.verbatim.is_present() {
                    quote!(assert_verbatim)
                } else if f.opts.unpadded.is_present() {
                    quote!(assert_unpadded)
                } else {
                    quote!(assert_key_part)
                };
                asserts.extend(quote_spanned! {ty.span()=>
                    #pv::#assert::<#ty>();
                });
            }
        }
        for f in self.fields.iter().filter(|f| f.opts.unique.is_present()) {
            let ty = &f.ty;
            asserts.extend(quote_spanned! {ty.span()=>
                #pv::assert_unique::<#ty>();
            });
        }
        out.extend(quote! {
            const _: () = { #checks };
        });
        out
    }

    /// An index key may be stored in an attribute another key writes (an
    /// inverted index on the table's sort key, a second index on the same
    /// partition attribute); each pair of this entity's keys with different
    /// templates gets a check that fails, at the later key, when their
    /// attributes turn out to be one.
    fn shared_attribute_checks(&self, keys: &attr::Keys) -> TokenStream {
        let pv = self.private;
        // (what the key is, the attribute's `Option<&str>`, the template,
        // the token to point at, what to write there).
        let mut written: Vec<(String, TokenStream, String, Span, &str)> = Vec::new();
        if let Some(pk) = &keys.pk {
            let attr = quote!(#pv::Some(TABLE.pk));
            written.push((
                "the table's partition key".into(),
                attr,
                pk.text(),
                keys.pk_span,
                "",
            ));
        }
        if let Some((sk, span)) = &keys.sk {
            written.push((
                "the table's sort key".into(),
                quote!(TABLE.sk),
                sk.text(),
                *span,
                "",
            ));
        }
        for index in &keys.indexes {
            let name = index.name();
            let (pk_attr, sk_attr) = match index.kind {
                IndexKind::Gsi(n) => {
                    let konst = format_ident!("GSI{}", n);
                    (quote!(#pv::Some(#konst.pk)), quote!(#konst.sk))
                }
                IndexKind::Lsi(n) => {
                    let konst = format_ident!("LSI{}", n);
                    (quote!(#pv::None), quote!(#pv::Some(#konst.sk)))
                }
            };
            if let Some(t) = &index.pk {
                let what = format!("`{name}`'s partition key");
                written.push((what, pk_attr, t.text(), t.lit.span(), "pk"));
            }
            if let Some(t) = &index.sk {
                let what = format!("`{name}`'s sort key");
                written.push((what, sk_attr, t.text(), t.lit.span(), "sk"));
            }
        }
        let mut out = TokenStream::new();
        // The first `table_keys` entries are the table's own keys: the Table
        // derive refuses one attribute name for both, so that pair needs no
        // check (one constant less per entity for the compiler).
        let table_keys = usize::from(keys.pk.is_some()) + usize::from(keys.sk.is_some());
        for (i, (what, attr, text, span, option)) in written.iter().enumerate() {
            for (j, (other, other_attr, other_text, ..)) in written[..i].iter().enumerate() {
                if text == other_text || (i < table_keys && j < table_keys) {
                    continue;
                }
                let msg = format!(
                    "{what} is stored in the same attribute as {other}, whose template here is `{other_text}`; one attribute holds one value, so write `{option} = \"{other_text}\"`"
                );
                out.extend(quote_spanned! {*span=>
                    const _: () = if #pv::same_attr(#attr, #other_attr) { __private::fail(#msg) };
                });
            }
        }
        out
    }

    fn index_check(&self, table: &syn::Path, index: &IndexDecl) -> TokenStream {
        let pv = self.private;
        let span = index.span;
        let name = index.name();
        let table = respan(table, span);
        match index.kind {
            IndexKind::Gsi(n) => {
                let konst = format_ident!("GSI{}", n);
                let has_sk = index.sk.is_some();
                let msg = if has_sk {
                    format!(
                        "`{name}` has no sort key on the table, but this entity gives it one; remove `sk = ...` or declare the index's sort key on the table"
                    )
                } else {
                    format!(
                        "`{name}` has a sort key on the table, but this entity gives it none; add `sk = \"...\"`"
                    )
                };
                let cond = if has_sk {
                    quote!(#konst.sk.is_none())
                } else {
                    quote!(#konst.sk.is_some())
                };
                quote_spanned! {span=>
                    const #konst: #pv::GsiAttrs = #pv::gsi_attrs::<#table, #n>();
                    const _: () = if #cond { __private::fail(#msg) };
                }
            }
            IndexKind::Lsi(n) => {
                let konst = format_ident!("LSI{}", n);
                quote_spanned! {span=>
                    const #konst: #pv::LsiAttrs = #pv::lsi_attrs::<#table, #n>();
                }
            }
        }
    }
}
