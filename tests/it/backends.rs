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

/// What the typed and the shared handle read of the same table, and the
/// pages each decoded, by the way it read them (see
/// `singletable_runtime::reader::pages_read`).
async fn reads_and_paths<E: singletable::Executor>(
    db: &Db<E>,
) -> (
    (Option<User>, Vec<Order>, Vec<OrderWithItems>),
    singletable_runtime::reader::PagesRead,
) {
    use singletable_runtime::reader::pages_read;
    let before = pages_read();
    let user = db.get::<User>(User::key("u-ana").unwrap()).await.unwrap();
    let pending = Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await
        .unwrap();
    let details = OrderWithItems::query(Order::partition("o-1004").unwrap())
        .all(db)
        .await
        .unwrap();
    let after = pages_read();
    let paths = singletable_runtime::reader::PagesRead {
        maps: after.maps - before.maps,
        in_place: after.in_place - before.in_place,
        dynamic: after.dynamic - before.dynamic,
    };
    ((user, pending, details), paths)
}

/// The shared handle (`Db`, an `Arc<dyn Executor>`) reads the embedded
/// backend's GetItem and Query pages in place, as `Db<Embedded>` does: the
/// decoder runs with static dispatch over the encoded page (the runtime's
/// `EncodedItems`), never through `dyn AttrReader` per attribute, and the
/// results are the typed handle's. On DynamoDB Local both handles decode
/// the SDK's maps, with the same results.
#[tokio::test(flavor = "current_thread")]
async fn shared_handle_reads_pages_in_place() {
    let typed = Db::<singletable::Embedded>::in_memory::<AppTable>("PagesInPlace").unwrap();
    let shared: Db = typed.clone().into_shared();
    app::tour(&shared).await.unwrap();
    let (typed_reads, typed_paths) = reads_and_paths(&typed).await;
    let (shared_reads, shared_paths) = reads_and_paths(&shared).await;
    assert_eq!(shared_reads, typed_reads);
    assert!(typed_reads.0.is_some() && !typed_reads.1.is_empty() && typed_reads.2.len() > 1);
    // One GetItem and two single-page queries: three pages, all in place.
    let in_place = singletable_runtime::reader::PagesRead {
        maps: 0,
        in_place: 3,
        dynamic: 0,
    };
    assert_eq!(typed_paths, in_place);
    assert_eq!(
        shared_paths, in_place,
        "the shared handle left the in-place path"
    );

    // DynamoDB Local: the SDK's items are maps, decoded as maps by both.
    let local = crate::support::fresh_db::<AppTable>("pages").await;
    let shared: Db = local.clone().into_shared();
    app::tour(&shared).await.unwrap();
    let (typed_reads, typed_paths) = reads_and_paths(&local).await;
    let (shared_reads, shared_paths) = reads_and_paths(&shared).await;
    assert_eq!(shared_reads, typed_reads);
    let maps = singletable_runtime::reader::PagesRead {
        maps: 3,
        in_place: 0,
        dynamic: 0,
    };
    assert_eq!((typed_paths, shared_paths), (maps, maps));
}
