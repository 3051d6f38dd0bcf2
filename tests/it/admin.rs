//! Table administration is one API (`Admin`, behind `Db`'s methods) on
//! every handle: the embedded backend's, the SDK's on DynamoDB Local, and
//! the shared handle (`Db<SharedExecutor>`) over either.

use std::sync::Arc;

use singletable::backend::ExtraIndexes;
use singletable::definition::{Billing, Drift};
use singletable::{Db, Embedded, Entity, Executor, SdkDb, SharedExecutor, StreamView, Table};

use crate::support::{endpoint, unique_table};

#[derive(Table)]
#[table(
    name = "Admin",
    gsi1(keys_only),
    lsi1,
    stream = new_and_old_images,
    ttl = "expiresAt"
)]
pub struct V1;

/// `V1` with one more global index.
#[derive(Table)]
#[table(
    name = "Admin",
    gsi1(keys_only),
    gsi2,
    lsi1,
    stream = new_and_old_images,
    ttl = "expiresAt"
)]
pub struct V2;

/// No stream, no index.
#[derive(Table)]
#[table(name = "Plain")]
pub struct Plain;

#[derive(Entity, Debug, PartialEq)]
#[entity(table = V2)]
#[pk("MEMBER#<id>")]
#[sk("PROFILE")]
#[gsi2(pk = "EMAIL#<email>", sk = "MEMBER")]
#[access(by_email, index = gsi2)]
pub struct Member {
    pub id: String,
    pub email: String,
}

/// Index names, sorted: DynamoDB lists indexes in no set order.
fn names(indexes: &[singletable::definition::IndexDef]) -> Vec<&str> {
    let mut names: Vec<&str> = indexes.iter().map(|i| i.index_name.as_str()).collect();
    names.sort_unstable();
    names
}

