//! GetItem, PutItem, UpdateItem, DeleteItem.

use serde_json::{Map, Value};
use singletable_core::exec::Executor;
use singletable_core::expr::{Condition, Path};
use singletable_core::request::{DeleteItem, GetItem, PutItem, ReturnValues, UpdateItem};
use singletable_core::value::Item;

use super::project::checked;
use super::{
    Body, Capacity, Meter, Res, collection_metrics, collection_metrics_wanted, engine, key_names,
    legacy, on_failure,
};
use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::expr::{self, Placeholders};
use crate::wire;
use singletable_embedded::Embedded;

/// The optional `ConditionExpression` (or another condition-like member).
pub(crate) fn condition(
    b: Body<'_>,
    member: &str,
    ph: &mut Placeholders,
    used: &mut bool,
) -> Result<Option<Condition>, ApiError> {
    match b.str(member)? {
        Some(text) => {
            *used = true;
            expr::condition(member, text, ph).map(Some)
        }
        None => Ok(None),
    }
}

/// The optional `ProjectionExpression`.
pub(crate) fn projection(
    b: Body<'_>,
    ph: &mut Placeholders,
    used: &mut bool,
) -> Result<Option<Vec<Path>>, ApiError> {
    match b.str("ProjectionExpression")? {
        Some(text) => {
            *used = true;
            expr::projection(text, ph).map(Some)
        }
        None => Ok(None),
    }
}

/// After the expressions of one request (or transaction operation): every
/// placeholder was used, and none was sent without an expression.
/// `takers` are the operation's expressions that take values, which
/// DynamoDB names when values come without them (`ConditionExpression is
/// null`).
pub(crate) fn finish(ph: &Placeholders, used: bool, takers: &[&str]) -> Result<(), ApiError> {
    if !used && ph.had_names() {
        return Err(ApiError::validation(
            "ExpressionAttributeNames can only be specified when using expressions",
        ));
    }
    if !used && ph.any() {
        return Err(ApiError::validation(match takers {
            [] => "ExpressionAttributeNames and ExpressionAttributeValues can only be specified when using expressions".to_owned(),
            [one] => format!(
                "ExpressionAttributeValues can only be specified when using expressions: {one} is null"
            ),
            many => format!(
                "ExpressionAttributeValues can only be specified when using expressions: {} are null",
                many.join(" and ")
            ),
        }));
    }
    ph.finish()
}

fn return_values(b: Body<'_>, update: bool) -> Result<ReturnValues, ApiError> {
    let rv = match b.str("ReturnValues")? {
        None | Some("NONE") => ReturnValues::None,
        Some("ALL_OLD") => ReturnValues::AllOld,
        Some("ALL_NEW") if update => ReturnValues::AllNew,
        Some("UPDATED_OLD") if update => ReturnValues::UpdatedOld,
        Some("UPDATED_NEW") if update => ReturnValues::UpdatedNew,
        Some("ALL_NEW" | "UPDATED_OLD" | "UPDATED_NEW") => {
            return Err(ApiError::validation("Return values set to invalid value"));
        }
        Some(other) => {
            return Err(super::model::refuse(&[super::model::not_in_set(
                other,
                "returnValues",
                super::model::RETURN_VALUES,
            )]));
        }
    };
    Ok(rv)
}

fn attributes(out: &mut Map<String, Value>, item: Option<singletable_core::value::Item>) {
    if let Some(item) = item.filter(|i| !i.is_empty()) {
        out.insert("Attributes".into(), wire::item_json(&item));
    }
}

pub(crate) async fn get(ep: &Endpoint, b: Body<'_>) -> Res {
    legacy::not_mixed(b)?;
    let table = b.table()?;
    let key = b.req_item("Key")?;
    let consistent = b.bool("ConsistentRead")?;
    let capacity = Capacity::of(b)?;
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let paths = match projection(b, &mut ph, &mut used)? {
        Some(p) => Some(p),
        None => legacy::attributes_to_get(b)?,
    };
    finish(&ph, used, &[])?;
    let meter = Meter::start(ep, capacity, &[&table]);
    let item = ep
        .db
        .get_item(GetItem {
            table,
            key,
            consistent,
        })
        .await
        .map_err(engine)?;
    checked(paths.as_deref())?;
    let mut out = Map::new();
    if let Some(item) = item {
        let item = match &paths {
            Some(p) => Embedded::project(item, p),
            None => item,
        };
        out.insert("Item".into(), wire::item_json(&item));
    }
    meter.finish(ep, &mut out, false);
    Ok(Value::Object(out))
}

