//! Writes: PutItem, DeleteItem, UpdateItem, BatchWriteItem,
//! TransactWriteItems.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use super::check::{self, MAX_ITEM};
use super::codec::decode_item;
use super::cond;
use super::error::{Fail, Res};
use super::table::TableData;
use super::update;
use super::value::item_size;
use super::{Store, Token};
use crate::error::CancellationReason;
use crate::expr::Condition;
use crate::request::{
    BatchOp, BatchWrite, DeleteItem, PutItem, TransactWrite, TransactWriteOp, UpdateAction,
    UpdateItem,
};
use crate::value::Item;

/// How long DynamoDB remembers a transaction's idempotency token.
const TOKEN_LIFETIME: Duration = Duration::from_secs(600);
/// TransactWriteItems' limit on the request.
const TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
/// BatchWriteItem's limit on the request.
const BATCH_BYTES: usize = 16 * 1024 * 1024;

/// Write units: 1 KB units of the larger of the old and new item, rounded up.
fn write_units(old: Option<&Item>, new: Option<&Item>) -> u64 {
    let size = old.map_or(0, item_size).max(new.map_or(0, item_size));
    size.div_ceil(1024).max(1) as u64
}

fn condition(c: Option<&Condition>) -> Res<Option<Condition>> {
    c.map(|c| cond::prepare(c, "ConditionExpression"))
        .transpose()
}

fn current(t: &TableData, pos: &[u8]) -> Res<Option<Item>> {
    t.items.get(pos).map(|b| decode_item(b)).transpose()
}

fn holds(c: Option<&Condition>, item: Option<&Item>) -> bool {
    c.is_none_or(|c| cond::eval(c, item))
}

/// The item a failed condition reports, when the request asked for it.
fn on_failure(asked: bool, item: Option<Item>) -> Option<Item> {
    if asked { item } else { None }
}

/// Checks applied to an updated item before it is stored.
fn check_updated(t: &TableData, item: &Item) -> Res<()> {
    check::index_values(&t.schema, item)?;
    if item_size(item) > MAX_ITEM {
        return Err(Fail::validation(
            "Item size to update has exceeded the maximum allowed size",
        ));
    }
    check::index_types(&t.schema, item)
}

pub(crate) fn put_item(store: &mut Store, req: &PutItem) -> Res<Option<Item>> {
    let t = store.table_mut(&req.table)?;
    let item = check::item(&t.schema, &req.item)?;
    let cond = condition(req.condition.as_ref())?;
    check::index_types(&t.schema, &item)?;
    let pos = t.position(&item);
    let old = current(t, &pos)?;
    t.capacity.write(write_units(old.as_ref(), Some(&item)));
    if !holds(cond.as_ref(), old.as_ref()) {
        return Err(Fail::Condition(on_failure(
            req.return_on_condition_failure,
            old,
        )));
    }
    t.write(pos, Some(&item), old.as_ref());
    Ok(if req.return_old { old } else { None })
}

pub(crate) fn delete_item(store: &mut Store, req: &DeleteItem) -> Res<Option<Item>> {
    let t = store.table_mut(&req.table)?;
    let key = check::key(&t.schema, &req.key)?;
    let cond = condition(req.condition.as_ref())?;
    let pos = t.position(&key);
    let old = current(t, &pos)?;
    t.capacity.write(write_units(old.as_ref(), None));
    if !holds(cond.as_ref(), old.as_ref()) {
        return Err(Fail::Condition(on_failure(
            req.return_on_condition_failure,
            old,
        )));
    }
    if old.is_some() {
        t.write(pos, None, old.as_ref());
    }
    Ok(if req.return_old { old } else { None })
}

pub(crate) fn update_item(store: &mut Store, req: &UpdateItem) -> Res<Option<Item>> {
    let t = store.table_mut(&req.table)?;
    let key = check::key(&t.schema, &req.key)?;
    let actions = update::prepare(&req.actions, &t.schema)?;
    let cond = condition(req.condition.as_ref())?;
    let pos = t.position(&key);
    let old = current(t, &pos)?;
    if !holds(cond.as_ref(), old.as_ref()) {
        t.capacity.write(write_units(old.as_ref(), None));
        return Err(Fail::Condition(on_failure(
            req.return_on_condition_failure,
            old,
        )));
    }
    let new = update::apply(&actions, old.as_ref(), &key)?;
    check_updated(t, &new)?;
    t.capacity.write(write_units(old.as_ref(), Some(&new)));
    let out = update::returned(req.return_values, &actions, old.as_ref(), &new);
    t.write(pos, Some(&new), old.as_ref());
    Ok(out)
}

