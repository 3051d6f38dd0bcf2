//! PartiQL: `ExecuteStatement`, `BatchExecuteStatement` and
//! `ExecuteTransaction`. Each statement is parsed ([`parse`]) into the
//! runtime's requests — a `SELECT` into a Query (with an equality or `IN`
//! on the partition key, as DynamoDB plans it) or a Scan, `INSERT` into a
//! PutItem that refuses an existing key, `UPDATE` and `DELETE` into
//! UpdateItem and DeleteItem on the key the `WHERE` names, the rest of the
//! `WHERE` as their condition — and handed to the engine: nothing here
//! evaluates a condition or applies an update.

mod parse;
mod plan;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use singletable_core::exec::Executor;
use singletable_core::expr::{
    AttrKeyCondition, AttrRange, Cmp, Condition, KeyCondition, Operand, Path, PathStep,
};
use singletable_core::request::{
    ConditionCheck, DeleteItem, PutItem, QueryRequest, ReturnValues, ScanRequest, TransactGet,
    TransactWrite, TransactWriteOp, UpdateItem,
};
use singletable_core::value::{AttributeValue, Item};
use singletable_embedded::Embedded;

use self::parse::Statement;
use self::plan::*;
use super::project::checked;
use super::reads::limit;
use super::{Body, Capacity, Meter, Res, engine, on_failure, required};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::wire;

/// A statement is at most 8192 characters.
const MAX_STATEMENT: usize = 8192;

fn statement_text(b: Body<'_>) -> Result<&str, ApiError> {
    let text = b.req_str("Statement")?;
    if text.is_empty() || text.len() > MAX_STATEMENT {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length less than or equal to {MAX_STATEMENT}, Member must have length greater than or equal to 1"
        )));
    }
    Ok(text)
}

fn parameters(b: Body<'_>) -> Result<Vec<AttributeValue>, ApiError> {
    match b.array("Parameters")? {
        None => Ok(Vec::new()),
        Some(list) if list.is_empty() => Err(ApiError::validation(
            "1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1",
        )),
        Some(list) => list.iter().map(wire::value).collect(),
    }
}

/// The statement of `b` (`Statement` and `Parameters`), parsed.
fn parsed(b: Body<'_>) -> Result<Statement, ApiError> {
    let text = statement_text(b)?;
    parse::statement(text, parameters(b)?)
}

/// The key attributes of a table or of one of its indexes: partition
/// attributes, then sort attributes.
struct Keys {
    hash: Vec<String>,
    range: Vec<String>,
}

fn keys(ep: &Endpoint, table: &str, index: Option<&str>) -> Result<Keys, ApiError> {
    let schema = ep
        .db
        .schema(table)
        .ok_or_else(|| ApiError::not_found("Cannot do operations on a non-existent table"))?;
    match index {
        None => Ok(Keys {
            hash: vec![schema.pk.name.clone()],
            range: schema.sk.iter().map(|k| k.name.clone()).collect(),
        }),
        Some(name) => {
            let ix = schema
                .indexes
                .iter()
                .find(|i| i.name == name)
                .ok_or_else(|| {
                    ApiError::validation(format!(
                        "The table does not have the specified index: {name}"
                    ))
                })?;
            Ok(Keys {
                hash: std::iter::once(&ix.pk)
                    .chain(&ix.pk_rest)
                    .map(|k| k.name.clone())
                    .collect(),
                range: ix
                    .sk
                    .iter()
                    .chain(&ix.sk_rest)
                    .map(|k| k.name.clone())
                    .collect(),
            })
        }
    }
}

/// Where the next page of a `SELECT` starts: the partition (of an `IN`)
/// and the key after which to go on, with the fingerprint of the statement
/// and parameters it is a page of (a token is refused with any other, as
/// DynamoDB refuses it).
fn token(partition: usize, key: Option<&Item>, statement: u32) -> String {
    let v = json!({"p": partition, "k": key.map(wire::item_json), "s": statement});
    STANDARD.encode(v.to_string())
}

