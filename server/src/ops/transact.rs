//! TransactGetItems and TransactWriteItems.
//!
//! A `ClientRequestToken` makes TransactWriteItems idempotent for ten
//! minutes, as on DynamoDB: the token is kept with a fingerprint of the
//! request's canonical form (every member but the token, object members in
//! sorted order, so it does not depend on the order a client or a hash map
//! wrote them in). The same request again with the token succeeds without
//! writing again; another request with it is refused with
//! `IdempotentParameterMismatchException`. Only a transaction that
//! succeeded keeps its token; two requests with one token run one after the
//! other.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use singletable_core::exec::Executor;
use singletable_core::request::{
    ConditionCheck, DeleteItem, PutItem, TransactGet, TransactWrite, TransactWriteOp,
};

use super::items::{condition, finish, projection, update_request};
use super::project::checked;
use super::{
    Body, Capacity, Meter, Res, collection_metrics_wanted, collections_metrics, engine, on_failure,
    required,
};
use crate::endpoint::{Endpoint, Seen};
use crate::error::ApiError;
use crate::expr::Placeholders;
use crate::wire;
use singletable_embedded::Embedded;

fn transact_items<'a>(b: Body<'a>) -> Result<&'a Vec<Value>, ApiError> {
    let list = b
        .array("TransactItems")?
        .ok_or_else(|| required("TransactItems"))?;
    if list.is_empty() || list.len() > 100 {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100, Member must have length greater than or equal to 1 ({} items)",
            list.len()
        )));
    }
    Ok(list)
}

fn one<'a>(v: &'a Value, names: &[&str]) -> Result<(&'static str, Body<'a>), ApiError> {
    let b = Body(
        v.as_object()
            .ok_or_else(|| ApiError::serialization("TransactItem must be a structure"))?,
    );
    let mut found = None;
    for n in names {
        if let Some(x) = b.obj(n)? {
            if found.is_some() {
                return Err(ApiError::validation(
                    "TransactItems can only contain one of Check, Put, Update or Delete",
                ));
            }
            let name: &'static str = match *n {
                "Get" => "Get",
                "Put" => "Put",
                "Update" => "Update",
                "Delete" => "Delete",
                _ => "ConditionCheck",
            };
            found = Some((name, x));
        }
    }
    found.ok_or_else(|| {
        ApiError::validation("TransactItems can only contain one of Check, Put, Update or Delete")
    })
}

pub(crate) async fn get(ep: &Endpoint, b: Body<'_>) -> Res {
    let capacity = Capacity::of(b)?;
    let mut gets = Vec::new();
    let mut paths = Vec::new();
    for v in transact_items(b)? {
        let (_, g) = one(v, &["Get"])?;
        let table = g.table()?;
        let key = g.req_item("Key")?;
        let mut ph = Placeholders::from_request(g.0)?;
        let mut used = false;
        paths.push(projection(g, &mut ph, &mut used)?);
        finish(&ph, used)?;
        gets.push((table, key));
    }
    let names: Vec<String> = gets.iter().map(|g| g.0.clone()).collect();
    let mut distinct: Vec<&str> = names.iter().map(String::as_str).collect();
    distinct.sort();
    distinct.dedup();
    let meter = Meter::start(ep, capacity, &distinct);
    let items = ep
        .db
        .transact_get(TransactGet { gets })
        .await
        .map_err(engine)?;
    for p in &paths {
        checked(p.as_deref())?;
    }
    let responses: Vec<Value> = items
        .into_iter()
        .zip(&paths)
        .map(|(item, p)| match (item, p) {
            (Some(i), Some(p)) => json!({"Item": wire::item_json(&Embedded::project(i, p))}),
            (Some(i), None) => json!({"Item": wire::item_json(&i)}),
            (None, _) => json!({}),
        })
        .collect();
    let mut out = Map::new();
    out.insert("Responses".into(), Value::Array(responses));
    meter.finish(ep, &mut out, true);
    Ok(Value::Object(out))
}

