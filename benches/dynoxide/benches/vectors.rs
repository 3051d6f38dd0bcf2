//! Vector search: the embedded backend beside dynoxide-rs, both in
//! process, in one criterion run. Both hold the same `N` items (768
//! dimensions each, `N` = 100,000 unless `VECTOR_ITEMS` says otherwise), in
//! a COSINE vector index created with the table, and answer the same
//! top-10 SearchVectors; before timing, the bench checks that both return
//! the same ten items in the same order.
//!
//! singletable searches through the typed access pattern (`Db<Embedded>`,
//! results decoded into entities); dynoxide through its `Database` API
//! (results as its items).
//!
//! Run with `cargo bench -p singletable-bench-dynoxide --bench vectors`
//! (SQLite is compiled the first time; loading dynoxide takes a while).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use dynoxide::AttributeValue as Av;
use dynoxide::Database;
use dynoxide::actions::put_item;
use singletable::embedded::Embedded;
use singletable::{Db, Entity, Table};
use tokio::runtime::Runtime;

const DIMS: usize = 768;

#[derive(Table)]
#[table(name = "Docs", vector1(name = "Similar", dimensions = 768, distance = cosine))]
pub struct Docs;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Docs, name = "Doc")]
#[pk("DOC#<id>")]
#[sk("DOC")]
#[vector1(vector = embedding)]
#[access(similar, index = vector1)]
pub struct Doc {
    pub id: u32,
    pub embedding: Vec<f32>,
}

/// xorshift: values in [-1, 1), repeatable.
fn vector(seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..DIMS)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn numbers(v: &[f32]) -> Vec<Av> {
    v.iter().map(|x| Av::N(x.to_string())).collect()
}

fn dynoxide_table(db: &Database) {
    let request = serde_json::json!({
        "TableName": "Docs",
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"}
        ],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"}
        ],
        "BillingMode": "PAY_PER_REQUEST",
        "VectorIndexes": [{
            "IndexName": "Similar",
            "VectorAttribute": {"AttributeName": "embedding"},
            "Dimensions": DIMS,
            "DistanceFunction": "COSINE",
            "Projection": {"ProjectionType": "ALL"}
        }]
    });
    db.create_table(serde_json::from_value(request).expect("CreateTable request"))
        .expect("CreateTable");
}

/// The item singletable writes for `doc`, built by hand.
fn to_dynoxide(doc: &Doc) -> HashMap<String, Av> {
    let mut item = HashMap::with_capacity(5);
    item.insert("PK".to_owned(), Av::S(format!("DOC#{}", doc.id)));
    item.insert("SK".to_owned(), Av::S("DOC".to_owned()));
    item.insert("id".to_owned(), Av::N(doc.id.to_string()));
    item.insert("entityType".to_owned(), Av::S("Doc".to_owned()));
    item.insert("embedding".to_owned(), Av::L(numbers(&doc.embedding)));
    item
}

/// dynoxide's top 10, as ids.
fn dynoxide_search(db: &Database, q: &[f32]) -> Vec<u32> {
    let request = serde_json::json!({
        "TableName": "Docs",
        "IndexName": "Similar",
        "TopK": 10,
        "SearchVector": q.iter().map(|x| serde_json::json!({"N": x.to_string()})).collect::<Vec<_>>(),
    });
    let out = db
        .search_vectors(serde_json::from_value(request).expect("SearchVectors request"))
        .expect("SearchVectors");
    out.search_results
        .iter()
        .map(|r| match r.item.get("id") {
            Some(Av::N(n)) => n.parse().expect("id"),
            _ => panic!("no id"),
        })
        .collect()
}

fn main() {
    let n: u32 = std::env::var("VECTOR_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let rt = Runtime::new().expect("runtime");
    let embedded: Db<Embedded> = Db::in_memory::<Docs>("Docs").expect("table");
    let dynoxide = Database::memory().expect("dynoxide");
    dynoxide_table(&dynoxide);
    let started = Instant::now();
    for id in 0..n {
        let doc = Doc {
            id,
            embedding: vector(u64::from(id)),
        };
        rt.block_on(embedded.put(&doc)).expect("put");
        dynoxide
            .put_item(put_item::PutItemRequest {
                table_name: "Docs".to_owned(),
                item: to_dynoxide(&doc),
                ..Default::default()
            })
            .expect("PutItem");
    }
    eprintln!(
        "loaded {n} items of {DIMS} dimensions into both in {:.1?}",
        started.elapsed()
    );
    let q = vector(u64::MAX / 3);
    let ours: Vec<u32> = rt
        .block_on(Doc::similar(&q).top_k(10).all(&embedded))
        .expect("search")
        .into_iter()
        .map(|s| s.item.id)
        .collect();
    assert_eq!(ours.len(), 10);
    assert_eq!(
        ours,
        dynoxide_search(&dynoxide, &q),
        "the two engines disagree"
    );

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut g = c.benchmark_group(format!("search_top10_{n}x{DIMS}"));
    g.bench_function("embedded", |b| {
        b.iter(|| {
            let found = rt
                .block_on(Doc::similar(black_box(&q)).top_k(10).all(&embedded))
                .expect("search");
            black_box(found)
        })
    });
    g.bench_function("dynoxide", |b| {
        b.iter(|| black_box(dynoxide_search(&dynoxide, black_box(&q))))
    });
    g.finish();
    c.final_summary();
}
