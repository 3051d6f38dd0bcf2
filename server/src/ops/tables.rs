//! The control plane a test suite needs: CreateTable, DescribeTable,
//! DeleteTable, ListTables, UpdateTable (global and vector indexes),
//! UpdateTimeToLive, DescribeTimeToLive, TagResource, UntagResource,
//! ListTagsOfResource.

use serde_json::{Map, Value, json};
use singletable_core::entity::StreamView;
use singletable_embedded::{IndexSchema, KeyAttr, KeyType, TableSchema};

use super::{Body, Res, engine, model, required};
use crate::endpoint::{Endpoint, Meta, now_seconds};
use crate::error::ApiError;

/// `BillingMode`, one of DynamoDB's two.
fn billing_mode(b: Body<'_>) -> Result<Option<&str>, ApiError> {
    match b.str("BillingMode")? {
        None => Ok(None),
        Some(m @ ("PROVISIONED" | "PAY_PER_REQUEST")) => Ok(Some(m)),
        Some(other) => Err(ApiError::validation(format!(
            "1 validation error detected: Value '{other}' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"
        ))),
    }
}

fn kind(t: &str) -> Result<KeyType, ApiError> {
    Ok(match t {
        "S" => KeyType::S,
        "N" => KeyType::N,
        "B" => KeyType::B,
        other => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"
            )));
        }
    })
}

/// `(hash, range)` attributes of a key schema, with their declared types.
fn key_schema(
    b: Body<'_>,
    defs: &[(String, KeyType)],
) -> Result<(Vec<KeyAttr>, Vec<KeyAttr>), ApiError> {
    let list = b.array("KeySchema")?.ok_or_else(|| required("KeySchema"))?;
    let (mut hash, mut range) = (Vec::new(), Vec::new());
    for e in list {
        let e = Body(
            e.as_object()
                .ok_or_else(|| ApiError::serialization("KeySchemaElement must be a structure"))?,
        );
        let name = e.req_str("AttributeName")?;
        let kind = defs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| *k)
            .ok_or_else(|| {
                ApiError::validation(
                    "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [".to_owned()
                        + name
                        + "], AttributeDefinitions: ["
                        + &defs.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(", ")
                        + "]",
                )
            })?;
        let attr = KeyAttr {
            name: name.to_owned(),
            kind,
        };
        match e.req_str("KeyType")? {
            "HASH" => hash.push(attr),
            "RANGE" => range.push(attr),
            other => {
                return Err(ApiError::validation(format!(
                    "1 validation error detected: Value '{other}' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"
                )));
            }
        }
    }
    if hash.is_empty() {
        return Err(ApiError::validation(
            "1 validation error detected: Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ));
    }
    Ok((hash, range))
}

fn index(b: Body<'_>, defs: &[(String, KeyType)], global: bool) -> Result<IndexSchema, ApiError> {
    let name = b.req_str("IndexName")?.to_owned();
    let (mut hash, mut range) = key_schema(b, defs)?;
    let pk = hash.remove(0);
    let sk = (!range.is_empty()).then(|| range.remove(0));
    Ok(IndexSchema {
        name,
        global,
        pk,
        sk,
        pk_rest: hash,
        sk_rest: range,
        projection: super::index_projection(b)?,
    })
}

fn definitions(b: Body<'_>) -> Result<Vec<(String, KeyType)>, ApiError> {
    let list = b
        .array("AttributeDefinitions")?
        .ok_or_else(|| required("AttributeDefinitions"))?;
    list.iter()
        .map(|d| {
            let d = Body(d.as_object().ok_or_else(|| {
                ApiError::serialization("AttributeDefinition must be a structure")
            })?);
            Ok((
                d.req_str("AttributeName")?.to_owned(),
                kind(d.req_str("AttributeType")?)?,
            ))
        })
        .collect()
}

fn stream_view(b: Body<'_>) -> Result<Option<StreamView>, ApiError> {
    let Some(s) = b.obj("StreamSpecification")? else {
        return Ok(None);
    };
    if !s.bool("StreamEnabled")? {
        if s.str("StreamViewType")?.is_some() {
            return Err(ApiError::validation(
                "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.",
            ));
        }
        return Ok(None);
    }
    Ok(Some(match s.str("StreamViewType")? {
        Some("KEYS_ONLY") => StreamView::KeysOnly,
        Some("NEW_IMAGE") => StreamView::NewImage,
        Some("OLD_IMAGE") => StreamView::OldImage,
        Some("NEW_AND_OLD_IMAGES") => StreamView::NewAndOldImages,
        _ => {
            return Err(ApiError::validation(
                "StreamSpecification: StreamViewType must be specified when StreamEnabled is true",
            ));
        }
    }))
}

/// `ProvisionedThroughput`: both members, each at least 1 (the service's
/// model constraint; `(0, 0)` when absent).
fn throughput(b: Body<'_>) -> Result<(i64, i64), ApiError> {
    let Some(p) = b.obj("ProvisionedThroughput")? else {
        return Ok((0, 0));
    };
    let member = |name: &str, path: &str| -> Result<i64, ApiError> {
        let v = p.int(name)?.unwrap_or(0);
        if v < 1 {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{v}' at 'provisionedThroughput.{path}' failed to satisfy constraint: Member must have value greater than or equal to 1"
            )));
        }
        Ok(v)
    };
    Ok((
        member("ReadCapacityUnits", "readCapacityUnits")?,
        member("WriteCapacityUnits", "writeCapacityUnits")?,
    ))
}

