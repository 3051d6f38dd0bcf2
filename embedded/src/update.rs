//! Update expressions: checked as DynamoDB checks them before reading the
//! item, then applied to the item (or to its key alone when it does not
//! exist yet).

use std::cmp::Ordering;

use super::error::{Fail, Res};
use super::number::Num;
use super::path;
use super::value::{expression_value, type_name};
use crate::value::{AttributeValue, Blob, Item};
use singletable_core::expr::{PathRef, Rendered};
use singletable_core::request::{ActionKind, ReturnValues, SetOperand, SetValue, UpdateAction};

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

/// The position of an action's clause in the expression text, which
/// renders `SET`, `REMOVE`, `ADD`, `DELETE` in that order.
fn clause(a: &UpdateAction) -> u8 {
    match a.kind() {
        ActionKind::Set(_) => 0,
        ActionKind::Remove => 1,
        ActionKind::Add(_) => 2,
        ActionKind::Delete(_) => 3,
    }
}

/// The actions with normalised values, or the ValidationException DynamoDB
/// answers them with whatever the item.
pub(crate) fn prepare(actions: &[UpdateAction]) -> Res<Vec<UpdateAction>> {
    if actions.is_empty() {
        return Err(invalid("The expression can not be empty;".into()));
    }
    let mut r = Rendered::default();
    if r.update(actions).len() > 4096 {
        return Err(invalid(
            "Expression size has exceeded the maximum allowed size".into(),
        ));
    }
    path::names(&r)?;
    for a in actions {
        path::syntax(a.path()).map_err(invalid)?;
    }
    // Paths as the expression text lists them.
    let mut listed: Vec<&UpdateAction> = actions.iter().collect();
    listed.sort_by_key(|a| clause(a));
    let paths: Vec<_> = listed.iter().map(|a| a.path()).collect();
    path::no_clash(&paths).map_err(invalid)?;
    let mut out = Vec::with_capacity(actions.len());
    for a in actions {
        let p = a.path().to_path();
        out.push(match a.kind() {
            ActionKind::Set(sv) => {
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
                    SetValue::Expr(o) => SetValue::Expr(prepare_operand(o)?),
                };
                UpdateAction::set(p, sv)
            }
            ActionKind::Remove => UpdateAction::remove(p),
            ActionKind::Add(v) => {
                let v = value(v)?;
                if !matches!(v, AttributeValue::N(_)) && !is_set(&v) {
                    return Err(invalid(format!(
                        "Incorrect operand type for operator or function; operator: ADD, operand type: {}, typeSet: ALLOWED_FOR_ADD_OPERAND",
                        long_type(&v)
                    )));
                }
                UpdateAction::add(p, v)
            }
            ActionKind::Delete(v) => {
                let v = value(v)?;
                if !is_set(&v) {
                    return Err(invalid(format!(
                        "Incorrect operand type for operator or function; operator: DELETE, operand type: {}, typeSet: ALLOWED_FOR_DELETE_OPERAND",
                        long_type(&v)
                    )));
                }
                UpdateAction::delete(p, v)
            }
        });
    }
    Ok(out)
}

/// A general `SET` operand with normalised values; a value of a type its
/// function or operator cannot take is refused before any item is read.
fn prepare_operand(o: &SetOperand) -> Res<SetOperand> {
    let boxed = |o: &SetOperand| prepare_operand(o).map(Box::new);
    let typed = |o: &SetOperand, function: &str, list: bool| -> Res<Box<SetOperand>> {
        let o = boxed(o)?;
        if let SetOperand::Value(v) = &*o {
            let fits = if list {
                matches!(v, AttributeValue::L(_))
            } else {
                matches!(v, AttributeValue::N(_))
            };
            if !fits {
                return Err(operand_type(function, v));
            }
        }
        Ok(o)
    };
    Ok(match o {
        SetOperand::Value(v) => SetOperand::Value(value(v)?),
        SetOperand::Path(p) => {
            path::syntax(p.as_ref()).map_err(invalid)?;
            SetOperand::Path(p.clone())
        }
        SetOperand::IfNotExists(p, x) => {
            path::syntax(p.as_ref()).map_err(invalid)?;
            SetOperand::IfNotExists(p.clone(), boxed(x)?)
        }
        SetOperand::ListAppend(a, b) => SetOperand::ListAppend(
            typed(a, "list_append", true)?,
            typed(b, "list_append", true)?,
        ),
        SetOperand::Plus(a, b) => SetOperand::Plus(typed(a, "+", false)?, typed(b, "+", false)?),
        SetOperand::Minus(a, b) => SetOperand::Minus(typed(a, "-", false)?, typed(b, "-", false)?),
    })
}

/// The value of a general `SET` operand on the item before the update.
fn evaluate(o: &SetOperand, item: &Item) -> Res<AttributeValue> {
    Ok(match o {
        SetOperand::Value(v) => v.clone(),
        SetOperand::Path(p) => path::get(item, p.as_ref()).cloned().ok_or_else(missing)?,
        // The fallback is evaluated (and must resolve) whether or not the
        // attribute exists, as DynamoDB Local does.
        SetOperand::IfNotExists(p, x) => {
            let fallback = evaluate(x, item)?;
            path::get(item, p.as_ref()).cloned().unwrap_or(fallback)
        }
        SetOperand::ListAppend(a, b) => match (evaluate(a, item)?, evaluate(b, item)?) {
            (AttributeValue::L(mut a), AttributeValue::L(b)) => {
                a.extend(b);
                AttributeValue::L(a)
            }
            _ => return Err(wrong_type()),
        },
        SetOperand::Plus(a, b) => sum(&evaluate(a, item)?, &evaluate(b, item)?)?,
        SetOperand::Minus(a, b) => {
            let a = evaluate(a, item)?;
            let negated = number(&evaluate(b, item)?)?.negated();
            sum(&a, &AttributeValue::N(negated.canonical()))?
        }
    })
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
    actions.iter().any(|a| key.contains_key(a.path().attribute))
}

