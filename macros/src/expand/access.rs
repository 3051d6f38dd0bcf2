//! Access patterns: `#[access(orders_by_status, index = gsi1)]` on `Order`
//! generates a typed query function `Order::orders_by_status` and a query
//! type `OrderOrdersByStatusQuery` (entity, then pattern, in PascalCase)
//! whose sort-key conditions follow the sort template.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::access::{Access, Resolved, attr_index, resolve, vector_index};
use crate::internals::attr::{IndexKind, Keys, Template};
use crate::internals::attr_index::AttrIndexDecl;
use crate::internals::case::pascal;
use crate::internals::ctx::{Ctx, Tokens};
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
            let item_ty = item_type(ctx.outer, ident, access);
            let (o, i) =
                crate::expand::attr_index::pattern(ctx, ident, table, &access.name, d, &item_ty);
            outside.extend(o);
            inside.extend(i);
            let index = Projected::of_attr_index(ctx, table, d);
            inside.extend(projection_check(ctx, table, keys, access, Some(index)));
            continue;
        }
        if let Some(d) = vector_index(access, keys) {
            let p = ctx.outer;
            let item_ty = item_type(p, ident, access);
            let (o, i) = crate::expand::vector::pattern(ctx, ident, &access.name, item_ty, d);
            outside.extend(o);
            inside.extend(i);
            let konst = format_ident!("VECTOR{}", d.n);
            let index = Projected::of(quote!(#konst.name));
            inside.extend(projection_check(ctx, table, keys, access, Some(index)));
            continue;
        }
        // `check` reported every pattern that does not resolve; one whose
        // index is wrong is still generated, so that its callers raise no
        // second error: on the index it most likely meant (one the entity
        // declares that no other pattern reads), else on the table.
        let table_path = table;
        let Ok(r) =
            resolve(access, keys).or_else(|_| resolve(&fallback(access, keys, accesses), keys))
        else {
            continue;
        };
        let (o, i) = pattern(ctx, ident, table_path, keys, access, &r);
        outside.extend(o);
        inside.extend(i);
    }
    (outside, inside)
}

/// Where pattern `access`, whose index the entity does not declare, is
/// generated: the first index of the entity's that no other pattern
/// reads, else the table.
fn fallback(access: &Access, keys: &Keys, accesses: &[Access]) -> Access {
    let unread = keys.indexes.iter().find(|i| {
        let name = i.name();
        !accesses
            .iter()
            .any(|a| a.index.as_ref().is_some_and(|x| *x == name))
    });
    Access {
        name: access.name.clone(),
        index: unread.map(|i| syn::Ident::new(&i.name(), access.name.span())),
        keys: access.keys.clone(),
        select: access.select.clone(),
    }
}

