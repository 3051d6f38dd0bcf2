//! Scan, whole or one segment of a parallel scan.

use std::ops::Bound;

use crate::error::{Fail, Res};
use crate::filter::Filter;
use crate::store::Store;
use singletable_core::request::{Page, ScanRequest};

use super::page::{limit, read_halves, read_items};
use super::target::{Target, projection};

pub(crate) fn scan(store: &Store, req: &ScanRequest) -> Res<Page> {
    let t = store.table(&req.table)?;
    let target = Target::new(t, req.index.as_deref(), req.consistent)?;
    let limit = limit(req.limit)?;
    let filter = target.filter(req.filter.as_ref(), false, req.projection.as_deref())?;
    projection(req.projection.as_deref(), &target)?;
    let start = req
        .start
        .as_ref()
        .map(|esk| target.start(esk))
        .transpose()?;
    let segment = req.segment.map(segment_range).transpose()?;
    let mut lower = start.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
    let mut upper = Bound::Unbounded;
    let global = target.index.is_some_and(|(_, ix)| ix.global);
    if let (Some((lo, hi)), false) = (&segment, global) {
        // Table and local index positions start with the partition key's
        // hash: a segment is one range of them.
        if start.as_deref().is_none_or(|s| s < lo.as_slice()) {
            lower = Bound::Included(lo.as_slice());
        }
        if let Some(hi) = hi {
            upper = Bound::Excluded(hi.as_slice());
        }
    }
    let entries = target.entries(lower, upper, true);
    let entries = match (&segment, global) {
        // A global index orders its partitions by value: its entries are
        // kept by the hash of their index partition key.
        (Some((lo, hi)), true) => {
            let (lo, hi) = (lo.clone(), hi.clone());
            let target = &target;
            Box::new(entries.filter(move |(key, value)| {
                let hash = target.item(key, value).ok().and_then(|item| {
                    let ipk = item.get(&target.hash().first()?.name)?;
                    Some(crate::hash::of_value(&crate::codec::hash_bytes(ipk)))
                });
                hash.is_some_and(|h| {
                    let h = &h[..crate::hash::PREFIX];
                    h >= lo.as_slice() && hi.as_ref().is_none_or(|hi| h < hi.as_slice())
                })
            })) as Box<dyn Iterator<Item = _>>
        }
        _ => Box::new(entries),
    };
    let returned = target.returned(req.projection.as_deref());
    let mut filter = filter.as_ref().map(|f| Filter::new(f, t));
    let mut keeps = |pos, bytes| filter.as_mut().map_or(Ok(true), |f| f.keeps(pos, bytes));
    let (items, last_key, read, scanned) =
        read_items(&target, entries, limit, &mut keeps, returned.as_ref())?;
    t.capacity.read(read_halves(read, req.consistent));
    Ok(Page {
        items,
        last_key,
        scanned: Some(scanned),
    })
}

/// The positions of a parallel scan's segment: from the first hash
/// prefix of the segment to the first of the next (`None` after the last
/// segment). DynamoDB (and DynamoDB Local, whose hash the positions use)
/// splits the hash range into `total_segments` equal parts.
fn segment_range(s: singletable_core::request::ScanSegment) -> Res<(Vec<u8>, Option<Vec<u8>>)> {
    if !(1..=1_000_000).contains(&s.total_segments) {
        return Err(Fail::validation(
            "1 validation error detected: Value at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000",
        ));
    }
    if s.segment >= s.total_segments {
        return Err(Fail::validation(format!(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {} is not less than TotalSegments: {}",
            s.segment, s.total_segments
        )));
    }
    let bound = |i: u32| -> Option<Vec<u8>> {
        let start = (u128::from(i) << 64).div_ceil(u128::from(s.total_segments));
        u64::try_from(start).ok().map(|b| b.to_be_bytes().to_vec())
    };
    Ok((bound(s.segment).unwrap_or_default(), bound(s.segment + 1)))
}
