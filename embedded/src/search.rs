//! Vector indexes on embedded tables: exact k-nearest-neighbour search
//! (`SearchVectors`) over the items that carry the index's vector, kept in
//! step with every write.
//!
//! An index is split by the values of its `HASH` attributes (a search gives
//! each by equality, so it reads one part), each part one contiguous
//! [`VectorSet`]. An item is in the index when it has the vector attribute
//! as a list of the index's number of numbers and every `HASH` attribute
//! with its declared type; its `INLINE_FILTER` values are kept beside its
//! vector, so a filter reads no item. Equal scores come in the order of
//! the items' primary keys (partition key, then sort key, each as DynamoDB
//! orders its type): DynamoDB documents no order for them.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::Store;
use super::codec::order_val;
use super::cond;
use super::error::{Fail, Res};
use super::hash::PREFIX;
use super::project::Projection;
use super::schema::{IndexProjection, KeyAttr};
use super::table::TableData;
use super::value::{Val, type_name};
use super::vector::VectorSet;
use crate::entity::Table;
use crate::expr::{Cmp, Condition, Operand};
use crate::value::{AttributeValue, Item};
use singletable_core::vector::{
    Distance, MAX_TOP_K, ScoredItem, SearchVectors, VectorIndex, VectorProblem, check_vector,
    element,
};

/// A vector index as CreateTable receives it (`VectorIndexes`).
///
/// ```
/// use singletable::embedded::{TableSchema, VectorIndexSchema};
/// use singletable::vector::Distance;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", vector1(name = "Similar", dimensions = 4, distance = dot_product, hash(tenant = S)))]
/// # pub struct App;
///
/// let ix: &VectorIndexSchema = &TableSchema::of::<App>().vectors[0];
/// assert_eq!((ix.name.as_str(), ix.attribute.as_str(), ix.dimensions), ("Similar", "embedding", 4));
/// assert_eq!((ix.distance, ix.hash[0].name.as_str()), (Distance::DotProduct, "tenant"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorIndexSchema {
    /// Index name.
    pub name: String,
    /// The attribute holding each item's vector.
    pub attribute: String,
    /// The number of dimensions.
    pub dimensions: u32,
    /// The distance function.
    pub distance: Distance,
    /// `HASH` attributes of the search schema.
    pub hash: Vec<KeyAttr>,
    /// `INLINE_FILTER` attributes of the search schema.
    pub filter: Vec<KeyAttr>,
    /// Projected attributes.
    pub projection: IndexProjection,
}

impl VectorIndexSchema {
    /// The schema of a declared index.
    ///
    /// ```
    /// use singletable::embedded::VectorIndexSchema;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 2, distance = cosine))]
    /// # pub struct App;
    /// assert_eq!(VectorIndexSchema::of(&App::VECTOR_INDEXES[0]).name, "VECTOR1");
    /// ```
    pub fn of(v: &VectorIndex) -> Self {
        let attrs = |list: &[crate::entity::KeyAttribute]| {
            list.iter()
                .map(|a| KeyAttr {
                    name: a.name.to_owned(),
                    kind: a.kind,
                })
                .collect()
        };
        Self {
            name: v.name.to_owned(),
            attribute: v.attribute.to_owned(),
            dimensions: v.dimensions,
            distance: v.distance,
            hash: attrs(v.hash),
            filter: attrs(v.filter),
            projection: super::schema::projection(v.projection),
        }
    }

    /// Every vector index of a table declaration.
    pub(crate) fn all_of<T: Table>() -> Vec<Self> {
        T::VECTOR_INDEXES.iter().map(Self::of).collect()
    }

    fn search_schema(&self) -> impl Iterator<Item = &KeyAttr> {
        self.hash.iter().chain(&self.filter)
    }
}

/// A table position, ordered by the primary key it holds (the hash prefix
/// of the partition key left out): how equal scores are ordered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Row(Box<[u8]>);

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
    parts: HashMap<Vec<u8>, VectorSet<Row>>,
    /// Each indexed item's part and its `INLINE_FILTER` values.
    rows: HashMap<Row, (Vec<u8>, Item)>,
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
        Ok(())
    }
}

/// The `HASH` equalities a search condition gives (top-level `a = :v`
/// joined by `AND`) and what is left of it, checked against the index's
/// search schema as DynamoDB checks a `SearchConditionExpression`.
fn split<'c>(
    ix: &VectorIndexSchema,
    c: &'c Condition,
    hash: &mut Vec<(&'c str, &'c AttributeValue)>,
    rest: &mut Vec<&'c Condition>,
) -> Res<()> {
    let named = |p: &crate::expr::Path| -> Res<&KeyAttr> {
        if !p.steps().is_empty() {
            return Err(Fail::validation(
                "Invalid SearchConditionExpression: only top-level attributes of the search schema can be referenced",
            ));
        }
        ix.search_schema()
            .find(|a| a.name == p.attribute())
            .ok_or_else(|| {
                Fail::validation(format!(
                    "Invalid SearchConditionExpression: attribute {} is not in the search schema of index {}",
                    p.attribute(),
                    ix.name
                ))
            })
    };
    let is_hash = |a: &KeyAttr| ix.hash.iter().any(|h| h.name == a.name);
    match c {
        Condition::And(a, b) => {
            split(ix, a, hash, rest)?;
            split(ix, b, hash, rest)
        }
        Condition::Compare(Operand::Path(p), op, Operand::Value(v))
        | Condition::Compare(Operand::Value(v), op, Operand::Path(p)) => {
            let a = named(p)?;
            if is_hash(a) {
                if *op != Cmp::Eq {
                    return Err(Fail::validation(
                        "Invalid comparator used in SearchConditionExpression",
                    ));
                }
                hash.push((p.attribute(), v));
            } else {
                rest.push(c);
            }
            Ok(())
        }
        Condition::Between(Operand::Path(p), Operand::Value(_), Operand::Value(_)) => {
            if is_hash(named(p)?) {
                return Err(Fail::validation(
                    "Invalid comparator used in SearchConditionExpression",
                ));
            }
            rest.push(c);
            Ok(())
        }
        _ => Err(Fail::validation(
            "Invalid comparator used in SearchConditionExpression",
        )),
    }
}

