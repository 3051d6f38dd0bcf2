//! Query and GetItem: the key condition checked against the key schema
//! read, the byte range it reads, and the items handed out as maps,
//! encoded or counted.

use std::ops::Bound;

use crate::check;
use crate::codec::{escaped, order_bytes, prefix_end, stored_size};
use crate::encoded::{self, EncodedItems};
use crate::error::{Fail, Res};
use crate::filter::Filter;
use crate::schema::KeyAttr;
use crate::store::Store;
use crate::table::TableData;
use crate::value::{AttributeValue, Item, Val, compare, type_name};
use singletable_core::expr::{AttrRange, Cmp};
use singletable_core::reader::{Items, ReaderPage};
use singletable_core::request::{CountPage, GetItem, Page, QueryRequest};

use super::page::{limit, read_halves, read_items, read_page};
use super::target::{Target, projection};

pub(crate) fn get_item(store: &Store, req: &GetItem) -> Res<Option<Item>> {
    let items = Rows::Encoded(get_item_encoded(store, req)?).into_items()?;
    Ok(items.into_iter().next())
}

fn bound(b: &Option<Vec<u8>>) -> Bound<&[u8]> {
    b.as_deref().map_or(Bound::Unbounded, Bound::Excluded)
}

/// DynamoDB's refusal of a key condition that misses key attribute
/// `name` (DynamoDB Local leaves the name out).
fn missed_key(name: &str) -> Fail {
    Fail::validation(format!("Query condition missed key schema element: {name}"))
}

/// Whether a sort key value satisfies a key condition.
fn sort_holds(v: &AttributeValue, c: &AttrRange) -> bool {
    let cmp = |x: &AttributeValue| compare(v, x);
    match c {
        AttrRange::Compare(op, x) => cmp(x).is_some_and(|o| match op {
            Cmp::Eq => o.is_eq(),
            Cmp::Ne => o.is_ne(),
            Cmp::Lt => o.is_lt(),
            Cmp::Le => o.is_le(),
            Cmp::Gt => o.is_gt(),
            Cmp::Ge => o.is_ge(),
        }),
        AttrRange::Between(lo, hi) => {
            cmp(lo).is_some_and(|o| o.is_ge()) && cmp(hi).is_some_and(|o| o.is_le())
        }
        AttrRange::BeginsWith(p) => match (v, p) {
            (AttributeValue::S(x), AttributeValue::S(p)) => x.starts_with(p.as_str()),
            (AttributeValue::B(x), AttributeValue::B(p)) => x.as_ref().starts_with(p.as_ref()),
            _ => false,
        },
    }
}

fn type_mismatch() -> Fail {
    Fail::validation(
        "One or more parameter values were invalid: Condition parameter type does not match schema type",
    )
}

fn empty_key(name: &str) -> Fail {
    Fail::validation(format!(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: {name}"
    ))
}

/// A key condition checked the way DynamoDB checks it against the key
/// schema read (one partition and sort attribute, or a multi-attribute
/// key): the partition values and the sort equalities in key-schema order,
/// and the range condition with its attribute.
struct KeyRange<'a> {
    hash: Vec<AttributeValue>,
    sort_eq: Vec<AttributeValue>,
    range: Option<(&'a KeyAttr, AttrRange)>,
}

