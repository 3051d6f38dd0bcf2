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
use crate::crc::crc32;
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

/// A table's settings as JSON: its schema, TTL attribute, annotation and
/// stream records (everything but its items), for both snapshot forms.
fn settings_json(t: &TableData) -> Res<Value> {
    let schema = serde_json::to_value(&t.schema).map_err(|e| Fail::internal(e.to_string()))?;
    let mut table = json!({ "schema": schema });
    if let Some(attr) = &t.time_to_live {
        table["time_to_live"] = json!(attr);
    }
    if let Some(text) = &t.annotation {
        table["annotation"] = json!(text);
    }
    if let Some(feed) = &t.feed {
        table["feed"] = feed_json(feed);
    }
    Ok(table)
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
        let mut table = settings_json(t)?;
        table["items"] = Value::Array(items);
        tables.insert(name.clone(), table);
    }
    Ok(json!({ "format": FORMAT, "version": VERSION, "tables": tables }))
}

/// A table from the settings [`settings_json`] wrote (its items not
/// loaded, its feed not restored yet: loading items makes no stream
/// records, the feed is the one saved).
fn table_from(t: &Value, meter: &Arc<CapacityMeter>) -> Res<TableData> {
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
    if let Some(text) = t.get("annotation").and_then(Value::as_str) {
        data.annotation = Some(text.to_owned());
    }
    data.feed = None;
    Ok(data)
}

/// Gives `data` the feed its settings `t` saved (or a new one, when its
/// schema has a stream and none was saved).
fn restore_feed(data: &mut TableData, t: &Value) -> Res<()> {
    data.feed = match (t.get("feed"), data.schema.stream) {
        (Some(feed), Some(view)) => Some(feed_from(feed, view)?),
        (Some(_), None) => return Err(bad("a feed without a stream")),
        (None, view) => view.map(Feed::new),
    };
    Ok(())
}

fn check_format(v: &Value) -> Res<()> {
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(bad("not a singletable-embedded snapshot"));
    }
    if v.get("version").and_then(Value::as_u64) != Some(VERSION) {
        return Err(bad("unsupported version"));
    }
    Ok(())
}

/// A store from a JSON document written by [`to_json`]; every item is
/// validated as PutItem would.
pub(crate) fn from_json(v: &Value, meter: &Arc<CapacityMeter>) -> Res<Store> {
    check_format(v)?;
    let mut store = Store::default();
    let tables = v
        .get("tables")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no tables"))?;
    for (name, t) in tables {
        let mut data = table_from(t, meter)?;
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
        restore_feed(&mut data, t)?;
        store.tables.insert(name.clone(), data);
    }
    Ok(store)
}

/// The first bytes of a binary snapshot: format name and version.
pub(crate) const BINARY_MAGIC: &[u8; 8] = b"STSNAP\0\x01";

/// The store as a binary snapshot, what a data directory's compaction
/// writes: [`BINARY_MAGIC`]; `len: u32 LE` and `len` bytes of a JSON
/// header (the format and version, and per table its settings as in
/// [`to_json`], its attribute names in the order stored values number
/// them, `names`, and its item count, `count`); then each table's items
/// in the header's order, in position order, each `len: u32 LE` and its
/// position, `len: u32 LE` and its stored value, the bytes the table
/// holds; last, `crc: u32 LE`, the CRC32 of everything before it.
///
/// Items are copied as they are stored (no decoding, no JSON), so making
/// one under the store's read lock costs a copy of the bytes.
pub(crate) fn to_binary(store: &Store) -> Res<Vec<u8>> {
    let mut names: Vec<&String> = store.tables.keys().collect();
    names.sort();
    let mut tables = Map::new();
    let mut size = 0;
    for name in &names {
        let t = &store.tables[*name];
        let mut table = settings_json(t)?;
        table["names"] = json!(t.names().iter().map(|n| &**n).collect::<Vec<&str>>());
        table["count"] = json!(t.items().len());
        size += t
            .items()
            .iter()
            .map(|r| 8 + r.key().len() + r.value().len())
            .sum::<usize>();
        tables.insert((*name).clone(), table);
    }
    let header =
        serde_json::to_vec(&json!({ "format": FORMAT, "version": VERSION, "tables": tables }))
            .map_err(|e| Fail::internal(e.to_string()))?;
    let mut out = Vec::with_capacity(BINARY_MAGIC.len() + 8 + header.len() + size);
    out.extend_from_slice(BINARY_MAGIC);
    let len = |n: usize| u32::try_from(n).map_err(|_| Fail::internal("snapshot part over 4 GB"));
    out.extend_from_slice(&len(header.len())?.to_le_bytes());
    out.extend_from_slice(&header);
    for name in &names {
        for r in store.tables[*name].items() {
            let (pos, value) = r.key_value();
            out.extend_from_slice(&len(pos.len())?.to_le_bytes());
            out.extend_from_slice(pos);
            out.extend_from_slice(&len(value.len())?.to_le_bytes());
            out.extend_from_slice(value);
        }
    }
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Reads a binary snapshot's parts in order.
struct Parts<'a>(&'a [u8]);

impl<'a> Parts<'a> {
    fn next(&mut self) -> Res<&'a [u8]> {
        let (len, rest) = self
            .0
            .split_first_chunk::<4>()
            .ok_or_else(|| bad("truncated"))?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return Err(bad("truncated"));
        }
        let (part, rest) = rest.split_at(len);
        self.0 = rest;
        Ok(part)
    }
}

/// A store from a binary snapshot written by [`to_binary`]: the checksum
/// first (a snapshot that fails it is refused whole, never partly
/// loaded), then each item stored as it was written, read in place to
/// check it (see `TableData::restore`).
pub(crate) fn from_binary(bytes: &[u8], meter: &Arc<CapacityMeter>) -> Res<Store> {
    let body = bytes
        .strip_prefix(BINARY_MAGIC.as_slice())
        .ok_or_else(|| bad("not a singletable-embedded binary snapshot"))?;
    let (body, crc) = body
        .split_last_chunk::<4>()
        .ok_or_else(|| bad("truncated"))?;
    if crc32(&bytes[..bytes.len() - 4]) != u32::from_le_bytes(*crc) {
        return Err(bad("checksum mismatch"));
    }
    let mut parts = Parts(body);
    let header: Value = serde_json::from_slice(parts.next()?).map_err(|e| bad(&e.to_string()))?;
    check_format(&header)?;
    let tables = header
        .get("tables")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no tables"))?;
    let mut store = Store::default();
    for (name, t) in tables {
        let mut data = table_from(t, meter)?;
        let names: Vec<Box<str>> =
            serde_json::from_value(t.get("names").cloned().unwrap_or_default())
                .map_err(|_| bad("table without attribute names"))?;
        data.restore_names(names)?;
        let count = t
            .get("count")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("table without item count"))?;
        for _ in 0..count {
            let pos = parts.next()?;
            let value = parts.next()?;
            data.restore(pos, value)?;
        }
        restore_feed(&mut data, t)?;
        store.tables.insert(name.clone(), data);
    }
    if !parts.0.is_empty() {
        return Err(bad("bytes after the last item"));
    }
    Ok(store)
}
