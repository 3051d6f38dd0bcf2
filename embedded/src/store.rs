//! Every table of one embedded backend, behind the backend's lock, with
//! the idempotency tokens of its transactions.

use std::collections::HashMap;
use std::time::Instant;

use crate::error::{Fail, Res};
use crate::table::TableData;

/// A transaction's idempotency token, remembered for ten minutes.
pub(crate) struct Token {
    pub(crate) fingerprint: u64,
    pub(crate) at: Instant,
}

/// Every table of one embedded backend.
#[derive(Default)]
pub(crate) struct Store {
    pub(crate) tables: HashMap<String, TableData>,
    pub(crate) tokens: HashMap<String, Token>,
}

impl Store {
    pub(crate) fn table(&self, name: &str) -> Res<&TableData> {
        self.tables.get(name).ok_or_else(Fail::no_table)
    }

    pub(crate) fn table_mut(&mut self, name: &str) -> Res<&mut TableData> {
        self.tables.get_mut(name).ok_or_else(Fail::no_table)
    }
}
