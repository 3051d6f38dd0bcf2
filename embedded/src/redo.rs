//! What a durable store's log records: the changes one commit made (every
//! item written or deleted, every table created, deleted or given another
//! setting), in commit order, and how a restart applies them again.
//!
//! The log applies them again (`durable`). Changes are recorded where
//! they are made: item writes in
//! `TableData::write` (every put, update, delete, batch and transaction
//! passes there), settings in the `TableData` methods that change them,
//! tables in `Store::insert_table` and `Store::remove_table`. The engine's
//! write guard hands the changes of each commit to the log as one record
//! before it lets go of the store, so records are in commit order and a
//! transaction is one record: all of it or nothing comes back.
//!
//! A record's payload is binary (see [`encode`]): items and keys in the
//! value encoding of `singletable_core::reader::encoded`, other changes as
//! JSON objects `{"table": name, "op": kind, ...}` with `op` one of
//! `create` (`schema`), `drop`, `add_index` (`index`), `remove_index`
//! (`name`), `add_vector` (`index`), `remove_vector` (`name`), `stream`
//! (`view`), `ttl` (`attribute`, null when disabled), `annotate` (`text`).
//! A payload that starts with `[` is the JSON array of such objects that
//! earlier versions wrote (`put` with `item` and `at`, `delete` with `key`,
//! `at` and `ttl: true` when TTL deleted an expired item, items in DynamoDB's JSON format), still read. `at` is the
//! write's time in seconds since the epoch (the time its stream record
//! carries).

use serde_json::{Value, json};

use crate::error::{Fail, Res};
use crate::json::{item_from, item_json};
use crate::schema::{IndexSchema, TableSchema, VectorIndexSchema};
use crate::value::Item;
use singletable_core::entity::StreamView;
use singletable_core::reader::encoded::{ValueReader, encode_value, put_len};

/// One change to one table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    Create(TableSchema),
    Drop,
    /// The item written, and when (seconds since the epoch).
    Put(Item, u64),
    /// The key of the item deleted, when, and whether TTL deleted it
    /// (an expired item, whose stream record names TTL's service).
    Delete(Item, u64, bool),
    AddIndex(IndexSchema),
    RemoveIndex(String),
    AddVector(VectorIndexSchema),
    RemoveVector(String),
    Stream(StreamView),
    TimeToLive(Option<String>),
    Annotate(String),
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The first byte of a binary payload (a JSON payload, what earlier
/// versions wrote, starts with `[`).
const BINARY: u8 = 0xB1;

/// A binary change's kind: an item written, an item deleted, or any other
/// change as its JSON object.
const OP_JSON: u8 = 0;
const OP_PUT: u8 = 1;
const OP_DELETE: u8 = 2;
/// An expired item TTL deleted.
const OP_EXPIRE: u8 = 3;

/// One change as a JSON object (`{"table": name, "op": kind, ...}`).
fn change_json(table: &str, c: &Change) -> Value {
    let mut v = match c {
        Change::Create(schema) => json!({"op": "create", "schema": to_value(schema)}),
        Change::Drop => json!({"op": "drop"}),
        Change::Put(item, at) => json!({"op": "put", "item": item_json(item), "at": at}),
        Change::Delete(key, at, by_ttl) => {
            let mut v = json!({"op": "delete", "key": item_json(key), "at": at});
            if *by_ttl {
                v["ttl"] = json!(true);
            }
            v
        }
        Change::AddIndex(ix) => json!({"op": "add_index", "index": to_value(ix)}),
        Change::RemoveIndex(name) => json!({"op": "remove_index", "name": name}),
        Change::AddVector(ix) => json!({"op": "add_vector", "index": to_value(ix)}),
        Change::RemoveVector(name) => json!({"op": "remove_vector", "name": name}),
        Change::Stream(view) => json!({"op": "stream", "view": to_value(view)}),
        Change::TimeToLive(attr) => json!({"op": "ttl", "attribute": attr}),
        Change::Annotate(text) => json!({"op": "annotate", "text": text}),
    };
    v["table"] = json!(table);
    v
}

/// An item's attributes: their count, then each name (length and bytes)
/// and value (the encoding `singletable_core::reader::encoded` defines).
fn put_item(item: &Item, out: &mut Vec<u8>) {
    put_len(out, item.len());
    for (name, value) in item {
        put_len(out, name.len());
        out.extend_from_slice(name.as_bytes());
        encode_value(value, out);
    }
}

fn read_item(r: &mut ValueReader<'_>) -> Option<Item> {
    let n = r.read_len()?;
    let mut item = Item::with_capacity(n.min(4096));
    for _ in 0..n {
        let name = std::str::from_utf8(r.bytes()?).ok()?;
        item.insert(name.to_owned(), r.value()?);
    }
    Some(item)
}

/// The payload of one log record: `changes`, in order. Binary: the byte
/// `0xB1`, the number of changes, then per change its table's name
/// (length and bytes), its kind (a byte: 1 an item written, 2 an item
/// deleted, 3 an expired item TTL deleted, 0 any other change) and, for
/// an item written or deleted, the write's time (u64 little-endian) and the item or key
/// ([`put_item`]); any other change as its JSON object (length and bytes).
pub(crate) fn encode(changes: &[(String, Change)]) -> Vec<u8> {
    let mut out = vec![BINARY];
    put_len(&mut out, changes.len());
    for (table, c) in changes {
        put_len(&mut out, table.len());
        out.extend_from_slice(table.as_bytes());
        match c {
            Change::Put(item, at) | Change::Delete(item, at, _) => {
                out.push(match c {
                    Change::Put(..) => OP_PUT,
                    Change::Delete(_, _, true) => OP_EXPIRE,
                    _ => OP_DELETE,
                });
                out.extend_from_slice(&at.to_le_bytes());
                put_item(item, &mut out);
            }
            other => {
                out.push(OP_JSON);
                let text = serde_json::to_vec(&change_json(table, other)).unwrap_or_default();
                put_len(&mut out, text.len());
                out.extend_from_slice(&text);
            }
        }
    }
    out
}

pub(crate) fn bad(what: &str) -> Fail {
    Fail::validation(format!("log record is malformed: {what}"))
}

fn from<T: serde::de::DeserializeOwned>(v: Option<&Value>, what: &str) -> Res<T> {
    serde_json::from_value(v.cloned().ok_or_else(|| bad(what))?).map_err(|e| bad(&e.to_string()))
}

/// One change from its JSON object.
fn change_from_json(v: &Value) -> Res<(String, Change)> {
    let table: String = from(v.get("table"), "table")?;
    let at = || from::<u64>(v.get("at"), "at");
    let name = || from::<String>(v.get("name"), "name");
    let op = v
        .get("op")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("op"))?;
    let change = match op {
        "create" => Change::Create(from(v.get("schema"), "schema")?),
        "drop" => Change::Drop,
        "put" => Change::Put(item_from(v.get("item").ok_or_else(|| bad("item"))?)?, at()?),
        "delete" => Change::Delete(
            item_from(v.get("key").ok_or_else(|| bad("key"))?)?,
            at()?,
            v.get("ttl").and_then(Value::as_bool).unwrap_or(false),
        ),
        "add_index" => Change::AddIndex(from(v.get("index"), "index")?),
        "remove_index" => Change::RemoveIndex(name()?),
        "add_vector" => Change::AddVector(from(v.get("index"), "index")?),
        "remove_vector" => Change::RemoveVector(name()?),
        "stream" => Change::Stream(from(v.get("view"), "view")?),
        "ttl" => Change::TimeToLive(from(v.get("attribute"), "attribute")?),
        "annotate" => Change::Annotate(from(v.get("text"), "text")?),
        other => return Err(bad(&format!("unknown op {other}"))),
    };
    Ok((table, change))
}