/// Every attribute definition must be a key attribute of the table or of
/// an index (DynamoDB refuses a definition no key uses).
fn definitions_used(defs: &[(String, KeyType)], schema: &TableSchema) -> Result<(), ApiError> {
    let mut used: Vec<&str> = std::iter::once(&schema.pk)
        .chain(&schema.sk)
        .chain(schema.indexes.iter().flat_map(|ix| {
            std::iter::once(&ix.pk)
                .chain(&ix.pk_rest)
                .chain(&ix.sk)
                .chain(&ix.sk_rest)
        }))
        .map(|k| k.name.as_str())
        .chain(schema.vectors.iter().flat_map(|v| {
            std::iter::once(v.attribute.as_str())
                .chain(v.hash.iter().chain(&v.filter).map(|k| k.name.as_str()))
        }))
        .collect();
    used.sort_unstable();
    used.dedup();
    if defs.iter().all(|(name, _)| used.contains(&name.as_str())) {
        return Ok(());
    }
    let mut defined: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
    defined.sort_unstable();
    Err(ApiError::validation(if schema.indexes.is_empty() {
        "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions".to_owned()
    } else {
        format!(
            "One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [{}], keys used: [{}]",
            defined.join(", "),
            used.join(", ")
        )
    }))
}

pub(crate) fn create(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    if let Some(list) = b.array("KeySchema")?
        && list.len() > 2
    {
        // The model's bound, before anything is read of the elements;
        // the service shows them as its objects print.
        let shown: Vec<String> = list
            .iter()
            .map(|e| {
                let name = e["AttributeName"].as_str().unwrap_or("null");
                let kind = e["KeyType"].as_str().unwrap_or("null");
                format!("KeySchemaElement(attributeName={name}, keyType={kind})")
            })
            .collect();
        return Err(model::refuse_one(
            model::Shown::Value(&format!("[{}]", shown.join(", "))),
            "keySchema",
            "Member must have length less than or equal to 2",
        ));
    }
    let defs = definitions(b)?;
    let (mut hash, mut range) = key_schema(b, &defs)?;
    if hash.len() > 1 || range.len() > 1 {
        return Err(ApiError::validation(
            "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
        ));
    }
    let mut indexes = Vec::new();
    for (member, global) in [
        ("GlobalSecondaryIndexes", true),
        ("LocalSecondaryIndexes", false),
    ] {
        for ix in b.array(member)?.into_iter().flatten() {
            let ix = Body(
                ix.as_object()
                    .ok_or_else(|| ApiError::serialization("index must be a structure"))?,
            );
            indexes.push(index(ix, &defs, global)?);
        }
    }
    let billing = billing_mode(b)?.unwrap_or("PROVISIONED").to_owned();
    let schema = TableSchema {
        pk: hash.remove(0),
        sk: range.pop(),
        indexes,
        stream: stream_view(b)?,
        vectors: super::vectors::create(b, &defs, &billing)?,
    };
    definitions_used(&defs, &schema)?;
    let tp = throughput(b)?;
    if billing == "PROVISIONED" && b.obj("ProvisionedThroughput")?.is_none() {
        return Err(ApiError::validation(
            "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
        ));
    }
    let mut meta = Meta::now();
    meta.billing = billing;
    meta.throughput = tp;
    meta.deletion_protection = b.bool("DeletionProtectionEnabled")?;
    meta.tags = tags(b, "Tags")?;
    ep.db.create_table_with(&table, schema).map_err(engine)?;
    ep.db.annotate(&table, meta.text()).map_err(engine)?;
    Ok(json!({"TableDescription": description(ep, &table, "ACTIVE")?}))
}

