//! Fields that live only in index keys: a classic overloaded design, as
//! its own client code writes it (synthetic `GSIn-PK`/`GSIn-SK`
//! attributes, short key prefixes, its own entity-type attribute `Type`),
//! keeps an order line's customer only in `GSI2-PK = c#<customerId>`, its
//! date only in `GSI1-SK`, a shipment's warehouse only in
//! `GSI2-PK = w#<warehouseId>` and its status and date only in `GSI2-SK`.
//! `#[attr(from_key)]` on such a field reads it back from the index key
//! and stores it nowhere else: items the published code wrote read in
//! full, and written back they are the same items, attribute for
//! attribute, on DynamoDB Local (written there with the plain SDK) and on
//! the embedded backend (the same raw requests).

use singletable::{
    AttributeValue, Db, DecodeErrorKind, Entity, Error, Executor, Item, SdkDb, SdkExecutor, Table,
};

use crate::support::{both, endpoint, raw_put, scan_all};

#[derive(Table)]
#[table(
    name = "OrderProcessing",
    entity_type = "Type",
    entities(OrderLine, Shipment),
    gsi1(pk = "GSI1-PK", sk = "GSI1-SK"),
    gsi2(pk = "GSI2-PK", sk = "GSI2-SK")
)]
pub struct OrderProcessing;

/// An order line: `PK = o#<orderId>`, `SK = p#<productId>`; lines of a
/// product by date on GSI1, a customer's lines on GSI2.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OrderProcessing, name = "ol", rename_all = "PascalCase")]
#[pk("o#<order_id>")]
#[sk("p#<product_id>")]
#[gsi1(pk = "p#<product_id>", sk = "<date>#o#<order_id>")]
#[gsi2(pk = "c#<customer_id>", sk = "o#<order_id>")]
#[access(lines_of_product, index = gsi1)]
#[access(lines_of_customer, index = gsi2)]
pub struct OrderLine {
    #[attr(from_key, verbatim)]
    pub order_id: String,
    #[attr(from_key, verbatim)]
    pub product_id: String,
    /// Only in `GSI2-PK`.
    #[attr(from_key, verbatim)]
    pub customer_id: String,
    /// Only in `GSI1-SK`.
    #[attr(from_key, verbatim)]
    pub date: String,
    pub quantity: u32,
    pub price: u32,
}

