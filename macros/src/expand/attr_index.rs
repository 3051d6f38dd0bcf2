//! Multi-attribute index keys: `#[gsi4(pk(tenant_id, region), sk(status,
//! created_at))]` maps fields, in order, onto the attributes the table
//! declares for `gsi4` (`#[table(gsi4(pk(tenantId = S, ...), sk(...)))]`).
//! No synthetic attribute is written; the compile-time checks hold each
//! field to its attribute's name and type, and the access patterns of such
//! an index follow DynamoDB's key-condition rules in their types: one
//! argument per partition attribute, then, sort attribute by sort
//! attribute, `<field>_eq` (which leads to the next attribute's methods) or
//! one range condition (which ends the key condition).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::attr_index::AttrIndexDecl;
use crate::internals::ctx::Ctx;
use crate::internals::model::{self, ArgKind, Field};

fn konst(n: u8) -> syn::Ident {
    format_ident!("GSI{}_ATTRIBUTES", n)
}

/// The const telling whether `gsiN` sorts by entity type first.
pub fn by_type(n: u8) -> syn::Ident {
    format_ident!("GSI{}_BY_TYPE", n)
}

/// The table's declaration of each multi-attribute index, read once (a
/// table without the index is one error, here), and the checks of each
/// field against its attribute, each on the field's name in the attribute.
pub fn consts_and_checks(
    ctx: &Ctx,
    table: &syn::Path,
    decls: &[AttrIndexDecl],
    checks: bool,
) -> TokenStream {
    let p = ctx.krate;
    let pv = ctx.private;
    let mut out = TokenStream::new();
    for d in decls {
        let n = d.n;
        let k = konst(n);
        let span = d.span;
        let t = crate::internals::ctx::respan(table, span);
        let typed = by_type(n);
        out.extend(quote_spanned! {span=>
            #[allow(dead_code)]
            const #k: ::core::option::Option<#p::AttributeKey> = #pv::gsi_attributes::<#t, #n>();
            // The table's entity-type attribute leads the sort key: it is
            // not the entity's to map, and its queries start with it.
            #[allow(dead_code)]
            const #typed: bool = #pv::sorts_by_type(#k, <#t as #p::Table>::ENTITY_TYPE);
        });
        out.extend(partition_fn(ctx, d));
        if !checks {
            continue;
        }
        let name = d.name();
        let (np, ns) = (d.pk.len(), d.sk.len());
        let template = format!(
            "`{name}` is keyed on synthetic attributes on the table; map it with templates (`#[{name}(pk = \"...\")]`) or declare its attributes on the table, e.g. `{name}(pk(tenantId = S))`"
        );
        let count = |what: &str, given: usize| {
            format!(
                "this entity maps {given} field(s) onto `{name}`'s {what} attributes, but the table declares another number; map one field per attribute, in the table's order (an entity-type attribute leading the sort key is the library's: map the attributes after it)"
            )
        };
        let (pc, sc) = (count("partition", np), count("sort", ns));
        out.extend(quote_spanned! {span=>
            const _: () = match #k {
                ::core::option::Option::None => __private::fail(#template),
                ::core::option::Option::Some(__k) => {
                    if __k.partition.len() != #np { __private::fail(#pc) }
                    if __k.sort.len() != #ns + #typed as usize { __private::fail(#sc) }
                }
            };
        });
        for (list, what, ids) in [("partition", "partition", &d.pk), ("sort", "sort", &d.sk)] {
            // Sort fields map the attributes after a leading entity type;
            // a wrong count is its own error, so each field is checked
            // only against a list of the right length.
            let (skip, given) = match what {
                "sort" => (quote!(#typed as usize), ns),
                _ => (quote!(0usize), np),
            };
            let list = format_ident!("{}", list);
            for (i, id) in ids.iter().enumerate() {
                let Some(f) = ctx.fields.iter().find(|f| f.ident == *id) else {
                    continue;
                };
                let stored = &f.stored;
                let ty = &f.ty;
                let pos = i + 1;
                let name_msg = format!(
                    "field `{id}` is stored as `{stored}`, but {what} attribute {pos} of `{name}` has another name on the table; store the field under that name (`#[attr(rename = \"...\")]`) or map the right field"
                );
                let type_msg = format!(
                    "the type of field `{id}` does not match the type (`S`, `N` or `B`) that {what} attribute {pos} of `{name}` has on the table; change the field's type or the table's declaration"
                );
                let isp = id.span();
                out.extend(quote_spanned! {isp=>
                    const _: () = match #k {
                        ::core::option::Option::Some(__k) if __k.#list.len() == #given + #skip => {
                            if !#pv::str_eq(__k.#list[#i + #skip].name, #stored) { __private::fail(#name_msg) }
                        }
                        _ => {}
                    };
                });
                let tsp = ty.span();
                out.extend(quote_spanned! {tsp=>
                    const _: () = match #k {
                        ::core::option::Option::Some(__k) if __k.#list.len() == #given + #skip => {
                            if !#pv::key_type_eq(__k.#list[#i + #skip].kind, <#ty as #pv::KeyScalar>::KIND) { __private::fail(#type_msg) }
                        }
                        _ => {}
                    };
                });
            }
        }
    }
    out
}

