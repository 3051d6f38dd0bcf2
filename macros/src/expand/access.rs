//! Access patterns: `#[access(orders_by_status, index = gsi1)]` on `Order`
//! generates a typed query function `Order::orders_by_status` and a query
//! type `OrderOrdersByStatusQuery` (entity, then pattern, in PascalCase)
//! whose sort-key conditions follow the sort template.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::access::{Access, Resolved, attr_index, resolve};
use crate::internals::attr::{IndexKind, Keys, Template};
use crate::internals::case::pascal;
use crate::internals::ctx::Ctx;
use crate::internals::template::{self, Segment};

/// The generated code for every access pattern: `(outside, inside)`, where
/// the query types go outside the derive's `const _` block so users can name
/// them, and the impls inside, next to the table constants they read.
pub fn expand(
    ctx: &Ctx,
    ident: &syn::Ident,
    table: &syn::Path,
    keys: &Keys,
    accesses: &[Access],
) -> (TokenStream, TokenStream) {
    let mut outside = TokenStream::new();
    let mut inside = TokenStream::new();
    for access in accesses {
        if let Some(d) = attr_index(access, keys) {
            let (o, i) = crate::expand::attr_index::pattern(ctx, ident, table, &access.name, d);
            outside.extend(o);
            inside.extend(i);
            continue;
        }
        // `check` reported every pattern that does not resolve; one whose
        // index is wrong is still generated, on the table, so that its
        // callers raise no second error.
        let table_path = table;
        let table = Access {
            name: access.name.clone(),
            index: None,
            keys: access.keys.clone(),
            select: access.select.clone(),
        };
        let Ok(r) = resolve(access, keys).or_else(|_| resolve(&table, keys)) else {
            continue;
        };
        let (o, i) = pattern(ctx, ident, table_path, keys, access, &r);
        outside.extend(o);
        inside.extend(i);
    }
    (outside, inside)
}

