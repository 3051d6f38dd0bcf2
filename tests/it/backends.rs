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

/// A plain SDK client of DynamoDB Local signing with `identity`, as the
/// CLI or any other client configured with those values would.
fn plain_client(identity: &singletable_aws::LocalIdentity) -> aws_sdk_dynamodb::Client {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(identity.region.clone()))
        .endpoint_url(crate::support::endpoint())
        .credentials_provider(Credentials::new(
            identity.access_key_id.clone(),
            identity.secret_access_key.clone(),
            None,
            None,
            "plain-client",
        ))
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// Creates `table` (`PK`/`SK` strings) through `client` and puts one item.
async fn create_with_item(client: &aws_sdk_dynamodb::Client, table: &str) {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
        ScalarAttributeType,
    };
    let mut create = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest);
    for (name, kind) in [("PK", KeyType::Hash), ("SK", KeyType::Range)] {
        create = create
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(name)
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name(name)
                    .key_type(kind)
                    .build()
                    .unwrap(),
            );
    }
    create.send().await.unwrap();
    client
        .put_item()
        .table_name(table)
        .item("PK", AttributeValue::S("USER#ana".into()))
        .item("SK", AttributeValue::S("PROFILE".into()))
        .item("name", AttributeValue::S("Ana".into()))
        .send()
        .await
        .unwrap();
}

/// Whether `db` sees `table` and the item `create_with_item` put there.
async fn sees<E: singletable::Executor>(db: &Db<E>) -> bool {
    match db.describe().await {
        Ok(def) => {
            assert_eq!(def.table_name, db.table_name());
            let items =
                crate::support::scan_all(db.executor(), db.table_name(), None, None, true).await;
            assert_eq!(items.len(), 1, "{items:?}");
            assert_eq!(
                items[0].get("name"),
                Some(&singletable::AttributeValue::S("Ana".into()))
            );
            true
        }
        Err(e) if e.code() == Some("ResourceNotFoundException") => false,
        Err(e) => panic!("{e}"),
    }
}

/// `Db::local` signs as the other clients of the same DynamoDB Local do:
/// the standard `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
/// `AWS_REGION` (or the profile's) when set, `test` / `test` in
/// `us-east-1` otherwise. DynamoDB Local keeps one set of tables per
/// access key and region, so a table another client created is visible
/// exactly when both resolve to the same ones.
#[tokio::test]
async fn db_local_sees_tables_other_clients_created() {
    use singletable_aws::{LocalIdentity, SdkExecutor};

    // The resolution: environment first, then the selected profile
    // (credentials and config files), then the fixed values.
    let env = LocalIdentity::from_sources(
        &[
            ("AWS_ACCESS_KEY_ID", "env-key"),
            ("AWS_SECRET_ACCESS_KEY", "env-secret"),
            ("AWS_SESSION_TOKEN", "env-token"),
            ("AWS_REGION", "eu-west-1"),
            ("AWS_DEFAULT_REGION", "eu-west-2"),
            ("HOME", "/home/u"),
        ],
        &[(
            "/home/u/.aws/config",
            "[default]\nregion = ap-south-1\naws_access_key_id = profile-key\naws_secret_access_key = s\n",
        )],
    );
    assert_eq!(
        env,
        LocalIdentity {
            access_key_id: "env-key".into(),
            secret_access_key: "env-secret".into(),
            session_token: Some("env-token".into()),
            region: "eu-west-1".into(),
        }
    );
    let profile = LocalIdentity::from_sources(
        &[("HOME", "/home/u"), ("AWS_PROFILE", "dev")],
        &[
            (
                "/home/u/.aws/config",
                "[default]\nregion = ap-south-1\n[profile dev]\nregion = ca-central-1\n",
            ),
            (
                "/home/u/.aws/credentials",
                "[default]\naws_access_key_id = default-key\naws_secret_access_key = s\n[dev]\naws_access_key_id = dev-key\naws_secret_access_key = dev-secret\n",
            ),
        ],
    );
    assert_eq!(
        (
            profile.access_key_id.as_str(),
            profile.secret_access_key.as_str()
        ),
        ("dev-key", "dev-secret")
    );
    assert_eq!(profile.region, "ca-central-1");
    let default_region = LocalIdentity::from_sources(&[("AWS_DEFAULT_REGION", "sa-east-1")], &[]);
    assert_eq!(default_region.region, "sa-east-1");
    assert_eq!(default_region.access_key_id, "test");
    assert_eq!(
        LocalIdentity::from_sources(&[], &[]),
        LocalIdentity::fallback()
    );
    assert_eq!(
        LocalIdentity::fallback(),
        LocalIdentity {
            access_key_id: "test".into(),
            secret_access_key: "test".into(),
            session_token: None,
            region: "us-east-1".into(),
        }
    );

    let endpoint = crate::support::endpoint();
    // This process's own settings (the test command sets them), read, not
    // changed: a plain client configured from them creates a table, and
    // `Db::local` sees it and its item.
    let var = |name: &str| std::env::var(name).ok();
    let mut vars: Vec<(&str, String)> = Vec::new();
    for name in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
    ] {
        if let Some(v) = var(name) {
            vars.push((name, v));
        }
    }
    let as_env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let process = LocalIdentity::from_sources(&as_env, &[]);
    assert_eq!(
        LocalIdentity::from_env().access_key_id,
        process.access_key_id
    );
    let shared = crate::support::unique_table("other-client");
    create_with_item(&plain_client(&process), &shared).await;
    let db = Db::local(&endpoint, shared.clone());
    assert!(sees(&db).await, "Db::local does not see {shared}");

    // Another access key and region: DynamoDB Local's other database. A
    // handle resolved from those settings sees that client's table; the
    // handle of this process's settings does not, nor the reverse.
    let other = LocalIdentity::from_sources(
        &[
            ("AWS_ACCESS_KEY_ID", "newuser"),
            ("AWS_SECRET_ACCESS_KEY", "any"),
            ("AWS_REGION", "eu-west-1"),
        ],
        &[],
    );
    assert_ne!(
        (&other.access_key_id, &other.region),
        (&process.access_key_id, &process.region)
    );
    let theirs = crate::support::unique_table("other-identity");
    create_with_item(&plain_client(&other), &theirs).await;
    let as_them = Db::with_executor(SdkExecutor::local_as(&endpoint, &other), theirs.clone());
    assert!(
        sees(&as_them).await,
        "the handle signing as them sees their table"
    );
    assert!(!sees(&Db::local(&endpoint, theirs.clone())).await);
    assert!(
        !sees(&Db::with_executor(
            SdkExecutor::local_as(&endpoint, &other),
            shared.clone()
        ))
        .await
    );

    db.delete_table().await.unwrap();
    as_them.delete_table().await.unwrap();
}
