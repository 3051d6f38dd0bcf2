//! Vector indexes on an entity: `#[vector1(vector = embedding,
//! hash(category), filter(price))]` feeds the table's `vector1` from the
//! entity's fields, checked at compile time against the table's
//! declaration (names, types, and the dimensions a `[f32; N]` fixes), and
//! at write time for a `Vec<f32>`; `#[access(similar, index = vector1)]`
//! generates a typed search.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::case::pascal;
use crate::internals::ctx::Ctx;
use crate::internals::model::{self, ArgKind, Field};
use crate::internals::vector::VectorDecl;

fn konst(n: u8) -> syn::Ident {
    format_ident!("VECTOR{}", n)
}

fn field<'a>(ctx: &'a Ctx, id: &syn::Ident) -> Option<&'a Field> {
    ctx.fields.iter().find(|f| f.ident == *id)
}

/// The table's declaration of each vector index the entity feeds (a table
/// without it is one error, at the `#[vectorN]`), and the checks of each
/// mapped field against it, each at the field's name in the attribute.
pub fn consts_and_checks(
    ctx: &Ctx,
    table: &syn::Path,
    decls: &[VectorDecl],
    checks: bool,
) -> TokenStream {
    let (p, pv) = (ctx.krate, ctx.private);
    let mut out = TokenStream::new();
    for d in decls {
        let (n, k, span) = (d.n, konst(d.n), d.span);
        let t = crate::internals::ctx::respan(table, span);
        out.extend(quote_spanned! {span=>
            #[allow(dead_code)]
            const #k: #p::vector::VectorIndex = <#t as #pv::Vector<#n>>::INDEX;
        });
        let mut missing = |id: &syn::Ident| {
            if field(ctx, id).is_none() {
                let msg = format!("no field `{id}` in this entity; `#[vector{n}]` maps fields");
                out.extend(quote_spanned!(id.span()=> ::core::compile_error!(#msg);));
            }
        };
        d.vector
            .iter()
            .chain(&d.hash)
            .chain(&d.filter)
            .for_each(&mut missing);
        if !checks || d.repaired {
            continue;
        }
        if let Some(f) = d.vector.as_ref().and_then(|v| field(ctx, v)) {
            out.extend(vector_field_checks(ctx, d, f));
        }
        let count = format!(
            "this entity maps {} field(s) onto `vector{n}`'s `HASH` attributes, but the table declares another number; map one field per `HASH` attribute (a search gives each)",
            d.hash.len()
        );
        let nh = d.hash.len();
        out.extend(quote_spanned! {span=>
            const _: () = if #k.dimensions != 0 && #k.hash.len() != #nh { __private::fail(#count) };
        });
        for (list, ids) in [("hash", &d.hash), ("filter", &d.filter)] {
            for id in ids.iter() {
                let Some(f) = field(ctx, id) else { continue };
                out.extend(search_attr_check(ctx, d, list, f));
            }
        }
    }
    out
}

/// The vector field: a `VectorField` type, stored under the index's
/// attribute, with the index's dimensions when its type fixes them.
fn vector_field_checks(ctx: &Ctx, d: &VectorDecl, f: &Field) -> TokenStream {
    let (p, pv) = (ctx.krate, ctx.private);
    let (n, k, ty, stored) = (d.n, konst(d.n), &f.ty, &f.stored);
    let id = &f.ident;
    let name_msg = format!(
        "field `{id}` is stored as `{stored}`, but `vector{n}`'s vector attribute has another name on the table; store the field under that name (`#[attr(rename = \"...\")]`) or set `attribute = \"{stored}\"` on the table's `vector{n}`"
    );
    let dims_msg = format!(
        "the type of field `{id}` fixes another number of dimensions than the table's `vector{n}`; make it `[f32; <the index's dimensions>]` or a `Vec<f32>`"
    );
    let (tsp, isp) = (ty.span(), id.span());
    // One block: a type that is no vector field is one error, at the type.
    let type_check = quote_spanned! {tsp=>
        const _: () = {
            const fn __dimensions<T: #p::vector::VectorField + ?Sized>() -> ::core::option::Option<usize> {
                T::DIMENSIONS
            }
            match __dimensions::<#ty>() {
                ::core::option::Option::Some(__d) if #k.dimensions != 0 && __d != #k.dimensions as usize => __private::fail(#dims_msg),
                _ => {}
            }
        };
    };
    let name_check = quote_spanned! {isp=>
        const _: () = if #k.dimensions != 0 && !#pv::str_eq(#k.attribute, #stored) {
            __private::fail(#name_msg)
        };
    };
    quote!(#type_check #name_check)
}

/// A `hash(..)`/`filter(..)` field: among the index's attributes of that
/// role, under its stored name, with its key type.
fn search_attr_check(ctx: &Ctx, d: &VectorDecl, list: &str, f: &Field) -> TokenStream {
    let (p, pv) = (ctx.krate, ctx.private);
    let (n, k, ty, stored, id) = (d.n, konst(d.n), &f.ty, &f.stored, &f.ident);
    let role = if list == "hash" {
        "HASH"
    } else {
        "INLINE_FILTER"
    };
    let msg = format!(
        "field `{id}` (stored as `{stored}`) is not an `{role}` attribute of `vector{n}` with the field's type (`S`, `N` or `B`) on the table; list it in the table's `vector{n}({list}({stored} = ..))`, or map another field"
    );
    let list = format_ident!("{}", list);
    quote_spanned! {id.span()=>
        const _: () = {
            let __a = #k.#list;
            let mut __i = 0;
            let mut __found = #k.dimensions == 0;
            while __i < __a.len() {
                if #pv::str_eq(__a[__i].name, #stored)
                    && #pv::key_type_eq(__a[__i].kind, <#ty as #p::__private::entity::SearchScalar>::KIND)
                {
                    __found = true;
                }
                __i += 1;
            }
            if !__found { __private::fail(#msg) }
        };
    }
}

/// What `validate` checks before every write: each `Vec<f32>` vector has
/// the index's dimensions and finite elements.
pub fn validate(ctx: &Ctx, decls: &[VectorDecl]) -> TokenStream {
    let p = ctx.krate;
    let pv = ctx.private;
    let mut out = TokenStream::new();
    for d in decls {
        let Some(f) = d.vector.as_ref().and_then(|v| field(ctx, v)) else {
            continue;
        };
        let (k, id) = (konst(d.n), &f.ident);
        out.extend(quote! {
            if #k.dimensions != 0
                && let #pv::Some(__v) = {
                    use #pv::{ProbeVector as _, ProbeVectorFallback as _};
                    (&#pv::VectorProbe(&self.#id)).vector()
                }
                && let ::core::result::Result::Err(problem) = #p::__private::check_vector(__v, #k.dimensions as usize)
            {
                return #pv::Err(#p::Error::InvalidVector { index: #k.name, problem });
            }
        });
    }
    out
}

/// `#[access(name, index = vectorN)]`: the search function, its marker
/// and the handles of its search attributes.
pub fn pattern(
    ctx: &Ctx,
    ident: &syn::Ident,
    name: &syn::Ident,
    item_ty: TokenStream,
    d: &VectorDecl,
) -> (TokenStream, TokenStream) {
    let (outer, p) = (ctx.outer, ctx.krate);
    let vis = ctx.vis;
    let pattern_str = name.to_string();
    let marker = format_ident!(
        "{}{}Search",
        ident,
        pascal(&pattern_str),
        span = name.span()
    );
    let filters = format_ident!(
        "{}{}Filters",
        ident,
        pascal(&pattern_str),
        span = name.span()
    );
    let k = konst(d.n);
    let mut handles = Vec::new();
    let mut inits = Vec::new();
    let mut params = Vec::new();
    let mut hashes = Vec::new();
    for (is_hash, ids) in [(true, &d.hash), (false, &d.filter)] {
        for id in ids.iter() {
            let Some(f) = field(ctx, id) else { continue };
            let ty = model::option_inner(&f.ty).unwrap_or(&f.ty);
            let stored = &f.stored;
            let handle = if is_hash {
                format_ident!("HashAttribute")
            } else {
                format_ident!("InlineFilter")
            };
            let doc = if is_hash {
                format!(
                    "`{stored}`, a `HASH` attribute: given by equality as an argument of `{pattern_str}`."
                )
            } else {
                format!("`{stored}`, an `INLINE_FILTER` attribute: compare it in `.filter(..)`.")
            };
            handles.push(quote! {
                #[doc = #doc]
                pub #id: #outer::vector::#handle<#ty, #marker>
            });
            let new = if is_hash {
                quote!(hash_attribute)
            } else {
                quote!(inline_filter)
            };
            inits.push(quote!(#id: #p::__private::#new(#stored)));
            if is_hash {
                let arg_ty = model::arg_type(ty);
                params.push(quote!(#id: #arg_ty));
                let value = match model::arg_kind(ty) {
                    ArgKind::Copy => quote!(&#id),
                    _ => quote!(#id),
                };
                hashes.push((ty, stored, value));
            }
        }
    }
    let marker_doc = format!(
        "The vector search `{pattern_str}` of `{ident}`: the marker that types its searches (`VectorSearch<_, {marker}>`)."
    );
    let filters_doc = format!(
        "The search attributes of `{ident}::{pattern_str}`: what `.filter(|f| ..)` receives."
    );
    let outside = quote_spanned! {name.span()=>
        #[doc = #marker_doc]
        #[allow(dead_code)]
        #vis enum #marker {}

        #[doc = #filters_doc]
        #[allow(dead_code)]
        #vis struct #filters { #(#handles,)* }
    };
    let doc = format!(
        "Access pattern `{pattern_str}`: one SearchVectors on vector index `vector{}`, the `HASH` attributes by equality; `top_k` and inline filters are on the returned search.",
        d.n
    );
    let hash_tys = hashes.iter().map(|(ty, _, _)| ty);
    let hash_attrs = hashes.iter().map(|(_, stored, _)| stored);
    let hash_values = hashes.iter().map(|(_, _, value)| value);
    let inside = quote! {
        #[automatically_derived]
        impl #p::vector::SearchPattern for #marker {
            type Filters = #filters;
            fn filters() -> #filters {
                #filters { #(#inits,)* }
            }
        }

        #[automatically_derived]
        #[allow(clippy::too_many_arguments)]
        impl #ident {
            #[doc = #doc]
            #vis fn #name(#(#params,)* vector: &[f32]) -> #p::vector::VectorSearch<#item_ty, #marker> {
                let __search = #p::__private::vector_search(&#k, vector);
                #(let __search = #p::__private::search_hash::<#hash_tys, _, _>(__search, #hash_attrs, #hash_values);)*
                __search
            }
        }
    };
    (outside, inside)
}
