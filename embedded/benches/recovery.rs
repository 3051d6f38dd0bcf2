//! How long a durable store takes to come back: `Embedded::open` on a data
//! directory holding N items (200-byte orders): after a crash (the last
//! background snapshot, then the log written after it) and after a
//! compaction (a snapshot alone); and how fast the log took them.
//!
//! ```text
//! cargo bench -p singletable-embedded --bench recovery [-- ITEMS]
//! ```
//!
//! ITEMS defaults to 1 000 000. The directories are made under the system's
//! temporary directory and removed at the end.

use std::time::Instant;

use singletable_core::exec::Executor;
use singletable_core::request::{BatchOp, BatchWrite};
use singletable_core::value::{AttributeValue, Item};
use singletable_embedded::{Embedded, KeyAttr, TableSchema};

fn order(n: u64) -> Item {
    let s = |v: &str| AttributeValue::S(v.into());
    Item::from([
        ("PK".into(), s(&format!("USER#{}", n % 10_000))),
        ("SK".into(), s(&format!("ORDER#{n:010}"))),
        ("entityType".into(), s("Order")),
        ("status".into(), s("PENDING")),
        ("totalCents".into(), AttributeValue::N("12990".into())),
        ("placedAt".into(), s("2026-12-01T10:00:00Z")),
        ("note".into(), s(&"x".repeat(80))),
    ])
}

fn schema() -> TableSchema {
    TableSchema {
        pk: KeyAttr::s("PK"),
        sk: Some(KeyAttr::s("SK")),
        indexes: vec![],
        stream: None,
        vectors: vec![],
    }
}

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "singletable-recovery-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let items: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);

    // The log: 16 writers, BatchWriteItem of 25 puts each, every batch
    // acknowledged after its sync.
    let log_dir = dir("log");
    let db = Embedded::open(&log_dir).expect("open");
    db.create_table_with("Bench", schema()).expect("table");
    db.flushed().await.expect("flushed");
    let begin = Instant::now();
    let writers: Vec<_> = (0..16u64)
        .map(|w| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut n = w;
                while n < items {
                    let mut ops = Vec::new();
                    while ops.len() < 25 && n < items {
                        ops.push(BatchOp::Put(order(n)));
                        n += 16;
                    }
                    db.batch_write(BatchWrite {
                        table: "Bench".into(),
                        ops,
                    })
                    .await
                    .expect("batch");
                }
            })
        })
        .collect();
    for w in writers {
        w.await.expect("writer");
    }
    let took = begin.elapsed();
    println!(
        "log: {items} items written in {:.2} s ({:.0} items/s, 16 writers, 25 per batch), {} MB on disk",
        took.as_secs_f64(),
        items as f64 / took.as_secs_f64(),
        size(&log_dir) >> 20
    );
    drop(db);

    let begin = Instant::now();
    let db = Embedded::open(&log_dir).expect("reopen");
    let took = begin.elapsed();
    assert_eq!(db.item_count("Bench"), Some(items as usize));
    println!(
        "recovery after a crash (the last background snapshot, then the log after it): {:.2} s",
        took.as_secs_f64()
    );

    let begin = Instant::now();
    db.compact().expect("compact");
    println!(
        "compaction (snapshot written, log removed): {:.2} s, {} MB on disk",
        begin.elapsed().as_secs_f64(),
        size(&log_dir) >> 20
    );
    drop(db);
    let begin = Instant::now();
    let db = Embedded::open(&log_dir).expect("reopen");
    let took = begin.elapsed();
    assert_eq!(db.item_count("Bench"), Some(items as usize));
    println!("recovery from the snapshot: {:.2} s", took.as_secs_f64());
    drop(db);
    let _ = std::fs::remove_dir_all(&log_dir);
}
