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

use crate::codec::order_val;
use crate::cond;
use crate::error::{Fail, Res};
use crate::project::Projection;
use crate::schema::{IndexProjection, KeyAttr, VectorIndexSchema};
use crate::store::Store;
use crate::table::TableData;
use crate::value::{AttributeValue, Item, Val, type_name};
use singletable_core::expr::{Cmp, Condition, Operand};
use singletable_core::vector::{MAX_TOP_K, ScoredItem, SearchVectors, VectorProblem, check_vector};

/// The `HASH` equalities a search condition gives (top-level `a = :v`
/// joined by `AND`) and what is left of it, checked against the index's
/// search schema as DynamoDB checks a `SearchConditionExpression`.
fn split<'c>(
    ix: &VectorIndexSchema,
    c: &'c Condition,
    hash: &mut Vec<(&'c str, &'c AttributeValue)>,
    rest: &mut Vec<&'c Condition>,
) -> Res<()> {
    let named = |p: &singletable_core::expr::Path| -> Res<&KeyAttr> {
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
            let paths: Vec<singletable_core::expr::Path> = names
                .iter()
                .map(singletable_core::expr::Path::new)
                .collect();
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