/// The next `n` bytes of `payload`, which `r` reads.
fn fixed<'a>(payload: &'a [u8], r: &mut ValueReader<'a>, n: usize) -> Option<&'a [u8]> {
    let at = r.position();
    let out = payload.get(at..at.checked_add(n)?)?;
    *r = ValueReader::at(payload, at + n);
    Some(out)
}

/// The changes of one log record's payload (binary, or the JSON array
/// earlier versions wrote): all of them, or an error (nothing of a
/// malformed record is applied).
pub(crate) fn decode(payload: &[u8]) -> Res<Vec<(String, Change)>> {
    if payload.first() != Some(&BINARY) {
        let list: Vec<Value> = serde_json::from_slice(payload).map_err(|e| bad(&e.to_string()))?;
        return list.iter().map(change_from_json).collect();
    }
    let mut r = ValueReader::at(payload, 1);
    let n = r.read_len().ok_or_else(|| bad("change count"))?;
    let mut changes = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let table = r
            .bytes()
            .and_then(|b| std::str::from_utf8(b).ok())
            .ok_or_else(|| bad("table"))?
            .to_owned();
        let op = *fixed(payload, &mut r, 1)
            .ok_or_else(|| bad("op"))?
            .first()
            .unwrap_or(&u8::MAX);
        let change = match op {
            OP_PUT | OP_DELETE | OP_EXPIRE => {
                let at = fixed(payload, &mut r, 8)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_le_bytes)
                    .ok_or_else(|| bad("at"))?;
                let item = read_item(&mut r).ok_or_else(|| bad("item"))?;
                match op {
                    OP_PUT => Change::Put(item, at),
                    _ => Change::Delete(item, at, op == OP_EXPIRE),
                }
            }
            OP_JSON => {
                let text = r.bytes().ok_or_else(|| bad("change"))?;
                let v: Value = serde_json::from_slice(text).map_err(|e| bad(&e.to_string()))?;
                let (named, change) = change_from_json(&v)?;
                if named != table {
                    return Err(bad("table"));
                }
                change
            }
            other => return Err(bad(&format!("unknown op {other}"))),
        };
        changes.push((table, change));
    }
    if r.position() != payload.len() {
        return Err(bad("bytes after the last change"));
    }
    Ok(changes)
}
