//! TransactWriteItems, decided in the order DynamoDB documents: the
//! request is validated before any condition is evaluated.
//!
//! 1. Every expression and every value of every operation is checked: a
//!    malformed one fails the request (ValidationException).
//! 2. The idempotency token: a token seen in the last ten minutes with the
//!    same request answers success without writing again; with another
//!    request, IdempotentParameterMismatchException. Only successful
//!    transactions record their token.
//! 3. Two operations on one item fail the request ("Transaction request
//!    cannot include multiple operations on one item": "no two actions can
//!    target the same item", API reference, TransactWriteItems), whatever
//!    their conditions. DynamoDB Local refuses them only when both pass
//!    their conditions, and evaluates the second against the first's write.
//! 4. Operation by operation, against the table as the request found it:
//!    - a malformed key or item fails the request, a key attribute of the
//!      wrong type gives the operation a `ValidationError` reason, and so
//!      does a put whose index key attributes have the wrong type;
//!    - a condition that does not hold gives a `ConditionalCheckFailed`
//!      reason;
//!    - an update of a key attribute cancels the transaction with that one
//!      `ValidationError` reason; an update that cannot apply fails the
//!      request; one that leaves an index key of the wrong type gets a
//!      `ValidationError` reason.
//! 5. Any reason other than `None` cancels everything. Otherwise every
//!    write applies at once.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use super::check;
use super::cond;
use super::error::{Fail, Res};
use super::meter::WriteUnits;
use super::schema::TableSchema;
use super::update;
use super::value::{AttributeValue, item_size, normalize_map};
use super::write::{check_updated, condition, current, holds, on_failure, write_units};
use crate::error::CancellationReason;
use crate::store::{Store, Token};
use crate::value::Item;
use singletable_core::expr::Condition;
use singletable_core::request::{TransactWrite, TransactWriteOp, UpdateAction};

/// How long DynamoDB remembers a transaction's idempotency token.
const TOKEN_LIFETIME: Duration = Duration::from_secs(600);
/// TransactWriteItems' limit on the request.
const TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

