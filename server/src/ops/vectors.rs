//! Vector indexes on the wire: CreateTable's `VectorIndexes`, their
//! DescribeTable description, UpdateTable's `VectorIndexUpdates`, and
//! SearchVectors, answered by the engine's exact search.
//!
//! Validation messages are DynamoDB's: model validation
//! (`1 validation error detected: ...`) for members outside their
//! documented ranges and enums, and the service's own wording for the
//! rules between members (a search-schema attribute missing from
//! `AttributeDefinitions`, the vector attribute in them, vector indexes on a
//! provisioned table, more than five per table).

use serde_json::{Map, Value, json};
use singletable_core::exec::Executor;
use singletable_core::vector::{Distance, SearchVectors};
use singletable_embedded::{KeyAttr, KeyType, TableSchema, VectorIndexSchema};

use super::items::{condition, finish, projection};
use super::{Body, Capacity, Res, engine, required};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::expr::Placeholders;
use crate::wire;

/// DynamoDB's limit of vector indexes per table.
const MAX_PER_TABLE: usize = 5;
/// DynamoDB's largest number of dimensions.
const MAX_DIMENSIONS: i64 = 4096;

fn invalid(what: &str) -> ApiError {
    ApiError::validation(format!("One or more parameter values were invalid: {what}"))
}

/// `1 validation error detected` for member `member` of the `i`-th
/// (1-based) vector index of list `list`.
fn model(list: &str, i: usize, member: &str, value: &str, constraint: &str) -> ApiError {
    ApiError::validation(format!(
        "1 validation error detected: Value '{value}' at '{list}.{i}.member.{member}' failed to satisfy constraint: {constraint}"
    ))
}

/// One vector index (`VectorIndex` or `CreateVectorIndexAction`): the
/// `i`-th of `list`, its search schema checked against `defs`.
fn index(
    b: Body<'_>,
    list: &str,
    i: usize,
    defs: &[(String, KeyType)],
) -> Result<VectorIndexSchema, ApiError> {
    let name = b.req_str("IndexName")?;
    if name.len() < 3 || name.len() > 255 {
        return Err(model(
            list,
            i,
            "indexName",
            name,
            "Member must have length greater than or equal to 3",
        ));
    }
    let attribute = b
        .obj("VectorAttribute")?
        .ok_or_else(|| required("VectorAttribute"))?
        .req_str("AttributeName")?
        .to_owned();
    let dimensions = b.int("Dimensions")?.ok_or_else(|| required("Dimensions"))?;
    if dimensions < 1 {
        return Err(model(
            list,
            i,
            "dimensions",
            &dimensions.to_string(),
            "Member must have value greater than or equal to 1",
        ));
    }
    if dimensions > MAX_DIMENSIONS {
        return Err(invalid(
            "Number of dimensions must be between 1 and 4096 inclusive.",
        ));
    }
    let distance = b.req_str("DistanceFunction")?;
    let distance = Distance::from_name(distance).ok_or_else(|| {
        model(
            list,
            i,
            "distanceFunction",
            distance,
            "Member must satisfy enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]",
        )
    })?;
    let (mut hash, mut filter) = (Vec::new(), Vec::new());
    for e in b.array("SearchSchema")?.into_iter().flatten() {
        let e =
            Body(e.as_object().ok_or_else(|| {
                ApiError::serialization("SearchSchemaElement must be a structure")
            })?);
        let name = e.req_str("AttributeName")?;
        let kind = defs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| *k)
            .ok_or_else(|| {
                invalid("One element in SearchSchema is not defined in attribute definitions")
            })?;
        let attr = KeyAttr {
            name: name.to_owned(),
            kind,
        };
        match e.req_str("SearchSchemaElementType")? {
            "HASH" => hash.push(attr),
            "INLINE_FILTER" => filter.push(attr),
            other => {
                return Err(model(
                    list,
                    i,
                    "searchSchema.1.member.searchSchemaElementType",
                    other,
                    "Member must satisfy enum value set: [HASH, INLINE_FILTER]",
                ));
            }
        }
    }
    if defs.iter().any(|(n, _)| *n == attribute) {
        return Err(invalid(&format!(
            "Conflicting attribute definition for '{attribute}'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute."
        )));
    }
    Ok(VectorIndexSchema {
        name: name.to_owned(),
        attribute,
        dimensions: dimensions as u32,
        distance,
        hash,
        filter,
        projection: super::index_projection(b)?,
    })
}