/// SearchVectors on the store.
pub(crate) fn search_vectors(store: &Store, req: &SearchVectors) -> Res<Vec<ScoredItem>> {
    let table = store.table(&req.table)?;
    let Some(i) = table
        .schema
        .vectors
        .iter()
        .position(|v| v.name == req.index)
    else {
        return Err(Fail::validation(format!(
            "The table does not have the specified index: {}",
            req.index
        )));
    };
    let ix = &table.schema.vectors[i];
    if req.top_k == 0 || req.top_k > MAX_TOP_K {
        return Err(Fail::validation(
            "Provided TopK value is out of valid range",
        ));
    }
    match check_vector(&req.vector, ix.dimensions as usize) {
        Ok(()) => {}
        Err(VectorProblem::Dimensions { expected, found }) => {
            return Err(Fail::validation(format!(
                "Provided SearchVector has {found} dimensions, but index {} has {expected}",
                ix.name
            )));
        }
        Err(_) => {
            return Err(Fail::validation(
                "Provided SearchVector holds a value that is not a finite number",
            ));
        }
    }
    let condition = match &req.condition {
        Some(c) => Some(cond::prepare(c, "SearchConditionExpression")?),
        None => None,
    };
    let (mut hash, mut rest) = (Vec::new(), Vec::new());
    if let Some(c) = &condition {
        split(ix, c, &mut hash, &mut rest)?;
    }
    let mut part = Vec::new();
    for a in &ix.hash {
        let given: Vec<&AttributeValue> = hash
            .iter()
            .filter(|(n, _)| *n == a.name)
            .map(|(_, v)| *v)
            .collect();
        match given.as_slice() {
            [] => {
                return Err(Fail::validation(
                    "SearchConditionExpression must be provided when SearchSchema has a HASH key",
                ));
            }
            [v] if type_name(v) == a.kind.as_str() => order_val(&Val::of(v), &mut part),
            [_] => {
                return Err(Fail::validation(format!(
                    "One or more parameter values were invalid: Type mismatch for HASH attribute {} of vector index {}",
                    a.name, ix.name
                )));
            }
            _ => {
                return Err(Fail::validation(format!(
                    "Invalid SearchConditionExpression: HASH attribute {} is given more than once",
                    a.name
                )));
            }
        }
    }
    let projection = match &req.projection {
        None => None,
        Some(names) => {
            for n in names {
                if !projects(table, ix, n) {
                    return Err(Fail::validation(format!(
                        "Invalid ProjectionExpression: attribute {n} is not projected into vector index {}",
                        ix.name
                    )));
                }
            }
            let paths: Vec<crate::expr::Path> = names.iter().map(crate::expr::Path::new).collect();
            Some(Projection::new(&paths))
        }
    };
    let data = &table.vectors[i];
    let Some(set) = data.parts.get(&part) else {
        return Ok(Vec::new());
    };
    let found = set
        .search(&req.vector, req.top_k as usize, |row| {
            rest.is_empty()
                || data
                    .rows
                    .get(row)
                    .is_some_and(|(_, filters)| rest.iter().all(|c| cond::holds(c, filters)))
        })
        .map_err(|e| Fail::validation(e.to_string()))?;
    let mut out = Vec::with_capacity(found.len());
    for (row, score) in found {
        let Some(item) = table.item(&row.0)? else {
            continue;
        };
        let item = index_projection(table, ix, item);
        let item = match &projection {
            Some(p) => p.apply(item),
            None => item,
        };
        out.push(ScoredItem {
            item,
            score: f64::from(score),
        });
    }
    Ok(out)
}

/// Whether index `ix` projects attribute `name`: the table's keys and the
/// search schema always, the rest as its projection says.
fn projects(table: &TableData, ix: &VectorIndexSchema, name: &str) -> bool {
    table.schema.table_keys().any(|k| k.name == name)
        || ix.search_schema().any(|a| a.name == name)
        || match &ix.projection {
            IndexProjection::All => true,
            IndexProjection::KeysOnly => false,
            IndexProjection::Include(list) => list.iter().any(|a| a == name),
        }
}

fn index_projection(table: &TableData, ix: &VectorIndexSchema, mut item: Item) -> Item {
    if !matches!(ix.projection, IndexProjection::All) {
        item.retain(|name, _| projects(table, ix, name));
    }
    item
}
