//! `#[entity(version = N, migrate(vK = OldShape, ...))]`: the schema
//! version written with every item, and how items of older versions are
//! read as the current type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::internals::ctx::Ctx;
use crate::internals::version::Schema;

/// The code a schema version adds to the entity.
pub struct Versioned {
    /// `const SCHEMA`.
    pub konst: TokenStream,
    /// Writes the version attribute into `__item`.
    pub insert: TokenStream,
    /// Reads the stored version of `__item` and returns the migrated entity
    /// for older shapes.
    pub read: TokenStream,
    /// No field may be stored under the version attribute.
    pub checks: TokenStream,
}

pub fn expand(ctx: &Ctx, schema: Option<&Schema>) -> Versioned {
    let pv = ctx.private;
    let Some(schema) = schema else {
        return Versioned {
            konst: TokenStream::new(),
            insert: TokenStream::new(),
            read: TokenStream::new(),
            checks: TokenStream::new(),
        };
    };
    let current = schema.current;
    let text = current.to_string();
    let migrated = schema
        .migrations
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0);
    let entity = ctx.entity;
    let arms = schema.migrations.iter().map(|m| {
        let v = proc_macro2::Literal::u64_unsuffixed(u64::from(m.version));
        let shape = &m.shape;
        let call = quote_spanned!(shape.span()=> #pv::migrate::<#shape, Self>(__item));
        quote!(#v => return #call,)
    });
    let checks = ctx.fields.iter().filter(|f| !f.skipped()).map(|f| {
        let stored = &f.stored;
        let msg = format!(
            "field `{}` is stored as `{stored}`, the attribute that holds the schema version; rename it with `#[attr(rename = \"...\")]`",
            f.name()
        );
        quote_spanned! {f.stored_span=>
            const _: () = if #pv::str_eq(TABLE.schema_version, #stored) { __private::fail(#msg) };
        }
    });
    Versioned {
        konst: quote! {
            const SCHEMA: #pv::Option<#pv::SchemaVersion> =
                #pv::Some(#pv::SchemaVersion {
                    attribute: TABLE.schema_version,
                    current: #current,
                    migrated: #migrated,
                });
        },
        insert: quote! {
            __item.insert(
                #pv::String::from(TABLE.schema_version),
                #pv::AttributeValue::N(#pv::String::from(#text)),
            );
        },
        read: quote! {
            #[allow(clippy::match_single_binding)]
            match #pv::schema_version_of(&__item, TABLE.schema_version, #entity, #current)? {
                #(#arms)*
                _ => {}
            }
        },
        checks: quote!(#(#checks)*),
    }
}