/// What a pattern returns: whole items, their keys, or a projection.
fn item_type(p: &Tokens, ident: &syn::Ident, access: &Access) -> TokenStream {
    match (&access.keys, &access.select) {
        (Some(k), _) => quote_spanned!(k.span()=> #p::KeyOf<#ident>),
        (None, Some(d)) => quote!(#p::Projected<#ident, #d>),
        (None, None) => quote!(#ident),
    }
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
    let item_ty = item_type(p, ident, access);
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
        "Access pattern `{pattern_str}`: one Query on {where_}, partition `{}`{}. Sort-key conditions (`sk_eq`, `sk_between`, ...), order, limit and pagination are on the returned query.",
        r.pk.text(),
        if sk_text.is_empty() {
            String::new()
        } else {
            format!(", sort key `{sk_text}`")
        },
    );
    let wrapper_doc = format!(
        "The access pattern `{pattern_str}` of `{ident}`: the marker that types its queries, pages and cursors (`Query<_, _, {wrapper}>`, `Cursor<{wrapper}>`)."
    );

    let shards = r.shards;
    let construct = if sharded {
        quote!(#p::__private::sharded({ let __q: #plain_ty = #p::__private::query(#target, Self::#pk_builder(#(#pk_args),*)); __q }, #shards))
    } else {
        quote!({ let __q: #plain_ty = #p::__private::query(#target, Self::#pk_builder(#(#pk_args),*)); __q })
    };
    let outside = quote_spanned! {name.span()=>
        #[doc = #wrapper_doc]
        #[allow(dead_code)]
        #vis enum #wrapper {}
    };
    let sort =
        r.sk.map(|t| sort_impls(ctx, t, &r.sk_builder, &wrapper))
            .unwrap_or_default();
    let konst = match r.kind {
        Some(IndexKind::Gsi(n)) => Some(format_ident!("GSI{}", n)),
        Some(IndexKind::Lsi(n)) => Some(format_ident!("LSI{}", n)),
        None => None,
    };
    let index = konst.map(|k| Projected::of(quote!(#k.name)));
    let projection_check = projection_check(ctx, table, keys, access, index);
    let inner = ctx.krate;
    let inside = quote! {
        #[automatically_derived]
        #[allow(clippy::too_many_arguments)]
        impl #ident {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params),*) -> #query_ty {
                let __q = #construct;
                #scope
            }
        }

        #[automatically_derived]
        impl #inner::entity::AccessPattern for #wrapper {
            type Entity = #ident;
            const NAME: &'static str = #pattern_str;
        }

        #sort
        #projection_check
    };
    (outside, inside)
}

/// The index a pattern reads, as the projection check sees it: its
/// DynamoDB name (a const expression) and what every index projects of an
/// item besides its primary key, its own key attributes.
pub struct Projected {
    /// The index's name, in const context.
    pub name: TokenStream,
    /// The fields stored as the index's own key attributes (a
    /// multi-attribute index): projected whatever the projection says.
    pub key_fields: Vec<String>,
    /// A const `bool`: whether the entity-type attribute is one of the
    /// index's key attributes (a multi-attribute index sorted by type).
    pub type_in_key: TokenStream,
}

impl Projected {
    /// An index keyed on synthetic attributes, named by `name`.
    pub fn of(name: TokenStream) -> Self {
        Self {
            name,
            key_fields: Vec::new(),
            type_in_key: quote!(false),
        }
    }

    /// Multi-attribute index `d`: its key attributes are the entity's
    /// fields (and the entity type, when it leads the sort key).
    pub fn of_attr_index(ctx: &Ctx, table: &syn::Path, d: &AttrIndexDecl) -> Self {
        let (pv, n) = (ctx.private, d.n);
        let typed = crate::expand::attr_index::by_type(n);
        Self {
            name: quote!(<#table as #pv::Gsi<#n>>::NAME),
            key_fields: d.pk.iter().chain(&d.sk).map(ToString::to_string).collect(),
            type_in_key: quote!(#typed),
        }
    }
}

/// A pattern that returns whole items reads an index that holds them:
/// every attribute the entity decodes and cannot read from its primary key
/// or the index's own key attributes must be projected, on every kind of
/// index (keyed on synthetic attributes or on the items' own). Checked at
/// compile time against the table's declaration, at the pattern's name;
/// `keys` patterns read keys only.
pub fn projection_check(
    ctx: &Ctx,
    table: &syn::Path,
    keys: &Keys,
    access: &Access,
    index: Option<Projected>,
) -> TokenStream {
    let (krate, pv) = (ctx.krate, ctx.private);
    if access.keys.is_some() {
        return TokenStream::new();
    }
    let Some(Projected {
        name: index_name,
        key_fields,
        type_in_key,
    }) = index
    else {
        return TokenStream::new();
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
                #pv::index_projection_of::<#table>(#index_name),
                <#doc as #krate::nested::Document>::ATTRIBUTES,
                #pv::None,
            ) {
                __private::fail(#msg)
            };
        };
    }
    // What decoding reads besides the primary key: every stored attribute
    // but the copies of primary key fields, which the key gives back, and
    // the index key attributes `from_key` fields are read from.
    let primary = keys.primary_fields();
    let needed = ctx
        .fields
        .iter()
        .filter(|f| {
            let name = f.name();
            f.written() && !primary.contains(&name.as_str()) && !key_fields.contains(&name)
        })
        .map(|f| {
            let s = &f.stored;
            quote!(#s)
        })
        .chain(
            ctx.index_reads(keys)
                .into_iter()
                .map(|r| ctx.index_attr(&r)),
        );
    let ident = ctx.entity_ident;
    let entity = ctx.entity;
    let msg = format!(
        "access pattern `{name}` returns whole `{entity}` items, but `{index}` does not project all of their attributes (`keys_only` or `include(...)` on the table); return the items' keys with `#[access({name}, index = {index}, keys)]`, or project the attributes the entity stores"
    );
    quote_spanned! {name.span()=>
        const _: () = {
            let __type = if <#ident as #krate::Entity>::WRITES_TYPE && !<#ident as #krate::Entity>::ADOPTS && !#type_in_key {
                #pv::Some(TABLE.entity_type)
            } else {
                #pv::None
            };
            if !#pv::projects_all(#pv::index_projection_of::<#table>(#index_name), &[#(#needed),*], __type) {
                __private::fail(#msg)
            }
        };
    }
}

/// The query's place marker type and its `Target`: the table, or the
/// index the pattern reads.
fn target(p: &Tokens, r: &Resolved, pattern_str: &str) -> (TokenStream, TokenStream) {
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
            #p::__private::WithSort::with_sort(__q, #p::__private::Ok(#p::SortCondition::Compare(#p::Cmp::Eq, #p::__private::String::from(#text))))
        },
        [Segment::Lit(text), ..] => quote! {
            #p::__private::WithSort::with_sort(__q, #p::__private::Ok(#p::SortCondition::BeginsWith(#p::__private::String::from(#text))))
        },
        _ => quote!(__q),
    }
}

/// The pattern marker's `SortKey` (the sort template's placeholders, one
/// type or a tuple) and a `SortPrefix` per prefix of whole segments that
/// holds placeholders.
fn sort_impls(ctx: &Ctx, t: &Template, builder: &str, marker: &syn::Ident) -> TokenStream {
    let p = ctx.krate;
    let fields = t.fields();
    if fields.is_empty() {
        return TokenStream::new();
    }
    let entity_ty = ctx.entity_ident;
    let builder_id = format_ident!("{}", builder);
    let (value_ty, bind, args) = value_of(ctx, &fields);
    let mut out = quote! {
        #[automatically_derived]
        impl #p::__private::sort::SortKey for #marker {
            type Value<'__a> = #value_ty;
            type AfterEq = Self;
            type AfterRange = Self;
            #[inline]
            fn sort_value(__v: Self::Value<'_>) -> #p::Result<#p::__private::SortValue> {
                #bind
                #entity_ty::#builder_id(#args).map(#p::__private::SortValue::Key)
            }
        }
    };
    let positions = t
        .segments
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Segment::Field(_)))
        .map(|(i, _)| i);
    for pos in positions.skip(1) {
        let names = template::fields(&t.segments[..pos]);
        let prefix_builder = format_ident!("{}_prefix_{}", builder, names.join("_"));
        let (prefix_ty, bind, args) = value_of(ctx, &names);
        out.extend(quote! {
            #[automatically_derived]
            impl<'__a> #p::__private::sort::SortPrefix<#marker> for #prefix_ty {
                #[inline]
                fn sort_prefix(self) -> #p::Result<#p::__private::SortValue> {
                    let __v = self;
                    #bind
                    #entity_ty::#prefix_builder(#args).map(#p::__private::SortValue::Key)
                }
            }
        });
    }
    out
}

/// The value type of `fields` (one field's argument type, or a tuple of
/// them), the statement that binds `__v` to the fields' names, and the
/// builder's arguments.
fn value_of(ctx: &Ctx, fields: &[&str]) -> (TokenStream, TokenStream, TokenStream) {
    let tys: Vec<TokenStream> = fields
        .iter()
        .map(|n| crate::internals::model::arg_type_in_value(&ctx.field(n).ty))
        .collect();
    let idents: Vec<&syn::Ident> = fields.iter().map(|n| &ctx.field(n).ident).collect();
    match (tys.as_slice(), idents.as_slice()) {
        ([ty], [one]) => (quote!(#ty), quote!(let #one = __v;), quote!(#one)),
        _ => (
            quote!((#(#tys),*)),
            quote!(let (#(#idents),*) = __v;),
            quote!(#(#idents),*),
        ),
    }
}
