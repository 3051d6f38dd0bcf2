//! Consumed capacity, counted as DynamoDB bills it (the rules are the
//! runtime's `capacity` module, shared with the estimator): per table, per
//! secondary index for the entries writes change, and on the backend's
//! meter.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use singletable_core::exec::CapacityMeter;

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
