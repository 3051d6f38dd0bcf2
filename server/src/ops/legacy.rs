//! The legacy parameters DynamoDB still accepts (`Expected` with
//! `ConditionalOperator`, `AttributeUpdates`, `AttributesToGet`,
//! `KeyConditions`, `QueryFilter`, `ScanFilter`), translated into the
//! condition, update, key-condition and projection values the expression
//! parser builds, so the engine evaluates them with its one evaluator.
//!
//! The checks are DynamoDB's, worded as DynamoDB Local words them
//! (`legacy_parameters_match_dynamodb_local` compares them): a request may
//! not mix legacy and expression parameters, each `ComparisonOperator`
//! takes its number and types of values, `Exists` goes with `Value` as the
//! API reference says, `ConditionalOperator` needs two or more conditions.

use serde_json::{Map, Value};
use singletable_core::expr::{AttrKeyCondition, AttrRange, Cmp, Condition, Operand, Path};
use singletable_core::request::{SetOperand, SetValue, UpdateAction};
use singletable_core::value::{AttributeValue, type_name};

use super::Body;
use crate::error::ApiError;
use crate::wire;

/// The legacy parameters, in the order DynamoDB lists them when a request
/// mixes them with expressions.
const LEGACY: &[&str] = &[
    "AttributeUpdates",
    "AttributesToGet",
    "Expected",
    "KeyConditions",
    "QueryFilter",
    "ScanFilter",
];

/// The expression parameters, in the order DynamoDB lists them.
const EXPRESSIONS: &[&str] = &[
    "UpdateExpression",
    "ProjectionExpression",
    "FilterExpression",
    "ConditionExpression",
    "KeyConditionExpression",
];

fn invalid(what: impl std::fmt::Display) -> ApiError {
    ApiError::validation(format!("One or more parameter values were invalid: {what}"))
}

/// Refuses a request that sends legacy and expression parameters
/// together, naming both kinds as DynamoDB does.
pub(crate) fn not_mixed(b: Body<'_>) -> Result<(), ApiError> {
    let present = |names: &[&str]| -> Vec<String> {
        names
            .iter()
            .filter(|n| b.0.get(**n).is_some_and(|v| !v.is_null()))
            .map(|n| (*n).to_owned())
            .collect()
    };
    let (legacy, expressions) = (present(LEGACY), present(EXPRESSIONS));
    if !legacy.is_empty() && !expressions.is_empty() {
        return Err(ApiError::validation(format!(
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
            legacy.join(", "),
            expressions.join(", ")
        )));
    }
    Ok(())
}

fn map<'a>(b: Body<'a>, member: &str) -> Result<Option<&'a Map<String, Value>>, ApiError> {
    Ok(b.obj(member)?.map(|m| m.0))
}

/// One condition's operator and values, checked: how many values the
/// operator takes and of which types.
fn operator(op: &str, values: &[AttributeValue], types: &[&str]) -> Result<(), ApiError> {
    let arity_ok = match op {
        "NULL" | "NOT_NULL" => values.is_empty(),
        "BETWEEN" => values.len() == 2,
        "IN" => !values.is_empty(),
        _ => values.len() == 1,
    };
    if !arity_ok {
        return Err(invalid(format!(
            "Invalid number of argument(s) for the {op} ComparisonOperator"
        )));
    }
    for v in values {
        let t = type_name(v);
        if !types.contains(&t) {
            return Err(invalid(format!(
                "ComparisonOperator {op} is not valid for {t} AttributeValue type"
            )));
        }
    }
    if values
        .windows(2)
        .any(|w| type_name(&w[0]) != type_name(&w[1]))
    {
        return Err(invalid(
            "AttributeValues inside AttributeValueList must be of same type",
        ));
    }
    Ok(())
}

/// The types each operator accepts.
fn types_of(op: &str) -> Result<&'static [&'static str], ApiError> {
    const SCALAR: &[&str] = &["S", "N", "B"];
    const ANY: &[&str] = &["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"];
    Ok(match op {
        "EQ" | "NE" => ANY,
        "LE" | "LT" | "GE" | "GT" | "BETWEEN" | "IN" | "CONTAINS" | "NOT_CONTAINS" => SCALAR,
        "BEGINS_WITH" => &["S", "B"],
        "NULL" | "NOT_NULL" => &[],
        _ => {
            return Err(ApiError::validation(
                "Comparison type does not exist in DynamoDB",
            ));
        }
    })
}

