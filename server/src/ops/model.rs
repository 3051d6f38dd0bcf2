//! The service's model validation: the constraints DynamoDB's API model
//! puts on request members (lengths, patterns, enum sets, bounds), worded
//! as the service words them (`1 validation error detected: Value 'x' at
//! 'member' failed to satisfy constraint: ...`, and `N validation errors
//! detected: ...; ...` when a request breaks several). Every such message
//! of the endpoint is made here; [`check`] runs the checks that cover a
//! whole request before its operation reads it, so a request breaking
//! several constraints hears of all of them at once, as from DynamoDB.

use serde_json::Value;

use super::Body;
use crate::error::ApiError;

/// How a violation shows the value it is about.
pub(crate) enum Shown<'a> {
    /// `Value 'x' at ...`.
    Value(&'a str),
    /// `Value null at ...` (a required member that is absent).
    Null,
    /// `Value at ...` (DynamoDB leaves some values out).
    Hidden,
}

/// One violated constraint: `Value '<v>' at '<member>' failed to satisfy
/// constraint: <constraint>`.
pub(crate) fn violation(value: Shown<'_>, member: &str, constraint: &str) -> String {
    let value = match value {
        Shown::Value(v) => format!("Value '{v}' "),
        Shown::Null => "Value null ".to_owned(),
        Shown::Hidden => "Value ".to_owned(),
    };
    format!("{value}at '{member}' failed to satisfy constraint: {constraint}")
}

/// The `ValidationException` for `violations` (at least one).
pub(crate) fn refuse(violations: &[String]) -> ApiError {
    let n = violations.len();
    let errors = if n == 1 { "error" } else { "errors" };
    ApiError::validation(format!(
        "{n} validation {errors} detected: {}",
        violations.join("; ")
    ))
}

/// The `ValidationException` for one violated constraint.
pub(crate) fn refuse_one(value: Shown<'_>, member: &str, constraint: &str) -> ApiError {
    refuse(&[violation(value, member, constraint)])
}

/// `member` of a request, as the model names it (first letter lower case).
pub(crate) fn member_name(name: &str) -> String {
    let mut m = name.to_owned();
    if let Some(first) = m.get(..1) {
        m.replace_range(..1, &first.to_ascii_lowercase());
    }
    m
}

/// The violation of an enum member holding `value`, outside `set`.
pub(crate) fn not_in_set(value: &str, member: &str, set: &[&str]) -> String {
    violation(
        Shown::Value(value),
        member,
        &format!("Member must satisfy enum value set: [{}]", set.join(", ")),
    )
}

pub(crate) const RETURN_VALUES: &[&str] =
    &["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"];
pub(crate) const RETURN_CONSUMED_CAPACITY: &[&str] = &["INDEXES", "TOTAL", "NONE"];
pub(crate) const RETURN_ITEM_COLLECTION_METRICS: &[&str] = &["SIZE", "NONE"];
pub(crate) const RETURN_ON_CONDITION_FAILURE: &[&str] = &["ALL_OLD", "NONE"];
pub(crate) const SELECT: &[&str] = &[
    "SPECIFIC_ATTRIBUTES",
    "COUNT",
    "ALL_ATTRIBUTES",
    "ALL_PROJECTED_ATTRIBUTES",
];

/// The violation of a table name, if it breaks the model's rule: between
/// `min` and 255 characters of `[a-zA-Z0-9_.-]` (a length that is wrong
/// is reported alone, as DynamoDB reports it). CreateTable's `min` is 3;
/// the operations that name an existing table take 1.
pub(crate) fn table_name(name: &str, min: usize) -> Option<String> {
    let n = name.chars().count();
    let constraint = if n < min {
        format!("Member must have length greater than or equal to {min}")
    } else if n > 255 {
        "Member must have length less than or equal to 255".to_owned()
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+".to_owned()
    } else {
        return None;
    };
    Some(violation(Shown::Value(name), "tableName", &constraint))
}

/// `Limit` below 1. Query's answer names the member `Limit` without its
/// value; Scan's, as the other operations', `limit` with it (both as
/// DynamoDB words them).
pub(crate) fn limit(op: &str, n: i64) -> String {
    const MIN: &str = "Member must have value greater than or equal to 1";
    if op == "Query" {
        violation(Shown::Hidden, "Limit", MIN)
    } else {
        violation(Shown::Value(&n.to_string()), "limit", MIN)
    }
}

/// A list member with more than `max` (or fewer than `min`) elements,
/// shown as the service shows it (Java's rendering of the request's
/// objects: `[{Put={TableName=t, ...}}, ...]`).
pub(crate) fn list_length(list: &Value, member: &str, min: usize, max: usize) -> Option<String> {
    let n = match list {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => return None,
    };
    let constraint = if n < min {
        format!("Member must have length greater than or equal to {min}")
    } else if n > max {
        format!("Member must have length less than or equal to {max}")
    } else {
        return None;
    };
    Some(violation(Shown::Value(&java(list)), member, &constraint))
}

