//! The embedded engine of singletable ([`Embedded`]) as a DynamoDB
//! endpoint: DynamoDB's JSON 1.0 protocol (`POST /` with
//! `X-Amz-Target: DynamoDB_20120810.<Operation>`), so any SDK, the AWS CLI
//! or unchanged `aws-sdk-dynamodb` code runs on it.
//!
//! Two ways in:
//! - over HTTP: `cargo run -p singletable-server -- --port 8000
//!   [--snapshot FILE]`, or [`Endpoint::serve`] on a listener of your own;
//!   any credentials are accepted (signatures are not checked); served
//!   under [`Limits`] (timeouts, a connection limit answered 503, body
//!   limits; see its defaults) so that no client can starve the others;
//! - in process: [`Endpoint::client`] gives an [`aws_sdk_dynamodb::Client`]
//!   whose HTTP client calls [`Endpoint::handle`] directly, no socket.
//!
//! ```
//! use aws_sdk_dynamodb::types::AttributeValue;
//! use singletable_server::Endpoint;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let endpoint = Endpoint::new();
//! let client = endpoint.client();
//! # use aws_sdk_dynamodb::types::{AttributeDefinition, KeySchemaElement, KeyType, ScalarAttributeType, BillingMode};
//! client.create_table().table_name("App")
//!     .attribute_definitions(AttributeDefinition::builder().attribute_name("PK").attribute_type(ScalarAttributeType::S).build()?)
//!     .key_schema(KeySchemaElement::builder().attribute_name("PK").key_type(KeyType::Hash).build()?)
//!     .billing_mode(BillingMode::PayPerRequest)
//!     .send().await?;
//! client.put_item().table_name("App")
//!     .item("PK", AttributeValue::S("USER#ana".into()))
//!     .item("visits", AttributeValue::N("1".into()))
//!     .send().await?;
//! let out = client.update_item().table_name("App")
//!     .key("PK", AttributeValue::S("USER#ana".into()))
//!     .update_expression("SET visits = visits + :one")
//!     .expression_attribute_values(":one", AttributeValue::N("1".into()))
//!     .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew)
//!     .send().await?;
//! assert_eq!(out.attributes().unwrap()["visits"], AttributeValue::N("2".into()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The Streams API (`X-Amz-Target: DynamoDBStreams_20120810.<Operation>`:
//! ListStreams, DescribeStream, GetShardIterator, GetRecords) is served on
//! the same address, as DynamoDB Local serves it: point a DynamoDB Streams
//! client at the endpoint's URL. A table created with a
//! `StreamSpecification` (or given one by UpdateTable; disabling a stream
//! is refused) has one stream of one shard, read from the
//! engine's change feed (the records DynamoDB would write, one per item a
//! write changed, kept 24 hours).
//!
//! Requests are the engine's own request values: expression strings are
//! parsed into the runtime's expression values (see the `expr` module)
//! and evaluated by the engine's evaluator. The legacy parameters
//! (`Expected` with `ConditionalOperator`, `AttributeUpdates`,
//! `KeyConditions`, `QueryFilter`, `ScanFilter`, `AttributesToGet`) are
//! translated into the same values, so one evaluator answers both forms;
//! a request that mixes the two forms is refused as DynamoDB refuses it.
//! Every `SET` right-hand side DynamoDB accepts is applied: other
//! attributes as operands (`SET a = b`), arithmetic between any two
//! operands (`SET a = b + c`, `SET a = :v - b`), nested functions
//! (`list_append(:v, if_not_exists(a, :empty))`), the engine's
//! [`SetOperand`](singletable_core::request::SetOperand); and a path as
//! the second argument of `begins_with` or `contains`.
//!
//! # Where DynamoDB Local departs from DynamoDB
//!
//! The endpoint is compared with DynamoDB Local request by request (the
//! raw differential test), but where Local departs from DynamoDB's
//! documentation the endpoint follows the documentation. Each place is one
//! case of the test `local_departures_follow_dynamodb`, which also asserts
//! Local's differing answer, so this list stays true:
//!
//! 1. Error bodies carry `message` (the developer guide's error example);
//!    Local writes `Message`.
//! 2. A body that is not JSON is answered 400 `SerializationException`;
//!    Local answers 500 `InternalFailure`.
//! 3. An unknown operation is a 400
//!    `com.amazon.coral.service#UnknownOperationException`, also for a
//!    target without the `DynamoDB_20120810.` prefix; Local names it in
//!    DynamoDB's own namespace and answers a target without the prefix with
//!    500.
//! 4. Numbers come back canonical ("leading and trailing zeroes are
//!    trimmed"); Local returns a number written by UpdateItem as it was
//!    sent (`01.50`).
//! 5. UpdateItem may not give an index key attribute another type than
//!    its definition ("Type mismatch for Index Key", as PutItem); Local
//!    accepts it.
//! 6. `ReturnConsumedCapacity` must be `INDEXES`, `TOTAL` or `NONE`; Local
//!    accepts any text.
//! 7. `ShardIteratorType` must be one of the four iterator types (a
//!    `ValidationException`); Local answers 500 `InternalFailure`.
//! 8. A stream record's `ApproximateCreationDateTime` is rounded down to
//!    the second; Local rounds it down to the minute.
//! 9. A member outside its documented range is refused in the form of the
//!    service's model validation, as DynamoDB words it (Query's
//!    `1 validation error detected: Value at 'Limit' failed to satisfy
//!    constraint: Member must have value greater than or equal to 1`,
//!    several broken members in one `N validation errors detected`); Local
//!    words some of them its own way (`Limit must be greater than or equal
//!    to 1`). The other messages Local words otherwise than DynamoDB are
//!    listed in docs/endpoint.md and asserted by
//!    `validation_messages_match_dynamodb`.
//! 10. `ConsumedCapacity` is only in a response that asked for it; Local
//!     reports it unasked when DeleteItem finds no item.
//! 11. A ProjectionExpression naming one path twice is refused naming that
//!     path twice (`path one: [a], path two: [a]`); Local names the
//!     repeated path and the path after its first mention (`path one: [a],
//!     path two: [e]` for `a, e, a`), which do not overlap, and reports a
//!     repeated path before an earlier overlap of two different ones.
//! 12. A global index's `IndexSizeBytes` counts the items it holds (a
//!     sparse index holds only those with all its key attributes); Local
//!     adds the items that have only some of them.
//! 13. A write to a table with a local index that asks for
//!     `ReturnItemCollectionMetrics=SIZE` gets `ItemCollectionMetrics` (the
//!     partition key and the collection's size range in GB; per table in
//!     batches and transactions); Local never returns them.
//! 14. `ReturnItemCollectionMetrics` must be `SIZE` or `NONE`; Local
//!     accepts any text.
//! 15. A Query page ends once the items it read reach 1 MB, whether its
//!     `FilterExpression` keeps them or not ("This limit applies before
//!     the filter expression is evaluated", developer guide, Query filter
//!     expressions); Local counts only the items the filter keeps, so a
//!     filtered Query's page reads on past 1 MB. The engine accounts page
//!     size in one place, for Query and Scan alike.
//! 16. A Query that stops because it evaluated `Limit` items returns a
//!     `LastEvaluatedKey` ("stops the operation and returns the matching
//!     values up to that point, and a key in LastEvaluatedKey", API
//!     reference, Query, `Limit`), also when its last item sits on the
//!     inclusive bound of the key condition (`SK <= :v`, `BETWEEN`, `>=`
//!     read backwards); that key starts an empty last page. Local returns
//!     no `LastEvaluatedKey` there and refuses that key as a start key.
//! 17. Two actions of a TransactWriteItems on one item are refused up
//!     front ("no two actions can target the same item", API reference,
//!     TransactWriteItems: `Transaction request cannot include multiple
//!     operations on one item`), before any condition is evaluated; Local
//!     refuses them only when both pass their conditions, and otherwise
//!     cancels the transaction with the failed condition's reason.
//! 18. An item with only some of a global index's key attributes is not
//!     written to the index (developer guide, sparse indexes), so a write
//!     that replaces one such item by another consumes none of the index's
//!     capacity (`ReturnConsumedCapacity=INDEXES` names no index); Local
//!     bills the index a write unit when the two items have different ones.
//!
//! With `ReturnConsumedCapacity=INDEXES`, a write reports the units of each
//! index whose entries it wrote (`GlobalSecondaryIndexes`,
//! `LocalSecondaryIndexes`) and the item's own on `Table`, with the same
//! figures as Local; a Query or Scan of an index reports its read on that
//! index.

