//! Tables the library did not write: items that other clients of the
//! table put there (a Python Lambda, the console, a Workbench import)
//! carry no entity type and no copies of the key fields. Queries that skip
//! other types skip them too, on the table, on an index and in a
//! collection, on both backends.

use singletable::{AttributeValue, Collection, Db, Entity, Error, Item, Table};

use crate::support::{both, raw_put};

#[derive(Table)]
#[table(name = "Existing", gsi1)]
pub struct ExistingTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ExistingTable, rename_all = "camelCase")]
#[pk("CUSTOMER#<customer_id>")]
#[sk("PROFILE")]
pub struct Customer {
    pub customer_id: String,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ExistingTable, rename_all = "camelCase")]
#[pk("CUSTOMER#<customer_id>")]
#[sk("ORDER#<order_id>")]
#[gsi1(pk = "ORDERS", sk = "ORDER#<order_id>")]
#[access(orders_of)]
#[access(all_orders, index = gsi1)]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub total: u32,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum CustomerPage {
    Customer(Customer),
    Order(Order),
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// Items another client wrote in the same partitions: no `entityType` and
/// no copies of the key fields (`ORDER#o-0` as a Lambda writes it), one
/// whose `entityType` is a number, and one on the index only.
async fn foreign_items(db: &Db) {
    let items: [Item; 3] = [
        [
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("ORDER#o-0")),
            ("GSI1PK", s("ORDERS")),
            ("GSI1SK", s("ORDER#o-0")),
            ("Total", AttributeValue::N("12".into())),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
        [
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("ORDER#o-5")),
            ("entityType", AttributeValue::N("7".into())),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
        [
            ("PK", s("IMPORT#1")),
            ("SK", s("ROW#1")),
            ("GSI1PK", s("ORDERS")),
            ("GSI1SK", s("ORDER#o-3")),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
    ];
    for item in items {
        raw_put(db, item).await.unwrap();
    }
}

fn order(n: u32) -> Order {
    Order {
        customer_id: "c1".into(),
        order_id: format!("o-{n}"),
        total: n * 10,
    }
}

#[tokio::test]
async fn skip_other_types_skips_items_it_cannot_attribute() {
    for db in both::<ExistingTable>("existing-skip").await {
        let ana = Customer {
            customer_id: "c1".into(),
            name: "Ana".into(),
        };
        db.put(&ana).await.unwrap();
        for n in [1, 2, 4] {
            db.put(&order(n)).await.unwrap();
        }
        foreign_items(&db).await;
        let mine = vec![order(1), order(2), order(4)];

        // By default an item of no known type is a surprise, reported.
        let refused = Order::orders_of("c1").all(&db).await;
        assert!(
            matches!(
                &refused,
                Err(Error::Decode {
                    entity: "Order",
                    ..
                })
            ),
            "{refused:?}"
        );
        let refused = Order::all_orders().all(&db).await;
        assert!(matches!(&refused, Err(Error::Decode { .. })), "{refused:?}");

        // Skipped, on the table and on the index, whole and page by page.
        let on_table = Order::orders_of("c1").skip_other_types().all(&db).await;
        assert_eq!(on_table.unwrap(), mine);
        let on_index = Order::all_orders().skip_other_types().all(&db).await;
        assert_eq!(on_index.unwrap(), mine);
        let mut paged = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = Order::orders_of("c1")
                .skip_other_types()
                .limit(1)
                .page(&db, cursor.as_deref())
                .await
                .unwrap();
            paged.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(paged, mine);
        let first = Order::orders_of("c1").skip_other_types().first(&db).await;
        assert_eq!(first.unwrap(), Some(order(1)));

        // A collection of the partition skips them as well.
        let page = CustomerPage::query(Customer::partition("c1").unwrap())
            .skip_other_types()
            .all(&db)
            .await
            .unwrap();
        let mut expected = vec![CustomerPage::Order(order(1))];
        expected.extend([
            CustomerPage::Order(order(2)),
            CustomerPage::Order(order(4)),
            CustomerPage::Customer(ana.clone()),
        ]);
        assert_eq!(page, expected);

        // Nothing was lost: the other client's items are still there.
        let raw = crate::support::raw_item(&db, "CUSTOMER#c1", "ORDER#o-0").await;
        assert_eq!(raw.get("Total"), Some(&AttributeValue::N("12".into())));
    }
}
