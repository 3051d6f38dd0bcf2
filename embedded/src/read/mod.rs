//! Reads: GetItem, Query, Scan, BatchGetItem, TransactGetItems.

use std::collections::HashSet;
use std::ops::Bound;

use super::check;
use super::codec::{escaped, order_bytes, prefix_end, stored_size};
use super::cond;
use super::encoded::{self, EncodedItems};
use super::error::{Fail, Res};
use super::filter::Filter;
use super::path;
use super::project::Projection;
use super::record::{IndexEntry, IndexKey, Record};
use super::schema::{IndexProjection, IndexSchema, KeyAttr};
use super::table::TableData;
use super::value::{Val, compare, item_size, type_name};
use crate::store::Store;
use crate::value::{AttributeValue, Item};
use singletable_core::capacity::{self, Read};
use singletable_core::expr::{AttrRange, Cmp, Condition, Path};
use singletable_core::reader::{Items, ReaderPage};
use singletable_core::request::{
    BatchGet, BatchGetOutput, CountPage, GetItem, Page, QueryRequest, ScanRequest, TransactGet,
};

/// A Query or Scan page ends once the items read reach 1 MB.
const PAGE_BYTES: usize = 1024 * 1024;
/// BatchGetItem returns at most 16 MB; the rest is unprocessed.
const BATCH_GET_BYTES: usize = 16 * 1024 * 1024;

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

pub(crate) fn get_item(store: &Store, req: &GetItem) -> Res<Option<Item>> {
    let items = Rows::Encoded(get_item_encoded(store, req)?).into_items()?;
    Ok(items.into_iter().next())
}

/// The table or index a Query or Scan reads.
struct Target<'a> {
    table: &'a TableData,
    index: Option<(usize, &'a IndexSchema)>,
}

impl<'a> Target<'a> {
    fn new(table: &'a TableData, index: Option<&str>, consistent: bool) -> Res<Self> {
        let index = match index {
            None => None,
            Some(name) => {
                let i = table.index(name).ok_or_else(|| {
                    Fail::validation(format!(
                        "The table does not have the specified index: {name}"
                    ))
                })?;
                Some((i, &table.schema.indexes[i]))
            }
        };
        if consistent && index.is_some_and(|(_, ix)| ix.global) {
            return Err(Fail::validation(
                "Consistent reads are not supported on global secondary indexes",
            ));
        }
        Ok(Self { table, index })
    }

