//! The design document generated from the declarations.

use singletable::design;

use crate::model::AppTable;

#[test]
fn readme_layout_is_current() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples.md")).unwrap();
    let begin = readme
        .find("<!-- layout:begin")
        .expect("docs/examples.md has the layout:begin marker");
    let body_start = begin + readme[begin..].find("-->\n").expect("marker closes") + 4;
    let end = readme
        .find("<!-- layout:end -->")
        .expect("docs/examples.md has the layout:end marker");
    let in_readme = &readme[body_start..end];
    let generated = singletable_tools::design::layout_table::<AppTable>();
    assert_eq!(
        in_readme, generated,
        "docs/examples.md's layout table is stale; regenerate it with `cargo run --example shop -- --design`"
    );
}

#[test]
fn design_document_describes_patterns_and_warns() {
    let doc = design::document::<AppTable>();
    assert!(
        doc.contains("| orders_by_status | GSI1 | `GSI1PK = ORDERSTATUS#<status>`"),
        "{doc}"
    );
    assert!(doc.contains("| published_products | GSI2 |"), "{doc}");
    // The reference documents' single-partition date index is a hot partition.
    assert!(
        doc.contains("`Order` in `gsi2`: partition key `ORDERBYDATE` takes at most 1 value"),
        "{doc}"
    );
    // A status index has as many partitions as the enum has variants.
    assert!(
        doc.contains(
            "`Order` in `gsi1`: partition key `ORDERSTATUS#<status>` takes at most 4 values"
        ),
        "{doc}"
    );
    // Products by category: unknown cardinality, no warning.
    assert!(!doc.contains("CATEGORY#<category>` takes"), "{doc}");
}

mod tables {
    use singletable::definition::{Billing, Drift, TableDefinition};
    use singletable::{Db, Entity, SdkDb, Table};

    use crate::support::{endpoint, unique_table};

