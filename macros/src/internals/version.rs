//! `#[entity(version = N, migrate(vK = OldShape, ...))]` checked: the
//! current schema version and the stored shapes of older ones.

use crate::internals::attr::{self, EntityOpts};

/// A checked `#[entity(version = N, migrate(...))]`.
pub struct Schema<'a> {
    pub current: u32,
    pub migrations: Vec<&'a attr::Migration>,
}

/// Checks `version` and `migrate`: versions start at 1, and migrations
/// name older versions only.
pub fn check<'a>(
    opts: &'a EntityOpts,
    errors: &mut darling::error::Accumulator,
) -> Option<Schema<'a>> {
    let mut migrations: Vec<&attr::Migration> = opts
        .migrate
        .as_ref()
        .map(|m| m.list.iter().collect())
        .unwrap_or_default();
    let Some(version) = &opts.version else {
        if let Some(m) = &opts.migrate {
            errors.push(
                darling::Error::custom(
                    "`migrate(...)` needs the current schema version: add `version = N` to `#[entity(...)]`",
                )
                .with_span(&m.span),
            );
        }
        return None;
    };
    let current = **version;
    if current == 0 {
        errors.push(
            darling::Error::custom(
                "schema versions start at 1; items without a version are version 1",
            )
            .with_span(&version.span()),
        );
        return None;
    }
    // A refused entry is left out of the expansion: its mistake is the one
    // error.
    migrations.retain(|m| {
        let older = m.version < current;
        if !older {
            errors.push(
                darling::Error::custom(format!(
                    "`v{}` is not older than the current version {current}; `migrate` lists the stored shapes of older versions",
                    m.version
                ))
                .with_span(&m.span),
            );
        }
        older
    });
    Some(Schema {
        current,
        migrations,
    })
}