fn key_range<'a>(
    key: &singletable_core::expr::AttrKeyCondition,
    hash: &[&'a KeyAttr],
    range: &[&'a KeyAttr],
) -> Res<KeyRange<'a>> {
    let multi = hash.len() > 1 || range.len() > 1;
    let value_of = |k: &KeyAttr| key.equal.iter().find(|(a, _)| *a == k.name).map(|(_, v)| v);
    let known = |a: &str| hash.iter().chain(range).any(|k| k.name == a);
    // The key attribute a refused condition misses: the first partition
    // attribute it does not give, else the first sort attribute.
    let first_missed = || {
        hash.iter()
            .find(|k| value_of(k).is_none())
            .or(range.first())
            .or(hash.first())
            .map_or(String::new(), |k| k.name.clone())
    };
    if key
        .equal
        .iter()
        .map(|(a, _)| a)
        .chain(key.range.as_ref().map(|(a, _)| a))
        .any(|a| !known(a))
    {
        return Err(missed_key(&first_missed()));
    }
    let missing: Vec<&str> = hash
        .iter()
        .filter(|k| value_of(k).is_none())
        .map(|k| k.name.as_str())
        .collect();
    if !missing.is_empty() {
        if !multi {
            return Err(missed_key(missing[0]));
        }
        return Err(Fail::validation(format!(
            "HASH key attributes {} must have equality conditions specified in the query",
            missing.join(", ")
        )));
    }
    // The sort attribute the last condition is on: the range condition's,
    // else the last one compared for equality.
    let last = match &key.range {
        Some((a, _)) => range.iter().position(|k| k.name == *a),
        None => range.iter().rposition(|k| value_of(k).is_some()),
    };
    if let Some(last) = last {
        let before: Vec<&str> = range[..last]
            .iter()
            .filter(|k| value_of(k).is_none())
            .map(|k| k.name.as_str())
            .collect();
        if !before.is_empty() {
            return Err(Fail::validation(format!(
                "RANGE key attributes {} must have equality conditions specified in the query because a condition is present on key attribute {}",
                before.join(", "),
                range[last].name
            )));
        }
    } else if key.range.is_some() {
        // On a partition attribute.
        return Err(missed_key(&first_missed()));
    }
    let check = |k: &KeyAttr, v: &AttributeValue| -> Res<()> {
        if type_name(v) != k.kind.as_str() {
            return Err(type_mismatch());
        }
        match v {
            AttributeValue::S(x) if x.is_empty() => Err(empty_key(&k.name)),
            AttributeValue::B(x) if x.as_ref().is_empty() => Err(empty_key(&k.name)),
            _ => Ok(()),
        }
    };
    let mut out = KeyRange {
        hash: Vec::with_capacity(hash.len()),
        sort_eq: Vec::new(),
        range: None,
    };
    for k in hash {
        let v = crate::value::expression_value(value_of(k).ok_or_else(|| missed_key(&k.name))?)?;
        check(k, &v)?;
        out.hash.push(v);
    }
    let eq_count = match (&key.range, last) {
        (Some(_), Some(last)) => last,
        (None, Some(last)) => last + 1,
        _ => 0,
    };
    for k in &range[..eq_count] {
        let v = crate::value::expression_value(value_of(k).ok_or_else(|| missed_key(&k.name))?)?;
        check(k, &v)?;
        out.sort_eq.push(v);
    }
    if let (Some((_, c)), Some(last)) = (&key.range, last) {
        let k = range[last];
        let norm = crate::value::expression_value;
        let c = match c {
            AttrRange::Compare(Cmp::Ne, _) => {
                return Err(Fail::validation(
                    "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: <>",
                ));
            }
            AttrRange::Compare(op, v) => AttrRange::Compare(*op, norm(v)?),
            AttrRange::Between(lo, hi) => AttrRange::Between(norm(lo)?, norm(hi)?),
            AttrRange::BeginsWith(p) => {
                if k.kind.as_str() == "N" {
                    return Err(Fail::validation(
                        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
                    ));
                }
                AttrRange::BeginsWith(p.clone())
            }
        };
        for v in c.values() {
            check(k, &v)?;
        }
        if let AttrRange::Between(lo, hi) = &c
            && compare(lo, hi).is_some_and(|o| o.is_gt())
        {
            return Err(Fail::validation(format!(
                "Invalid KeyConditionExpression: {}",
                crate::cond::bounds_out_of_order(lo, hi)
            )));
        }
        out.range = Some((k, c));
    }
    Ok(out)
}

/// The items a Query or GetItem read: maps, or encoded for reading in
/// place, or only their number (`Select=COUNT`).
// Made and moved once a request: a boxed page would cost an allocation
// each time for nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Rows {
    Items(Vec<Item>),
    Encoded(EncodedItems),
    Count(usize),
}

/// What a Query hands out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Maps,
    Encoded,
    Count,
}

