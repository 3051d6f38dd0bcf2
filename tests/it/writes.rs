//! Writes against DynamoDB Local: updates that keep index keys in sync,
//! sparse indexes, optimistic locking, counters, transactions, batches and
//! size limits.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use singletable::SdkDb;
use singletable::{
    AttributeValue, BatchPolicy, Db, Entity, Error, Executor, FieldPath, Item, Table,
};
use singletable_runtime::exec::{BoxFuture, Counting};
use singletable_runtime::request::{BatchOp, BatchWrite};

use crate::app;
use crate::model::*;
use crate::support::{Layer, Layered, fresh_db, raw_item};

fn raw_attr(item: &Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

#[tokio::test]
async fn status_update_moves_order_between_index_partitions() {
    let db = fresh_db::<AppTable>("status").await;
    let data = app::sample();
    app::seed(&db, &data).await.unwrap();
    let f = Order::fields();

    Order::update("o-1003")
        .set(f.status, OrderStatus::Shipped)
        .only_if(f.status.eq(&OrderStatus::Pending))
        .execute(&db)
        .await
        .unwrap();

    let raw = raw_item(&db, "ORDER#o-1003", "DETAILS").await;
    assert_eq!(raw_attr(&raw, "status").as_deref(), Some("SHIPPED"));
    assert_eq!(
        raw_attr(&raw, "GSI1PK").as_deref(),
        Some("ORDERSTATUS#SHIPPED")
    );
    assert_eq!(raw_attr(&raw, "GSI1SK").as_deref(), Some("ORDER#o-1003"));
    let pending = Order::orders_by_status(&OrderStatus::Pending)
        .all(&db)
        .await
        .unwrap();
    assert!(pending.iter().all(|o| o.order_id != "o-1003"));
    let shipped = Order::orders_by_status(&OrderStatus::Shipped)
        .all(&db)
        .await
        .unwrap();
    assert_eq!(
        shipped
            .iter()
            .map(|o| o.order_id.as_str())
            .collect::<Vec<_>>(),
        ["o-1003"]
    );
    assert_eq!(shipped[0].status, OrderStatus::Shipped);

    // The condition now fails: typed error with the current item.
    let err = Order::update("o-1003")
        .set(f.status, OrderStatus::Delivered)
        .only_if(f.status.eq(&OrderStatus::Pending))
        .execute(&db)
        .await
        .unwrap_err();
    match err {
        Error::ConditionFailed {
            item: Some(current),
        } => {
            assert_eq!(
                Order::from_item(*current).unwrap().status,
                OrderStatus::Shipped
            );
        }
        other => panic!("expected ConditionFailed with the item, got {other:?}"),
    }
    // Updating a missing item is NotFound, and creates nothing.
    let err = Order::update("o-none")
        .set(f.total, 1.0)
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::NotFound { entity: "Order" }),
        "{err:?}"
    );
    assert!(
        db.get::<Order>(Order::key("o-none").unwrap())
            .await
            .unwrap()
            .is_none()
    );

    // GSI2 (`DATE#<createdAt>`) follows createdAt.
    Order::update("o-1003")
        .set(f.created_at, "2025-01-01T00:00:00.000000Z".to_owned())
        .execute(&db)
        .await
        .unwrap();
    let raw = raw_item(&db, "ORDER#o-1003", "DETAILS").await;
    assert_eq!(
        raw_attr(&raw, "GSI2SK").as_deref(),
        Some("DATE#2025-01-01T00:00:00.000000Z")
    );
}

#[derive(Table)]
#[table(name = "Writes", gsi1, gsi2)]
pub struct WritesTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = WritesTable, name = "Doc", rename_all = "camelCase")]
#[pk("DOC#<id>")]
#[sk("DOC")]
#[gsi1(pk = "OWNER#<owner>#<team>", sk = "DOC#<id>")]
pub struct Doc {
    pub id: String,
    pub owner: String,
    pub team: String,
    pub hits: i64,
    pub tags: std::collections::BTreeSet<String>,
    pub note: Option<String>,
    pub history: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = WritesTable, name = "Account", rename_all = "camelCase")]
