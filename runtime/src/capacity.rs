//! Capacity units by DynamoDB's rules, to estimate what an item or an
//! operation costs before running it.
//!
//! * A read unit covers 4 KB read with strong consistency; an eventually
//!   consistent read costs half; a transactional read twice. GetItem rounds
//!   the item up to 4 KB; Query and Scan round the sum of the items read.
//! * A write unit covers 1 KB, rounded up per item; transactional writes
//!   cost twice. Every global or local index the write changes costs a write
//!   of the index entry on top.
//!
//! ```
//! use singletable::capacity::{query_units, read_units, write_units, Read};
//!
//! // A 6 KB item: 2 read units strongly consistent, 1 eventually.
//! assert_eq!(read_units(6 * 1024, Read::Strong), 2.0);
//! assert_eq!(read_units(6 * 1024, Read::Eventual), 1.0);
//! // Ten 500-byte items in one Query page: 5000 bytes, rounded once.
//! assert_eq!(query_units(&[500; 10], Read::Strong), 2.0);
//! // A 1.5 KB put that also writes one index entry of 200 bytes.
//! assert_eq!(write_units(1536, false, &[200]), 3.0);
//! ```

/// How a read is done: GetItem and Query with `ConsistentRead` false
/// (the default) or true, or inside TransactGetItems.
///
/// ```
/// use singletable::capacity::{read_units, Read};
///
/// assert_eq!(read_units(4096, Read::Eventual), 0.5);
/// assert_eq!(read_units(4096, Read::Strong), 1.0);
/// assert_eq!(read_units(4096, Read::Transactional), 2.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// Eventually consistent (half a unit per 4 KB).
    Eventual,
    /// Strongly consistent (a unit per 4 KB).
    Strong,
    /// Inside TransactGetItems (two units per 4 KB).
    Transactional,
}

fn units(bytes: usize, block: usize) -> f64 {
    bytes.max(1).div_ceil(block) as f64
}

/// Read units of GetItem for an item of `bytes`, rounded up to 4 KB.
///
/// ```
/// use singletable::capacity::{read_units, Read};
///
/// assert_eq!(read_units(1, Read::Strong), 1.0);
/// assert_eq!(read_units(4097, Read::Strong), 2.0);
/// ```
pub fn read_units(bytes: usize, read: Read) -> f64 {
    let base = units(bytes, 4096);
    match read {
        Read::Eventual => base / 2.0,
        Read::Strong => base,
        Read::Transactional => base * 2.0,
    }
}

/// Read units of a Query or Scan page that read items of these sizes: the
/// sum is rounded up to 4 KB once, not per item.
///
/// ```
/// use singletable::capacity::{query_units, read_units, Read};
///
/// // Four 1 KB items: one unit together, four one by one (GetItem each).
/// assert_eq!(query_units(&[1024; 4], Read::Strong), 1.0);
/// assert_eq!(4.0 * read_units(1024, Read::Strong), 4.0);
/// ```
pub fn query_units(item_bytes: &[usize], read: Read) -> f64 {
    read_units(item_bytes.iter().sum(), read)
}

/// Write units of PutItem, UpdateItem or DeleteItem on an item of `bytes`
/// (the larger of before and after), plus `index_writes` index entries.
///
/// ```
/// use singletable::capacity::write_units;
///
/// assert_eq!(write_units(100, false, &[]), 1.0);
/// assert_eq!(write_units(100, true, &[]), 2.0);     // in TransactWriteItems
/// assert_eq!(write_units(2048, false, &[100, 100]), 4.0); // two index entries
/// ```
pub fn write_units(bytes: usize, transactional: bool, index_writes: &[usize]) -> f64 {
    let item = units(bytes, 1024) + index_writes.iter().map(|b| units(*b, 1024)).sum::<f64>();
    if transactional { item * 2.0 } else { item }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_like_dynamodb() {
        assert_eq!(read_units(100, Read::Strong), 1.0);
        assert_eq!(read_units(4096, Read::Strong), 1.0);
        assert_eq!(read_units(4097, Read::Eventual), 1.0);
        assert_eq!(read_units(9000, Read::Transactional), 6.0);
        assert_eq!(
            query_units(&[1000, 1000, 1000, 1000, 1000], Read::Strong),
            2.0
        );
        assert_eq!(write_units(1024, false, &[]), 1.0);
        assert_eq!(write_units(1025, true, &[]), 4.0);
        assert_eq!(write_units(500, false, &[100, 100]), 3.0);
    }
}
