//! The table or index a Query or Scan reads: its key schema, its
//! entries in a range, the checks of a filter, a start key and a
//! projection against it.

use std::ops::Bound;

use crate::cond;
use crate::error::{Fail, Res};
use crate::path;
use crate::project::Projection;
use crate::record::{IndexEntry, IndexKey, Record};
use crate::schema::{IndexProjection, IndexSchema, KeyAttr};
use crate::table::TableData;
use crate::value::{AttributeValue, Item, type_name};
use singletable_core::expr::{Condition, Path};

/// The table or index a Query or Scan reads.
pub(super) struct Target<'a> {
    pub(super) table: &'a TableData,
    pub(super) index: Option<(usize, &'a IndexSchema)>,
}

impl<'a> Target<'a> {
    pub(super) fn new(table: &'a TableData, index: Option<&str>, consistent: bool) -> Res<Self> {
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
    pub(super) fn hash(&self) -> Vec<&'a KeyAttr> {
        match self.index {
            Some((_, ix)) => ix.hash_keys().collect(),
            None => vec![&self.table.schema.pk],
        }
    }

    /// The sort attributes of the table or index read, in key-schema order.
    pub(super) fn range(&self) -> Vec<&'a KeyAttr> {
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
    pub(super) fn filter(
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
    pub(super) fn start(&self, esk: &Item) -> Res<Vec<u8>> {
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
        let esk = crate::value::normalize_map(esk)?;
        Ok(match self.index {
            None => self.table.position(&esk),
            Some((i, _)) => self.table.index_position(i, &esk).unwrap_or_default(),
        })
    }

    pub(super) fn entries(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        forward: bool,
    ) -> Entries<'a> {
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
    pub(super) fn stored(&self, key: &'a [u8], value: &'a [u8]) -> Res<(&'a [u8], &'a [u8])> {
        Ok((key, value))
    }

    /// The item an entry refers to.
    pub(super) fn item(&self, key: &'a [u8], value: &'a [u8]) -> Res<Item> {
        let (pos, bytes) = self.stored(key, value)?;
        self.table.decode(pos, bytes)
    }

    pub(super) fn last_key(&self, item: &Item) -> Item {
        self.key_attrs()
            .iter()
            .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
            .collect()
    }

    /// What a read returns of the items: the request's projection, else
    /// the attributes the index holds; `None` for whole items.
    pub(super) fn returned(&self, projection: Option<&[Path]>) -> Option<Projection> {
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
pub(super) fn projection(p: Option<&[Path]>, target: &Target<'_>) -> Res<()> {
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

/// The entries of a table or an index in a range, in either direction, as
/// their items' positions and stored bytes: one type, so that a read goes
/// through them without a call through a pointer per item.
pub(super) enum Entries<'a> {
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