/// The fingerprint a `NextToken` carries: the request's `Statement` and
/// `Parameters`.
fn fingerprint(b: Body<'_>) -> u32 {
    let statement =
        b.0.get("Statement")
            .map(Value::to_string)
            .unwrap_or_default();
    let parameters =
        b.0.get("Parameters")
            .map(Value::to_string)
            .unwrap_or_default();
    crate::crc32(format!("{statement}\n{parameters}").as_bytes())
}

fn read_token(text: &str, statement: u32) -> Result<(usize, Option<Item>), ApiError> {
    let bad = || ApiError::validation("Invalid NextToken");
    let bytes = STANDARD.decode(text).map_err(|_| bad())?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    if v["s"].as_u64() != Some(u64::from(statement)) {
        return Err(bad());
    }
    let p = v["p"].as_u64().ok_or_else(bad)? as usize;
    let k = match &v["k"] {
        Value::Null => None,
        k => Some(wire::item(k).map_err(|_| bad())?),
    };
    Ok((p, k))
}

/// A `SELECT`'s projection applied to one item by the engine's projection
/// ([`Embedded::project`]). As DynamoDB's PartiQL answers it, a nested
/// path comes back at the top level of the result, named by its last map
/// key and the list indexes after it (`SELECT m.k, l[1]` gives `k` and
/// `l[1]`).
fn shape(item: Item, paths: Option<&[Path]>) -> Item {
    let Some(paths) = paths else {
        return item;
    };
    if paths.iter().all(|p| p.steps().is_empty()) {
        return Embedded::project(item, paths);
    }
    let mut out = Item::new();
    for p in paths {
        let steps = p.steps();
        let last_key = steps.iter().rposition(|s| matches!(s, PathStep::Key(_)));
        let mut name = match last_key.map(|i| &steps[i]) {
            Some(PathStep::Key(k)) => k.clone(),
            _ => p.attribute().to_owned(),
        };
        for s in &steps[last_key.map_or(0, |i| i + 1)..] {
            if let PathStep::Index(i) = s {
                name.push_str(&format!("[{i}]"));
            }
        }
        let projected = Embedded::project(item.clone(), std::slice::from_ref(p));
        let mut v = projected.get(p.attribute()).cloned();
        for s in steps {
            v = match (v, s) {
                (Some(AttributeValue::M(mut m)), PathStep::Key(k)) => m.remove(k),
                (Some(AttributeValue::L(l)), PathStep::Index(_)) => l.into_iter().next(),
                _ => None,
            };
        }
        if let Some(v) = v {
            out.insert(name, v);
        }
    }
    out
}

/// A `SELECT`: its items and where the next page starts.
struct Selected {
    items: Vec<Item>,
    next: Option<(usize, Option<Item>)>,
    last_key: Option<Item>,
}

