//! One page of a Query or Scan: `Limit`, the 1 MB a page ends at, and
//! the read units its bytes cost.

use crate::codec::stored_size;
use crate::error::{Fail, Res};
use crate::project::Projection;
use crate::value::Item;
use singletable_core::capacity::{self, Read};

use super::target::Target;

/// A Query or Scan page ends once the items read reach 1 MB.
const PAGE_BYTES: usize = 1024 * 1024;

/// Read units in halves, by the runtime's one rule
/// ([`capacity::read_halves`]).
pub(crate) fn read_halves(bytes: usize, consistent: bool) -> u64 {
    let read = if consistent {
        Read::Strong
    } else {
        Read::Eventual
    };
    capacity::read_halves(bytes, read)
}

pub(super) fn limit(l: Option<i32>) -> Res<Option<usize>> {
    match l {
        Some(n) if n < 1 => Err(Fail::validation("Limit must be greater than or equal to 1")),
        Some(n) => Ok(Some(n as usize)),
        None => Ok(None),
    }
}

/// Reads one page: at most `limit` entries are evaluated; the page ends
/// once the items read reach 1 MB, whether the filter keeps them or not
/// (DynamoDB's developer guide, Query: "This limit applies before the
/// filter expression is evaluated"; DynamoDB Local counts only the items a
/// Query's filter keeps); the LastEvaluatedKey is the last entry evaluated
/// when the page stopped at `Limit`, even if no entry remains (API
/// reference, Query and Scan, `Limit`: DynamoDB "stops the operation and
/// returns the matching values up to that point, and a key in
/// LastEvaluatedKey"), or at 1 MB with entries remaining.
/// `take` gets each item (its table position and stored bytes) and says
/// whether the filter kept it. Returns the LastEvaluatedKey, the bytes
/// read and the items evaluated (`ScannedCount`).
pub(super) fn read_page<'a>(
    target: &Target<'a>,
    entries: impl Iterator<Item = (&'a [u8], &'a [u8])>,
    limit: Option<usize>,
    mut take: impl FnMut(&'a [u8], &'a [u8]) -> Res<bool>,
) -> Res<(Option<Item>, usize, usize)> {
    let mut entries = entries.peekable();
    let mut last: Option<(&[u8], &[u8])> = None;
    let mut scanned = 0usize;
    let mut read = 0usize;
    let mut more = false;
    loop {
        if limit == Some(scanned) {
            more = true;
            break;
        }
        let Some((key, value)) = entries.next() else {
            break;
        };
        scanned += 1;
        last = Some((key, value));
        let (pos, bytes) = target.stored(key, value)?;
        let size = stored_size(bytes);
        read += size;
        take(pos, bytes)?;
        if read >= PAGE_BYTES {
            more = limit == Some(scanned) || entries.peek().is_some();
            break;
        }
    }
    let last_key = match last.filter(|_| more) {
        Some((key, value)) => Some(target.last_key(&target.item(key, value)?)),
        None => None,
    };
    Ok((last_key, read, scanned))
}

/// [`read_page`] into maps, filtered and projected.
pub(super) fn read_items<'a>(
    target: &Target<'a>,
    entries: impl Iterator<Item = (&'a [u8], &'a [u8])>,
    limit: Option<usize>,
    keeps: &mut dyn FnMut(&'a [u8], &'a [u8]) -> Res<bool>,
    projection: Option<&Projection>,
) -> Res<(Vec<Item>, Option<Item>, usize, usize)> {
    let mut items = Vec::new();
    let (last_key, read, scanned) = read_page(target, entries, limit, |pos, bytes| {
        let keep = keeps(pos, bytes)?;
        if keep {
            let item = target.table.decode(pos, bytes)?;
            items.push(match projection {
                Some(p) => p.apply(item),
                None => item,
            });
        }
        Ok(keep)
    })?;
    Ok((items, last_key, read, scanned))
}