enum Kind<'a> {
    /// The item as sent.
    Put(&'a Item),
    /// The key as sent, the checked actions.
    Update(&'a Item, Vec<UpdateAction>),
    Delete(&'a Item),
    Check(&'a Item),
}

/// An operation whose expressions are checked.
struct Op<'a> {
    table: &'a str,
    kind: Kind<'a>,
    cond: Option<Condition>,
    return_on_failure: bool,
}

fn expressions(op: &TransactWriteOp) -> Res<Op<'_>> {
    Ok(match op {
        TransactWriteOp::Put(p) => Op {
            table: &p.table,
            kind: Kind::Put({
                normalize_map(&p.item)?;
                &p.item
            }),
            cond: condition(p.condition.as_ref())?,
            return_on_failure: p.return_on_condition_failure,
        },
        TransactWriteOp::Update(u) => Op {
            table: &u.table,
            kind: Kind::Update(&u.key, update::prepare(&u.actions)?),
            cond: condition(u.condition.as_ref())?,
            return_on_failure: u.return_on_condition_failure,
        },
        TransactWriteOp::Delete(d) => Op {
            table: &d.table,
            kind: Kind::Delete(&d.key),
            cond: condition(d.condition.as_ref())?,
            return_on_failure: d.return_on_condition_failure,
        },
        TransactWriteOp::ConditionCheck(c) => Op {
            table: &c.table,
            kind: Kind::Check(&c.key),
            cond: Some(cond::prepare(&c.condition, "ConditionExpression")?),
            return_on_failure: c.return_on_condition_failure,
        },
    })
}

fn reason(
    index: usize,
    code: &str,
    message: Option<&str>,
    item: Option<Item>,
) -> CancellationReason {
    CancellationReason {
        index,
        code: code.to_owned(),
        message: message.map(str::to_owned),
        item,
    }
}

/// The fingerprint of a request's canonical form, so that a retry built
/// again (its items' maps filled in another order, its sets listed in
/// another order) matches: items and keys are written with their
/// attributes sorted by name, maps and sets sorted, recursively; the rest
/// of each operation as it debugs.
fn fingerprint(req: &TransactWrite) -> u64 {
    fn value(v: &AttributeValue, out: &mut String) {
        match v {
            AttributeValue::M(m) => item(m, out),
            AttributeValue::L(l) => {
                out.push('[');
                for x in l {
                    value(x, out);
                    out.push(',');
                }
                out.push(']');
            }
            AttributeValue::Ss(s) | AttributeValue::Ns(s) => {
                let mut s: Vec<&String> = s.iter().collect();
                s.sort();
                out.push_str(&format!("set{s:?}"));
            }
            AttributeValue::Bs(s) => {
                let mut s: Vec<&[u8]> = s.iter().map(|b| b.as_ref()).collect();
                s.sort();
                out.push_str(&format!("bset{s:?}"));
            }
            other => out.push_str(&format!("{other:?}")),
        }
    }
    fn item(m: &std::collections::HashMap<String, AttributeValue>, out: &mut String) {
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort();
        out.push('{');
        for k in keys {
            out.push_str(&format!("{k:?}:"));
            value(&m[k], out);
            out.push(',');
        }
        out.push('}');
    }
    let mut text = String::new();
    for op in &req.ops {
        match op {
            TransactWriteOp::Put(p) => {
                text.push_str(&format!("put {:?} ", p.table));
                item(&p.item, &mut text);
                text.push_str(&format!(
                    " {:?} {} {}",
                    p.condition, p.return_old, p.return_on_condition_failure
                ));
            }
            TransactWriteOp::Delete(d) => {
                text.push_str(&format!("delete {:?} ", d.table));
                item(&d.key, &mut text);
                text.push_str(&format!(
                    " {:?} {} {}",
                    d.condition, d.return_old, d.return_on_condition_failure
                ));
            }
            TransactWriteOp::ConditionCheck(c) => {
                text.push_str(&format!("check {:?} ", c.table));
                item(&c.key, &mut text);
                text.push_str(&format!(
                    " {:?} {}",
                    c.condition, c.return_on_condition_failure
                ));
            }
            TransactWriteOp::Update(u) => {
                text.push_str(&format!("update {:?} ", u.table));
                item(&u.key, &mut text);
                text.push_str(&format!(
                    " {:?} {:?} {:?} {}",
                    u.actions, u.condition, u.return_values, u.return_on_condition_failure
                ));
            }
        }
        text.push(';');
    }
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The checked key of an operation, or the message of its
/// `ValidationError` reason when a key attribute has the wrong type.
fn key(schema: &TableSchema, key: &Item) -> Res<Result<Item, &'static str>> {
    match check::shape(schema, key) {
        Err(m) if m.contains("Type mismatch") => Ok(Err(m)),
        _ => Ok(Ok(check::key(schema, key)?.into_owned())),
    }
}

/// A put's checked item (and its key), or its reason's message.
fn put(schema: &TableSchema, raw: &Item) -> Res<Result<(Item, Item), String>> {
    let key: Item = schema
        .table_keys()
        .filter_map(|k| raw.get(&k.name).map(|v| (k.name.clone(), v.clone())))
        .collect();
    if key.len() != schema.table_keys().count() {
        return Err(Fail::validation(
            "One of the required keys was not given a value",
        ));
    }
    if let Err(m) = check::shape(schema, &key)
        && m.contains("Type mismatch")
    {
        normalize_map(raw)?;
        return Ok(Err(m.to_owned()));
    }
    // Key values, then index key types, come before the other checks of
    // the item.
    check::key(schema, &key)?;
    match check::index_types(schema, &normalize_map(raw)?) {
        Ok(()) => {}
        Err(Fail::OpValidation(m)) => return Ok(Err(m)),
        Err(e) => return Err(e),
    }
    let item = check::item(schema, raw.clone())?;
    let key = schema
        .table_keys()
        .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
        .collect();
    Ok(Ok((item, key)))
}

/// A write staged by a passing operation.
struct Staged<'a> {
    table: &'a str,
    pos: Vec<u8>,
    new: Option<Item>,
    old: Option<Item>,
    /// False for a condition check, which only claims the item.
    write: bool,
}

