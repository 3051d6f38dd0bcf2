//! BatchGetItem and TransactGetItems: items read by their keys.

use std::collections::HashSet;

use crate::check;
use crate::error::{CancellationReason, Fail, Res};
use crate::store::Store;
use crate::value::{Item, item_size};
use singletable_core::capacity::{self, Read};
use singletable_core::request::{BatchGet, BatchGetOutput, TransactGet};

use super::page::read_halves;

/// BatchGetItem returns at most 16 MB; the rest is unprocessed.
const BATCH_GET_BYTES: usize = 16 * 1024 * 1024;

pub(crate) fn batch_get(store: &Store, req: &BatchGet) -> Res<BatchGetOutput> {
    if req.keys.is_empty() {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'requestItems.keys' failed to satisfy constraint: Member must have length greater than or equal to 1",
        ));
    }
    if req.keys.len() > 100 {
        return Err(Fail::validation(
            "Too many items requested for the BatchGetItem call",
        ));
    }
    let t = store.table(&req.table)?;
    let mut positions = Vec::with_capacity(req.keys.len());
    let mut seen = HashSet::with_capacity(req.keys.len());
    for k in &req.keys {
        let key = check::key(&t.schema, k)?;
        let pos = t.position(&key);
        if !seen.insert(pos.clone()) {
            return Err(Fail::validation(
                "Provided list of item keys contains duplicates",
            ));
        }
        positions.push((pos, k));
    }
    let mut out = BatchGetOutput::default();
    let mut bytes = 0usize;
    for (pos, key) in positions {
        if bytes >= BATCH_GET_BYTES {
            out.unprocessed.push(key.clone());
            continue;
        }
        if let Some(item) = t.item(&pos)? {
            let size = item_size(&item);
            bytes += size;
            t.capacity.read(read_halves(size, req.consistent));
            out.items.push(item);
        } else {
            t.capacity.read(read_halves(0, req.consistent));
        }
    }
    Ok(out)
}

pub(crate) fn transact_get(store: &Store, req: &TransactGet) -> Res<Vec<Option<Item>>> {
    if req.gets.is_empty() || req.gets.len() > 100 {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100 and greater than or equal to 1",
        ));
    }
    // A key of the wrong shape cancels the transaction, with a
    // `ValidationError` reason for each such get and `None` for the others
    // (DynamoDB's per-action validation). Gets are checked in order: one
    // item named twice before any malformed key refuses the request.
    let mut reasons = Vec::with_capacity(req.gets.len());
    let mut malformed = false;
    let mut seen = HashSet::with_capacity(req.gets.len());
    let mut found = Vec::with_capacity(req.gets.len());
    for (i, (table, key)) in req.gets.iter().enumerate() {
        let t = store.table(table)?;
        let (code, message) = match check::shape(&t.schema, key) {
            Err(m) => {
                malformed = true;
                ("ValidationError", Some(m.to_owned()))
            }
            Ok(()) => ("None", None),
        };
        reasons.push(CancellationReason {
            index: i,
            code: code.to_owned(),
            message,
            item: None,
        });
        if malformed {
            continue;
        }
        let key = check::key(&t.schema, key)?;
        let pos = t.position(&key);
        if !seen.insert((table.as_str(), pos.clone())) {
            return Err(Fail::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        found.push((t, pos));
    }
    if malformed {
        return Err(Fail::Canceled(reasons));
    }
    let mut out = Vec::with_capacity(found.len());
    for (t, pos) in found {
        let item = t.item(&pos)?;
        t.capacity.read(capacity::read_halves(
            item.as_ref().map_or(0, item_size),
            Read::Transactional,
        ));
        out.push(item);
    }
    Ok(out)
}