pub(crate) fn key_json(hash: &[&KeyAttr], range: &[&KeyAttr]) -> Value {
    let mut out: Vec<Value> = hash
        .iter()
        .map(|k| json!({"AttributeName": k.name, "KeyType": "HASH"}))
        .collect();
    out.extend(
        range
            .iter()
            .map(|k| json!({"AttributeName": k.name, "KeyType": "RANGE"})),
    );
    Value::Array(out)
}

fn arn(table: &str) -> String {
    format!("arn:aws:dynamodb:ddblocal:000000000000:table/{table}")
}

fn description(ep: &Endpoint, table: &str, status: &str) -> Result<Value, ApiError> {
    let schema = ep
        .db
        .schema(table)
        .ok_or_else(|| ApiError::not_found("Cannot do operations on a non-existent table"))?;
    let meta = meta_of(ep, table);
    let mut defs: Vec<&KeyAttr> = Vec::new();
    let add = |k: &'_ KeyAttr, defs: &mut Vec<KeyAttr>| {
        if !defs.iter().any(|d| d.name == k.name) {
            defs.push(k.clone());
        }
    };
    let mut all: Vec<KeyAttr> = Vec::new();
    add(&schema.pk, &mut all);
    if let Some(sk) = &schema.sk {
        add(sk, &mut all);
    }
    for ix in &schema.indexes {
        for k in std::iter::once(&ix.pk)
            .chain(&ix.pk_rest)
            .chain(&ix.sk)
            .chain(&ix.sk_rest)
        {
            add(k, &mut all);
        }
    }
    defs.extend(all.iter());
    let stats = ep.db.table_stats(table).unwrap_or_default();
    let index_stats = |name: &str| {
        stats
            .indexes
            .iter()
            .find(|ix| ix.name == name)
            .map_or((0, 0), |ix| (ix.item_count, ix.size_bytes))
    };
    let (read, write) = meta.throughput;
    let tp = json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write, "NumberOfDecreasesToday": 0});
    let mut d = json!({
        "TableName": table,
        "TableStatus": status,
        "TableArn": arn(table),
        "CreationDateTime": meta.created,
        "ItemCount": stats.item_count,
        "TableSizeBytes": stats.size_bytes,
        "AttributeDefinitions": defs.iter().map(|k| json!({"AttributeName": k.name, "AttributeType": k.kind.as_str()})).collect::<Vec<_>>(),
        "KeySchema": key_json(&[&schema.pk], &schema.sk.iter().collect::<Vec<_>>()),
        "ProvisionedThroughput": tp,
        "DeletionProtectionEnabled": meta.deletion_protection,
    });
    if meta.billing == "PAY_PER_REQUEST" {
        d["BillingModeSummary"] = json!({
            "BillingMode": "PAY_PER_REQUEST",
            "LastUpdateToPayPerRequestDateTime": meta.pay_per_request_since,
        });
    }
    let ixs = |global: bool| -> Vec<Value> {
        schema
            .indexes
            .iter()
            .filter(|ix| ix.global == global)
            .map(|ix| {
                let hash: Vec<&KeyAttr> = std::iter::once(&ix.pk).chain(&ix.pk_rest).collect();
                let range: Vec<&KeyAttr> = ix.sk.iter().chain(&ix.sk_rest).collect();
                let (count, size) = index_stats(&ix.name);
                let mut v = json!({
                    "IndexName": ix.name,
                    "KeySchema": key_json(&hash, &range),
                    "Projection": super::index_projection_json(&ix.projection),
                    "IndexArn": format!("{}/index/{}", arn(table), ix.name),
                    "IndexSizeBytes": size,
                    "ItemCount": count,
                });
                if global {
                    v["IndexStatus"] = json!("ACTIVE");
                    v["ProvisionedThroughput"] =
                        json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write});
                }
                v
            })
            .collect()
    };
    let (g, l) = (ixs(true), ixs(false));
    if !g.is_empty() {
        d["GlobalSecondaryIndexes"] = Value::Array(g);
    }
    if !l.is_empty() {
        d["LocalSecondaryIndexes"] = Value::Array(l);
    }
    if let Some(v) = super::vectors::describe(ep, table, &schema, &arn(table)) {
        d["VectorIndexes"] = v;
    }
    if let Some((arn, label, view)) = stream_of(ep, table) {
        d["StreamSpecification"] = json!({"StreamEnabled": true, "StreamViewType": view});
        d["LatestStreamArn"] = json!(arn);
        d["LatestStreamLabel"] = json!(label);
    }
    Ok(d)
}

