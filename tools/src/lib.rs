//! Tooling of [singletable](https://docs.rs/singletable) that is not on the
//! request path: the design document rendered from a table's declarations
//! ([`design`]), the table's definition as CreateTable input, CloudFormation
//! and AWS CLI JSON, and drift against what DynamoDB describes
//! ([`definition`]), capacity estimates ([`capacity`]), and NoSQL Workbench
//! data models: the design exported with sample items, a model's items
//! loaded into a table ([`workbench`]). Nothing here is
//! called while an application reads or writes. The definitions
//! themselves are the core's (every executor's `Admin` creates and
//! describes tables with them), re-exported here.
//! Applications depend on the `singletable` facade, which re-exports these
//! modules under the same names.
//!
//! ```
//! use singletable::Table;
//! use singletable::definition::{Billing, TableDefinition};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1)]
//! pub struct App;
//!
//! let def = TableDefinition::of::<App>("App", Billing::OnDemand);
//! assert_eq!(def.global_secondary_indexes[0].index_name, "GSI1");
//! assert!(singletable::design::document::<App>().starts_with("# `App` single-table design"));
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backfill;
pub mod capacity;
pub mod cost;
pub mod definition;
pub mod design;
pub mod stream;
pub mod workbench;

pub use backfill::{Backfill, BackfillReport, Checkpoint};