#[allow(clippy::too_many_arguments)]
async fn select(
    ep: &Endpoint,
    table: String,
    index: Option<String>,
    projection: Option<Vec<Path>>,
    filter: Option<Condition>,
    order: Option<(Path, bool)>,
    consistent: bool,
    lim: Option<i32>,
    from: Option<(usize, Option<Item>)>,
) -> Result<Selected, ApiError> {
    let keys = keys(ep, &table, index.as_deref())?;
    match plan(filter, &keys) {
        Plan::Scan { .. } if order.is_some() => Err(ApiError::validation(
            "Must have WHERE clause in the statement when using ORDER BY clause.",
        )),
        Plan::Scan { filter } => {
            let start = from.and_then(|(_, k)| k);
            let p = ep
                .db
                .scan(ScanRequest {
                    table,
                    index,
                    filter,
                    limit: lim,
                    consistent,
                    start,
                    segment: None,
                    projection: None,
                })
                .await
                .map_err(engine)?;
            checked(projection.as_deref())?;
            let items = p
                .items
                .into_iter()
                .map(|i| shape(i, projection.as_deref()))
                .collect();
            Ok(Selected {
                items,
                next: p.last_key.clone().map(|k| (0, Some(k))),
                last_key: p.last_key,
            })
        }
        Plan::Query {
            keys: parts,
            filter,
        } => {
            checked(projection.as_deref())?;
            let forward = match &order {
                None => true,
                Some((p, descending)) => {
                    if !(p.steps().is_empty()
                        && keys.range.first().map(String::as_str) == Some(p.attribute()))
                    {
                        return Err(ApiError::validation(format!(
                            "Unsupported attribute in ORDER BY clause: {}; ORDER BY takes the sort key",
                            p.attribute()
                        )));
                    }
                    !descending
                }
            };
            let keys = parts;
            let (mut partition, mut start) = from.unwrap_or((0, None));
            let mut items = Vec::new();
            let mut left = lim;
            while partition < keys.len() {
                let p = ep
                    .db
                    .query(QueryRequest {
                        table: table.clone(),
                        index: index.clone(),
                        key: KeyCondition {
                            pk_attr: String::new(),
                            pk: String::new(),
                            sk: None,
                            attrs: Some(keys[partition].clone()),
                        },
                        filter: filter.clone(),
                        limit: left,
                        forward,
                        consistent,
                        projection: None,
                        start: start.take(),
                    })
                    .await
                    .map_err(engine)?;
                items.extend(p.items.into_iter().map(|i| shape(i, projection.as_deref())));
                if let Some(k) = p.last_key {
                    return Ok(Selected {
                        items,
                        next: Some((partition, Some(k.clone()))),
                        last_key: Some(k),
                    });
                }
                partition += 1;
                if let Some(n) = left.as_mut() {
                    *n -= p.scanned.unwrap_or(0) as i32;
                    if *n <= 0 {
                        break;
                    }
                }
            }
            let next = (partition < keys.len()).then_some((partition, None));
            Ok(Selected {
                items,
                next,
                last_key: None,
            })
        }
    }
}

/// A write statement as the engine's request.
enum Write {
    Insert(PutItem),
    Update(UpdateItem),
    Delete(DeleteItem),
    /// `EXISTS(...)`: only in a transaction.
    Check(ConditionCheck),
}

fn write_request(ep: &Endpoint, st: Statement, on_fail: bool) -> Result<Write, ApiError> {
    match st {
        Statement::Insert { table, item } => {
            let k = keys(ep, &table, None)?;
            Ok(Write::Insert(PutItem {
                table,
                item,
                condition: Some(Condition::not_exists(k.hash[0].as_str())),
                return_old: false,
                return_on_condition_failure: on_fail,
            }))
        }
        Statement::Update {
            table,
            actions,
            filter,
            returning,
        } => {
            let k = keys(ep, &table, None)?;
            let (key, rest) = full_key(filter, &k)?;
            Ok(Write::Update(UpdateItem {
                table,
                key,
                actions,
                condition: Some(Condition::exists(k.hash[0].as_str()).and_maybe(rest)),
                return_values: returning,
                return_on_condition_failure: on_fail,
            }))
        }
        Statement::Delete {
            table,
            filter,
            returning,
        } => {
            let k = keys(ep, &table, None)?;
            let (key, rest) = full_key(filter, &k)?;
            Ok(Write::Delete(DeleteItem {
                table,
                key,
                condition: rest,
                return_old: returning,
                return_on_condition_failure: on_fail,
            }))
        }
        Statement::Exists { table, filter } => {
            let k = keys(ep, &table, None)?;
            let (key, rest) = full_key(filter, &k).map_err(|_| parse::not_single_read())?;
            Ok(Write::Check(ConditionCheck {
                table,
                key,
                condition: rest.ok_or_else(parse::not_single_read)?,
                return_on_condition_failure: on_fail,
            }))
        }
        Statement::Select { .. } => Err(ApiError::validation("not a write statement")),
    }
}

/// An INSERT whose key exists: DynamoDB's `DuplicateItemException`.
fn duplicate() -> ApiError {
    ApiError::dynamodb(
        "DuplicateItemException",
        "Duplicate primary key exists in table",
    )
}