/// Create, describe, verify, plan and apply an update, the stream ARN and
/// delete, on one handle; `what` names it in failures.
async fn administer<E: Executor>(db: &Db<E>, what: &str) {
    let table = db.table_name().to_owned();
    let missing = db.describe().await.expect_err(what);
    assert_eq!(missing.code(), Some("ResourceNotFoundException"), "{what}");

    // Create, once.
    assert!(db.create_table_if_missing::<V1>().await.unwrap(), "{what}");
    assert!(!db.create_table_if_missing::<V1>().await.unwrap(), "{what}");

    // Describe: the declaration, as the backend holds it.
    let described = db.describe().await.unwrap();
    assert_eq!(described.table_name, table, "{what}");
    let keys: Vec<(&str, &str)> = described
        .key_schema
        .iter()
        .map(|k| (k.attribute_name.as_str(), k.key_type.as_str()))
        .collect();
    assert_eq!(keys, [("PK", "HASH"), ("SK", "RANGE")], "{what}");
    assert_eq!(
        names(&described.global_secondary_indexes),
        ["GSI1"],
        "{what}"
    );
    assert_eq!(
        described.global_secondary_indexes[0]
            .projection
            .projection_type,
        "KEYS_ONLY",
        "{what}"
    );
    assert_eq!(
        names(&described.local_secondary_indexes),
        ["LSI1"],
        "{what}"
    );
    assert_eq!(described.billing_mode, "PAY_PER_REQUEST", "{what}");
    assert_eq!(
        described.stream_view(),
        Some(StreamView::NewAndOldImages),
        "{what}"
    );
    assert_eq!(
        described.ttl_attribute.as_deref(),
        Some("expiresAt"),
        "{what}"
    );

    // Verify: no drift against the declaration it was created from; the
    // next declaration's index is missing.
    let drift = db.verify::<V1>().await.unwrap();
    assert!(drift.is_empty(), "{what}: {drift:?}");
    assert_eq!(
        db.verify::<V2>().await.unwrap(),
        [Drift::MissingIndex("GSI2".into())],
        "{what}"
    );

    // An item written before the index exists.
    let ana = Member {
        id: "ana".into(),
        email: "ana@example.com".into(),
    };
    db.put(&ana).await.unwrap();

    // Plan: lists the index, changes nothing.
    let plan = db
        .plan_table_update::<V2>(ExtraIndexes::Keep)
        .await
        .unwrap();
    assert_eq!(plan.created, ["GSI2"], "{what}");
    assert!(plan.deleted.is_empty() && plan.extra.is_empty(), "{what}");
    assert_eq!(
        db.verify::<V2>().await.unwrap(),
        [Drift::MissingIndex("GSI2".into())],
        "{what}: a plan changes nothing"
    );

    // Apply: creates it, built from the stored item; describe shows it.
    assert_eq!(
        db.update_table::<V2>(ExtraIndexes::Keep).await.unwrap(),
        plan,
        "{what}"
    );
    let described = db.describe().await.unwrap();
    assert_eq!(
        names(&described.global_secondary_indexes),
        ["GSI1", "GSI2"],
        "{what}"
    );
    let gsi2 = described
        .global_secondary_indexes
        .iter()
        .find(|g| g.index_name == "GSI2")
        .expect(what);
    let keys: Vec<(&str, &str)> = gsi2
        .key_schema
        .iter()
        .map(|k| (k.attribute_name.as_str(), k.key_type.as_str()))
        .collect();
    assert_eq!(keys, [("GSI2PK", "HASH"), ("GSI2SK", "RANGE")], "{what}");
    assert!(db.verify::<V2>().await.unwrap().is_empty(), "{what}");
    assert_eq!(
        db.verify::<V1>().await.unwrap(),
        [Drift::ExtraIndex("GSI2".into())],
        "{what}"
    );
    assert_eq!(
        Member::by_email("ana@example.com").all(db).await.unwrap(),
        [ana],
        "{what}: the new index holds the item stored before it"
    );
    // Nothing left to do; the older declaration keeps the index unless told.
    assert!(
        db.plan_table_update::<V2>(ExtraIndexes::Delete)
            .await
            .unwrap()
            .is_empty(),
        "{what}"
    );
    assert_eq!(
        db.plan_table_update::<V1>(ExtraIndexes::Keep)
            .await
            .unwrap()
            .extra,
        ["GSI2"],
        "{what}"
    );

    // The stream's ARN names the table.
    let arn = db.stream_arn().await.unwrap().expect(what);
    assert!(
        arn.starts_with("arn:aws:dynamodb:") && arn.contains(&format!(":table/{table}/stream/")),
        "{what}: {arn}"
    );

    // Delete: gone, and a second delete says so.
    db.delete_table().await.unwrap();
    let gone = db.describe().await.expect_err(what);
    assert_eq!(gone.code(), Some("ResourceNotFoundException"), "{what}");
    let again = db.delete_table().await.expect_err(what);
    assert_eq!(again.code(), Some("ResourceNotFoundException"), "{what}");
    assert_eq!(
        db.stream_arn().await.expect_err(what).code(),
        Some("ResourceNotFoundException"),
        "{what}"
    );

    // A table without a stream has no stream ARN.
    assert!(
        db.create_table_if_missing::<Plain>().await.unwrap(),
        "{what}"
    );
    assert_eq!(db.stream_arn().await.unwrap(), None, "{what}");
    assert!(db.verify::<Plain>().await.unwrap().is_empty(), "{what}");
    db.delete_table().await.unwrap();
}

#[tokio::test]
async fn admin_works_through_every_handle() {
    let embedded: Db<Embedded> = Db::with_executor(Embedded::new(), "Admin");
    administer(&embedded, "Db<Embedded>").await;

    let sdk = Db::local(&endpoint(), unique_table("Admin"));
    administer(&sdk, "Db<SdkExecutor>").await;

    let shared_embedded: Db<SharedExecutor> =
        Db::with_executor(Arc::new(Embedded::new()) as SharedExecutor, "Admin");
    administer(&shared_embedded, "Db<SharedExecutor> over Embedded").await;

    let shared_sdk: Db = Db::local(&endpoint(), unique_table("Admin")).into_shared();
    administer(&shared_sdk, "Db<SharedExecutor> over SdkExecutor").await;
}

/// A provisioned table with vector indexes is refused before anything is
/// sent, on every backend, as DynamoDB refuses it.
#[tokio::test]
async fn admin_refuses_what_dynamodb_refuses_on_every_handle() {
    #[derive(Table)]
    #[table(name = "Vectors", vector1(dimensions = 2, distance = cosine))]
    pub struct Vectors;

    let handles: [Db; 2] = [
        Db::with_executor(Arc::new(Embedded::new()) as SharedExecutor, "Vectors"),
        Db::local(&endpoint(), unique_table("Vectors")).into_shared(),
    ];
    for db in handles {
        let err = db
            .create_table_with::<Vectors>(Billing::Provisioned { read: 1, write: 1 })
            .await
            .unwrap_err();
        assert!(err.to_string().contains("on-demand"), "{err}");
        assert_eq!(
            db.describe().await.unwrap_err().code(),
            Some("ResourceNotFoundException")
        );
    }
}
