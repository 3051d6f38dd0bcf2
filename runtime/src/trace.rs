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

use std::future::Future;

use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::error::Error;

/// What a span says of the request besides its operation and table.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    pub entity: Option<&'a str>,
    pub pattern: Option<&'a str>,
    pub index: Option<&'a str>,
    pub consistent: Option<bool>,
    pub limit: Option<u32>,
    pub page: Option<u32>,
    pub attempt: Option<u32>,
}

macro_rules! spans {
    ($op:expr, $table:expr, $r:expr, $($name:literal => $operation:literal),* $(,)?) => {
        match $op {
            $($operation => tracing::info_span!(
                target: "singletable",
                $name,
                "otel.kind" = "client",
                "otel.status_code" = Empty,
                "db.system.name" = "aws.dynamodb",
                "db.operation.name" = $operation,
                "aws.dynamodb.table_names" = $table,
                "aws.dynamodb.index_name" = $r.index,
                "aws.dynamodb.consistent_read" = $r.consistent,
                "aws.dynamodb.limit" = $r.limit,
                "aws.dynamodb.count" = Empty,
                "aws.dynamodb.scanned_count" = Empty,
                "aws.dynamodb.consumed_capacity" = Empty,
                "error.type" = Empty,
                "singletable.entity" = $r.entity,
                "singletable.access_pattern" = $r.pattern,
                "singletable.page" = $r.page,
                "singletable.batch.attempt" = $r.attempt,
                "singletable.retries" = $r.attempt.map(|a| a.saturating_sub(1)),
            ),)*
            _ => Span::none(),
        }
    };
}

/// The span of one request of DynamoDB `operation` (`Query`, `PutItem`,
/// …) on `table`. Public for the benchmark of its cost only.
#[doc(hidden)]
pub fn span(operation: &'static str, table: &str, r: &Request<'_>) -> Span {
    // Nobody listens at INFO: no span, and nothing else to do.
    if !tracing::level_enabled!(tracing::Level::INFO) {
        return Span::none();
    }
    spans!(operation, table, r,
        "DynamoDB.GetItem" => "GetItem",
        "DynamoDB.PutItem" => "PutItem",
        "DynamoDB.DeleteItem" => "DeleteItem",
        "DynamoDB.UpdateItem" => "UpdateItem",
        "DynamoDB.Query" => "Query",
        "DynamoDB.Scan" => "Scan",
        "DynamoDB.BatchWriteItem" => "BatchWriteItem",
        "DynamoDB.BatchGetItem" => "BatchGetItem",
        "DynamoDB.TransactWriteItems" => "TransactWriteItems",
        "DynamoDB.TransactGetItems" => "TransactGetItems",
        "DynamoDB.SearchVectors" => "SearchVectors",
    )
}

/// Runs `request` inside `span`, recording the error on failure.
#[doc(hidden)]
pub async fn traced<T>(
    span: Span,
    request: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    if span.is_disabled() {
        return request.await;
    }
    let out = request.instrument(span.clone()).await;
    if let Err(e) = &out {
        span.record("error.type", error_type(e));
        span.record("otel.status_code", "ERROR");
    }
    out
}

/// Records the number of items a response holds on the current span.
pub(crate) fn count(span: &Span, items: usize) {
    span.record("aws.dynamodb.count", items as u64);
}

/// Records what a response reports on the current request span: the items
/// it scanned and the capacity it consumed. Executors call it inside the
/// span [`Db`](crate::Db) opens for the request (the AWS driver's does for
/// every response); outside any span it does nothing.
///
/// ```
/// // No span is entered here: recording is a no-op, never a panic.
/// singletable::trace::record_response(Some(3), Some(0.5));
/// ```
pub fn record_response(scanned: Option<i64>, consumed: Option<f64>) {
    let span = Span::current();
    if let Some(s) = scanned {
        span.record("aws.dynamodb.scanned_count", s);
    }
    if let Some(c) = consumed {
        span.record("aws.dynamodb.consumed_capacity", c);
    }
}

/// OpenTelemetry's `error.type`: the kind of failure, low-cardinality.
fn error_type(e: &Error) -> &'static str {
    match e {
        Error::ConditionFailed { .. } => "ConditionalCheckFailedException",
        Error::TransactionCanceled { .. } => "TransactionCanceledException",
        Error::Throttled { .. } => "ThrottlingException",
        Error::Service { .. } => "ServiceError",
        Error::NotFound { .. } => "NotFound",
        Error::VersionConflict { .. } => "VersionConflict",
        Error::Unprocessed { .. } => "Unprocessed",
        Error::Decode { .. } => "DecodeError",
        Error::Cursor(_) => "CursorError",
        _ => "singletable",
    }
}