#[pk("ACCOUNT#<id>")]
#[sk("ACCOUNT")]
pub struct Account {
    pub id: String,
    pub balance: i64,
    pub entries: u32,
    #[attr(version)]
    pub version: u64,
}

#[tokio::test]
async fn dependent_key_needs_every_field() {
    let db = Db::with_executor(
        Counting::new(fresh_db::<WritesTable>("depkey").await.executor().clone()),
        "unused",
    );
    let f = Doc::fields();
    // GSI1PK needs owner and team: changing one alone is refused before sending.
    let err = Doc::update("d1")
        .check_at_run_time()
        .set(f.owner, "bob".to_owned())
        .execute(&db)
        .await
        .unwrap_err();
    match &err {
        Error::UpdateNeedsItem {
            writes: "GSI1PK",
            needs: "team",
            message,
            ..
        } => assert!(message.contains("`team`"), "{message}"),
        other => panic!("expected UpdateNeedsItem, got {other:?}"),
    }
    assert_eq!(db.executor().count(), 0, "nothing was sent");
}

#[tokio::test]
async fn update_actions_work() {
    let db = fresh_db::<WritesTable>("actions").await;
    let doc = Doc {
        id: "d1".into(),
        owner: "ana".into(),
        team: "red".into(),
        hits: 0,
        tags: ["a".to_owned(), "b".to_owned()].into(),
        note: Some("n".into()),
        history: vec!["created".into()],
    };
    db.put(&doc).await.unwrap();
    let f = Doc::fields();
    let new = Doc::update("d1")
        .set(f.owner, "bob".to_owned())
        .set(f.team, "blue".to_owned())
        .add(f.hits, 5)
        .delete(f.tags, ["a".to_owned()].into())
        .remove(f.note)
        .append(f.history, vec!["moved".into()])
        .execute_returning(&db, singletable::ReturnValues::AllNew)
        .await
        .unwrap();
    let expected = Doc {
        owner: "bob".into(),
        team: "blue".into(),
        hits: 5,
        tags: ["b".to_owned()].into(),
        note: None,
        history: vec!["created".into(), "moved".into()],
        ..doc.clone()
    };
    assert_eq!(new, singletable::Returned::Item(Some(expected.clone())));
    let mut key = Item::new();
    key.insert("PK".into(), AttributeValue::S("DOC#d1".into()));
    key.insert("SK".into(), AttributeValue::S("DOC".into()));
    let raw = db
        .sdk()
        .get_item()
        .table_name(db.table_name())
        .set_key(Some(key))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(raw_attr(&raw, "GSI1PK").as_deref(), Some("OWNER#bob#blue"));
    let old = Doc::update("d1")
        .prepend(f.history, vec!["first".into()])
        .execute_returning(&db, singletable::ReturnValues::AllOld)
        .await
        .unwrap();
    assert_eq!(old, singletable::Returned::Item(Some(expected)));
}

