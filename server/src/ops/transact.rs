//! TransactGetItems and TransactWriteItems.

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
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::expr::Placeholders;
use crate::wire;
use singletable_embedded::Embedded;

fn transact_items<'a>(b: Body<'a>) -> Result<&'a Vec<Value>, ApiError> {
    let list = b
        .array("TransactItems")?
        .ok_or_else(|| required("TransactItems"))?;
    let whole = b.0.get("TransactItems").unwrap_or(&Value::Null);
    if let Some(v) = super::model::list_length(whole, "transactItems", 1, 100) {
        return Err(super::model::refuse(&[v]));
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
        finish(&ph, used, &[])?;
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
    let mut ops = Vec::new();
    let mut tables = Vec::new();
    for v in transact_items(b)? {
        let (kind, o) = one(v, &["ConditionCheck", "Put", "Delete", "Update"])?;
        let table = o.table()?;
        tables.push(table.clone());
        let op = if kind == "Update" {
            TransactWriteOp::Update(update_request(o, table, None)?)
        } else {
            let on_fail = on_failure(o)?;
            let mut ph = Placeholders::from_request(o.0)?;
            let mut used = false;
            let cond = condition(o, "ConditionExpression", &mut ph, &mut used)?;
            finish(&ph, used, &["ConditionExpression"])?;
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
    let meter = Meter::start(ep, capacity, &names);
    ep.db
        .transact_write(TransactWrite { ops, token })
        .await
        .map_err(engine)?;
    let mut out = Map::new();
    if let Some(m) = collections_metrics(ep, &touched) {
        out.insert("ItemCollectionMetrics".into(), m);
    }
    meter.finish(ep, &mut out, true);
    Ok(Value::Object(out))
}
