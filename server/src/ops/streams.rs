//! The DynamoDB Streams API (`X-Amz-Target: DynamoDBStreams_20120810.<Op>`)
//! on the engine's change feed: ListStreams, DescribeStream,
//! GetShardIterator, GetRecords.
//!
//! A table's stream has one shard ([`EMBEDDED_SHARD`]) and is read through
//! the engine's [`StreamSource`], the same reader `singletable`'s stream
//! consumers use. A shard iterator is the stream's ARN, the shard and the
//! sequence number of the last record handed out (`0`: none yet).

use serde_json::{Map, Value, json};
use singletable_core::stream::{StreamPosition, StreamRecord, StreamSource};
use singletable_embedded::EMBEDDED_SHARD;

use super::tables::{key_json, stream_of};
use super::{Body, Res, engine, required};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::wire;

/// Runs the Streams API operation `op`; `None` when it is not one.
pub(crate) async fn dispatch(ep: &Endpoint, op: &str, body: Body<'_>) -> Option<Res> {
    Some(match op {
        "ListStreams" => list(ep, body),
        "DescribeStream" => describe(ep, body).await,
        "GetShardIterator" => iterator(ep, body).await,
        "GetRecords" => records(ep, body).await,
        _ => return None,
    })
}

/// A stream named by its ARN: the table and, while it exists with that
/// stream, its label.
struct Stream {
    arn: String,
    table: String,
    label: String,
    view: &'static str,
}

fn not_found(arn: &str) -> ApiError {
    ApiError::not_found(format!(
        "Requested resource not found: Stream: {arn} not found"
    ))
}

/// GetShardIterator's wording for a stream that is not there.
fn no_stream() -> ApiError {
    ApiError::not_found("Stream does not exist")
}

fn invalid(what: &str) -> ApiError {
    ApiError::validation(format!("One or more parameter values were invalid: {what}"))
}

/// The current stream of `table`, if the table has one.
fn current(ep: &Endpoint, table: &str) -> Option<Stream> {
    let (arn, label, view) = stream_of(ep, table)?;
    Some(Stream {
        arn,
        table: table.to_owned(),
        label,
        view,
    })
}

/// The stream `arn` names; ResourceNotFoundException unless it is the
/// current stream of an existing table.
fn by_arn(ep: &Endpoint, arn: &str) -> Result<Stream, ApiError> {
    let table = arn
        .split_once(":table/")
        .and_then(|(_, rest)| rest.split_once("/stream/"))
        .map(|(t, _)| t)
        .ok_or_else(|| not_found(arn))?;
    current(ep, table)
        .filter(|s| s.arn == arn)
        .ok_or_else(|| not_found(arn))
}

fn limit(b: Body<'_>, max: i64) -> Result<Option<usize>, ApiError> {
    match b.int("Limit")? {
        None => Ok(None),
        Some(n) if (1..=max).contains(&n) => Ok(Some(n as usize)),
        Some(n) => Err(ApiError::validation(format!(
            "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value {}",
            if n < 1 {
                "greater than or equal to 1".to_owned()
            } else {
                format!("less than or equal to {max}")
            }
        ))),
    }
}

fn list(ep: &Endpoint, b: Body<'_>) -> Res {
    let only = b.str("TableName")?;
    let start = b.str("ExclusiveStartStreamArn")?;
    let limit = limit(b, 100)?.unwrap_or(100);
    if let Some(t) = only
        && !ep.db.has_table(t)
    {
        return Err(ApiError::not_found(format!(
            "Requested resource not found: Table: {t} not found"
        )));
    }
    let streams: Vec<Stream> = ep
        .db
        .table_names()
        .into_iter()
        .filter(|t| only.is_none_or(|o| o == t))
        .filter_map(|t| current(ep, &t))
        .collect();
    let from = start
        .and_then(|s| streams.iter().position(|x| x.arn == s))
        .map_or(0, |i| i + 1);
    let page: Vec<&Stream> = streams.iter().skip(from).take(limit).collect();
    let mut out = Map::new();
    out.insert(
        "Streams".into(),
        page.iter()
            .map(|s| json!({"StreamArn": s.arn, "TableName": s.table, "StreamLabel": s.label}))
            .collect(),
    );
    if from + page.len() < streams.len()
        && let Some(last) = page.last()
    {
        out.insert("LastEvaluatedStreamArn".into(), json!(last.arn));
    }
    Ok(Value::Object(out))
}

/// Every record the stream keeps, oldest first, read through the engine's
/// stream source.
async fn read(ep: &Endpoint, s: &Stream, after: u64) -> Result<Vec<StreamRecord>, ApiError> {
    let mut at = StreamPosition::default();
    if after > 0 {
        at.advance(EMBEDDED_SHARD, &seq_text(after));
    }
    let source = ep.db.stream(&s.table).map_err(engine)?;
    Ok(source.read_after(&at).await.map_err(engine)?.records)
}

fn seq_text(n: u64) -> String {
    format!("{n:021}")
}

