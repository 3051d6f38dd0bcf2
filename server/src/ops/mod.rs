//! The operations: each reads its JSON request, builds the runtime's
//! request value, hands it to the engine and writes the JSON response.

mod batch;
mod items;
mod legacy;
pub(crate) mod model;
mod partiql;
mod project;
mod reads;
mod streams;
mod tables;
mod transact;
mod vectors;

use serde_json::{Map, Value, json};
use singletable_core::value::{AttributeValue, Item};
use singletable_embedded::{Embedded, IndexProjection};

use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::wire;

pub(crate) type Res = Result<Value, ApiError>;

/// Runs the Streams API operation `op` on `body`; `None` when it is not
/// one this endpoint implements.
pub(crate) async fn dispatch_streams(
    ep: &Endpoint,
    op: &str,
    body: &Map<String, Value>,
) -> Option<Res> {
    streams::dispatch(ep, op, Body(body)).await
}

/// Runs `op` on `body`; `None` when the operation is not one this endpoint
/// implements.
pub(crate) async fn dispatch(ep: &Endpoint, op: &str, body: &Map<String, Value>) -> Option<Res> {
    let b = Body(body);
    if let Err(e) = model::check(op, b) {
        return Some(Err(e));
    }
    Some(match op {
        "GetItem" => items::get(ep, b).await,
        "PutItem" => items::put(ep, b).await,
        "UpdateItem" => items::update(ep, b).await,
        "DeleteItem" => items::delete(ep, b).await,
        "Query" => reads::query(ep, b).await,
        "Scan" => reads::scan(ep, b).await,
        "BatchGetItem" => batch::get(ep, b).await,
        "BatchWriteItem" => batch::write(ep, b).await,
        "TransactGetItems" => transact::get(ep, b).await,
        "TransactWriteItems" => transact::write(ep, b).await,
        "CreateTable" => tables::create(ep, b),
        "DescribeTable" => tables::describe(ep, b),
        "DeleteTable" => tables::delete(ep, b),
        "ListTables" => tables::list(ep, b),
        "UpdateTable" => tables::update(ep, b),
        "UpdateTimeToLive" => tables::update_ttl(ep, b),
        "SearchVectors" => vectors::search(ep, b).await,
        "DescribeTimeToLive" => tables::describe_ttl(ep, b),
        "ExpireItems" => tables::expire(ep, b),
        "TagResource" => tables::tag(ep, b),
        "UntagResource" => tables::untag(ep, b),
        "ListTagsOfResource" => tables::list_tags(ep, b),
        "ExecuteStatement" => partiql::execute(ep, b).await,
        "BatchExecuteStatement" => partiql::batch(ep, b).await,
        "ExecuteTransaction" => partiql::transaction(ep, b).await,
        _ => return None,
    })
}

/// A request body, with typed accessors that refuse wrong JSON types
/// (`SerializationException`, as DynamoDB answers them).
#[derive(Clone, Copy)]
pub(crate) struct Body<'a>(pub &'a Map<String, Value>);

fn wrong(name: &str, expected: &str) -> ApiError {
    ApiError::serialization(format!("{name} must be {expected}"))
}

/// `1 validation error detected: Value null at 'x' failed to satisfy
/// constraint: Member must not be null`.
pub(crate) fn required(name: &str) -> ApiError {
    model::refuse_one(
        model::Shown::Null,
        &model::member_name(name),
        "Member must not be null",
    )
}

impl<'a> Body<'a> {
    fn get(&self, name: &str) -> Option<&'a Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    pub(crate) fn str(&self, name: &str) -> Result<Option<&'a str>, ApiError> {
        self.get(name)
            .map(|v| v.as_str().ok_or_else(|| wrong(name, "a string")))
            .transpose()
    }