mod client;

mod endpoint;
mod error;
mod expr;
mod http;
mod ops;
mod wire;

use std::sync::atomic::Ordering;

pub use endpoint::Endpoint;
pub use http::Limits;
use serde_json::Value;
pub use singletable_embedded::Embedded;

use crate::endpoint::request_id;
use crate::error::ApiError;

/// One HTTP response of the endpoint: status, body and headers
/// (`x-amzn-RequestId`, `x-amz-crc32`).
///
/// ```
/// use singletable_server::Endpoint;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let r = Endpoint::new().handle(Some("DynamoDB_20120810.ListTables"), b"{}").await;
/// assert_eq!(r.status, 200);
/// assert_eq!(r.body, br#"{"TableNames":[]}"#);
/// assert_eq!(r.crc32, singletable_server::crc32(&r.body));
/// # });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// 200, or 400 for every refused request (the HTTP server adds 413 for
    /// a body over its limit and 503 when it has no room; see [`Limits`]).
    pub status: u16,
    /// The JSON body.
    pub body: Vec<u8>,
    /// The `x-amzn-RequestId` header.
    pub request_id: String,
    /// The `x-amz-crc32` header: CRC32 of the body.
    pub crc32: u32,
}

pub use singletable_embedded::crc32;

const PREFIX: &str = "DynamoDB_20120810.";
/// The Streams API's target prefix (DynamoDB serves it on its own host;
/// the endpoint, like DynamoDB Local, serves both on one).
const STREAMS_PREFIX: &str = "DynamoDBStreams_20120810.";

