//! The item rules the engine enforces itself, on every way in, against
//! DynamoDB Local: nesting depth on puts, batches, transactions and updates,
//! and the items an index built over stored items leaves out.

use singletable::expr::Path;
use singletable::{AttributeValue, Db, Item};
use singletable_core::request::{
    BatchOp, BatchWrite, PutItem, ReturnValues, SetValue, TransactWrite, TransactWriteOp,
    UpdateAction, UpdateItem,
};

use super::DiffTable;
use crate::support;

/// A value whose deepest part is `levels` maps down (0: a string).
fn nested(levels: usize) -> AttributeValue {
    (0..levels).fold(AttributeValue::S("x".into()), |inner, _| {
        AttributeValue::M([("m".to_owned(), inner)].into())
    })
}

fn item(pk: &str, deep: AttributeValue) -> Item {
    [
        ("PK".to_owned(), AttributeValue::S(pk.into())),
        ("SK".to_owned(), AttributeValue::S("S".into())),
        ("deep".to_owned(), deep),
    ]
    .into()
}

fn key(pk: &str) -> Item {
    [
        ("PK".to_owned(), AttributeValue::S(pk.into())),
        ("SK".to_owned(), AttributeValue::S("S".into())),
    ]
    .into()
}

fn answer<T>(r: singletable::Result<T>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => format!("refused: {}", e.code().unwrap_or("(before sending)")),
    }
}

fn put(table: &str, item: Item) -> PutItem {
    PutItem {
        table: table.into(),
        item,
        condition: None,
        return_old: false,
        return_on_condition_failure: false,
    }
}

fn update(table: &str, pk: &str, action: UpdateAction) -> UpdateItem {
    UpdateItem {
        table: table.into(),
        key: key(pk),
        actions: vec![action],
        condition: None,
        return_values: ReturnValues::None,
        return_on_condition_failure: false,
    }
}

/// Every way in, at nesting `levels`: what each answered.
async fn nesting(db: &Db, levels: usize) -> Vec<String> {
    let (exec, t) = (db.executor(), db.table_name());
    let pk = |way: &str| format!("NEST#{levels}#{way}");
    let mut seen = vec![
        answer(
            exec.put_item(put(t, item(&pk("put"), nested(levels))))
                .await,
        ),
        answer(
            exec.batch_write(BatchWrite {
                table: t.into(),
                ops: vec![BatchOp::Put(item(&pk("batch"), nested(levels)))],
            })
            .await,
        ),
        answer(
            exec.transact_write(TransactWrite {
                ops: vec![TransactWriteOp::Put(put(
                    t,
                    item(&pk("transaction"), nested(levels)),
                ))],
                token: None,
            })
            .await,
        ),
        answer(
            exec.update_item(update(
                t,
                &pk("update"),
                UpdateAction::Set("deep".into(), SetValue::Value(nested(levels))),
            ))
            .await,
        ),
    ];
    // A value nested below a path: the item it makes is one level deeper.
    exec.put_item(put(t, item(&pk("path"), nested(1))))
        .await
        .unwrap();
    seen.push(answer(
        exec.update_item(update(
            t,
            &pk("path"),
            UpdateAction::SetAt(Path::new("deep").key("m"), SetValue::Value(nested(levels))),
        ))
        .await,
    ));
    seen.push(answer(
        exec.transact_write(TransactWrite {
            ops: vec![TransactWriteOp::Update(update(
                t,
                &pk("path"),
                UpdateAction::SetAt(Path::new("deep").key("m"), SetValue::Value(nested(levels))),
            ))],
            token: None,
        })
        .await,
    ));
    seen
}

/// Nesting: the engine refuses what DynamoDB Local refuses, level for
/// level, however the value comes in; and an index built by UpdateTable
/// holds what DynamoDB's would.
#[tokio::test]
async fn engine_refuses_what_dynamodb_refuses() {
    index_built_by_update_table_leaves_invalid_keys_out().await;
    let [local, embedded] = support::both::<DiffTable>("Rules").await;
    let mut refused = 0;
    for levels in (29..=34).rev() {
        let theirs = nesting(&local, levels).await;
        let ours = nesting(&embedded, levels).await;
        assert_eq!(ours, theirs, "nesting {levels}");
        refused += ours.iter().filter(|a| a.starts_with("refused")).count();
    }
    // Both accept the shallow ones and refuse the deep ones.
    assert!(refused > 0 && refused < 6 * 6, "{refused} refusals");
}

/// The table before and after a global index is added.
#[derive(singletable::Table)]
#[table(name = "Grow")]
pub struct Grow1;

#[derive(singletable::Table)]
#[table(name = "Grow", gsi1)]
pub struct Grow2;

/// An index that UpdateTable adds to a table holding items holds exactly
/// those a write could have put in it: items whose new key is empty, over
/// its size limit or of another type stay out of it (they were stored
/// before the index made them invalid), on both backends (where DynamoDB
/// Local departs from DynamoDB, its answer is asserted as it is).
async fn index_built_by_update_table_leaves_invalid_keys_out() {
    use singletable::backend::ExtraIndexes;
    let s = |v: &str| AttributeValue::S(v.into());
    let cases: [(&str, AttributeValue, AttributeValue); 6] = [
        ("valid", s("A"), s("1")),
        ("empty-pk", s(""), s("2")),
        ("empty-sk", s("A"), s("")),
        ("long-pk", s(&"x".repeat(2049)), s("3")),
        ("long-sk", s("A"), s(&"y".repeat(1025))),
        ("number-pk", AttributeValue::N("1".into()), s("4")),
    ];
    let mut answers = Vec::new();
    for db in support::both::<Grow1>("Grow").await {
        for (name, gpk, gsk) in cases.clone() {
            let mut it = key(name);
            it.insert("GSI1PK".into(), gpk);
            it.insert("GSI1SK".into(), gsk);
            support::raw_put(&db, it).await.unwrap();
        }
        db.update_table::<Grow2>(ExtraIndexes::Keep).await.unwrap();
        let mut indexed: Vec<String> =
            support::scan_all(db.executor(), db.table_name(), Some("GSI1"), None, false)
                .await
                .iter()
                .map(|i| i["PK"].as_s().unwrap().clone())
                .collect();
        indexed.sort();
        answers.push(indexed);
    }
    // DynamoDB's backfill writes no item with an index key violation (a key
    // of another type, or over its size limit) to the index; DynamoDB Local
    // indexes them, and leaves out only empty keys (the endpoint's list of
    // Local's departures).
    assert_eq!(answers[0], ["long-pk", "long-sk", "number-pk", "valid"]);
    assert_eq!(answers[1], ["valid"]);
}