#[tokio::test]
async fn sparse_index_entry_removed_when_condition_turns_false() {
    let db = fresh_db::<AppTable>("sparse").await;
    let data = app::sample();
    for p in &data.products {
        db.put(p).await.unwrap();
    }
    let published =
        |items: Vec<Product>| items.into_iter().map(|p| p.product_id).collect::<Vec<_>>();
    assert_eq!(
        published(Product::published_products().all(&db).await.unwrap()),
        ["p-kbd", "p-mouse", "p-mug"]
    );

    let f = Product::fields();
    Product::update("p-mouse")
        .set(f.published, false)
        .execute(&db)
        .await
        .unwrap();
    let raw = raw_item(&db, "PRODUCT#p-mouse", "DETAILS").await;
    assert!(
        !raw.contains_key("GSI2PK") && !raw.contains_key("GSI2SK"),
        "{raw:?}"
    );
    assert_eq!(
        published(Product::published_products().all(&db).await.unwrap()),
        ["p-kbd", "p-mug"]
    );

    // And back: the entry is written again from the key fields.
    Product::update("p-pan")
        .set(f.published, true)
        .execute(&db)
        .await
        .unwrap();
    let raw = raw_item(&db, "PRODUCT#p-pan", "DETAILS").await;
    assert_eq!(raw_attr(&raw, "GSI2PK").as_deref(), Some("PUBLISHED"));
    assert_eq!(raw_attr(&raw, "GSI2SK").as_deref(), Some("PRODUCT#p-pan"));
    assert_eq!(
        published(Product::published_products().all(&db).await.unwrap()),
        ["p-kbd", "p-mug", "p-pan"]
    );

    // A put of an unpublished product removes it too.
    let mut mug = data.products[3].clone();
    mug.published = false;
    db.put(&mug).await.unwrap();
    assert_eq!(
        published(Product::published_products().all(&db).await.unwrap()),
        ["p-kbd", "p-pan"]
    );
}

