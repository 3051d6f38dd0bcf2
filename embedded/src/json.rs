//! Items in DynamoDB's JSON format (`{"name": {"S": "…"}}`, binaries in
//! base64): how snapshots and the log of a durable store write them.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::error::{Fail, Res};
use crate::value::{AttributeValue, Blob, Item};

fn value_json(v: &AttributeValue) -> Value {
    let b64 = |b: &Blob| Value::String(STANDARD.encode(b.as_ref()));
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(value_json).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": item_json(m) }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(s) => json!({ "NS": s }),
        AttributeValue::Bs(s) => json!({ "BS": s.iter().map(b64).collect::<Vec<_>>() }),
        _ => json!({ "NULL": true }),
    }
}

pub(crate) fn item_json(item: &Item) -> Value {
    Value::Object(
        item.iter()
            .map(|(k, v)| (k.clone(), value_json(v)))
            .collect::<Map<_, _>>(),
    )
}

fn bad(what: &str) -> Fail {
    Fail::validation(format!("malformed DynamoDB JSON: {what}"))
}

fn strings(v: &Value) -> Res<Vec<String>> {
    v.as_array()
        .ok_or_else(|| bad("set is not an array"))?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_owned)
                .ok_or_else(|| bad("set element"))
        })
        .collect()
}

fn blob(v: &Value) -> Res<Blob> {
    let s = v.as_str().ok_or_else(|| bad("binary is not a string"))?;
    STANDARD
        .decode(s)
        .map(Blob::new)
        .map_err(|_| bad("binary is not base64"))
}

fn value_from(v: &Value) -> Res<AttributeValue> {
    let obj = v.as_object().ok_or_else(|| bad("value is not an object"))?;
    let (tag, inner) = obj
        .iter()
        .next()
        .filter(|_| obj.len() == 1)
        .ok_or_else(|| bad("value must have exactly one type"))?;
    let text = || inner.as_str().map(str::to_owned).ok_or_else(|| bad(tag));
    Ok(match tag.as_str() {
        "S" => AttributeValue::S(text()?),
        "N" => AttributeValue::N(text()?),
        "B" => AttributeValue::B(blob(inner)?),
        "BOOL" => AttributeValue::Bool(inner.as_bool().ok_or_else(|| bad("BOOL"))?),
        "NULL" => AttributeValue::Null(true),
        "L" => AttributeValue::L(
            inner
                .as_array()
                .ok_or_else(|| bad("L"))?
                .iter()
                .map(value_from)
                .collect::<Res<_>>()?,
        ),
        "M" => AttributeValue::M(item_from(inner)?),
        "SS" => AttributeValue::Ss(strings(inner)?),
        "NS" => AttributeValue::Ns(strings(inner)?),
        "BS" => AttributeValue::Bs(
            inner
                .as_array()
                .ok_or_else(|| bad("BS"))?
                .iter()
                .map(blob)
                .collect::<Res<_>>()?,
        ),
        other => return Err(bad(&format!("unknown type {other}"))),
    })
}

pub(crate) fn item_from(v: &Value) -> Res<Item> {
    v.as_object()
        .ok_or_else(|| bad("item is not an object"))?
        .iter()
        .map(|(k, v)| Ok((k.clone(), value_from(v)?)))
        .collect()
}
