//! `const SHAPE`: the entity's design as data, for the design document and
//! the cross-entity checks of `#[table(entities(...))]`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::access::Access;
use crate::internals::attr::{IndexKind, Keys, Template};
use crate::internals::ctx::{Ctx, Tokens};
use crate::internals::template::Segment;

/// The template with stored attribute names in its placeholders.
fn stored_text(ctx: &Ctx, t: &Template) -> String {
    t.segments
        .iter()
        .map(|s| match s {
            Segment::Lit(text) => text.clone(),
            Segment::Field(f) => format!("<{}>", ctx.field(f).stored),
        })
        .collect()
}

pub(crate) fn key_shape(ctx: &Ctx, t: &Template) -> TokenStream {
    let pv = ctx.private;
    let text = stored_text(ctx, t);
    // Placeholders never contain `#` and always end a segment, so a plain
    // split of the template text gives the segments.
    // Placeholders are met in the order of `fields()`, one per segment.
    let mut fields = t.fields().into_iter().map(|n| ctx.field(n));
    let segs: Vec<TokenStream> = text
        .split('#')
        .map(|seg| {
            let (lit, field) = match seg.find('<') {
                Some(i) => (&seg[..i], fields.next()),
                None => (seg, None),
            };
            let width = match field {
                // Verbatim and unpadded values have any length.
                Some(f) if f.opts.verbatim.is_present() || f.opts.unpadded.is_present() => {
                    quote!(#pv::None)
                }
                // `WidthFallback` is imported at the top of the derive's
                // `const _` block.
                Some(f) => {
                    let ty = &f.ty;
                    quote!(#pv::Width::<#ty>::VALUE)
                }
                None => quote!(#pv::None),
            };
            let is_field = field.is_some();
            quote!(#pv::KeySeg { lit: #lit, field: #is_field, width: #width })
        })
        .collect();
    // `CardFallback` is imported at the top of the derive's `const _`
    // block. A template without placeholders has one value: a shared
    // function, not a closure for the compiler to check in every entity.
    let names = t.fields();
    let cardinality = if names.is_empty() {
        quote!(#pv::one_value)
    } else {
        let cards = names.into_iter().map(|n| {
            let ty = &ctx.field(n).ty;
            quote!((&#pv::Card::<#ty>(#pv::PhantomData)).get())
        });
        quote!(|| #pv::cardinality(&[#(#cards),*]))
    };
    let unpadded = t
        .fields()
        .into_iter()
        .map(|n| ctx.field(n))
        .filter(|f| f.opts.unpadded.is_present())
        .map(|f| &f.stored);
    quote! {
        #pv::KeyShape {
            template: #text,
            segs: &[#(#segs),*],
            cardinality: #cardinality,
            unpadded: &[#(#unpadded),*],
        }
    }
}

fn opt(pv: &Tokens, t: Option<TokenStream>) -> TokenStream {
    match t {
        Some(t) => quote!(#pv::Some(#t)),
        None => quote!(#pv::None),
    }
}

pub fn entity_shape(ctx: &Ctx, keys: &Keys, accesses: &[Access], untyped: bool) -> TokenStream {
    let pv = ctx.private;
    let writes_type = !untyped;
    let name = ctx.entity;
    let Some(pk) = keys.pk.as_ref() else {
        return TokenStream::new();
    };
    let pk = key_shape(ctx, pk);
    let sk = opt(pv, keys.sk.as_ref().map(|(t, _)| key_shape(ctx, t)));
    let indexes = keys.indexes.iter().map(|ix| {
        let n = ix.name();
        let global = matches!(ix.kind, IndexKind::Gsi(_));
        let ipk = opt(pv, ix.pk.as_ref().map(|t| key_shape(ctx, t)));
        let isk = opt(pv, ix.sk.as_ref().map(|t| key_shape(ctx, t)));
        let sparse = opt(
            pv,
            ix.when.as_ref().map(|w| {
                let text = quote!(#w).to_string().replace(' ', "");
                quote!(#text)
            }),
        );
        let shards = ix.shards;
        quote! {
            #pv::IndexShape { name: #n, global: #global, pk: #ipk, sk: #isk, sparse: #sparse, shards: #shards }
        }
    });
    let attribute_indexes = keys.attr_indexes.iter().map(|d| {
        let n = d.name();
        let stored = |ids: &[syn::Ident]| -> Vec<String> {
            ids.iter()
                .filter_map(|id| ctx.fields.iter().find(|f| f.ident == *id))
                .map(|f| f.stored.clone())
                .collect()
        };
        let (pk, sk) = (stored(&d.pk), stored(&d.sk));
        let by_type = crate::expand::attr_index::by_type(d.n);
        quote!(#pv::AttrIndexShape { name: #n, partition: &[#(#pk),*], sort: &[#(#sk),*], by_type: #by_type })
    });
    let access = accesses.iter().map(|a| {
        let n = a.name.to_string();
        let index = opt(
            pv,
            a.index.as_ref().map(|i| {
                let s = i.to_string();
                quote!(#s)
            }),
        );
        quote!(#pv::AccessShape { name: #n, index: #index })
    });
    // What items store: a `from_key` field is read back from the key.
    let written: Vec<_> = ctx.fields.iter().filter(|f| f.written()).collect();
    let attributes = written.iter().map(|f| &f.stored);
    let attribute_types = written.iter().map(|f| {
        // The field codec's two paths besides `Attr`: TTL fields are epoch
        // seconds, serde fields whatever serde makes of the value.
        if f.opts.ttl.is_present() {
            quote!(::core::option::Option::Some("N"))
        } else if f.opts.serde.is_present() {
            quote!(::core::option::Option::None)
        } else {
            // `StoredTypeFallback` is imported at the top of the derive's
            // `const _` block: a type that is no `Attr` is reported once.
            let ty = &f.ty;
            quote!(#pv::StoredType::<#ty>::VALUE)
        }
    });
    let ttl = opt(
        pv,
        ctx.fields
            .iter()
            .find(|f| f.opts.ttl.is_present())
            .map(|f| {
                let s = &f.stored;
                quote!(#s)
            }),
    );
    let stamped = ctx
        .fields
        .iter()
        .filter(|f| f.opts.updated_at.is_present())
        .map(|f| &f.stored);
    quote! {
        const SHAPE: #pv::EntityShape = #pv::EntityShape {
            name: #name,
            pk: #pk,
            sk: #sk,
            indexes: &[#(#indexes),*],
            attribute_indexes: &[#(#attribute_indexes),*],
            access: &[#(#access),*],
            attributes: &[#(#attributes),*],
            attribute_types: &[#(#attribute_types),*],
            writes_type: #writes_type,
            ttl: #ttl,
            stamped: &[#(#stamped),*],
        };
    }
}
