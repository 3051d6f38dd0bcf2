//! The spans `Db` opens around each request: what they record and how a
//! failure is marked. Named by the rest of the runtime through
//! [`crate::trace`], and by the span benchmark through `__private` only.

use std::future::Future;

use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::cost::{Sender, Tally, attributed, recording};
use singletable_core::reader::{ItemReader, Items, ReaderPage};
use singletable_core::request::{BatchGetOutput, BatchOp, CountPage, Page, ScoredItem};
use singletable_core::value::Item;

use crate::error::Error;

/// What a span says of the request besides its operation and table.
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    /// `singletable.entity`: the entity the request reads or writes.
    pub entity: Option<&'a str>,
    /// `singletable.access_pattern`: the access pattern of a query.
    pub pattern: Option<&'a str>,
    /// `aws.dynamodb.index_name`: the index read.
    pub index: Option<&'a str>,
    /// `aws.dynamodb.consistent_read`.
    pub consistent: Option<bool>,
    /// `aws.dynamodb.limit`.
    pub limit: Option<u32>,
    /// `singletable.page`: 1 for a query's first page.
    pub page: Option<u32>,
    /// `singletable.batch.attempt`: 1 for a batch's first send.
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
/// …) on `table`.
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

impl Request<'_> {
    /// Who sends the request of DynamoDB `operation`, for the cost
    /// recorder.
    pub fn sender(&self, operation: &'static str) -> Sender<'_> {
        Sender {
            operation,
            entity: self.entity,
            pattern: self.pattern,
        }
    }
}

/// The items a response read and returned, for the cost recorder.
pub trait Counted {
    /// Items read (before any filter) and returned.
    fn counts(&self) -> Tally;
}

fn read_returned(scanned: Option<usize>, returned: usize) -> Tally {
    Tally {
        read: scanned.unwrap_or(returned) as u64,
        returned: returned as u64,
    }
}

impl Counted for Page {
    fn counts(&self) -> Tally {
        read_returned(self.scanned, self.items.len())
    }
}
impl Counted for ReaderPage {
    fn counts(&self) -> Tally {
        read_returned(self.scanned, self.items.remaining())
    }
}
impl Counted for CountPage {
    fn counts(&self) -> Tally {
        read_returned(self.scanned, self.count)
    }
}
impl Counted for Items {
    fn counts(&self) -> Tally {
        read_returned(None, self.remaining())
    }
}
impl Counted for Option<Item> {
    fn counts(&self) -> Tally {
        // Counted for GetItem only: a write's returned values are not read.
        read_returned(None, usize::from(self.is_some()))
    }
}
impl Counted for () {
    fn counts(&self) -> Tally {
        Tally::default()
    }
}
impl Counted for Vec<BatchOp> {
    fn counts(&self) -> Tally {
        Tally::default()
    }
}
impl Counted for BatchGetOutput {
    fn counts(&self) -> Tally {
        read_returned(None, self.items.len())
    }
}
impl Counted for Vec<Option<Item>> {
    fn counts(&self) -> Tally {
        read_returned(None, self.iter().flatten().count())
    }
}
impl Counted for Vec<ScoredItem> {
    fn counts(&self) -> Tally {
        read_returned(None, self.len())
    }
}

/// Runs `request` inside `span`, recording the error on failure, and
/// attributes the capacity it consumes to `sender` when a cost recorder
/// listens (`Db::record_costs`): every request the typed handle sends
/// goes through here, on every backend.
pub async fn traced<T: Counted>(
    span: Span,
    sender: Sender<'_>,
    request: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    // The common case, no subscriber and no recorder: the request's own
    // future, with no layer around it.
    if span.is_disabled() && !recording() {
        return request.await;
    }
    let request = attributed(sender, request, T::counts);
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