    pub(crate) fn req_str(&self, name: &str) -> Result<&'a str, ApiError> {
        self.str(name)?.ok_or_else(|| required(name))
    }

    /// `TableName`, naming a table by the model's rule (CreateTable's
    /// longer minimum is checked by [`model::check`] before).
    pub(crate) fn table(&self) -> Result<String, ApiError> {
        let t = self.req_str("TableName")?;
        if let Some(v) = model::table_name(t, 1) {
            return Err(model::refuse(&[v]));
        }
        Ok(t.to_owned())
    }

    pub(crate) fn bool(&self, name: &str) -> Result<bool, ApiError> {
        self.opt_bool(name).map(|b| b.unwrap_or(false))
    }

    /// A boolean member, `None` when absent (where absent means "leave as
    /// is", as in UpdateTable).
    pub(crate) fn opt_bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        self.get(name)
            .map(|v| v.as_bool().ok_or_else(|| wrong(name, "a boolean")))
            .transpose()
    }

    pub(crate) fn int(&self, name: &str) -> Result<Option<i64>, ApiError> {
        self.get(name)
            .map(|v| v.as_i64().ok_or_else(|| wrong(name, "an integer")))
            .transpose()
    }

    pub(crate) fn obj(&self, name: &str) -> Result<Option<Body<'a>>, ApiError> {
        self.get(name)
            .map(|v| {
                v.as_object()
                    .map(Body)
                    .ok_or_else(|| wrong(name, "a structure"))
            })
            .transpose()
    }

    pub(crate) fn array(&self, name: &str) -> Result<Option<&'a Vec<Value>>, ApiError> {
        self.get(name)
            .map(|v| v.as_array().ok_or_else(|| wrong(name, "a list")))
            .transpose()
    }

    pub(crate) fn item(&self, name: &str) -> Result<Option<Item>, ApiError> {
        self.get(name).map(wire::item).transpose()
    }

    pub(crate) fn req_item(&self, name: &str) -> Result<Item, ApiError> {
        self.item(name)?.ok_or_else(|| required(name))
    }

    /// One attribute value (`{"S": ...}`), when present.
    pub(crate) fn item_value(&self, name: &str) -> Result<Option<AttributeValue>, ApiError> {
        self.get(name).map(wire::value).transpose()
    }
}

/// `ReturnConsumedCapacity`: what a request's response reports.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Capacity {
    None,
    Total,
    Indexes,
}

impl Capacity {
    pub(crate) fn of(b: Body<'_>) -> Result<Self, ApiError> {
        Ok(match b.str("ReturnConsumedCapacity")? {
            None | Some("NONE") => Self::None,
            Some("TOTAL") => Self::Total,
            Some("INDEXES") => Self::Indexes,
            Some(other) => {
                return Err(model::refuse(&[model::not_in_set(
                    other,
                    "returnConsumedCapacity",
                    model::RETURN_CONSUMED_CAPACITY,
                )]));
            }
        })
    }
}

/// The capacity meter of the tables a request touches, read before it, so
/// the response can report the difference.
pub(crate) struct Meter {
    mode: Capacity,
    before: Vec<(String, Units)>,
    /// The index a Query or Scan reads (and whether it is global): with
    /// `INDEXES`, its read is reported on the index, none on the table.
    index: Option<(String, bool)>,
}

/// A table's meters: all its units, and (for `INDEXES`) each index's
/// write units, by name, with whether the index is global.
struct Units {
    total: f64,
    indexes: Vec<(String, bool, f64)>,
}

fn units(db: &Embedded, table: &str, mode: Capacity) -> Units {
    let total = db
        .consumed_capacity(table)
        .map_or(0.0, |c| c.read_units + c.write_units);
    if mode != Capacity::Indexes {
        return Units {
            total,
            indexes: Vec::new(),
        };
    }
    let globals = db.schema(table).map(|s| s.indexes).unwrap_or_default();
    let indexes = db
        .index_write_units(table)
        .unwrap_or_default()
        .into_iter()
        .zip(globals)
        .map(|((name, units), ix)| (name, ix.global, units))
        .collect();
    Units { total, indexes }
}

/// `{"CapacityUnits": units}` under each name, for one kind of index.
fn per_index<'a>(entries: impl Iterator<Item = (&'a str, f64)>) -> Option<Value> {
    let m: Map<String, Value> = entries
        .map(|(name, units)| (name.to_owned(), json!({"CapacityUnits": units})))
        .collect();
    (!m.is_empty()).then_some(Value::Object(m))
}

impl Meter {
    pub(crate) fn start(ep: &Endpoint, mode: Capacity, tables: &[&str]) -> Self {
        let before = if mode == Capacity::None {
            Vec::new()
        } else {
            tables
                .iter()
                .map(|t| ((*t).to_owned(), units(&ep.db, t, mode)))
                .collect()
        };
        Self {
            mode,
            before,
            index: None,
        }
    }

