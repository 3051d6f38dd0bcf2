//! One test body, one handle type, both backends: `&Db` is
//! `&Db<SharedExecutor>`, and the backend is chosen at run time.

use singletable::SdkDb;
use singletable::{Db, Error};

use crate::app;
use crate::model::*;

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
    // `Db::open` chooses the backend at run time (see `support::both`).
    let [local, embedded] = crate::support::both::<AppTable>("shared").await;
    body(&embedded).await;
    body(&local).await;
    // The SDK handle converts to the same type, onto the same table.
    let converted: Db = Db::local(&crate::support::endpoint(), local.table_name()).into_shared();
    let ana = converted
        .get::<User>(User::key("u-ana").unwrap())
        .await
        .unwrap();
    assert_eq!(ana.map(|u| u.user_id), Some("u-ana".to_owned()));
}
