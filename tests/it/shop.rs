//! The shop example's access patterns against DynamoDB Local.

use singletable::SdkDb;
use singletable::embedded::Embedded;
use singletable::{AttributeValue, Db, Error, Executor, SdkExecutor};
use singletable_runtime::exec::Counting;

use crate::app;
use crate::model::*;
use crate::support::{fresh_db, raw_item};

fn ids<'a>(orders: impl IntoIterator<Item = &'a Order>) -> Vec<&'a str> {
    orders.into_iter().map(|o| o.order_id.as_str()).collect()
}

#[tokio::test]
async fn shop_access_patterns_against_dynamodb_local() {
    let db = fresh_db::<AppTable>("shop").await;
    check_shop(&db).await;
}

/// The shop example's tour on the embedded backend, then every assertion of
/// the DynamoDB Local test.
#[tokio::test]
async fn shop_runs_on_embedded_backend() {
    let db: Db<Embedded> = Db::in_memory::<AppTable>("AppTable").unwrap();
    app::tour(&db).await.unwrap();
    let fresh: Db<Embedded> = Db::in_memory::<AppTable>("AppTable").unwrap();
    check_shop(&fresh).await;
}

async fn check_shop<E: Executor>(db: &Db<E>) {
    let data = app::sample();
    app::seed(db, &data).await.unwrap();

    // User by id (GetItem) and by email (GSI1).
    let ana = db
        .get::<User>(User::key("u-ana").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ana, data.users[0]);
    let bruno = User::user_by_email("bruno@example.com")
        .first(db)
        .await
        .unwrap();
    assert_eq!(bruno.as_ref(), Some(&data.users[1]));
    assert_eq!(
        User::user_by_email("nobody@example.com")
            .first(db)
            .await
            .unwrap(),
        None
    );

    // A user's orders, newest first: only summaries, never the profile.
    let summaries = OrderSummary::orders_of_user("u-ana")
        .newest_first()
        .all(db)
        .await
        .unwrap();
    let got: Vec<&str> = summaries.iter().map(|s| s.order_id.as_str()).collect();
    assert_eq!(got, ["o-1004", "o-1002", "o-1001"]);

    // An order with its items in one query.
    let details = OrderWithItems::query(Order::partition("o-1004").unwrap())
        .all(db)
        .await
        .unwrap();
    let (order, items) = &data.orders[3];
    assert_eq!(details.len(), 1 + items.len());
    assert!(details.contains(&OrderWithItems::Order(order.clone())));
    for item in items {
        assert!(details.contains(&OrderWithItems::Item(item.clone())));
    }
    // The items alone, through the entity's own scoped pattern.
    let only_items = OrderItem::items_of_order("o-1004").all(db).await.unwrap();
    assert_eq!(&only_items, items);

    // Orders by status (GSI1) and by date range (GSI2 between).
    let pending = Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await
        .unwrap();
    assert_eq!(
        ids(&pending),
        ["o-1001", "o-1002", "o-1003", "o-1004", "o-1005", "o-1006"]
    );
    let range = Order::orders_by_date()
        .sk_between("2024-05-08", "2024-05-21")
        .all(db)
        .await
        .unwrap();
    assert_eq!(ids(&range), ["o-1002", "o-1003", "o-1004", "o-1005"]);
    let newest = Order::orders_by_date()
        .newest_first()
        .limit(2)
        .all(db)
        .await
        .unwrap();
    assert_eq!(ids(&newest), ["o-1006", "o-1005"]);

    // Products: by id, by category (GSI1), published only (sparse GSI2).
    let kbd = db
        .get::<Product>(Product::key("p-kbd").unwrap())
        .await
        .unwrap();
    assert_eq!(kbd.as_ref(), Some(&data.products[0]));
    let kitchen = Product::products_by_category("kitchen")
        .all(db)
        .await
        .unwrap();
    assert_eq!(
        kitchen
            .iter()
            .map(|p| p.product_id.as_str())
            .collect::<Vec<_>>(),
        ["p-mug", "p-pan"]
    );
    let published = Product::published_products().all(db).await.unwrap();
    assert_eq!(
        published
            .iter()
            .map(|p| p.product_id.as_str())
            .collect::<Vec<_>>(),
        ["p-kbd", "p-mouse", "p-mug"]
    );

    // The status change moves the header between GSI1 partitions, and only
    // while the order is still PENDING.
    let (first, _) = &data.orders[0];
    app::change_status(db, first, OrderStatus::Pending, OrderStatus::Shipped)
        .await
        .unwrap();
    let pending = Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await
        .unwrap();
    assert!(!ids(&pending).contains(&"o-1001"));
    let shipped = Order::orders_by_status(&OrderStatus::Shipped)
        .all(db)
        .await
        .unwrap();
    assert_eq!(ids(&shipped), ["o-1001"]);
    let summary = OrderSummary::orders_of_user("u-ana")
        .sk_eq("o-1001")
        .first(db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(summary.status, OrderStatus::Shipped);
    match app::change_status(db, first, OrderStatus::Pending, OrderStatus::Delivered).await {
        Err(Error::TransactionCanceled { reasons }) => {
            // The summary's update was fine; the header's condition failed.
            assert_eq!(reasons.len(), 2);
            assert_eq!(reasons[0].code, "None");
            assert_eq!(reasons[1].code, "ConditionalCheckFailed");
        }
        other => panic!("expected a cancelled transaction, got {other:?}"),
    }

    // Creating an order that exists fails as a whole: nothing is written twice.
    let (o2, items2) = &data.orders[1];
    let err = app::place_order(db, o2, items2).await.unwrap_err();
    assert!(matches!(err, Error::TransactionCanceled { .. }), "{err}");

    // Other clients read what it writes: the raw item follows the layout.
    let raw = raw_item(db, "ORDER#o-1002", "DETAILS").await;
    assert_eq!(
        raw["GSI1PK"],
        AttributeValue::S("ORDERSTATUS#PENDING".into())
    );
    assert_eq!(raw["GSI1SK"], AttributeValue::S("ORDER#o-1002".into()));
    assert_eq!(raw["GSI2PK"], AttributeValue::S("ORDERBYDATE".into()));
    assert_eq!(
        raw["GSI2SK"],
        AttributeValue::S("DATE#2024-05-09T10:30:00.000000Z".into())
    );
    assert_eq!(raw["entityType"], AttributeValue::S("Order".into()));
    assert_eq!(raw["orderId"], AttributeValue::S("o-1002".into()));
    assert_eq!(raw["userId"], AttributeValue::S("u-ana".into()));
    assert_eq!(raw["total"], AttributeValue::N("33".into()));
    assert_eq!(
        raw["createdAt"],
        AttributeValue::S("2024-05-09T10:30:00.000000Z".into())
    );
    let unpublished = raw_item(db, "PRODUCT#p-pan", "DETAILS").await;
    assert!(!unpublished.contains_key("GSI2PK") && !unpublished.contains_key("GSI2SK"));
    assert_eq!(
        unpublished["GSI1PK"],
        AttributeValue::S("CATEGORY#kitchen".into())
    );
}

#[tokio::test]
async fn each_access_pattern_is_one_request() {
    let plain = fresh_db::<AppTable>("count").await;
    app::seed(&plain, &app::sample()).await.unwrap();
    let db = Db::with_executor(
        Counting::new(SdkExecutor::new(plain.sdk().clone())),
        plain.table_name(),
    );
    let exec = db.executor();

    macro_rules! one_request {
        ($name:literal, $run:expr) => {{
            exec.reset();
            let out = $run.await.unwrap();
            assert_eq!(
                exec.count(),
                1,
                "access pattern `{}` sent {} requests",
                $name,
                exec.count()
            );
            out
        }};
    }

    let u = one_request!("user by id", db.get::<User>(User::key("u-ana").unwrap()));
    assert!(u.is_some());
    let u = one_request!(
        "user by email",
        User::user_by_email("ana@example.com").first(&db)
    );
    assert!(u.is_some());
    let o = one_request!(
        "orders of user",
        OrderSummary::orders_of_user("u-ana")
            .newest_first()
            .all(&db)
    );
    assert_eq!(o.len(), 3);
    let d = one_request!(
        "order with items",
        OrderWithItems::query(Order::partition("o-1001").unwrap()).all(&db)
    );
    assert_eq!(d.len(), 3);
    let s = one_request!(
        "orders by status",
        Order::orders_by_status(&OrderStatus::Pending).all(&db)
    );
    assert_eq!(s.len(), 6);
    let r = one_request!(
        "orders by date",
        Order::orders_by_date()
            .sk_between("2024-05-01", "2024-05-31")
            .all(&db)
    );
    assert_eq!(r.len(), 6);
    let p = one_request!(
        "product by id",
        db.get::<Product>(Product::key("p-mug").unwrap())
    );
    assert!(p.is_some());
    let c = one_request!(
        "products by category",
        Product::products_by_category("electronics").all(&db)
    );
    assert_eq!(c.len(), 3);
    let pb = one_request!("published products", Product::published_products().all(&db));
    assert_eq!(pb.len(), 3);
    let (order, _) = &app::sample().orders[2];
    one_request!(
        "status change",
        app::change_status(&db, order, OrderStatus::Pending, OrderStatus::Shipped)
    );
}

#[tokio::test]
async fn mixed_partition_query_decodes_by_entity_type() {
    let db = fresh_db::<AppTable>("mixed").await;
    let data = app::sample();
    let (order, items) = &data.orders[0];
    app::place_order(&db, order, items).await.unwrap();

    let all = OrderWithItems::query(Order::partition(&order.order_id).unwrap())
        .all(&db)
        .await
        .unwrap();
    let headers: Vec<&Order> = all
        .iter()
        .filter_map(|d| match d {
            OrderWithItems::Order(o) => Some(o),
            OrderWithItems::Item(_) => None,
        })
        .collect();
    let lines: Vec<&OrderItem> = all
        .iter()
        .filter_map(|d| match d {
            OrderWithItems::Item(i) => Some(i),
            OrderWithItems::Order(_) => None,
        })
        .collect();
    assert_eq!(headers, [order]);
    assert_eq!(lines, items.iter().collect::<Vec<_>>());

    // An item of a type the collection does not know, written by someone else.
    db.sdk()
        .put_item()
        .table_name(db.table_name())
        .item("PK", AttributeValue::S(format!("ORDER#{}", order.order_id)))
        .item("SK", AttributeValue::S("NOTE#1".into()))
        .item("entityType", AttributeValue::S("OrderNote".into()))
        .item("text", AttributeValue::S("leave at the door".into()))
        .send()
        .await
        .unwrap();
    let err = OrderWithItems::query(Order::partition(&order.order_id).unwrap())
        .all(&db)
        .await
        .unwrap_err();
    match &err {
        Error::Decode { entity, source } => {
            assert_eq!(*entity, "OrderWithItems");
            assert!(source.to_string().contains("OrderNote"), "{source}");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    let skipped = OrderWithItems::query(Order::partition(&order.order_id).unwrap())
        .skip_other_types()
        .all(&db)
        .await
        .unwrap();
    assert_eq!(skipped, all);
}