    /// The partition attributes of the table or index read, in key-schema
    /// order.
    fn hash(&self) -> Vec<&'a KeyAttr> {
        match self.index {
            Some((_, ix)) => ix.hash_keys().collect(),
            None => vec![&self.table.schema.pk],
        }
    }

    /// The sort attributes of the table or index read, in key-schema order.
    fn range(&self) -> Vec<&'a KeyAttr> {
        match self.index {
            Some((_, ix)) => ix.range_keys().collect(),
            None => self.table.schema.sk.iter().collect(),
        }
    }

    /// Key attributes of a LastEvaluatedKey: the table's, plus the index's.
    fn key_attrs(&self) -> Vec<&'a KeyAttr> {
        let mut out: Vec<&KeyAttr> = self.table.schema.table_keys().collect();
        if let Some((_, ix)) = self.index {
            for k in ix.keys() {
                if !out.iter().any(|o| o.name == k.name) {
                    out.push(k);
                }
            }
        }
        out
    }

    /// The attributes an index holds, `None` when it holds them all.
    fn projected(&self) -> Option<Vec<&'a str>> {
        let (_, ix) = self.index?;
        let include: &[String] = match &ix.projection {
            IndexProjection::All => return None,
            IndexProjection::KeysOnly => &[],
            IndexProjection::Include(attrs) => attrs,
        };
        let mut out: Vec<&str> = self.key_attrs().iter().map(|k| k.name.as_str()).collect();
        out.extend(include.iter().map(String::as_str));
        Some(out)
    }

    fn name(&self) -> &'a str {
        self.index.map_or("", |(_, ix)| ix.name.as_str())
    }

    /// Checks a filter: no key attribute of the table or index read (Query
    /// only), and only attributes the index holds.
    /// Checks a filter: its own rules first, then (DynamoDB Local's order)
    /// the paths of the request's projection, then the filter against the
    /// key schema and the index's projection.
    fn filter(
        &self,
        filter: Option<&Condition>,
        query: bool,
        projection: Option<&[Path]>,
    ) -> Res<Option<Condition>> {
        let Some(f) = filter else { return Ok(None) };
        let f = cond::prepare(f, "FilterExpression")?;
        if let Some(p) = projection {
            projection_paths(p)?;
        }
        let mut used = Vec::new();
        cond::paths(&f, &mut used);
        if query {
            for k in self.hash().into_iter().chain(self.range()) {
                if used.contains(&k.name.as_str()) {
                    return Err(Fail::validation(format!(
                        "Filter Expression can only contain non-primary key attributes: Primary key attribute: {}",
                        k.name
                    )));
                }
            }
        }
        if let Some(projected) = self.projected().filter(|_| query) {
            let missing: Vec<&str> = used
                .iter()
                .copied()
                .filter(|u| !projected.contains(u))
                .collect();
            if !missing.is_empty() {
                return Err(Fail::validation(format!(
                    "One or more parameter values were invalid: Secondary index {} does not project one or more filter attributes: [{}]",
                    self.name(),
                    missing.join(", ")
                )));
            }
        }
        Ok(Some(f))
    }

    /// Checks an ExclusiveStartKey and returns its position.
    fn start(&self, esk: &Item) -> Res<Vec<u8>> {
        let attrs = self.key_attrs();
        if esk.len() != attrs.len() {
            return Err(Fail::validation(
                "Exclusive Start Key must have same size as table's key schema",
            ));
        }
        for a in &attrs {
            match esk.get(&a.name) {
                Some(AttributeValue::S(v)) if v.is_empty() => {
                    return Err(Fail::validation(format!(
                        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: {}",
                        a.name
                    )));
                }
                Some(v) if type_name(v) == a.kind.as_str() => {}
                _ => {
                    return Err(Fail::validation(
                        "The provided starting key is invalid: The provided key element does not match the schema",
                    ));
                }
            }
        }
        let esk = super::value::normalize_map(esk)?;
        Ok(match self.index {
            None => self.table.position(&esk),
            Some((i, _)) => self.table.index_position(i, &esk).unwrap_or_default(),
        })
    }

    fn entries(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, forward: bool) -> Entries<'a> {
        if !valid_range(lower, upper) {
            return Entries::Empty;
        }
        let Some((i, _)) = self.index else {
            let range = self.table.items().range::<[u8], _>((lower, upper));
            return Entries::Table(range, forward);
        };
        // Positions' bytes, looked up among entries as the bytes they
        // stand for.
        let (lo, hi) = (bound_bytes(lower), bound_bytes(upper));
        let range = self.table.indexes[i]
            .entries()
            .range::<dyn IndexKey, _>((probe(lower, &lo), probe(upper, &hi)));
        Entries::Index(range, forward)
    }

    /// The table position and stored bytes of the item an entry refers
    /// to: entries are read as their items' records.
    fn stored(&self, key: &'a [u8], value: &'a [u8]) -> Res<(&'a [u8], &'a [u8])> {
        Ok((key, value))
    }

    /// The item an entry refers to.
    fn item(&self, key: &'a [u8], value: &'a [u8]) -> Res<Item> {
        let (pos, bytes) = self.stored(key, value)?;
        self.table.decode(pos, bytes)
    }

    fn last_key(&self, item: &Item) -> Item {
        self.key_attrs()
            .iter()
            .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
            .collect()
    }

    /// What a read returns of the items: the request's projection, else
    /// the attributes the index holds; `None` for whole items.
    fn returned(&self, projection: Option<&[Path]>) -> Option<Projection> {
        match (projection, self.projected()) {
            (Some(p), _) => Some(Projection::new(p)),
            (None, Some(p)) => {
                let paths: Vec<Path> = p.into_iter().map(Path::new).collect();
                Some(Projection::new(&paths))
            }
            (None, None) => None,
        }
    }
}

/// The bytes of a bound (empty when unbounded).
fn bound_bytes(b: Bound<&[u8]>) -> &[u8] {
    match b {
        Bound::Included(b) | Bound::Excluded(b) => b,
        Bound::Unbounded => &[],
    }
}

/// A bound on index entries at the position `bytes` (`b`'s bytes).
fn probe<'a, 'b>(b: Bound<&[u8]>, bytes: &'a &'b [u8]) -> Bound<&'a (dyn IndexKey + 'b)> {
    b.map(|_| bytes as &dyn IndexKey)
}

fn valid_range(lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> bool {
    match (lower, upper) {
        (Bound::Included(a), Bound::Included(b)) => a <= b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b)) => a < b,
        _ => true,
    }
}

fn bound(b: &Option<Vec<u8>>) -> Bound<&[u8]> {
    b.as_deref().map_or(Bound::Unbounded, Bound::Excluded)
}

/// Checks the paths of a ProjectionExpression, whatever the read: not
/// empty, names DynamoDB accepts, well-formed paths, no two that overlap
/// or conflict.
pub(crate) fn projection_paths(p: &[Path]) -> Res<()> {
    let invalid = |m: String| Fail::validation(format!("Invalid ProjectionExpression: {m}"));
    if p.is_empty() {
        return Err(invalid("The expression can not be empty;".into()));
    }
    let mut r = singletable_core::expr::Rendered::default();
    r.projection(p);
    path::names(&r)?;
    let paths: Vec<_> = p.iter().map(Path::as_ref).collect();
    for q in &paths {
        path::syntax(*q).map_err(invalid)?;
    }
    path::no_clash(&paths).map_err(invalid)
}

