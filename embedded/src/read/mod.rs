//! Reads: GetItem, Query, Scan, BatchGetItem, TransactGetItems.
//!
//! The table or index a read goes through (`target`), the pages of
//! Query and Scan (`page`), then the reads: Query and GetItem (`query`),
//! Scan (`scan`), BatchGetItem and TransactGetItems (`batch`).

mod batch;
mod page;
mod query;
mod scan;
mod target;

pub(crate) use batch::{batch_get, transact_get};
pub(crate) use query::{get_item, get_item_encoded, query, query_count, query_reader};
pub(crate) use scan::scan;
pub(crate) use target::projection_paths;
