//! Consumed capacity, counted as DynamoDB bills it (the rules are the
//! runtime's `capacity` module, shared with the estimator): per table, per
//! secondary index for the entries writes change, and on the backend's
//! meter.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::exec::CapacityMeter;

/// Write units of one write: the item's, and each index entry's (parallel
/// to the table's indexes; empty when the table has none).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct WriteUnits {
    pub(crate) table: u64,
    pub(crate) indexes: Vec<u64>,
}

/// A table's consumed capacity so far.
#[derive(Debug, Default)]
pub(crate) struct Capacity {
    /// Read units, in halves (an eventually consistent 4 KB read is one).
    read_halves: AtomicU64,
    /// Write units, the indexes' included.
    writes: AtomicU64,
    /// Write units of each index's entries, parallel to the table's indexes.
    indexes: Vec<AtomicU64>,
    meter: Arc<CapacityMeter>,
}

impl Capacity {
    pub(crate) fn new(meter: Arc<CapacityMeter>, indexes: usize) -> Self {
        Self {
            indexes: (0..indexes).map(|_| AtomicU64::new(0)).collect(),
            meter,
            ..Self::default()
        }
    }

    pub(crate) fn read(&self, halves: u64) {
        self.read_halves.fetch_add(halves, Ordering::Relaxed);
        self.meter.add(halves as f64 / 2.0);
    }

    /// Bills a write `times` over (2 in a transaction).
    pub(crate) fn write(&self, units: &WriteUnits, times: u64) {
        let mut total = units.table;
        for (counter, u) in self.indexes.iter().zip(&units.indexes) {
            counter.fetch_add(u * times, Ordering::Relaxed);
            total += u;
        }
        self.writes.fetch_add(total * times, Ordering::Relaxed);
        self.meter.add((total * times) as f64);
    }

    /// A new index's counter (UpdateTable's `Create`).
    pub(crate) fn add_index(&mut self) {
        self.indexes.push(AtomicU64::new(0));
    }

    /// Index `i`'s counter goes with it (UpdateTable's `Delete`).
    pub(crate) fn remove_index(&mut self, i: usize) {
        self.indexes.remove(i);
    }

    pub(crate) fn read_units(&self) -> f64 {
        self.read_halves.load(Ordering::Relaxed) as f64 / 2.0
    }

    pub(crate) fn write_units(&self) -> f64 {
        self.writes.load(Ordering::Relaxed) as f64
    }

    /// Write units of index `i`'s entries.
    pub(crate) fn index_write_units(&self, i: usize) -> f64 {
        self.indexes.get(i).map_or(0, |c| c.load(Ordering::Relaxed)) as f64
    }
}

impl crate::Embedded {
    /// Write units each secondary index of `table` consumed so far, in the
    /// order of its schema's indexes (`None` when the table does not
    /// exist): what DynamoDB reports per index under
    /// `ReturnConsumedCapacity=INDEXES`. An index entry a write adds,
    /// removes or changes costs its size (the attributes the index
    /// projects) in 1 KB units, doubled in a transaction; these units are
    /// also in [`consumed_capacity`](crate::Embedded::consumed_capacity)'s
    /// `write_units`.
    ///
    /// ```
    /// use singletable::embedded::{IndexProjection, IndexSchema, KeyAttr, TableSchema};
    /// use singletable::request::PutItem;
    /// use singletable::{AttributeValue, Embedded, Executor, Item};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Embedded::new();
    /// let by_email = IndexSchema {
    ///     name: "byEmail".into(), global: true, pk: KeyAttr::s("email"), sk: None,
    ///     pk_rest: vec![], sk_rest: vec![], projection: IndexProjection::KeysOnly,
    /// };
    /// db.create_table_with("App", TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![by_email], stream: None, vectors: vec![] })?;
    /// let s = |v: &str| AttributeValue::S(v.into());
    /// let item = Item::from([("PK".into(), s("USER#ana")), ("email".into(), s("ana@example.com"))]);
    /// db.put_item(PutItem { table: "App".into(), item, condition: None, return_old: false, return_on_condition_failure: false }).await?;
    /// // One unit for the item, one for its entry in the index.
    /// assert_eq!(db.index_write_units("App"), Some(vec![("byEmail".to_owned(), 1.0)]));
    /// assert_eq!(db.consumed_capacity("App").unwrap().write_units, 2.0);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn index_write_units(&self, table: &str) -> Option<Vec<(String, f64)>> {
        let store = self.read();
        let t = store.tables.get(table)?;
        Some(
            t.schema
                .indexes
                .iter()
                .enumerate()
                .map(|(i, ix)| (ix.name.clone(), t.capacity.index_write_units(i)))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_bills_its_indexes_apart_and_in_the_total() {
        let mut c = Capacity::new(Arc::default(), 2);
        c.write(
            &WriteUnits {
                table: 2,
                indexes: vec![1, 0],
            },
            2,
        );
        assert_eq!(c.write_units(), 6.0);
        assert_eq!((c.index_write_units(0), c.index_write_units(1)), (2.0, 0.0));
        c.remove_index(0);
        assert_eq!(c.index_write_units(0), 0.0);
        c.add_index();
        assert_eq!(c.index_write_units(1), 0.0);
    }
}