#[tokio::test]
async fn concurrent_versioned_writers_lose_no_update() {
    let db = Arc::new(fresh_db::<WritesTable>("versioned").await);
    let mut account = Account {
        id: "acc".into(),
        balance: 0,
        entries: 0,
        version: 0,
    };
    db.put_versioned(&mut account).await.unwrap();
    assert_eq!(account.version, 1);
    // A second create with version 0 is a conflict, not an overwrite.
    let mut again = Account {
        version: 0,
        ..account.clone()
    };
    assert!(matches!(
        db.put_versioned(&mut again).await,
        Err(Error::VersionConflict { .. })
    ));
    // Plain puts would skip the check: refused.
    assert!(matches!(
        db.put(&account).await,
        Err(Error::Refused(singletable::Refusal::Versioned {
            entity: "Account",
            ..
        }))
    ));

    let tasks = 20;
    let per_task = 10;
    let conflicts = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::new();
    for t in 0..tasks {
        let db = db.clone();
        let conflicts = conflicts.clone();
        handles.push(tokio::spawn(async move {
            for i in 0..per_task {
                loop {
                    let mut current = db
                        .get_consistent::<Account>(Account::key("acc").unwrap())
                        .await
                        .unwrap()
                        .unwrap();
                    current.balance += 1;
                    current.entries += 1;
                    // Half the writers use versioned puts, half versioned updates.
                    let result = if (t + i) % 2 == 0 {
                        db.put_versioned(&mut current).await
                    } else {
                        let f = Account::fields();
                        Account::update("acc")
                            .set(f.balance, current.balance)
                            .set(f.entries, current.entries)
                            .if_version(current.version)
                            .execute(&*db)
                            .await
                    };
                    match result {
                        Ok(()) => break,
                        Err(Error::VersionConflict { .. }) => {
                            conflicts.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                }
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let last = db
        .get_consistent::<Account>(Account::key("acc").unwrap())
        .await
        .unwrap()
        .unwrap();
    let total = (tasks * per_task) as i64;
    assert_eq!(last.balance, total, "every update counted");
    assert_eq!(last.entries as i64, total);
    assert_eq!(last.version, 1 + total as u64);
    assert!(
        conflicts.load(Ordering::Relaxed) > 0,
        "20 writers should have conflicted at least once"
    );

    // An update without the version is refused before sending.
    let f = Account::fields();
    let err = Account::update("acc")
        .set(f.balance, 0)
        .execute(&*db)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Refused(singletable::Refusal::Versioned {
                entity: "Account",
                ..
            })
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn atomic_counter_under_concurrency() {
    let db = Arc::new(fresh_db::<WritesTable>("counter").await);
    let doc = Doc {
        id: "c".into(),
        owner: "o".into(),
        team: "t".into(),
        hits: 0,
        tags: Default::default(),
        note: None,
        history: vec![],
    };
    db.put(&doc).await.unwrap();
    let n = 64;
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                Doc::update("c")
                    .add(Doc::fields().hits, i64::from(i % 3 + 1))
                    .execute(&*db)
                    .await
            })
        })
        .collect();
    for h in handles {
        h.await.unwrap().unwrap();
    }
    let expected: i64 = (0..n).map(|i| i64::from(i % 3 + 1)).sum();
    let got = db
        .get_consistent::<Doc>(Doc::key("c").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.hits, expected);
}

#[tokio::test]
async fn transaction_cancellation_reasons_name_the_failing_operation() {
    let db = fresh_db::<AppTable>("txreasons").await;
    let data = app::sample();
    app::seed(&db, &data).await.unwrap();
    let (order, _) = &data.orders[0];
    let f = Order::fields();

    let new_user = User {
        user_id: "u-new".into(),
        name: "New".into(),
        email: "new@example.com".into(),
        created_at: "2024-06-01T00:00:00.000000Z".into(),
    };
    let err = singletable::Transaction::new()
        .create(&new_user) // 0: fine
        .update(
            Order::update(&order.order_id)
                .set(f.status, OrderStatus::Shipped)
                .only_if(f.status.eq(&OrderStatus::Delivered)),
        ) // 1: fails
        .check::<Product>(
            Product::key("p-kbd").unwrap(),
            Product::fields().published.eq(&true),
        ) // 2: fine
        .execute(&db)
        .await
        .unwrap_err();
    match &err {
        Error::TransactionCanceled { reasons } => {
            assert_eq!(reasons.len(), 3);
            assert_eq!(reasons[0].code, "None");
            assert_eq!(reasons[1].code, "ConditionalCheckFailed");
            assert_eq!(reasons[1].index, 1);
            assert_eq!(reasons[2].code, "None");
            let current = reasons[1].item.clone().expect("current item returned");
            assert_eq!(
                Order::from_item(current).unwrap().status,
                OrderStatus::Pending
            );
            assert!(
                err.to_string()
                    .contains("operation 1 failed with ConditionalCheckFailed"),
                "{err}"
            );
        }
        other => panic!("expected TransactionCanceled, got {other:?}"),
    }
    // Atomic: the first operation did not happen either.
    assert!(
        db.get::<User>(User::key("u-new").unwrap())
            .await
            .unwrap()
            .is_none()
    );

    // Two operations on one item: refused before sending.
    let err = singletable::Transaction::new()
        .put(order)
        .put(order)
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::TransactionItemTwice { index: 1, .. }),
        "{err:?}"
    );
    // More than 100 operations: refused before sending.
    let users: Vec<User> = (0..101)
        .map(|i| User {
            user_id: format!("u{i}"),
            ..new_user.clone()
        })
        .collect();
    let mut tx = singletable::Transaction::new();
    for u in &users {
        tx = tx.put(u);
    }
    assert!(matches!(
        tx.execute(&db).await,
        Err(Error::TransactionTooLarge {
            operation: "TransactWriteItems",
            operations: 101,
            max: 100
        })
    ));

    // A read transaction returns typed items.
    let mut rt = singletable::ReadTransaction::new();
    let h_user = rt.get::<User>(User::key("u-ana").unwrap());
    let h_order = rt.get::<Order>(Order::key("o-1001").unwrap());
    let h_missing = rt.get::<Product>(Product::key("nope").unwrap());
    let mut res = rt.execute(&db).await.unwrap();
    assert_eq!(res.take(h_user).unwrap(), Some(data.users[0].clone()));
    assert_eq!(
        res.take(h_order).unwrap().map(|o| o.order_id),
        Some("o-1001".to_owned())
    );
    assert_eq!(res.take(h_missing).unwrap(), None);
}

/// An executor that processes only part of each batch, as DynamoDB does
/// under load (DynamoDB Local never does).
#[derive(Default)]
struct Flaky {
    calls: AtomicUsize,
    returned_unprocessed: AtomicUsize,
    always_fail: bool,
}

impl Layer for Flaky {
    fn batch_write<'a, E: Executor>(
        &'a self,
        inner: &'a E,
        mut req: BatchWrite,
    ) -> BoxFuture<'a, singletable::Result<Vec<BatchOp>>> {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::Relaxed);
            if self.always_fail {
                self.returned_unprocessed
                    .fetch_add(req.ops.len(), Ordering::Relaxed);
                return Ok(req.ops);
            }
            // Process a random part (sometimes nothing), hand back the rest.
            let keep = fastrand::usize(0..=req.ops.len());
            let rest = req.ops.split_off(keep);
            self.returned_unprocessed
                .fetch_add(rest.len(), Ordering::Relaxed);
            let mut left = if req.ops.is_empty() {
                Vec::new()
            } else {
                inner.batch_write(req).await?
            };
            left.extend(rest);
            Ok(left)
        })
    }
}

