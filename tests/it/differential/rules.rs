//! The item rules the engine enforces itself, on every way in, against
//! DynamoDB Local: nesting depth on puts, batches, transactions and updates.

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
/// level, however the value comes in.
#[tokio::test]
async fn engine_refuses_what_dynamodb_refuses() {
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