pub(crate) fn batch_write(store: &mut Store, req: &BatchWrite) -> Res<Vec<BatchOp>> {
    if req.ops.is_empty() {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
        ));
    }
    if req.ops.len() > 25 {
        return Err(Fail::validation(
            "Too many items requested for the BatchWriteItem call",
        ));
    }
    let t = store.table_mut(&req.table)?;
    let mut writes = Vec::with_capacity(req.ops.len());
    let mut seen = HashSet::with_capacity(req.ops.len());
    let mut bytes = 0;
    for op in &req.ops {
        let (pos, item) = match op {
            BatchOp::Put(item) => {
                let item = check::item(&t.schema, item)?;
                check::index_types(&t.schema, &item)?;
                bytes += item_size(&item);
                (t.position(&item), Some(item))
            }
            BatchOp::Delete(key) => {
                let key = check::key(&t.schema, key)?;
                bytes += item_size(&key);
                (t.position(&key), None)
            }
        };
        if !seen.insert(pos.clone()) {
            return Err(Fail::validation(
                "Provided list of item keys contains duplicates",
            ));
        }
        writes.push((pos, item));
    }
    if bytes > BATCH_BYTES {
        return Err(Fail::validation(
            "Item size has exceeded the maximum allowed size for BatchWriteItem",
        ));
    }
    for (pos, item) in writes {
        let old = current(t, &pos)?;
        t.capacity.write(write_units(old.as_ref(), item.as_ref()));
        if item.is_some() || old.is_some() {
            t.write(pos, item.as_ref(), old.as_ref());
        }
    }
    Ok(Vec::new())
}

/// One operation of a transaction, checked.
struct Prepared<'a> {
    table: &'a str,
    key: Item,
    /// The item to put, for a Put.
    item: Option<Item>,
    actions: Option<Vec<UpdateAction>>,
    cond: Option<Condition>,
    delete: bool,
    return_on_failure: bool,
}