fn seq(text: &str) -> Result<u64, ApiError> {
    text.parse().map_err(|_| invalid("Invalid SequenceNumber"))
}

async fn describe(ep: &Endpoint, b: Body<'_>) -> Res {
    let arn = b.req_str("StreamArn")?;
    let s = by_arn(ep, arn)?;
    let schema = ep.db.schema(&s.table).ok_or_else(|| not_found(arn))?;
    let first = read(ep, &s, 0).await?;
    let mut range = json!({});
    if let Some(r) = first.first() {
        range["StartingSequenceNumber"] = json!(r.sequence_number);
    }
    let created = super::tables::created(ep, &s.table);
    Ok(json!({"StreamDescription": {
        "StreamArn": s.arn,
        "StreamLabel": s.label,
        "StreamStatus": "ENABLED",
        "StreamViewType": s.view,
        "CreationRequestDateTime": created,
        "TableName": s.table,
        "KeySchema": key_json(&[&schema.pk], &schema.sk.iter().collect::<Vec<_>>()),
        "Shards": [{"ShardId": EMBEDDED_SHARD, "SequenceNumberRange": range}],
    }}))
}

/// A shard iterator: where the next GetRecords starts.
struct Iterator {
    arn: String,
    after: u64,
}

impl Iterator {
    fn text(&self) -> String {
        format!("{}|{}|{}", self.arn, EMBEDDED_SHARD, self.after)
    }

    fn parse(text: &str) -> Result<Self, ApiError> {
        let bad = || ApiError::validation("Invalid ShardIterator");
        let mut parts = text.rsplitn(3, '|');
        let (Some(after), Some(shard), Some(arn)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        if shard != EMBEDDED_SHARD {
            return Err(bad());
        }
        Ok(Self {
            arn: arn.to_owned(),
            after: after.parse().map_err(|_| bad())?,
        })
    }
}

async fn iterator(ep: &Endpoint, b: Body<'_>) -> Res {
    let arn = b.req_str("StreamArn")?;
    let shard = b.req_str("ShardId")?;
    let kind = b.req_str("ShardIteratorType")?;
    let number = b.str("SequenceNumber")?;
    let s = by_arn(ep, arn).map_err(|_| no_stream())?;
    if shard != EMBEDDED_SHARD {
        return Err(ApiError::not_found("Shard does not exist"));
    }
    if number.is_some() && matches!(kind, "TRIM_HORIZON" | "LATEST") {
        return Err(invalid(
            "SequenceNumber should not be passed for this iterator type",
        ));
    }
    let needs_number = || number.ok_or_else(|| invalid("Invalid SequenceNumber"));
    let after = match kind {
        "TRIM_HORIZON" => 0,
        "LATEST" => read(ep, &s, 0)
            .await?
            .last()
            .map_or(Ok(0), |r| seq(&r.sequence_number))?,
        "AT_SEQUENCE_NUMBER" => seq(needs_number()?)?.saturating_sub(1),
        "AFTER_SEQUENCE_NUMBER" => seq(needs_number()?)?,
        other => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, LATEST, AT_SEQUENCE_NUMBER, TRIM_HORIZON]"
            )));
        }
    };
    Ok(json!({"ShardIterator": Iterator { arn: s.arn, after }.text()}))
}

async fn records(ep: &Endpoint, b: Body<'_>) -> Res {
    let it = Iterator::parse(
        b.str("ShardIterator")?
            .ok_or_else(|| required("ShardIterator"))?,
    )?;
    let limit = limit(b, 1000)?.unwrap_or(1000);
    let s = by_arn(ep, &it.arn)?;
    let records = read(ep, &s, it.after).await?;
    let page = &records[..records.len().min(limit)];
    let after = match page.last() {
        Some(r) => seq(&r.sequence_number)?,
        None => it.after,
    };
    Ok(json!({
        "Records": page.iter().map(record_json).collect::<Vec<_>>(),
        "NextShardIterator": Iterator { arn: s.arn, after }.text(),
    }))
}

/// A record as GetRecords writes it.
fn record_json(r: &StreamRecord) -> Value {
    let mut d = Map::new();
    if let Some(t) = r.approximate_creation_time {
        let secs = t
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        d.insert("ApproximateCreationDateTime".into(), json!(secs));
    }
    d.insert("Keys".into(), wire::item_json(&r.keys));
    if let Some(i) = &r.new_image {
        d.insert("NewImage".into(), wire::item_json(i));
    }
    if let Some(i) = &r.old_image {
        d.insert("OldImage".into(), wire::item_json(i));
    }
    d.insert("SequenceNumber".into(), json!(r.sequence_number));
    if let Some(n) = r.size_bytes {
        d.insert("SizeBytes".into(), json!(n));
    }
    if let Some(v) = r.view {
        d.insert("StreamViewType".into(), json!(v.as_str()));
    }
    let mut out = json!({
        "eventID": r.event_id,
        "eventName": r.event.as_str(),
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "ddblocal",
        "dynamodb": Value::Object(d),
    });
    if r.by_ttl {
        out["userIdentity"] = json!({"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"});
    }
    out
}
