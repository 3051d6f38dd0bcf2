//! A table's vector indexes as it keeps them: each index's entries (one
//! [`VectorSet`] per part, a part per value of the `HASH` attributes), the
//! check of an item's vectors before a write, and the upkeep of the
//! entries on every write and on UpdateTable. The search itself
//! (`SearchVectors`) reads them from `search.rs`.

use std::collections::HashMap;

use super::TableData;
use crate::codec::order_val;
use crate::error::{Fail, Res};
use crate::hash::PREFIX;
use crate::schema::VectorIndexSchema;
use crate::value::{AttributeValue, Item, Val, type_name};
use crate::vector::VectorSet;
use singletable_core::vector::{VectorProblem, check_vector, element};

/// A table position, ordered by the primary key it holds (the hash prefix
/// of the partition key left out): how equal scores are ordered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Row(pub(crate) Box<[u8]>);

impl Ord for Row {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        fn key(r: &Row) -> &[u8] {
            r.0.get(PREFIX..).unwrap_or_default()
        }
        key(self).cmp(key(other)).then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for Row {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One vector index's entries.
pub(crate) struct VectorData {
    /// By the order bytes of the `HASH` values.
    pub(crate) parts: HashMap<Vec<u8>, VectorSet<Row>>,
    /// Each indexed item's part and its `INLINE_FILTER` values.
    pub(crate) rows: HashMap<Row, (Vec<u8>, Item)>,
}

impl VectorData {
    pub(crate) fn new() -> Self {
        Self {
            parts: HashMap::new(),
            rows: HashMap::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Puts `row`'s vector into its part (the item was validated: the
    /// index's dimensions, finite elements).
    fn insert(&mut self, ix: &VectorIndexSchema, row: Row, entry: (Vec<u8>, Vec<f32>, Item)) {
        let (part, vector, filters) = entry;
        let set = self
            .parts
            .entry(part.clone())
            .or_insert_with(|| VectorSet::new(ix.dimensions as usize, ix.distance));
        if set.insert(row.clone(), &vector).is_ok() {
            self.rows.insert(row, (part, filters));
        }
    }
}

/// The vector an item holds for index `ix`: `Ok(None)` without the
/// attribute, an error when it is not a list of `dimensions` numbers.
fn vector_of(ix: &VectorIndexSchema, item: &Item) -> Res<Option<Vec<f32>>> {
    let Some(v) = item.get(&ix.attribute) else {
        return Ok(None);
    };
    let invalid = |what: String| {
        Fail::validation(format!(
            "One or more parameter values were invalid: {what} for the vector attribute {} of vector index {}",
            ix.attribute, ix.name
        ))
    };
    let AttributeValue::L(list) = v else {
        return Err(invalid(format!(
            "Invalid parameter type: expected a list of numbers (L of N), got {}",
            type_name(v)
        )));
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        out.push(element(e).ok_or_else(|| {
            invalid(format!(
                "Invalid parameter type: element {i} is not a 32-bit floating point number"
            ))
        })?);
    }
    // Every element is finite: only the dimensions can be wrong.
    if let Err(VectorProblem::Dimensions { expected, found }) =
        check_vector(&out, ix.dimensions as usize)
    {
        return Err(invalid(format!(
            "Vector has {found} dimensions, index expects {expected}"
        )));
    }
    Ok(Some(out))
}

/// What writes check of an item before storing it: its vectors, and its
/// search-schema attributes' types.
pub(crate) fn check_item(vectors: &[VectorIndexSchema], item: &Item) -> Res<()> {
    for ix in vectors {
        vector_of(ix, item)?;
        for a in ix.search_schema() {
            if let Some(v) = item.get(&a.name)
                && type_name(v) != a.kind.as_str()
            {
                return Err(Fail::OpValidation(
                    "One or more parameter values were invalid: Type mismatch for Index Key".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Where an item goes in index `ix`: its part, vector and filter values;
/// `None` when it is not in the index.
fn entry_of(ix: &VectorIndexSchema, item: &Item) -> Option<(Vec<u8>, Vec<f32>, Item)> {
    let vector = vector_of(ix, item).ok()??;
    let mut part = Vec::new();
    for a in &ix.hash {
        let v = item
            .get(&a.name)
            .filter(|v| type_name(v) == a.kind.as_str())?;
        order_val(&Val::of(v), &mut part);
    }
    let filters = ix
        .filter
        .iter()
        .filter_map(|a| {
            let v = item
                .get(&a.name)
                .filter(|v| type_name(v) == a.kind.as_str())?;
            Some((a.name.clone(), v.clone()))
        })
        .collect();
    Some((part, vector, filters))
}

impl TableData {
    /// Keeps the vector indexes in step with the write of `new` at table
    /// position `pos` (`None`: deleted).
    pub(crate) fn vector_upkeep(&mut self, pos: &[u8], new: Option<&Item>) {
        let row = Row(pos.into());
        for (ix, data) in self.schema.vectors.iter().zip(&mut self.vectors) {
            let entry = new.and_then(|item| entry_of(ix, item));
            if let Some((old_part, _)) = data.rows.get(&row) {
                let moved = entry.as_ref().is_none_or(|(p, ..)| p != old_part);
                if moved {
                    let old_part = old_part.clone();
                    if let Some(set) = data.parts.get_mut(&old_part) {
                        set.remove(&row);
                        if set.is_empty() {
                            data.parts.remove(&old_part);
                        }
                    }
                    data.rows.remove(&row);
                }
            }
            if let Some(entry) = entry {
                data.insert(ix, row.clone(), entry);
            }
        }
    }

    /// UpdateTable's `Delete` of vector index `name`; whether it existed.
    pub(crate) fn remove_vector_index(&mut self, name: &str) -> bool {
        let Some(i) = self.schema.vectors.iter().position(|v| v.name == name) else {
            return false;
        };
        self.schema.vectors.remove(i);
        self.vectors.remove(i);
        self.journal(|| crate::redo::Change::RemoveVector(name.to_owned()));
        true
    }

    /// UpdateTable's `Create` of a vector index: added and built from the
    /// items already stored (those without a valid vector are left out,
    /// as DynamoDB's backfill leaves them).
    pub(crate) fn add_vector_index(&mut self, ix: VectorIndexSchema) -> Res<()> {
        // CreateTable's checks, index names unique across both kinds.
        let mut schema = self.schema.clone();
        schema.vectors.push(ix);
        schema.validate()?;
        self.schema = schema;
        self.vectors.push(VectorData::new());
        let positions: Vec<Vec<u8>> = self.items().iter().map(|e| e.key().to_vec()).collect();
        let last = self.vectors.len() - 1;
        for pos in positions {
            let Some(item) = self.item(&pos)? else {
                continue;
            };
            let ix = &self.schema.vectors[last];
            if let Some(entry) = entry_of(ix, &item) {
                self.vectors[last].insert(ix, Row(pos.into()), entry);
            }
        }
        let ix = self.schema.vectors[last].clone();
        self.journal(|| crate::redo::Change::AddVector(ix));
        Ok(())
    }
}