fn pattern(
    ctx: &Ctx,
    ident: &syn::Ident,
    table: &syn::Path,
    keys: &Keys,
    access: &Access,
    r: &Resolved,
) -> (TokenStream, TokenStream) {
    // The query type goes outside the `const _` block.
    let krate = ctx.outer;
    let vis = ctx.vis;
    let p = krate;
    let name = &access.name;
    let pattern_str = name.to_string();
    // Named after the entity too: two entities of one module may declare
    // patterns of the same name (`Report::chunks`, `Scan::chunks`).
    let wrapper = format_ident!("{}{}Query", ident, pascal(&pattern_str), span = name.span());
    let (marker, target) = target(p, r, &pattern_str);
    let sharded = r.shards > 1;
    // What the pattern returns: whole items, or their keys.
    let item_ty = match (&access.keys, &access.select) {
        (Some(k), _) => quote_spanned!(k.span()=> #p::KeyOf<#ident>),
        (None, Some(d)) => quote!(#p::Projected<#ident, #d>),
        (None, None) => quote!(#ident),
    };
    // The pattern's queries and pages are typed by the wrapper, so that a
    // cursor of one pattern does not compile where another's is asked for.
    let plain_ty = quote!(#p::Query<#item_ty, #marker, #wrapper>);
    let query_ty = if sharded {
        quote!(#p::ShardedQuery<#item_ty, #wrapper>)
    } else {
        plain_ty.clone()
    };

    let pk_fields = r.pk.fields();
    let params = ctx.params(&pk_fields);
    let pk_builder = format_ident!("{}", r.pk_builder);
    let pk_args = pk_fields.iter().map(|n| {
        let id = &ctx.field(n).ident;
        quote!(#id)
    });
    let scope = default_scope(ctx, r.sk);
    let where_ = match &access.index {
        Some(i) => format!("index `{i}`"),
        None => "the table".to_owned(),
    };
    let sk_text = r.sk.map(Template::text).unwrap_or_default();
    let doc = format!(
        "Access pattern `{pattern_str}`: one Query on {where_}, partition `{}`{}. Sort-key conditions, order, limit and pagination are on the returned [`{wrapper}`].",
        r.pk.text(),
        if sk_text.is_empty() {
            String::new()
        } else {
            format!(", sort key `{sk_text}`")
        },
    );
    let wrapper_doc = format!("The query of access pattern `{pattern_str}` of `{ident}`.");

    let shards = r.shards;
    let construct = if sharded {
        quote!(#p::ShardedQuery::new(<#plain_ty>::new(#target, Self::#pk_builder(#(#pk_args),*)), #shards))
    } else {
        quote!(<#plain_ty>::new(#target, Self::#pk_builder(#(#pk_args),*)))
    };
    let outside = quote_spanned! {name.span()=>
        #[doc = #wrapper_doc]
        #[must_use = "a query does nothing until it is run with page, all, first or stream"]
        #[allow(dead_code)]
        #vis struct #wrapper(#query_ty);
    };
    let partial = access.keys.is_some() || access.select.is_some();
    let wrapper_impl = query_type_impl(ctx, r, &wrapper, &query_ty, &item_ty, partial);
    let projection_check = projection_check(ctx, table, keys, access, r);
    let inside = quote! {
        #[automatically_derived]
        #[allow(clippy::too_many_arguments)]
        impl #ident {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params),*) -> #wrapper {
                let __q = #construct;
                #wrapper(#scope)
            }
        }

        #wrapper_impl
        #projection_check
    };
    (outside, inside)
}

/// A pattern that returns whole items reads an index that holds them:
/// every attribute the entity decodes and cannot read from its primary key
/// must be projected. Checked at compile time against the table's
/// declaration, at the pattern's name; `keys` patterns read keys only.
fn projection_check(
    ctx: &Ctx,
    table: &syn::Path,
    keys: &Keys,
    access: &Access,
    r: &Resolved,
) -> TokenStream {
    let (krate, pv) = (ctx.krate, ctx.private);
    if access.keys.is_some() {
        return TokenStream::new();
    }
    let konst = match r.kind {
        Some(IndexKind::Gsi(n)) => format_ident!("GSI{}", n),
        Some(IndexKind::Lsi(n)) => format_ident!("LSI{}", n),
        None => return TokenStream::new(),
    };
    let name = &access.name;
    let index = access
        .index
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    if let Some(doc) = &access.select {
        let shown = quote!(#doc).to_string().replace(' ', "");
        let msg = format!(
            "access pattern `{name}` returns `{shown}`, but `{index}` does not project every attribute `{shown}` reads; add them to the index's `include(...)` on the table, or select fewer"
        );
        return quote_spanned! {doc.span()=>
            const _: () = if !#pv::projects_all(
                #pv::index_projection_of::<#table>(#konst.name),
                <#doc as #krate::nested::Document>::ATTRIBUTES,
                #pv::None,
            ) {
                __private::fail(#msg)
            };
        };
    }
    // What decoding reads besides the primary key: every stored attribute
    // but the copies of primary key fields, which the key gives back.
    let primary = keys.primary_fields();
    let needed = ctx
        .fields
        .iter()
        .filter(|f| f.written() && !primary.contains(&f.name().as_str()))
        .map(|f| &f.stored);
    let ident = ctx.entity_ident;
    let entity = ctx.entity;
    let msg = format!(
        "access pattern `{name}` returns whole `{entity}` items, but `{index}` does not project all of their attributes (`keys_only` or `include(...)` on the table); return the items' keys with `#[access({name}, index = {index}, keys)]`, or project the attributes the entity stores"
    );
    quote_spanned! {name.span()=>
        const _: () = {
            let __type = if <#ident as #krate::Entity>::WRITES_TYPE && !<#ident as #krate::Entity>::ADOPTS {
                #pv::Some(TABLE.entity_type)
            } else {
                #pv::None
            };
            if !#pv::projects_all(#pv::index_projection_of::<#table>(#konst.name), &[#(#needed),*], __type) {
                __private::fail(#msg)
            }
        };
    }
}

/// The query's place marker type and its `Target`: the table, or the
/// index the pattern reads.
fn target(p: &TokenStream, r: &Resolved, pattern_str: &str) -> (TokenStream, TokenStream) {
    match r.kind {
        None => (
            quote!(#p::OnTable),
            quote!(#p::__private::Target {
                pattern: #pattern_str,
                index: #p::__private::None,
                pk_attr: TABLE.pk,
                sk_attr: TABLE.sk,
                table_pk: TABLE.pk,
                table_sk: TABLE.sk,
            }),
        ),
        Some(IndexKind::Gsi(n)) => {
            let k = format_ident!("GSI{}", n);
            (
                quote!(#p::OnGlobalIndex),
                quote!(#p::__private::Target {
                    pattern: #pattern_str,
                    index: #p::__private::Some(#k.name),
                    pk_attr: #k.pk,
                    sk_attr: #k.sk,
                    table_pk: TABLE.pk,
                    table_sk: TABLE.sk,
                }),
            )
        }
        Some(IndexKind::Lsi(n)) => {
            let k = format_ident!("LSI{}", n);
            (
                quote!(#p::OnLocalIndex),
                quote!(#p::__private::Target {
                    pattern: #pattern_str,
                    index: #p::__private::Some(#k.name),
                    pk_attr: TABLE.pk,
                    sk_attr: #p::__private::Some(#k.sk),
                    table_pk: TABLE.pk,
                    table_sk: TABLE.sk,
                }),
            )
        }
    }
}

/// The query type's methods: its sort-key conditions, then what every
/// query offers (the unsharded ones also `first`, `stream` and
/// projections).
fn query_type_impl(
    ctx: &Ctx,
    r: &Resolved,
    wrapper: &syn::Ident,
    query_ty: &TokenStream,
    item_ty: &TokenStream,
    keys: bool,
) -> TokenStream {
    let p = ctx.outer;
    let vis = ctx.vis;
    let ident = ctx.entity_ident;
    // A keys query reads only key attributes: no typed filter or projection
    // of the entity's fields.
    let typed_fields = if keys {
        TokenStream::new()
    } else {
        quote! {
            /// Returns only these attributes (a ProjectionExpression).
            #[inline]
            #vis fn project(self, attributes: &[&str]) -> #query_ty { self.0.project(attributes) }
            /// Also returns the value at a typed path: a field, a map entry, a nested document's field, a list element (added to the ProjectionExpression).
            #[inline]
            #vis fn project_path<V: #p::Attr>(self, path: impl #p::FieldPath<#ident, V>) -> #query_ty { self.0.project_path(path) }
        }
    };
    let typed_filter = if keys {
        TokenStream::new()
    } else {
        quote! {
            /// Keeps only items matching the typed `filter` (a FilterExpression: it does not reduce read cost).
            #[inline]
            #vis fn filter(self, filter: #p::Cond<#ident>) -> #query_ty { self.0.filter(filter) }
        }
    };
    let sharded = r.shards > 1;
    let sk_methods =
        r.sk.map(|t| sort_methods(ctx, t, &r.sk_builder, query_ty))
            .unwrap_or_default();
    let consistent = if matches!(r.kind, Some(IndexKind::Gsi(_))) {
        // Present so that calling it names the rule (the bound never holds:
        // the binder keeps it from being refused where it is declared).
        quote! {
            /// Not available: DynamoDB reads global indexes eventually
            /// consistent only; calling it does not compile.
            #[inline]
            #vis fn consistent(self) -> #query_ty
            where
                for<'__a> #p::OnGlobalIndex: #p::query::ConsistentRead,
            {
                let _ = self;
                ::core::unreachable!("the bound of `consistent` never holds")
            }
        }
    } else {
        quote! {
            /// Strongly consistent read (twice the read cost).
            #[inline]
            #vis fn consistent(self) -> #query_ty { self.0.consistent() }
        }
    };

    let unsharded_only = if sharded {
        TokenStream::new()
    } else {
        quote! {
            /// The first matching item.
            #vis async fn first<E: #p::Executor>(self, db: &#p::Db<E>) -> #p::Result<#p::__private::Option<#item_ty>> {
                self.0.first(db).await
            }
            /// Items one by one, fetching pages lazily.
            #[inline]
            #vis fn stream<'a, E: #p::Executor>(self, db: &'a #p::Db<E>) -> impl #p::__private::Stream<Item = #p::Result<#item_ty>> + 'a {
                self.0.stream(db)
            }
            #typed_fields
        }
    };
    quote! {
        #[automatically_derived]
        #[allow(dead_code, clippy::too_many_arguments)]
        impl #wrapper {
            #sk_methods
            #consistent

            /// The underlying query, without a sort-key condition beyond the
            /// entity's own scope.
            #[inline]
            #vis fn into_query(self) -> #query_ty { self.0 }
            /// Descending sort-key order.
            #[inline]
            #vis fn newest_first(self) -> #query_ty { self.0.newest_first() }
            /// At most `n` items (page size for `page`, total for `all`/`stream`).
            #[inline]
            #vis fn limit(self, n: u32) -> #query_ty { self.0.limit(n) }
            #typed_filter
            /// Keeps only items matching an untyped `filter`.
            #[inline]
            #vis fn filter_raw(self, filter: #p::Condition) -> #query_ty { self.0.filter_raw(filter) }
            /// Skips items of other entity types instead of failing on them.
            #[inline]
            #vis fn skip_other_types(self) -> #query_ty { self.0.skip_other_types() }
            /// Fails on items of other entity types (the default, unless the table declares `other_items = skip`).
            #[inline]
            #vis fn fail_on_other_types(self) -> #query_ty { self.0.fail_on_other_types() }
            /// One page (one Query request) and the cursor to the next.
            #vis async fn page<E: #p::Executor>(self, db: &#p::Db<E>, cursor: #p::__private::Option<&#p::query::Cursor<#wrapper>>) -> #p::Result<#p::Page<#item_ty, #wrapper>> {
                self.0.page(db, cursor).await
            }
            /// Every matching item, following every page.
            #vis async fn all<E: #p::Executor>(self, db: &#p::Db<E>) -> #p::Result<#p::__private::Vec<#item_ty>> {
                self.0.all(db).await
            }
            /// Counts the matching items (`Select=COUNT`, every page) instead
            /// of reading them.
            #vis async fn count<E: #p::Executor>(self, db: &#p::Db<E>) -> #p::Result<u64> {
                self.0.count(db).await
            }
            #unsharded_only
        }
    }
}

