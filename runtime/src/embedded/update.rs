//! Update expressions: checked as DynamoDB checks them before reading the
//! item, then applied to the item (or to its key alone when it does not
//! exist yet).

use std::cmp::Ordering;

use super::error::{Fail, Res};
use super::number::Num;
use super::value::{expression_value, type_name};
use crate::expr::Rendered;
use crate::request::{ReturnValues, SetValue, UpdateAction};
use crate::value::{AttributeValue, Blob, Item};

fn invalid(message: String) -> Fail {
    Fail::validation(format!("Invalid UpdateExpression: {message}"))
}

fn operand_type(operator: &str, v: &AttributeValue) -> Fail {
    invalid(format!(
        "Incorrect operand type for operator or function; operator or function: {operator}, operand type: {}",
        type_name(v)
    ))
}

fn wrong_type() -> Fail {
    Fail::validation("An operand in the update expression has an incorrect data type")
}

fn missing() -> Fail {
    Fail::validation(
        "The provided expression refers to an attribute that does not exist in the item",
    )
}

fn value(v: &AttributeValue) -> Res<AttributeValue> {
    expression_value(v)
}

fn is_set(v: &AttributeValue) -> bool {
    matches!(
        v,
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
    )
}

fn path(a: &UpdateAction) -> &str {
    match a {
        UpdateAction::Set(p, _)
        | UpdateAction::Remove(p)
        | UpdateAction::Add(p, _)
        | UpdateAction::Delete(p, _) => p,
    }
}

/// The actions with normalised values, or the ValidationException DynamoDB
/// answers them with whatever the item.
pub(crate) fn prepare(actions: &[UpdateAction]) -> Res<Vec<UpdateAction>> {
    if actions.is_empty() {
        return Err(invalid("The expression can not be empty;".into()));
    }
    if Rendered::default().update(actions).len() > 4096 {
        return Err(invalid(
            "Expression size has exceeded the maximum allowed size".into(),
        ));
    }
    for (i, a) in actions.iter().enumerate() {
        let p = path(a);
        if let Some(first) = actions[..i].iter().map(path).find(|q| *q == p) {
            return Err(invalid(format!(
                "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [{first}], path two: [{p}]"
            )));
        }
    }
    let mut out = Vec::with_capacity(actions.len());
    for a in actions {
        out.push(match a {
            UpdateAction::Set(p, sv) => {
                let sv = match sv {
                    SetValue::Value(v) => SetValue::Value(value(v)?),
                    SetValue::IfNotExists(v) => SetValue::IfNotExists(value(v)?),
                    SetValue::Append(v) | SetValue::Prepend(v) => {
                        let v = value(v)?;
                        if !matches!(v, AttributeValue::L(_)) {
                            return Err(operand_type("list_append", &v));
                        }
                        if matches!(sv, SetValue::Append(_)) {
                            SetValue::Append(v)
                        } else {
                            SetValue::Prepend(v)
                        }
                    }
                    SetValue::Increment(v) => {
                        let v = value(v)?;
                        if !matches!(v, AttributeValue::N(_)) {
                            return Err(operand_type("+", &v));
                        }
                        SetValue::Increment(v)
                    }
                };
                UpdateAction::Set(p.clone(), sv)
            }
            UpdateAction::Remove(p) => UpdateAction::Remove(p.clone()),
            UpdateAction::Add(p, v) => {
                let v = value(v)?;
                if !matches!(v, AttributeValue::N(_)) && !is_set(&v) {
                    return Err(invalid(format!(
                        "Incorrect operand type for operator or function; operator: ADD, operand type: {}, typeSet: ALLOWED_FOR_ADD_OPERAND",
                        long_type(&v)
                    )));
                }
                UpdateAction::Add(p.clone(), v)
            }
            UpdateAction::Delete(p, v) => {
                let v = value(v)?;
                if !is_set(&v) {
                    return Err(invalid(format!(
                        "Incorrect operand type for operator or function; operator: DELETE, operand type: {}, typeSet: ALLOWED_FOR_DELETE_OPERAND",
                        long_type(&v)
                    )));
                }
                UpdateAction::Delete(p.clone(), v)
            }
        });
    }
    Ok(out)
}

fn long_type(v: &AttributeValue) -> &'static str {
    match v {
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "BINARY",
        AttributeValue::Bool(_) => "BOOLEAN",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "LIST",
        AttributeValue::M(_) => "MAP",
        _ => "SET",
    }
}

fn number(v: &AttributeValue) -> Res<Num> {
    match v {
        AttributeValue::N(n) => Num::parse(n).map_err(|e| Fail::validation(e.message())),
        _ => Err(wrong_type()),
    }
}

fn sum(a: &AttributeValue, b: &AttributeValue) -> Res<AttributeValue> {
    let total = number(a)?
        .add(&number(b)?)
        .check()
        .map_err(|e| Fail::validation(e.message()))?;
    Ok(AttributeValue::N(total.canonical()))
}