/// Checks a Query's ProjectionExpression: its paths, and that a global
/// index projects what it names.
fn projection(p: Option<&[Path]>, target: &Target<'_>) -> Res<()> {
    let Some(p) = p else { return Ok(()) };
    projection_paths(p)?;
    if let (Some((_, ix)), Some(projected)) = (target.index, target.projected())
        && ix.global
    {
        let mut missing: Vec<&str> = p
            .iter()
            .map(Path::attribute)
            .filter(|a| !projected.contains(a))
            .collect();
        missing.dedup();
        if !missing.is_empty() {
            return Err(Fail::validation(format!(
                "One or more parameter values were invalid: Global secondary index {} does not project [{}]",
                ix.name,
                missing.join(", ")
            )));
        }
    }
    Ok(())
}

fn limit(l: Option<i32>) -> Res<Option<usize>> {
    match l {
        Some(n) if n < 1 => Err(Fail::validation("Limit must be greater than or equal to 1")),
        Some(n) => Ok(Some(n as usize)),
        None => Ok(None),
    }
}

fn missed_key() -> Fail {
    Fail::validation("Query condition missed key schema element")
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
        AttrRange::BeginsWith(p) => {
            matches!(v, AttributeValue::S(x) if x.starts_with(p.as_str()))
        }
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
    if key
        .equal
        .iter()
        .map(|(a, _)| a)
        .chain(key.range.as_ref().map(|(a, _)| a))
        .any(|a| !known(a))
    {
        return Err(missed_key());
    }
    let missing: Vec<&str> = hash
        .iter()
        .filter(|k| value_of(k).is_none())
        .map(|k| k.name.as_str())
        .collect();
    if !missing.is_empty() {
        if !multi {
            return Err(missed_key());
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
        return Err(missed_key());
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
        let v = super::value::expression_value(value_of(k).ok_or_else(missed_key)?)?;
        check(k, &v)?;
        out.hash.push(v);
    }
    let eq_count = match (&key.range, last) {
        (Some(_), Some(last)) => last,
        (None, Some(last)) => last + 1,
        _ => 0,
    };
    for k in &range[..eq_count] {
        let v = super::value::expression_value(value_of(k).ok_or_else(missed_key)?)?;
        check(k, &v)?;
        out.sort_eq.push(v);
    }
    if let (Some((_, c)), Some(last)) = (&key.range, last) {
        let k = range[last];
        let norm = super::value::expression_value;
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
                super::cond::bounds_out_of_order(lo, hi)
            )));
        }
        out.range = Some((k, c));
    }
    Ok(out)
}

/// The entries of a table or an index in a range, in either direction, as
/// their items' positions and stored bytes: one type, so that a read goes
/// through them without a call through a pointer per item.
enum Entries<'a> {
    Empty,
    /// Forward when `true`.
    Table(std::collections::btree_set::Range<'a, Record>, bool),
    Index(std::collections::btree_set::Range<'a, IndexEntry>, bool),
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a [u8], &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Empty => None,
            Entries::Table(r, true) => r.next().map(Record::key_value),
            Entries::Table(r, false) => r.next_back().map(Record::key_value),
            Entries::Index(r, true) => r.next().map(IndexEntry::key_value),
            Entries::Index(r, false) => r.next_back().map(IndexEntry::key_value),
        }
    }
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
            escaped(pre.as_bytes(), &mut p);
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
fn read_page<'a>(
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
fn read_items<'a>(
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

pub(crate) fn scan(store: &Store, req: &ScanRequest) -> Res<Page> {
    let t = store.table(&req.table)?;
    let target = Target::new(t, req.index.as_deref(), req.consistent)?;
    let limit = limit(req.limit)?;
    let filter = target.filter(req.filter.as_ref(), false, None)?;
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
                    Some(super::hash::of_value(&super::codec::hash_bytes(ipk)))
                });
                hash.is_some_and(|h| {
                    let h = &h[..super::hash::PREFIX];
                    h >= lo.as_slice() && hi.as_ref().is_none_or(|hi| h < hi.as_slice())
                })
            })) as Box<dyn Iterator<Item = _>>
        }
        _ => Box::new(entries),
    };
    let returned = target.returned(None);
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
    let mut seen = HashSet::with_capacity(req.gets.len());
    let mut found = Vec::with_capacity(req.gets.len());
    for (table, key) in &req.gets {
        let t = store.table(table)?;
        // DynamoDB Local cancels the transaction (without reasons) for a
        // key of the wrong shape.
        if check::shape(&t.schema, key).is_err() {
            return Err(Fail::Canceled(Vec::new()));
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
