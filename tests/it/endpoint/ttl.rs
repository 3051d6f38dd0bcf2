//! TTL that deletes: the engine's sweep removes expired items through its
//! one delete path (indexes, stream, durable log, no capacity charged) and
//! the stream's `REMOVE` record names DynamoDB's TTL service, on the
//! embedded backend the library uses and on the endpoint, read with the
//! SDK's GetRecords. DynamoDB Local never deletes expired items, so there
//! is no answer of its to compare with (a departure in docs/endpoint.md).

use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::{
    AttributeValue, BillingMode, StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use serde_json::json;
use singletable::embedded::Embedded;
use singletable::{Db, Entity, Executor, Item, Table};
use singletable_core::request::PutItem;
use singletable_runtime::stream::EventKind;
use singletable_runtime::stream::aws_sdk_dynamodbstreams as ddbs;
use singletable_server::Endpoint;

use super::http::{call, start};
use super::sdk::keyed_on_pk;

#[derive(Table)]
#[table(name = "Sessions", gsi1, stream = new_and_old_images, ttl = "expiresAt")]
pub struct Sessions;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Sessions, name = "Session", rename_all = "camelCase")]
#[pk("SESSION#<id>")]
#[sk("SESSION")]
#[gsi1(pk = "USER#<user>", sk = "SESSION#<id>")]
pub struct Session {
    pub id: String,
    pub user: String,
    pub expires_at: Option<i64>,
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn session(id: &str, expires_at: i64) -> Session {
    Session {
        id: id.into(),
        user: "ana".into(),
        expires_at: Some(expires_at),
    }
}

/// The TTL story on the embedded backend `db` (durable when it was opened
/// on a directory): an item expired a minute ago goes, one that expires in
/// an hour, one expired six years ago (DynamoDB leaves those) and one whose
/// TTL attribute is a string stay; the index loses the deleted item's
/// entry, the stream gets one `REMOVE` record marked as TTL's with the old
/// image, no capacity is charged, a second sweep finds nothing and a
/// request's delete afterwards is not marked as TTL's.
async fn library_story(db: &Db<Embedded>) {
    let embedded = db.executor();
    let mut feed = embedded.subscribe("Sessions").unwrap();
    let t = now();
    for s in [
        session("gone", t - 60),
        session("later", t + 3600),
        session("ancient", t - 6 * 365 * 24 * 3600),
    ] {
        db.put(&s).await.unwrap();
    }
    let mut text = Item::new();
    text.insert("PK".into(), AttributeValue::S("SESSION#text".into()));
    text.insert("SK".into(), AttributeValue::S("SESSION".into()));
    text.insert("expiresAt".into(), AttributeValue::S((t - 60).to_string()));
    embedded
        .put_item(PutItem {
            table: "Sessions".into(),
            item: text,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await
        .unwrap();
    assert_eq!(feed.drain().len(), 4);
    let before = embedded.table_stats("Sessions").unwrap();
    let capacity = embedded.consumed_capacity("Sessions").unwrap();
    assert_eq!(before.item_count, 4);
    assert_eq!(before.indexes[0].item_count, 3);

    assert_eq!(embedded.expire_items().unwrap(), 1);
    embedded.flushed().await.unwrap();
    let after = embedded.table_stats("Sessions").unwrap();
    assert_eq!(after.item_count, 3);
    assert_eq!(after.indexes[0].item_count, 2, "the index entry went too");
    assert_eq!(embedded.consumed_capacity("Sessions").unwrap(), capacity);
    assert_eq!(
        db.get::<Session>(Session::key("gone").unwrap())
            .await
            .unwrap(),
        None
    );
    let records = feed.drain();
    assert_eq!(records.len(), 1, "{records:?}");
    let r = &records[0];
    assert_eq!(r.event, EventKind::Remove);
    assert!(r.by_ttl);
    assert_eq!(
        r.old_image.as_ref().unwrap().get("expiresAt"),
        Some(&AttributeValue::N((t - 60).to_string()))
    );
    assert_eq!(embedded.expire_items().unwrap(), 0);

    db.delete::<Session>(Session::key("later").unwrap())
        .await
        .unwrap();
    let records = feed.drain();
    assert_eq!(records.len(), 1);
    assert!(!records[0].by_ttl, "a request's delete is not TTL's");
}

/// The endpoint: a table made with the SDK, TTL enabled with
/// UpdateTimeToLive, the sweep run by `ExpireItems`; GetRecords shows the
/// `REMOVE` record with `userIdentity` `Service` /
/// `dynamodb.amazonaws.com`, and only on it.
async fn endpoint_story() {
    let endpoint = Endpoint::new();
    let url = start(endpoint.clone()).await;
    let client = endpoint.client();
    let table = "Tokens";
    keyed_on_pk(&client, table)
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name("ttl")
                .enabled(true)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let t = now();
    for (pk, ttl) in [("old", t - 5), ("new", t + 3600)] {
        client
            .put_item()
            .table_name(table)
            .item("PK", AttributeValue::S(pk.into()))
            .item("ttl", AttributeValue::N(ttl.to_string()))
            .send()
            .await
            .unwrap();
    }
    let (status, swept) = call(&url, "ExpireItems", &json!({})).await;
    assert_eq!((status, swept), (200, json!({"DeletedItemCount": 1})));
    let scanned = client.scan().table_name(table).send().await.unwrap();
    assert_eq!(scanned.count(), 1);

    let streams = ddbs::Client::from_conf(
        ddbs::Config::builder()
            .behavior_version(ddbs::config::BehaviorVersion::latest())
            .region(ddbs::config::Region::new("us-east-1"))
            .endpoint_url(&url)
            .credentials_provider(ddbs::config::Credentials::new(
                "test", "test", None, None, "static",
            ))
            .build(),
    );
    let arn = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .unwrap()
        .table()
        .unwrap()
        .latest_stream_arn()
        .unwrap()
        .to_owned();
    let shard = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .unwrap()
        .stream_description()
        .unwrap()
        .shards()[0]
        .shard_id()
        .unwrap()
        .to_owned();
    let iterator = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard)
        .shard_iterator_type(ddbs::types::ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap()
        .shard_iterator()
        .unwrap()
        .to_owned();
    let records = streams
        .get_records()
        .shard_iterator(iterator)
        .send()
        .await
        .unwrap()
        .records()
        .to_vec();
    let seen: Vec<(String, Option<(String, String)>)> = records
        .iter()
        .map(|r| {
            (
                r.event_name().unwrap().as_str().to_owned(),
                r.user_identity().map(|u| {
                    (
                        u.r#type().unwrap_or_default().to_owned(),
                        u.principal_id().unwrap_or_default().to_owned(),
                    )
                }),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("INSERT".to_owned(), None),
            ("INSERT".to_owned(), None),
            (
                "REMOVE".to_owned(),
                Some(("Service".to_owned(), "dynamodb.amazonaws.com".to_owned()))
            ),
        ]
    );
    let removed = records[2].dynamodb().unwrap();
    assert_eq!(
        removed.keys().unwrap().get("PK"),
        Some(&ddbs::types::AttributeValue::S("old".into()))
    );
    assert!(removed.old_image().is_some());
}

#[tokio::test]
async fn ttl_sweep_deletes_expired_items_with_a_service_stream_record() {
    // In memory, as `Db::in_memory` builds it.
    let db = Db::<Embedded>::in_memory::<Sessions>("Sessions").unwrap();
    library_story(&db).await;

    // Durable: the deletion and its stream record survive a restart.
    let dir = std::env::temp_dir().join(format!("singletable-ttl-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    {
        let embedded = Embedded::open(&dir).unwrap();
        embedded.create_table::<Sessions>("Sessions").unwrap();
        embedded
            .set_time_to_live("Sessions", Some("expiresAt"))
            .unwrap();
        library_story(&Db::with_executor(embedded, "Sessions")).await;
    }
    let reopened = Embedded::open(&dir).unwrap();
    assert_eq!(reopened.item_count("Sessions"), Some(2)); // ancient, text
    let removes: Vec<bool> = reopened
        .change_feed("Sessions")
        .unwrap()
        .into_iter()
        .filter(|r| r.event == EventKind::Remove)
        .map(|r| r.by_ttl)
        .collect();
    assert_eq!(removes, [true, false]);
    drop(reopened);
    std::fs::remove_dir_all(&dir).ok();

    // In the background, every interval once started.
    let db = Db::<Embedded>::in_memory::<Sessions>("Sessions").unwrap();
    db.executor().sweep_expired_every(Duration::from_millis(20));
    db.put(&session("soon", now() - 1)).await.unwrap();
    let mut waited = Duration::ZERO;
    while db.executor().item_count("Sessions") != Some(0) {
        assert!(waited < Duration::from_secs(5), "the sweep never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
    db.executor().sweep_expired_every(Duration::ZERO);

    endpoint_story().await;
}