    /// Attributes the read to `index` of `table` (a Query or Scan with
    /// `IndexName`), as DynamoDB reports `INDEXES`.
    pub(crate) fn reading(mut self, ep: &Endpoint, table: &str, index: Option<&str>) -> Self {
        self.index = index.and_then(|name| {
            let ix = ep
                .db
                .schema(table)?
                .indexes
                .into_iter()
                .find(|i| i.name == name)?;
            Some((ix.name, ix.global))
        });
        self
    }

    /// Adds `ConsumedCapacity` to `out` (one entry, or a list when `list`).
    /// With `INDEXES`, a write reports each index whose entries it wrote
    /// (`GlobalSecondaryIndexes`, `LocalSecondaryIndexes`) and the rest on
    /// `Table`; a read of an index reports it on that index.
    pub(crate) fn finish(self, ep: &Endpoint, out: &mut Map<String, Value>, list: bool) {
        if self.mode == Capacity::None {
            return;
        }
        let entries: Vec<Value> = self
            .before
            .iter()
            .map(|(t, before)| {
                let after = units(&ep.db, t, self.mode);
                let used = (after.total - before.total).max(0.0);
                let mut m = json!({"TableName": t, "CapacityUnits": used});
                if self.mode != Capacity::Indexes {
                    return m;
                }
                if let Some((name, global)) = &self.index {
                    m["Table"] = json!({"CapacityUnits": 0.0});
                    let kind = if *global {
                        "GlobalSecondaryIndexes"
                    } else {
                        "LocalSecondaryIndexes"
                    };
                    m[kind] = json!({name.as_str(): {"CapacityUnits": used}});
                    return m;
                }
                // Indexes are matched by name: the request changed no schema.
                let written: Vec<(&str, bool, f64)> = after
                    .indexes
                    .iter()
                    .filter_map(|(name, global, units)| {
                        let was = before
                            .indexes
                            .iter()
                            .find(|(n, ..)| n == name)
                            .map_or(0.0, |(.., u)| *u);
                        (units > &was).then_some((name.as_str(), *global, units - was))
                    })
                    .collect();
                let on_indexes: f64 = written.iter().map(|(.., u)| u).sum();
                m["Table"] = json!({"CapacityUnits": (used - on_indexes).max(0.0)});
                for (kind, global) in [
                    ("GlobalSecondaryIndexes", true),
                    ("LocalSecondaryIndexes", false),
                ] {
                    let of_kind = written
                        .iter()
                        .filter(|(_, g, _)| *g == global)
                        .map(|(n, _, u)| (*n, *u));
                    if let Some(v) = per_index(of_kind) {
                        m[kind] = v;
                    }
                }
                m
            })
            .collect();
        let value = if list {
            Value::Array(entries)
        } else {
            entries.into_iter().next().unwrap_or(Value::Null)
        };
        out.insert("ConsumedCapacity".into(), value);
    }
}

/// A member that is `NONE` (or absent) or one other value: whether it is
/// that value; any other text is DynamoDB's enum ValidationException.
fn switch(b: Body<'_>, member: &str, on: &str) -> Result<bool, ApiError> {
    match b.str(member)? {
        None | Some("NONE") => Ok(false),
        Some(v) if v == on => Ok(true),
        Some(other) => Err(model::refuse(&[model::not_in_set(
            other,
            &model::member_name(member),
            &[on, "NONE"],
        )])),
    }
}

/// `ReturnValuesOnConditionCheckFailure`: `ALL_OLD` or `NONE`.
pub(crate) fn on_failure(b: Body<'_>) -> Result<bool, ApiError> {
    switch(b, "ReturnValuesOnConditionCheckFailure", "ALL_OLD")
}

/// `ReturnItemCollectionMetrics`: `SIZE` or `NONE`.
pub(crate) fn collection_metrics_wanted(b: Body<'_>) -> Result<bool, ApiError> {
    switch(b, "ReturnItemCollectionMetrics", "SIZE")
}

/// The `ItemCollectionMetrics` of a write to the item with key `key`, on a
/// table with a local index (DynamoDB reports none for other tables): the
/// partition key, and the collection's size as a range of whole gigabytes.
pub(crate) fn collection_metrics(ep: &Endpoint, table: &str, key: &Item) -> Option<Value> {
    let schema = ep.db.schema(table)?;
    if schema.indexes.iter().all(|ix| ix.global) {
        return None;
    }
    let pk = key.get(&schema.pk.name)?;
    let bytes = ep.db.item_collection_size(table, pk)?;
    let low = (bytes / (1 << 30)) as f64;
    let mut k = Map::new();
    k.insert(schema.pk.name.clone(), wire::to_json(pk));
    Some(json!({"ItemCollectionKey": k, "SizeEstimateRangeGB": [low, low + 1.0]}))
}

