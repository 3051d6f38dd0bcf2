//! The embedded backend beside dynoxide-rs, both in process, in one
//! criterion run: PutItem, GetItem, PutItem into a table with one global
//! index, and a 100-item Query, one criterion group per operation with
//! both engines in it.
//!
//! Both sides do what an application does with its struct: singletable
//! through `Db<Embedded>` (the entity encoded, its key built, the item
//! stored; the items read decoded back into entities, their keys checked),
//! dynoxide through its `Database` API with the same items built and read
//! by hand (`format!` keys, the same attributes as singletable writes) and
//! `ReturnConsumedCapacity=TOTAL`, which singletable's requests carry too.
//! dynoxide's engine is `dynoxide-rs` 3.2.0 on an in-memory SQLite
//! database (`Database::memory`).
//!
//! Run with `cargo bench -p singletable-bench-dynoxide` (SQLite is compiled
//! the first time).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use dynoxide::AttributeValue as Av;
use dynoxide::Database;
use dynoxide::actions::{get_item, put_item, query};
use singletable::embedded::Embedded;
use singletable::{Db, Entity};
use tokio::runtime::Runtime;

#[path = "../../shared/readings.rs"]
#[allow(dead_code)] // the two-index table is for benches/embedded.rs
mod readings;
use readings::*;

/// The entity type attribute singletable writes, read from one encoded
/// item (so that both sides store the same attributes).
fn entity_attr() -> (String, String) {
    let item = reading("x", 1).to_item().expect("encode");
    let known = ["PK", "SK", "sensor", "t", "value", "unit"];
    let (name, value) = item
        .iter()
        .find(|(k, _)| !known.contains(&k.as_str()))
        .expect("an entity type attribute");
    (name.clone(), value.as_s().expect("a string").clone())
}

/// The reading as dynoxide's item, built by hand as an application would,
/// with the attributes singletable's encoding writes.
fn to_dynoxide(r: &Reading, et: &(String, String), gsi1: bool) -> HashMap<String, Av> {
    let mut item = HashMap::with_capacity(9);
    item.insert("PK".to_owned(), Av::S(format!("SENSOR#{}", r.sensor)));
    item.insert("SK".to_owned(), Av::S(format!("T#{:010}", r.t)));
    item.insert("sensor".to_owned(), Av::S(r.sensor.clone()));
    item.insert("t".to_owned(), Av::N(r.t.to_string()));
    item.insert("value".to_owned(), Av::N(r.value.to_string()));
    item.insert("unit".to_owned(), Av::S(r.unit.clone()));
    item.insert(et.0.clone(), Av::S(et.1.clone()));
    if gsi1 {
        item.insert("GSI1PK".to_owned(), Av::S(format!("UNIT#{}", r.unit)));
        item.insert("GSI1SK".to_owned(), Av::S(format!("T#{:010}", r.t)));
    }
    item
}

/// A reading read back from dynoxide's item by hand.
fn from_dynoxide(item: &HashMap<String, Av>) -> Reading {
    let s = |k: &str| match item.get(k) {
        Some(Av::S(s)) => s.clone(),
        _ => panic!("attribute {k} missing"),
    };
    let n = |k: &str| match item.get(k) {
        Some(Av::N(n)) => n.clone(),
        _ => panic!("attribute {k} missing"),
    };
    Reading {
        sensor: s("sensor"),
        t: n("t").parse().expect("t"),
        value: n("value").parse().expect("value"),
        unit: s("unit"),
    }
}

fn dynoxide_table(db: &Database, name: &str, gsi1: bool) {
    let mut attrs = vec![
        serde_json::json!({"AttributeName": "PK", "AttributeType": "S"}),
        serde_json::json!({"AttributeName": "SK", "AttributeType": "S"}),
    ];
    let mut request = serde_json::json!({
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"}
        ],
        "BillingMode": "PAY_PER_REQUEST",
    });
    if gsi1 {
        attrs.push(serde_json::json!({"AttributeName": "GSI1PK", "AttributeType": "S"}));
        attrs.push(serde_json::json!({"AttributeName": "GSI1SK", "AttributeType": "S"}));
        request["GlobalSecondaryIndexes"] = serde_json::json!([{
            "IndexName": "GSI1",
            "KeySchema": [
                {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                {"AttributeName": "GSI1SK", "KeyType": "RANGE"}
            ],
            "Projection": {"ProjectionType": "ALL"}
        }]);
    }
    request["AttributeDefinitions"] = serde_json::Value::Array(attrs);
    db.create_table(serde_json::from_value(request).expect("CreateTable request"))
        .expect("CreateTable");
}