impl Rows {
    fn into_items(self) -> Res<Vec<Item>> {
        match self {
            Rows::Items(items) => Ok(items),
            Rows::Encoded(e) => encoded::into_items(e)
                .map_err(|e| Fail::internal(format!("stored item is corrupt: {e}"))),
            Rows::Count(_) => Ok(Vec::new()),
        }
    }

    /// The items, for the decoders.
    pub(crate) fn into_reader(self) -> Items {
        match self {
            Rows::Items(items) => items.into(),
            Rows::Encoded(e) => Items::Encoded(e),
            Rows::Count(_) => Vec::new().into(),
        }
    }
}

pub(crate) fn query(store: &Store, req: &QueryRequest) -> Res<Page> {
    let (rows, last_key, scanned) = run_query(store, req, Want::Maps)?;
    Ok(Page {
        items: rows.into_items()?,
        last_key,
        scanned: Some(scanned),
    })
}

/// A Query whose items are handed out encoded, filtered and projected in
/// place: no item map is built.
pub(crate) fn query_reader(store: &Store, req: &QueryRequest) -> Res<ReaderPage> {
    let (rows, last_key, scanned) = run_query(store, req, Want::Encoded)?;
    Ok(ReaderPage {
        items: rows.into_reader(),
        last_key,
        scanned: Some(scanned),
    })
}

/// A Query with `Select=COUNT`: the items the filter keeps are counted,
/// not copied.
pub(crate) fn query_count(store: &Store, req: &QueryRequest) -> Res<CountPage> {
    let (rows, last_key, scanned) = run_query(store, req, Want::Count)?;
    let count = match rows {
        Rows::Count(n) => n,
        other => other.into_items()?.len(),
    };
    Ok(CountPage {
        count,
        scanned: Some(scanned),
        last_key,
    })
}

/// GetItem, the item (if any) handed out encoded.
pub(crate) fn get_item_encoded(store: &Store, req: &GetItem) -> Res<EncodedItems> {
    let t = store.table(&req.table)?;
    let key = check::key(&t.schema, &req.key)?;
    let (out, size) = match t.items().get(t.position(&key).as_slice()) {
        Some(e) => {
            let mut out = encoded::page(t, e.key().len() + e.value().len());
            encoded::push(&mut out, t, e.key(), e.value(), None).ok_or_else(corrupt)?;
            (out, stored_size(e.value()))
        }
        None => (encoded::page(t, 0), 0),
    };
    t.capacity.read(read_halves(size, req.consistent));
    Ok(out)
}

#[cold]
fn corrupt() -> Fail {
    Fail::internal("stored item is corrupt")
}

/// A Query's rows, its LastEvaluatedKey and the items it evaluated
/// (`ScannedCount`).
type Ran = (Rows, Option<Item>, usize);

