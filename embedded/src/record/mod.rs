//! A stored item as one thin allocation that the table and every index
//! holding it share: the table's B-tree owns it ([`Record`], one word per
//! slot), and each index's B-tree points into it ([`IndexEntry`], one word
//! too) at the part that says where its index key is.
//!
//! A record is `len(pos) pos len(value) len(parts) value parts` (LEB128
//! lengths): the table position first, so that a table lookup reads one
//! length; then the stored value ([`super::codec::encode_item`]) and one
//! part per index the item is in: `index back len(desc) desc`, where
//! `back` is the part's offset in the record (an index entry points at
//! it, and finds the record's start from it) and `desc` lists the segments
//! of the index position without copying what the record already holds: a
//! string or binary index key attribute is an offset into the value (its
//! order bytes are its escaped bytes: see `entry::Seg::Raw`), an attribute of
//! the table key a range of the position; numbers and the tie-break hash
//! are kept as order bytes. The table key (`pos[PREFIX..]`) ends every
//! index position.
//!
//! Two index entries compare segment by segment (the index's schema fixes
//! each segment's kind); an entry and a position's bytes (a query's bounds)
//! compare as the streams of order bytes the segments stand for.
//!
//! The byte format and the `desc` builder are `layout`, the record
//! `stored`, the index entry and its comparisons `entry`.

mod entry;
mod layout;
mod stored;
#[cfg(test)]
mod tests;

pub(crate) use entry::{IndexEntry, IndexKey};
pub(crate) use layout::{Desc, is_raw};
pub(crate) use stored::Record;