/// Runs one write; the items it returns (`RETURNING`).
async fn write(ep: &Endpoint, w: Write) -> Result<Vec<Item>, ApiError> {
    match w {
        Write::Insert(p) => match ep.db.put_item(p).await {
            Ok(_) => Ok(Vec::new()),
            Err(singletable_core::error::Error::ConditionFailed { .. }) => Err(duplicate()),
            Err(e) => Err(engine(e)),
        },
        Write::Update(u) => {
            let wanted = u.return_values != ReturnValues::None;
            let r = ep.db.update_item(u).await.map_err(engine)?;
            Ok(r.filter(|i| wanted && !i.is_empty()).into_iter().collect())
        }
        Write::Delete(d) => {
            let wanted = d.return_old;
            let r = ep.db.delete_item(d).await.map_err(engine)?;
            Ok(r.filter(|i| wanted && !i.is_empty()).into_iter().collect())
        }
        Write::Check(_) => Err(ApiError::validation(
            "EXISTS can only be used in ExecuteTransaction write requests.",
        )),
    }
}

pub(crate) async fn execute(ep: &Endpoint, b: Body<'_>) -> Res {
    let st = parsed(b)?;
    let capacity = Capacity::of(b)?;
    let consistent = b.bool("ConsistentRead")?;
    let on_fail = on_failure(b)?;
    let lim = limit(b, "ExecuteStatement")?;
    let statement = fingerprint(b);
    let from = b
        .str("NextToken")?
        .map(|t| read_token(t, statement))
        .transpose()?;
    let table = st.table().to_owned();
    let mut out = Map::new();
    let meter = Meter::start(ep, capacity, &[&table]);
    match st {
        Statement::Select {
            table,
            index,
            projection,
            filter,
            order,
        } => {
            let s = select(
                ep, table, index, projection, filter, order, consistent, lim, from,
            )
            .await?;
            let items: Vec<Value> = s.items.iter().map(wire::item_json).collect();
            out.insert("Items".into(), Value::Array(items));
            if let Some((p, k)) = &s.next {
                out.insert("NextToken".into(), json!(token(*p, k.as_ref(), statement)));
            }
            if let Some(k) = &s.last_key {
                out.insert("LastEvaluatedKey".into(), wire::item_json(k));
            }
        }
        st => {
            let items = write(ep, write_request(ep, st, on_fail)?).await?;
            let items: Vec<Value> = items.iter().map(wire::item_json).collect();
            out.insert("Items".into(), Value::Array(items));
        }
    }
    meter.finish(ep, &mut out, false);
    Ok(Value::Object(out))
}

/// A statement's error in a batch's `Responses[i].Error`: DynamoDB's
/// `BatchStatementErrorCodeEnum` for the exception.
fn batch_error(e: &ApiError) -> Value {
    let name = e.kind.rsplit('#').next().unwrap_or(&e.kind);
    let code = match name {
        "ValidationException" => "ValidationError",
        "ConditionalCheckFailedException" => "ConditionalCheckFailed",
        "DuplicateItemException" => "DuplicateItem",
        "ResourceNotFoundException" => "ResourceNotFound",
        "TransactionConflictException" => "TransactionConflict",
        "ItemCollectionSizeLimitExceededException" => "ItemCollectionSizeLimitExceeded",
        "ProvisionedThroughputExceededException" => "ProvisionedThroughputExceeded",
        "RequestLimitExceeded" => "RequestLimitExceeded",
        "ThrottlingException" => "ThrottlingError",
        _ => "InternalServerError",
    };
    let mut m = Map::new();
    m.insert("Code".into(), json!(code));
    m.insert("Message".into(), json!(e.message));
    if let Some(item) = e.extra.get("Item") {
        m.insert("Item".into(), item.clone());
    }
    Value::Object(m)
}

/// The statements of a batch or transaction (`member`), 1 to `max`.
fn statements<'a>(b: Body<'a>, member: &str, max: usize) -> Result<Vec<Body<'a>>, ApiError> {
    let list = b.array(member)?.ok_or_else(|| required(member))?;
    if list.is_empty() || list.len() > max {
        let mut field = member.to_owned();
        field[..1].make_ascii_lowercase();
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value at '{field}' failed to satisfy constraint: Member must have length less than or equal to {max}, Member must have length greater than or equal to 1 ({} statements)",
            list.len()
        )));
    }
    list.iter()
        .map(|v| {
            v.as_object()
                .map(Body)
                .ok_or_else(|| ApiError::serialization(format!("{member} must be structures")))
        })
        .collect()
}

