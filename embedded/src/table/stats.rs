//! What DescribeTable reports of a table's size: its items and bytes, and
//! its indexes'.

/// A table's item count and size, and its indexes', from
/// [`Embedded::table_stats`](crate::Embedded::table_stats).
///
/// ```
/// let stats = singletable::embedded::TableStats::default();
/// assert_eq!(stats.size_bytes, 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableStats {
    /// `ItemCount`.
    pub item_count: u64,
    /// `TableSizeBytes`.
    pub size_bytes: u64,
    /// One entry per index, in the schema's order.
    pub indexes: Vec<IndexStats>,
    /// One entry per vector index, in the schema's order (the size counts
    /// the vectors as 32-bit floats).
    pub vectors: Vec<IndexStats>,
}

/// An index's item count and size, in [`TableStats`].
///
/// ```
/// let ix = singletable::embedded::IndexStats { name: "byB".into(), item_count: 0, size_bytes: 0 };
/// assert_eq!(ix.name, "byB");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// `IndexName`.
    pub name: String,
    /// `ItemCount`: the items the index holds.
    pub item_count: u64,
    /// `IndexSizeBytes`: the attributes it projects of them.
    pub size_bytes: u64,
}