/// The sort-key condition every query of the pattern starts with, so it only
/// reads this entity's items: `begins_with` the literal prefix of the sort
/// template, or equality for a constant sort key.
fn default_scope(ctx: &Ctx, sk: Option<&Template>) -> TokenStream {
    let p = ctx.krate;
    let Some(t) = sk else {
        return quote!(__q);
    };
    match t.segments.as_slice() {
        [Segment::Lit(text)] => quote! {
            __q.with_sort(#p::__private::Ok(#p::SortCondition::Compare(#p::Cmp::Eq, #p::__private::String::from(#text))))
        },
        [Segment::Lit(text), ..] => quote! {
            __q.with_sort(#p::__private::Ok(#p::SortCondition::BeginsWith(#p::__private::String::from(#text))))
        },
        _ => quote!(__q),
    }
}

/// `sk_eq`, `sk_lt`…, `sk_between` and `sk_begins_with_*` on the query type.
fn sort_methods(ctx: &Ctx, t: &Template, builder: &str, query_ty: &TokenStream) -> TokenStream {
    let p = ctx.krate;
    let vis = ctx.vis;
    let fields = t.fields();
    if fields.is_empty() {
        return TokenStream::new();
    }
    let builder_id = format_ident!("{}", builder);
    let params = ctx.params(&fields);
    let idents: Vec<&syn::Ident> = fields.iter().map(|n| &ctx.field(n).ident).collect();
    let entity_ty = ctx.entity_ident;
    let mut out = TokenStream::new();
    let text = t.text();
    for (method, op, range) in [
        ("sk_eq", quote!(Eq), false),
        ("sk_lt", quote!(Lt), true),
        ("sk_le", quote!(Le), true),
        ("sk_gt", quote!(Gt), true),
        ("sk_ge", quote!(Ge), true),
    ] {
        let m = format_ident!("{}", method);
        let skip = if range {
            quote!(.skip_other_types())
        } else {
            quote!()
        };
        let doc = format!(
            "Sort key `{}` the key built from these values (`{text}`).{}",
            method.trim_start_matches("sk_"),
            if range {
                " Items of other entity types in the range are skipped."
            } else {
                ""
            }
        );
        out.extend(quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #m(self, #(#params),*) -> #query_ty {
                self.0.with_sort(#entity_ty::#builder_id(#(#idents),*).map(|__k| #p::SortCondition::Compare(#p::Cmp::#op, __k)))#skip
            }
        });
    }
    // between: one value per bound for a single placeholder, tuples otherwise.
    let arg_tys: Vec<TokenStream> = fields
        .iter()
        .map(|n| crate::internals::model::arg_type(&ctx.field(n).ty))
        .collect();
    let (bound_ty, destructure_from, destructure_to, from_args, to_args) = if fields.len() == 1 {
        let ty = &arg_tys[0];
        (quote!(#ty), quote!(), quote!(), quote!(from), quote!(to))
    } else {
        let a: Vec<_> = fields
            .iter()
            .map(|n| format_ident!("__from_{}", n))
            .collect();
        let b: Vec<_> = fields.iter().map(|n| format_ident!("__to_{}", n)).collect();
        (
            quote!((#(#arg_tys),*)),
            quote!(let (#(#a),*) = from;),
            quote!(let (#(#b),*) = to;),
            quote!(#(#a),*),
            quote!(#(#b),*),
        )
    };
    let doc = format!(
        "Sort key between the keys built from `from` and `to`, both included (`{text}`). Items of other entity types in the range are skipped."
    );
    out.extend(quote! {
        #[doc = #doc]
        #[inline]
        #vis fn sk_between(self, from: #bound_ty, to: #bound_ty) -> #query_ty {
            #destructure_from
            #destructure_to
            let __range = match (#entity_ty::#builder_id(#from_args), #entity_ty::#builder_id(#to_args)) {
                (#p::__private::Ok(__a), #p::__private::Ok(__b)) => #p::__private::Ok(#p::SortCondition::Between(__a, __b)),
                (#p::__private::Err(__e), _) | (_, #p::__private::Err(__e)) => #p::__private::Err(__e),
            };
            self.0.with_sort(__range).skip_other_types()
        }
    });
    // begins_with over whole segments, for each prefix holding placeholders.
    let positions: Vec<usize> = t
        .segments
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Segment::Field(_)))
        .map(|(i, _)| i)
        .collect();
    for &pos in positions.iter().skip(1) {
        let prefix = &t.segments[..pos];
        let names = template::fields(prefix);
        let prefix_builder = format_ident!("{}_prefix_{}", builder, names.join("_"));
        let m = format_ident!("sk_begins_with_{}", names.join("_"));
        let params = ctx.params(&names);
        let ids: Vec<&syn::Ident> = names.iter().map(|n| &ctx.field(n).ident).collect();
        let doc = format!(
            "Sort key begins with the whole segments for `{}` of `{text}`.",
            names.join("`, `")
        );
        out.extend(quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #m(self, #(#params),*) -> #query_ty {
                self.0.with_sort(#entity_ty::#prefix_builder(#(#ids),*).map(#p::SortCondition::BeginsWith))
            }
        });
    }
    out
}