/// What one `SET`, `ADD` or `DELETE` does to its path, worked out from the
/// item before the update.
enum Write {
    /// Store this value.
    Put(AttributeValue),
    /// Remove the path (a `DELETE` that emptied a set).
    Drop,
    /// Nothing, but the path must be one an update may write.
    Check,
}

/// Applies prepared actions to `old` (or to `key` when there is no item);
/// the new item, or the ValidationException an action raises on this item.
///
/// As DynamoDB does: every value is read from the item before the update
/// (a missing operand fails first), then the writes are applied (list
/// indexes past the end append, in index order), then the removals, each
/// list index naming the element it named before the update.
pub(crate) fn apply(actions: &[UpdateAction], old: Option<&Item>, key: &Item) -> Res<Item> {
    // DynamoDB Local refuses key attributes only once the condition held.
    if let Some(p) = actions
        .iter()
        .map(|a| a.path().attribute)
        .find(|p| key.contains_key(*p))
    {
        return Err(Fail::validation(format!(
            "One or more parameter values were invalid: Cannot update attribute {p}. This attribute is part of the key"
        )));
    }
    let mut item = old.cloned().unwrap_or_else(|| key.clone());
    // DynamoDB Local resolves a plain copy of another attribute (`SET a =
    // b`) first, then refuses a path whose parent is missing or of another
    // type, before it reads any other operand.
    for a in actions {
        if let ActionKind::Set(SetValue::Expr(SetOperand::Path(from))) = a.kind()
            && path::get(&item, from.as_ref()).is_none()
        {
            return Err(missing());
        }
    }
    for a in actions {
        path::writable(&mut item, a.path())?;
    }
    // DynamoDB Local's order over the whole expression: a list_append
    // operand that is not a list, then an operand that is missing, then
    // the actions in order (where an arithmetic operand of the wrong type
    // fails).
    let operand = |a: &UpdateAction| match a.kind() {
        ActionKind::Set(
            sv @ (SetValue::Append(_) | SetValue::Prepend(_) | SetValue::Increment(_)),
        ) => Some((
            !matches!(sv, SetValue::Increment(_)),
            path::get(&item, a.path()),
        )),
        _ => None,
    };
    let operands: Vec<_> = actions.iter().filter_map(operand).collect();
    if operands
        .iter()
        .any(|(list, v)| *list && v.is_some_and(|v| !matches!(v, AttributeValue::L(_))))
    {
        return Err(wrong_type());
    }
    if operands.iter().any(|(_, v)| v.is_none()) {
        return Err(missing());
    }
    let mut writes: Vec<(PathRef<'_>, Write)> = Vec::with_capacity(actions.len());
    let mut removes: Vec<PathRef<'_>> = Vec::new();
    for a in actions {
        let p = a.path();
        let current = path::get(&item, p);
        let write = match a.kind() {
            ActionKind::Set(sv) => Write::Put(match sv {
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
                SetValue::Expr(o) => evaluate(o, &item)?,
            }),
            // What is not there is not removed: an index past the end
            // names nothing, whatever the writes append there. Its parent
            // must still exist.
            ActionKind::Remove if current.is_none() => Write::Check,
            ActionKind::Remove => {
                removes.push(p);
                continue;
            }
            ActionKind::Add(v) => match (current, v) {
                (None, v) => Write::Put(v.clone()),
                (Some(cur), AttributeValue::N(_)) => Write::Put(sum(cur, v)?),
                (Some(cur), v) => match set_op(cur, v, true)? {
                    Some(new) => Write::Put(new),
                    None => Write::Check,
                },
            },
            ActionKind::Delete(v) => match current {
                Some(cur) => match set_op(cur, v, false)? {
                    Some(new) => Write::Put(new),
                    None => Write::Drop,
                },
                None => Write::Check,
            },
        };
        writes.push((p, write));
    }
    writes.sort_by(|(a, _), (b, _)| path::order(*a, *b));
    for (p, write) in writes {
        match write {
            Write::Put(v) => path::set(&mut item, p, v)?,
            Write::Drop => {
                path::writable(&mut item, p)?;
                removes.push(p);
            }
            Write::Check => path::writable(&mut item, p)?,
        }
    }
    removes.sort_by(|a, b| path::order(*b, *a));
    for p in removes {
        path::remove(&mut item, p)?;
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
    let pick = |from: &Item| path::pick(from, actions.iter().map(UpdateAction::path));
    let out = match rv {
        ReturnValues::None => return None,
        ReturnValues::AllOld => old.cloned()?,
        ReturnValues::AllNew => new.clone(),
        ReturnValues::UpdatedOld => pick(old?),
        ReturnValues::UpdatedNew => pick(new),
    };
    (!out.is_empty()).then_some(out)
}
