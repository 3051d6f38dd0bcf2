//! `#[derive(Entity)]`: check the declaration, then generate key builders,
//! key parsers and the item codec.
//!
//! The rooms: `parts` (key parts and the calls of the builders), `item`
//! (`impl Entity` and the item codec), `builders` (the inherent key API)
//! and `checks` (the compile-time checks against the table).

mod builders;
mod checks;
mod item;
mod parts;

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::access;
use crate::internals::attr::EntityOpts;
use crate::internals::ctx::{Ctx, Tokens};
use crate::internals::entity;
use crate::internals::model;

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
                attribute_types: &[],
                writes_type: true,
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
                CardFallback as _, ReadPartFallback as _, StoredTypeFallback as _,
                UniquePartFallback as _, WidthFallback as _, WritePartFallback as _,
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
