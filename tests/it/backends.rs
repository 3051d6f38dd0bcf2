//! One test body, one handle type, both backends: `&Db` is
//! `&Db<SharedExecutor>`, and the backend is chosen at run time.

use singletable::{Backend, Db, Error};

use crate::app;
use crate::model::*;
use crate::support::fresh_db;

/// No generics: the same code runs on whatever `db` reaches.
async fn body(db: &Db) {
    // The shop's tour seeds the table and runs every access pattern.
    app::tour(db).await.unwrap();
    let data = app::sample();
    let ana = db.get::<User>(User::key("u-ana").unwrap()).await.unwrap();
    assert_eq!(ana.as_ref(), Some(&data.users[0]));
    let pending = Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await
        .unwrap();
    assert!(!pending.is_empty());
    let counted = Order::orders_by_status(&OrderStatus::Pending)
        .count(db)
        .await
        .unwrap();
    assert_eq!(counted, pending.len() as u64);
    let details = OrderWithItems::query(Order::partition("o-1004").unwrap())
        .all(db)
        .await
        .unwrap();
    assert!(details.len() > 1);
    let again = db.create(&data.users[0]).await;
    assert!(
        matches!(again, Err(Error::ConditionFailed { .. })),
        "{again:?}"
    );
}

#[tokio::test]
async fn one_test_body_runs_on_both_backends() {
    let embedded: Db = Db::open::<AppTable>(Backend::Embedded, "AppTable")
        .await
        .unwrap();
    body(&embedded).await;
    let local = fresh_db::<AppTable>("shared").await;
    let local: Db = Db::open::<AppTable>(
        Backend::DynamoDbLocal {
            endpoint: crate::support::endpoint(),
        },
        local.table_name(),
    )
    .await
    .unwrap();
    body(&local).await;
    // The SDK handle converts to the same type, onto the same table.
    let converted: Db = Db::local(&crate::support::endpoint(), local.table_name()).into_shared();
    let ana = converted
        .get::<User>(User::key("u-ana").unwrap())
        .await
        .unwrap();
    assert_eq!(ana.map(|u| u.user_id), Some("u-ana".to_owned()));
}
