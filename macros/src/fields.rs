//! Typed field handles (`Order::fields()`), the update builder entry point
//! (`Order::update(key fields…)`), the index key templates updates rebuild,
//! and the optimistic-locking version.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::{IndexKind, Keys, Template};
use crate::entity::Ctx;
use crate::template::Segment;

/// Fields of the primary key templates.
fn primary_fields(keys: &Keys) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let templates = keys.pk.iter().chain(keys.sk.iter().map(|(t, _)| t));
    for t in templates {
        for f in t.fields() {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

fn index_fields(keys: &Keys) -> Vec<&str> {
    keys.indexes
        .iter()
        .flat_map(|i| i.pk.iter().chain(i.sk.iter()))
        .flat_map(Template::fields)
        .collect()
}

/// Checks on `#[attr(version)]`: at most one, not in a key, not skipped.
pub fn check(
    ctx_fields: &[crate::model::Field],
    keys: &Keys,
    errors: &mut darling::error::Accumulator,
) {
    let versions: Vec<_> = ctx_fields
        .iter()
        .filter(|f| f.opts.version.is_present())
        .collect();
    for extra in versions.iter().skip(1) {
        errors.push(
            darling::Error::custom("duplicate `#[attr(version)]`; an entity has one version field")
                .with_span(&extra.ident),
        );
    }
    let primary = primary_fields(keys);
    let indexed = index_fields(keys);
    for v in versions {
        let name = v.name();
        if primary.contains(&name.as_str())
            || indexed.contains(&name.as_str())
            || v.skipped()
            || v.opts.serde.is_present()
        {
            errors.push(
                darling::Error::custom(
                    "the version field must be a stored `u64` that is not part of any key",
                )
                .with_span(&v.ident),
            );
        }
    }
}

/// `(outside, inside)`: the fields struct goes outside the derive's `const _`
/// block, the impls inside.
pub fn expand(ctx: &Ctx, keys: &Keys) -> (TokenStream, TokenStream) {
    let p = ctx.krate;
    let vis = ctx.vis;
    let ident = ctx.entity_ident;
    let fields_ty = format_ident!("{}Fields", ident);
    let primary = primary_fields(keys);
    let indexed = index_fields(keys);

    let mut decls = Vec::new();
    let mut inits = Vec::new();
    let mut check_fns = Vec::new();
    for f in ctx.fields.iter().filter(|f| crate::model::has_handle(f)) {
        let fid = &f.ident;
        let ty = &f.ty;
        let name = f.name();
        let stored = &f.stored;
        let kind = if primary.contains(&name.as_str()) {
            quote!(PkField)
        } else if indexed.contains(&name.as_str()) {
            quote!(KeyField)
        } else {
            quote!(Field)
        };
        let doc = format!("Field `{name}`, stored as `{stored}`.");
        decls.push(quote! {
            #[doc = #doc]
            pub #fid: #p::#kind<#ident, #ty>
        });
        let check = crate::model::check_fn(f);
        if let Some(check) = &check {
            // Puts call it from `validate`; updates through the handle.
            let body = crate::model::checks(
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
                inits.push(quote!(#fid: #p::#kind::checked(#stored, #name, Self::#check)));
            }
            None => inits.push(quote!(#fid: #p::#kind::new(#stored, #name))),
        }
    }
    let struct_doc =
        format!("Typed handles on the fields of `{ident}`, for conditions and updates.");
    let outside = quote! {
        #[doc = #struct_doc]
        #[allow(dead_code)]
        #[derive(Debug, Clone, Copy)]
        #vis struct #fields_ty {
            #(#decls,)*
        }
    };

    // update(key fields…)
    let params = ctx.params(&primary);
    let args: Vec<&syn::Ident> = primary.iter().map(|n| &ctx.field(n).ident).collect();
    let entity = ctx.entity;
    let parts = primary.iter().map(|n| {
        let write = ctx.write_part(ctx.field(n), quote!(&mut __s));
        quote! {
            (#n, {
                let mut __s = #p::__private::String::new();
                #write.map(|()| __s)
            })
        }
    });
    // The key fields as stored attributes, with their validations: what
    // an upsert writes when it creates the item.
    let key_values = primary.iter().map(|n| {
        let f = ctx.field(n);
        let (id, ty, stored, field) = (&f.ident, &f.ty, &f.stored, f.name());
        let owned = match crate::model::arg_kind(ty) {
            crate::model::ArgKind::Str => quote!(&#p::__private::String::from(#id)),
            crate::model::ArgKind::Copy => quote!(&#id),
            crate::model::ArgKind::Ref => quote!(#id),
        };
        let check = match crate::model::check_fn(f) {
            Some(check) => quote! {
                if let #p::__private::Err(__msg) = Self::#check(__v) {
                    return #p::__private::Err(#p::Error::Validation { entity: #entity, field: #field, message: __msg });
                }
            },
            None => TokenStream::new(),
        };
        let encode = quote_spanned!(ty.span()=> <#ty as #p::Attr>::to_attr(__v));
        quote! {
            (#stored, (|| {
                let __v: &#ty = #owned;
                #check
                #encode.map_err(|__e| #p::Error::Encode { entity: #entity, source: __e.at(#stored) })
            })())
        }
    });
    let update_doc = format!(
        "Starts an UpdateItem of the `{entity}` with this key. Index keys built from the fields it changes are rewritten in the same request; it fails with `Error::NotFound` when the item does not exist (unless `.upsert()`)."
    );
    let inside = quote! {
        #[automatically_derived]
        #[allow(clippy::too_many_arguments, dead_code)]
        impl #ident {
            /// Typed handles on this entity's fields, for conditions and updates.
            #vis const fn fields() -> #fields_ty {
                #fields_ty { #(#inits,)* }
            }

            #(#check_fns)*

            #[doc = #update_doc]
            #vis fn update(#(#params),*) -> #p::Update<Self> {
                #p::Update::new(Self::key(#(#args),*), #p::__private::vec![#(#parts),*])
                    .with_key_values(#p::__private::vec![#(#key_values),*])
            }
        }
    };
    (outside, inside)
}

/// `const INDEX_KEYS` and the version items of the `Entity` impl.
pub fn entity_items(ctx: &Ctx, keys: &Keys) -> TokenStream {
    let p = ctx.krate;
    let segs = |t: &Template| {
        let s = t.segments.iter().map(|s| match s {
            Segment::Lit(text) => quote!(#p::__private::Seg::Lit(#text)),
            Segment::Field(f) => quote!(#p::__private::Seg::Field(#f)),
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
                    quote!(#p::__private::Some(#p::__private::KeyTemplate { attr: #k.pk, segments: #s }))
                });
                let sk = ix.sk.as_ref().map(|t| {
                    let s = segs(t);
                    quote!(#p::__private::Some(#p::__private::KeyTemplate {
                        attr: match #k.sk { #p::__private::Some(__a) => __a, #p::__private::None => "" },
                        segments: #s,
                    }))
                });
                (pk, sk)
            }
            IndexKind::Lsi(n) => {
                let k = format_ident!("LSI{}", n);
                let sk = ix.sk.as_ref().map(|t| {
                    let s = segs(t);
                    quote!(#p::__private::Some(#p::__private::KeyTemplate { attr: #k.sk, segments: #s }))
                });
                (None, sk)
            }
        };
        let none = quote!(#p::__private::None);
        let pk = pk.unwrap_or_else(|| none.clone());
        let sk = sk.unwrap_or(none);
        let when = match &ix.when {
            None => quote!(#p::__private::When::Always),
            Some(path) => match path.get_ident().and_then(|id| ctx.fields.iter().find(|f| f.ident == *id)) {
                Some(f) => {
                    let n = f.name();
                    quote!(#p::__private::When::Field(#n))
                }
                None => quote!(#p::__private::When::Function),
            },
        };
        let shards = ix.shards;
        quote! {
            #p::__private::IndexKeys { index: #name, pk: #pk, sk: #sk, when: #when, shards: #shards }
        }
    });
    let mut out = quote! {
        const INDEX_KEYS: &'static [#p::__private::IndexKeys] = &[#(#indexes),*];
    };
    let entity = ctx.entity;
    let created = ctx.fields.iter().filter(|f| f.opts.created_at.is_present()).map(|f| {
        let (ty, stored) = (&f.ty, &f.stored);
        let call = quote_spanned!(ty.span()=> #p::__private::stamp::<#ty>(item, #stored));
        quote!(if creating { #call.map_err(|e| #p::Error::Encode { entity: #entity, source: e })?; })
    });
    let updated: Vec<_> = ctx
        .fields
        .iter()
        .filter(|f| f.opts.updated_at.is_present())
        .collect();
    let updated_stamp = updated.iter().map(|f| {
        let (ty, stored) = (&f.ty, &f.stored);
        let call = quote_spanned!(ty.span()=> #p::__private::stamp::<#ty>(item, #stored));
        quote!(#call.map_err(|e| #p::Error::Encode { entity: #entity, source: e })?;)
    });
    out.extend(quote! {
        fn stamp(item: &mut #p::Item, creating: bool) -> #p::Result<()> {
            let _ = (&item, creating);
            #(#created)*
            #(#updated_stamp)*
            #p::__private::Ok(())
        }
    });
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
                quote!(|| false)
            } else if f.opts.ttl.is_present() {
                quote_spanned!(ty.span()=> || #p::__private::ttl_from_attr::<#ty>(#p::__private::None).is_ok())
            } else {
                quote_spanned!(ty.span()=> || <#ty as #p::Attr>::from_absent().is_ok())
            };
            quote!(#p::entity::Required { field: #name, absent_ok: #absent_ok })
        });
    out.extend(quote! {
        const REQUIRED: &'static [#p::entity::Required] = &[#(#required),*];
    });
    if let Some(f) = ctx.fields.iter().find(|f| f.opts.created_at.is_present()) {
        let (ty, stored) = (&f.ty, &f.stored);
        out.extend(quote! {
            fn created_at() -> #p::__private::Option<(&'static str, #p::entity::NowFn)> {
                #p::__private::Some((#stored, || {
                    #p::Attr::to_attr(&<#ty as #p::__private::Timestamp>::now())
                        .map_err(|e| #p::Error::Encode { entity: #entity, source: e })
                }))
            }
        });
    }
    if let Some(f) = updated.first() {
        let (ty, stored) = (&f.ty, &f.stored);
        out.extend(quote! {
            fn updated_at() -> #p::__private::Option<(&'static str, #p::entity::NowFn)> {
                #p::__private::Some((#stored, || {
                    #p::Attr::to_attr(&<#ty as #p::__private::Timestamp>::now())
                        .map_err(|e| #p::Error::Encode { entity: #entity, source: e })
                }))
            }
        });
    }
    if let Some(v) = ctx.fields.iter().find(|f| f.opts.version.is_present()) {
        let stored = &v.stored;
        let id = &v.ident;
        let ty = &v.ty;
        let check = quote_spanned!(ty.span()=> let __v: u64 = self.#id;);
        out.extend(quote! {
            const VERSION: #p::__private::Option<&'static str> = #p::__private::Some(#stored);
            fn version(&self) -> #p::__private::Option<u64> {
                #check
                #p::__private::Some(__v)
            }
            fn set_version(&mut self, version: u64) {
                self.#id = version;
            }
        });
    }
    out
}