pub(crate) fn transact_write(store: &mut Store, req: &TransactWrite) -> Res<()> {
    if req.ops.is_empty() || req.ops.len() > 100 {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100 and greater than or equal to 1",
        ));
    }
    if let Some(token) = &req.token
        && (token.is_empty() || token.len() > 36)
    {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36",
        ));
    }
    let ops = req.ops.iter().map(expressions).collect::<Res<Vec<_>>>()?;

    let now = Instant::now();
    store
        .tokens
        .retain(|_, t| now.duration_since(t.at) < TOKEN_LIFETIME);
    let print = fingerprint(req);
    if let Some(token) = &req.token
        && let Some(seen) = store.tokens.get(token)
    {
        return if seen.fingerprint == print {
            Ok(())
        } else {
            Err(Fail::code(
                "IdempotentParameterMismatchException",
                "The request uses the same client token as a previous, but non-identical request.",
            ))
        };
    }

    // No two operations may name one item: DynamoDB refuses such a request
    // before any condition is evaluated, whatever the conditions would say.
    // A key or item that fails the request keeps its place in the order of
    // the operations (it is reported when its operation's turn comes).
    let mut checked = Vec::with_capacity(ops.len());
    let mut claimed = HashSet::with_capacity(ops.len());
    let mut bytes = 0;
    for op in &ops {
        let one = store.table(op.table).and_then(|t| {
            let one = match &op.kind {
                Kind::Put(raw) => put(&t.schema, raw)?.map(|(item, key)| (key, Some(item))),
                Kind::Update(raw, _) | Kind::Delete(raw) | Kind::Check(raw) => key(&t.schema, raw)?
                    .map(|k| (k, None))
                    .map_err(str::to_owned),
            };
            Ok(one.map(|(key, item)| {
                let pos = t.position(&key);
                (key, item, pos)
            }))
        });
        if let Ok(Ok((key, item, pos))) = &one {
            bytes += item.as_ref().map_or_else(|| item_size(key), item_size);
            if !claimed.insert((op.table, pos.clone())) {
                return Err(Fail::validation(
                    "Transaction request cannot include multiple operations on one item",
                ));
            }
        }
        checked.push(one);
    }

    let mut reasons = Vec::with_capacity(ops.len());
    let mut staged: Vec<Staged<'_>> = Vec::new();
    let mut cancelled = false;
    for (i, (op, one)) in ops.iter().zip(checked).enumerate() {
        let (key, item, pos) = match one? {
            Ok(k) => k,
            Err(message) => {
                reasons.push(reason(i, "ValidationError", Some(&message), None));
                cancelled = true;
                continue;
            }
        };
        let t = store.table(op.table)?;
        let old = current(t, &pos)?;
        if !holds(op.cond.as_ref(), old.as_ref()) {
            let message = if matches!(op.kind, Kind::Check(_)) {
                "The conditional request failed."
            } else {
                "The conditional request failed"
            };
            let item = on_failure(op.return_on_failure, old);
            reasons.push(reason(i, "ConditionalCheckFailed", Some(message), item));
            cancelled = true;
            continue;
        }
        if let Kind::Update(_, actions) = &op.kind
            && update::touches_key(actions, &key)
        {
            return Err(Fail::Canceled(vec![reason(
                0,
                "ValidationError",
                Some(
                    "One or more parameter values were invalid: Cannot update attribute of the key",
                ),
                None,
            )]));
        }
        let (new, write) = match &op.kind {
            Kind::Put(_) => (item, true),
            Kind::Delete(_) => (None, true),
            Kind::Check(_) => (None, false),
            Kind::Update(_, actions) => {
                let new = update::apply(actions, old.as_ref(), &key)?;
                match check_updated(t, &new) {
                    Ok(()) => (Some(new), true),
                    Err(Fail::OpValidation(message)) => {
                        reasons.push(reason(i, "ValidationError", Some(&message), None));
                        cancelled = true;
                        continue;
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        reasons.push(reason(i, "None", None, None));
        staged.push(Staged {
            table: op.table,
            pos,
            new,
            old,
            write,
        });
    }
    if bytes > TRANSACTION_BYTES {
        return Err(Fail::validation(
            "Transaction request size has exceeded the maximum allowed size",
        ));
    }
    if cancelled {
        return Err(Fail::Canceled(reasons));
    }
    for w in staged {
        let t = store.table_mut(w.table)?;
        if !w.write {
            // A condition check costs a write of the item it reads.
            let table = write_units(w.old.as_ref(), None);
            t.capacity.write(
                &WriteUnits {
                    table,
                    indexes: Vec::new(),
                },
                2,
            );
            continue;
        }
        let table = write_units(w.old.as_ref(), w.new.as_ref());
        let indexes = if w.new.is_some() || w.old.is_some() {
            t.write(w.pos, w.new.as_ref(), w.old.as_ref())
        } else {
            Vec::new()
        };
        t.capacity.write(&WriteUnits { table, indexes }, 2);
    }
    if let Some(token) = &req.token {
        store.tokens.insert(
            token.clone(),
            Token {
                fingerprint: print,
                at: now,
            },
        );
    }
    Ok(())
}