/// A read of a batch or transaction: the item the `WHERE` names by its
/// whole key (the rest of the `WHERE` filters it).
struct PointRead {
    table: String,
    key: Item,
    rest: Option<Condition>,
    projection: Option<Vec<Path>>,
}

fn point_read(ep: &Endpoint, st: Statement) -> Result<PointRead, ApiError> {
    let Statement::Select {
        table,
        index,
        projection,
        filter,
        ..
    } = st
    else {
        return Err(ApiError::validation("not a read statement"));
    };
    if index.is_some() {
        return Err(ApiError::validation(
            "A batch or transaction read must name a table, not an index",
        ));
    }
    let k = keys(ep, &table, None)?;
    let filter = filter.ok_or_else(|| {
        ApiError::validation(
            "Where clause does not contain a mandatory equality on all key attributes",
        )
    })?;
    let (key, rest) = full_key(filter, &k)?;
    Ok(PointRead {
        table,
        key,
        rest,
        projection,
    })
}

pub(crate) async fn batch(ep: &Endpoint, b: Body<'_>) -> Res {
    let capacity = Capacity::of(b)?;
    let mut parsed_all = Vec::new();
    for s in statements(b, "Statements", 25)? {
        let text = statement_text(s)?;
        let params = parameters(s)?;
        let consistent = s.bool("ConsistentRead")?;
        let on_fail = on_failure(s)?;
        parsed_all.push((parse::statement(text, params), consistent, on_fail));
    }
    let reads = parsed_all
        .iter()
        .filter(|(p, ..)| matches!(p, Ok(s) if s.is_read()))
        .count();
    let writes = parsed_all
        .iter()
        .filter(|(p, ..)| matches!(p, Ok(s) if !s.is_read()))
        .count();
    if reads > 0 && writes > 0 {
        return Err(ApiError::validation(
            "Read and write requests together in the same batch is not supported.",
        ));
    }
    let mut tables: Vec<String> = parsed_all
        .iter()
        .filter_map(|(p, ..)| p.as_ref().ok().map(|s| s.table().to_owned()))
        .collect();
    tables.sort();
    tables.dedup();
    let names: Vec<&str> = tables.iter().map(String::as_str).collect();
    let meter = Meter::start(ep, capacity, &names);
    let mut responses = Vec::new();
    for (p, consistent, on_fail) in parsed_all {
        let mut r = Map::new();
        let result: Result<Option<Item>, ApiError> = match p {
            Err(e) => Err(e),
            Ok(st) => {
                r.insert("TableName".into(), json!(st.table()));
                if st.is_read() {
                    read_one(ep, st, consistent).await
                } else {
                    match write_request(ep, st, on_fail) {
                        Ok(w) => write(ep, w).await.map(|_| None),
                        Err(e) => Err(e),
                    }
                }
            }
        };
        match result {
            Ok(Some(item)) => {
                r.insert("Item".into(), wire::item_json(&item));
            }
            Ok(None) => {}
            Err(e) => {
                r.insert("Error".into(), batch_error(&e));
            }
        }
        responses.push(Value::Object(r));
    }
    let mut out = Map::new();
    out.insert("Responses".into(), Value::Array(responses));
    meter.finish(ep, &mut out, true);
    Ok(Value::Object(out))
}

/// One read of a batch: a Query of the one key (the engine applies the
/// rest of the `WHERE` as its filter, and the projection).
async fn read_one(
    ep: &Endpoint,
    st: Statement,
    consistent: bool,
) -> Result<Option<Item>, ApiError> {
    let PointRead {
        table,
        key,
        rest,
        projection,
    } = point_read(ep, st)?;
    let k = keys(ep, &table, None)?;
    let equal = k
        .hash
        .iter()
        .chain(&k.range)
        .filter_map(|a| key.get(a).map(|v| (a.clone(), v.clone())))
        .collect();
    let p = ep
        .db
        .query(QueryRequest {
            table,
            index: None,
            key: KeyCondition {
                pk_attr: String::new(),
                pk: String::new(),
                sk: None,
                attrs: Some(AttrKeyCondition { equal, range: None }),
            },
            filter: rest,
            limit: None,
            forward: true,
            consistent,
            projection: None,
            start: None,
        })
        .await
        .map_err(engine)?;
    checked(projection.as_deref())?;
    Ok(p.items
        .into_iter()
        .next()
        .map(|i| shape(i, projection.as_deref())))
}

