//! DynamoDB's JSON for attribute values (`{"S": "…"}`, `{"N": "…"}`,
//! `{"B": "<base64>"}`, sets, `BOOL`, `NULL`, `L`, `M`) to and from the
//! SDK's [`AttributeValue`], which is the runtime's value type.
//!
//! Numbers are only checked to be strings here: the engine validates them
//! (38 significant digits, range) and stores them in canonical form, so
//! they come back normalised.

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};
use singletable_core::value::{AttributeValue, Blob, Item};

use crate::error::ApiError;

const EMPTY: &str =
    "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes";
const SEVERAL: &str = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes";

/// One attribute value from its JSON. Its nesting is the engine's to
/// refuse (past 32 levels, on every write path); the JSON parser's own
/// limit bounds the recursion here.
pub(crate) fn value(json: &Value) -> Result<AttributeValue, ApiError> {
    value_at(json)
}

fn value_at(json: &Value) -> Result<AttributeValue, ApiError> {
    let obj = json.as_object().ok_or_else(|| {
        ApiError::serialization("Start of structure or map found where not expected")
    })?;
    let mut found = obj.iter().filter(|(_, v)| !v.is_null());
    let (kind, v) = match (found.next(), found.next()) {
        (None, _) => return Err(ApiError::validation(EMPTY)),
        (Some(kv), None) => kv,
        (Some(_), Some(_)) => return Err(ApiError::validation(SEVERAL)),
    };
    let string = |v: &Value| -> Result<String, ApiError> {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| ApiError::serialization("NUMBER_VALUE cannot be converted to String"))
    };
    let list = |v: &Value| -> Result<Vec<Value>, ApiError> {
        v.as_array().cloned().ok_or_else(|| {
            ApiError::serialization("Unexpected value type in payload; expected a list")
        })
    };
    let blob = |v: &Value| -> Result<Blob, ApiError> {
        let s = v
            .as_str()
            .ok_or_else(|| ApiError::serialization("Expected a base64 string for a binary"))?;
        STANDARD
            .decode(s)
            .map(Blob::new)
            .map_err(|_| ApiError::serialization("Binary value is not valid base64"))
    };
    Ok(match kind.as_str() {
        "S" => AttributeValue::S(string(v)?),
        "N" => AttributeValue::N(string(v)?),
        "B" => AttributeValue::B(blob(v)?),
        "BOOL" => AttributeValue::Bool(
            v.as_bool()
                .ok_or_else(|| ApiError::serialization("Unexpected value type in payload"))?,
        ),
        "NULL" => match v.as_bool() {
            Some(true) => AttributeValue::Null(true),
            Some(false) => {
                return Err(ApiError::validation(
                    "One or more parameter values were invalid: Null attribute value types must have the value of true",
                ));
            }
            None => return Err(ApiError::serialization("Unexpected value type in payload")),
        },
        "SS" => AttributeValue::Ss(list(v)?.iter().map(string).collect::<Result<_, _>>()?),
        "NS" => AttributeValue::Ns(list(v)?.iter().map(string).collect::<Result<_, _>>()?),
        "BS" => AttributeValue::Bs(list(v)?.iter().map(blob).collect::<Result<_, _>>()?),
        "L" => AttributeValue::L(list(v)?.iter().map(value_at).collect::<Result<_, _>>()?),
        "M" => {
            let m = v.as_object().ok_or_else(|| {
                ApiError::serialization("Unexpected value type in payload; expected a map")
            })?;
            let mut out = HashMap::with_capacity(m.len());
            for (k, e) in m {
                out.insert(k.clone(), value_at(e)?);
            }
            AttributeValue::M(out)
        }
        other => {
            return Err(ApiError::serialization(format!(
                "Unrecognized field \"{other}\" in AttributeValue"
            )));
        }
    })
}

/// An item (a map of attribute values) from its JSON.
pub(crate) fn item(json: &Value) -> Result<Item, ApiError> {
    let obj = json.as_object().ok_or_else(|| {
        ApiError::serialization("Unexpected value type in payload; expected a map")
    })?;
    let mut out = HashMap::with_capacity(obj.len());
    for (k, v) in obj {
        out.insert(k.clone(), value(v)?);
    }
    Ok(out)
}

/// The JSON of one attribute value.
pub(crate) fn to_json(v: &AttributeValue) -> Value {
    let b64 = |b: &Blob| Value::String(STANDARD.encode(b.as_ref()));
    let strings = |v: &[String]| Value::Array(v.iter().cloned().map(Value::String).collect());
    let (k, j) = match v {
        AttributeValue::S(s) => ("S", Value::String(s.clone())),
        AttributeValue::N(n) => ("N", Value::String(n.clone())),
        AttributeValue::B(b) => ("B", b64(b)),
        AttributeValue::Bool(b) => ("BOOL", Value::Bool(*b)),
        AttributeValue::Null(_) => ("NULL", Value::Bool(true)),
        AttributeValue::Ss(v) => ("SS", strings(v)),
        AttributeValue::Ns(v) => ("NS", strings(v)),
        AttributeValue::Bs(v) => ("BS", Value::Array(v.iter().map(b64).collect())),
        AttributeValue::L(v) => ("L", Value::Array(v.iter().map(to_json).collect())),
        AttributeValue::M(m) => ("M", item_json(m)),
        _ => ("NULL", Value::Bool(true)),
    };
    let mut m = Map::with_capacity(1);
    m.insert(k.to_owned(), j);
    Value::Object(m)
}

/// The JSON of an item.
pub(crate) fn item_json(item: &Item) -> Value {
    Value::Object(item.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_type_round_trips() {
        let j = json!({"a": {"S": "x"}, "b": {"N": "1.5"}, "c": {"B": "AQI="}, "d": {"SS": ["p", "q"]},
            "e": {"NS": ["1"]}, "f": {"BS": ["AQ=="]}, "g": {"BOOL": true}, "h": {"NULL": true},
            "i": {"L": [{"S": "y"}]}, "j": {"M": {"k": {"N": "2"}}}});
        let it = item(&j).unwrap();
        assert_eq!(it["c"], AttributeValue::B(Blob::new(vec![1, 2])));
        assert_eq!(item_json(&it), j);
    }

    #[test]
    fn malformed_values_are_refused() {
        assert_eq!(value(&json!({})).unwrap_err().message, EMPTY);
        assert_eq!(
            value(&json!({"S": "a", "N": "1"})).unwrap_err().message,
            SEVERAL
        );
        assert!(
            value(&json!({"S": 1}))
                .unwrap_err()
                .kind
                .ends_with("SerializationException")
        );
        assert!(value(&json!({"B": "%%"})).is_err());
        assert!(value(&json!({"X": "a"})).is_err());
        // Nesting is the engine's to refuse, on every write path
        // (`engine_refuses_what_dynamodb_refuses`): the wire reads it.
        let mut deep = json!({"S": "x"});
        for _ in 0..40 {
            deep = json!({"L": [deep]});
        }
        assert!(value(&deep).is_ok());
    }
}