pub(crate) async fn put(ep: &Endpoint, b: Body<'_>) -> Res {
    legacy::not_mixed(b)?;
    let table = b.table()?;
    let item = b.req_item("Item")?;
    let return_old = return_values(b, false)? == ReturnValues::AllOld;
    let on_fail = on_failure(b)?;
    let capacity = Capacity::of(b)?;
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let cond = write_condition(b, &mut ph, &mut used)?;
    finish(&ph, used, &["ConditionExpression"])?;
    let metrics = collection_metrics_wanted(b)?.then(|| (table.clone(), item.clone()));
    let meter = Meter::start(ep, capacity, &[&table]);
    let old = ep
        .db
        .put_item(PutItem {
            table,
            item,
            condition: cond,
            return_old,
            return_on_condition_failure: on_fail,
        })
        .await
        .map_err(engine)?;
    let mut out = Map::new();
    attributes(&mut out, old.filter(|_| return_old));
    meter.finish(ep, &mut out, false);
    metrics_into(ep, &mut out, metrics);
    Ok(Value::Object(out))
}

/// Adds `ItemCollectionMetrics` for the write to `(table, key)` when the
/// request asked for them.
fn metrics_into(ep: &Endpoint, out: &mut Map<String, Value>, write: Option<(String, Item)>) {
    if let Some(m) = write.and_then(|(table, key)| collection_metrics(ep, &table, &key)) {
        out.insert("ItemCollectionMetrics".into(), m);
    }
}

/// A write's condition: its `ConditionExpression`, or the legacy
/// `Expected` (with `ConditionalOperator`) translated into the same value.
fn write_condition(
    b: Body<'_>,
    ph: &mut Placeholders,
    used: &mut bool,
) -> Result<Option<Condition>, ApiError> {
    match condition(b, "ConditionExpression", ph, used)? {
        Some(c) => Ok(Some(c)),
        None => legacy::condition(b, "Expected", &[]),
    }
}

/// The UpdateItem request value of `b` (also a transaction's `Update`).
/// `keys` are the table's key attributes when the request may use the
/// legacy parameters (`AttributeUpdates`, `Expected`): UpdateItem's, not a
/// transaction's.
pub(crate) fn update_request(
    b: Body<'_>,
    table: String,
    keys: Option<&[String]>,
) -> Result<UpdateItem, ApiError> {
    if keys.is_some() {
        legacy::not_mixed(b)?;
    }
    let key = b.req_item("Key")?;
    let return_values = return_values(b, true)?;
    let on_fail = on_failure(b)?;
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let actions = match (b.str("UpdateExpression")?, keys) {
        (Some(text), _) => {
            used = true;
            expr::update(text, &mut ph)?
        }
        (None, Some(keys)) => legacy::attribute_updates(b, keys)?.unwrap_or_default(),
        (None, None) => Vec::new(),
    };
    let cond = match keys {
        Some(_) => write_condition(b, &mut ph, &mut used)?,
        None => condition(b, "ConditionExpression", &mut ph, &mut used)?,
    };
    finish(&ph, used, &["UpdateExpression", "ConditionExpression"])?;
    Ok(UpdateItem {
        table,
        key,
        actions,
        condition: cond,
        return_values,
        return_on_condition_failure: on_fail,
    })
}

pub(crate) async fn update(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    let capacity = Capacity::of(b)?;
    let keys = key_names(ep, &table, None);
    let req = update_request(b, table.clone(), Some(&keys))?;
    let metrics = collection_metrics_wanted(b)?.then(|| (table.clone(), req.key.clone()));
    let meter = Meter::start(ep, capacity, &[&table]);
    let returned = ep.db.update_item(req).await.map_err(engine)?;
    let mut out = Map::new();
    attributes(&mut out, returned);
    meter.finish(ep, &mut out, false);
    metrics_into(ep, &mut out, metrics);
    Ok(Value::Object(out))
}

pub(crate) async fn delete(ep: &Endpoint, b: Body<'_>) -> Res {
    legacy::not_mixed(b)?;
    let table = b.table()?;
    let key = b.req_item("Key")?;
    let return_old = return_values(b, false)? == ReturnValues::AllOld;
    let on_fail = on_failure(b)?;
    let capacity = Capacity::of(b)?;
    let mut ph = Placeholders::from_request(b.0)?;
    let mut used = false;
    let cond = write_condition(b, &mut ph, &mut used)?;
    finish(&ph, used, &["ConditionExpression"])?;
    let metrics = collection_metrics_wanted(b)?.then(|| (table.clone(), key.clone()));
    let meter = Meter::start(ep, capacity, &[&table]);
    let old = ep
        .db
        .delete_item(DeleteItem {
            table,
            key,
            condition: cond,
            return_old,
            return_on_condition_failure: on_fail,
        })
        .await
        .map_err(engine)?;
    let mut out = Map::new();
    attributes(&mut out, old.filter(|_| return_old));
    meter.finish(ep, &mut out, false);
    metrics_into(ep, &mut out, metrics);
    Ok(Value::Object(out))
}