pub(crate) async fn transaction(ep: &Endpoint, b: Body<'_>) -> Res {
    let capacity = Capacity::of(b)?;
    let token = b.str("ClientRequestToken")?.map(str::to_owned);
    let mut parsed_all = Vec::new();
    for s in statements(b, "TransactStatements", 100)? {
        let on_fail = on_failure(s)?;
        parsed_all.push((parsed(s)?, on_fail));
    }
    let statements = parsed_all;
    let reads = statements.iter().filter(|(s, _)| s.is_read()).count();
    if reads > 0 && reads < statements.len() {
        return Err(ApiError::validation(
            "ExecuteTransaction API does not support both read and write operations in the same request.",
        ));
    }
    let mut tables: Vec<String> = statements
        .iter()
        .map(|(s, _)| s.table().to_owned())
        .collect();
    tables.sort();
    tables.dedup();
    let names: Vec<&str> = tables.iter().map(String::as_str).collect();
    let mut out = Map::new();
    if reads > 0 {
        let mut gets = Vec::new();
        let mut projections = Vec::new();
        for (st, _) in statements {
            let PointRead {
                table,
                key,
                rest,
                projection,
            } = point_read(ep, st)?;
            if rest.is_some() {
                return Err(ApiError::validation(
                    "Where clause of a read in a transaction may hold only an equality on each key attribute",
                ));
            }
            gets.push((table, key));
            projections.push(projection);
        }
        let meter = Meter::start(ep, capacity, &names);
        let items = ep
            .db
            .transact_get(TransactGet { gets })
            .await
            .map_err(engine)?;
        for p in &projections {
            checked(p.as_deref())?;
        }
        let responses: Vec<Value> = items
            .into_iter()
            .zip(projections)
            .map(|(item, p)| match item {
                Some(i) => json!({"Item": wire::item_json(&shape(i, p.as_deref()))}),
                None => json!({}),
            })
            .collect();
        out.insert("Responses".into(), Value::Array(responses));
        meter.finish(ep, &mut out, true);
        return Ok(Value::Object(out));
    }
    let mut ops = Vec::new();
    let mut inserts = Vec::new();
    for (i, (st, on_fail)) in statements.into_iter().enumerate() {
        // An EXISTS that is not one item's read with a condition is
        // refused naming its place, as DynamoDB names it.
        let w = write_request(ep, st, on_fail).map_err(|e| {
            if e.message == parse::not_single_read().message {
                ApiError::validation(format!(
                    "Validation failed in TransactStatements[{i}]: {}",
                    e.message
                ))
            } else {
                e
            }
        })?;
        ops.push(match w {
            Write::Insert(p) => {
                inserts.push(i);
                TransactWriteOp::Put(p)
            }
            Write::Update(u) => TransactWriteOp::Update(u),
            Write::Delete(d) => TransactWriteOp::Delete(d),
            Write::Check(c) => TransactWriteOp::ConditionCheck(c),
        });
    }
    let meter = Meter::start(ep, capacity, &names);
    match ep.db.transact_write(TransactWrite { ops, token }).await {
        Ok(()) => {}
        Err(singletable_core::error::Error::TransactionCanceled { mut reasons }) => {
            // An INSERT's key that exists is not a failed condition: its
            // reason is a `ValidationError` saying so (CancellationReason
            // codes are those of TransactWriteItems; DynamoDB Local answers
            // so too).
            for r in &mut reasons {
                if inserts.contains(&r.index) && r.code == "ConditionalCheckFailed" {
                    r.code = "ValidationError".into();
                    r.message = Some("Duplicate primary key exists in table".into());
                    r.item = None;
                }
            }
            return Err(engine(
                singletable_core::error::Error::TransactionCanceled { reasons },
            ));
        }
        Err(e) => return Err(engine(e)),
    }
    meter.finish(ep, &mut out, true);
    Ok(Value::Object(out))
}