/// A shipment: `PK = SK = sh#<shipmentId>`; an order's shipments on GSI1,
/// a warehouse's by status and date on GSI2.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OrderProcessing, name = "sh", rename_all = "PascalCase")]
#[pk("sh#<shipment_id>")]
#[sk("sh#<shipment_id>")]
#[gsi1(pk = "o#<order_id>", sk = "sh#<shipment_id>")]
#[gsi2(pk = "w#<warehouse_id>", sk = "<status>#<ship_date>")]
#[access(shipments_of_order, index = gsi1)]
#[access(shipments_of_warehouse, index = gsi2)]
pub struct Shipment {
    #[attr(from_key, verbatim)]
    pub shipment_id: String,
    /// Only in `GSI1-PK`.
    #[attr(from_key, verbatim)]
    pub order_id: String,
    /// Only in `GSI2-PK`.
    #[attr(from_key, verbatim)]
    pub warehouse_id: String,
    /// Only in `GSI2-SK`, with the date.
    #[attr(from_key, verbatim)]
    pub status: String,
    #[attr(from_key, verbatim)]
    pub ship_date: String,
    pub address: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// The published items, exactly as the design's own code writes them.
fn published() -> Vec<Item> {
    let line = |order: &str, product: &str, customer: &str, date: &str, qty: u32, price: u32| {
        Item::from([
            ("PK".to_owned(), s(&format!("o#{order}"))),
            ("SK".to_owned(), s(&format!("p#{product}"))),
            ("Type".to_owned(), s("ol")),
            ("GSI1-PK".to_owned(), s(&format!("p#{product}"))),
            ("GSI1-SK".to_owned(), s(&format!("{date}#o#{order}"))),
            ("GSI2-PK".to_owned(), s(&format!("c#{customer}"))),
            ("GSI2-SK".to_owned(), s(&format!("o#{order}"))),
            ("Quantity".to_owned(), AttributeValue::N(qty.to_string())),
            ("Price".to_owned(), AttributeValue::N(price.to_string())),
        ])
    };
    let shipment = |id: &str, order: &str, warehouse: &str, status: &str, date: &str| {
        Item::from([
            ("PK".to_owned(), s(&format!("sh#{id}"))),
            ("SK".to_owned(), s(&format!("sh#{id}"))),
            ("Type".to_owned(), s("sh")),
            ("GSI1-PK".to_owned(), s(&format!("o#{order}"))),
            ("GSI1-SK".to_owned(), s(&format!("sh#{id}"))),
            ("GSI2-PK".to_owned(), s(&format!("w#{warehouse}"))),
            ("GSI2-SK".to_owned(), s(&format!("{status}#{date}"))),
            ("Address".to_owned(), s("1 Main St, Springfield")),
        ])
    };
    vec![
        line("O1", "P1", "C1", "2024-05-01", 2, 1500),
        line("O1", "P2", "C1", "2024-05-01", 1, 990),
        line("O2", "P1", "C2", "2024-05-03", 5, 1400),
        shipment("S1", "O1", "W1", "SHIPPED", "2024-05-02"),
        shipment("S2", "O2", "W1", "PACKED", "2024-05-04"),
    ]
}

/// Puts with the plain AWS SDK, as the design's own code does.
async fn put_with_the_sdk(table: &str, items: &[Item]) {
    let sdk: Db<SdkExecutor> = Db::local(&endpoint(), table.to_owned());
    for item in items {
        sdk.sdk()
            .put_item()
            .table_name(table)
            .set_item(Some(item.clone()))
            .send()
            .await
            .unwrap();
    }
}

/// Every item of the table, raw, sorted by key.
async fn every_item<E: Executor>(db: &Db<E>) -> Vec<Item> {
    let mut items = scan_all(db.executor(), db.table_name(), None, None, true).await;
    items.sort_by_key(|i| format!("{:?}/{:?}", i.get("PK"), i.get("SK")));
    items
}

fn line_o1_p1() -> OrderLine {
    OrderLine {
        order_id: "O1".into(),
        product_id: "P1".into(),
        customer_id: "C1".into(),
        date: "2024-05-01".into(),
        quantity: 2,
        price: 1500,
    }
}

fn shipment_s1() -> Shipment {
    Shipment {
        shipment_id: "S1".into(),
        order_id: "O1".into(),
        warehouse_id: "W1".into(),
        status: "SHIPPED".into(),
        ship_date: "2024-05-02".into(),
        address: "1 Main St, Springfield".into(),
    }
}

/// `item` with `name` set to `value` (or removed, for `None`).
fn with(mut item: Item, name: &str, value: Option<AttributeValue>) -> Item {
    match value {
        Some(v) => item.insert(name.into(), v),
        None => item.remove(name),
    };
    item
}

/// The stored names of the fields that live only in keys.
const IN_KEYS_ONLY: [&str; 8] = [
    "OrderId",
    "ProductId",
    "CustomerId",
    "Date",
    "ShipmentId",
    "WarehouseId",
    "Status",
    "ShipDate",
];

#[tokio::test]
async fn fields_read_from_index_keys_reproduce_a_published_layout() {
    // Nothing but the data attributes is stored: no copy of any key field,
    // and the Workbench export and the design document say so.
    assert_eq!(OrderLine::SHAPE.attributes, ["Quantity", "Price"]);
    assert_eq!(Shipment::SHAPE.attributes, ["Address"]);
    let model = singletable::workbench::Model::builder("Orders")
        .table::<OrderProcessing>()
        .build()
        .to_json();
    let model: serde_json::Value = serde_json::from_str(&model).unwrap();
    let described: Vec<&str> = model["DataModel"][0]["NonKeyAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["AttributeName"].as_str().unwrap())
        .collect();
    for name in ["Quantity", "Price", "Address"] {
        assert!(described.contains(&name), "{described:?}");
    }
    // The design document's layout names them only as placeholders of
    // templates.
    let document = singletable::design::document::<OrderProcessing>();
    assert!(
        document.contains("| Type | PK | SK | GSI1-PK | GSI1-SK | GSI2-PK | GSI2-SK |\n"),
        "{document}"
    );
    let layout = document.split("## Access patterns").next().unwrap();
    let outside_placeholders: String = layout
        .split('<')
        .map(|part| part.split_once('>').map_or(part, |(_, rest)| rest))
        .collect();
    for name in IN_KEYS_ONLY {
        assert!(!described.contains(&name), "{name} in {described:?}");
        assert!(!outside_placeholders.contains(name), "{name} in {document}");
    }
    let published = published();
    let mut expected = published.clone();
    expected.sort_by_key(|i| format!("{:?}/{:?}", i.get("PK"), i.get("SK")));

    let [local, embedded] = both::<OrderProcessing>("index-keys").await;
    put_with_the_sdk(local.table_name(), &published).await;
    for item in &published {
        raw_put(&embedded, item.clone()).await.unwrap();
    }
    for db in [&local, &embedded] {
        assert_eq!(every_item(db).await, expected, "{}", db.table_name());

        // Read in full, without a migration: by key and on each index.
        let line = db
            .get::<OrderLine>(OrderLine::key("O1", "P1").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(line, line_o1_p1());
        let of_c1 = OrderLine::lines_of_customer("C1").all(db).await.unwrap();
        assert_eq!(of_c1.len(), 2);
        assert!(
            of_c1
                .iter()
                .all(|l| l.customer_id == "C1" && l.date == "2024-05-01")
        );
        let of_p1 = OrderLine::lines_of_product("P1").all(db).await.unwrap();
        let dates: Vec<(&str, &str)> = of_p1
            .iter()
            .map(|l| (l.date.as_str(), l.customer_id.as_str()))
            .collect();
        assert_eq!(dates, [("2024-05-01", "C1"), ("2024-05-03", "C2")]);
        let shipment = db
            .get::<Shipment>(Shipment::key("S1").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(shipment, shipment_s1());
        let of_w1 = Shipment::shipments_of_warehouse("W1")
            .all(db)
            .await
            .unwrap();
        let states: Vec<(&str, &str, &str)> = of_w1
            .iter()
            .map(|s| (s.status.as_str(), s.ship_date.as_str(), s.order_id.as_str()))
            .collect();
        assert_eq!(
            states,
            [
                ("PACKED", "2024-05-04", "O2"),
                ("SHIPPED", "2024-05-02", "O1")
            ]
        );
        let of_o1 = Shipment::shipments_of_order("O1").all(db).await.unwrap();
        assert_eq!(of_o1, [shipment_s1()]);

        // Written back typed: the same items, attribute for attribute.
        let lines = [
            OrderLine::lines_of_product("P1").all(db).await.unwrap(),
            OrderLine::lines_of_product("P2").all(db).await.unwrap(),
        ]
        .concat();
        assert_eq!(lines.len(), 3);
        let shipments = of_w1;
        for l in &lines {
            let item = l.to_item().unwrap();
            assert!(published.contains(&item), "{item:#?}");
            db.put(l).await.unwrap();
        }
        for s in &shipments {
            db.put(s).await.unwrap();
        }
        assert_eq!(every_item(db).await, expected, "{}", db.table_name());

        // An update of a field only an index key holds rewrites that key
        // and stores no attribute of its own.
        OrderLine::update("O1", "P1")
            .set(OrderLine::fields().customer_id, "C9".to_string())
            .execute(db)
            .await
            .unwrap();
        let raw = every_item(db).await;
        let updated = raw
            .iter()
            .find(|i| i["PK"] == s("o#O1") && i["SK"] == s("p#P1"))
            .unwrap();
        let before = &expected[0];
        assert_eq!(
            *updated,
            with(before.clone(), "GSI2-PK", Some(s("c#C9"))),
            "only GSI2-PK changes"
        );
        let moved = OrderLine::lines_of_customer("C9").all(db).await.unwrap();
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].customer_id, "C9");
        // Status and date share `GSI2-SK`: an update sets both (the
        // update's type requires it), or takes the other from the item it
        // holds, conditioned on `GSI2-SK` still holding it.
        Shipment::update("S1")
            .set(Shipment::fields().status, "DELIVERED".to_string())
            .set(Shipment::fields().ship_date, "2024-05-05".to_string())
            .execute(db)
            .await
            .unwrap();
        let delivered = db
            .get::<Shipment>(Shipment::key("S1").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (delivered.status.as_str(), delivered.ship_date.as_str()),
            ("DELIVERED", "2024-05-05")
        );
        Shipment::update("S1")
            .knowing(&delivered)
            .set(Shipment::fields().status, "RETURNED".to_string())
            .execute(db)
            .await
            .unwrap();
        let sh1 = every_item(db)
            .await
            .into_iter()
            .find(|i| i["PK"] == s("sh#S1"))
            .unwrap();
        let mut names: Vec<&str> = sh1.keys().map(String::as_str).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "Address", "GSI1-PK", "GSI1-SK", "GSI2-PK", "GSI2-SK", "PK", "SK", "Type"
            ]
        );
        assert_eq!(sh1["GSI2-SK"], s("RETURNED#2024-05-05"));
        // The held item is stale now: its `GSI2-SK` no longer holds
        // `DELIVERED`, so the update relying on it is refused.
        let stale = Shipment::update("S1")
            .knowing(&delivered)
            .set(Shipment::fields().ship_date, "2024-05-06".to_string())
            .execute(db)
            .await;
        assert!(stale.is_err(), "{stale:?}");
    }

