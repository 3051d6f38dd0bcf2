//! Typed field handles (`Order::fields()`), the update builder entry point
//! (`Order::update(key fields…)`), the index key templates updates rebuild,
//! and the optimistic-locking version.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::attr::{IndexKind, Keys, Template};
use crate::internals::ctx::Ctx;
use crate::internals::template::Segment;
use crate::internals::update_state::{UpdateState, update_state};

/// `(outside, inside)`: the fields struct goes outside the derive's `const _`
/// block, the impls inside.
pub fn expand(ctx: &Ctx, keys: &Keys) -> (TokenStream, TokenStream) {
    let state = update_state(ctx.fields, keys);
    let (outside, inits, check_fns) = handles(ctx, keys, state.as_ref());
    let (state_ty, ready) = state_tokens(ctx, state.as_ref());
    let p = ctx.outer;
    let vis = ctx.vis;
    let ident = ctx.entity_ident;
    let fields_ty = format_ident!("{}Fields", ident);
    let primary = keys.primary_fields();
    let params = ctx.params(&primary);
    let args: Vec<&syn::Ident> = primary.iter().map(|n| &ctx.field(n).ident).collect();
    let entity = ctx.entity;
    let parts = key_parts(ctx, keys, &primary);
    let key_values = key_values(ctx, &primary);
    let update_doc = format!(
        "Starts an UpdateItem of the `{entity}` with this key. Index keys built from the fields it changes are rewritten in the same request; it fails with `Error::NotFound` when the item does not exist (unless `.upsert()`)."
    );
    let handles_ty = format_ident!("{}FieldHandles", ident);
    let scan_doc = format!(
        "A Scan of every `{entity}` in the table (`Scan::new()`): typed filters, parallel segments, pages with cursors, `count`, `first`, keys or a projection, an index. **Cost: a Scan reads the whole table and pays read capacity for every item of every type, before any filter; never on a hot path**: a frequent access pattern is a Query on a key or an index."
    );
    let inside = quote! {
        #[automatically_derived]
        impl #p::__private::HasFields for #ident {
            type Handles = #handles_ty;
            const HANDLES: &'static #handles_ty = &#handles_ty { #(#inits,)* };
        }

        #[automatically_derived]
        #[allow(clippy::too_many_arguments, dead_code)]
        impl #ident {
            /// Typed handles on this entity's fields, for conditions and updates.
            #[inline]
            #vis const fn fields() -> #fields_ty {
                #p::__private::fields()
            }

            #(#check_fns)*

            #[doc = #scan_doc]
            #[inline]
            #[allow(clippy::self_named_constructors)]
            #vis fn scan() -> #p::query::Scan<Self> {
                #p::query::Scan::new()
            }

            #[doc = #update_doc]
            #[inline]
            #vis fn update(#(#params),*) -> #p::Update<Self, #state_ty> {
                #p::__private::update_of_key(Self::key(#(#args),*), [#(#parts),*], [#(#key_values),*])
            }
        }

        #ready
    };
    (outside, inside)
}