#[tokio::test]
async fn batch_write_retries_unprocessed_items() {
    let plain = fresh_db::<AppTable>("batch").await;
    let flaky = Layered {
        inner: plain.executor().clone(),
        layer: Flaky::default(),
    };
    let db = Db::with_executor(flaky, plain.table_name());
    let n = 10_000;
    let items: Vec<OrderItem> = (0..n)
        .map(|i| OrderItem {
            item_id: format!("{i:05}"),
            order_id: format!("o-{}", i % 8),
            product_id: "p".into(),
            quantity: 1,
            price: 1.5,
        })
        .collect();
    let policy = BatchPolicy {
        concurrency: 8,
        max_attempts: 60,
        base_delay: std::time::Duration::from_millis(1),
        max_delay: std::time::Duration::from_millis(20),
    };
    let mut batch = singletable::BatchWriter::new().policy(policy);
    for item in &items {
        batch = batch.put(item);
    }
    batch.execute(&db).await.unwrap();
    assert!(
        db.executor()
            .layer
            .returned_unprocessed
            .load(Ordering::Relaxed)
            > 0,
        "the executor did hold items back"
    );
    assert!(
        db.executor().layer.calls.load(Ordering::Relaxed) > n / 25,
        "retries happened"
    );

    let mut landed = 0;
    for o in 0..8 {
        let got = OrderItem::items_of_order(&format!("o-{o}"))
            .all(&plain)
            .await
            .unwrap();
        landed += got.len();
        for item in &got {
            assert_eq!(item, &items[item.item_id.parse::<usize>().unwrap()]);
        }
    }
    assert_eq!(landed, n, "every item landed");

    // When DynamoDB never processes them, every write comes back to the caller.
    let stuck = Db::with_executor(
        Layered {
            inner: plain.executor().clone(),
            layer: Flaky {
                always_fail: true,
                ..Flaky::default()
            },
        },
        plain.table_name(),
    );
    let policy = BatchPolicy {
        max_attempts: 3,
        ..policy
    };
    let mut batch = singletable::BatchWriter::new().policy(policy);
    for item in items.iter().take(60) {
        batch = batch.put(item);
    }
    match batch.execute(&stuck).await {
        Err(Error::Unprocessed {
            writes, attempts, ..
        }) => {
            assert_eq!(writes.len(), 60, "nothing dropped");
            assert_eq!(attempts, 3);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
    // Duplicate keys in one batch are refused.
    let dup = singletable::BatchWriter::new()
        .put(&items[0])
        .put(&items[0])
        .execute(&plain)
        .await;
    assert!(matches!(
        dup,
        Err(Error::Refused(singletable::Refusal::DuplicateBatchKey {
            first: 0,
            second: 1,
            ..
        }))
    ));

    // Batch get of 250 keys, in key order, with a missing one.
    let mut keys: Vec<_> = items
        .iter()
        .take(250)
        .map(|i| i.key_of().unwrap())
        .collect();
    keys.push(OrderItem::key("o-1", "nope").unwrap());
    let got = singletable::BatchGetter::<OrderItem>::new(&keys)
        .execute(&plain)
        .await
        .unwrap();
    assert!(got.is_complete(), "{got:?}");
    let got = got.items;
    assert_eq!(got.len(), 251);
    for (i, g) in got.iter().take(250).enumerate() {
        assert_eq!(g.as_ref(), Some(&items[i]));
    }
    assert_eq!(got[250], None);
}

#[tokio::test]
async fn oversize_item_rejected_before_sending() {
    let plain = fresh_db::<AppTable>("oversize").await;
    let db = Db::with_executor(Counting::new(plain.executor().clone()), plain.table_name());
    let big = Product {
        product_id: "p-big".into(),
        category: "c".into(),
        name: "x".repeat(401 * 1024),
        price: 1.0,
        published: true,
    };
    for result in [
        db.put(&big).await,
        db.create(&big).await,
        singletable::Transaction::new().put(&big).execute(&db).await,
        singletable::BatchWriter::new().put(&big).execute(&db).await,
    ] {
        match result {
            Err(Error::ItemTooLarge {
                entity: "Product",
                size,
                max,
            }) => {
                assert!(size > max);
                assert_eq!(max, 400 * 1024);
            }
            other => panic!("expected ItemTooLarge, got {other:?}"),
        }
    }
    // A key over 2048 bytes is refused too.
    let long = Product {
        product_id: "k".repeat(3000),
        name: "ok".into(),
        ..big.clone()
    };
    assert!(matches!(db.put(&long).await, Err(Error::KeyTooLong { .. })));
    assert_eq!(db.executor().count(), 0, "nothing was sent");

    // Just under the limit goes through.
    let fits = Product {
        name: "x".repeat(399 * 1024),
        ..big
    };
    db.put(&fits).await.unwrap();
    assert_eq!(db.executor().count(), 1);
    let _ = FieldPath::attribute(&Product::fields().name);
}

/// Values an update sets are checked against the field's declared
/// validations as puts are: a refused value is a typed error, nothing is
/// sent, and the stored item is unchanged.
#[tokio::test]
async fn update_values_are_validated_like_puts() {
    let fresh = fresh_db::<AppTable>("validate").await;
    let data = app::sample();
    app::seed(&fresh, &data).await.unwrap();
    let db = Db::with_executor(
        Counting::new(fresh.executor().clone()),
        fresh.table_name().to_owned(),
    );
    let items = OrderItem::fields();
    let users = User::fields();

    db.executor().reset();
    let zero = OrderItem::update("o-1001", "001")
        .set(items.quantity, 0)
        .execute(&db)
        .await;
    match zero {
        Err(Error::Validation {
            entity,
            field,
            message,
        }) => {
            assert_eq!((entity, field), ("OrderItem", "quantity"));
            assert_eq!(message, "must be at least 1");
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
    // A field of an index key (`email` builds GSI1PK) is checked too.
    let short = User::update("u-ana")
        .set(users.email, "a@".to_owned())
        .execute(&db)
        .await;
    assert!(
        matches!(short, Err(Error::Validation { field: "email", .. })),
        "{short:?}"
    );
    let guarded = OrderItem::update("o-1001", "001")
        .set_if_not_exists(items.quantity, 0)
        .execute(&db)
        .await;
    assert!(
        matches!(guarded, Err(Error::Validation { .. })),
        "{guarded:?}"
    );
    assert_eq!(db.executor().count(), 0, "refused updates send nothing");

    let stored = db
        .get::<OrderItem>(OrderItem::key("o-1001", "001").unwrap())
        .await
        .unwrap()
        .expect("item");
    assert_eq!(stored.quantity, 1);
    let user = db
        .get::<User>(User::key("u-ana").unwrap())
        .await
        .unwrap()
        .expect("user");
    assert_eq!(user.email, "ana@example.com");

    // Valid values go through.
    OrderItem::update("o-1001", "001")
        .set(items.quantity, 7)
        .execute(&db)
        .await
        .unwrap();
    let stored = db
        .get::<OrderItem>(OrderItem::key("o-1001", "001").unwrap())
        .await
        .unwrap()
        .expect("item");
    assert_eq!(stored.quantity, 7);
}