impl Endpoint {
    /// Answers one request: `target` is the `X-Amz-Target` header, `body`
    /// the request body. Every refusal is a 400 with DynamoDB's error body;
    /// nothing a client sends makes it panic or answer 5xx.
    ///
    /// ```
    /// use singletable_server::Endpoint;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let ep = Endpoint::new();
    /// let r = ep.handle(Some("DynamoDB_20120810.Frobnicate"), b"{}").await;
    /// assert_eq!(r.status, 400);
    /// let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    /// assert_eq!(body["__type"], "com.amazon.coral.service#UnknownOperationException");
    /// # });
    /// ```
    pub async fn handle(&self, target: Option<&str>, body: &[u8]) -> Response {
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        let request_id = request_id(n);
        let (status, value) = match self.answer(target, body).await {
            Ok(v) => (200, v),
            Err(e) => (400, e.body()),
        };
        let body = serde_json::to_vec(&value).unwrap_or_else(|_| b"{}".to_vec());
        Response {
            status,
            crc32: crc32(&body),
            body,
            request_id,
        }
    }

    async fn answer(&self, target: Option<&str>, body: &[u8]) -> Result<Value, ApiError> {
        let unknown = || ApiError::unknown_operation("An unknown operation was requested.");
        let target = target.ok_or_else(unknown)?;
        let (op, streams) = match target.strip_prefix(PREFIX) {
            Some(op) => (op, false),
            None => (
                target.strip_prefix(STREAMS_PREFIX).ok_or_else(unknown)?,
                true,
            ),
        };
        let json: Value = serde_json::from_slice(if body.is_empty() { b"{}" } else { body })
            .map_err(|e| ApiError::serialization(format!("Malformed JSON request body: {e}")))?;
        let Value::Object(map) = json else {
            return Err(ApiError::serialization(
                "The request body must be a JSON object",
            ));
        };
        let metered = matches!(
            map.get("ReturnConsumedCapacity").and_then(Value::as_str),
            Some("TOTAL" | "INDEXES")
        );
        let (_alone, _together);
        if metered {
            _alone = self.metering.write().await;
        } else {
            _together = self.metering.read().await;
        }
        let answer = if streams {
            ops::dispatch_streams(self, op, &map).await
        } else {
            ops::dispatch(self, op, &map).await
        };
        let answer = answer.unwrap_or_else(|| Err(unknown()))?;
        // On a data directory, nothing is answered before what it changed
        // (and what any change it read had changed) is in the log and
        // synced: one wait, here, for every operation.
        self.db.flushed().await.map_err(ops::engine)?;
        Ok(answer)
    }

    /// An `aws_sdk_dynamodb::Client` whose requests this endpoint answers in
    /// process, through [`Endpoint::handle`]: no socket, no signing checked.
    /// See the [crate example](crate).
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        client::client(self.clone())
    }

    /// Serves DynamoDB's protocol on `listener` until `shutdown` resolves,
    /// one task per connection, under [`Limits::default()`] (see
    /// [`Endpoint::serve_with`]).
    ///
    /// ```
    /// use singletable_server::Endpoint;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let port = listener.local_addr()?.port();
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let server = tokio::spawn(Endpoint::new().serve(listener, async { stopped.await.ok(); }));
    /// assert!(port > 0);
    /// stop.send(()).ok();
    /// server.await.unwrap()?;
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> std::io::Result<()> {
        http::serve(self, listener, Limits::default(), shutdown).await
    }

    /// [`Endpoint::serve`] under `limits` instead of [`Limits::default()`]:
    /// how many connections, how long a client may take to send a request
    /// or stay idle, how large a body may be and how many body bytes all
    /// requests may hold together.
    ///
    /// ```
    /// use std::time::Duration;
    /// use singletable_server::{Endpoint, Limits};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let limits = Limits::default()
    ///     .with_max_connections(100)
    ///     .with_idle_timeout(Duration::from_secs(5));
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let server = tokio::spawn(Endpoint::new().serve_with(listener, limits, async { stopped.await.ok(); }));
    /// stop.send(()).ok();
    /// server.await.unwrap()?;
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn serve_with(
        self,
        listener: tokio::net::TcpListener,
        limits: Limits,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> std::io::Result<()> {
        http::serve(self, listener, limits, shutdown).await
    }
}