fn prepare<'a>(store: &Store, op: &'a TransactWriteOp) -> Res<(Prepared<'a>, usize)> {
    let table = match op {
        TransactWriteOp::Put(p) => &p.table,
        TransactWriteOp::Delete(d) => &d.table,
        TransactWriteOp::ConditionCheck(c) => &c.table,
        TransactWriteOp::Update(u) => &u.table,
    };
    let t = store.table(table)?;
    let schema = &t.schema;
    let mut p = Prepared {
        table,
        key: Item::new(),
        item: None,
        actions: None,
        cond: None,
        delete: false,
        return_on_failure: false,
    };
    let size = match op {
        TransactWriteOp::Put(put) => {
            let item = check::item(schema, &put.item)?;
            p.key = schema
                .table_keys()
                .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
                .collect();
            p.cond = condition(put.condition.as_ref())?;
            p.return_on_failure = put.return_on_condition_failure;
            let size = item_size(&item);
            p.item = Some(item);
            size
        }
        TransactWriteOp::Delete(d) => {
            p.key = check::key(schema, &d.key)?;
            p.cond = condition(d.condition.as_ref())?;
            p.delete = true;
            p.return_on_failure = d.return_on_condition_failure;
            item_size(&p.key)
        }
        TransactWriteOp::ConditionCheck(c) => {
            p.key = check::key(schema, &c.key)?;
            p.cond = Some(cond::prepare(&c.condition, "ConditionExpression")?);
            p.return_on_failure = c.return_on_condition_failure;
            item_size(&p.key)
        }
        TransactWriteOp::Update(u) => {
            p.key = check::key(schema, &u.key)?;
            p.actions = Some(update::prepare(&u.actions, schema)?);
            p.cond = condition(u.condition.as_ref())?;
            p.return_on_failure = u.return_on_condition_failure;
            item_size(&p.key)
        }
    };
    Ok((p, size))
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

fn fingerprint(req: &TransactWrite) -> u64 {
    let mut h = DefaultHasher::new();
    format!("{:?}", req.ops).hash(&mut h);
    h.finish()
}

/// TransactWriteItems, in the order DynamoDB Local decides it: every
/// operation is checked first (a malformed one fails the whole request);
/// then, operation by operation against the state before the
/// transaction, a put whose index keys have the wrong type gets a
/// `ValidationError` reason, a failed condition a `ConditionalCheckFailed`
/// reason; an operation that passes on an item an earlier passing
/// operation already touched fails the request ("multiple operations on
/// one item"), and an update that cannot apply fails it too. Any reason
/// other than `None` cancels everything; otherwise all writes apply at once.
pub(crate) fn transact_write(store: &mut Store, req: &TransactWrite) -> Res<()> {
    if req.ops.is_empty() || req.ops.len() > 100 {
        return Err(Fail::validation(format!(
            "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length {} 100",
            if req.ops.is_empty() {
                "greater than or equal to 1, and less than or equal to"
            } else {
                "less than or equal to"
            }
        )));
    }
    if let Some(token) = &req.token
        && (token.is_empty() || token.len() > 36)
    {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36",
        ));
    }
    let mut prepared = Vec::with_capacity(req.ops.len());
    let mut bytes = 0;
    for op in &req.ops {
        let (p, size) = prepare(store, op)?;
        bytes += size;
        prepared.push(p);
    }
    if bytes > TRANSACTION_BYTES {
        return Err(Fail::validation(
            "Transaction request size has exceeded the maximum allowed size",
        ));
    }
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

    let mut reasons = Vec::with_capacity(prepared.len());
    let mut passed: HashSet<(&str, Vec<u8>)> = HashSet::with_capacity(prepared.len());
    let mut writes: Vec<(&str, Vec<u8>, Option<Item>, Option<Item>)> = Vec::new();
    let mut cancelled = false;
    for (i, p) in prepared.iter().enumerate() {
        let t = store.table(p.table)?;
        if let Some(item) = &p.item
            && let Err(Fail::IndexKeyType(message)) = check::index_types(&t.schema, item)
        {
            reasons.push(reason(i, "ValidationError", Some(&message), None));
            cancelled = true;
            continue;
        }
        let pos = t.position(&p.key);
        let old = current(t, &pos)?;
        if !holds(p.cond.as_ref(), old.as_ref()) {
            let message = if p.actions.is_some() || p.item.is_some() || p.delete {
                "The conditional request failed"
            } else {
                "The conditional request failed."
            };
            let item = on_failure(p.return_on_failure, old);
            reasons.push(reason(i, "ConditionalCheckFailed", Some(message), item));
            cancelled = true;
            continue;
        }
        if !passed.insert((p.table, pos.clone())) {
            return Err(Fail::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        let new = if let Some(actions) = &p.actions {
            let new = update::apply(actions, old.as_ref(), &p.key)?;
            if let Err(e) = check_updated(t, &new) {
                match e {
                    Fail::IndexKeyType(message) => {
                        reasons.push(reason(i, "ValidationError", Some(&message), None));
                        cancelled = true;
                        continue;
                    }
                    other => return Err(other),
                }
            }
            Some(new)
        } else if p.delete {
            None
        } else if let Some(item) = &p.item {
            Some(item.clone())
        } else {
            // A condition check writes nothing.
            reasons.push(reason(i, "None", None, None));
            let units = write_units(old.as_ref(), None);
            t.capacity.write(2 * units);
            continue;
        };
        t.capacity
            .write(2 * write_units(old.as_ref(), new.as_ref()));
        reasons.push(reason(i, "None", None, None));
        writes.push((p.table, pos, new, old));
    }
    if cancelled {
        return Err(Fail::Canceled(reasons));
    }
    for (table, pos, new, old) in writes {
        let t = store.table_mut(table)?;
        if new.is_some() || old.is_some() {
            t.write(pos, new.as_ref(), old.as_ref());
        }
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