/// `ItemCollectionMetrics` of a batch or transaction: per table, one
/// entry per item collection its writes (`(table, key)`, in request order)
/// touched; `None` when none is reported.
pub(crate) fn collections_metrics(ep: &Endpoint, writes: &[(String, Item)]) -> Option<Value> {
    let mut out: Map<String, Value> = Map::new();
    for (table, key) in writes {
        let Some(m) = collection_metrics(ep, table, key) else {
            continue;
        };
        let list = out
            .entry(table.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list
            && !list
                .iter()
                .any(|x| x["ItemCollectionKey"] == m["ItemCollectionKey"])
        {
            list.push(m);
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The key attributes of `table` (of its index `index`, when given):
/// what a legacy update or `QueryFilter` may not name.
pub(crate) fn key_names(ep: &Endpoint, table: &str, index: Option<&str>) -> Vec<String> {
    let Some(schema) = ep.db.schema(table) else {
        return Vec::new();
    };
    let (pk, sk, rest) = match index.and_then(|n| schema.indexes.iter().find(|i| i.name == n)) {
        Some(ix) => (
            ix.pk.clone(),
            ix.sk.clone(),
            ix.pk_rest.iter().chain(&ix.sk_rest).cloned().collect(),
        ),
        None => (schema.pk.clone(), schema.sk.clone(), Vec::new()),
    };
    std::iter::once(pk)
        .chain(sk)
        .chain(rest)
        .map(|k| k.name)
        .collect()
}

/// The runtime's error, as the engine raised it, on the wire.
pub(crate) fn engine(e: singletable_core::error::Error) -> ApiError {
    use singletable_core::error::Error;
    use singletable_embedded::EmbeddedError;
    match e {
        Error::ConditionFailed { item } => {
            let mut out = ApiError::dynamodb(
                "ConditionalCheckFailedException",
                "The conditional request failed",
            );
            if let Some(item) = item {
                out.extra.insert("Item".into(), wire::item_json(&item));
            }
            out
        }
        Error::TransactionCanceled { reasons } => {
            let codes: Vec<&str> = reasons.iter().map(|r| r.code.as_str()).collect();
            let mut out = ApiError::dynamodb(
                "TransactionCanceledException",
                format!(
                    "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                    codes.join(", ")
                ),
            );
            let list: Vec<Value> = reasons
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    m.insert("Code".into(), json!(r.code));
                    if let Some(msg) = &r.message {
                        m.insert("Message".into(), json!(msg));
                    }
                    if let Some(item) = &r.item {
                        m.insert("Item".into(), wire::item_json(item));
                    }
                    Value::Object(m)
                })
                .collect();
            out.extra
                .insert("CancellationReasons".into(), Value::Array(list));
            out
        }
        Error::Service {
            source, message, ..
        } => match source.downcast_ref::<EmbeddedError>() {
            Some(e) if e.code == "ValidationException" => ApiError::validation(e.message.clone()),
            Some(e) => ApiError::dynamodb(e.code, e.message.clone()),
            None => ApiError::dynamodb("InternalServerError", message),
        },
        e @ Error::StreamTrimmed { .. } => {
            ApiError::dynamodb("TrimmedDataAccessException", e.to_string())
        }
        other => ApiError::validation(other.to_string()),
    }
}

pub(crate) fn index_projection(b: Body<'_>) -> Result<IndexProjection, ApiError> {
    let p = b.obj("Projection")?.ok_or_else(|| required("Projection"))?;
    Ok(match p.str("ProjectionType")? {
        None | Some("ALL") => IndexProjection::All,
        Some("KEYS_ONLY") => IndexProjection::KeysOnly,
        Some("INCLUDE") => {
            let list = p
                .array("NonKeyAttributes")?
                .ok_or_else(|| required("NonKeyAttributes"))?;
            IndexProjection::Include(
                list.iter()
                    .map(|v| {
                        v.as_str().map(str::to_owned).ok_or_else(|| {
                            ApiError::serialization("NonKeyAttributes must be strings")
                        })
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
        Some(other) => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]"
            )));
        }
    })
}

pub(crate) fn index_projection_json(p: &IndexProjection) -> Value {
    match p {
        IndexProjection::All => json!({"ProjectionType": "ALL"}),
        IndexProjection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
        IndexProjection::Include(a) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": a}),
    }
}