/// Whether `lo` sorts after `hi` (both of one scalar type).
fn greater(lo: &AttributeValue, hi: &AttributeValue) -> bool {
    match (lo, hi) {
        (AttributeValue::S(a), AttributeValue::S(b)) => a > b,
        (AttributeValue::N(a), AttributeValue::N(b)) => {
            a.parse::<f64>().unwrap_or(0.0) > b.parse::<f64>().unwrap_or(0.0)
        }
        (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref() > b.as_ref(),
        _ => false,
    }
}

/// The condition `op` with `values` puts on the top-level attribute
/// `name`: the same value the expression parser builds for the
/// equivalent expression.
fn compare(name: &str, op: &str, values: Vec<AttributeValue>) -> Result<Condition, ApiError> {
    operator(op, &values, types_of(op)?)?;
    let path = || Operand::Path(Path::new(name));
    let mut values = values.into_iter();
    let mut next = || values.next().unwrap_or(AttributeValue::Null(true));
    let cmp = |c: Cmp, v: AttributeValue| Condition::Compare(path(), c, Operand::Value(v));
    Ok(match op {
        "EQ" => cmp(Cmp::Eq, next()),
        "NE" => cmp(Cmp::Ne, next()),
        "LE" => cmp(Cmp::Le, next()),
        "LT" => cmp(Cmp::Lt, next()),
        "GE" => cmp(Cmp::Ge, next()),
        "GT" => cmp(Cmp::Gt, next()),
        "NOT_NULL" => Condition::Exists(name.to_owned()),
        "NULL" => Condition::NotExists(name.to_owned()),
        "CONTAINS" => Condition::Contains(Path::new(name), next()),
        // A missing attribute does not pass NOT_CONTAINS (as DynamoDB
        // answers it), where `NOT contains(a, v)` would be true.
        "NOT_CONTAINS" => Condition::Exists(name.to_owned())
            .and(Condition::Contains(Path::new(name), next()).not()),
        "BEGINS_WITH" => Condition::BeginsWith(Path::new(name), next()),
        "BETWEEN" => {
            let (lo, hi) = (next(), next());
            if greater(&lo, &hi) {
                return Err(ApiError::validation(
                    "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
                ));
            }
            Condition::Between(path(), Operand::Value(lo), Operand::Value(hi))
        }
        _ => Condition::In(path(), values.map(Operand::Value).collect()),
    })
}

/// An entry's `AttributeValueList`.
fn value_list(entry: Body<'_>) -> Result<Option<Vec<AttributeValue>>, ApiError> {
    entry
        .array("AttributeValueList")?
        .map(|l| l.iter().map(wire::value).collect())
        .transpose()
}

/// One `Expected` entry for attribute `name`.
fn expected(name: &str, entry: Body<'_>) -> Result<Condition, ApiError> {
    let value = entry.item_value("Value")?;
    let exists = entry.opt_bool("Exists")?;
    let list = value_list(entry)?;
    if let Some(op) = entry.str("ComparisonOperator")? {
        if exists.is_some() {
            return Err(invalid(format!(
                "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
            )));
        }
        let values = match (value, list) {
            (Some(_), Some(_)) => {
                return Err(invalid(format!(
                    "Value and AttributeValueList cannot be used together for Attribute: {name}"
                )));
            }
            (Some(v), None) => vec![v],
            (None, Some(l)) => l,
            (None, None) if !matches!(op, "NULL" | "NOT_NULL") => {
                return Err(invalid(format!(
                    "Value or AttributeValueList must be used with ComparisonOperator: {op} for Attribute: {name}"
                )));
            }
            (None, None) => Vec::new(),
        };
        return compare(name, op, values);
    }
    match (exists.unwrap_or(true), value) {
        (true, Some(v)) => compare(name, "EQ", vec![v]),
        (true, None) => Err(invalid(format!(
            "Value must be provided when Exists is true for Attribute: {name}"
        ))),
        (false, None) => Ok(Condition::NotExists(name.to_owned())),
        (false, Some(_)) => Err(invalid(format!(
            "Value cannot be used when Exists is false for Attribute: {name}"
        ))),
    }
}

/// One `QueryFilter` or `ScanFilter` entry for attribute `name`.
fn filter_entry(name: &str, entry: Body<'_>) -> Result<Condition, ApiError> {
    let Some(op) = entry.str("ComparisonOperator")? else {
        return Err(ApiError::validation(
            "Comparison type does not exist in DynamoDB",
        ));
    };
    compare(name, op, value_list(entry)?.unwrap_or_default())
}

/// The condition of the legacy member `member` (`Expected`, `QueryFilter`
/// or `ScanFilter`), its entries joined by `ConditionalOperator`; `None`
/// when the member is absent or empty. `keys` are the attributes a
/// `QueryFilter` may not name.
pub(crate) fn condition(
    b: Body<'_>,
    member: &str,
    keys: &[String],
) -> Result<Option<Condition>, ApiError> {
    let entries = map(b, member)?;
    let operator = b.str("ConditionalOperator")?;
    let Some(entries) = entries else {
        if operator.is_some() {
            return Err(ApiError::validation(
                "ConditionalOperator cannot be used without Filter or Expected",
            ));
        }
        return Ok(None);
    };
    if operator.is_some() && entries.len() < 2 {
        return Err(ApiError::validation(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements",
        ));
    }
    let or = match operator {
        None | Some("AND") => false,
        Some("OR") => true,
        Some(other) => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]"
            )));
        }
    };
    let mut out: Option<Condition> = None;
    for (name, entry) in entries {
        let entry = entry.as_object().map(Body).ok_or_else(|| {
            ApiError::serialization(format!("{member} entries must be structures"))
        })?;
        let c = if member == "Expected" {
            expected(name, entry)?
        } else {
            if keys.iter().any(|k| k == name) {
                return Err(ApiError::validation(format!(
                    "{member} can only contain non-primary key attributes: Primary key attribute: {name}"
                )));
            }
            filter_entry(name, entry)?
        };
        out = Some(match out {
            None => c,
            Some(prev) if or => prev.or(c),
            Some(prev) => prev.and(c),
        });
    }
    Ok(out)
}

