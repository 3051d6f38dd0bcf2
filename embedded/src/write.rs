//! Writes: PutItem, DeleteItem, UpdateItem, BatchWriteItem, and TTL's
//! deletions of expired items.

use std::collections::HashSet;

use super::check::{self, MAX_ITEM};
use super::cond;
use super::error::{Fail, Res};
use super::meter::WriteUnits;
use super::table::TableData;
use super::update;
use super::value::item_size;
use crate::store::Store;
use crate::value::Item;
use singletable_core::expr::Condition;
use singletable_core::request::{BatchOp, BatchWrite, DeleteItem, PutItem, UpdateItem};

/// BatchWriteItem's limit on the request.
const BATCH_BYTES: usize = 16 * 1024 * 1024;

/// Write units: 1 KB units of the larger of the old and new item, rounded up.
pub(super) fn write_units(old: Option<&Item>, new: Option<&Item>) -> u64 {
    units_of(old.map_or(0, item_size), new.map_or(0, item_size))
}

/// Write units of a write replacing an item of `old` bytes (0 for none)
/// by one of `new` bytes.
fn units_of(old: usize, new: usize) -> u64 {
    singletable_core::capacity::write_blocks(old.max(new))
}

pub(super) fn condition(c: Option<&Condition>) -> Res<Option<Condition>> {
    c.map(|c| cond::prepare(c, "ConditionExpression"))
        .transpose()
}

pub(super) fn current(t: &TableData, pos: &[u8]) -> Res<Option<Item>> {
    t.item(pos)
}

pub(super) fn holds(c: Option<&Condition>, item: Option<&Item>) -> bool {
    c.is_none_or(|c| cond::eval(c, item))
}

/// The item a failed condition reports, when the request asked for it.
pub(super) fn on_failure(asked: bool, item: Option<Item>) -> Option<Item> {
    if asked { item } else { None }
}

/// Checks applied to an updated item before it is stored.
pub(super) fn check_updated(t: &TableData, item: &Item) -> Res<()> {
    super::value::nesting(item)?;
    check::updated_index_types(&t.schema, item)?;
    if item_size(item) > MAX_ITEM {
        return Err(Fail::validation(
            "Item size to update has exceeded the maximum allowed size",
        ));
    }
    Ok(())
}

pub(crate) fn put_item(store: &mut Store, req: PutItem) -> Res<Option<Item>> {
    let t = store.table_mut(&req.table)?;
    let (item, checked) = check::sized_item(&t.schema, req.item)?;
    let size = checked.size;
    let cond = condition(req.condition.as_ref())?;
    check::sized_index_types(&t.schema, &item, checked)?;
    let pos = t.position(&item);
    // The replaced item is decoded only when a condition or the caller reads
    // it (or the change feed, which `write_over` sees to): its size is
    // stored with it, and the index upkeep reads it in place.
    if cond.is_none() && !req.return_old {
        let table = units_of(t.stored_size(&pos), size);
        let indexes = t.write_over(pos, &item, size)?;
        t.capacity.write(&WriteUnits { table, indexes }, 1);
        return Ok(None);
    }
    let old = current(t, &pos)?;
    let old_size = old.as_ref().map_or(0, item_size);
    if !holds(cond.as_ref(), old.as_ref()) {
        let item = on_failure(req.return_on_condition_failure, old);
        return Err(Fail::Condition(item));
    }
    let table = units_of(old_size, size);
    let indexes = t.write(pos, Some(&item), old.as_ref());
    t.capacity.write(&WriteUnits { table, indexes }, 1);
    Ok(if req.return_old { old } else { None })
}

pub(crate) fn delete_item(store: &mut Store, req: &DeleteItem) -> Res<Option<Item>> {
    let t = store.table_mut(&req.table)?;
    let key = check::key(&t.schema, &req.key)?;
    let cond = condition(req.condition.as_ref())?;
    let pos = t.position(&key);
    let old = current(t, &pos)?;
    if !holds(cond.as_ref(), old.as_ref()) {
        let item = on_failure(req.return_on_condition_failure, old);
        return Err(Fail::Condition(item));
    }
    let table = write_units(old.as_ref(), None);
    let indexes = match old {
        Some(_) => t.write(pos, None, old.as_ref()),
        None => Vec::new(),
    };
    t.capacity.write(&WriteUnits { table, indexes }, 1);
    Ok(if req.return_old { old } else { None })
}

pub(crate) fn update_item(store: &mut Store, req: &UpdateItem) -> Res<Option<Item>> {
    let t = store.table_mut(&req.table)?;
    let key = check::key(&t.schema, &req.key)?;
    // No action at all is UpdateItem without an UpdateExpression, which
    // DynamoDB accepts: the item is created with its key alone when missing
    // and left as it is otherwise. (An empty expression is refused where
    // it is parsed; a transaction's update needs one.)
    let actions = if req.actions.is_empty() {
        Vec::new()
    } else {
        update::prepare(&req.actions)?
    };
    let cond = condition(req.condition.as_ref())?;
    let pos = t.position(&key);
    let old = current(t, &pos)?;
    if !holds(cond.as_ref(), old.as_ref()) {
        return Err(Fail::Condition(on_failure(
            req.return_on_condition_failure,
            old,
        )));
    }
    let new = update::apply(&actions, old.as_ref(), &key)?;
    check_updated(t, &new)?;
    let out = update::returned(req.return_values, &actions, old.as_ref(), &new);
    let table = write_units(old.as_ref(), Some(&new));
    let indexes = t.write(pos, Some(&new), old.as_ref());
    t.capacity.write(&WriteUnits { table, indexes }, 1);
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
                let item = check::item(&t.schema, item.clone())?;
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
        let table = write_units(old.as_ref(), item.as_ref());
        let indexes = if item.is_some() || old.is_some() {
            t.write(pos, item.as_ref(), old.as_ref())
        } else {
            Vec::new()
        };
        t.capacity.write(&WriteUnits { table, indexes }, 1);
    }
    Ok(Vec::new())
}

/// Deletes, as TTL does, the items of `table` at `positions` that are
/// still expired at `now` (a write since they were found may have given
/// them another TTL, or TTL may have been disabled). Returns how many
/// were deleted; nothing when the table is gone.
pub(crate) fn expire(
    store: &mut Store,
    table: &str,
    positions: &[Vec<u8>],
    now: u64,
) -> Res<usize> {
    let Some(t) = store.tables.get_mut(table) else {
        return Ok(0);
    };
    let Some(attr) = t.time_to_live.clone() else {
        return Ok(0);
    };
    let mut deleted = 0;
    for pos in positions {
        let Some(old) = t.item(pos)? else { continue };
        if !super::expire::expired(old.get(&attr).map(super::value::Val::of).as_ref(), now) {
            continue;
        }
        t.by_ttl = true;
        t.write(pos.clone(), None, Some(&old));
        t.by_ttl = false;
        deleted += 1;
    }
    Ok(deleted)
}
