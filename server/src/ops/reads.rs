//! Query and Scan.

use serde_json::{Map, Value, json};
use singletable_core::exec::Executor;
use singletable_core::expr::{KeyCondition, Path};
use singletable_core::request::{QueryRequest, ScanRequest, ScanSegment};

use super::items::{condition, finish, projection};
use super::project::checked;
use super::{Body, Capacity, Meter, Res, engine, key_names, legacy, model};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::expr::{self, Placeholders};
use crate::wire;
use singletable_embedded::Embedded;

/// `Select`, checked against the projection.
#[derive(PartialEq)]
enum Select {
    All,
    Count,
    Specific,
}

/// `Select` against the projection and the index, with DynamoDB's
/// messages: `ALL_PROJECTED_ATTRIBUTES` only on an index ("Allowed only
/// when querying an index", the API reference says), a projection only
/// with `SPECIFIC_ATTRIBUTES`.
fn select(b: Body<'_>, projection: bool, index: bool) -> Result<Select, ApiError> {
    // The member that made the projection, for the messages.
    let member = if b.0.get("AttributesToGet").is_some_and(|v| !v.is_null()) {
        "AttributesToGet"
    } else {
        "ProjectionExpression"
    };
    let s = match b.str("Select")? {
        None if projection => Select::Specific,
        None => Select::All,
        Some(s @ ("ALL_ATTRIBUTES" | "ALL_PROJECTED_ATTRIBUTES" | "COUNT")) if projection => {
            let what = if s == "COUNT" { "only the Count" } else { s };
            return Err(ApiError::validation(format!(
                "Cannot specify the {member} when choosing to get {what}"
            )));
        }
        Some("ALL_PROJECTED_ATTRIBUTES") if !index => {
            return Err(ApiError::validation(
                "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
            ));
        }
        Some("ALL_ATTRIBUTES" | "ALL_PROJECTED_ATTRIBUTES") => Select::All,
        Some("COUNT") => Select::Count,
        Some("SPECIFIC_ATTRIBUTES") if projection => Select::Specific,
        Some("SPECIFIC_ATTRIBUTES") => {
            return Err(ApiError::validation(
                "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
            ));
        }
        Some(other) => {
            return Err(model::refuse(&[model::not_in_set(
                other,
                "select",
                model::SELECT,
            )]));
        }
    };
    Ok(s)
}

/// `Limit` of operation `op` (Query, Scan, ExecuteStatement): at least 1.
pub(crate) fn limit(b: Body<'_>, op: &str) -> Result<Option<i32>, ApiError> {
    match b.int("Limit")? {
        None => Ok(None),
        Some(n) if (1..=i64::from(i32::MAX)).contains(&n) => Ok(Some(n as i32)),
        Some(n) => Err(model::refuse(&[model::limit(op, n)])),
    }
}

fn page(
    out: &mut Map<String, Value>,
    items: Option<Vec<Value>>,
    count: usize,
    scanned: Option<usize>,
    last: Option<singletable_core::value::Item>,
) {
    if let Some(items) = items {
        out.insert("Items".into(), Value::Array(items));
    }
    out.insert("Count".into(), json!(count));
    out.insert("ScannedCount".into(), json!(scanned.unwrap_or(count)));
    if let Some(k) = last {
        out.insert("LastEvaluatedKey".into(), wire::item_json(&k));
    }
}

