//! DynamoDB's capacity rules, counted in exact integers: the one
//! implementation the embedded backend meters with and the estimator
//! (`read_units`, `query_units`, `write_units`, in `singletable-tools`;
//! `singletable::capacity` holds both) counts with.
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
/// DynamoDB's read rule: the estimator's `read_units`
/// (`singletable::capacity`, from `singletable-tools`) and the embedded backend's meter
/// both count with it.
///
/// ```
/// use singletable_core::capacity::{read_halves, Read};
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
/// write rule: the estimator's `write_units` and the embedded backend's meter both count
/// with it (a transactional write is twice this).
///
/// ```
/// use singletable_core::capacity::write_blocks;
///
/// assert_eq!(write_blocks(0), 1);
/// assert_eq!(write_blocks(1024), 1);
/// assert_eq!(write_blocks(1025), 2);
/// ```
pub fn write_blocks(bytes: usize) -> u64 {
    bytes.max(1).div_ceil(1024) as u64
}
