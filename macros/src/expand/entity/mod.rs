//! `#[derive(Entity)]`: check the declaration, then generate key builders,
//! key parsers and the item codec.

use darling::FromDeriveInput;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::access;
use crate::expand::version::Versioned;
use crate::internals::attr::{self, EntityOpts, IndexDecl, IndexKind, Template};
use crate::internals::ctx::{Ctx, Tokens, respan};
use crate::internals::entity::{self, Entity};
use crate::internals::model::{self, Codec, Field};
use crate::internals::template::Segment;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    super::or_stub(expand(input).map_err(darling::Error::write_errors), || {
        stub(input)
    })
}

/// An `Entity` impl emitted beside the errors, so the only errors the user
/// sees are the ones about the declaration.
fn stub(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let opts = EntityOpts::from_derive_input(input).ok();
    let krate = opts
        .as_ref()
        .and_then(|o| o.krate.clone())
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::singletable));
    let table = opts
        .as_ref()
        .map(|o| {
            let t = &o.table;
            quote!(#t)
        })
        .unwrap_or_else(|| quote!(#krate::__private::StubTable));
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Entity for #ident #ty_generics #where_clause {
            type Table = #table;
            const SHAPE: #krate::__private::EntityShape = #krate::__private::EntityShape {
                name: "",
                pk: #krate::__private::KeyShape { template: "", segs: &[], cardinality: || #krate::__private::None, unpadded: &[] },
                sk: #krate::__private::None,
                indexes: &[],
                attribute_indexes: &[],
                access: &[],
                attributes: &[],
                ttl: #krate::__private::None,
                stamped: &[],
            };
            fn primary_key(&self) -> #krate::Result<#krate::PrimaryKey> { ::core::unimplemented!() }
            fn validate(&self) -> #krate::Result<()> { ::core::unimplemented!() }
            fn to_item(&self) -> #krate::Result<#krate::Item> { ::core::unimplemented!() }
            fn from_item(_: #krate::Item) -> #krate::Result<Self> { ::core::unimplemented!() }
        }
    }
}

/// Which key a template fills, for naming and size limits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Partition,
    Sort,
}

struct KeyFn<'a> {
    /// Builder name: `pk`, `sk`, `gsi1_pk`, `lsi1_sk`.
    name: String,
    template: &'a Template,
    role: Role,
}

