//! Schema versions on both backends: items stored by three generations of
//! an entity read as the current type (through a migration from the oldest
//! shape, through field defaults from the middle one), updates refuse the
//! old shape, and a backfill rewrites old items in the current shape.

use singletable::embedded::Embedded;
use singletable::{
    AttributeValue, Db, DecodeErrorKind, Document, Entity, Error, Executor, Item, Table,
};

use crate::support::{fresh_db, raw_item, raw_put};

#[derive(Table)]
#[table(name = "Versions", gsi1)]
pub struct VersionsTable;

/// Version 1, as first written: a `name`, no category, no version
/// attribute.
#[derive(Entity, Debug, Clone)]
#[entity(table = VersionsTable, name = "Product", rename_all = "camelCase")]
#[pk("PRODUCT#<product_id>")]
#[sk("DETAILS")]
pub struct ProductV1Writer {
    pub product_id: String,
    pub name: String,
    pub price_cents: u64,
}

/// Version 2: `name` became `title`, products got a category (and an
/// index on it).
#[derive(Entity, Debug, Clone)]
#[entity(table = VersionsTable, name = "Product", rename_all = "camelCase", version = 2)]
#[pk("PRODUCT#<product_id>")]
#[sk("DETAILS")]
#[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<product_id>")]
pub struct ProductV2Writer {
    pub product_id: String,
    pub title: String,
    pub price_cents: u64,
    pub category: String,
}

/// How version 1 stored a product, read by the current code.
#[derive(Document, Debug)]
#[document(rename_all = "camelCase")]
pub struct ProductV1 {
    pub product_id: String,
    pub name: String,
    pub price_cents: u64,
}

/// Version 3, the current one: tags (absent in version 2 items: the
/// field's default), and the migration of version 1.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    table = VersionsTable,
    name = "Product",
    rename_all = "camelCase",
    version = 3,
    migrate(v1 = ProductV1)
)]
#[pk("PRODUCT#<product_id>")]
#[sk("DETAILS")]
#[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<product_id>")]
#[access(by_category, index = gsi1)]
pub struct Product {
    pub product_id: String,
    pub title: String,
    pub price_cents: u64,
    pub category: String,
    #[attr(default)]
    pub tags: Vec<String>,
}

impl From<ProductV1> for Product {
    fn from(v1: ProductV1) -> Self {
        Product {
            product_id: v1.product_id,
            title: v1.name,
            price_cents: v1.price_cents,
            category: "uncategorized".into(),
            tags: Vec::new(),
        }
    }
}

fn product(id: &str, title: &str, category: &str, tags: &[&str]) -> Product {
    Product {
        product_id: id.into(),
        title: title.into(),
        price_cents: 100,
        category: category.into(),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
    }
}

fn version_of(item: &Item) -> Option<&str> {
    item.get("schemaVersion")
        .and_then(|v| v.as_n().ok())
        .map(String::as_str)
}

async fn raw<E: Executor>(db: &Db<E>, id: &str) -> Item {
    raw_item(db, &format!("PRODUCT#{id}"), "DETAILS").await
}

