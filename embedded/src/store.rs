//! Every table of one embedded backend, behind the backend's lock, with
//! the idempotency tokens of its transactions.

use std::collections::HashMap;
use std::time::Instant;

use crate::error::{Fail, Res};
use crate::redo::{self, Change};
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
    /// Whether changes are kept for a log (a store opened on a data
    /// directory): each table keeps its own, the store those of tables
    /// created and deleted.
    pub(crate) durable: bool,
    redo: Vec<(String, Change)>,
}

impl Store {
    pub(crate) fn table(&self, name: &str) -> Res<&TableData> {
        self.tables.get(name).ok_or_else(Fail::no_table)
    }

    pub(crate) fn table_mut(&mut self, name: &str) -> Res<&mut TableData> {
        self.tables.get_mut(name).ok_or_else(Fail::no_table)
    }

    /// Adds a table (CreateTable), kept for the log when the store is
    /// durable.
    pub(crate) fn insert_table(&mut self, name: &str, mut data: TableData) {
        if self.durable {
            self.redo
                .push((name.to_owned(), Change::Create(data.schema.clone())));
            data.redo = Some(Vec::new());
        }
        self.tables.insert(name.to_owned(), data);
    }

    /// Removes a table (DeleteTable), kept for the log when the store is
    /// durable.
    pub(crate) fn remove_table(&mut self, name: &str) -> Option<TableData> {
        let out = self.tables.remove(name);
        if self.durable && out.is_some() {
            self.redo.push((name.to_owned(), Change::Drop));
        }
        out
    }

    /// From now on, changes are kept for a log.
    pub(crate) fn make_durable(&mut self) {
        self.durable = true;
        for t in self.tables.values_mut() {
            t.redo.get_or_insert_with(Vec::new);
        }
    }

    /// The changes made since the last call, as one log record's payload
    /// (`None` when nothing changed).
    pub(crate) fn take_redo(&mut self) -> Option<Vec<u8>> {
        if !self.durable {
            return None;
        }
        let mut changes = std::mem::take(&mut self.redo);
        for (name, t) in &mut self.tables {
            if let Some(redo) = &mut t.redo
                && !redo.is_empty()
            {
                changes.extend(redo.drain(..).map(|c| (name.clone(), c)));
            }
        }
        (!changes.is_empty()).then(|| redo::encode(&changes))
    }
}