/// The key builders: `pk`, `sk`, then each index's `gsiN_pk`, `gsiN_sk`.
fn key_fns<'a>(pk: &'a Template, keys: &'a attr::Keys) -> Vec<KeyFn<'a>> {
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

fn expand(input: &syn::DeriveInput) -> Result<TokenStream, darling::Error> {
    let named = model::named_fields(input, "Entity")?;
    let mut errors = darling::Error::accumulator();
    let opts = match entity::parse_opts(input, &mut errors) {
        Ok(opts) => opts,
        Err(e) => {
            let _ = errors.into_inner();
            return Err(e);
        }
    };
    // After a mistake in the declaration, the API is still generated from
    // a repaired model, so that the code calling it raises no second
    // error; the cross-checks are left out, they would only repeat the
    // mistake.
    let m = entity::model(&opts, named, errors);
    let lenient = m.lenient();
    let Some(pk) = m.keys.pk.as_ref() else {
        // parse_keys reported the missing #[pk]: no key, no API.
        return Err(darling::Error::multiple(m.errors));
    };
    let reported = lenient.then(|| darling::Error::multiple(m.errors.clone()).write_errors());

    let outer = Tokens::new(
        opts.krate
            .as_ref()
            .map(|p| quote!(#p))
            .unwrap_or_else(|| quote!(::singletable)),
    );
    // Inside the derive's `const _` block the crate is named by one
    // identifier (`use ::singletable as __singletable;`): shorter code,
    // less for the compiler to read. Code outside it uses `outer`.
    let krate = Tokens::new(quote!(__singletable));
    let pv = Tokens::new(quote!(__private));
    let ident = &opts.ident;
    let entity_name = opts.name.clone().unwrap_or_else(|| ident.to_string());
    let table = &opts.table;
    let keys = &m.keys;
    let ctx = Ctx {
        krate: &krate,
        private: &pv,
        outer: &outer,
        entity_ident: ident,
        entity: &entity_name,
        fields: &m.fields,
        vis: &input.vis,
    };
    let (access_types, access_impls) = access::expand(&ctx, ident, table, keys, &m.accesses);
    let attr_index_checks =
        crate::expand::attr_index::consts_and_checks(&ctx, table, &keys.attr_indexes, !lenient);
    let vector_checks =
        crate::expand::vector::consts_and_checks(&ctx, table, &keys.vectors, !lenient);
    let (fields_type, fields_impls) = crate::expand::fields::expand(&ctx, keys);
    let checks = if lenient {
        TokenStream::new()
    } else {
        ctx.compile_checks(table, keys)
    };
    let versioned = crate::expand::version::expand(&ctx, m.schema.as_ref());
    let key_api = ctx.key_api(pk, keys);
    let entity_impl = ctx.entity_impl(&m, pk, &versioned);
    let versioned_checks = &versioned.checks;

    Ok(quote! {
        #reported
        #access_types
        #fields_type

        const _: () = {
            #[allow(unused_imports)]
            use #outer as __singletable;
            #[allow(unused_imports)]
            use #outer::__private;
            // The fallbacks of the key part probes (see `Ctx::write_part`)
            // and of the shape's (`expand::shape::key_shape`).
            #[allow(unused_imports)]
            use #pv::{
                CardFallback as _, ReadPartFallback as _, UniquePartFallback as _,
                WidthFallback as _, WritePartFallback as _,
            };
            #checks
            #attr_index_checks
            #vector_checks
            #versioned_checks
            #access_impls
            #fields_impls

            #key_api

            #entity_impl
        };
    })
}

impl Ctx<'_> {
    /// The inherent impl with the key builders, the typed partitions, the
    /// key pairs, the sort-key prefixes and the key parsers.
    fn key_api(&self, pk: &Template, keys: &attr::Keys) -> TokenStream {
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
                    Self::pk(#(#args),*).map(#krate::Partition::new)
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
                    Self::#builder(#(#args),*).map(#krate::Partition::new)
                }
            })
        });
        quote! {
            #partition_fn
            #(#index_partition_fns)*
        }
    }

    /// `impl Entity`: the shape, the keys, and the item codec.
    fn entity_impl(&self, m: &Entity, pk: &Template, versioned: &Versioned) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let ident = self.entity_ident;
        let table = &m.opts.table;
        let keys = &m.keys;
        let entity_lit = self.entity;
        let shape = crate::expand::shape::entity_shape(self, keys, &m.accesses);
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
        let read = codec.read(Some(entity_lit));
        let init_read = codec.init(true);
        let from_keys = self.fields_from_keys(codec, keys);
        quote! {
            #[inline]
            fn from_item(__item: #krate::Item) -> #krate::Result<Self> {
                #pv::read_owned::<Self>(__item)
            }
            #[inline]
            fn read_item<__R: #krate::reader::AttrReader + ?::core::marker::Sized>(
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
    fn fields_from_keys(&self, codec: &Codec, keys: &attr::Keys) -> TokenStream {
        let mut out = TokenStream::new();
        if let Some(pk) = &keys.pk {
            out.extend(codec.fill_from_key(
                &pk.fields(),
                quote!(__stored.pk_str()),
                quote!(Self::parse_pk),
            ));
        }
        if let Some((sk, _)) = &keys.sk {
            out.extend(codec.fill_from_key(
                &sk.fields(),
                quote!(__stored.sk_str()),
                quote!(Self::parse_sk),
            ));
        }
        out
    }

    pub fn field(&self, name: &str) -> &Field {
        // check_templates guarantees every placeholder names a field.
        self.fields
            .iter()
            .find(|f| f.name() == name)
            .unwrap_or_else(|| unreachable!("placeholder `{name}` was checked"))
    }

    fn max_len(&self, role: Role) -> TokenStream {
        let pv = self.private;
        match role {
            Role::Partition => quote!(#pv::MAX_PARTITION_KEY_BYTES),
            Role::Sort => quote!(#pv::MAX_SORT_KEY_BYTES),
        }
    }

    /// Statements appending `segments` to `__k`, reading placeholders from
    /// the builder's parameters.
    fn write_segments(&self, segments: &[Segment]) -> TokenStream {
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
    fn capacity(&self, segments: &[Segment]) -> TokenStream {
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

    /// `Self::pk(&self.user_id)?`, passing the fields named in `overrides`
    /// from the given locals.
    fn self_call_with(
        &self,
        template: &Template,
        name: &str,
        overrides: &[(String, syn::Ident)],
    ) -> TokenStream {
        let call = self.builder_call(template, name, overrides);
        quote!(#call?)
    }

    /// `Self::pk(&self.user_id)`: the builder's `Result`.
    fn builder_call(
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
                __r.finish_with(#ret)
            }
        }
    }

    /// Compile-time checks against the table, each spanned on the token to fix.
    fn compile_checks(&self, table: &syn::Path, keys: &attr::Keys) -> TokenStream {
        let pv = self.private;
        let mut out = TokenStream::new();
        let table_span = table.span();
        out.extend(quote_spanned! {table_span=>
            const TABLE: &#pv::TableAttrs = #pv::TableOf::<#table>::ATTRS;
        });
        // The checks of one const (it stops at the first that fails), each
        // panic spanned on its token.
        let mut checks = TokenStream::new();
        let entity = self.entity;
        match &keys.sk {
            Some((_, span)) => {
                let msg = format!(
                    "entity `{entity}` declares `#[sk]`, but its table has no sort key; remove `#[sk]` or give the table a sort key"
                );
                checks.extend(quote_spanned! {*span=>
                    if TABLE.sk.is_none() { __private::fail(#msg) }
                });
            }
            None => {
                let msg = format!(
                    "entity `{entity}` declares no `#[sk]`, but its table has a sort key; add `#[sk(\"...\")]` to the entity"
                );
                let span = keys.pk_span;
                checks.extend(quote_spanned! {span=>
                    if TABLE.sk.is_some() { __private::fail(#msg) }
                });
            }
        }
        for index in &keys.indexes {
            out.extend(self.index_check(table, index));
        }
        out.extend(self.shared_attribute_checks(keys));
        // Stored names must not collide with the table's key attributes:
        // one check for all fields, each field's message spanned on it.
        let stored: Vec<&Field> = self.fields.iter().filter(|f| f.written()).collect();
        let names = stored.iter().map(|f| &f.stored);
        let arms = stored.iter().enumerate().map(|(i, f)| {
            let msg = format!(
                "field `{}` is stored as `{}`, a key or entity-type attribute of the table; rename it with `#[attr(rename = \"...\")]`",
                f.name(),
                f.stored
            );
            quote_spanned! {f.stored_span=> #i => __private::fail(#msg), }
        });
        if !stored.is_empty() {
            checks.extend(quote! {
                match #pv::first_reserved(TABLE.reserved, &[#(#names),*]) {
                    #(#arms)*
                    _ => {}
                }
            });
        }
        // Placeholder types must be key parts; the error points at the type.
        let asserts = &mut checks;
        let mut done: Vec<String> = Vec::new();
        let all_templates = keys.pk.iter().chain(keys.sk.iter().map(|(t, _)| t)).chain(
            keys.indexes
                .iter()
                .flat_map(|i| i.pk.iter().chain(i.sk.iter())),
        );
        for t in all_templates {
            for name in t.fields() {
                if done.iter().any(|d| d == name) {
                    continue;
                }
                done.push(name.to_owned());
                let f = self.field(name);
                let ty = &f.ty;
                let assert = if f.opts.verbatim.is_present() {
                    quote!(assert_verbatim)
                } else if f.opts.unpadded.is_present() {
                    quote!(assert_unpadded)
                } else {
                    quote!(assert_key_part)
                };
                asserts.extend(quote_spanned! {ty.span()=>
                    #pv::#assert::<#ty>();
                });
            }
        }
        for f in self.fields.iter().filter(|f| f.opts.unique.is_present()) {
            let ty = &f.ty;
            asserts.extend(quote_spanned! {ty.span()=>
                #pv::assert_unique::<#ty>();
            });
        }
        out.extend(quote! {
            const _: () = { #checks };
        });
        out
    }

    /// An index key may be stored in an attribute another key writes (an
    /// inverted index on the table's sort key, a second index on the same
    /// partition attribute); each pair of this entity's keys with different
    /// templates gets a check that fails, at the later key, when their
    /// attributes turn out to be one.
    fn shared_attribute_checks(&self, keys: &attr::Keys) -> TokenStream {
        let pv = self.private;
        // (what the key is, the attribute's `Option<&str>`, the template,
        // the token to point at, what to write there).
        let mut written: Vec<(String, TokenStream, String, Span, &str)> = Vec::new();
        if let Some(pk) = &keys.pk {
            let attr = quote!(#pv::Some(TABLE.pk));
            written.push((
                "the table's partition key".into(),
                attr,
                pk.text(),
                keys.pk_span,
                "",
            ));
        }
        if let Some((sk, span)) = &keys.sk {
            written.push((
                "the table's sort key".into(),
                quote!(TABLE.sk),
                sk.text(),
                *span,
                "",
            ));
        }
        for index in &keys.indexes {
            let name = index.name();
            let (pk_attr, sk_attr) = match index.kind {
                IndexKind::Gsi(n) => {
                    let konst = format_ident!("GSI{}", n);
                    (quote!(#pv::Some(#konst.pk)), quote!(#konst.sk))
                }
                IndexKind::Lsi(n) => {
                    let konst = format_ident!("LSI{}", n);
                    (quote!(#pv::None), quote!(#pv::Some(#konst.sk)))
                }
            };
            if let Some(t) = &index.pk {
                let what = format!("`{name}`'s partition key");
                written.push((what, pk_attr, t.text(), t.lit.span(), "pk"));
            }
            if let Some(t) = &index.sk {
                let what = format!("`{name}`'s sort key");
                written.push((what, sk_attr, t.text(), t.lit.span(), "sk"));
            }
        }
        let mut out = TokenStream::new();
        // The first `table_keys` entries are the table's own keys: the Table
        // derive refuses one attribute name for both, so that pair needs no
        // check (one constant less per entity for the compiler).
        let table_keys = usize::from(keys.pk.is_some()) + usize::from(keys.sk.is_some());
        for (i, (what, attr, text, span, option)) in written.iter().enumerate() {
            for (j, (other, other_attr, other_text, ..)) in written[..i].iter().enumerate() {
                if text == other_text || (i < table_keys && j < table_keys) {
                    continue;
                }
                let msg = format!(
                    "{what} is stored in the same attribute as {other}, whose template here is `{other_text}`; one attribute holds one value, so write `{option} = \"{other_text}\"`"
                );
                out.extend(quote_spanned! {*span=>
                    const _: () = if #pv::same_attr(#attr, #other_attr) { __private::fail(#msg) };
                });
            }
        }
        out
    }

    fn index_check(&self, table: &syn::Path, index: &IndexDecl) -> TokenStream {
        let pv = self.private;
        let span = index.span;
        let name = index.name();
        let table = respan(table, span);
        match index.kind {
            IndexKind::Gsi(n) => {
                let konst = format_ident!("GSI{}", n);
                let has_sk = index.sk.is_some();
                let msg = if has_sk {
                    format!(
                        "`{name}` has no sort key on the table, but this entity gives it one; remove `sk = ...` or declare the index's sort key on the table"
                    )
                } else {
                    format!(
                        "`{name}` has a sort key on the table, but this entity gives it none; add `sk = \"...\"`"
                    )
                };
                let cond = if has_sk {
                    quote!(#konst.sk.is_none())
                } else {
                    quote!(#konst.sk.is_some())
                };
                quote_spanned! {span=>
                    const #konst: #pv::GsiAttrs = #pv::gsi_attrs::<#table, #n>();
                    const _: () = if #cond { __private::fail(#msg) };
                }
            }
            IndexKind::Lsi(n) => {
                let konst = format_ident!("LSI{}", n);
                quote_spanned! {span=>
                    const #konst: #pv::LsiAttrs = #pv::lsi_attrs::<#table, #n>();
                }
            }
        }
    }

    /// Statements inserting the key attributes, the index key attributes
    /// whose conditions hold, and the entity type into `__item`.
    fn key_inserts(&self, keys: &attr::Keys, overrides: &[(String, syn::Ident)]) -> TokenStream {
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