fn dynoxide_put(db: &Database, table: &str, item: HashMap<String, Av>) {
    db.put_item(put_item::PutItemRequest {
        table_name: table.to_owned(),
        item,
        return_consumed_capacity: Some("TOTAL".to_owned()),
        ..Default::default()
    })
    .expect("PutItem");
}

fn dynoxide_get(db: &Database, sensor: &str, t: u32) -> Option<Reading> {
    let key = HashMap::from([
        ("PK".to_owned(), Av::S(format!("SENSOR#{sensor}"))),
        ("SK".to_owned(), Av::S(format!("T#{t:010}"))),
    ]);
    let out = db
        .get_item(get_item::GetItemRequest {
            table_name: "Bench".to_owned(),
            key,
            return_consumed_capacity: Some("TOTAL".to_owned()),
            ..Default::default()
        })
        .expect("GetItem");
    out.item.as_ref().map(from_dynoxide)
}

fn dynoxide_query(db: &Database, sensor: &str) -> Vec<Reading> {
    let out = db
        .query(query::QueryRequest {
            table_name: "Bench".to_owned(),
            key_condition_expression: Some("#pk = :pk".to_owned()),
            expression_attribute_names: Some(HashMap::from([("#pk".to_owned(), "PK".to_owned())])),
            expression_attribute_values: Some(HashMap::from([(
                ":pk".to_owned(),
                Av::S(format!("SENSOR#{sensor}")),
            )])),
            scan_index_forward: true,
            return_consumed_capacity: Some("TOTAL".to_owned()),
            ..Default::default()
        })
        .expect("Query");
    out.items
        .unwrap_or_default()
        .iter()
        .map(from_dynoxide)
        .collect()
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let et = entity_attr();
    let embedded: Db<Embedded> = Db::in_memory::<BenchTable>("Bench").expect("table");
    let embedded_one: Db<Embedded> = Db::in_memory::<OneIndex>("BenchOne").expect("table");
    let dynoxide = Database::memory().expect("dynoxide");
    dynoxide_table(&dynoxide, "Bench", false);
    dynoxide_table(&dynoxide, "BenchOne", true);
    for t in 0..100 {
        let r = reading("q", t);
        rt.block_on(embedded.put(&r)).expect("put");
        dynoxide_put(&dynoxide, "Bench", to_dynoxide(&r, &et, false));
    }
    // Both engines hold the same items: the sort keys order alike (the
    // hand-written keys pad `t` as singletable's key codec does) and the
    // entities read back equal.
    let ours = rt
        .block_on(Reading::readings("q").all(&embedded))
        .expect("query");
    assert_eq!(ours.len(), 100);
    assert_eq!(ours, dynoxide_query(&dynoxide, "q"));
    let key = Reading::key("q", 42).expect("key");
    assert_eq!(
        rt.block_on(embedded.get::<Reading>(key)).expect("get"),
        dynoxide_get(&dynoxide, "q", 42)
    );

    let mut c = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut n = 0u32;

    let mut g = c.benchmark_group("put");
    g.bench_function("embedded", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            rt.block_on(embedded.put(&reading("p", n % 1000)))
                .expect("put");
        })
    });
    g.bench_function("dynoxide", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let r = reading("p", n % 1000);
            dynoxide_put(&dynoxide, "Bench", to_dynoxide(&r, &et, false));
        })
    });
    g.finish();

    let mut g = c.benchmark_group("put_one_index");
    g.bench_function("embedded", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let r = Indexed1::from(reading("p", n % 1000));
            rt.block_on(embedded_one.put(&r)).expect("put");
        })
    });
    g.bench_function("dynoxide", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let r = reading("p", n % 1000);
            dynoxide_put(&dynoxide, "BenchOne", to_dynoxide(&r, &et, true));
        })
    });
    g.finish();

    let mut g = c.benchmark_group("get");
    g.bench_function("embedded", |b| {
        b.iter(|| {
            let key = Reading::key("q", 42).expect("key");
            black_box(rt.block_on(embedded.get::<Reading>(key)).expect("get"));
        })
    });
    g.bench_function("dynoxide", |b| {
        b.iter(|| black_box(dynoxide_get(&dynoxide, "q", 42)))
    });
    g.finish();

    let mut g = c.benchmark_group("query_100");
    g.bench_function("embedded", |b| {
        b.iter(|| {
            let items = rt
                .block_on(Reading::readings("q").all(&embedded))
                .expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.bench_function("dynoxide", |b| {
        b.iter(|| {
            let items = dynoxide_query(&dynoxide, "q");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.finish();
    c.final_summary();
}
