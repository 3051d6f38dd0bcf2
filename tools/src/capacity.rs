//! Capacity estimation: the read and write units a request would consume,
//! by the rules DynamoDB bills with (the runtime's
//! [`read_halves`] and [`write_blocks`], which the embedded backend meters
//! with too: one implementation of the rules).
//!
//! ```
//! use singletable::capacity::{query_units, write_units, Read};
//!
//! assert_eq!(query_units(&[1000; 5], Read::Strong), 2.0);
//! assert_eq!(write_units(500, false, &[100, 100]), 3.0);
//! ```

use singletable_runtime::capacity::{Read, read_halves, write_blocks};

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