fn meta_of(ep: &Endpoint, table: &str) -> Meta {
    ep.meta_of(table)
}

/// `CreationDateTime` of `table`, seconds since the epoch.
pub(crate) fn created(ep: &Endpoint, table: &str) -> f64 {
    meta_of(ep, table).created
}

/// The stream of `table` when it has one: its ARN, its label (the time
/// the table was created, as DynamoDB labels a stream by the time it was
/// enabled: `2026-01-02T03:04:05.678`) and its view type.
pub(crate) fn stream_of(ep: &Endpoint, table: &str) -> Option<(String, String, &'static str)> {
    let view = ep.db.schema(table)?.stream?;
    let meta = meta_of(ep, table);
    let label = iso8601(meta.stream_since.unwrap_or(meta.created));
    Some((
        format!("{}/stream/{label}", arn(table)),
        label,
        view.as_str(),
    ))
}

/// `seconds` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmm` (UTC).
fn iso8601(seconds: f64) -> String {
    let millis = (seconds * 1000.0).round() as i64;
    let (days, ms) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

pub(crate) fn describe(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    Ok(json!({"Table": description(ep, &table, "ACTIVE")?}))
}

pub(crate) fn delete(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    let d = description(ep, &table, "DELETING")?;
    if d["DeletionProtectionEnabled"] == true {
        return Err(ApiError::validation(
            "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.",
        ));
    }
    ep.db.delete_table(&table).map_err(engine)?;
    Ok(json!({"TableDescription": d}))
}

pub(crate) fn list(ep: &Endpoint, b: Body<'_>) -> Res {
    let start = b.str("ExclusiveStartTableName")?;
    let limit = match b.int("Limit")? {
        None => 100,
        Some(n) if (1..=100).contains(&n) => n as usize,
        Some(n) => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"
            )));
        }
    };
    let names: Vec<String> = ep
        .db
        .table_names()
        .into_iter()
        .filter(|n| start.is_none_or(|s| n.as_str() > s))
        .collect();
    let mut out = Map::new();
    let more = names.len() > limit;
    let page: Vec<String> = names.into_iter().take(limit).collect();
    if more && let Some(last) = page.last() {
        out.insert("LastEvaluatedTableName".into(), json!(last));
    }
    out.insert("TableNames".into(), json!(page));
    Ok(Value::Object(out))
}

