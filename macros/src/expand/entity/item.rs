//! `impl Entity`: the shape, the keys, the item codec (encoders with the
//! key attributes, decoders with the key fields read back).

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::version::Versioned;
use crate::internals::attr::{self, IndexKind, Template};
use crate::internals::ctx::Ctx;
use crate::internals::entity::Entity;
use crate::internals::model::{self, Codec};
use crate::internals::template::Segment;

impl Ctx<'_> {
    /// `impl Entity`: the shape, the keys, and the item codec.
    pub(super) fn entity_impl(
        &self,
        m: &Entity,
        pk: &Template,
        versioned: &Versioned,
    ) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let ident = self.entity_ident;
        let table = &m.opts.table;
        let keys = &m.keys;
        let entity_lit = self.entity;
        let shape = crate::expand::shape::entity_shape(self, keys, &m.accesses, m.untyped);
        let entity_items = crate::expand::fields::entity_items(self, keys);
        let codec = Codec {
            krate,
            private: pv,
            fields: self.fields,
            entity: Some(entity_lit),
        };
        let encode_ref = codec.encode(false);
        let mut validate = codec.validate(entity_lit, true);
        validate.extend(crate::expand::vector::validate(self, &keys.vectors));
        let validate = if validate.is_empty() {
            TokenStream::new()
        } else {
            quote! {
                #[inline]
                fn validate(&self) -> #krate::Result<()> {
                    #validate
                    #pv::Ok(())
                }
            }
        };
        let capacity = codec.stored_count() + 2 + 2 * keys.indexes.len() + 2;
        let stamped = self.stamped_encoder(keys, &codec, capacity, &versioned.insert);
        let decoders = self.decoders(&codec, keys, m.schema.is_some(), &versioned.read);
        let pk_expr = self.builder_call(pk, "pk", &[]);
        let key_agrees = self.key_agrees(pk, keys.sk.as_ref().map(|(sk, _)| sk));
        let sk_expr = match &keys.sk {
            Some((sk, _)) => {
                let call = self.builder_call(sk, "sk", &[]);
                quote!(#pv::Some(#call))
            }
            None => quote!(#pv::None),
        };
        let mut adopts = if m.adopt {
            quote!(
                const ADOPTS: bool = true;
            )
        } else {
            TokenStream::new()
        };
        if m.untyped {
            adopts.extend(quote!(
                const WRITES_TYPE: bool = false;
            ));
        }
        let parses_key = self.parses_key(pk, keys);
        let start = self.item_start(keys, capacity);
        let Versioned {
            konst: versioned_const,
            insert: versioned_insert,
            ..
        } = versioned;
        quote! {
            #[automatically_derived]
            impl #krate::Entity for #ident {
                type Table = #table;
                #shape
                #entity_items
                #versioned_const
                #adopts
                #parses_key

                #[inline]
                fn primary_key(&self) -> #krate::Result<#krate::PrimaryKey> {
                    #pv::primary_key(#pk_expr, #sk_expr)
                }

                #key_agrees

                #validate

                #[inline]
                fn to_item(&self) -> #krate::Result<#krate::Item> {
                    #start
                    #versioned_insert
                    #encode_ref
                    #pv::checked_item::<Self>(__item, __failed)
                }

                #stamped

                #decoders
            }
        }
    }

    /// `to_item`'s first statements: the entity validated, `__item`
    /// allocated, the key attributes and the entity type inserted. Without
    /// index keys, one generic runtime function (`keyed_item`, which moves
    /// the primary key into the item): nothing of the entity's own to
    /// compile; with them, `__singletable_key_attrs`.
    fn item_start(&self, keys: &attr::Keys, capacity: usize) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        if keys.indexes.is_empty() {
            quote!(let mut __item = #pv::keyed_item::<Self>(self, TABLE, #capacity)?;)
        } else {
            quote! {
                #krate::Entity::validate(self)?;
                let mut __item: #krate::Item = #pv::HashMap::with_capacity(#capacity);
                self.__singletable_key_attrs(&mut __item)?;
            }
        }
    }

    /// `from_item` and `read_item`. Versioned entities read through
    /// `from_item` (the trait's default `read_item`), which looks at the
    /// stored version first; unversioned ones decode owned items with the
    /// reader code (moving the values out of the map): one decoder per
    /// entity.
    fn decoders(
        &self,
        codec: &Codec,
        keys: &attr::Keys,
        versioned: bool,
        versioned_read: &TokenStream,
    ) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let entity_lit = self.entity;
        if versioned {
            let scan = codec.scan(Some(quote!(TABLE.entity_type)));
            let init_scanned = codec.init(false);
            return quote! {
                #[inline]
                fn from_item(__item: #krate::Item) -> #krate::Result<Self> {
                    #versioned_read
                    #scan
                    #pv::check_entity_type_value(__entity_type, TABLE.entity_type, #entity_lit)?;
                    let __entity = Self { #init_scanned };
                    #pv::check_stored_key(&__entity, __stored_pk, __stored_sk)?;
                    #pv::Ok(__entity)
                }
            };
        }
        let index_reads = self.index_reads(keys);
        let index_attrs: Vec<TokenStream> =
            index_reads.iter().map(|r| self.index_attr(r)).collect();
        let read = codec.read(Some(entity_lit), &index_attrs);
        let init_read = codec.init(true);
        let from_keys = self.fields_from_keys(codec, keys, &index_reads, &index_attrs);
        let index_key_checks = self.index_key_checks(&index_reads, &index_attrs);
        quote! {
            #[inline]
            fn from_item(__item: #krate::Item) -> #krate::Result<Self> {
                #pv::read_owned::<Self>(__item)
            }
            #[inline]
            fn read_item<__R: #krate::__private::reader::AttrReader + ?::core::marker::Sized>(
                __reader: &mut __R,
                __other: #krate::OtherTypes,
            ) -> #krate::Result<#pv::Option<Self>> {
                #read
                let mut __stored = __seen.stored::<Self, __R>(TABLE, __reader)?;
                if !__stored.is_entity::<Self>(TABLE, __other)? {
                    return #pv::Ok(#pv::None);
                }
                #from_keys
                let __entity = Self { #init_read };
                __stored.check_key(&__entity)?;
                #index_key_checks
                #pv::Ok(#pv::Some(__entity))
            }
        }
    }
    /// `Entity::parses_key`: whether the entity's own key parsers read a
    /// primary key (a template without placeholders is its text).
    fn parses_key(&self, pk: &Template, keys: &attr::Keys) -> TokenStream {
        let check = |t: &Template, name: &str, value: TokenStream| {
            if t.fields().is_empty() {
                let text = t.text();
                quote!(#value == #text)
            } else {
                let parse = format_ident!("parse_{}", name);
                quote!(Self::#parse(#value).is_ok())
            }
        };
        let pk_ok = check(pk, "pk", quote!(__pk));
        let sk_ok = match &keys.sk {
            Some((sk, _)) => {
                // A match, not `is_some_and` and a closure: one body less
                // per entity for the compiler.
                let ok = check(sk, "sk", quote!(__s));
                quote!(match __sk {
                    ::core::option::Option::Some(__s) => #ok,
                    ::core::option::Option::None => false,
                })
            }
            None => quote!(__sk.is_none()),
        };
        quote! {
            #[inline]
            fn parses_key(__pk: &str, __sk: ::core::option::Option<&str>) -> bool {
                #pk_ok && #sk_ok
            }
        }
    }

    /// Statements reading the key fields an item carries no copy of from
    /// the primary key it is stored under, with the key parsers
    /// (`parse_pk`, `parse_sk`): every placeholder ends a `#` segment, so
    /// each template reads back to one set of values, and the stored-key
    /// check that follows refuses values that do not rebuild the key.
    ///
    /// Then the `from_key` fields only index templates hold, from the
    /// index key attributes `Codec::read` kept (`index_reads`, named by
    /// `index_attrs`), with the index key parsers (`parse_gsi2_pk`): the
    /// same rule, the same parsers. An item without such an attribute (a
    /// projection without it, an item another client wrote without it)
    /// leaves the field absent: a decode error unless it has a default.
    fn fields_from_keys(
        &self,
        codec: &Codec,
        keys: &attr::Keys,
        index_reads: &[attr::IndexRead],
        index_attrs: &[TokenStream],
    ) -> TokenStream {
        let pv = self.private;
        let entity = self.entity;
        let mut out = TokenStream::new();
        if let Some(pk) = &keys.pk {
            out.extend(codec.fill_from_key(
                &pk.fields(),
                |_| true,
                quote!(__stored.pk_str()),
                quote!(Self::parse_pk),
            ));
        }
        if let Some((sk, _)) = &keys.sk {
            out.extend(codec.fill_from_key(
                &sk.fields(),
                |_| true,
                quote!(__stored.sk_str()),
                quote!(Self::parse_sk),
            ));
        }
        let primary = keys.primary_fields();
        for (k, (r, attr)) in index_reads.iter().zip(index_attrs).enumerate() {
            let local = Codec::index_key(k);
            let parse = format_ident!("parse_{}", r.builder());
            out.extend(codec.fill_from_key(
                &r.template.fields(),
                |f| f.opts.from_key.is_present() && !primary.contains(&f.name().as_str()),
                quote!(#pv::index_key_str(#entity, #attr, &#local)?),
                quote!(Self::#parse),
            ));
        }
        out
    }

    /// The index key templates the decoder reads `from_key` fields from.
    pub(crate) fn index_reads<'k>(&self, keys: &'k attr::Keys) -> Vec<attr::IndexRead<'k>> {
        let from_key: Vec<String> = self
            .fields
            .iter()
            .filter(|f| f.opts.from_key.is_present())
            .map(|f| f.name())
            .collect();
        keys.index_reads(&from_key)
    }

    /// The name of the key attribute an index template is written into, a
    /// constant expression.
    pub(crate) fn index_attr(&self, r: &attr::IndexRead) -> TokenStream {
        let pv = self.private;
        match (r.index.kind, r.sort) {
            (IndexKind::Gsi(n), false) => {
                let k = format_ident!("GSI{}", n);
                quote!(#k.pk)
            }
            (IndexKind::Gsi(n), true) => {
                // The table check refuses a sort key template on an index
                // without one.
                let k = format_ident!("GSI{}", n);
                quote!(match #k.sk { #pv::Some(__a) => __a, #pv::None => "" })
            }
            (IndexKind::Lsi(n), _) => {
                let k = format_ident!("LSI{}", n);
                quote!(#k.sk)
            }
        }
    }

    /// Statements refusing a decoded `__entity` whose fields build another
    /// index key than an index key attribute fields were read from holds
    /// (see `__private::check_index_key`).
    fn index_key_checks(
        &self,
        index_reads: &[attr::IndexRead],
        index_attrs: &[TokenStream],
    ) -> TokenStream {
        let pv = self.private;
        let entity = self.entity;
        let mut out = TokenStream::new();
        for (k, (r, attr)) in index_reads.iter().zip(index_attrs).enumerate() {
            let local = Codec::index_key(k);
            let builder = format_ident!("{}", r.builder());
            let args = r
                .template
                .fields()
                .into_iter()
                .map(|n| model::arg_from(self.field(n), quote!(__entity)));
            out.extend(quote! {
                #pv::check_index_key(
                    #entity,
                    #attr,
                    #pv::index_key_str(#entity, #attr, &#local)?,
                    Self::#builder(#(#args),*),
                )?;
            });
        }
        out
    }

    /// `Entity::key_agrees`: the stored key compared with the templates
    /// segment by segment, each placeholder through its field's
    /// `KeyPart::strip_key_part`.
    fn key_agrees(&self, pk: &Template, sk: Option<&Template>) -> TokenStream {
        let pv = self.private;
        let strip = |t: &Template, stored: TokenStream| {
            let steps = t.segments.iter().enumerate().map(|(i, s)| {
                let step = match s {
                    Segment::Lit(text) => quote!(__r.strip_prefix(#text)),
                    Segment::Field(name) => {
                        let f = self.field(name);
                        let last = i + 1 == t.segments.len();
                        let value = self.key_value(f, model::arg_from_self(f), last);
                        quote!(#pv::WritePart(&#value).strip_part(__r))
                    }
                };
                quote!(let #pv::Some(__r) = #step else { break '__key false };)
            });
            quote!(('__key: {
                let __r: &str = #stored;
                #(#steps)*
                __r.is_empty()
            }))
        };
        let pk_ok = strip(pk, quote!(__pk));
        let sk_ok = match sk {
            Some(t) => {
                let ok = strip(t, quote!(__s));
                // A match, not `is_some_and` and a closure: one body less
                // per entity for the compiler.
                quote!(match __sk {
                    #pv::Some(__s) => #ok,
                    #pv::None => false,
                })
            }
            None => quote!(__sk.is_none()),
        };
        quote! {
            #[inline]
            fn key_agrees(&self, __pk: &str, __sk: #pv::Option<&str>) -> bool {
                #pk_ok && #sk_ok
            }
        }
    }

    /// `Entity::to_item_stamped` for entities with automatic timestamps:
    /// each stamped value goes into a local first, and the key attributes
    /// and the stored attribute are both built from it.
    fn stamped_encoder(
        &self,
        keys: &attr::Keys,
        codec: &Codec,
        capacity: usize,
        version_insert: &TokenStream,
    ) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let entity = self.entity;
        let mut locals = TokenStream::new();
        let mut overrides: Vec<(String, syn::Ident)> = Vec::new();
        for f in self.fields.iter().filter(|f| !f.skipped()) {
            let (id, ty, stored) = (&f.ident, &f.ty, &f.stored);
            let local = format_ident!("__stamped_{}", f.name());
            let value = if f.opts.created_at.is_present() {
                quote_spanned!(ty.span()=> #pv::created_value::<#ty>(&self.#id, __stamp, #entity, #stored)?)
            } else if f.opts.updated_at.is_present() {
                quote_spanned!(ty.span()=> #pv::updated_value::<#ty>(__stamp))
            } else {
                continue;
            };
            locals.extend(quote!(let #local: #ty = #value;));
            overrides.push((f.name(), local));
        }
        if overrides.is_empty() {
            return TokenStream::new();
        }
        let key_inserts = self.key_inserts(keys, &overrides);
        let encode = codec.encode_with(false, &overrides);
        quote! {
            #[inline]
            fn to_item_stamped(&self, __stamp: &#krate::clock::Stamp) -> #krate::Result<#krate::Item> {
                #krate::Entity::validate(self)?;
                #locals
                let mut __item: #krate::Item = #pv::HashMap::with_capacity(#capacity);
                { let __item = &mut __item; #key_inserts }
                #version_insert
                #encode
                #pv::checked_item::<Self>(__item, __failed)
            }
        }
    }

    /// Statements inserting the key attributes, the index key attributes
    /// whose conditions hold, and the entity type into `__item`.
    pub(super) fn key_inserts(
        &self,
        keys: &attr::Keys,
        overrides: &[(String, syn::Ident)],
    ) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let entity = self.entity;
        let s = |e: TokenStream| quote!(#pv::AttributeValue::S(#e));
        let mut out = TokenStream::new();
        // The primary key values, kept for shard suffixes.
        let pk = keys
            .pk
            .as_ref()
            .map(|t| self.self_call_with(t, "pk", overrides));
        out.extend(quote!(let __pk_value: #pv::String = #pk;));
        let sk_value = match &keys.sk {
            Some((t, _)) => {
                let call = self.self_call_with(t, "sk", overrides);
                quote!(#pv::Some(#call))
            }
            None => quote!(#pv::None::<#pv::String>),
        };
        out.extend(quote! {
            let __sk_value: #pv::Option<#pv::String> = #sk_value;
            let __type = if <Self as #krate::Entity>::WRITES_TYPE { #pv::Some(#entity) } else { #pv::None };
            #pv::insert_primary(__item, TABLE, &__pk_value, __sk_value.as_deref(), __type);
        });
        for index in &keys.indexes {
            let n = index.name();
            let mut inserts = TokenStream::new();
            match index.kind {
                IndexKind::Gsi(num) => {
                    let konst = format_ident!("GSI{}", num);
                    if let Some(t) = &index.pk {
                        let call = self.self_call_with(t, &format!("{n}_pk"), overrides);
                        let value = if index.shards > 1 {
                            let shards = index.shards;
                            quote!(#pv::with_shard(
                                &#call,
                                #pv::shard_of(&__pk_value, __sk_value.as_deref(), #shards),
                            ))
                        } else {
                            call
                        };
                        let v = s(value);
                        inserts.extend(quote!(__item.insert(#pv::String::from(#konst.pk), #v);));
                    }
                    if let Some(t) = &index.sk {
                        let v = s(self.self_call_with(t, &format!("{n}_sk"), overrides));
                        inserts.extend(quote! {
                            if let #pv::Some(__a) = #konst.sk {
                                __item.insert(#pv::String::from(__a), #v);
                            }
                        });
                    }
                }
                IndexKind::Lsi(num) => {
                    let konst = format_ident!("LSI{}", num);
                    if let Some(t) = &index.sk {
                        let v = s(self.self_call_with(t, &format!("{n}_sk"), overrides));
                        inserts.extend(quote!(__item.insert(#pv::String::from(#konst.sk), #v);));
                    }
                }
            }
            match &index.when {
                None => out.extend(inserts),
                Some(when) => {
                    let cond = self.condition(when);
                    out.extend(quote!(if #cond { #inserts }));
                }
            }
        }
        out
    }

    /// A sparse-index condition: `self.published` for a field, `f(self)` for
    /// a function path.
    fn condition(&self, when: &syn::Path) -> TokenStream {
        // Every token on `when`, so the error has no second label on the derive.
        let krate: TokenStream = self
            .krate
            .to_token_stream()
            .into_iter()
            .map(|mut tt| {
                tt.set_span(when.span());
                tt
            })
            .collect();
        if let Some(id) = when.get_ident()
            && let Some(f) = self.fields.iter().find(|f| f.ident == *id)
        {
            // The field's own ident would stretch the error span from `when`
            // down to the field declaration.
            let mut ident = f.ident.clone();
            ident.set_span(when.span());
            return quote_spanned!(when.span()=>
                #krate::__private::SparseCondition::holds(&self.#ident)
            );
        }
        quote_spanned!(when.span()=>
            #krate::__private::SparseCondition::holds(&#when(self))
        )
    }
}
