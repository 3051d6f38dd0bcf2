//! The embedded backend on its own (no DynamoDB Local needed): transactions
//! stay atomic under concurrent tasks, snapshots outlive the process, keys
//! of every type sort as DynamoDB sorts them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use singletable::embedded::{
    Embedded, IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema,
};
use singletable::{AttributeValue, Blob, Db, Error, Executor, Item, Table};
use singletable_runtime::expr::{Cmp, Condition, KeyCondition, Operand};
use singletable_runtime::request::{
    ConditionCheck, GetItem, PutItem, QueryRequest, ReturnValues, TransactGet, TransactWrite,
    TransactWriteOp, UpdateAction, UpdateItem,
};

#[derive(Table)]
#[table(name = "Bank", gsi1)]
pub struct BankTable;

const ACCOUNTS: usize = 8;
const OPENING: i64 = 1_000;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn account(i: usize) -> Item {
    Item::from([
        ("PK".into(), s(&format!("ACCT#{i}"))),
        ("SK".into(), s("ACCT")),
    ])
}

fn balance(item: &Item) -> i64 {
    match item.get("balance") {
        Some(AttributeValue::N(v)) => v.parse().expect("balance is an integer"),
        other => panic!("no balance: {other:?}"),
    }
}

fn counter(item: &Item, name: &str) -> i64 {
    match item.get(name) {
        Some(AttributeValue::N(v)) => v.parse().expect("integer"),
        _ => 0,
    }
}

/// `balance += delta`, `moves += 1`, only if the account exists (and, when
/// paying, holds enough).
fn transfer_leg(table: &str, i: usize, delta: i64) -> TransactWriteOp {
    let exists = Condition::Exists("PK".into());
    let condition = if delta < 0 {
        exists.and(Condition::Compare(
            Operand::Path("balance".into()),
            Cmp::Ge,
            Operand::Value(n(-delta)),
        ))
    } else {
        exists
    };
    TransactWriteOp::Update(UpdateItem {
        table: table.to_owned(),
        key: account(i),
        actions: vec![
            UpdateAction::Add("balance".into(), n(delta)),
            UpdateAction::Add("moves".into(), n(1)),
        ],
        condition: Some(condition),
        return_values: ReturnValues::None,
        return_on_condition_failure: false,
    })
}