/// A JSON value as Java's `toString` of the model objects shows it in
/// DynamoDB's messages: maps as `{k=v, ...}`, lists as `[a, b]`, strings
/// bare.
pub(crate) fn java(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", java(v))).collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().map(java).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The operations whose `TableName` names an existing table.
const NAMING_A_TABLE: &[&str] = &[
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "DescribeTable",
    "DeleteTable",
    "UpdateTable",
    "UpdateTimeToLive",
    "DescribeTimeToLive",
    "SearchVectors",
];

/// The model checks of `op`'s top-level members, before the operation
/// reads them: a missing or malformed `TableName` alone (DynamoDB stops
/// there), otherwise every enum member outside its set and a `Limit`
/// below 1, together.
pub(crate) fn check(op: &str, b: Body<'_>) -> Result<(), ApiError> {
    let min = match op {
        "CreateTable" => Some(3),
        op if NAMING_A_TABLE.contains(&op) => Some(1),
        _ => None,
    };
    if let Some(min) = min {
        match b.0.get("TableName") {
            None | Some(Value::Null) if op == "CreateTable" => {
                return Err(ApiError::validation(
                    "The parameter 'TableName' is required but was not present in the request",
                ));
            }
            None | Some(Value::Null) => {
                return Err(refuse_one(
                    Shown::Null,
                    "tableName",
                    "Member must not be null",
                ));
            }
            Some(Value::String(name)) => {
                if let Some(v) = table_name(name, min) {
                    return Err(refuse(&[v]));
                }
            }
            // A wrong JSON type is the operation's SerializationException.
            Some(_) => {}
        }
    }
    let mut found = Vec::new();
    let enums: &[(&str, &[&str])] = match op {
        "PutItem" | "UpdateItem" | "DeleteItem" => &[
            ("ReturnValues", RETURN_VALUES),
            ("ReturnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
            (
                "ReturnItemCollectionMetrics",
                RETURN_ITEM_COLLECTION_METRICS,
            ),
            (
                "ReturnValuesOnConditionCheckFailure",
                RETURN_ON_CONDITION_FAILURE,
            ),
        ],
        "Query" | "Scan" => &[
            ("Select", SELECT),
            ("ReturnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        ],
        "GetItem"
        | "BatchGetItem"
        | "TransactGetItems"
        | "ExecuteStatement"
        | "BatchExecuteStatement" => &[("ReturnConsumedCapacity", RETURN_CONSUMED_CAPACITY)],
        "BatchWriteItem" | "TransactWriteItems" | "ExecuteTransaction" => &[
            ("ReturnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
            (
                "ReturnItemCollectionMetrics",
                RETURN_ITEM_COLLECTION_METRICS,
            ),
        ],
        _ => &[],
    };
    for (name, set) in enums {
        if let Some(Value::String(v)) = b.0.get(*name)
            && !set.contains(&v.as_str())
        {
            found.push(not_in_set(v, &member_name(name), set));
        }
    }
    if matches!(op, "Query" | "Scan")
        && let Some(n) = b.0.get("Limit").and_then(Value::as_i64)
        && n < 1
    {
        found.push(limit(op, n));
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(refuse(&found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(op: &str, body: Value) -> Option<String> {
        let Value::Object(m) = body else {
            unreachable!()
        };
        check(op, Body(&m)).err().map(|e| e.message)
    }

    #[test]
    fn several_violations_are_reported_together() {
        let m = message(
            "DeleteItem",
            json!({"TableName": "t_1", "ReturnValues": "X", "ReturnConsumedCapacity": "Y"}),
        )
        .unwrap();
        assert!(
            m.starts_with("2 validation errors detected: Value 'X' at 'returnValues'"),
            "{m}"
        );
        assert!(m.contains("; Value 'Y' at 'returnConsumedCapacity'"), "{m}");
    }

    #[test]
    fn a_bad_table_name_is_reported_alone() {
        let m = message("PutItem", json!({"TableName": "", "ReturnValues": "X"})).unwrap();
        assert_eq!(
            m,
            "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
        );
        let m = message("PutItem", json!({"TableName": "a b"})).unwrap();
        assert!(
            m.ends_with("regular expression pattern: [a-zA-Z0-9_.-]+"),
            "{m}"
        );
        assert_eq!(message("PutItem", json!({"TableName": "ab"})), None);
        let m = message("CreateTable", json!({"TableName": "ab"})).unwrap();
        assert!(m.ends_with("greater than or equal to 3"), "{m}");
    }

    #[test]
    fn query_and_scan_word_limit_differently() {
        let q = message("Query", json!({"TableName": "t_1", "Limit": 0})).unwrap();
        assert_eq!(
            q,
            "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
        );
        let s = message("Scan", json!({"TableName": "t_1", "Limit": -2})).unwrap();
        assert!(s.contains("Value '-2' at 'limit'"), "{s}");
    }

    #[test]
    fn java_rendering_of_lists_and_maps() {
        assert_eq!(
            java(&json!([{"Put": {"Item": {"pk": {"S": "a"}}}}])),
            "[{Put={Item={pk={S=a}}}}]"
        );
    }
}