pub(crate) async fn write(ep: &Endpoint, b: Body<'_>) -> Res {
    let capacity = Capacity::of(b)?;
    let want_metrics = collection_metrics_wanted(b)?;
    let token = b.str("ClientRequestToken")?.map(str::to_owned);
    if let Some(t) = &token
        && (t.is_empty() || t.len() > 36)
    {
        return Err(ApiError::validation(
            "1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36",
        ));
    }
    let mut ops = Vec::new();
    let mut tables = Vec::new();
    for v in transact_items(b)? {
        let (kind, o) = one(v, &["ConditionCheck", "Put", "Delete", "Update"])?;
        let table = o.table()?;
        tables.push(table.clone());
        let op = if kind == "Update" {
            TransactWriteOp::Update(update_request(o, table)?)
        } else {
            let on_fail = on_failure(o)?;
            let mut ph = Placeholders::from_request(o.0)?;
            let mut used = false;
            let cond = condition(o, "ConditionExpression", &mut ph, &mut used)?;
            finish(&ph, used)?;
            match kind {
                "Put" => TransactWriteOp::Put(PutItem {
                    table,
                    item: o.req_item("Item")?,
                    condition: cond,
                    return_old: false,
                    return_on_condition_failure: on_fail,
                }),
                "Delete" => TransactWriteOp::Delete(DeleteItem {
                    table,
                    key: o.req_item("Key")?,
                    condition: cond,
                    return_old: false,
                    return_on_condition_failure: on_fail,
                }),
                _ => TransactWriteOp::ConditionCheck(ConditionCheck {
                    table,
                    key: o.req_item("Key")?,
                    condition: cond.ok_or_else(|| required("ConditionExpression"))?,
                    return_on_condition_failure: on_fail,
                }),
            }
        };
        ops.push(op);
    }
    let touched: Vec<(String, singletable_core::value::Item)> = ops
        .iter()
        .filter(|_| want_metrics)
        .filter_map(|op| match op {
            TransactWriteOp::Put(p) => Some((p.table.clone(), p.item.clone())),
            TransactWriteOp::Delete(d) => Some((d.table.clone(), d.key.clone())),
            TransactWriteOp::Update(u) => Some((u.table.clone(), u.key.clone())),
            TransactWriteOp::ConditionCheck(_) => None,
        })
        .collect();
    tables.sort();
    tables.dedup();
    let names: Vec<&str> = tables.iter().map(String::as_str).collect();
    let slot = token.as_deref().map(|t| token_slot(ep, t));
    let mut seen = match &slot {
        Some(s) => Some(s.lock().await),
        None => None,
    };
    let print = fingerprint(b.0);
    let retry = match seen.as_deref().copied().flatten() {
        Some(s) if s.at.elapsed() < TOKEN_LIFETIME => {
            if s.print != print {
                return Err(ApiError::dynamodb(
                    "IdempotentParameterMismatchException",
                    "The request uses the same client token as a previous, but non-identical request.",
                ));
            }
            true
        }
        _ => false,
    };
    let meter = Meter::start(ep, capacity, &names);
    if !retry {
        ep.db
            .transact_write(TransactWrite { ops, token: None })
            .await
            .map_err(engine)?;
        if let Some(seen) = seen.as_deref_mut() {
            *seen = Some(Seen {
                print,
                at: Instant::now(),
            });
        }
    }
    let mut out = Map::new();
    if let Some(m) = collections_metrics(ep, &touched) {
        out.insert("ItemCollectionMetrics".into(), m);
    }
    meter.finish(ep, &mut out, true);
    Ok(Value::Object(out))
}

/// How long DynamoDB remembers a transaction's client token.
const TOKEN_LIFETIME: Duration = Duration::from_secs(600);

/// The lock of one client token, made on its first use; the expired ones
/// are dropped whenever the tokens have doubled since the last time.
fn token_slot(ep: &Endpoint, token: &str) -> Arc<tokio::sync::Mutex<Option<Seen>>> {
    let mut tokens = ep.tokens();
    if tokens.seen.len() >= tokens.prune_at {
        tokens.seen.retain(|_, slot| {
            Arc::strong_count(slot) > 1
                || slot
                    .try_lock()
                    .map_or(true, |s| s.is_some_and(|s| s.at.elapsed() < TOKEN_LIFETIME))
        });
        tokens.prune_at = (tokens.seen.len() * 2).max(1024);
    }
    tokens.seen.entry(token.to_owned()).or_default().clone()
}

/// The fingerprint of a request's canonical form: every member but the
/// client token, object members in sorted order.
fn fingerprint(body: &Map<String, Value>) -> u64 {
    fn walk(v: &Value, h: &mut DefaultHasher) {
        match v {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Number(n) => (2u8, n.to_string()).hash(h),
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(a) => {
                (4u8, a.len()).hash(h);
                for x in a {
                    walk(x, h);
                }
            }
            Value::Object(m) => object(m, h),
        }
    }
    fn object(m: &Map<String, Value>, h: &mut DefaultHasher) {
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort();
        (5u8, keys.len()).hash(h);
        for k in keys {
            k.hash(h);
            walk(&m[k], h);
        }
    }
    let mut without = body.clone();
    without.remove("ClientRequestToken");
    let mut h = DefaultHasher::new();
    object(&without, &mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_ignores_member_order_and_the_token() {
        let a: Value = serde_json::from_str(
            r#"{"ClientRequestToken":"t1","TransactItems":[{"Put":{"TableName":"T","Item":{"PK":{"S":"a"},"SK":{"S":"b"},"m":{"M":{"x":{"N":"1"},"y":{"S":"z"}}}}}}]}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"TransactItems":[{"Put":{"Item":{"m":{"M":{"y":{"S":"z"},"x":{"N":"1"}}},"SK":{"S":"b"},"PK":{"S":"a"}},"TableName":"T"}}],"ClientRequestToken":"t2"}"#,
        )
        .unwrap();
        let c: Value = serde_json::from_str(
            r#"{"TransactItems":[{"Put":{"Item":{"m":{"M":{"y":{"S":"z"},"x":{"N":"2"}}},"SK":{"S":"b"},"PK":{"S":"a"}},"TableName":"T"}}]}"#,
        )
        .unwrap();
        let print = |v: &Value| fingerprint(v.as_object().unwrap());
        assert_eq!(print(&a), print(&b));
        assert_ne!(print(&a), print(&c));
    }
}