async fn check<E: Executor>(db: &Db<E>, backend: &str) {
    for i in 1..=3 {
        db.put(&ProductV1Writer {
            product_id: format!("v1-{i}"),
            name: format!("Old {i}"),
            price_cents: 100,
        })
        .await
        .unwrap();
    }
    for i in 1..=2 {
        db.put(&ProductV2Writer {
            product_id: format!("v2-{i}"),
            title: format!("Middle {i}"),
            price_cents: 100,
            category: "toys".into(),
        })
        .await
        .unwrap();
    }
    for i in 1..=2 {
        db.put(&product(
            &format!("v3-{i}"),
            &format!("New {i}"),
            "toys",
            &["new"],
        ))
        .await
        .unwrap();
    }
    assert_eq!(version_of(&raw(db, "v1-1").await), None, "{backend}");
    assert_eq!(version_of(&raw(db, "v2-1").await), Some("2"), "{backend}");
    assert_eq!(
        version_of(&raw(db, "v3-1").await),
        Some("3"),
        "{backend}: the version is written with each item"
    );

    // Every generation reads as the current type, by key, by query, by scan.
    let get = |id: &str| {
        let id = id.to_owned();
        async move {
            db.get::<Product>(Product::key(&id).unwrap())
                .await
                .unwrap()
                .unwrap()
        }
    };
    assert_eq!(
        get("v1-2").await,
        product("v1-2", "Old 2", "uncategorized", &[])
    );
    assert_eq!(get("v2-1").await, product("v2-1", "Middle 1", "toys", &[]));
    assert_eq!(
        get("v3-1").await,
        product("v3-1", "New 1", "toys", &["new"])
    );
    let toys = Product::by_category("toys").all(db).await.unwrap();
    assert_eq!(toys.len(), 4, "{backend}: versions 2 and 3 share the index");
    assert!(
        toys.iter()
            .any(|p| *p == product("v2-2", "Middle 2", "toys", &[]))
    );
    let mut all = db.scan_all::<Product>().await.unwrap();
    all.sort_by(|a, b| a.product_id.cmp(&b.product_id));
    assert_eq!(all.len(), 7, "{backend}");
    assert_eq!(all[0], product("v1-1", "Old 1", "uncategorized", &[]));

    // An item of a newer version than this code's is an error, not a guess.
    let mut newer = product("v4-1", "Future", "toys", &[]).to_item().unwrap();
    newer.insert("schemaVersion".into(), AttributeValue::N("4".into()));
    raw_put(db, newer).await.unwrap();
    let err = db
        .get::<Product>(Product::key("v4-1").unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { source, .. }
            if source.path() == "schemaVersion"
                && *source.kind() == DecodeErrorKind::SchemaVersion { stored: 4, current: 3 }),
        "{backend}: {err:?}"
    );

    // Updates write the current shape: refused on a version 1 item, fine
    // on version 2 (which reads field by field) and 3.
    let f = Product::fields();
    let err = Product::update("v1-1")
        .set(f.price_cents, 150)
        .execute(db)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::ConditionFailed { .. }),
        "{backend}: {err:?}"
    );
    Product::update("v2-1")
        .set(f.price_cents, 150)
        .execute(db)
        .await
        .unwrap();
    assert_eq!(version_of(&raw(db, "v2-1").await), Some("2"));
    assert_eq!(get("v2-1").await.price_cents, 150);

    // A backfill rewrites the old items whole, in the current shape.
    let report = singletable::Backfill::<Product>::new()
        .segments(2)
        .run(db)
        .await
        .unwrap();
    assert_eq!(report.counts.rewritten, 5, "{backend}: {report:?}");
    assert_eq!(report.counts.unchanged, 2, "{backend}");
    assert_eq!(
        report.failures.len(),
        1,
        "{backend}: the newer item is reported"
    );
    assert_eq!(report.failures[0].key, Product::key("v4-1").unwrap());
    let v1 = raw(db, "v1-1").await;
    assert_eq!(version_of(&v1), Some("3"), "{backend}");
    assert!(
        !v1.contains_key("name"),
        "{backend}: the old attribute is gone"
    );
    assert_eq!(v1["title"].as_s().unwrap(), "Old 1");
    assert_eq!(v1["GSI1PK"].as_s().unwrap(), "CATEGORY#uncategorized");
    assert_eq!(
        Product::by_category("uncategorized")
            .all(db)
            .await
            .unwrap()
            .len(),
        3,
        "{backend}: and the migrated items are in the index"
    );
    assert_eq!(version_of(&raw(db, "v2-2").await), Some("3"));
    assert_eq!(
        get("v2-1").await.price_cents,
        150,
        "{backend}: the update kept"
    );
    // Now they take updates.
    Product::update("v1-1")
        .set(f.price_cents, 175)
        .execute(db)
        .await
        .unwrap();
    assert_eq!(get("v1-1").await.price_cents, 175);
    let again = singletable::Backfill::<Product>::new()
        .run(db)
        .await
        .unwrap();
    assert_eq!(again.counts.rewritten, 0, "{backend}");
}

#[tokio::test]
async fn old_schema_versions_read_as_current() {
    let embedded = Db::<Embedded>::in_memory::<VersionsTable>("Versions").unwrap();
    check(&embedded, "embedded").await;
    let local = fresh_db::<VersionsTable>("versions").await;
    check(&local, "DynamoDB Local").await;
}