    // Items whose index key is missing, of another type, unparsable or
    // contradicting the primary key: typed errors, on every decoder.
    let line = expected[0].clone();
    let decode = |item: Item| OrderLine::from_item(item);
    // Not in GSI2 (another client left the key out): the field is absent.
    let err = decode(with(line.clone(), "GSI2-PK", None)).unwrap_err();
    assert!(matches!(err, Error::Decode { entity: "ol", .. }), "{err:?}");
    let err = decode(with(
        line.clone(),
        "GSI1-SK",
        Some(AttributeValue::N("1".into())),
    ))
    .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { source, .. } if source.path() == "GSI1-SK" && matches!(source.kind(), DecodeErrorKind::WrongType { .. })),
        "{err:?}"
    );
    let err = decode(with(line.clone(), "GSI2-PK", Some(s("customer#C1")))).unwrap_err();
    assert!(matches!(err, Error::KeyParse { .. }), "{err:?}");
    let err = decode(with(line.clone(), "GSI1-SK", Some(s("2024-05-01#o#O9")))).unwrap_err();
    assert!(
        matches!(&err, Error::Decode { source, .. } if source.path() == "GSI1-SK" && matches!(source.kind(), DecodeErrorKind::KeyMismatch { stored, .. } if stored == "2024-05-01#o#O9")),
        "{err:?}"
    );
    // The same refusals through a backend's reader.
    for db in [&local, &embedded] {
        raw_put(db, with(line.clone(), "GSI2-PK", None))
            .await
            .unwrap();
        let err = db
            .get::<OrderLine>(OrderLine::key("O1", "P1").unwrap())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Decode { entity: "ol", .. }), "{err:?}");
        raw_put(
            db,
            with(line.clone(), "GSI1-SK", Some(s("2024-05-01#o#O9"))),
        )
        .await
        .unwrap();
        let err = db
            .get::<OrderLine>(OrderLine::key("O1", "P1").unwrap())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Decode { source, .. } if matches!(source.kind(), DecodeErrorKind::KeyMismatch { .. })),
            "{err:?}"
        );
    }
}