/// CreateTable's `VectorIndexes`, checked as DynamoDB checks them; `billing`
/// is the table's billing mode.
pub(crate) fn create(
    b: Body<'_>,
    defs: &[(String, KeyType)],
    billing: &str,
) -> Result<Vec<VectorIndexSchema>, ApiError> {
    let Some(list) = b.array("VectorIndexes")? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let v = Body(
            v.as_object()
                .ok_or_else(|| ApiError::serialization("VectorIndex must be a structure"))?,
        );
        out.push(index(v, "vectorIndexes", i + 1, defs)?);
    }
    if !out.is_empty() && billing != "PAY_PER_REQUEST" {
        return Err(invalid(
            "Vector indexes are only supported for PAY_PER_REQUEST tables",
        ));
    }
    if out.len() > MAX_PER_TABLE {
        return Err(invalid(
            "VectorIndex count exceeds the per-table limit of 5",
        ));
    }
    same_dimensions(&out)?;
    Ok(out)
}

/// Every vector index on one attribute has the same dimensions.
fn same_dimensions(all: &[VectorIndexSchema]) -> Result<(), ApiError> {
    for (i, v) in all.iter().enumerate() {
        if all[..i]
            .iter()
            .any(|w| w.attribute == v.attribute && w.dimensions != v.dimensions)
        {
            return Err(invalid(&format!(
                "Conflicting attribute definition for '{}'. All VectorIndexes on the same vector attribute must use the same dimensions.",
                v.attribute
            )));
        }
    }
    Ok(())
}

/// UpdateTable's `VectorIndexUpdates` on `table` (whose billing mode is
/// `billing`): each `Create` is built from the items already stored,
/// each `Delete` drops its index. Search-schema attributes must be in the
/// request's own `AttributeDefinitions`, as DynamoDB checks them.
pub(crate) fn update(
    ep: &Endpoint,
    table: &str,
    b: Body<'_>,
    defs: &[(String, KeyType)],
    billing: &str,
) -> Result<(), ApiError> {
    let Some(list) = b.array("VectorIndexUpdates")? else {
        return Ok(());
    };
    for (i, u) in list.iter().enumerate() {
        let u = Body(
            u.as_object()
                .ok_or_else(|| ApiError::serialization("VectorIndexUpdate must be a structure"))?,
        );
        if let Some(c) = u.obj("Create")? {
            let ix = index(c, "vectorIndexUpdates", i + 1, defs)?;
            if billing != "PAY_PER_REQUEST" {
                return Err(invalid(
                    "Vector indexes are only supported for PAY_PER_REQUEST tables",
                ));
            }
            let mut all = ep.db.schema(table).map(|s| s.vectors).unwrap_or_default();
            if all.len() >= MAX_PER_TABLE {
                return Err(ApiError::dynamodb(
                    "LimitExceededException",
                    "Subscriber limit exceeded: Number of vector secondary indexes exceeds per-table limit of 5",
                ));
            }
            all.push(ix.clone());
            same_dimensions(&all)?;
            ep.db.add_vector_index(table, ix).map_err(engine)?;
        } else if let Some(d) = u.obj("Delete")? {
            let name = d.req_str("IndexName")?;
            if !ep.db.remove_vector_index(table, name).map_err(engine)? {
                return Err(ApiError::not_found(format!(
                    "Requested resource not found: Index: {name} not found"
                )));
            }
        }
    }
    Ok(())
}

/// DescribeTable's `VectorIndexes` of `table`, `None` when it has none:
/// each ACTIVE (the engine builds an index at once), with the items it
/// holds and their size from the engine's statistics.
pub(crate) fn describe(
    ep: &Endpoint,
    table: &str,
    schema: &TableSchema,
    arn: &str,
) -> Option<Value> {
    if schema.vectors.is_empty() {
        return None;
    }
    let stats = ep.db.table_stats(table).unwrap_or_default();
    let list = schema
        .vectors
        .iter()
        .map(|v| {
            let (count, size) = stats
                .vectors
                .iter()
                .find(|s| s.name == v.name)
                .map_or((0, 0), |s| (s.item_count, s.size_bytes));
            let schema: Vec<Value> = v
                .hash
                .iter()
                .map(|a| (a, "HASH"))
                .chain(v.filter.iter().map(|a| (a, "INLINE_FILTER")))
                .map(|(a, t)| json!({"AttributeName": a.name, "SearchSchemaElementType": t}))
                .collect();
            let mut d = json!({
                "IndexName": v.name,
                "VectorAttribute": {"AttributeName": v.attribute},
                "Dimensions": v.dimensions,
                "DistanceFunction": v.distance.name(),
                "Projection": super::index_projection_json(&v.projection),
                "IndexStatus": "ACTIVE",
                "IndexSizeBytes": size,
                "ItemCount": count,
                "IndexArn": format!("{arn}/index/{}", v.name),
            });
            if !schema.is_empty() {
                d["SearchSchema"] = Value::Array(schema);
            }
            d
        })
        .collect();
    Some(Value::Array(list))
}