/// The type a query argument of field `f` has: the field's own (inside an
/// `Option`, which only makes the index sparse), as key builders take it.
fn arg(f: &Field) -> (TokenStream, ArgKind) {
    let ty = model::option_inner(&f.ty).unwrap_or(&f.ty);
    (model::arg_type(ty), model::arg_kind(ty))
}

fn is_string(f: &Field) -> bool {
    matches!(arg(f).1, ArgKind::Str)
}

/// `Result<AttributeValue>` of argument `v` for field `f`.
fn value(ctx: &Ctx, f: &Field, v: &TokenStream) -> TokenStream {
    let pv = ctx.private;
    let entity = ctx.entity;
    let field = f.name();
    let r = match arg(f).1 {
        ArgKind::Str => quote!(&#pv::String::from(#v)),
        ArgKind::Copy => quote!(&#v),
        ArgKind::Ref => quote!(#v),
    };
    quote!(#pv::key_attribute_value(#entity, #field, #r))
}

/// The parameters of a function taking `gsiN`'s partition (one per
/// partition attribute) and the `(attribute, value?)` of each.
fn partition_args(ctx: &Ctx, pk_fields: &[&Field]) -> (Vec<TokenStream>, Vec<TokenStream>) {
    pk_fields
        .iter()
        .map(|f| {
            let id = &f.ident;
            let (ty, stored) = (arg(f).0, &f.stored);
            let v = value(ctx, f, &quote!(#id));
            (quote!(#id: #ty), quote!((#stored, #v?)))
        })
        .unzip()
}

/// "`tenantId`, `region`": the fields' stored names, for docs.
fn stored_list(fields: &[&Field]) -> String {
    fields
        .iter()
        .map(|f| format!("`{}`", f.stored))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `gsiN_partition(...)`: the typed partition of multi-attribute index `d`,
/// for the collections read from it.
fn partition_fn(ctx: &Ctx, d: &AttrIndexDecl) -> TokenStream {
    let Some(pk_fields) =
        d.pk.iter()
            .map(|id| ctx.fields.iter().find(|f| f.ident == *id))
            .collect::<Option<Vec<&Field>>>()
    else {
        return TokenStream::new();
    };
    let (p, vis, ident, n) = (ctx.outer, ctx.vis, ctx.entity_ident, d.n);
    let (params, values) = partition_args(ctx, &pk_fields);
    let fn_name = format_ident!("gsi{}_partition", n, span = d.span);
    let doc = format!(
        "The `{}` partition ({}) as a typed value, for collections read from that index.",
        d.name(),
        stored_list(&pk_fields)
    );
    quote! {
        #[automatically_derived]
        #[allow(clippy::too_many_arguments)]
        impl #ident {
            #[doc = #doc]
            #[inline]
            #vis fn #fn_name(#(#params),*) -> #p::Result<#p::entity::AttrPartition<Self, #n>> {
                #p::__private::Ok(#p::__private::attr_partition(#p::__private::vec![#(#values),*]))
            }
        }
    }
}

/// The query function and stage types of access pattern `name` on
/// multi-attribute index `d`, whose queries return `item_ty` (as the
/// synthetic-key patterns do: whole items, their keys or a projection):
/// `(outside, inside)` as in [`crate::expand::access::expand`].
pub fn pattern(
    ctx: &Ctx,
    ident: &syn::Ident,
    table: &syn::Path,
    name: &syn::Ident,
    d: &AttrIndexDecl,
    item_ty: &TokenStream,
) -> (TokenStream, TokenStream) {
    let field = |id: &syn::Ident| ctx.fields.iter().find(|f| f.ident == *id);
    let (Some(pk_fields), Some(sk_fields)) = (
        d.pk.iter().map(field).collect::<Option<Vec<&Field>>>(),
        d.sk.iter().map(field).collect::<Option<Vec<&Field>>>(),
    ) else {
        return (TokenStream::new(), TokenStream::new());
    };
    // The query types go outside the `const _` block.
    let p = ctx.outer;
    let mut s = Stages {
        ident,
        name,
        pattern: name.to_string(),
        sk_fields: &sk_fields,
        q: TokenStream::new(),
    };
    let first = s.stage(0);
    s.q = quote!(#p::Query<#item_ty, #p::OnGlobalIndex, #first>);
    let mut outside = TokenStream::new();
    let mut inside = query_fn(ctx, &s, table, d, &pk_fields);
    let (krate, pattern_str) = (ctx.krate, &s.pattern);
    inside.extend(quote! {
        #[automatically_derived]
        impl #krate::entity::AccessPattern for #first {
            type Entity = #ident;
            const NAME: &'static str = #pattern_str;
        }
    });
    for i in 0..=sk_fields.len() {
        let ty = s.stage(i);
        let doc = format!(
            "The access pattern `{}` of `{ident}`{}: the marker that types its queries, pages and cursors.",
            s.pattern,
            match i {
                0 => String::new(),
                _ if i == sk_fields.len() => ", after its key condition is complete".to_owned(),
                _ => format!(", after equality on `{}`", sk_fields[i - 1].name()),
            }
        );
        let vis = ctx.vis;
        outside.extend(quote_spanned! {name.span()=>
            #[doc = #doc]
            #[allow(dead_code)]
            #vis enum #ty {}
        });
        if let Some(f) = sk_fields.get(i) {
            inside.extend(stage_impls(ctx, &s, i, f));
        }
    }
    (outside, inside)
}

/// The query types of one pattern: stage `i` offers the conditions on sort
/// attribute `i`.
struct Stages<'a> {
    ident: &'a syn::Ident,
    name: &'a syn::Ident,
    pattern: String,
    sk_fields: &'a [&'a Field],
    /// The query type of the first stage.
    q: TokenStream,
}

impl Stages<'_> {
    fn stage(&self, i: usize) -> syn::Ident {
        let pattern = crate::internals::case::pascal(&self.pattern);
        if i == 0 {
            format_ident!("{}{}Query", self.ident, pattern, span = self.name.span())
        } else if i == self.sk_fields.len() {
            format_ident!("{}{}QueryEnd", self.ident, pattern, span = self.name.span())
        } else {
            format_ident!(
                "{}{}QueryAfter{}",
                self.ident,
                pattern,
                crate::internals::case::pascal(&self.sk_fields[i - 1].name()),
                span = self.name.span()
            )
        }
    }
}

/// The pattern's function: one argument per partition attribute.
fn query_fn(
    ctx: &Ctx,
    s: &Stages,
    table: &syn::Path,
    d: &AttrIndexDecl,
    pk_fields: &[&Field],
) -> TokenStream {
    let p = ctx.outer;
    let vis = ctx.vis;
    let (ident, name, q) = (s.ident, s.name, &s.q);
    let pattern_str = &s.pattern;
    let n = d.n;
    let k = konst(n);
    let typed = by_type(n);
    let entity = ctx.entity;
    let (params, values) = partition_args(ctx, pk_fields);
    let where_ = format!(
        "index `{}`, partition attributes {}",
        d.name(),
        stored_list(pk_fields)
    );
    let doc = format!(
        "Access pattern `{pattern_str}`: one Query on {where_}. Sort conditions (`sk_eq` on a left-to-right prefix of the sort attributes, one at a time, then at most one range condition), order, limit and pagination are on the returned query."
    );
    quote! {
        #[automatically_derived]
        #[allow(clippy::too_many_arguments)]
        impl #ident {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params),*) -> #q {
                let __partition = (|| -> #p::Result<#p::__private::Vec<(&'static str, #p::__private::AttributeValue)>> {
                    #p::__private::Ok(#p::__private::vec![#(#values),*])
                })();
                let __key = match #k {
                    ::core::option::Option::Some(__k) => __k,
                    ::core::option::Option::None => #p::AttributeKey { partition: &[], sort: &[] },
                };
                let __query: #q = #p::__private::query_on_attributes(
                    #p::__private::AttrTarget {
                        pattern: #pattern_str,
                        index: <#table as #p::__private::Gsi<#n>>::NAME,
                        key: __key,
                        table_pk: <#table as #p::Table>::PK,
                        table_sk: <#table as #p::Table>::SK,
                    },
                    __partition,
                );
                // Sorted by entity type first: this entity's items only.
                let __query = if #typed {
                    #p::__private::with_attr_eq(
                        __query,
                        <#table as #p::Table>::ENTITY_TYPE,
                        #p::__private::Ok(#p::__private::AttributeValue::S(#p::__private::String::from(#entity))),
                    )
                } else {
                    __query
                };
                __query.skip_other_types()
            }
        }
    }
}

