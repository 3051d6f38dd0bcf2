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

/// Read units of reading `bytes` as `read` does, in half units (exact,
/// with no rounding of floats): the size rounded up to 4 KB, at least one
/// block, each block one half unit eventually consistent, two strongly
/// consistent, four inside TransactGetItems. The one implementation of
/// DynamoDB's read rule: [`read_units`] and the embedded backend's meter
/// both count with it.
///
/// ```
/// use singletable::capacity::{read_halves, Read};
///
/// assert_eq!(read_halves(0, Read::Eventual), 1);        // at least one block
/// assert_eq!(read_halves(4096, Read::Strong), 2);       // one unit
/// assert_eq!(read_halves(4097, Read::Transactional), 8); // two blocks, 4x
/// ```
pub fn read_halves(bytes: usize, read: Read) -> u64 {
    let blocks = bytes.max(1).div_ceil(4096) as u64;
    match read {
        Read::Eventual => blocks,
        Read::Strong => blocks * 2,
        Read::Transactional => blocks * 4,
    }
}

/// Write units of writing `bytes` (an item, or one index entry): the size
/// rounded up to 1 KB, at least one. The one implementation of DynamoDB's
/// write rule: [`write_units`] and the embedded backend's meter both count
/// with it (a transactional write is twice this).
///
/// ```
/// use singletable::capacity::write_blocks;
///
/// assert_eq!(write_blocks(0), 1);
/// assert_eq!(write_blocks(1024), 1);
/// assert_eq!(write_blocks(1025), 2);
/// ```
pub fn write_blocks(bytes: usize) -> u64 {
    bytes.max(1).div_ceil(1024) as u64
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
    read_halves(bytes, read) as f64 / 2.0
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
    let item = write_blocks(bytes) + index_writes.iter().map(|b| write_blocks(*b)).sum::<u64>();
    (if transactional { item * 2 } else { item }) as f64
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