/// `VectorSearchRequestBytes` of a search: a deterministic stand-in for
/// what DynamoDB meters ("scales with the size of the vector data the
/// search examines and returns", developer guide, monitoring vector index
/// capacity). The vectors an approximate search reads at the least, `TopK`
/// of them at 4 bytes per dimension, plus the results it returns, each
/// counted as DynamoDB counts an item's size (so returning the vector
/// attribute costs more, as the guide says). It does not grow with the
/// index's size, as DynamoDB's logarithmic search barely does; DynamoDB's
/// own figure is not reproducible between identical calls.
fn search_bytes(
    dimensions: u32,
    top_k: u32,
    results: &[singletable_core::vector::ScoredItem],
) -> f64 {
    let examined = 4 * u64::from(dimensions) * u64::from(top_k);
    let returned: u64 = results
        .iter()
        .map(|r| singletable_core::size::item_size(&r.item) as u64)
        .sum();
    (examined + returned) as f64
}

/// `SearchVector`: a list of `{"N": ..}`, each a 32-bit float.
fn search_vector(b: Body<'_>) -> Result<Vec<f32>, ApiError> {
    let list = b
        .array("SearchVector")?
        .ok_or_else(|| required("SearchVector"))?;
    let mut out = Vec::with_capacity(list.len());
    for v in list {
        out.push(singletable_core::vector::element(&wire::value(v)?).ok_or_else(|| {
            ApiError::validation(
                "One or more parameter values were invalid: SearchVector elements must be numbers (N) that are 32-bit floating point values",
            )
        })?);
    }
    Ok(out)
}

/// SearchVectors: the engine's exact search, through the executor.
pub(crate) async fn search(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    let index = b.req_str("IndexName")?.to_owned();
    let capacity = Capacity::of(b)?;
    let vector = search_vector(b)?;
    let top_k = b.int("TopK")?.ok_or_else(|| required("TopK"))?;
    if !(1..=i64::from(singletable_core::vector::MAX_TOP_K)).contains(&top_k) {
        let bound = if top_k < 1 {
            "greater than or equal to 1"
        } else {
            "less than or equal to 100"
        };
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{top_k}' at 'topK' failed to satisfy constraint: Member must have value {bound}"
        )));
    }
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let cond = condition(b, "SearchConditionExpression", &mut ph, &mut used)?;
    let paths = projection(b, &mut ph, &mut used)?;
    finish(&ph, used, &["SearchConditionExpression"])?;
    let projection = paths
        .map(|paths| {
            paths
                .into_iter()
                .map(|p| {
                    if p.steps().is_empty() {
                        Ok(p.attribute().to_owned())
                    } else {
                        Err(ApiError::validation(
                            "Invalid ProjectionExpression: only top-level attributes projected into the vector index can be retrieved",
                        ))
                    }
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let dimensions = ep
        .db
        .schema(&table)
        .and_then(|s| s.vectors.into_iter().find(|v| v.name == index))
        .map_or(0, |v| v.dimensions);
    let req = SearchVectors {
        table,
        index: index.clone(),
        vector,
        condition: cond,
        top_k: top_k as u32,
        projection,
    };
    let found = ep.db.search_vectors(req).await.map_err(engine)?;
    let mut out = Map::new();
    if capacity != Capacity::None {
        // The same shape under TOTAL and INDEXES: `SearchVectorsOutput`'s
        // `ConsumedCapacity` is a `VectorCapacity`.
        out.insert(
            "ConsumedCapacity".into(),
            json!({"VectorSearchRequestBytes": search_bytes(dimensions, top_k as u32, &found)}),
        );
    }
    let results: Vec<Value> = found
        .iter()
        .map(|r| json!({"Item": wire::item_json(&r.item), "Score": r.score}))
        .collect();
    out.insert("SearchResults".into(), Value::Array(results));
    Ok(Value::Object(out))
}