    #[derive(Table)]
    #[table(
        name = "Full",
        gsi1,
        gsi2(keys_only),
        gsi3(pk = "ByOwner", sk = "ByOwnerSort", include(title, size)),
        gsi4(no_sk),
        gsi5(pk(title = S), sk(size = N, id = S)),
        lsi1,
        ttl = "expiresAt",
        entities(Note)
    )]
    pub struct Full;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Full, name = "Note", rename_all = "camelCase")]
    #[pk("NOTE#<id>")]
    #[sk("NOTE")]
    #[gsi1(pk = "TITLE#<title>", sk = "NOTE#<id>")]
    #[lsi1(sk = "SIZE#<size>")]
    #[gsi5(pk(title), sk(size, id))]
    #[access(notes_by_title, index = gsi1)]
    #[access(notes_by_size, index = gsi5)]
    pub struct Note {
        pub id: String,
        pub title: String,
        pub size: u32,
        #[attr(ttl)]
        pub expires_at: Option<i64>,
    }

    #[tokio::test]
    async fn create_table_matches_declaration() {
        let db = Db::local(&endpoint(), unique_table("full"));
        assert!(db.create_table_if_missing::<Full>().await.unwrap());
        assert!(
            !db.create_table_if_missing::<Full>().await.unwrap(),
            "second call finds it"
        );
        let declared = TableDefinition::of::<Full>(db.table_name(), Billing::OnDemand);
        let described = db.describe().await.unwrap();
        assert_eq!(described.key_schema, declared.key_schema);
        assert_eq!(
            described.attribute_definitions,
            declared.attribute_definitions
        );
        assert_eq!(described.billing_mode, "PAY_PER_REQUEST");
        assert_eq!(described.ttl_attribute.as_deref(), Some("expiresAt"));
        let mut names: Vec<_> = described
            .global_secondary_indexes
            .iter()
            .map(|g| g.index_name.as_str())
            .collect();
        names.sort_unstable();
        assert_eq!(names, ["GSI1", "GSI2", "GSI3", "GSI4", "GSI5"]);
        let gsi3 = described
            .global_secondary_indexes
            .iter()
            .find(|g| g.index_name == "GSI3")
            .unwrap();
        assert_eq!(gsi3.projection.projection_type, "INCLUDE");
        assert_eq!(gsi3.key_schema[0].attribute_name, "ByOwner");
        let gsi4 = described
            .global_secondary_indexes
            .iter()
            .find(|g| g.index_name == "GSI4")
            .unwrap();
        assert_eq!(gsi4.key_schema.len(), 1, "gsi4 has no sort key");
        // The multi-attribute index: its HASH and RANGE attributes in
        // order, each typed, and no synthetic attribute.
        let gsi5 = described
            .global_secondary_indexes
            .iter()
            .find(|g| g.index_name == "GSI5")
            .unwrap();
        let keys: Vec<(&str, &str)> = gsi5
            .key_schema
            .iter()
            .map(|k| (k.attribute_name.as_str(), k.key_type.as_str()))
            .collect();
        assert_eq!(
            keys,
            [("title", "HASH"), ("size", "RANGE"), ("id", "RANGE")]
        );
        let types: Vec<(&str, &str)> = described
            .attribute_definitions
            .iter()
            .filter(|a| ["title", "size", "id"].contains(&a.attribute_name.as_str()))
            .map(|a| (a.attribute_name.as_str(), a.attribute_type.as_str()))
            .collect();
        assert_eq!(types, [("id", "S"), ("size", "N"), ("title", "S")]);
        assert!(
            !Note {
                id: "n".into(),
                title: "t".into(),
                size: 1,
                expires_at: None
            }
            .to_item()
            .unwrap()
            .keys()
            .any(|k| k.starts_with("GSI5"))
        );
        // A key attribute of another type on the deployed table is drift.
        let mut retyped = described.clone();
        for a in &mut retyped.attribute_definitions {
            if a.attribute_name == "size" {
                a.attribute_type = "S".into();
            }
        }
        let drift = singletable::definition::compare(&declared, &retyped);
        assert_eq!(
            drift,
            [Drift::AttributeType {
                attribute: "size".into(),
                actual: "S".into(),
                declared: "N".into(),
            }]
        );
        assert_eq!(
            drift[0].to_string(),
            "key attribute `size` has type S, declared N"
        );
        let mut reordered = described.clone();
        if let Some(g) = reordered
            .global_secondary_indexes
            .iter_mut()
            .find(|g| g.index_name == "GSI5")
        {
            g.key_schema.swap(1, 2);
        }
        assert!(matches!(
            &singletable::definition::compare(&declared, &reordered)[..],
            [Drift::IndexKeySchema { index, .. }] if index == "GSI5"
        ));
        assert_eq!(
            described.local_secondary_indexes[0].key_schema[1].attribute_name,
            "LSI1SK"
        );
        let drift = db.verify::<Full>().await.unwrap();
        assert!(drift.is_empty(), "{drift:?}");

        // The CLI document and the CloudFormation resource say the same.
        let cli: serde_json::Value = serde_json::from_str(&declared.cli_json()).unwrap();
        assert_eq!(cli["BillingMode"], "PAY_PER_REQUEST");
        assert_eq!(cli["GlobalSecondaryIndexes"].as_array().unwrap().len(), 5);
        assert_eq!(
            cli["GlobalSecondaryIndexes"][4]["KeySchema"],
            serde_json::json!([
                { "AttributeName": "title", "KeyType": "HASH" },
                { "AttributeName": "size", "KeyType": "RANGE" },
                { "AttributeName": "id", "KeyType": "RANGE" },
            ])
        );
        assert_eq!(
            cli["GlobalSecondaryIndexes"][1]["Projection"]["ProjectionType"],
            "KEYS_ONLY"
        );
        assert_eq!(
            cli["AttributeDefinitions"].as_array().unwrap().len(),
            13,
            "only key attributes: {cli}"
        );
        let cfn: serde_json::Value =
            serde_json::from_str(&declared.cloudformation("NotesTable")).unwrap();
        assert_eq!(cfn["NotesTable"]["Type"], "AWS::DynamoDB::Table");
        assert_eq!(
            cfn["NotesTable"]["Properties"]["TimeToLiveSpecification"]["AttributeName"],
            "expiresAt"
        );
        assert_eq!(
            cfn["NotesTable"]["Properties"]["KeySchema"],
            cli["KeySchema"]
        );
        assert_eq!(
            cfn["NotesTable"]["Properties"]["GlobalSecondaryIndexes"][4]["KeySchema"],
            cli["GlobalSecondaryIndexes"][4]["KeySchema"]
        );
        assert_eq!(
            cfn["NotesTable"]["Properties"]["AttributeDefinitions"],
            cli["AttributeDefinitions"]
        );

        // Provisioned billing applies to the table and each global index.
        let prov = TableDefinition::of::<Full>("p", Billing::Provisioned { read: 5, write: 3 });
        let json: serde_json::Value = serde_json::from_str(&prov.cli_json()).unwrap();
        assert_eq!(json["BillingMode"], "PROVISIONED");
        assert_eq!(json["ProvisionedThroughput"]["WriteCapacityUnits"], 3);
        assert_eq!(
            json["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"],
            5
        );
    }

    #[derive(Table)]
    #[table(name = "Drifting", gsi1, gsi2)]
    pub struct Drifting;

    #[tokio::test]
    async fn drift_is_reported() {
        use aws_sdk_dynamodb::types::{
            AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
            Projection, ProjectionType, ScalarAttributeType,
        };
        let db = Db::local(&endpoint(), unique_table("drift"));
        let attr = |n: &str| {
            AttributeDefinition::builder()
                .attribute_name(n)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap()
        };
        let key = |n: &str, k: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(n)
                .key_type(k)
                .build()
                .unwrap()
        };
        // Built by hand: GSI2 missing, GSI1 projecting KEYS_ONLY, the sort key named `sk`.
        db.sdk()
            .create_table()
            .table_name(db.table_name())
            .attribute_definitions(attr("PK"))
            .attribute_definitions(attr("sk"))
            .attribute_definitions(attr("GSI1PK"))
            .attribute_definitions(attr("GSI1SK"))
            .key_schema(key("PK", KeyType::Hash))
            .key_schema(key("sk", KeyType::Range))
            .global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name("GSI1")
                    .key_schema(key("GSI1PK", KeyType::Hash))
                    .key_schema(key("GSI1SK", KeyType::Range))
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::KeysOnly)
                            .build(),
                    )
                    .build()
                    .unwrap(),
            )
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await
            .unwrap();
        let drift = db.verify::<Drifting>().await.unwrap();
        assert!(
            drift.contains(&Drift::MissingIndex("GSI2".into())),
            "{drift:?}"
        );
        assert!(
            drift
                .iter()
                .any(|d| matches!(d, Drift::Projection { index, .. } if index == "GSI1")),
            "{drift:?}"
        );
        assert!(
            drift.iter().any(|d| matches!(d, Drift::KeySchema { .. })),
            "{drift:?}"
        );
        assert_eq!(drift.len(), 3, "{drift:?}");
        let text = drift
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            text.contains("index `GSI2` is declared but missing"),
            "{text}"
        );
        assert!(
            text.contains("index `GSI1` projects KEYS_ONLY, declared ALL"),
            "{text}"
        );
    }

    /// Against DynamoDB Local (items read as maps) and the embedded backend
    /// (items read in place, the TTL watched while decoding).
    #[tokio::test]
    async fn expired_items_are_hidden() {
        let db = Db::local(&endpoint(), unique_table("ttl"));
        db.create_table_if_missing::<Full>().await.unwrap();
        check_expiry(&db).await;
        let embedded = Db::<singletable::Embedded>::in_memory::<Full>(unique_table("ttl")).unwrap();
        check_expiry(&embedded).await;
    }

    async fn check_expiry<E: singletable::Executor>(db: &Db<E>) {
        use singletable::ttl::EpochSeconds;
        let now = std::time::SystemTime::now().to_epoch().expect("after 1970");
        let note = |id: &str, expires_at: Option<i64>| Note {
            id: id.into(),
            title: "t".into(),
            size: 1,
            expires_at,
        };
        let expired = note("old", Some(now - 60));
        let live = note("new", Some(now + 3600));
        let forever = note("keep", None);
        for n in [&expired, &live, &forever] {
            db.put(n).await.unwrap();
        }
        // Stored as epoch seconds, the format DynamoDB's TTL reads.
        let raw = expired.to_item().unwrap();
        assert_eq!(
            raw["expiresAt"],
            singletable::AttributeValue::N((now - 60).to_string())
        );
        assert!(!forever.to_item().unwrap().contains_key("expiresAt"));

        assert_eq!(
            db.get::<Note>(Note::key("old").unwrap()).await.unwrap(),
            None
        );
        assert_eq!(
            db.get_including_expired::<Note>(Note::key("old").unwrap())
                .await
                .unwrap(),
            Some(expired.clone())
        );
        assert_eq!(
            db.get::<Note>(Note::key("new").unwrap()).await.unwrap(),
            Some(live.clone())
        );
        assert_eq!(
            db.get::<Note>(Note::key("keep").unwrap()).await.unwrap(),
            Some(forever.clone())
        );
        // Queries hide it too, unless asked.
        let ids = |v: Vec<Note>| v.into_iter().map(|n| n.id).collect::<Vec<_>>();
        assert_eq!(
            ids(Note::notes_by_title("t").all(db).await.unwrap()),
            ["keep", "new"]
        );
        assert_eq!(
            ids(Note::notes_by_title("t")
                .include_expired()
                .all(db)
                .await
                .unwrap()),
            ["keep", "new", "old"]
        );
    }
}

