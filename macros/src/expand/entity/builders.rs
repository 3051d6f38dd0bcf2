//! The entity's inherent key API: the key builders, the typed
//! partitions, the key pairs, the sort-key prefixes and the key parsers.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::attr::{self, IndexKind, Template};
use crate::internals::ctx::Ctx;
use crate::internals::template::Segment;

use super::parts::{KeyFn, Role, key_fns};

impl Ctx<'_> {
    /// The inherent impl with the key builders, the typed partitions, the
    /// key pairs, the sort-key prefixes and the key parsers.
    pub(super) fn key_api(&self, pk: &Template, keys: &attr::Keys) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let ident = self.entity_ident;
        let key_fns = key_fns(pk, keys);
        let builders = key_fns.iter().map(|k| self.builder(k));
        let parsers = key_fns.iter().map(|k| self.parser(k));
        let prefixes = key_fns
            .iter()
            .filter(|k| k.role == Role::Sort)
            .map(|k| self.prefixes(k));
        let pair_builders = self.pair_builders(keys);
        let partition_fn = self.partition_fns(pk, keys);
        // Without index keys the encoders insert the primary key through
        // one generic function (`Ctx::insert_keys`); with them, through
        // this method.
        let key_attrs = if keys.indexes.is_empty() {
            TokenStream::new()
        } else {
            let key_inserts = self.key_inserts(keys, &[]);
            quote! {
                #[inline]
                fn __singletable_key_attrs(&self, __item: &mut #krate::Item) -> #krate::Result<()> {
                    #key_inserts
                    #pv::Ok(())
                }
            }
        };
        quote! {
            #[automatically_derived]
            #[allow(clippy::too_many_arguments)]
            impl #ident {
                #(#builders)*
                #partition_fn
                #(#pair_builders)*
                #(#prefixes)*
                #(#parsers)*
                #key_attrs
            }
        }
    }

    /// `partition(...)`, and `gsiN_partition(...)`: a typed partition of
    /// the table and of each (unsharded) global index, for queries that
    /// read several entity types from one partition.
    fn partition_fns(&self, pk: &Template, keys: &attr::Keys) -> TokenStream {
        let krate = self.krate;
        let vis = self.vis;
        let pk_template = pk.text();
        let partition_fn = {
            let names = pk.fields();
            let params = self.params(&names);
            let args = names.iter().map(|n| {
                let id = &self.field(n).ident;
                quote!(#id)
            });
            let doc = format!(
                "The partition `{pk_template}` as a typed value, for queries that read several entity types from one partition."
            );
            quote! {
                #[doc = #doc]
                #[inline]
                #vis fn partition(#(#params),*) -> #krate::Result<#krate::Partition<Self>> {
                    Self::pk(#(#args),*).map(#krate::__private::partition)
                }
            }
        };
        let index_partition_fns = keys.indexes.iter().filter_map(|ix| {
            let attr::IndexKind::Gsi(n) = ix.kind else { return None };
            let t = ix.pk.as_ref().filter(|_| ix.shards <= 1)?;
            let names = t.fields();
            let params = self.params(&names);
            let args = names.iter().map(|f| {
                let id = &self.field(f).ident;
                quote!(#id)
            });
            let fn_name = format_ident!("gsi{}_partition", n);
            let builder = format_ident!("gsi{}_pk", n);
            let doc = format!(
                "The `gsi{n}` partition `{}` as a typed value, for collections read from that index.",
                t.text()
            );
            Some(quote! {
                #[doc = #doc]
                #[inline]
                #vis fn #fn_name(#(#params),*) -> #krate::Result<#krate::Partition<Self, #krate::entity::OnGsi<#n>>> {
                    Self::#builder(#(#args),*).map(#krate::__private::partition)
                }
            })
        });
        quote! {
            #partition_fn
            #(#index_partition_fns)*
        }
    }

    /// `pub fn pk(user_id: &str) -> Result<String>`.
    fn builder(&self, k: &KeyFn) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let vis = self.vis;
        let name = format_ident!("{}", k.name);
        let names = k.template.fields();
        let params = self.params(&names);
        let write = self.write_segments(&k.template.segments);
        let max = self.max_len(k.role);
        let cap = self.capacity(&k.template.segments);
        let entity = self.entity;
        let attr_label = &k.name;
        let doc = format!(
            "Builds the `{}` key value `{}`; fails on an empty value or a key over DynamoDB's size limit.",
            k.name,
            k.template.text()
        );
        if names.is_empty() {
            // A template without placeholders (its text is the key): one
            // runtime call.
            let text = k.template.text();
            return quote! {
                #[doc = #doc]
                #[inline]
                #vis fn #name() -> #krate::Result<#pv::String> {
                    #pv::literal_key(#entity, #attr_label, #text, #max)
                }
            };
        }
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params),*) -> #krate::Result<#pv::String> {
                let mut __k = #pv::key_buffer(#cap);
                #write
                #pv::checked_key(#entity, #attr_label, __k, #max)
            }
        }
    }

    /// `pub fn key(...) -> Result<PrimaryKey>` and `pub fn gsi1_key(...) -> Result<IndexKey>`.
    fn pair_builders(&self, keys: &attr::Keys) -> Vec<TokenStream> {
        let krate = self.krate;
        let pv = self.private;
        let vis = self.vis;
        let mut out = Vec::new();
        let mut pair = |fn_name: String,
                        pk: Option<(&Template, String)>,
                        sk: Option<(&Template, String)>,
                        ty: TokenStream,
                        primary: bool,
                        doc: String| {
            let mut names: Vec<&str> = Vec::new();
            for (t, _) in pk.iter().chain(sk.iter()) {
                for n in t.fields() {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
            let params = self.params(&names);
            let call = |t: &Template, builder: &str| {
                let b = format_ident!("{}", builder);
                let args = t.fields().into_iter().map(|n| {
                    let ident = &self.field(n).ident;
                    quote!(#ident)
                });
                quote!(Self::#b(#(#args),*))
            };
            let pk_expr = match &pk {
                Some((t, b)) => call(t, b),
                None => quote!(::core::unreachable!()),
            };
            let sk_expr = match &sk {
                Some((t, b)) => {
                    let c = call(t, b);
                    quote!(#pv::Some(#c))
                }
                None => quote!(#pv::None),
            };
            let name = format_ident!("{}", fn_name);
            // The primary key through a runtime function, without a `?`
            // per key in each entity.
            let build = if primary {
                quote!(#pv::key_of(#pk_expr, #sk_expr))
            } else {
                quote!(#pv::index_key(#pk_expr, #sk_expr))
            };
            out.push(quote! {
                #[doc = #doc]
                #[inline]
                #vis fn #name(#(#params),*) -> #krate::Result<#ty> {
                    #build
                }
            });
        };
        if let Some(pk) = &keys.pk {
            pair(
                "key".into(),
                Some((pk, "pk".into())),
                keys.sk.as_ref().map(|(t, _)| (t, "sk".to_owned())),
                quote!(#krate::KeyOf<Self>),
                true,
                "Builds the full primary key, as used by GetItem, PutItem and DeleteItem: a key of this entity only.".into(),
            );
            for index in &keys.indexes {
                let n = index.name();
                let (pk_t, pk_b) = match (&index.kind, &index.pk) {
                    (IndexKind::Gsi(_), Some(t)) => (t, format!("{n}_pk")),
                    // A local index shares the table's partition key.
                    _ => (pk, "pk".to_owned()),
                };
                pair(
                    format!("{n}_key"),
                    Some((pk_t, pk_b)),
                    index.sk.as_ref().map(|t| (t, format!("{n}_sk"))),
                    quote!(#krate::IndexKey),
                    false,
                    format!("Builds this entity's key in index `{n}`."),
                );
            }
        }
        out
    }

    /// Prefix builders for sort templates, stopping at whole segments:
    /// `sk_prefix()` gives `ORDER#`, `sk_prefix_date(d)` gives `ORDER#<d>#`.
    fn prefixes(&self, k: &KeyFn) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let vis = self.vis;
        let entity = self.entity;
        let segments = &k.template.segments;
        let mut out = TokenStream::new();
        let field_positions: Vec<usize> = segments
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Segment::Field(_)))
            .map(|(i, _)| i)
            .collect();
        // A prefix ends right before each placeholder (the literal text up to
        // it), except the first when the template starts with a placeholder.
        for (n_fields, &pos) in field_positions.iter().enumerate() {
            if pos == 0 {
                continue;
            }
            let prefix = &segments[..pos];
            let names: Vec<&str> = crate::internals::template::fields(prefix);
            let fn_name = if n_fields == 0 {
                format_ident!("{}_prefix", k.name)
            } else {
                format_ident!("{}_prefix_{}", k.name, names.join("_"))
            };
            let params = self.params(&names);
            let write = self.write_segments(prefix);
            let max = self.max_len(k.role);
            let label = &k.name;
            let shown: String = prefix
                .iter()
                .map(|s| match s {
                    Segment::Lit(t) => t.clone(),
                    Segment::Field(f) => format!("<{f}>"),
                })
                .collect();
            let doc = format!(
                "Builds the prefix `{shown}` of `{}` for a `begins_with` query; it ends at a segment boundary, so it never matches a longer value.",
                k.template.text()
            );
            out.extend(quote! {
                #[doc = #doc]
                #[inline]
                #vis fn #fn_name(#(#params),*) -> #krate::Result<#pv::String> {
                    let mut __k = #pv::String::new();
                    #write
                    #pv::checked_key(#entity, #label, __k, #max)
                }
            });
        }
        out
    }

    /// `pub fn parse_pk(key: &str) -> Result<(String, u64)>` (a single value
    /// for one placeholder).
    fn parser(&self, k: &KeyFn) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let vis = self.vis;
        let entity = self.entity;
        let text = k.template.text();
        let names = k.template.fields();
        if names.is_empty() {
            return TokenStream::new();
        }
        let fn_name = format_ident!("parse_{}", k.name);
        let mut seen: Vec<&str> = Vec::new();
        let count = k.template.segments.len();
        let steps = k
            .template
            .segments
            .iter()
            .enumerate()
            .map(|(i, s)| match s {
                Segment::Lit(t) => quote!(__r.literal(#t)?;),
                Segment::Field(name) => {
                    let f = self.field(name);
                    let ty = &f.ty;
                    let ident = format_ident!("__{}", f.name());
                    // Through the probe, like `Ctx::write_part`.
                    let (read_ty, wrapped) = self.key_read_type(f, i + 1 == count);
                    let read = quote!(#pv::ReadPart::<#read_ty>::NEW.read_part(&mut __r)?);
                    let read = if wrapped { quote!(#read.0) } else { read };
                    if seen.contains(&name.as_str()) {
                        quote!(let _: #ty = #read;)
                    } else {
                        seen.push(name);
                        quote!(let #ident: #ty = #read;)
                    }
                }
            });
        let tys: Vec<_> = names.iter().map(|n| &self.field(n).ty).collect();
        let vals: Vec<_> = names.iter().map(|n| format_ident!("__{}", n)).collect();
        let (ret_ty, ret) = if names.len() == 1 {
            (quote!(#(#tys)*), quote!(#(#vals)*))
        } else {
            (quote!((#(#tys),*)), quote!((#(#vals),*)))
        };
        let doc = format!(
            "Reads the field values back from a `{}` key value built from `{text}`.",
            k.name
        );
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #fn_name(key: &str) -> #krate::Result<#ret_ty> {
                let mut __r = #pv::KeyReader::new(#entity, #text, key);
                #(#steps)*
                #krate::__private::finish_with(__r, #ret)
            }
        }
    }
}