async fn total(exec: &Embedded, table: &str) -> (i64, i64) {
    let gets = (0..ACCOUNTS)
        .map(|i| (table.to_owned(), account(i)))
        .collect();
    let items = exec.transact_get(TransactGet { gets }).await.unwrap();
    items.iter().fold((0, 0), |(b, m), i| {
        let i = i.as_ref().expect("account exists");
        (b + balance(i), m + counter(i, "moves"))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn embedded_transactions_are_atomic() {
    let db = Db::<Embedded>::in_memory::<BankTable>("Bank").unwrap();
    let exec = db.executor().clone();
    let table = db.table_name().to_owned();
    for i in 0..ACCOUNTS {
        let mut item = account(i);
        item.insert("balance".into(), n(OPENING));
        item.insert("GSI1PK".into(), s("BANK"));
        item.insert("GSI1SK".into(), s(&format!("ACCT#{i}")));
        exec.put_item(PutItem {
            table: table.clone(),
            item,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await
        .unwrap();
    }

    let committed = Arc::new(AtomicUsize::new(0));
    let cancelled = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let mut writers = Vec::new();
    for task in 0..16u64 {
        let (exec, table) = (exec.clone(), table.clone());
        let (committed, cancelled, refused, done) = (
            committed.clone(),
            cancelled.clone(),
            refused.clone(),
            done.clone(),
        );
        writers.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(task);
            for _ in 0..300 {
                let from = rng.usize(..ACCOUNTS);
                let to = rng.usize(..ACCOUNTS);
                let amount = rng.i64(1..400);
                let mut ops = vec![
                    transfer_leg(&table, from, -amount),
                    transfer_leg(&table, to, amount),
                ];
                // One transaction in five also checks an item that does not
                // exist: it must leave both legs unapplied.
                let doomed = rng.u8(..5) == 0;
                if doomed {
                    ops.push(TransactWriteOp::ConditionCheck(ConditionCheck {
                        table: table.clone(),
                        key: Item::from([("PK".into(), s("GATE")), ("SK".into(), s("GATE"))]),
                        condition: Condition::Exists("PK".into()),
                        return_on_condition_failure: false,
                    }));
                }
                match exec
                    .transact_write(TransactWrite { ops, token: None })
                    .await
                {
                    Ok(()) => {
                        assert!(!doomed && from != to);
                        committed.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(Error::TransactionCanceled { reasons }) => {
                        assert!(
                            reasons.iter().any(|r| r.code == "ConditionalCheckFailed"),
                            "{reasons:?}"
                        );
                        cancelled.fetch_add(1, Ordering::SeqCst);
                    }
                    // Both legs on one account: two operations on one item.
                    Err(e @ Error::Service { .. }) => {
                        assert_eq!(from, to, "{e}");
                        assert_eq!(e.code(), Some("ValidationException"), "{e}");
                        refused.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(e) => panic!("unexpected error: {e}"),
                }
            }
            done.fetch_add(1, Ordering::SeqCst);
        }));
    }

    // Readers see every transaction whole or not at all: through
    // TransactGetItems and through one-page index queries.
    let mut readers = Vec::new();
    for _ in 0..4 {
        let (exec, table, done) = (exec.clone(), table.clone(), done.clone());
        readers.push(tokio::spawn(async move {
            let mut reads = 0;
            while done.load(Ordering::SeqCst) < 16 || reads == 0 {
                let (sum, moves) = total(&exec, &table).await;
                assert_eq!(sum, OPENING * ACCOUNTS as i64);
                assert_eq!(moves % 2, 0, "a transfer half applied");
                let page = exec
                    .query(QueryRequest {
                        table: table.clone(),
                        index: Some("GSI1".into()),
                        key: KeyCondition {
                            pk_attr: "GSI1PK".into(),
                            pk: "BANK".into(),
                            sk: None,
                            attrs: None,
                        },
                        filter: None,
                        limit: None,
                        forward: true,
                        consistent: false,
                        projection: None,
                        start: None,
                    })
                    .await
                    .unwrap();
                assert_eq!(page.items.len(), ACCOUNTS);
                assert_eq!(
                    page.items.iter().map(balance).sum::<i64>(),
                    OPENING * ACCOUNTS as i64
                );
                assert!(page.items.iter().all(|i| balance(i) >= 0));
                reads += 1;
                tokio::task::yield_now().await;
            }
            reads
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    for r in readers {
        assert!(r.await.unwrap() > 0);
    }

    let (sum, moves) = total(&exec, &table).await;
    let committed = committed.load(Ordering::SeqCst);
    assert_eq!(sum, OPENING * ACCOUNTS as i64);
    assert_eq!(
        moves,
        2 * committed as i64,
        "only committed legs moved money"
    );
    assert_eq!(
        committed + cancelled.load(Ordering::SeqCst) + refused.load(Ordering::SeqCst),
        16 * 300
    );
    assert!(committed > 1000, "{committed} transfers committed");
    assert!(cancelled.load(Ordering::SeqCst) > 500);
}

fn every_type() -> Item {
    let mut m = Item::new();
    m.insert(
        "nested".into(),
        AttributeValue::L(vec![n(1), AttributeValue::Null(true)]),
    );
    Item::from([
        ("s".into(), s("héllo")),
        ("n".into(), AttributeValue::N("-12.5".into())),
        ("b".into(), AttributeValue::B(Blob::new(vec![0, 1, 255]))),
        ("t".into(), AttributeValue::Bool(true)),
        ("z".into(), AttributeValue::Null(true)),
        (
            "ss".into(),
            AttributeValue::Ss(vec!["a".into(), "b".into()]),
        ),
        (
            "ns".into(),
            AttributeValue::Ns(vec!["1".into(), "2.5".into()]),
        ),
        ("bs".into(), AttributeValue::Bs(vec![Blob::new(vec![7])])),
        ("m".into(), AttributeValue::M(m)),
    ])
}

/// Every item, in pages of seven, so that every read follows cursors.
async fn scan_all(exec: &Embedded, table: &str, index: Option<&str>) -> Vec<Item> {
    crate::support::scan_all(exec, table, index, Some(7), false).await
}

#[tokio::test]
async fn embedded_snapshot_survives_a_restart() {
    let exec = Embedded::new();
    exec.create_table::<BankTable>("Bank").unwrap();
    for i in 0..40usize {
        let mut item = every_type();
        item.extend(account(i));
        if i % 3 == 0 {
            item.insert("GSI1PK".into(), s("EVERY-THIRD"));
            item.insert("GSI1SK".into(), s(&format!("{:02}", i % 7)));
        }
        let req = PutItem {
            table: "Bank".into(),
            item,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        };
        exec.put_item(req).await.unwrap();
    }
    let path =
        std::env::temp_dir().join(format!("singletable-snapshot-{}.json", std::process::id()));
    exec.save(&path).unwrap();
    let loaded = Embedded::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();

    assert_eq!(loaded.table_names(), ["Bank"]);
    assert_eq!(loaded.schema("Bank"), exec.schema("Bank"));
    assert_eq!(
        scan_all(&loaded, "Bank", None).await,
        scan_all(&exec, "Bank", None).await
    );
    let index = scan_all(&loaded, "Bank", Some("GSI1")).await;
    assert_eq!(index.len(), 14);
    assert_eq!(index, scan_all(&exec, "Bank", Some("GSI1")).await);

    // The loaded copy is independent and its indexes are live.
    let key = account(3);
    loaded
        .update_item(UpdateItem {
            table: "Bank".into(),
            key: key.clone(),
            actions: vec![UpdateAction::Remove("GSI1PK".into())],
            condition: None,
            return_values: ReturnValues::None,
            return_on_condition_failure: false,
        })
        .await
        .unwrap();
    assert_eq!(scan_all(&loaded, "Bank", Some("GSI1")).await.len(), 13);
    assert_eq!(scan_all(&exec, "Bank", Some("GSI1")).await.len(), 14);
    let get = |e: Embedded| async move {
        e.get_item(GetItem {
            table: "Bank".into(),
            key: account(6),
            consistent: true,
        })
        .await
        .unwrap()
    };
    assert_eq!(get(loaded.clone()).await, get(exec.clone()).await);

    // A damaged snapshot is an error, not a panic.
    std::fs::write(
        &path,
        "{\"format\":\"singletable-embedded\",\"version\":1,\"tables\":{\"Bank\":{}}}",
    )
    .unwrap();
    assert!(Embedded::load(&path).is_err());
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn embedded_keys_sort_by_type() {
    let exec = Embedded::new();
    let schema = |kind| TableSchema {
        pk: KeyAttr::s("PK"),
        sk: Some(KeyAttr {
            name: "SK".into(),
            kind,
        }),
        indexes: vec![IndexSchema {
            name: "ByTag".into(),
            global: true,
            pk: KeyAttr::s("tag"),
            sk: Some(KeyAttr {
                name: "SK".into(),
                kind,
            }),
            pk_rest: vec![],
            sk_rest: vec![],
            projection: IndexProjection::KeysOnly,
        }],
        stream: None,
        vectors: vec![],
    };
    exec.create_table_with("Numbers", schema(KeyType::N))
        .unwrap();
    exec.create_table_with("Binaries", schema(KeyType::B))
        .unwrap();

    let put = |table: &'static str, sk: AttributeValue| {
        let exec = exec.clone();
        async move {
            let item = Item::from([
                ("PK".into(), s("P")),
                ("SK".into(), sk),
                ("tag".into(), s("T")),
            ]);
            exec.put_item(PutItem {
                table: table.into(),
                item,
                condition: None,
                return_old: false,
                return_on_condition_failure: false,
            })
            .await
        }
    };
    for v in [
        "10",
        "-2.5",
        "1e2",
        "0",
        "9.99",
        "-100",
        "0.001",
        "99999999999999999999999999999999999999",
    ] {
        put("Numbers", AttributeValue::N(v.into())).await.unwrap();
    }
    // 1.0 is the same number as 1e0: one item.
    put("Numbers", AttributeValue::N("1".into())).await.unwrap();
    put("Numbers", AttributeValue::N("1.0".into()))
        .await
        .unwrap();
    let sorted: Vec<AttributeValue> = scan_all(&exec, "Numbers", None)
        .await
        .into_iter()
        .map(|i| i["SK"].clone())
        .collect();
    let expect: Vec<AttributeValue> = [
        "-100",
        "-2.5",
        "0",
        "0.001",
        "1",
        "9.99",
        "10",
        "100",
        "99999999999999999999999999999999999999",
    ]
    .iter()
    .map(|v| AttributeValue::N((*v).into()))
    .collect();
    assert_eq!(sorted, expect);
    let by_tag: Vec<AttributeValue> = scan_all(&exec, "Numbers", Some("ByTag"))
        .await
        .into_iter()
        .map(|i| i["SK"].clone())
        .collect();
    assert_eq!(by_tag, expect);

    for b in [
        vec![1u8],
        vec![0, 255],
        vec![],
        vec![0],
        vec![255],
        vec![1, 0],
    ] {
        let r = put("Binaries", AttributeValue::B(Blob::new(b.clone()))).await;
        assert_eq!(r.is_err(), b.is_empty(), "empty binary keys are refused");
    }
    let sorted: Vec<Vec<u8>> = scan_all(&exec, "Binaries", None)
        .await
        .into_iter()
        .map(|i| match &i["SK"] {
            AttributeValue::B(b) => b.as_ref().to_vec(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        sorted,
        [vec![0], vec![0, 255], vec![1], vec![1, 0], vec![255]]
    );

    // A string where a number key is declared is a ValidationException.
    let err = put("Numbers", s("1")).await.unwrap_err();
    assert!(matches!(&err, Error::Service { .. }), "{err}");
    assert_eq!(err.code(), Some("ValidationException"), "{err}");
}

/// The files of a data directory whose names start with `prefix`.
fn files(dir: &std::path::Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    found.sort();
    found
}

/// The whole store as `Embedded::save` writes it (every table's schema,
/// settings, items and stream records), for comparing two stores.
fn saved(exec: &Embedded, dir: &std::path::Path) -> serde_json::Value {
    let path = dir.with_extension("saved.json");
    exec.save(&path).unwrap();
    let doc = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    doc
}

/// A data directory's compaction writes the store as a binary snapshot
/// (the stored bytes of every item, checksummed), and a restart reads it
/// back into the same store: items of every type, index entries, the
/// stream's records, TTL and annotation; attribute names first seen after
/// the restart are numbered on from the snapshot's; a snapshot that fails
/// its checksum is refused whole; a JSON snapshot and a log of JSON records
/// that an earlier version wrote are still read.
#[tokio::test]
async fn durable_snapshot_brings_back_the_same_store() {
    let dir = std::env::temp_dir().join(format!("singletable-binsnap-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let exec = Embedded::open(&dir).unwrap();
    exec.create_table::<BankTable>("Bank").unwrap();
    exec.enable_stream("Bank", singletable::stream::StreamView::NewAndOldImages)
        .unwrap();
    exec.set_time_to_live("Bank", Some("expiresAt")).unwrap();
    exec.annotate("Bank", "kept with the table").unwrap();
    let put_in = |table: &str, item: Item| PutItem {
        table: table.into(),
        item,
        condition: None,
        return_old: false,
        return_on_condition_failure: false,
    };
    let put = |item: Item| put_in("Bank", item);
    // A table without indexes too (its items are restored without
    // computing index entries).
    let plain = TableSchema {
        pk: KeyAttr::s("PK"),
        sk: Some(KeyAttr::s("SK")),
        indexes: vec![],
        stream: None,
        vectors: vec![],
    };
    exec.create_table_with("Plain", plain).unwrap();
    for i in 0..25usize {
        let mut item = every_type();
        item.extend(account(i));
        exec.put_item(put_in("Plain", item)).await.unwrap();
    }
    for i in 0..60usize {
        let mut item = every_type();
        item.extend(account(i));
        if i % 3 == 0 {
            item.insert("GSI1PK".into(), s("EVERY-THIRD"));
            item.insert("GSI1SK".into(), s(&format!("{:02}", i % 7)));
        }
        exec.put_item(put(item)).await.unwrap();
    }
    for i in (0..60).step_by(9) {
        let key = account(i);
        exec.delete_item(singletable_runtime::request::DeleteItem {
            table: "Bank".into(),
            key,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await
        .unwrap();
    }
    exec.flushed().await.unwrap();
    exec.compact().unwrap();
    let before = saved(&exec, &dir);
    let index_before = scan_all(&exec, "Bank", Some("GSI1")).await;
    assert_eq!(
        index_before.len(),
        20 - 7,
        "every third item, less the deleted ones"
    );
    drop(exec);
    assert_eq!(files(&dir, "snapshot-").len(), 1);
    assert!(files(&dir, "snapshot-")[0].extension().unwrap() == "bin");

    let again = Embedded::open(&dir).unwrap();
    assert_eq!(saved(&again, &dir), before);
    assert_eq!(scan_all(&again, "Bank", Some("GSI1")).await, index_before);
    assert_eq!(again.time_to_live("Bank").as_deref(), Some("expiresAt"));
    assert_eq!(
        again.annotation("Bank").as_deref(),
        Some("kept with the table")
    );

    // A name the snapshot does not hold, written after the restart, then
    // a second restart: the snapshot and the log after it.
    let mut item = account(100);
    item.insert("addedLater".into(), s("after the snapshot"));
    item.insert("GSI1PK".into(), s("EVERY-THIRD"));
    item.insert("GSI1SK".into(), s("99"));
    again.put_item(put(item.clone())).await.unwrap();
    let after = saved(&again, &dir);
    drop(again);
    let third = Embedded::open(&dir).unwrap();
    assert_eq!(saved(&third, &dir), after);
    let got = third
        .get_item(GetItem {
            table: "Bank".into(),
            key: account(100),
            consistent: true,
        })
        .await
        .unwrap();
    assert_eq!(got, Some(item));
    assert_eq!(
        scan_all(&third, "Bank", Some("GSI1")).await.len(),
        index_before.len() + 1
    );
    third.compact().unwrap();
    drop(third);

    // One flipped byte: refused whole, with what is wrong, never loaded.
    let snapshot = files(&dir, "snapshot-").remove(0);
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&snapshot, &bytes).unwrap();
    let refused = Embedded::open(&dir).map(|_| ()).unwrap_err();
    assert!(refused.to_string().contains("checksum"), "{refused}");
    bytes[middle] ^= 0x40;
    std::fs::write(&snapshot, &bytes).unwrap();
    assert_eq!(saved(&Embedded::open(&dir).unwrap(), &dir), after);

    // A JSON snapshot (what an earlier version compacted into) is read.
    let legacy = dir.with_extension("legacy");
    std::fs::remove_dir_all(&legacy).ok();
    std::fs::create_dir_all(&legacy).unwrap();
    Embedded::open(&dir)
        .unwrap()
        .save(legacy.join("snapshot-00000000000000000000.json"))
        .unwrap();
    assert_eq!(saved(&Embedded::open(&legacy).unwrap(), &dir), after);
    std::fs::remove_dir_all(&legacy).ok();

    // So is a log whose records are JSON arrays (what earlier versions
    // wrote), here one record creating a table and putting an item.
    std::fs::create_dir_all(&legacy).unwrap();
    let schema = TableSchema {
        pk: KeyAttr::s("PK"),
        sk: None,
        indexes: vec![],
        stream: None,
        vectors: vec![],
    };
    let payload = serde_json::to_vec(&serde_json::json!([
        {"table": "Old", "op": "create", "schema": schema},
        {"table": "Old", "op": "put", "at": 1, "item": {"PK": {"S": "a"}, "n": {"N": "7"}}},
    ]))
    .unwrap();
    let mut log = b"STWAL\0\0\x01".to_vec();
    let len = (payload.len() as u32).to_le_bytes();
    let crc = singletable::embedded::crc32(&[&len[..], &payload].concat());
    log.extend_from_slice(&len);
    log.extend_from_slice(&crc.to_le_bytes());
    log.extend_from_slice(&payload);
    std::fs::write(legacy.join("wal-00000000000000000000.log"), log).unwrap();
    let old = Embedded::open(&legacy).unwrap();
    let got = old
        .get_item(GetItem {
            table: "Old".into(),
            key: Item::from([("PK".into(), s("a"))]),
            consistent: true,
        })
        .await
        .unwrap();
    assert_eq!(got.unwrap()["n"], AttributeValue::N("7".into()));
    drop(old);
    std::fs::remove_dir_all(&legacy).ok();
    std::fs::remove_dir_all(&dir).ok();
}