mod capacity {
    use singletable::capacity::{self, Read};
    use singletable::size::item_size;
    use singletable::{Db, Entity, SdkDb, Table};

    use crate::support::{endpoint, unique_table};

    #[derive(Table)]
    #[table(name = "Cap")]
    pub struct Cap;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Cap, name = "Blob")]
    #[pk("B#<group>")]
    #[sk("N#<n>")]
    #[access(blobs)]
    pub struct Blob {
        pub group: String,
        pub n: u32,
        pub data: String,
    }

    #[tokio::test]
    async fn capacity_estimate_matches_dynamodb_local() {
        let db = Db::local(&endpoint(), unique_table("cap"));
        db.create_table_if_missing::<Cap>().await.unwrap();
        let mut sizes = Vec::new();
        for (n, len) in [100usize, 1500, 5000, 9000, 20_000].into_iter().enumerate() {
            let blob = Blob {
                group: "g".into(),
                n: n as u32,
                data: "x".repeat(len),
            };
            let size = item_size(&blob.to_item().unwrap());
            sizes.push(size);

            db.take_consumed_capacity();
            db.put(&blob).await.unwrap();
            let put = db.take_consumed_capacity().unwrap();
            assert_eq!(
                put,
                capacity::write_units(size, false, &[]),
                "put of {size} bytes"
            );

            let got = db.get::<Blob>(blob.key_of().unwrap()).await.unwrap();
            assert_eq!(got.as_ref(), Some(&blob));
            let eventual = db.take_consumed_capacity().unwrap();
            assert_eq!(
                eventual,
                capacity::read_units(size, Read::Eventual),
                "eventual get of {size} bytes"
            );

            db.get_consistent::<Blob>(blob.key_of().unwrap())
                .await
                .unwrap();
            let strong = db.take_consumed_capacity().unwrap();
            assert_eq!(
                strong,
                capacity::read_units(size, Read::Strong),
                "strong get of {size} bytes"
            );

            singletable::Transaction::new()
                .put(&blob)
                .execute(&db)
                .await
                .unwrap();
            let tx = db.take_consumed_capacity().unwrap();
            assert_eq!(
                tx,
                capacity::write_units(size, true, &[]),
                "transactional put of {size} bytes"
            );
        }
        db.take_consumed_capacity();
        let all = Blob::blobs("g").all(&db).await.unwrap();
        assert_eq!(all.len(), sizes.len());
        let query = db.take_consumed_capacity().unwrap();
        assert_eq!(
            query,
            capacity::query_units(&sizes, Read::Eventual),
            "query of {sizes:?}"
        );
    }
}