/// `AttributesToGet` as projection paths (top-level attributes); `None`
/// when absent or empty.
pub(crate) fn attributes_to_get(b: Body<'_>) -> Result<Option<Vec<Path>>, ApiError> {
    let Some(list) = b.array("AttributesToGet")? else {
        return Ok(None);
    };
    let mut names: Vec<&str> = Vec::with_capacity(list.len());
    for v in list {
        let n = v
            .as_str()
            .ok_or_else(|| ApiError::serialization("AttributesToGet must be a list of strings"))?;
        if names.contains(&n) {
            return Err(ApiError::validation(
                "Cannot have two attributes with the same name",
            ));
        }
        names.push(n);
    }
    Ok((!names.is_empty()).then(|| names.into_iter().map(Path::new).collect()))
}

/// DynamoDB's name of a value's type in AttributeUpdates' messages.
fn long_type(v: &AttributeValue) -> &'static str {
    match type_name(v) {
        "S" => "STRING",
        "N" => "NUMBER",
        "B" => "BINARY",
        "BOOL" => "BOOLEAN",
        "NULL" => "NULL",
        "L" => "LIST",
        "M" => "MAP",
        "SS" => "STRING_SET",
        "NS" => "NUMBER_SET",
        "BS" => "BINARY_SET",
        _ => "UNKNOWN",
    }
}