/// Stage `i`'s marker takes the conditions on sort attribute `f`: its
/// `SortKey` (an equality leads to the next stage, a range condition ends
/// the key condition) and, for a string attribute, a `&str` prefix.
fn stage_impls(ctx: &Ctx, s: &Stages, i: usize, f: &Field) -> TokenStream {
    let p = ctx.outer;
    let (ty, next, end) = (s.stage(i), s.stage(i + 1), s.stage(s.sk_fields.len()));
    let stored = &f.stored;
    let value_ty = model::arg_type_in_value(model::option_inner(&f.ty).unwrap_or(&f.ty));
    let v = value(ctx, f, &quote!(__v));
    let mut out = quote! {
        #[automatically_derived]
        impl #p::__private::sort::SortKey for #ty {
            type Value<'__a> = #value_ty;
            type AfterEq = #next;
            type AfterRange = #end;
            #[inline]
            fn sort_value(__v: Self::Value<'_>) -> #p::Result<#p::__private::SortValue> {
                #v.map(|__v| #p::__private::SortValue::Attr(#stored, __v))
            }
        }
    };
    if is_string(f) {
        let (entity, fname) = (ctx.entity, f.name());
        out.extend(quote! {
            #[automatically_derived]
            impl<'__a> #p::__private::sort::SortPrefix<#ty> for &'__a str {
                #[inline]
                fn sort_prefix(self) -> #p::Result<#p::__private::SortValue> {
                    if self.is_empty() {
                        #p::__private::Err(#p::Error::KeyValue { entity: #entity, field: #fname, reason: #p::KeyError::Empty })
                    } else {
                        #p::__private::Ok(#p::__private::SortValue::Attr(#stored, #p::__private::AttributeValue::S(#p::__private::String::from(self))))
                    }
                }
            }
        });
    }
    out
}
