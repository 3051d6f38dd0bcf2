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
//! A record's payload is a JSON array, one object per change:
//! `{"table": name, "op": kind, ...}` with `op` one of `create`
//! (`schema`), `drop`, `put` (`item`, `at`), `delete` (`key`, `at`, and
//! `ttl: true` when TTL deleted an expired item),
//! `add_index` (`index`), `remove_index` (`name`), `add_vector`
//! (`index`), `remove_vector` (`name`), `stream` (`view`), `ttl`
//! (`attribute`, null when disabled), `annotate` (`text`). Items and keys
//! are in DynamoDB's JSON format; `at` is the write's time in seconds
//! since the epoch (the time its stream record carries).

use serde_json::{Value, json};

use crate::error::{Fail, Res};
use crate::json::{item_from, item_json};
use crate::schema::{IndexSchema, TableSchema, VectorIndexSchema};
use crate::value::Item;
use singletable_core::entity::StreamView;

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

/// The payload of one log record: `changes`, in order.
pub(crate) fn encode(changes: &[(String, Change)]) -> Vec<u8> {
    let list: Vec<Value> = changes
        .iter()
        .map(|(table, c)| {
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
        })
        .collect();
    serde_json::to_vec(&list).unwrap_or_default()
}

pub(crate) fn bad(what: &str) -> Fail {
    Fail::validation(format!("log record is malformed: {what}"))
}

fn from<T: serde::de::DeserializeOwned>(v: Option<&Value>, what: &str) -> Res<T> {
    serde_json::from_value(v.cloned().ok_or_else(|| bad(what))?).map_err(|e| bad(&e.to_string()))
}

/// The changes of one log record's payload: all of them, or an error
/// (nothing of a malformed record is applied).
pub(crate) fn decode(payload: &[u8]) -> Res<Vec<(String, Change)>> {
    let list: Vec<Value> = serde_json::from_slice(payload).map_err(|e| bad(&e.to_string()))?;
    list.iter()
        .map(|v| {
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
        })
        .collect()
}
