//! The checked model of a struct's fields, shared by `Entity` and `Document`.

use darling::FromField;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::attr::FieldOpts;
use crate::internals::case::RenameRule;

/// One field with its stored attribute name.
pub struct Field {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    /// Attribute name in DynamoDB.
    pub stored: String,
    /// Where a problem with the stored name points: the `rename` value, or
    /// the field name.
    pub stored_span: Span,
    pub opts: FieldOpts,
}

impl Field {
    pub fn name(&self) -> String {
        let s = self.ident.to_string();
        s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
    }

    pub fn skipped(&self) -> bool {
        self.opts.skip.is_present()
    }

    /// Whether writes store the field as an attribute of its own: not
    /// `skip`, and not `from_key` (which a key holds).
    pub fn written(&self) -> bool {
        !self.skipped() && !self.opts.from_key.is_present()
    }
}

/// Checks the input shape: a struct with named fields and no generics.
pub fn named_fields<'a>(
    input: &'a syn::DeriveInput,
    derive: &str,
) -> Result<&'a syn::FieldsNamed, syn::Error> {
    let fields = match &input.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(named) => Ok(named),
            syn::Fields::Unnamed(_) => Err(syn::Error::new(
                input.ident.span(),
                format!(
                    "`#[derive({derive})]` needs a struct with named fields; tuple structs have no attribute names to store"
                ),
            )),
            syn::Fields::Unit => Err(syn::Error::new(
                input.ident.span(),
                format!(
                    "`#[derive({derive})]` needs a struct with named fields, not a unit struct"
                ),
            )),
        },
        syn::Data::Enum(e) => Err(syn::Error::new(
            e.enum_token.span(),
            format!(
                "`#[derive({derive})]` needs a struct with named fields; for an enum of unit variants stored as strings use `#[derive(StrEnum)]`"
            ),
        )),
        syn::Data::Union(u) => Err(syn::Error::new(
            u.union_token.span(),
            format!("`#[derive({derive})]` needs a struct with named fields, not a union"),
        )),
    }?;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            format!(
                "`#[derive({derive})]` does not support generic structs; give the fields concrete types"
            ),
        ));
    }
    Ok(fields)
}

/// Reads the fields and their `#[attr(...)]` options, checking that stored
/// names are unique.
pub fn fields(
    named: &syn::FieldsNamed,
    rule: RenameRule,
    errors: &mut darling::error::Accumulator,
) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    for f in &named.named {
        // A field whose `#[attr]` is wrong stays in the model with default
        // options, so key templates naming it raise no second error.
        let parsed = FieldOpts::from_field(f).map_err(|e| {
            crate::internals::style::restyle(e, "attr", || {
                Some(crate::internals::style::listed(
                    crate::internals::style::FIELD_OPTIONS,
                    "",
                ))
            })
        });
        let Some(opts) = errors.handle(parsed).or_else(|| {
            // Without the unknown options, or else without `#[attr]`.
            let mut clean = f.clone();
            if let Some(attrs) = FieldOpts::from_field(f)
                .err()
                .and_then(|e| crate::internals::style::without_unknown(&f.attrs, "attr", &e))
            {
                clean.attrs = attrs;
                if let Ok(opts) = FieldOpts::from_field(&clean) {
                    return Some(opts);
                }
            }
            let mut bare = f.clone();
            bare.attrs.retain(|a| !a.path().is_ident("attr"));
            FieldOpts::from_field(&bare).ok()
        }) else {
            continue;
        };
        let Some(ident) = opts.ident.clone() else {
            continue;
        };
        let (stored, stored_span) = match &opts.rename {
            Some(r) => (r.as_str().to_owned(), r.span()),
            None => (rule.apply(&ident.to_string()), ident.span()),
        };
        if !opts.skip.is_present() {
            if stored.is_empty() {
                errors.push(
                    darling::Error::custom("empty attribute name; DynamoDB attribute names need at least one character")
                        .with_span(&stored_span),
                );
            }
            if let Some(other) = out.iter().find(|o| !o.skipped() && o.stored == stored) {
                errors.push(
                    darling::Error::custom(format!(
                        "field `{}` is stored as `{stored}`, which field `{}` already uses; rename one with `#[attr(rename = \"...\")]`",
                        ident, other.ident
                    ))
                    .with_span(&stored_span),
                );
            }
            if opts.default.is_some() && is_option(&opts.ty) {
                // Option already reads an absent attribute as None.
            }
        }
        if opts.skip.is_present() {
            let option = match (&opts.rename, opts.serde.is_present()) {
                (Some(r), _) => Some(("rename", r.span())),
                (None, true) => Some(("serde", opts.serde.span())),
                (None, false) => None,
            };
            if let Some((option, span)) = option {
                errors.push(
                    darling::Error::custom(format!(
                        "a skipped field is not stored, so `{option}` has no effect; remove `skip` or `{option}`"
                    ))
                    .with_span(&span),
                );
            }
        }
        out.push(Field {
            ident,
            ty: opts.ty.clone(),
            stored,
            stored_span,
            opts,
        });
    }
    out
}