/// The type `update` starts in (one `Unset<field>` per slot, or `()`),
/// the types that name the slots' fields, and the `Ready` impls of the
/// states that can be sent.
fn state_tokens(ctx: &Ctx, state: Option<&UpdateState>) -> (TokenStream, TokenStream) {
    let p = ctx.outer;
    let ident = ctx.entity_ident;
    let Some(state) = state else {
        return (quote!(()), TokenStream::new());
    };
    // Braced, so that they take no name in the value namespace.
    let names: Vec<syn::Ident> = state
        .slots
        .iter()
        .map(|s| syn::Ident::new(s, ctx.entity_ident.span()))
        .collect();
    let start = quote!((#(#p::__private::update::Unset<#names>,)*));
    let impls = state
        .ready
        .iter()
        .enumerate()
        .filter(|(_, ok)| **ok)
        .map(|(mask, _)| {
            let marks = names.iter().enumerate().map(|(i, n)| {
                if mask & (1 << i) != 0 {
                    quote!(#p::__private::update::Given<#n>)
                } else {
                    quote!(#p::__private::update::Unset<#n>)
                }
            });
            quote! {
                #[automatically_derived]
                impl #p::__private::update::Ready<(#(#marks,)*)> for #ident {}
            }
        });
    let docs = state
        .slots
        .iter()
        .map(|s| format!("Field `{s}` of `{ident}` in the state of its updates."));
    let defs = quote! {
        #(
            #[doc = #docs]
            #[allow(non_camel_case_types)]
            pub struct #names {}
        )*
        #(#impls)*
    };
    (start, defs)
}

/// The handles' struct (it goes outside the `const _` block), the
/// initializers of its fields, and the check functions they call.
fn handles(
    ctx: &Ctx,
    keys: &Keys,
    state: Option<&UpdateState>,
) -> (TokenStream, Vec<TokenStream>, Vec<TokenStream>) {
    let p = ctx.outer;
    let vis = ctx.vis;
    let ident = ctx.entity_ident;
    let fields_ty = format_ident!("{}Fields", ident);
    let primary = keys.primary_fields();
    let indexed = keys.index_fields();

    let mut decls = Vec::new();
    let mut inits = Vec::new();
    let mut check_fns = Vec::new();
    for f in ctx
        .fields
        .iter()
        .filter(|f| crate::internals::model::has_handle(f))
    {
        let fid = &f.ident;
        let ty = &f.ty;
        let name = f.name();
        let stored = &f.stored;
        // The handle's type, and the `__private` function that builds it.
        let (kind, handle) = if primary.contains(&name.as_str()) {
            (quote!(PkField), "pk_field")
        } else if indexed.contains(&name.as_str()) {
            (quote!(KeyField), "key_field")
        } else {
            (quote!(Field), "field")
        };
        let doc = format!("Field `{name}`, stored as `{stored}`.");
        let slot = state
            .and_then(|s| s.slots.iter().position(|n| *n == name))
            .map(|i| quote!(, #p::__private::update::Slot<#i>));
        decls.push(quote! {
            #[doc = #doc]
            pub #fid: #p::#kind<#ident, #ty #slot>
        });
        let check = crate::internals::model::check_fn(f);
        if let Some(check) = &check {
            // Puts call it from `validate`; updates through the handle.
            let body = crate::internals::model::checks(
                p,
                f,
                &quote!(__v),
                |msg| quote!(return #p::__private::Err(#msg);),
            );
            check_fns.push(quote! {
                #[doc(hidden)]
                fn #check(__v: &#ty) -> #p::__private::Result<(), #p::__private::String> {
                    #body
                    #p::__private::Ok(())
                }
            });
        }
        // Primary-key fields are never updated: their handles check nothing.
        match check.filter(|_| !primary.contains(&name.as_str())) {
            Some(check) => {
                let checked = format_ident!("checked_{handle}");
                inits.push(quote!(#fid: #p::__private::#checked(#stored, #name, Self::#check)));
            }
            None => {
                let new = format_ident!("{handle}");
                inits.push(quote!(#fid: #p::__private::#new(#stored, #name)));
            }
        }
    }
    let handles_ty = format_ident!("{}FieldHandles", ident);
    let struct_doc = format!(
        "Typed handles on the fields of `{ident}`, for conditions and updates: what `{fields_ty}` derefs to."
    );
    let alias_doc = format!(
        "What `{ident}::fields()` returns: `{handles_ty}`, a handle per stored field, through `Deref`."
    );
    // No impl of a standard trait here: `Fields` has them, once for every
    // entity (see its documentation for why).
    let outside = quote! {
        #[doc = #struct_doc]
        #[allow(dead_code)]
        #vis struct #handles_ty {
            #(#decls,)*
        }
        #[doc = #alias_doc]
        #vis type #fields_ty = #p::Fields<#ident>;
    };
    (outside, inits, check_fns)
}

/// The key parts of `update`'s key fields, each written as in the key.
fn key_parts(ctx: &Ctx, keys: &Keys, primary: &[&str]) -> Vec<TokenStream> {
    primary
        .iter()
        .map(|n| {
            let part = ctx.part_string(ctx.field(n), keys.ends_its_templates(n));
            quote!((#n, #part))
        })
        .collect()
}

/// The key fields as stored attributes, with their validations: what an
/// upsert writes when it creates the item.
fn key_values(ctx: &Ctx, primary: &[&str]) -> Vec<TokenStream> {
    let p = ctx.outer;
    let entity = ctx.entity;
    primary.iter().filter(|n| ctx.field(n).written()).map(|n| {
        let f = ctx.field(n);
        let (id, ty, stored, field) = (&f.ident, &f.ty, &f.stored, f.name());
        let owned = match crate::internals::model::arg_kind(ty) {
            crate::internals::model::ArgKind::Str => quote!(&#p::__private::String::from(#id)),
            crate::internals::model::ArgKind::Copy => quote!(&#id),
            crate::internals::model::ArgKind::Ref => quote!(#id),
        };
        let check = match crate::internals::model::check_fn(f) {
            Some(check) => quote! {
                if let #p::__private::Err(__msg) = Self::#check(__v) {
                    return #p::__private::Err(#p::Error::Validation { entity: #entity, field: #field, message: __msg });
                }
            },
            None => {
                let encode = quote_spanned!(ty.span()=> <#ty as #p::__private::FieldCodec>::key_value(#entity, #stored, #owned));
                return quote!((#stored, #encode));
            }
        };
        let encode = quote_spanned!(ty.span()=> <#ty as #p::Attr>::to_attr(__v));
        quote! {
            (#stored, (|| {
                let __v: &#ty = #owned;
                #check
                #encode.map_err(|__e| #p::Error::Encode { entity: #entity, source: __e.at(#stored) })
            })())
        }
    })
    .collect()
}

/// The `Entity` impl's items about fields: index key templates, required
/// fields, timestamps, unique values, held fields and the version.
pub fn entity_items(ctx: &Ctx, keys: &Keys) -> TokenStream {
    let mut out = index_keys(ctx, keys);
    out.extend(required(ctx));
    out.extend(timestamps(ctx, keys));
    out.extend(unique(ctx));
    out.extend(held_fields(ctx, keys));
    out.extend(version(ctx));
    out
}

/// `const INDEX_KEYS`: each index's key templates, which updates rebuild;
/// left to the trait's default when there is no index.
fn index_keys(ctx: &Ctx, keys: &Keys) -> TokenStream {
    let pv = ctx.private;
    let segs = |t: &Template| {
        let s = t.segments.iter().map(|s| match s {
            Segment::Lit(text) => quote!(#pv::Seg::Lit(#text)),
            Segment::Field(f) => quote!(#pv::Seg::Field(#f)),
        });
        quote!(&[#(#s),*])
    };
    let indexes = keys.indexes.iter().map(|ix| {
        let name = ix.name();
        let (pk, sk) = match ix.kind {
            IndexKind::Gsi(n) => {
                let k = format_ident!("GSI{}", n);
                let pk = ix.pk.as_ref().map(|t| {
                    let s = segs(t);
                    quote!(#pv::Some(#pv::KeyTemplate { attr: #k.pk, segments: #s }))
                });
                let sk = ix.sk.as_ref().map(|t| {
                    let s = segs(t);
                    quote!(#pv::Some(#pv::KeyTemplate {
                        attr: match #k.sk { #pv::Some(__a) => __a, #pv::None => "" },
                        segments: #s,
                    }))
                });
                (pk, sk)
            }
            IndexKind::Lsi(n) => {
                let k = format_ident!("LSI{}", n);
                let sk = ix.sk.as_ref().map(|t| {
                    let s = segs(t);
                    quote!(#pv::Some(#pv::KeyTemplate { attr: #k.sk, segments: #s }))
                });
                (None, sk)
            }
        };
        let none = quote!(#pv::None);
        let pk = pk.unwrap_or_else(|| none.clone());
        let sk = sk.unwrap_or(none);
        let when = match &ix.when {
            None => quote!(#pv::When::Always),
            Some(path) => match path
                .get_ident()
                .and_then(|id| ctx.fields.iter().find(|f| f.ident == *id))
            {
                Some(f) => {
                    let n = f.name();
                    quote!(#pv::When::Field(#n))
                }
                None => quote!(#pv::When::Function),
            },
        };
        let shards = ix.shards;
        quote! {
            #pv::IndexKeys { index: #name, pk: #pk, sk: #sk, when: #when, shards: #shards }
        }
    });
    let indexes: Vec<TokenStream> = indexes.collect();
    if indexes.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const INDEX_KEYS: &'static [#pv::IndexKeys] = &[#(#indexes),*];
    }
}

/// `const REQUIRED`: the fields an upsert must be given, since nothing
/// else writes them.
fn required(ctx: &Ctx) -> TokenStream {
    let p = ctx.krate;
    let pv = ctx.private;
    let required = ctx
        .fields
        .iter()
        .filter(|f| {
            // Stamps are written by the upsert itself.
            !f.skipped()
                && f.opts.default.is_none()
                && !f.opts.version.is_present()
                && !f.opts.created_at.is_present()
                && !f.opts.updated_at.is_present()
        })
        .map(|f| {
            let (ty, name) = (&f.ty, f.name());
            let absent_ok = if f.opts.serde.is_present() {
                quote!(#pv::never)
            } else if f.opts.ttl.is_present() {
                quote_spanned!(ty.span()=> #pv::ttl_absent_ok::<#ty>)
            } else {
                quote_spanned!(ty.span()=> <#ty as #pv::FieldCodec>::absent_ok)
            };
            quote!(#p::__private::entity::Required { field: #name, absent_ok: #absent_ok })
        });
    quote! {
        const REQUIRED: &'static [#p::__private::entity::Required] = &[#(#required),*];
    }
}

/// `const TIMESTAMPS` and `created_at_set`: the `created_at`/`updated_at`
/// fields, each with its key part when a key template holds it.
fn timestamps(ctx: &Ctx, keys: &Keys) -> TokenStream {
    let p = ctx.krate;
    let pv = ctx.private;
    let entity = ctx.entity;
    let in_keys: Vec<&str> = keys
        .primary_fields()
        .into_iter()
        .chain(keys.index_fields())
        .collect();
    let stamps = ctx
        .fields
        .iter()
        .filter(|f| f.opts.created_at.is_present() || f.opts.updated_at.is_present())
        .map(|f| {
            let (ty, stored, name) = (&f.ty, &f.stored, f.name());
            let kind = if f.opts.created_at.is_present() {
                quote!(#p::__private::clock::TimeKind::Created)
            } else {
                quote!(#p::__private::clock::TimeKind::Updated)
            };
            let value = quote_spanned!(ty.span()=> |__t| #pv::time_attr::<#ty>(__t, #entity, #stored));
            let key_part = if in_keys.contains(&name.as_str()) {
                quote!(#pv::Some(|__t| {
                    let __v: #ty = #pv::Timestamp::at(__t);
                    let mut __s = #pv::String::new();
                    #pv::WritePart(&__v).write_part(#entity, #name, &mut __s).and(#pv::Ok(__s))
                }))
            } else {
                quote!(#pv::None)
            };
            quote! {
                #p::__private::clock::AutoTime { field: #name, attribute: #stored, kind: #kind, value: #value, key_part: #key_part }
            }
        });
    let mut out = TokenStream::new();
    let stamps: Vec<TokenStream> = stamps.collect();
    if !stamps.is_empty() {
        out.extend(quote! {
            const TIMESTAMPS: &'static [#p::__private::clock::AutoTime] = &[#(#stamps),*];
        });
    }
    let created: Vec<_> = ctx
        .fields
        .iter()
        .filter(|f| f.opts.created_at.is_present())
        .collect();
    if !created.is_empty() {
        let set = created.iter().map(|f| {
            let (id, ty) = (&f.ident, &f.ty);
            quote_spanned!(ty.span()=> !<#ty as #pv::Timestamp>::is_unset(&self.#id))
        });
        out.extend(quote! {
            fn created_at_set(&self) -> bool {
                true #(&& #set)*
            }
        });
    }
    out
}

/// `const UNIQUE`: the `#[attr(unique)]` fields and their markers' parts.
fn unique(ctx: &Ctx) -> TokenStream {
    let p = ctx.krate;
    let pv = ctx.private;
    let entity = ctx.entity;
    let unique = ctx
        .fields
        .iter()
        .filter(|f| f.opts.unique.is_present())
        .map(|f| {
            let (ty, stored, name) = (&f.ty, &f.stored, f.name());
            let marker = match f.opts.unique.marker(&name) {
                Some(Ok(m)) => {
                    let shape = crate::expand::shape::key_shape(ctx, &m.template);
                    let (before, after) = (&m.before, &m.after);
                    quote!(#pv::Some(#p::__private::entity::MarkerKey { shape: #shape, before: #before, after: #after }))
                }
                _ => quote!(#pv::None),
            };
            quote! {
                #p::__private::entity::UniqueField {
                    field: #name,
                    attribute: #stored,
                    part: |__v| #pv::UniquePart::<#ty>::NEW.part(__v, #entity, #name, #stored),
                    marker: #marker,
                }
            }
        });
    let unique: Vec<TokenStream> = unique.collect();
    if unique.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const UNIQUE: &'static [#p::__private::entity::UniqueField] = &[#(#unique),*];
    }
}

/// `held_fields`: the fields `Update::knowing` takes from a held item:
/// index template fields and sparse condition fields, primary-key fields
/// aside.
fn held_fields(ctx: &Ctx, keys: &Keys) -> TokenStream {
    let pv = ctx.private;
    let primary = keys.primary_fields();
    let mut held: Vec<String> = Vec::new();
    for name in keys.index_fields() {
        if !primary.contains(&name) && !held.iter().any(|h| h == name) {
            held.push(name.to_owned());
        }
    }
    let mut held_when: Vec<String> = Vec::new();
    for ix in &keys.indexes {
        let Some(f) = ix
            .when
            .as_ref()
            .and_then(syn::Path::get_ident)
            .and_then(|id| ctx.fields.iter().find(|f| f.ident == *id))
        else {
            continue;
        };
        let name = f.name();
        if !held.contains(&name) && !held_when.contains(&name) {
            held_when.push(name);
        }
    }
    if held.is_empty() && held_when.is_empty() {
        return TokenStream::new();
    }
    let index_reads = ctx.index_reads(keys);
    let held_parts = held.iter().map(|n| {
        let f = ctx.field(n);
        let id = &f.ident;
        // A field only an index key holds (`from_key`): the update relies
        // on that key attribute still holding the held value.
        let stored = match index_reads
            .iter()
            .find(|r| f.opts.from_key.is_present() && r.template.fields().contains(&n.as_str()))
        {
            Some(r) => ctx.index_attr(r),
            None => {
                let s = &f.stored;
                quote!(#s)
            }
        };
        let write = ctx.write_value(
            f,
            quote!(self.#id),
            quote!(&mut __s),
            keys.ends_its_templates(n),
        );
        quote! {
            #pv::HeldField {
                field: #n,
                attribute: #stored,
                part: #pv::Some({
                    let mut __s = #pv::String::new();
                    #write.and(#pv::Ok(__s))
                }),
            }
        }
    });
    let held_bools = held_when.iter().map(|n| {
        let stored = &ctx.field(n).stored;
        quote!(#pv::HeldField { field: #n, attribute: #stored, part: #pv::None })
    });
    quote! {
        fn held_fields(&self) -> #pv::Vec<#pv::HeldField> {
            #pv::vec![#(#held_parts,)* #(#held_bools,)*]
        }
    }
}

/// `VERSION`, `version` and `set_version` of the `#[attr(version)]` field.
fn version(ctx: &Ctx) -> TokenStream {
    let pv = ctx.private;
    let Some(v) = ctx.fields.iter().find(|f| f.opts.version.is_present()) else {
        return TokenStream::new();
    };
    let stored = &v.stored;
    let id = &v.ident;
    let ty = &v.ty;
    let check = quote_spanned!(ty.span()=> let __v: u64 = self.#id;);
    quote! {
        const VERSION: #pv::Option<&'static str> = #pv::Some(#stored);
        fn version(&self) -> #pv::Option<u64> {
            #check
            #pv::Some(__v)
        }
        fn set_version(&mut self, version: u64) {
            self.#id = version;
        }
    }
}
