//! Key parts: the templates a derive builds keys from, each placeholder
//! written or read through its field's probe, and the calls of the key
//! builders.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::attr::{self, Template};
use crate::internals::ctx::Ctx;
use crate::internals::model::{self, Field};
use crate::internals::template::Segment;

/// Which key a template fills, for naming and size limits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Partition,
    Sort,
}

pub(super) struct KeyFn<'a> {
    /// Builder name: `pk`, `sk`, `gsi1_pk`, `lsi1_sk`.
    pub(super) name: String,
    pub(super) template: &'a Template,
    pub(super) role: Role,
}

/// The key builders: `pk`, `sk`, then each index's `gsiN_pk`, `gsiN_sk`.
pub(super) fn key_fns<'a>(pk: &'a Template, keys: &'a attr::Keys) -> Vec<KeyFn<'a>> {
    let mut key_fns = vec![KeyFn {
        name: "pk".into(),
        template: pk,
        role: Role::Partition,
    }];
    if let Some((sk, _)) = &keys.sk {
        key_fns.push(KeyFn {
            name: "sk".into(),
            template: sk,
            role: Role::Sort,
        });
    }
    for index in &keys.indexes {
        let n = index.name();
        if let Some(t) = &index.pk {
            key_fns.push(KeyFn {
                name: format!("{n}_pk"),
                template: t,
                role: Role::Partition,
            });
        }
        if let Some(t) = &index.sk {
            key_fns.push(KeyFn {
                name: format!("{n}_sk"),
                template: t,
                role: Role::Sort,
            });
        }
    }
    key_fns
}

impl Ctx<'_> {
    pub fn field(&self, name: &str) -> &Field {
        // check_templates guarantees every placeholder names a field.
        self.fields
            .iter()
            .find(|f| f.name() == name)
            .unwrap_or_else(|| unreachable!("placeholder `{name}` was checked"))
    }

    pub(super) fn max_len(&self, role: Role) -> TokenStream {
        let pv = self.private;
        match role {
            Role::Partition => quote!(#pv::MAX_PARTITION_KEY_BYTES),
            Role::Sort => quote!(#pv::MAX_SORT_KEY_BYTES),
        }
    }

    /// Statements appending `segments` to `__k`, reading placeholders from
    /// the builder's parameters.
    pub(super) fn write_segments(&self, segments: &[Segment]) -> TokenStream {
        let stmts = segments.iter().enumerate().map(|(i, s)| match s {
            Segment::Lit(text) => quote!(__k.push_str(#text);),
            Segment::Field(name) => {
                let last = i + 1 == segments.len();
                let write = self.write_part(self.field(name), quote!(&mut __k), last);
                quote!(#write?;)
            }
        });
        quote!(#(#stmts)*)
    }

    /// A `Result<(), Error>` expression appending the key part held by the
    /// parameter named like `f` to `out`. It goes through a probe whose
    /// fallback is imported at the top of the derive's `const _` block, so a
    /// field type that is not a key part is reported once, by
    /// `assert_key_part` at the field, and not again at every builder: use it
    /// for every key part.
    ///
    /// `last`: the placeholder ends its template, where a verbatim value
    /// may hold `#`.
    pub fn write_part(&self, f: &Field, out: TokenStream, last: bool) -> TokenStream {
        let ident = &f.ident;
        self.write_value(f, quote!(#ident), out, last)
    }

    /// A `Result<String, Error>` expression: the key part held by the
    /// parameter named like `f` as a string of its own (through the probe,
    /// like [`Ctx::write_part`]).
    pub fn part_string(&self, f: &Field, last: bool) -> TokenStream {
        let pv = self.private;
        let entity = self.entity;
        let field = f.name();
        let ident = &f.ident;
        let value = self.key_value(f, quote!(#ident), last);
        quote!(#pv::WritePart(&#value).part_string(#entity, #field))
    }

    /// Like [`Ctx::write_part`], for the value of `f` at `place`.
    pub fn write_value(
        &self,
        f: &Field,
        place: TokenStream,
        out: TokenStream,
        last: bool,
    ) -> TokenStream {
        let pv = self.private;
        let entity = self.entity;
        let field = f.name();
        let value = self.key_value(f, place, last);
        quote!(#pv::WritePart(&#value).write_part(#entity, #field, #out))
    }

    /// The value of `f` at `place` as the key part it is written as: the
    /// field's type, or its `verbatim` / `unpadded` encoding.
    pub fn key_value(&self, f: &Field, place: TokenStream, last: bool) -> TokenStream {
        let pv = self.private;
        if f.opts.verbatim.is_present() {
            quote!(#pv::Verbatim::<_, #last>(&#place))
        } else if f.opts.unpadded.is_present() {
            quote!(#pv::Unpadded(&#place))
        } else {
            place
        }
    }

    /// The type a key parser reads for `f` (whose `.0` is the field's
    /// value for an encoding wrapper), and whether it is wrapped.
    pub fn key_read_type(&self, f: &Field, last: bool) -> (TokenStream, bool) {
        let pv = self.private;
        let ty = &f.ty;
        if f.opts.verbatim.is_present() {
            (quote!(#pv::Verbatim<#ty, #last>), true)
        } else if f.opts.unpadded.is_present() {
            (quote!(#pv::Unpadded<#ty>), true)
        } else {
            (quote!(#ty), false)
        }
    }

    pub fn params(&self, names: &[&str]) -> Vec<TokenStream> {
        names
            .iter()
            .map(|n| {
                let f = self.field(n);
                let ident = &f.ident;
                let ty = model::arg_type(&f.ty);
                quote!(#ident: #ty)
            })
            .collect()
    }

    /// The key's expected length: its literal text plus each value's
    /// `KeyPart::size_hint`, so the builder allocates once.
    pub(super) fn capacity(&self, segments: &[Segment]) -> TokenStream {
        let pv = self.private;
        let lit: usize = segments
            .iter()
            .map(|s| match s {
                Segment::Lit(t) => t.len(),
                Segment::Field(_) => 0,
            })
            .sum();
        let hints = segments.iter().filter_map(|s| match s {
            Segment::Lit(_) => None,
            Segment::Field(name) => {
                let f = self.field(name);
                let ident = &f.ident;
                let value = self.key_value(f, quote!(#ident), true);
                Some(quote!(+ #pv::WritePart(&#value).size_hint()))
            }
        });
        quote!(#lit #(#hints)*)
    }

    /// `Self::pk(&self.user_id)?`, passing the fields named in `overrides`
    /// from the given locals.
    pub(super) fn self_call_with(
        &self,
        template: &Template,
        name: &str,
        overrides: &[(String, syn::Ident)],
    ) -> TokenStream {
        let call = self.builder_call(template, name, overrides);
        quote!(#call?)
    }

    /// `Self::pk(&self.user_id)`: the builder's `Result`.
    pub(super) fn builder_call(
        &self,
        template: &Template,
        name: &str,
        overrides: &[(String, syn::Ident)],
    ) -> TokenStream {
        let fn_name = format_ident!("{}", name);
        let args = template.fields().into_iter().map(|n| {
            let f = self.field(n);
            match overrides.iter().find(|(o, _)| o == n) {
                Some((_, local)) => match model::arg_kind(&f.ty) {
                    model::ArgKind::Copy => quote!(#local),
                    model::ArgKind::Str | model::ArgKind::Ref => quote!(&#local),
                },
                None => model::arg_from_self(f),
            }
        });
        quote!(Self::#fn_name(#(#args),*))
    }
}
