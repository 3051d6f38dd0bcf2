//! A table without a sort key, against DynamoDB Local: items and index
//! entries ordered by hash only (scans by the partition key's hash, index
//! entries with equal index keys by the table key's hash), pages of every
//! limit in both directions, sparse entries coming and going.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use singletable::{AttributeValue, Executor, Item, Table};
use singletable_runtime::expr::{Condition, KeyCondition};
use singletable_runtime::request::{DeleteItem, GetItem, PutItem, QueryRequest, ScanRequest};

use super::{Backends, CASE, backends, follow, run};
use crate::differential::ops::Request;

#[derive(Table)]
#[table(name = "HashOnly", no_sk, gsi1, gsi2(no_sk, keys_only))]
pub struct HashTable;

/// One write: the partition key, then the item's index keys (`None`
/// deletes the item instead of putting it).
type Write = (u8, Option<(Option<u8>, u8)>);

async fn case(b: &Backends, writes: &[Write]) -> Result<(), TestCaseError> {
    let prefix = format!(
        "{}h{}-",
        std::process::id(),
        CASE.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    let s = |v: String| AttributeValue::S(v);
    let key = |pk: u8| Item::from([("PK".to_owned(), s(format!("{prefix}{pk}")))]);
    for (i, (pk, what)) in writes.iter().enumerate() {
        let req = match what {
            Some((group, sort)) => {
                let mut item = key(*pk);
                if let Some(g) = group {
                    item.insert("GSI1PK".into(), s(format!("{prefix}g{g}")));
                    item.insert("GSI2PK".into(), s(format!("{prefix}g{g}")));
                }
                item.insert("GSI1SK".into(), s(format!("k{sort}")));
                Request::Put(PutItem {
                    table: b.table.clone(),
                    item,
                    condition: None,
                    return_old: true,
                    return_on_condition_failure: false,
                })
            }
            None => Request::Delete(DeleteItem {
                table: b.table.clone(),
                key: key(*pk),
                condition: Some(Condition::Exists("GSI1SK".into())),
                return_old: true,
                return_on_condition_failure: true,
            }),
        };
        let local = run(&b.local, &req, &b.table, &prefix).await;
        let embedded = run(&b.embedded, &req, &b.table, &prefix).await;
        prop_assert_eq!(local, embedded, "write {}", i);
    }
    for pk in 0..12u8 {
        let get = GetItem {
            table: b.table.clone(),
            key: key(pk),
            consistent: true,
        };
        let local = b.local.get_item(get.clone()).await;
        let embedded = b.embedded.get_item(get).await;
        prop_assert_eq!(local.ok(), embedded.ok(), "get {}", pk);
    }
    for limit in [None, Some(1), Some(2), Some(5)] {
        for forward in [true, false] {
            for (index, pk_attr) in [("GSI1", "GSI1PK"), ("GSI2", "GSI2PK")] {
                for g in 0..2 {
                    let query = |start| QueryRequest {
                        table: b.table.clone(),
                        index: Some(index.to_owned()),
                        key: KeyCondition {
                            pk_attr: pk_attr.to_owned(),
                            pk: format!("{prefix}g{g}"),
                            sk: None,
                            attrs: None,
                        },
                        filter: None,
                        limit,
                        forward,
                        consistent: false,
                        projection: None,
                        start,
                    };
                    let local = follow(|start| b.local.query(query(start))).await?;
                    let embedded = follow(|start| b.embedded.query(query(start))).await?;
                    prop_assert_eq!(local, embedded, "{} {:?} {}", index, limit, forward);
                }
            }
        }
        let scan = |start| ScanRequest {
            table: b.table.clone(),
            index: None,
            filter: Some(Condition::BeginsWith("PK".into(), s(prefix.clone()))),
            limit,
            consistent: false,
            start,
            segment: None,
            projection: None,
        };
        let local = follow(|start| b.local.scan(scan(start))).await?;
        let embedded = follow(|start| b.embedded.scan(scan(start))).await?;
        prop_assert_eq!(local, embedded, "scan {:?}", limit);
    }
    Ok(())
}

#[test]
fn embedded_hash_only_table_matches_dynamodb_local() {
    let (rt, backends) = backends::<HashTable>("hash-only");
    let config = Config {
        cases: 25,
        failure_persistence: None,
        max_shrink_iters: 500,
        ..Config::default()
    };
    let write = (
        0u8..12,
        prop_oneof![
            1 => Just(None),
            4 => (prop_oneof![1 => Just(None), 4 => (0u8..2).prop_map(Some)], 0u8..3).prop_map(Some),
        ],
    );
    let strategy = prop::collection::vec(write, 5..30);
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, |w| rt.block_on(case(&backends, &w))) {
        panic!("{e}");
    }
}