pub(crate) async fn query(ep: &Endpoint, b: Body<'_>) -> Res {
    legacy::not_mixed(b)?;
    let table = b.table()?;
    let index = b.str("IndexName")?.map(str::to_owned);
    let capacity = Capacity::of(b)?;
    let lim = limit(b, "Query")?;
    let forward = match b.0.get("ScanIndexForward") {
        None | Some(Value::Null) => true,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| ApiError::serialization("ScanIndexForward must be a boolean"))?,
    };
    let consistent = b.bool("ConsistentRead")?;
    let start = b.item("ExclusiveStartKey")?;
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let key = match b.str("KeyConditionExpression")? {
        Some(text) => {
            used = true;
            expr::key_condition(text, &mut ph)?
        }
        None => legacy::key_conditions(b)?.ok_or_else(|| {
            ApiError::validation(
                "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
            )
        })?,
    };
    let filter = match condition(b, "FilterExpression", &mut ph, &mut used)? {
        Some(f) => Some(f),
        None => legacy::condition(b, "QueryFilter", &key_names(ep, &table, index.as_deref()))?,
    };
    let paths = match projection(b, &mut ph, &mut used)? {
        Some(p) => Some(p),
        None => legacy::attributes_to_get(b)?,
    };
    finish(&ph, used, &["FilterExpression", "KeyConditionExpression"])?;
    let select = select(b, paths.is_some(), index.is_some())?;
    let req = QueryRequest {
        table: table.clone(),
        index,
        key: KeyCondition {
            pk_attr: String::new(),
            pk: String::new(),
            sk: None,
            attrs: Some(key),
        },
        filter,
        limit: lim,
        forward,
        consistent,
        projection: paths,
        start,
    };
    let meter = Meter::start(ep, capacity, &[&table]).reading(ep, &table, req.index.as_deref());
    let mut out = Map::new();
    if select == Select::Count {
        let p = ep.db.query_count(req).await.map_err(engine)?;
        page(&mut out, None, p.count, p.scanned, p.last_key);
    } else {
        let p = ep.db.query(req).await.map_err(engine)?;
        let items: Vec<Value> = p.items.iter().map(wire::item_json).collect();
        let n = items.len();
        page(&mut out, Some(items), n, p.scanned, p.last_key);
    }
    meter.finish(ep, &mut out, false);
    Ok(Value::Object(out))
}

fn segment(b: Body<'_>) -> Result<Option<ScanSegment>, ApiError> {
    match (b.int("Segment")?, b.int("TotalSegments")?) {
        (None, None) => Ok(None),
        (Some(s), Some(t)) => {
            if !(1..=1_000_000).contains(&t) {
                return Err(ApiError::validation(format!(
                    "1 validation error detected: Value '{t}' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000"
                )));
            }
            if s < 0 || s >= t {
                return Err(ApiError::validation(format!(
                    "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {s} is not less than TotalSegments: {t}"
                )));
            }
            Ok(Some(ScanSegment {
                segment: s as u32,
                total_segments: t as u32,
            }))
        }
        (Some(_), None) => Err(ApiError::validation(
            "The TotalSegments parameter is required but was not present in the request when Segment parameter is present",
        )),
        (None, Some(_)) => Err(ApiError::validation(
            "The Segment parameter is required but was not present in the request when parameter TotalSegments is present",
        )),
    }
}

pub(crate) async fn scan(ep: &Endpoint, b: Body<'_>) -> Res {
    legacy::not_mixed(b)?;
    let table = b.table()?;
    let index = b.str("IndexName")?.map(str::to_owned);
    let capacity = Capacity::of(b)?;
    let lim = limit(b, "Scan")?;
    let consistent = b.bool("ConsistentRead")?;
    let start = b.item("ExclusiveStartKey")?;
    let segment = segment(b)?;
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let filter = match condition(b, "FilterExpression", &mut ph, &mut used)? {
        Some(f) => Some(f),
        None => legacy::condition(b, "ScanFilter", &[])?,
    };
    let paths: Option<Vec<Path>> = match projection(b, &mut ph, &mut used)? {
        Some(p) => Some(p),
        None => legacy::attributes_to_get(b)?,
    };
    finish(&ph, used, &["FilterExpression"])?;
    let select = select(b, paths.is_some(), index.is_some())?;
    let meter = Meter::start(ep, capacity, &[&table]).reading(ep, &table, index.as_deref());
    let p = ep
        .db
        .scan(ScanRequest {
            table,
            index,
            filter,
            limit: lim,
            consistent,
            start,
            segment,
            projection: None,
        })
        .await
        .map_err(engine)?;
    checked(paths.as_deref())?;
    let mut out = Map::new();
    let n = p.items.len();
    let items = (select != Select::Count).then(|| {
        p.items
            .into_iter()
            .map(|i| match &paths {
                Some(paths) => wire::item_json(&Embedded::project(i, paths)),
                None => wire::item_json(&i),
            })
            .collect()
    });
    page(&mut out, items, n, p.scanned, p.last_key);
    meter.finish(ep, &mut out, false);
    Ok(Value::Object(out))
}