/// `a ∪ b` or `a ∖ b` for two sets of one type; `None` when the difference
/// is empty (DynamoDB then removes the attribute).
fn set_op(a: &AttributeValue, b: &AttributeValue, union: bool) -> Res<Option<AttributeValue>> {
    fn merge<T: Clone + PartialEq>(
        a: &[T],
        b: &[T],
        union: bool,
        cmp: impl Fn(&T, &T) -> Ordering,
    ) -> Vec<T> {
        let mut out: Vec<T> = if union {
            let mut v = a.to_vec();
            v.extend(b.iter().filter(|e| !a.contains(e)).cloned());
            v
        } else {
            a.iter().filter(|e| !b.contains(e)).cloned().collect()
        };
        out.sort_by(cmp);
        out
    }
    let result = match (a, b) {
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => {
            let v = merge(a, b, union, |x, y| x.encode_utf16().cmp(y.encode_utf16()));
            (!v.is_empty()).then_some(AttributeValue::Ss(v))
        }
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => {
            let key = |n: &String| Num::parse(n).ok();
            let v = merge(a, b, union, |x, y| key(x).cmp(&key(y)));
            (!v.is_empty()).then_some(AttributeValue::Ns(v))
        }
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => {
            let v: Vec<Blob> = merge(a, b, union, |x, y| x.as_ref().cmp(y.as_ref()));
            (!v.is_empty()).then_some(AttributeValue::Bs(v))
        }
        _ => return Err(wrong_type()),
    };
    Ok(result)
}

/// Whether an action writes one of the key's attributes.
pub(crate) fn touches_key(actions: &[UpdateAction], key: &Item) -> bool {
    actions.iter().any(|a| key.contains_key(path(a)))
}

/// Applies prepared actions to `old` (or to `key` when there is no item);
/// the new item, or the ValidationException an action raises on this item.
pub(crate) fn apply(actions: &[UpdateAction], old: Option<&Item>, key: &Item) -> Res<Item> {
    // DynamoDB Local refuses key attributes only once the condition held.
    if let Some(p) = actions.iter().map(path).find(|p| key.contains_key(*p)) {
        return Err(Fail::validation(format!(
            "One or more parameter values were invalid: Cannot update attribute {p}. This attribute is part of the key"
        )));
    }
    let mut item = old.cloned().unwrap_or_else(|| key.clone());
    for a in actions {
        // Paths never overlap, so reading `item` here reads the old value.
        match a {
            UpdateAction::Set(p, sv) => {
                let current = item.get(p);
                let new = match sv {
                    SetValue::Value(v) => v.clone(),
                    SetValue::IfNotExists(v) => current.cloned().unwrap_or_else(|| v.clone()),
                    SetValue::Append(v) | SetValue::Prepend(v) => {
                        let (Some(AttributeValue::L(cur)), AttributeValue::L(add)) = (current, v)
                        else {
                            return Err(if current.is_none() {
                                missing()
                            } else {
                                wrong_type()
                            });
                        };
                        let mut l = Vec::with_capacity(cur.len() + add.len());
                        if matches!(sv, SetValue::Append(_)) {
                            l.extend(cur.iter().cloned());
                            l.extend(add.iter().cloned());
                        } else {
                            l.extend(add.iter().cloned());
                            l.extend(cur.iter().cloned());
                        }
                        AttributeValue::L(l)
                    }
                    SetValue::Increment(v) => sum(current.ok_or_else(missing)?, v)?,
                };
                item.insert(p.clone(), new);
            }
            UpdateAction::Remove(p) => {
                item.remove(p);
            }
            UpdateAction::Add(p, v) => {
                let new = match (item.get(p), v) {
                    (None, v) => Some(v.clone()),
                    (Some(cur), AttributeValue::N(_)) => Some(sum(cur, v)?),
                    (Some(cur), v) => set_op(cur, v, true)?,
                };
                if let Some(new) = new {
                    item.insert(p.clone(), new);
                }
            }
            UpdateAction::Delete(p, v) => {
                if let Some(cur) = item.get(p) {
                    match set_op(cur, v, false)? {
                        Some(new) => item.insert(p.clone(), new),
                        None => item.remove(p),
                    };
                }
            }
        }
    }
    Ok(item)
}

/// What UpdateItem returns for `rv`; `None` when that is nothing.
pub(crate) fn returned(
    rv: ReturnValues,
    actions: &[UpdateAction],
    old: Option<&Item>,
    new: &Item,
) -> Option<Item> {
    let pick = |from: &Item| -> Item {
        actions
            .iter()
            .map(path)
            .filter_map(|p| from.get(p).map(|v| (p.to_owned(), v.clone())))
            .collect()
    };
    let out = match rv {
        ReturnValues::None => return None,
        ReturnValues::AllOld => old.cloned()?,
        ReturnValues::AllNew => new.clone(),
        ReturnValues::UpdatedOld => pick(old?),
        ReturnValues::UpdatedNew => pick(new),
    };
    (!out.is_empty()).then_some(out)
}
