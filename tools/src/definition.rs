//! The table definition a [`Table`](singletable_runtime::Table)
//! declaration implies, and drift against what DynamoDB describes: the
//! core's [`definition`](singletable_runtime::definition) module (the
//! admin trait every executor implements speaks in it), re-exported under
//! the tooling's name with everything it renders: the CreateTable input,
//! a JSON document for `aws dynamodb create-table --cli-input-json` and a
//! CloudFormation resource.
//!
//! ```
//! use singletable::definition::{Billing, TableDefinition};
//! use singletable::Table;
//!
//! #[derive(Table)]
//! #[table(name = "AppTable", gsi1(keys_only), lsi1, ttl = "expiresAt")]
//! pub struct AppTable;
//!
//! let def = TableDefinition::of::<AppTable>("AppTable", Billing::OnDemand);
//! assert!(def.cli_json().contains(r#""TableName": "AppTable""#));
//! assert!(def.cloudformation("Table").contains("AWS::DynamoDB::Table"));
//! ```

pub use singletable_runtime::definition::*;