fn run_query<'s>(store: &'s Store, req: &QueryRequest, want: Want) -> Res<Ran> {
    let t = store.table(&req.table)?;
    let target = Target::new(t, req.index.as_deref(), req.consistent)?;
    let limit = limit(req.limit)?;
    let hash = target.hash();
    let range_keys = target.range();
    let key = req.key.typed();
    let cond = key_range(&key, &hash, &range_keys)?;
    let filter = target.filter(req.filter.as_ref(), true, req.projection.as_deref())?;
    projection(req.projection.as_deref(), &target)?;

    // The byte range of the partition, the sort equalities and the range
    // condition: order bytes delimit themselves, so the prefix of the
    // attributes compared for equality bounds every item they match.
    let mut part = match target.index {
        Some((i, _)) => t.index_partition(i, &cond.hash.iter().map(Val::of).collect::<Vec<_>>()),
        None => TableData::partition(&cond.hash[0]),
    };
    for v in &cond.sort_eq {
        order_bytes(v, &mut part);
    }
    let at = |v: &AttributeValue| {
        let mut p = part.clone();
        order_bytes(v, &mut p);
        p
    };
    let (lower, upper): (Vec<u8>, Option<Vec<u8>>) = match cond.range.as_ref().map(|(_, c)| c) {
        None => (part.clone(), prefix_end(&part)),
        Some(AttrRange::Compare(op, v)) => {
            let p = at(v);
            match op {
                Cmp::Eq => (p.clone(), prefix_end(&p)),
                Cmp::Lt => (part.clone(), Some(p)),
                Cmp::Le => (part.clone(), prefix_end(&p)),
                Cmp::Gt => (prefix_end(&p).unwrap_or(p), prefix_end(&part)),
                _ => (p, prefix_end(&part)),
            }
        }
        Some(AttrRange::Between(lo, hi)) => (at(lo), prefix_end(&at(hi))),
        Some(AttrRange::BeginsWith(pre)) => {
            let mut p = part.clone();
            let bytes = match pre {
                AttributeValue::B(b) => b.as_ref(),
                AttributeValue::S(s) => s.as_bytes(),
                _ => &[],
            };
            escaped(bytes, &mut p);
            let end = prefix_end(&p);
            (p, end)
        }
    };
    // A start key must lie within the key condition. One on the inclusive
    // bound the Query reads towards is accepted (and reads an empty page):
    // it is the LastEvaluatedKey of a page that stopped at `Limit` on that
    // bound, which DynamoDB returns. DynamoDB Local refuses it and returns
    // no LastEvaluatedKey there, reading its table sort key's bound as
    // exclusive.
    let equal: Vec<(&str, &AttributeValue)> = hash
        .iter()
        .zip(&cond.hash)
        .chain(range_keys.iter().zip(&cond.sort_eq))
        .map(|(k, v)| (k.name.as_str(), v))
        .collect();
    let within = |key: &Item| {
        equal.iter().all(|(a, v)| key.get(*a) == Some(*v))
            && cond
                .range
                .as_ref()
                .is_none_or(|(range, c)| key.get(&range.name).is_some_and(|v| sort_holds(v, c)))
    };
    let start = match &req.start {
        None => None,
        Some(esk) => {
            let pos = target.start(esk)?;
            if !within(esk) {
                return Err(Fail::validation(
                    "The provided starting key does not match the range key predicate",
                ));
            }
            Some(pos)
        }
    };
    let (lo, hi) = match (&start, req.forward) {
        (Some(p), true) => (Bound::Excluded(p.as_slice()), bound(&upper)),
        (Some(p), false) => (
            Bound::Included(lower.as_slice()),
            Bound::Excluded(p.as_slice()),
        ),
        (None, _) => (Bound::Included(lower.as_slice()), bound(&upper)),
    };
    let entries = target.entries(lo, hi, req.forward);
    // The attributes a filter reads are read in place to evaluate it; the
    // attributes a projection keeps, read through the encoded items.
    let keep = target.returned(req.projection.as_deref());
    let mut filter = filter.as_ref().map(|f| Filter::new(f, t));
    let mut keeps = |pos: &'s [u8], bytes: &'s [u8]| -> Res<bool> {
        match &mut filter {
            None => Ok(true),
            Some(f) => f.keeps(pos, bytes),
        }
    };
    let (rows, last_key, read, scanned) = match want {
        Want::Encoded => {
            // Room for a few dozen small items before the buffer grows.
            let mut out = encoded::page(t, 4096);
            let mut projection = keep.as_ref().map(encoded::Kept::new);
            let (last_key, read, scanned) = read_page(&target, entries, limit, |pos, bytes| {
                let kept = keeps(pos, bytes)?;
                if kept {
                    encoded::push(&mut out, t, pos, bytes, projection.as_mut())
                        .ok_or_else(corrupt)?;
                }
                Ok(kept)
            })?;
            (Rows::Encoded(out), last_key, read, scanned)
        }
        Want::Count => {
            let mut n = 0usize;
            let (last_key, read, scanned) = read_page(&target, entries, limit, |pos, bytes| {
                let kept = keeps(pos, bytes)?;
                n += usize::from(kept);
                Ok(kept)
            })?;
            (Rows::Count(n), last_key, read, scanned)
        }
        Want::Maps => {
            let (items, last_key, read, scanned) =
                read_items(&target, entries, limit, &mut keeps, keep.as_ref())?;
            (Rows::Items(items), last_key, read, scanned)
        }
    };
    t.capacity.read(read_halves(read, req.consistent));
    Ok((rows, last_key, scanned))
}
