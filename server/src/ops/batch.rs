//! BatchGetItem and BatchWriteItem, across tables.

use serde_json::{Map, Value};
use singletable_core::exec::Executor;
use singletable_core::request::{BatchGet, BatchOp, BatchWrite};

use super::items::{finish, projection};
use super::project::checked;
use super::{
    Body, Capacity, Meter, Res, collection_metrics_wanted, collections_metrics, engine, model,
    required,
};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::expr::Placeholders;
use crate::wire;
use singletable_embedded::Embedded;

/// `RequestItems` of `op`: absent or empty is DynamoDB's "The
/// requestItems parameter is required for <op>".
fn request_items<'a>(b: Body<'a>, op: &str) -> Result<&'a Map<String, Value>, ApiError> {
    match b.obj("RequestItems")? {
        Some(m) if !m.0.is_empty() => Ok(m.0),
        _ => Err(ApiError::validation(format!(
            "The requestItems parameter is required for {op}"
        ))),
    }
}

pub(crate) async fn get(ep: &Endpoint, b: Body<'_>) -> Res {
    let capacity = Capacity::of(b)?;
    let items = request_items(b, "BatchGetItem")?;
    let mut reads = Vec::new();
    let mut total = 0;
    for (table, spec) in items {
        let spec =
            Body(spec.as_object().ok_or_else(|| {
                ApiError::serialization("RequestItems values must be structures")
            })?);
        super::legacy::not_mixed(spec)?;
        let keys = spec.array("Keys")?.ok_or_else(|| required("Keys"))?;
        if keys.len() > 100 {
            return Err(model::refuse_one(
                model::Shown::Hidden,
                &format!("RequestItems.{table}.member.Keys"),
                "Member must have length less than or equal to 100",
            ));
        }
        let keys = keys.iter().map(wire::item).collect::<Result<Vec<_>, _>>()?;
        total += keys.len();
        let mut ph = Placeholders::from_request(spec.0)?;
        let mut used = false;
        let paths = match projection(spec, &mut ph, &mut used)? {
            Some(p) => Some(p),
            None => super::legacy::attributes_to_get(spec)?,
        };
        finish(&ph, used, &[])?;
        reads.push((table.clone(), keys, spec.bool("ConsistentRead")?, paths));
    }
    if total > 100 {
        return Err(ApiError::validation(
            "Too many items requested for the BatchGetItem call",
        ));
    }
    let names: Vec<&str> = reads.iter().map(|r| r.0.as_str()).collect();
    let meter = Meter::start(ep, capacity, &names);
    let mut responses = Map::new();
    let mut unprocessed = Map::new();
    for (table, keys, consistent, paths) in &reads {
        let out = ep
            .db
            .batch_get(BatchGet {
                table: table.clone(),
                keys: keys.clone(),
                consistent: *consistent,
            })
            .await
            .map_err(engine)?;
        checked(paths.as_deref())?;
        let items = out
            .items
            .into_iter()
            .map(|i| match paths {
                Some(p) => wire::item_json(&Embedded::project(i, p)),
                None => wire::item_json(&i),
            })
            .collect();
        responses.insert(table.clone(), Value::Array(items));
        if !out.unprocessed.is_empty() {
            let keys = out.unprocessed.iter().map(wire::item_json).collect();
            let mut spec = items_spec(b, table);
            spec.insert("Keys".into(), Value::Array(keys));
            unprocessed.insert(table.clone(), Value::Object(spec));
        }
    }
    let mut out = Map::new();
    out.insert("Responses".into(), Value::Object(responses));
    out.insert("UnprocessedKeys".into(), Value::Object(unprocessed));
    meter.finish(ep, &mut out, true);
    Ok(Value::Object(out))
}

/// The request's own spec for `table`, to hand unprocessed keys back with.
fn items_spec(b: Body<'_>, table: &str) -> Map<String, Value> {
    b.0.get("RequestItems")
        .and_then(|r| r.get(table))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

pub(crate) async fn write(ep: &Endpoint, b: Body<'_>) -> Res {
    let capacity = Capacity::of(b)?;
    let items = request_items(b, "BatchWriteItem")?;
    // A table's list of 0 or over 25 requests breaks the model's
    // constraint on the map's values; the service shows the whole map.
    if items.values().any(|list| {
        list.as_array()
            .is_some_and(|l| l.is_empty() || l.len() > 25)
    }) {
        return Err(model::refuse_one(
            model::Shown::Value(&model::java(&Value::Object(items.clone()))),
            "requestItems",
            "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]",
        ));
    }
    let mut writes = Vec::new();
    let mut total = 0;
    for (table, list) in items {
        let list = list
            .as_array()
            .ok_or_else(|| ApiError::serialization("RequestItems values must be lists"))?;
        let mut ops = Vec::with_capacity(list.len());
        for req in list {
            let req = Body(
                req.as_object()
                    .ok_or_else(|| ApiError::serialization("WriteRequest must be a structure"))?,
            );
            let op = match (req.obj("PutRequest")?, req.obj("DeleteRequest")?) {
                (Some(p), None) => BatchOp::Put(p.req_item("Item")?),
                (None, Some(d)) => BatchOp::Delete(d.req_item("Key")?),
                _ => {
                    return Err(ApiError::validation(
                        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
                    ));
                }
            };
            ops.push(op);
        }
        total += ops.len();
        writes.push((table.clone(), ops));
    }
    if total > 25 {
        return Err(ApiError::validation(
            "Too many items requested for the BatchWriteItem call",
        ));
    }
    let touched: Vec<(String, singletable_core::value::Item)> = if collection_metrics_wanted(b)? {
        writes
            .iter()
            .flat_map(|(table, ops)| {
                ops.iter().map(|op| match op {
                    BatchOp::Put(i) | BatchOp::Delete(i) => (table.clone(), i.clone()),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let names: Vec<&str> = writes.iter().map(|w| w.0.as_str()).collect();
    let meter = Meter::start(ep, capacity, &names);
    let mut unprocessed = Map::new();
    for (table, ops) in writes {
        let left = ep
            .db
            .batch_write(BatchWrite {
                table: table.clone(),
                ops,
            })
            .await
            .map_err(engine)?;
        if !left.is_empty() {
            let list = left
                .iter()
                .map(|op| match op {
                    BatchOp::Put(i) => {
                        serde_json::json!({"PutRequest": {"Item": wire::item_json(i)}})
                    }
                    BatchOp::Delete(k) => {
                        serde_json::json!({"DeleteRequest": {"Key": wire::item_json(k)}})
                    }
                })
                .collect();
            unprocessed.insert(table, Value::Array(list));
        }
    }
    let mut out = Map::new();
    out.insert("UnprocessedItems".into(), Value::Object(unprocessed));
    meter.finish(ep, &mut out, true);
    if let Some(m) = collections_metrics(ep, &touched) {
        out.insert("ItemCollectionMetrics".into(), m);
    }
    Ok(Value::Object(out))
}