/// `AttributeUpdates` as update actions: `PUT` (the default) sets the
/// attribute, `DELETE` removes it (or, with a set value, those elements),
/// `ADD` adds to a number or a set, or appends to a list. `keys` are the
/// table's key attributes, which may not be updated.
pub(crate) fn attribute_updates(
    b: Body<'_>,
    keys: &[String],
) -> Result<Option<Vec<UpdateAction>>, ApiError> {
    let Some(entries) = map(b, "AttributeUpdates")? else {
        return Ok(None);
    };
    let mut actions = Vec::with_capacity(entries.len());
    for (name, entry) in entries {
        let entry = entry.as_object().map(Body).ok_or_else(|| {
            ApiError::serialization("AttributeUpdates entries must be structures")
        })?;
        let action = entry.str("Action")?.unwrap_or("PUT");
        if !matches!(action, "PUT" | "ADD" | "DELETE") {
            return Err(ApiError::validation(
                "Member must satisfy enum value set: [ADD, DELETE, PUT]",
            ));
        }
        let value = entry.item_value("Value")?;
        if keys.iter().any(|k| k == name) {
            return Err(invalid(format!(
                "Cannot update attribute {name}. This attribute is part of the key"
            )));
        }
        let name = name.clone();
        actions.push(match (action, value) {
            ("DELETE", None) => UpdateAction::Remove(name),
            (_, None) => {
                return Err(invalid(
                    "Only DELETE action is allowed when no attribute value is specified",
                ));
            }
            ("PUT", Some(v)) => UpdateAction::Set(name, SetValue::Value(v)),
            ("DELETE", Some(v)) => match v {
                AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
                    UpdateAction::Delete(name, v)
                }
                other => {
                    return Err(invalid(format!(
                        "DELETE action with value is not supported for the type {}",
                        long_type(&other)
                    )));
                }
            },
            (_, Some(v)) => match v {
                AttributeValue::N(_)
                | AttributeValue::Ss(_)
                | AttributeValue::Ns(_)
                | AttributeValue::Bs(_) => UpdateAction::Add(name, v),
                AttributeValue::L(_) => {
                    // `SET l = list_append(if_not_exists(l, []), v)`.
                    let current = SetOperand::IfNotExists(
                        Path::new(&name),
                        Box::new(SetOperand::Value(AttributeValue::L(Vec::new()))),
                    );
                    let appended =
                        SetOperand::ListAppend(Box::new(current), Box::new(SetOperand::Value(v)));
                    UpdateAction::Set(name, SetValue::Expr(appended))
                }
                other => {
                    return Err(invalid(format!(
                        "ADD action is not supported for the type {}",
                        long_type(&other)
                    )));
                }
            },
        });
    }
    Ok(Some(actions))
}

/// `KeyConditions` as the key condition a `KeyConditionExpression` makes:
/// `EQ` entries are equalities, one `LE`, `LT`, `GE`, `GT`, `BETWEEN` or
/// `BEGINS_WITH` entry the range; the engine checks them against the key
/// schema as it checks an expression's.
pub(crate) fn key_conditions(b: Body<'_>) -> Result<Option<AttrKeyCondition>, ApiError> {
    let Some(entries) = map(b, "KeyConditions")? else {
        return Ok(None);
    };
    let mut out = AttrKeyCondition::default();
    for (name, entry) in entries {
        let entry = entry
            .as_object()
            .map(Body)
            .ok_or_else(|| ApiError::serialization("KeyConditions entries must be structures"))?;
        let Some(op) = entry.str("ComparisonOperator")? else {
            return Err(ApiError::validation(
                "Comparison type does not exist in DynamoDB",
            ));
        };
        let values = value_list(entry)?.unwrap_or_default();
        match op {
            "EQ" | "LE" | "LT" | "GE" | "GT" | "BETWEEN" | "BEGINS_WITH" => {}
            "IN" | "CONTAINS" | "NOT_CONTAINS" => {
                return Err(ApiError::validation(
                    "Attempted conditional constraint is not an indexable operation",
                ));
            }
            "NULL" | "NOT_NULL" => {
                return Err(ApiError::validation(
                    "Only scalar types can be used as Range Key values",
                ));
            }
            _ => {
                types_of(op)?;
                return Err(ApiError::validation("Query key condition not supported"));
            }
        }
        // The same checks of number and types a condition's operator has.
        compare(name, op, values.clone())?;
        let mut values = values.into_iter();
        let mut next = || values.next().unwrap_or(AttributeValue::Null(true));
        let range = match op {
            "EQ" => {
                out.equal.push((name.clone(), next()));
                continue;
            }
            "LE" => AttrRange::Compare(Cmp::Le, next()),
            "LT" => AttrRange::Compare(Cmp::Lt, next()),
            "GE" => AttrRange::Compare(Cmp::Ge, next()),
            "GT" => AttrRange::Compare(Cmp::Gt, next()),
            "BETWEEN" => {
                let lo = next();
                AttrRange::Between(lo, next())
            }
            _ => AttrRange::BeginsWith(next()),
        };
        if out.range.is_some() {
            return Err(ApiError::validation(
                "Conditions can be of length 1 or 2 only",
            ));
        }
        out.range = Some((name.clone(), range));
    }
    Ok(Some(out))
}
