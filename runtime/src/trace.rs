//! `tracing` spans for DynamoDB requests, by OpenTelemetry's semantic
//! conventions for DynamoDB client spans: every request singletable sends
//! is one span named `DynamoDB.<Operation>` (`DynamoDB.Query`, …) with
//! `otel.kind = "client"`, `db.system.name = "aws.dynamodb"`,
//! `db.operation.name`, `aws.dynamodb.table_names`, and where they apply
//! `aws.dynamodb.index_name`, `aws.dynamodb.consistent_read`,
//! `aws.dynamodb.limit`, `aws.dynamodb.count`,
//! `aws.dynamodb.scanned_count` and `aws.dynamodb.consumed_capacity` (the
//! total units DynamoDB reported), `error.type` and `otel.status_code =
//! "ERROR"` on failure; and singletable's own fields:
//! `singletable.entity`, `singletable.access_pattern`,
//! `singletable.page` (1 for the first page of a query),
//! `singletable.batch.attempt` and `singletable.retries`.
//!
//! Spans are at `INFO` level under the target `singletable`. With no
//! subscriber listening, creating one costs a relaxed atomic load (see
//! `benches/embedded.rs`, group `span`). Forward them to OpenTelemetry
//! with `tracing-opentelemetry`, or print them with `tracing-subscriber`.
//!
//! ```
//! # use singletable::Embedded;
//! # use singletable::{Db, Entity, Table};
//! # #[derive(Table)]
//! # #[table(name = "Notes")]
//! # pub struct Notes;
//! # #[derive(Entity)]
//! # #[entity(table = Notes, name = "Note")]
//! # #[pk("NOTE#<id>")]
//! # #[sk("NOTE")]
//! # pub struct Note { pub id: String }
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Notes>("Notes")?;
//! // A `DynamoDB.PutItem` span with singletable.entity = "Note".
//! db.put(&Note { id: "n".into() }).await?;
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

pub(crate) mod spans;
pub(crate) use spans::{Request, count, span, traced};
