//! Shared set-up for the tests that run against DynamoDB Local: the README's
//! test command (`scripts/test.sh`) starts it and sets `DYNAMODB_ENDPOINT`.

use std::sync::atomic::{AtomicUsize, Ordering};

use singletable::request::GetItem;
use singletable::{AttributeValue, Db, Executor, Item, SdkExecutor, Table};

/// The endpoint of the DynamoDB Local the test command started.
pub fn endpoint() -> String {
    std::env::var("DYNAMODB_ENDPOINT").unwrap_or_else(|_| {
        panic!("DYNAMODB_ENDPOINT is not set: run the tests with `scripts/test.sh`, which starts DynamoDB Local")
    })
}

/// A table name no other test uses, so tests run in parallel.
pub fn unique_table(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// A fresh table laid out as `T` declares it.
pub async fn fresh_db<T: Table>(prefix: &str) -> Db<SdkExecutor> {
    let db = Db::local(&endpoint(), unique_table(prefix));
    assert!(
        db.create_table_if_missing::<T>()
            .await
            .expect("create table"),
        "table name should be fresh"
    );
    db
}

/// A raw item by key, through the executor (what any other client reads).
pub async fn raw_item<E: Executor>(db: &Db<E>, pk: &str, sk: &str) -> Item {
    let mut key = Item::new();
    key.insert("PK".into(), AttributeValue::S(pk.into()));
    key.insert("SK".into(), AttributeValue::S(sk.into()));
    db.executor()
        .get_item(GetItem {
            table: db.table_name().into(),
            key,
            consistent: true,
        })
        .await
        .unwrap()
        .expect("item exists")
}

/// Puts a raw item through the executor, as any other client could.
pub async fn raw_put<E: Executor>(db: &Db<E>, item: Item) -> singletable::Result<()> {
    db.executor()
        .put_item(singletable::request::PutItem {
            table: db.table_name().into(),
            item,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await
        .map(drop)
}