pub(crate) fn update(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    if ep.db.schema(&table).is_none() {
        return Err(ApiError::not_found(format!(
            "Requested resource not found: Table: {table} not found"
        )));
    }
    let defs = match b.array("AttributeDefinitions")? {
        Some(_) => definitions(b)?,
        None => Vec::new(),
    };
    // Read before anything changes, so a malformed member changes nothing.
    let mode = billing_mode(b)?;
    let protection = b.opt_bool("DeletionProtectionEnabled")?;
    let tp = match b.obj("ProvisionedThroughput")? {
        Some(_) => Some(throughput(b)?),
        None => None,
    };
    let current = meta_of(ep, &table);
    if let Some((read, write)) = tp {
        if mode.unwrap_or(&current.billing) == "PAY_PER_REQUEST" {
            return Err(ApiError::validation(
                "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
            ));
        }
        let (now_read, now_write) = current.throughput;
        if current.billing == "PROVISIONED" && (read, write) == (now_read, now_write) {
            return Err(ApiError::validation(format!(
                "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: {now_read}. Requested ReadCapacityUnits: {read}. Current WriteCapacityUnits provisioned for the table: {now_write}. Requested WriteCapacityUnits: {write}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
            )));
        }
    }
    let stream = match (b.obj("StreamSpecification")?, stream_view(b)?) {
        (None, _) => None,
        (Some(_), Some(view)) => Some(view),
        (Some(_), None) => {
            if ep.db.schema(&table).is_some_and(|s| s.stream.is_none()) {
                return Err(ApiError::validation("Table has no stream to disable"));
            }
            // DynamoDB keeps a disabled stream readable for 24 hours; the
            // engine's feed has no disabled state to keep it in.
            return Err(ApiError::validation(
                "this endpoint does not disable streams: a table keeps the stream it was given",
            ));
        }
    };
    if mode == Some("PROVISIONED") && ep.db.schema(&table).is_some_and(|s| !s.vectors.is_empty()) {
        return Err(ApiError::validation(
            "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables",
        ));
    }
    if stream.is_some() && ep.db.schema(&table).is_some_and(|s| s.stream.is_some()) {
        // Refused before anything changes; the engine refuses it too.
        return Err(ApiError::validation("Table already has an enabled stream"));
    }
    let updates = b.array("GlobalSecondaryIndexUpdates")?;
    let online = updates
        .iter()
        .flat_map(|us| us.iter())
        .filter(|u| u.get("Create").is_some() || u.get("Delete").is_some())
        .count();
    if online > 1 {
        // Refused before anything changes.
        return Err(ApiError::dynamodb(
            "LimitExceededException",
            "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
        ));
    }
    for u in updates.into_iter().flatten() {
        let u = Body(u.as_object().ok_or_else(|| {
            ApiError::serialization("GlobalSecondaryIndexUpdate must be a structure")
        })?);
        if let Some(c) = u.obj("Create")? {
            let ix = index(c, &defs, true)?;
            ep.db.add_global_index(&table, ix).map_err(engine)?;
        } else if let Some(d) = u.obj("Delete")? {
            let name = d.req_str("IndexName")?;
            if !ep.db.remove_global_index(&table, name).map_err(engine)? {
                return Err(ApiError::not_found(format!(
                    "Requested resource not found: Index: {name} not found"
                )));
            }
        } else if u.obj("Update")?.is_some() {
            // Throughput of an index: nothing to change in memory.
        }
    }
    let billing = mode.map_or_else(|| meta_of(ep, &table).billing, str::to_owned);
    super::vectors::update(ep, &table, b, &defs, &billing)?;
    if let Some(view) = stream {
        ep.db.enable_stream(&table, view).map_err(engine)?;
    }
    ep.update_meta(&table, |m| {
        if stream.is_some() {
            m.stream_since = Some(now_seconds());
        }
        if let Some(mode) = mode {
            if mode == "PAY_PER_REQUEST" && m.billing != mode {
                m.pay_per_request_since = now_seconds();
            }
            m.billing = mode.to_owned();
        }
        if let Some(on) = protection {
            m.deletion_protection = on;
        }
        if let Some(tp) = tp {
            m.throughput = tp;
        }
    });
    Ok(json!({"TableDescription": description(ep, &table, "ACTIVE")?}))
}

pub(crate) fn update_ttl(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    if ep.db.schema(&table).is_none() {
        return Err(ApiError::not_found(
            "Cannot do operations on a non-existent table",
        ));
    }
    let spec = b
        .obj("TimeToLiveSpecification")?
        .ok_or_else(|| required("TimeToLiveSpecification"))?;
    let attr = spec.req_str("AttributeName")?.to_owned();
    if attr.is_empty() || attr.len() > 255 {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{attr}' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length {}",
            if attr.is_empty() {
                "greater than or equal to 1"
            } else {
                "less than or equal to 255"
            }
        )));
    }
    let enabled = spec.bool("Enabled")?;
    // The setting lives in the store, so snapshots keep it.
    match (ep.db.time_to_live(&table), enabled) {
        (Some(_), true) => {
            return Err(ApiError::validation("TimeToLive is already enabled"));
        }
        (None, false) => {
            return Err(ApiError::validation("TimeToLive is already disabled"));
        }
        _ => {}
    }
    ep.db
        .set_time_to_live(&table, enabled.then_some(attr.as_str()))
        .map_err(engine)?;
    Ok(json!({"TimeToLiveSpecification": {"AttributeName": attr, "Enabled": enabled}}))
}