mod timestamps {
    use singletable::{Db, Entity, SdkDb, Table};

    use crate::support::{endpoint, unique_table};

    #[derive(Table)]
    #[table(name = "Stamps")]
    pub struct Stamps;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Stamps, name = "Page", rename_all = "camelCase")]
    #[pk("PAGE#<id>")]
    #[sk("PAGE")]
    pub struct Page {
        pub id: String,
        pub body: String,
        #[attr(created_at, default)]
        pub created_at: String,
        #[attr(updated_at, default)]
        pub updated_at: i64,
    }

    #[tokio::test]
    async fn timestamps_are_set_on_create_and_update() {
        let db = Db::local(&endpoint(), unique_table("stamps"));
        db.create_table_if_missing::<Stamps>().await.unwrap();
        use singletable::ttl::EpochSeconds;
        let before = std::time::SystemTime::now().to_epoch().expect("after 1970");
        let page = Page {
            id: "p".into(),
            body: "v1".into(),
            created_at: String::new(),
            updated_at: 0,
        };
        db.create(&page).await.unwrap();
        let stored = db
            .get::<Page>(Page::key("p").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert!(
            stored.created_at.starts_with("20") && stored.created_at.ends_with('Z'),
            "{}",
            stored.created_at
        );
        assert!(stored.updated_at >= before);

        // A put keeps createdAt as read and sets updatedAt.
        let mut edited = stored.clone();
        edited.body = "v2".into();
        edited.updated_at = 0;
        db.put(&edited).await.unwrap();
        let again = db
            .get::<Page>(Page::key("p").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.created_at, stored.created_at);
        assert!(again.updated_at >= before);

        // An update sets updatedAt without being asked.
        db.sdk()
            .update_item()
            .table_name(db.table_name())
            .key("PK", singletable::AttributeValue::S("PAGE#p".into()))
            .key("SK", singletable::AttributeValue::S("PAGE".into()))
            .update_expression("SET updatedAt = :z")
            .expression_attribute_values(":z", singletable::AttributeValue::N("0".into()))
            .send()
            .await
            .unwrap();
        Page::update("p")
            .set(Page::fields().body, "v3".to_owned())
            .execute(&db)
            .await
            .unwrap();
        let updated = db
            .get::<Page>(Page::key("p").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(updated.body, "v3");
        assert!(
            updated.updated_at >= before,
            "updatedAt was refreshed: {}",
            updated.updated_at
        );
        assert_eq!(updated.created_at, stored.created_at);
    }
}

mod sharding {
    use std::collections::BTreeSet;

    use singletable::{AttributeValue, Entity, SdkDb};

    use crate::model::*;
    use crate::support::fresh_db;

    fn order(i: u32) -> Order {
        // Dates out of insertion order, some equal.
        let day = (i * 7) % 28 + 1;
        let hour = (i * 5) % 24;
        Order {
            order_id: format!("o-{i:03}"),
            user_id: "u".into(),
            status: OrderStatus::Pending,
            total: f64::from(i),
            created_at: format!("2024-06-{day:02}T{hour:02}:00:00.000000Z"),
        }
    }

    fn ids(v: &[Order]) -> Vec<&str> {
        v.iter().map(|o| o.order_id.as_str()).collect()
    }

    #[tokio::test]
    async fn sharded_index_query_merges_in_order() {
        let db = fresh_db::<AppTable>("shards").await;
        let orders: Vec<Order> = (0..40).map(order).collect();
        for o in &orders {
            db.put(o).await.unwrap();
        }
        // Writes spread over the shards, deterministically.
        let shards: BTreeSet<String> = orders
            .iter()
            .map(|o| o.to_item().unwrap()["GSI3PK"].as_s().unwrap().clone())
            .collect();
        assert!(shards.len() >= 3, "{shards:?}");
        assert!(shards.iter().all(|s| s.starts_with("ORDERBYDATE#")));
        assert_eq!(
            order(5).to_item().unwrap()["GSI3PK"],
            order(5).to_item().unwrap()["GSI3PK"]
        );

        // The merged fan-out returns what the single partition returns, in
        // the same order, both directions.
        let single = Order::orders_by_date().all(&db).await.unwrap();
        let sharded = Order::orders_by_date_sharded().all(&db).await.unwrap();
        assert_eq!(single.len(), 40);
        let dates = |v: &[Order]| v.iter().map(|o| o.created_at.clone()).collect::<Vec<_>>();
        assert_eq!(dates(&sharded), dates(&single));
        let mut sorted = dates(&single);
        sorted.sort();
        assert_eq!(dates(&single), sorted);
        let desc = Order::orders_by_date_sharded()
            .newest_first()
            .all(&db)
            .await
            .unwrap();
        let mut rev = dates(&single);
        rev.reverse();
        assert_eq!(dates(&desc), rev);

        // Range conditions apply on every shard.
        let a = Order::orders_by_date()
            .sk_between("2024-06-05", "2024-06-15")
            .all(&db)
            .await
            .unwrap();
        let b = Order::orders_by_date_sharded()
            .sk_between("2024-06-05", "2024-06-15")
            .all(&db)
            .await
            .unwrap();
        assert!(!a.is_empty());
        assert_eq!(dates(&a), dates(&b));

        // Pages of 7 through the cursor: every item once, in order.
        let mut seen: Vec<Order> = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let page = Order::orders_by_date_sharded()
                .limit(7)
                .page(&db, cursor.as_ref())
                .await
                .unwrap();
            assert!(page.items.len() <= 7);
            pages += 1;
            seen.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
            assert!(pages <= 10, "pagination does not end");
        }
        assert_eq!(dates(&seen), dates(&single));
        let mut unique: Vec<&str> = ids(&seen);
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 40, "no item twice");
        // A limit is exact across shards.
        assert_eq!(
            Order::orders_by_date_sharded()
                .limit(9)
                .all(&db)
                .await
                .unwrap()
                .len(),
            9
        );
        // A cursor of the sharded pattern is refused by the other pattern
        // (a compile error as typed; here as text from a client).
        let first = Order::orders_by_date_sharded()
            .limit(3)
            .page(&db, None)
            .await
            .unwrap();
        let text = first.cursor.unwrap().into_string();
        assert!(
            Order::orders_by_date()
                .page(&db, Some(&singletable::Cursor::from_client(text)))
                .await
                .is_err()
        );

        // An update of the date keeps the item in its shard.
        let o = &orders[11];
        Order::update(&o.order_id)
            .set(
                Order::fields().created_at,
                "2024-07-01T00:00:00.000000Z".to_owned(),
            )
            .execute(&db)
            .await
            .unwrap();
        let raw = db
            .sdk()
            .get_item()
            .table_name(db.table_name())
            .key("PK", AttributeValue::S(format!("ORDER#{}", o.order_id)))
            .key("SK", AttributeValue::S("DETAILS".into()))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        assert_eq!(raw["GSI3PK"], o.to_item().unwrap()["GSI3PK"]);
        assert_eq!(
            raw["GSI3SK"],
            AttributeValue::S("DATE#2024-07-01T00:00:00.000000Z".into())
        );
        let last = Order::orders_by_date_sharded()
            .newest_first()
            .limit(1)
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(&last), [o.order_id.as_str()]);
    }
}