/// Whether the type is written `Option<...>`.
pub fn is_option(ty: &syn::Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Option")
}

/// The `T` of a type written `Option<T>`.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let seg = last_segment(ty).filter(|s| s.ident == "Option")?;
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// How a key builder takes a field's value.
pub enum ArgKind {
    /// `String` fields are taken as `&str`.
    Str,
    /// Small `Copy` scalars are taken by value.
    Copy,
    /// Anything else is taken by reference.
    Ref,
}

pub fn arg_kind(ty: &syn::Type) -> ArgKind {
    match last_segment(ty) {
        Some(s) if matches!(s.arguments, syn::PathArguments::None) => {
            let name = s.ident.to_string();
            match name.as_str() {
                "String" => ArgKind::Str,
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" | "bool" | "char" | "NonZeroU8" | "NonZeroU16"
                | "NonZeroU32" | "NonZeroU64" | "NonZeroU128" | "NonZeroUsize" => ArgKind::Copy,
                _ => ArgKind::Ref,
            }
        }
        _ => ArgKind::Ref,
    }
}

/// The argument type of a field in a sort-key value type (`SortKey::Value`),
/// whose references live for the lifetime `'__a`.
pub fn arg_type_in_value(ty: &syn::Type) -> TokenStream {
    match arg_kind(ty) {
        ArgKind::Str => quote!(&'__a str),
        ArgKind::Copy => ty.to_token_stream(),
        ArgKind::Ref => quote!(&'__a #ty),
    }
}

/// The parameter type a key builder declares for a field.
pub fn arg_type(ty: &syn::Type) -> TokenStream {
    match arg_kind(ty) {
        ArgKind::Str => quote!(&str),
        ArgKind::Copy => ty.to_token_stream(),
        ArgKind::Ref => quote!(&#ty),
    }
}

/// How `self.field` is passed to a key builder.
pub fn arg_from_self(field: &Field) -> TokenStream {
    arg_from(field, quote!(self))
}

/// How field `field` of `value` (an entity) is passed to a key builder.
pub fn arg_from(field: &Field, value: TokenStream) -> TokenStream {
    let ident = &field.ident;
    match arg_kind(&field.ty) {
        ArgKind::Copy => quote!(#value.#ident),
        ArgKind::Str | ArgKind::Ref => quote!(&#value.#ident),
    }
}

/// A few tokens the generated code names again and again (the crate's
/// paths), kept as trees: `quote!` writes them tree by tree into the
/// stream it builds, where each interpolation of a `TokenStream` costs the
/// proc macro a clone and a concatenation, two calls into the compiler.
#[derive(Clone)]
pub(crate) struct Tokens(Vec<TokenTree>);

impl Tokens {
    pub fn new(tokens: TokenStream) -> Self {
        Tokens(tokens.into_iter().collect())
    }
}

impl ToTokens for Tokens {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.0.iter().cloned());
    }
}

/// The encode and decode code of the stored fields, shared by entities and
/// documents. `on_err` wraps an `EncodeError`/`DecodeError` expression.
pub struct Codec<'a> {
    pub krate: &'a Tokens,
    /// The crate's `__private` module (a shorter path inside a derive's
    /// `const _` block).
    pub private: &'a Tokens,
    pub fields: &'a [Field],
    /// The entity's name when the codec is an entity's: its errors are
    /// `Error`s naming it. A document's are `EncodeError`/`DecodeError`s.
    pub entity: Option<&'a str>,
}

impl Codec<'_> {
    /// A call of the runtime's per-field step `name` for a field of type
    /// `ty` (see `field_codec` in the runtime), spanned on the type: the
    /// entity's version takes the entity's name first and returns an
    /// `Error`, the document's (`doc_` + name) an `EncodeError` or
    /// `DecodeError`.
    fn step(&self, name: &str, ty: &syn::Type, args: TokenStream) -> TokenStream {
        let pv = self.private;
        match self.entity {
            Some(entity) => {
                let f = quote::format_ident!("{}", name);
                quote_spanned!(ty.span()=> <#ty as #pv::FieldCodec>::#f(#entity, #args))
            }
            None => {
                let f = quote::format_ident!("doc_{}", name);
                quote_spanned!(ty.span()=> <#ty as #pv::FieldCodec>::#f(#args))
            }
        }
    }

    /// `result` (a `Result` with an `EncodeError`, or with a `DecodeError`
    /// when `decode`) with this codec's error type.
    fn lift(&self, result: TokenStream, decode: bool) -> TokenStream {
        let pv = self.private;
        match (self.entity, decode) {
            (Some(entity), false) => quote!(#pv::encoded(#entity, #result)),
            (Some(entity), true) => quote!(#pv::decoded(#entity, #result)),
            (None, _) => result,
        }
    }

    /// Statements inserting every stored field of `self` into `__item`, in
    /// a body whose `?` returns this codec's error. With `owned`, values
    /// are moved out of `self`.
    pub fn encode(&self, owned: bool) -> TokenStream {
        self.encode_with(owned, &[])
    }

    /// Like [`Codec::encode`], reading the fields named in `overrides` from
    /// the given locals (of the field's type) instead of `self`.
    ///
    /// An entity's statements keep the first error of a field's step in a
    /// local `__failed` they declare (`Option<Error>`), skipping the later
    /// steps, instead of a `?` per field: the encoder ends with
    /// `__private::checked_item` or `__private::written`, which return it.
    pub fn encode_with(&self, owned: bool, overrides: &[(String, syn::Ident)]) -> TokenStream {
        let pv = self.private;
        let entity = self.entity.is_some();
        let stmts = self.fields.iter().filter(|f| f.written()).map(|f| {
            let ident = &f.ident;
            let stored = &f.stored;
            let ty = &f.ty;
            let place = match overrides.iter().find(|(n, _)| *n == f.name()) {
                Some((_, local)) => quote!(#local),
                None => quote!(self.#ident),
            };
            if f.opts.ttl.is_present() {
                // TTL: epoch seconds as N, which DynamoDB's TTL reads.
                let seconds =
                    quote_spanned!(ty.span()=> <#ty as #pv::EpochSeconds>::to_epoch(&#place));
                return quote! {
                    if let #pv::Some(__s) = #seconds {
                        __item.insert(
                            #pv::String::from(#stored),
                            #pv::AttributeValue::N(__s.to_string()),
                        );
                    }
                };
            }
            if f.opts.serde.is_present() {
                let value = self.lift(
                    quote!(#pv::serde_to_attr(&#place).map_err(|__e| __e.at(#stored))),
                    false,
                );
                // An earlier field's error first, as without `__failed`.
                let earlier = entity.then(|| quote!(#pv::no_failure(&mut __failed)?;));
                return quote! {
                    #earlier
                    __item.insert(#pv::String::from(#stored), #value?);
                };
            }
            // One generic call per field. Entities encode by reference
            // only: `Entity::into_item` is the trait's, through `to_item`.
            if entity {
                debug_assert!(!owned, "an entity's encoder takes `&self`");
                let call = self.step(
                    "put_or",
                    ty,
                    quote!(&mut __item, #stored, &#place, &mut __failed),
                );
                return quote!(#call;);
            }
            let call = if owned {
                self.step("put_owned", ty, quote!(&mut __item, #stored, #place))
            } else {
                self.step("put", ty, quote!(&mut __item, #stored, &#place))
            };
            quote!(#call?;)
        });
        if entity {
            let stmts: Vec<TokenStream> = stmts.collect();
            // `mut` only where a step or a serde field's check writes it.
            let written = self
                .fields
                .iter()
                .any(|f| f.written() && !f.opts.ttl.is_present());
            let mutable = written.then(|| quote!(mut));
            quote!(let #mutable __failed = #pv::None; #(#stmts)*)
        } else {
            quote!(#(#stmts)*)
        }
    }

    /// The local holding stored field `i` after [`Codec::read`].
    fn slot(i: usize) -> syn::Ident {
        quote::format_ident!("__slot{}", i)
    }

    /// The local holding index key attribute `k` after [`Codec::read`].
    pub fn index_key(k: usize) -> syn::Ident {
        quote::format_ident!("__index_key{}", k)
    }

    /// Whether a field is decoded as it is read (through
    /// `Attr::from_attr_ref`, from a possibly borrowed value), rather than
    /// kept as an owned value and decoded afterwards (serde and TTL fields).
    fn read_in_place(f: &Field) -> bool {
        !f.opts.serde.is_present() && !f.opts.ttl.is_present()
    }

    /// The stored (not skipped) fields with their indexes.
    /// The stored fields read from an attribute of their own name: not a
    /// `from_key` field, which is filled from the key (an attribute of its
    /// name, the key attribute itself when renamed so, is the key's).
    fn read_from_attributes<'f>(
        stored: &'f [(usize, &'f Field)],
    ) -> impl Iterator<Item = &'f (usize, &'f Field)> {
        stored.iter().filter(|(_, f)| !f.opts.from_key.is_present())
    }

    fn stored(&self) -> Vec<(usize, &Field)> {
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.skipped())
            .collect()
    }

    /// Statements moving every attribute of `__item` (an owned map,
    /// consumed) into one `Option<AttributeValue>` local per stored field,
    /// and, for entities (`entity_type` given), the entity-type attribute
    /// into `__entity_type` and the table's key attributes into
    /// `__stored_pk`/`__stored_sk`; other attributes are dropped. One pass
    /// over the map with a `match` on the name, instead of hashing every
    /// field's name to remove it; values are decoded afterwards (read them
    /// with [`Codec::init`] and `in_place = false`). For owned maps this is
    /// faster than [`Codec::read`], whose per-attribute protocol pays off
    /// only when values can be borrowed.
    pub fn scan(&self, entity_type: Option<TokenStream>) -> TokenStream {
        let pv = self.private;
        let stored_key_decls = quote! {
            let mut __stored_pk: #pv::Option<#pv::AttributeValue> = #pv::None;
            let mut __stored_sk: #pv::Option<#pv::AttributeValue> = #pv::None;
        };
        let stored = self.stored();
        let decls = stored.iter().map(|(i, _)| {
            let slot = Self::slot(*i);
            quote!(let mut #slot: #pv::Option<#pv::AttributeValue> = #pv::None;)
        });
        let arms = Self::read_from_attributes(&stored).map(|(i, f)| {
            let slot = Self::slot(*i);
            let name = &f.stored;
            quote!(#name => #slot = #pv::Some(__v),)
        });
        let (type_decl, type_arm) = match entity_type {
            Some(attr) => (
                quote! {
                    let mut __entity_type: #pv::Option<#pv::AttributeValue> = #pv::None;
                    #stored_key_decls
                },
                quote! {
                    __name if __name == #attr => __entity_type = #pv::Some(__v),
                    __name if __name == TABLE.pk => __stored_pk = #pv::Some(__v),
                    __name if TABLE.sk == #pv::Some(__name) => __stored_sk = #pv::Some(__v),
                },
            ),
            None => (TokenStream::new(), TokenStream::new()),
        };
        quote! {
            #(#decls)*
            #type_decl
            for (__k, __v) in __item {
                match __k.as_str() {
                    #(#arms)*
                    #type_arm
                    _ => {}
                }
            }
        }
    }

    /// Statements reading every attribute of `__reader` (an `AttrReader`)
    /// once: each stored field's value is decoded into one local per field
    /// (a `Result`, so that an error is reported only once the entity type
    /// is known), and for entities (`entity_type` given: the expected type)
    /// the entity-type attribute and the table's key attributes are kept in
    /// `__seen` (a `Seen`), attributes matched by number (a static
    /// `Numbering`, see `AttrReader::next_numbered`); other attributes
    /// are skipped without being copied. Read the locals with
    /// [`Codec::init`].
    ///
    /// `index_keys`: the names (constant expressions) of the index key
    /// attributes fields are read back from (`from_key` fields only an
    /// index template holds), each kept whole in a local
    /// `Option<AttributeValue>` named by [`Codec::index_key`].
    pub fn read(&self, entity_type: Option<&str>, index_keys: &[TokenStream]) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let stored = self.stored();
        let decls = stored.iter().map(|(i, f)| {
            let slot = Self::slot(*i);
            let ty = &f.ty;
            if Self::read_in_place(f) {
                quote!(let mut #slot: #pv::Slot<#ty> = #pv::None;)
            } else {
                quote!(let mut #slot: #pv::Option<#pv::AttributeValue> = #pv::None;)
            }
        });
        let reads: Vec<(&String, TokenStream)> = Self::read_from_attributes(&stored)
            .map(|(i, f)| {
                let slot = Self::slot(*i);
                let ty = &f.ty;
                let read = if Self::read_in_place(f) {
                    let read = quote_spanned!(ty.span()=> <#ty as #pv::FieldCodec>::read_slot(__v));
                    quote!(#slot = #read)
                } else {
                    quote!(#slot = #pv::Some(__v.into_owned()))
                };
                (&f.stored, read)
            })
            .collect();
        let attr = self.lift(quote!(__attr), true);
        let Some(expected) = entity_type else {
            let arms = reads.iter().map(|(name, read)| quote!(#name => #read,));
            return quote! {
                #(#decls)*
                while let #pv::Some(__attr) = #krate::__private::reader::AttrReader::next_data_attr(__reader) {
                    let (__k, __v) = #attr?;
                    match __k {
                        #(#arms)*
                        _ => {}
                    }
                }
            };
        };
        // Entities also read the table's key attributes, which the decoded
        // fields must rebuild (see `check_stored_key`), unless the reader
        // lends them afterwards (`Seen::stored`); and they match attributes
        // by number (`next_numbered`): a reader that numbers its names
        // compares no string per attribute. The numbering is data (the
        // names of the fields read, then the table's entity-type and key
        // attributes), not code, for the compiler's sake: one `static`.
        let n = reads.len() + index_keys.len();
        let (entity_type_no, pk_no, sk_no) = (n, n + 1, n + 2);
        let names = reads
            .iter()
            .map(|(name, _)| quote!(#name))
            .chain(index_keys.iter().cloned());
        let arms = reads
            .iter()
            .map(|(_, read)| read.clone())
            .chain((0..index_keys.len()).map(|k| {
                let local = Self::index_key(k);
                quote!(#local = #pv::Some(__v.into_owned()))
            }))
            .enumerate()
            .map(|(no, read)| quote!(#no => #read,));
        let index_decls = (0..index_keys.len()).map(|k| {
            let local = Self::index_key(k);
            quote!(let mut #local: #pv::Option<#pv::AttributeValue> = #pv::None;)
        });
        quote! {
            #(#decls)*
            #(#index_decls)*
            let mut __seen = #pv::Seen::default();
            // A `const` first: index key attribute names are constant
            // expressions, which a static's argument cannot borrow.
            const __NAMES: &[&str] = &[#(#names),*];
            static __NUMBERING: #krate::__private::reader::Numbering =
                #krate::__private::reader::Numbering::with_table(__NAMES, TABLE);
            while let #pv::Some(__attr) =
                #krate::__private::reader::AttrReader::next_numbered(__reader, &__NUMBERING)
            {
                let (__i, _, __v) = #attr?;
                match __i {
                    #(#arms)*
                    #entity_type_no => __seen.entity_type(__v, #expected),
                    #pk_no => __seen.key(false, __v),
                    #sk_no => __seen.key(true, __v),
                    _ => {}
                }
            }
        }
    }

    /// Statements filling the slots [`Codec::read`] left empty for the
    /// fields named in `names` (a key template's placeholders, in order)
    /// from the key value `key` (an `Option<&str>`), parsed by `parse` (the
    /// entity's `parse_pk`-like function, one value for one name, a tuple
    /// for more). Only fields decoded in place are filled; the others stay
    /// as read. Parsing happens only when a slot is empty, so items that
    /// carry every copy pay nothing.
    ///
    /// `filled`: which of those fields the key fills (every one for the
    /// primary key; for an index key, the `from_key` fields only it holds).
    pub fn fill_from_key(
        &self,
        names: &[&str],
        filled: impl Fn(&Field) -> bool,
        key: TokenStream,
        parse: TokenStream,
    ) -> TokenStream {
        let pv = self.private;
        let slots: Vec<Option<syn::Ident>> = names
            .iter()
            .map(|n| {
                self.fields
                    .iter()
                    .enumerate()
                    .find(|(_, f)| {
                        f.name() == *n && !f.skipped() && Self::read_in_place(f) && filled(f)
                    })
                    .map(|(i, _)| Self::slot(i))
            })
            .collect();
        let filled: Vec<&syn::Ident> = slots.iter().flatten().collect();
        if filled.is_empty() {
            return TokenStream::new();
        }
        // One placeholder (the usual template): one call of a runtime
        // function, not a block of its own in every decoder.
        if let [Some(slot)] = slots.as_slice() {
            return quote!(#pv::fill_from_key(&mut #slot, #key, #parse)?;);
        }
        let binds: Vec<TokenStream> = slots
            .iter()
            .map(|s| match s {
                Some(slot) => {
                    let v = quote::format_ident!("{}_key", slot);
                    quote!(#v)
                }
                None => quote!(_),
            })
            .collect();
        let pattern = if binds.len() == 1 {
            quote!(#(#binds)*)
        } else {
            quote!((#(#binds),*))
        };
        let fills = filled.iter().map(|slot| {
            let v = quote::format_ident!("{}_key", slot);
            quote!(if #slot.is_none() { #slot = #pv::Some(#pv::Ok(#v)); })
        });
        quote! {
            if #(#filled.is_none())||* {
                if let #pv::Some(__key) = #key {
                    let #pattern = #parse(__key)?;
                    #(#fills)*
                }
            }
        }
    }

    /// Field initializers from the locals [`Codec::read`] (`in_place`) or
    /// [`Codec::scan`] filled, in a body whose `?` returns this codec's
    /// error.
    pub fn init(&self, in_place: bool) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let inits = self.fields.iter().enumerate().map(|(i, f)| {
            let ident = &f.ident;
            let ty = &f.ty;
            let stored = &f.stored;
            let slot = Self::slot(i);
            if f.skipped() {
                let value = match &f.opts.default {
                    Some(darling::util::Override::Explicit(path)) => quote!(#path()),
                    _ => quote_spanned!(ty.span()=> <#ty as #pv::Default>::default()),
                };
                return quote!(#ident: #value);
            }
            if f.opts.ttl.is_present() {
                let read = quote_spanned!(ty.span()=> #pv::ttl_from_attr::<#ty>(#slot));
                let read = self.lift(quote!(#read.map_err(|__e| __e.at(#stored))), true);
                return quote!(#ident: #read?);
            }
            let absent = match &f.opts.default {
                Some(darling::util::Override::Explicit(path)) => quote!(#pv::Ok(#path())),
                Some(darling::util::Override::Inherit) => {
                    quote_spanned!(ty.span()=> #pv::Ok(<#ty as #pv::Default>::default()))
                }
                None if f.opts.serde.is_present() => {
                    quote!(#pv::Err(#krate::DecodeError::missing()))
                }
                None => {
                    let step = if in_place { "take_read" } else { "take" };
                    let call = self.step(step, ty, quote!(#slot, #stored));
                    return quote!(#ident: #call?);
                }
            };
            let present = if f.opts.serde.is_present() {
                quote!(#pv::serde_from_attr::<#ty>(__v))
            } else if in_place {
                quote!(__v)
            } else {
                quote_spanned!(ty.span()=> <#ty as #krate::Attr>::from_attr(__v))
            };
            let value = self.lift(
                quote! {
                    match #slot {
                        #pv::Some(__v) => #present,
                        #pv::None => #absent,
                    }.map_err(|__e| __e.at(#stored))
                },
                true,
            );
            quote!(#ident: #value?)
        });
        quote!(#(#inits),*)
    }

    /// Statements checking the declared validations of `self`'s fields.
    /// With `check_fns`, fields that have a [`check_fn`] call it (entities
    /// generate them for their update handles); others are checked inline.
    pub fn validate(&self, entity: &str, check_fns: bool) -> TokenStream {
        let krate = self.krate;
        let pv = self.private;
        let checks = self.fields.iter().filter(|f| !f.skipped()).map(|f| {
            let ident = &f.ident;
            let field = f.name();
            let fail = |msg: TokenStream| {
                quote! {
                    return #pv::Err(#krate::Error::Validation {
                        entity: #entity,
                        field: #field,
                        message: #msg,
                    });
                }
            };
            match check_fn(f).filter(|_| check_fns) {
                Some(check) => {
                    let e = fail(quote!(__msg));
                    quote!(if let #pv::Err(__msg) = Self::#check(&self.#ident) { #e })
                }
                None => checks(krate, f, &quote!((&self.#ident)), fail),
            }
        });
        quote!(#(#checks)*)
    }

    /// Number of stored fields, to size the item map.
    pub fn stored_count(&self) -> usize {
        self.fields.iter().filter(|f| f.written()).count()
    }
}

/// Whether a field has a typed handle in `fields()` (what updates set).
pub fn has_handle(f: &Field) -> bool {
    !f.skipped() && !f.opts.serde.is_present() && !f.opts.version.is_present()
}

/// The name of the function an entity generates to check a field's
/// declared validations on a value, for fields with a handle and
/// validations: puts and updates run the same checks.
pub fn check_fn(f: &Field) -> Option<syn::Ident> {
    let declares = f.opts.min.is_some()
        || f.opts.max.is_some()
        || f.opts.min_len.is_some()
        || f.opts.max_len.is_some()
        || f.opts.validate.is_some();
    (declares && has_handle(f)).then(|| quote::format_ident!("__singletable_check_{}", f.name()))
}

/// Statements checking field `f`'s declared validations on `value` (an
/// expression giving a reference to a value of the field's type);
/// `fail(message)` is the statement run when one fails (`message` a
/// `String` expression).
pub fn checks(
    krate: &Tokens,
    f: &Field,
    value: &TokenStream,
    fail: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(min) = &f.opts.min {
        let e = fail(quote!(::std::format!("must be at least {}", #min)));
        out.extend(quote_spanned!(min.span()=> if *#value < #min { #e }));
    }
    if let Some(max) = &f.opts.max {
        let e = fail(quote!(::std::format!("must be at most {}", #max)));
        out.extend(quote_spanned!(max.span()=> if *#value > #max { #e }));
    }
    if let Some(min) = f.opts.min_len {
        let e = fail(quote!(::std::format!("length must be at least {}", #min)));
        out.extend(quote!(if #krate::__private::Len::len(#value) < #min { #e }));
    }
    if let Some(max) = f.opts.max_len {
        let e = fail(quote!(::std::format!("length must be at most {}", #max)));
        out.extend(quote!(if #krate::__private::Len::len(#value) > #max { #e }));
    }
    if let Some(path) = &f.opts.validate {
        let e = fail(quote!(__msg));
        // The annotation names the result `validate` must return, at the
        // path, when the function returns something else. The call (not a
        // fn-pointer coercion) lets `fn(&str)` check a `String` field.
        out.extend(quote_spanned!(path.span()=>
            let __checked: #krate::__private::Result<(), #krate::__private::String> = #path(#value);
            if let #krate::__private::Err(__msg) = __checked { #e }
        ));
    }
    out
}
