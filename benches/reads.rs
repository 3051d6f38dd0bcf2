//! Reads on the embedded backend that used to build item maps: a filtered
//! 100-item query against the same query unfiltered (the filter keeps every
//! item, so both decode the same 100 entities), a projected collection
//! query, and a collection on a global index against the same items' table
//! collection.
//! One criterion run, every pair in one group.
//!
//! Run with `cargo bench --bench reads`.

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use singletable::{Collection, Db, Embedded, Entity, Table};
use tokio::runtime::Runtime;

#[derive(Table)]
#[table(name = "Reads", gsi1)]
pub struct ReadsTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ReadsTable, name = "Reading", rename_all = "camelCase")]
#[pk("SENSOR#<sensor>")]
#[sk("T#<t>")]
#[gsi1(pk = "SITE#<site>", sk = "T#<t>")]
#[access(readings)]
pub struct Reading {
    pub sensor: String,
    pub site: String,
    pub t: u32,
    pub value: f64,
    pub unit: Option<String>,
}

/// The sensor's partition of the table.
#[derive(Collection, Debug)]
pub enum OnTable {
    Reading(Reading),
}

/// The same items, in their site's partition of GSI1.
#[derive(Collection, Debug)]
#[collection(index = gsi1)]
pub enum OnIndex {
    Reading(Reading),
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let db = Db::<Embedded>::in_memory::<ReadsTable>("Reads").expect("table");
    rt.block_on(async {
        for t in 0..100 {
            let r = Reading {
                sensor: "q".into(),
                site: "s".into(),
                t,
                value: f64::from(t) * 0.5,
                unit: Some("celsius".into()),
            };
            db.put(&r).await.expect("put");
        }
    });
    let keeps_all = || Reading::fields().value.ge(&0.0);
    let mut c = Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut g = c.benchmark_group("query_100");
    g.bench_function("unfiltered", |b| {
        b.iter(|| {
            let items = rt.block_on(Reading::readings("q").all(&db)).expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.bench_function("filtered", |b| {
        b.iter(|| {
            let q = Reading::readings("q").filter(keeps_all());
            let items = rt.block_on(q.all(&db)).expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.bench_function("projected", |b| {
        b.iter(|| {
            let p = Reading::partition("q").expect("partition");
            let q = OnTable::query(p).project(&["sensor", "site", "t", "value", "entityType"]);
            let items = rt.block_on(q.all(&db)).expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.finish();
    let mut g = c.benchmark_group("collection_100");
    g.bench_function("table", |b| {
        b.iter(|| {
            let p = Reading::partition("q").expect("partition");
            let items = rt.block_on(OnTable::query(p).all(&db)).expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.bench_function("gsi1", |b| {
        b.iter(|| {
            let p = Reading::gsi1_partition("s").expect("partition");
            let items = rt.block_on(OnIndex::query(p).all(&db)).expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.finish();
    c.final_summary();
}