/// ExpireItems, the endpoint's own operation (DynamoDB has no such
/// request): runs the TTL sweep now, as the background sweep runs it every
/// `--ttl-sweep-interval`, and answers how many expired items it deleted
/// (`{"DeletedItemCount": n}`). Tests call it to see TTL's deletions and
/// their stream records at once.
pub(crate) fn expire(ep: &Endpoint, _b: Body<'_>) -> Res {
    let deleted = ep.db.expire_items().map_err(engine)?;
    Ok(json!({"DeletedItemCount": deleted}))
}

/// A `Tags` list (`[{"Key": k, "Value": v}]`) as a map.
fn tags(b: Body<'_>, member: &str) -> Result<std::collections::BTreeMap<String, String>, ApiError> {
    b.array(member)?
        .into_iter()
        .flatten()
        .map(|t| {
            let t = Body(
                t.as_object()
                    .ok_or_else(|| ApiError::serialization("Tag must be a structure"))?,
            );
            let key = t.req_str("Key")?;
            if key.is_empty() || key.len() > 128 {
                return Err(ApiError::validation(format!(
                    "1 validation error detected: Value '{key}' at 'tags.1.member.key' failed to satisfy constraint: Member must have length between 1 and 128"
                )));
            }
            Ok((key.to_owned(), t.req_str("Value")?.to_owned()))
        })
        .collect()
}

/// The table a `ResourceArn` names (the ARNs DescribeTable reports).
fn table_of_arn(ep: &Endpoint, b: Body<'_>) -> Result<String, ApiError> {
    let arn = b.req_str("ResourceArn")?;
    let table = arn
        .strip_prefix("arn:aws:dynamodb:")
        .and_then(|rest| rest.split_once(":table/"))
        .map(|(_, t)| t)
        .filter(|t| !t.contains('/'))
        .ok_or_else(|| ApiError::validation(format!("Invalid TableArn: {arn}")))?;
    if ep.db.schema(table).is_none() {
        return Err(ApiError::not_found(format!(
            "Requested resource not found: ResourcArn: {arn} not found"
        )));
    }
    Ok(table.to_owned())
}

/// TagResource: adds (or replaces) tags of a table.
pub(crate) fn tag(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = table_of_arn(ep, b)?;
    let new = tags(b, "Tags")?;
    if b.array("Tags")?.is_none() {
        return Err(required("Tags"));
    }
    ep.update_meta(&table, |m| m.tags.extend(new));
    Ok(json!({}))
}

/// UntagResource: removes tags of a table by key.
pub(crate) fn untag(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = table_of_arn(ep, b)?;
    let keys = b.array("TagKeys")?.ok_or_else(|| required("TagKeys"))?;
    let keys: Vec<String> = keys
        .iter()
        .map(|k| {
            k.as_str()
                .map(str::to_owned)
                .ok_or_else(|| ApiError::serialization("TagKeys must be strings"))
        })
        .collect::<Result<_, _>>()?;
    ep.update_meta(&table, |m| {
        for k in &keys {
            m.tags.remove(k);
        }
    });
    Ok(json!({}))
}

/// ListTagsOfResource: a table's tags, by key (one page).
pub(crate) fn list_tags(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = table_of_arn(ep, b)?;
    let tags: Vec<Value> = meta_of(ep, &table)
        .tags
        .iter()
        .map(|(k, v)| json!({"Key": k, "Value": v}))
        .collect();
    Ok(json!({"Tags": tags}))
}

pub(crate) fn describe_ttl(ep: &Endpoint, b: Body<'_>) -> Res {
    let table = b.table()?;
    if ep.db.schema(&table).is_none() {
        return Err(ApiError::not_found(
            "Cannot do operations on a non-existent table",
        ));
    }
    let ttl = ep.db.time_to_live(&table);
    Ok(match ttl {
        Some(a) => {
            json!({"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": a}})
        }
        None => json!({"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn stream_labels_are_utc_timestamps() {
        assert_eq!(super::iso8601(0.0), "1970-01-01T00:00:00.000");
        assert_eq!(super::iso8601(1_431_379_293.291), "2015-05-11T21:21:33.291");
        assert_eq!(super::iso8601(1_709_251_199.999), "2024-02-29T23:59:59.999");
    }
}
