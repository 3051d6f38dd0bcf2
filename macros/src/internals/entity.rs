//! The entity's model: `#[entity(...)]`, its fields, key declarations and
//! access patterns, read and checked. After a mistake the model is
//! repaired (a misspelt placeholder reads as the field it was closest to)
//! so the API can still be generated from it.

use darling::FromDeriveInput;

use crate::internals::access::{self, Access};
use crate::internals::attr::{self, EntityOpts, Keys};
use crate::internals::check;
use crate::internals::model::{self, Field};
use crate::internals::version::{self, Schema};

/// A read and checked `#[derive(Entity)]`.
pub struct Entity<'a> {
    pub opts: &'a EntityOpts,
    pub fields: Vec<Field>,
    pub keys: Keys,
    pub accesses: Vec<Access>,
    pub schema: Option<Schema<'a>>,
    /// `adopt = keys`: items without an entity type are adopted by their key.
    pub adopt: bool,
    /// `untyped`: items are written without the entity type (and adopted).
    pub untyped: bool,
    /// Every mistake found; the model is repaired when there is one.
    pub errors: Vec<darling::Error>,
}

impl Entity<'_> {
    /// Whether the API is generated beside errors, from a repaired model.
    pub fn lenient(&self) -> bool {
        !self.errors.is_empty()
    }
}

/// Reads `#[entity(...)]`; an unknown option is reported into `errors` and
/// left out.
pub fn parse_opts(
    input: &syn::DeriveInput,
    errors: &mut darling::error::Accumulator,
) -> Result<EntityOpts, darling::Error> {
    let parsed =
        crate::internals::style::parse_repaired(input, "entity", EntityOpts::parse, || {
            crate::internals::style::options_of::<EntityOpts>("entity")
        });
    let (opts, unknown) = match parsed {
        Ok(parsed) => parsed,
        // Only `table = ...` missing: the API is generated on a stub table,
        // so that the code calling it raises no second error.
        Err(e) => match on_stub_table(input) {
            Some(opts) => (opts, Some(e)),
            None => return Err(e),
        },
    };
    if let Some(e) = unknown {
        errors.push(e);
    }
    Ok(opts)
}

/// The options of an entity whose `#[entity(...)]` lacks only `table =
/// ...`, read as if it named the stub table.
fn on_stub_table(input: &syn::DeriveInput) -> Option<EntityOpts> {
    let mut input = input.clone();
    input
        .attrs
        .push(syn::parse_quote!(#[entity(table = ::singletable::__private::StubTable)]));
    let mut opts = EntityOpts::from_derive_input(&input).ok()?;
    if let Some(krate) = &opts.krate {
        opts.table = syn::parse_quote!(#krate::__private::StubTable);
    }
    Some(opts)
}

/// Reads the fields, keys and access patterns of the entity and checks
/// them together.
pub fn model<'a>(
    opts: &'a EntityOpts,
    named: &syn::FieldsNamed,
    mut errors: darling::error::Accumulator,
) -> Entity<'a> {
    let rule = attr::rename_rule(&opts.rename_all, &mut errors);
    let fields = model::fields(named, rule, &mut errors);
    let mut keys = attr::parse_keys(&opts.attrs, &opts.ident, &mut errors);
    let accesses = access::parse(&opts.attrs, &mut errors);
    let schema = version::check(opts, &mut errors);
    let untyped = check_untyped(opts, &mut errors);
    let adopt = check_adopt(opts, &mut errors) || untyped;
    check::check_templates(&keys, &fields, &mut errors);
    check::check_indexes(&keys, &fields, &mut errors);
    check::check_attr_indexes(&keys.attr_indexes, &fields, &mut errors);
    access::check(&accesses, &keys, &mut errors);
    check::check_fields(&fields, &keys, &mut errors);
    let errors = errors.into_inner();
    if !errors.is_empty() {
        check::repair_templates(&mut keys, &fields);
    }
    Entity {
        opts,
        fields,
        keys,
        accesses,
        schema,
        adopt,
        untyped,
        errors,
    }
}

/// Checks `untyped`: items of a published layout carry no entity type, so
/// they are told apart by their keys (which `adopt = keys` would say
/// again), and no schema version is stored with them.
fn check_untyped(opts: &EntityOpts, errors: &mut darling::error::Accumulator) -> bool {
    if !opts.untyped.is_present() {
        return false;
    }
    if let Some(adopt) = &opts.adopt {
        errors.push(
            darling::Error::custom(
                "`untyped` already adopts items by their key templates; remove `adopt = keys`",
            )
            .with_span(adopt),
        );
    }
    if opts.version.is_some() {
        errors.push(
            darling::Error::custom(
                "`untyped` cannot be combined with `version = N`: an untyped item stores nothing but its own attributes, so it has no schema version; remove one of them",
            )
            .with_span(&opts.untyped.span()),
        );
        return false;
    }
    true
}

/// Checks `adopt = keys`: the one way of adoption so far, and not with a
/// schema version (versioned items are read through their stored shapes,
/// which have no key to read fields from).
fn check_adopt(opts: &EntityOpts, errors: &mut darling::error::Accumulator) -> bool {
    let Some(adopt) = &opts.adopt else {
        return false;
    };
    if !adopt.is_ident("keys") {
        errors.push(
            darling::Error::custom(
                "expected `adopt = keys`: items without an entity type are adopted by their key templates",
            )
            .with_span(adopt),
        );
        return false;
    }
    if opts.version.is_some() {
        errors.push(
            darling::Error::custom(
                "`adopt = keys` cannot be combined with `version = N` yet; adopt the items before versioning the entity",
            )
            .with_span(adopt),
        );
        return false;
    }
    true
}
