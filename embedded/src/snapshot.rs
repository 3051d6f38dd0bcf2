//! Snapshots: every table (schema and items) as one JSON document, items in
//! DynamoDB's JSON format (`{"name": {"S": "…"}}`, binaries in base64), so a
//! snapshot can also be read by other tools. Each table also keeps its TTL
//! attribute, its annotation (what the endpoint reports beyond the schema)
//! and its stream's records and next sequence number, so a store loaded
//! from a snapshot is the store that was saved.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::error::{Fail, Res};
use super::schema::TableSchema;
use super::table::TableData;
use crate::check;
use crate::feed::Feed;
use crate::json::{item_from, item_json};
use crate::store::Store;
use singletable_core::entity::StreamView;
use singletable_core::exec::CapacityMeter;
use singletable_core::stream::{EventKind, StreamRecord};
use std::time::{Duration, UNIX_EPOCH};

const FORMAT: &str = "singletable-embedded";
const VERSION: u64 = 1;

fn bad(what: &str) -> Fail {
    Fail::validation(format!("snapshot is malformed: {what}"))
}

/// A change feed as JSON: the next sequence number and the records kept
/// (`seq`, `event`, `keys`, `new`, `old`, `at` in seconds, `size`, `ttl`).
fn feed_json(feed: &Feed) -> Value {
    let (_, next, records) = feed.parts();
    let records: Vec<Value> = records
        .iter()
        .map(|r| {
            let at = r
                .approximate_creation_time
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs());
            let mut v = json!({
                "seq": r.sequence_number,
                "event": r.event.as_str(),
                "keys": item_json(&r.keys),
                "at": at,
                "size": r.size_bytes,
                "ttl": r.by_ttl,
            });
            if let Some(i) = &r.new_image {
                v["new"] = item_json(i);
            }
            if let Some(i) = &r.old_image {
                v["old"] = item_json(i);
            }
            v
        })
        .collect();
    json!({"next": next, "records": records})
}

/// A change feed from [`feed_json`]'s JSON, for a stream of `view`.
fn feed_from(v: &Value, view: StreamView) -> Res<Feed> {
    let next = v
        .get("next")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad("feed without next"))?;
    let image = |r: &Value, k: &str| r.get(k).map(item_from).transpose();
    let records = v
        .get("records")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("feed without records"))?
        .iter()
        .map(|r| {
            let seq = r
                .get("seq")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("stream record without seq"))?;
            let n: u64 = seq.parse().map_err(|_| bad("stream record seq"))?;
            Ok(StreamRecord {
                event_id: format!("00000000-0000-4000-8000-{n:012x}"),
                event: r
                    .get("event")
                    .and_then(Value::as_str)
                    .and_then(EventKind::from_name)
                    .ok_or_else(|| bad("stream record event"))?,
                keys: image(r, "keys")?.ok_or_else(|| bad("stream record keys"))?,
                new_image: image(r, "new")?,
                old_image: image(r, "old")?,
                sequence_number: seq.to_owned(),
                approximate_creation_time: r
                    .get("at")
                    .and_then(Value::as_u64)
                    .map(|s| UNIX_EPOCH + Duration::from_secs(s)),
                view: Some(view),
                size_bytes: r.get("size").and_then(Value::as_u64),
                by_ttl: r.get("ttl").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .collect::<Res<_>>()?;
    Ok(Feed::restore(view, next, records))
}

/// The store as a JSON document.
pub(crate) fn to_json(store: &Store) -> Res<Value> {
    let mut tables = Map::new();
    let mut names: Vec<&String> = store.tables.keys().collect();
    names.sort();
    for name in names {
        let t = &store.tables[name];
        let items = t
            .items()
            .iter()
            .map(|e| t.decode(e.key(), e.value()).map(|i| item_json(&i)))
            .collect::<Res<Vec<_>>>()?;
        let schema = serde_json::to_value(&t.schema).map_err(|e| Fail::internal(e.to_string()))?;
        let mut table = json!({ "schema": schema, "items": items });
        if let Some(attr) = &t.time_to_live {
            table["time_to_live"] = json!(attr);
        }
        if let Some(text) = &t.annotation {
            table["annotation"] = json!(text);
        }
        if let Some(feed) = &t.feed {
            table["feed"] = feed_json(feed);
        }
        tables.insert(name.clone(), table);
    }
    Ok(json!({ "format": FORMAT, "version": VERSION, "tables": tables }))
}

/// A store from a JSON document written by [`to_json`]; every item is
/// validated as PutItem would.
pub(crate) fn from_json(v: &Value, meter: &Arc<CapacityMeter>) -> Res<Store> {
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(bad("not a singletable-embedded snapshot"));
    }
    if v.get("version").and_then(Value::as_u64) != Some(VERSION) {
        return Err(bad("unsupported version"));
    }
    let mut store = Store::default();
    let tables = v
        .get("tables")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no tables"))?;
    for (name, t) in tables {
        let schema: TableSchema = serde_json::from_value(
            t.get("schema")
                .cloned()
                .ok_or_else(|| bad("table without schema"))?,
        )
        .map_err(|e| bad(&e.to_string()))?;
        schema.validate()?;
        let mut data = TableData::new(schema, meter.clone());
        data.time_to_live = match t.get("time_to_live") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .ok_or_else(|| bad("time_to_live is not a string"))?
                    .to_owned(),
            ),
        };
        // Loading items makes no stream records: the feed is the one saved.
        let empty_feed = data.feed.take();
        for item in t
            .get("items")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("table without items"))?
        {
            let item = check::item(&data.schema, item_from(item)?)?;
            check::index_types(&data.schema, &item)
                .map_err(|_| bad("index key of the wrong type"))?;
            let pos = data.position(&item);
            if data.items().contains(pos.as_slice()) {
                return Err(bad("two items with one key"));
            }
            data.write(pos, Some(&item), None);
        }
        if let Some(text) = t.get("annotation").and_then(Value::as_str) {
            data.annotation = Some(text.to_owned());
        }
        data.feed = match (t.get("feed"), empty_feed) {
            (Some(feed), _) => {
                let view = data
                    .schema
                    .stream
                    .ok_or_else(|| bad("a feed without a stream"))?;
                Some(feed_from(feed, view)?)
            }
            (None, feed) => feed,
        };
        store.tables.insert(name.clone(), data);
    }
    Ok(store)
}
