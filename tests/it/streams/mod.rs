//! Typed stream records: the same writes on the embedded backend and on
//! DynamoDB Local give the same stream records (the embedded change feed
//! against DynamoDB Local's stream, read through the Streams API), and
//! those records, delivered by either source or as the JSON a Lambda
//! function receives, decode into the same typed changes under every view.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use singletable::SdkDb;
use singletable::embedded::{Embedded, TableSchema};
use singletable::{
    Collection, Db, DecodeErrorKind, Entity, Error, Executor, Item, OtherTypes, StreamError,
    StreamView, Table,
};
use singletable_aws::StreamReader;
use singletable_runtime::stream::aws_sdk_dynamodbstreams::types as ddbs;
use singletable_runtime::stream::{self, EventKind, StreamRecord, StreamSource, lambda};
use singletable_tools::stream::{Change, Event, changes};

use crate::support::{endpoint, unique_table};

macro_rules! view_table {
    ($name:ident, $view:ident) => {
        #[derive(Table)]
        #[table(name = "Feed", stream = $view)]
        pub struct $name;
    };
}
view_table!(FeedTable, new_and_old_images);
view_table!(KeysOnlyTable, keys_only);
view_table!(NewImageTable, new_image);
view_table!(OldImageTable, old_image);

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = FeedTable, name = "Order", rename_all = "camelCase")]
#[pk("ORDER#<order_id>")]
#[sk("DETAILS")]
pub struct Order {
    pub order_id: String,
    pub status: String,
    pub total: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = FeedTable, name = "Line", rename_all = "camelCase")]
#[pk("ORDER#<order_id>")]
#[sk("ITEM#<item_id>")]
pub struct Line {
    pub order_id: String,
    pub item_id: String,
    pub qty: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = FeedTable, name = "Note")]
#[pk("NOTE#<id>")]
#[sk("NOTE")]
pub struct Note {
    pub id: String,
    pub text: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderLines {
    Order(Order),
    Line(Line),
}

fn order(id: &str, status: &str, total: u32) -> Order {
    Order {
        order_id: id.into(),
        status: status.into(),
        total,
    }
}

fn line(order_id: &str, item_id: &str, qty: u32) -> Line {
    Line {
        order_id: order_id.into(),
        item_id: item_id.into(),
        qty,
    }
}

/// The writes both backends see: every kind of write, plus writes that
/// change nothing and so make no record.
async fn scenario<E: Executor>(db: &Db<E>) -> singletable::Result<()> {
    let f = Order::fields();
    db.put(&order("o1", "NEW", 10)).await?; // INSERT
    db.put(&line("o1", "i1", 2)).await?; // INSERT
    db.put(&Note {
        id: "n1".into(),
        text: "hello".into(),
    })
    .await?; // INSERT
    Order::update("o1")
        .set(f.status, "PAID".to_owned())
        .execute(db)
        .await?; // MODIFY
    db.put(&order("o1", "PAID", 10)).await?; // the same item: no record
    db.delete::<Line>(Line::key("o1", "i1")?).await?; // REMOVE
    db.delete::<Line>(Line::key("o1", "none")?).await?; // nothing to delete: no record
    assert!(db.create(&order("o1", "X", 0)).await.is_err()); // condition failed: no record
    singletable::Transaction::new()
        .put(&order("o2", "NEW", 5))
        .update(Order::update("o1").set(f.total, 12))
        .execute(db)
        .await?; // INSERT, MODIFY
    singletable::BatchWriter::new()
        .put(&line("o2", "i2", 1))
        .delete::<Note>(Note::key("n1")?)
        .execute(db)
        .await?; // INSERT, REMOVE
    Ok(())
}

/// The typed Order changes of the scenario under `view`: (event, old, new).
fn expected_orders(view: StreamView) -> Vec<(EventKind, Option<Order>, Option<Order>)> {
    let new = |o: Order| view.has_new_image().then_some(o);
    let old = |o: Order| view.has_old_image().then_some(o);
    vec![
        (EventKind::Insert, None, new(order("o1", "NEW", 10))),
        (
            EventKind::Modify,
            old(order("o1", "NEW", 10)),
            new(order("o1", "PAID", 10)),
        ),
        (EventKind::Insert, None, new(order("o2", "NEW", 5))),
        (
            EventKind::Modify,
            old(order("o1", "PAID", 10)),
            new(order("o1", "PAID", 12)),
        ),
    ]
}

fn flatten(changes: &[Change<Order>]) -> Vec<(EventKind, Option<Order>, Option<Order>)> {
    changes
        .iter()
        .map(|c| {
            (
                c.event.kind(),
                c.event.old_image().cloned(),
                c.event.new_image().cloned(),
            )
        })
        .collect()
}

const VIEWS: [StreamView; 4] = [
    StreamView::KeysOnly,
    StreamView::NewImage,
    StreamView::OldImage,
    StreamView::NewAndOldImages,
];

/// The records of the scenario on a fresh embedded table with `view`.
async fn embedded_records(view: StreamView) -> Vec<StreamRecord> {
    let exec = Embedded::new();
    let mut schema = TableSchema::of::<FeedTable>();
    schema.stream = Some(view);
    exec.create_table_with("Feed", schema).unwrap();
    let db = Db::with_executor(exec.clone(), "Feed");
    let mut live = exec.subscribe("Feed").unwrap();
    scenario(&db).await.unwrap();
    let records = exec.change_feed("Feed").unwrap();
    assert_eq!(
        live.drain(),
        records,
        "the subscription sees the same records"
    );
    records
}

/// The records of the scenario on a fresh DynamoDB Local table with `view`,
/// read through the Streams API.
async fn local_records(view: StreamView) -> Vec<StreamRecord> {
    let db = Db::local(&endpoint(), unique_table("stream"));
    let created = match view {
        StreamView::KeysOnly => db.create_table_if_missing::<KeysOnlyTable>().await,
        StreamView::NewImage => db.create_table_if_missing::<NewImageTable>().await,
        StreamView::OldImage => db.create_table_if_missing::<OldImageTable>().await,
        StreamView::NewAndOldImages => db.create_table_if_missing::<FeedTable>().await,
    };
    assert!(created.unwrap());
    let declared = match view {
        StreamView::KeysOnly => db.verify::<KeysOnlyTable>().await,
        StreamView::NewImage => db.verify::<NewImageTable>().await,
        StreamView::OldImage => db.verify::<OldImageTable>().await,
        StreamView::NewAndOldImages => db.verify::<FeedTable>().await,
    };
    assert_eq!(declared.unwrap(), [], "{view:?}: the stream is as declared");
    scenario(&db).await.unwrap();
    let arn = db
        .stream_arn()
        .await
        .unwrap()
        .expect("the table has a stream");
    let records = StreamReader::local(&endpoint())
        .read_all(&arn)
        .await
        .unwrap();
    db.delete_table().await.unwrap();
    records
}

fn decode_all<T: singletable::Decode>(
    records: &[StreamRecord],
    other: OtherTypes,
) -> Vec<singletable::Result<Change<T>>> {
    changes::<T, _>(records, other).collect()
}

/// A value in DynamoDB's JSON shape, as Lambda events carry it.
fn ddb_json(item: &Item) -> Value {
    serde_json::to_value(serde_dynamo::Item::from(item.clone())).unwrap()
}

/// The records as the JSON of the DynamoDB event a Lambda function gets.
fn lambda_event(records: &[StreamRecord]) -> String {
    let records: Vec<Value> = records
        .iter()
        .map(|r| {
            let mut change = json!({
                "Keys": ddb_json(&r.keys),
                "SequenceNumber": r.sequence_number,
                "SizeBytes": r.size_bytes.unwrap_or(0),
                "StreamViewType": r.view.map(StreamView::as_str),
            });
            if let Some(t) = r.approximate_creation_time {
                let secs = t
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .unwrap()
                    .as_secs_f64();
                change["ApproximateCreationDateTime"] = json!(secs);
            }
            if let Some(i) = &r.new_image {
                change["NewImage"] = ddb_json(i);
            }
            if let Some(i) = &r.old_image {
                change["OldImage"] = ddb_json(i);
            }
            json!({
                "eventID": r.event_id,
                "eventName": r.event.as_str(),
                "eventVersion": "1.1",
                "eventSource": "aws:dynamodb",
                "awsRegion": "us-east-1",
                "eventSourceARN": "arn:aws:dynamodb:us-east-1:000000000000:table/Feed/stream/x",
                "dynamodb": change,
            })
        })
        .collect();
    json!({ "Records": records }).to_string()
}

fn stream_reason(e: &Error) -> &StreamError {
    match e {
        Error::Stream { reason, .. } => reason,
        other => panic!("expected a malformed-record error, got {other:?}"),
    }
}

fn is_other_type(e: &Error) -> bool {
    matches!(e, Error::Decode { source, .. } if matches!(source.kind(), DecodeErrorKind::EntityType { .. }))
}

/// Checks the decoded changes of one source's records under `view`.
fn check_source(source: &str, view: StreamView, records: &[StreamRecord]) {
    assert_eq!(records.len(), 9, "{source} {view:?}: one record per change");
    let orders: Vec<Change<Order>> = decode_all(records, OtherTypes::Skip)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{source} {view:?}: {e}"));
    assert_eq!(flatten(&orders), expected_orders(view), "{source} {view:?}");
    for c in &orders {
        assert!(
            c.key.pk == "ORDER#o1" || c.key.pk == "ORDER#o2",
            "{:?}",
            c.key
        );
        assert_eq!(c.key.sk.as_deref(), Some("DETAILS"));
        assert!(!c.by_ttl);
        let t = c
            .approximate_creation_time
            .expect("records carry their time");
        let age = SystemTime::now().duration_since(t).unwrap_or_default();
        assert!(age < Duration::from_secs(180), "{source}: time {t:?}");
    }
    let seqs: Vec<u128> = orders
        .iter()
        .map(|c| c.sequence_number.parse().unwrap())
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "{source}: sequence numbers grow"
    );

    // The collection reads orders and lines; notes are another type.
    let both: Vec<Change<OrderLines>> = decode_all(records, OtherTypes::Skip)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let kinds: Vec<(EventKind, bool)> = both
        .iter()
        .map(|c| (c.event.kind(), c.key.sk.as_deref() == Some("DETAILS")))
        .collect();
    use EventKind::*;
    assert_eq!(
        kinds,
        [
            (Insert, true),
            (Insert, false),
            (Modify, true),
            (Remove, false),
            (Insert, true),
            (Modify, true),
            (Insert, false)
        ],
        "{source} {view:?}"
    );
    if view.has_new_image() {
        assert!(matches!(
            &both[1].event,
            Event::Insert { new: Some(OrderLines::Line(l)) } if *l == line("o1", "i1", 2)
        ));
    }

    // Reported instead of skipped: each record of another type is an
    // error of its own; the others still decode.
    let reported = decode_all::<Order>(records, OtherTypes::Error);
    assert_eq!(reported.len(), 9);
    let others: Vec<bool> = reported
        .iter()
        .map(|r| r.as_ref().err().is_some_and(is_other_type))
        .collect();
    assert_eq!(
        others,
        [false, true, true, false, true, false, false, true, true],
        "{source} {view:?}: lines and notes are reported"
    );

    // The same records as a Lambda function receives them decode alike.
    let event = lambda::parse_event(lambda_event(records).as_bytes()).unwrap();
    let via_lambda: Vec<Change<Order>> = changes::<Order, _>(&event.records, OtherTypes::Skip)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(via_lambda, orders, "{source} {view:?}: Lambda JSON");
}

mod malformed;
use malformed::check_malformed;

#[tokio::test]
async fn stream_records_decode_to_typed_changes() {
    for view in VIEWS {
        check_source("embedded", view, &embedded_records(view).await);
        check_source("DynamoDB Local", view, &local_records(view).await);
    }
    check_malformed();
}

#[tokio::test]
async fn embedded_change_feed_matches_dynamodb_local_streams() {
    let embedded = embedded_records(StreamView::NewAndOldImages).await;
    let local = local_records(StreamView::NewAndOldImages).await;
    assert_eq!(embedded.len(), local.len(), "as many records");
    for (i, (e, l)) in embedded.iter().zip(&local).enumerate() {
        assert_eq!(e.event, l.event, "record {i}: event");
        assert_eq!(e.keys, l.keys, "record {i}: keys");
        assert_eq!(e.new_image, l.new_image, "record {i}: new image");
        assert_eq!(e.old_image, l.old_image, "record {i}: old image");
        assert_eq!(e.view, l.view, "record {i}: view");
        assert_eq!(e.size_bytes, l.size_bytes, "record {i}: size");
        assert_eq!(e.by_ttl, l.by_ttl, "record {i}: ttl");
    }
    for records in [&embedded, &local] {
        let seqs: Vec<u128> = records
            .iter()
            .map(|r| r.sequence_number.parse().unwrap())
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "commit order: {seqs:?}"
        );
        let mut ids: Vec<&str> = records.iter().map(|r| r.event_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), records.len(), "event ids are unique");
    }
}

/// A consumer that keeps its position: it reads what follows the stored
/// position, handles it, stores the new one; after a crash before storing
/// it reads the same records again (at least once), never an older one.
async fn consume(db: &Db, source: &dyn stream::StreamSource) -> Vec<String> {
    use stream::StreamPosition;
    let order = |id: &str, total: u32| Order {
        order_id: id.into(),
        status: "NEW".into(),
        total,
    };
    let ids = |records: &[StreamRecord]| -> Vec<String> {
        decode_all::<Order>(records, OtherTypes::Error)
            .into_iter()
            .map(|c| {
                let c = c.unwrap();
                let kind = match c.event {
                    Event::Insert { .. } => "Insert",
                    Event::Modify { .. } => "Modify",
                    Event::Remove { .. } => "Remove",
                };
                format!("{kind} {}", c.key.pk)
            })
            .collect()
    };
    for id in ["o1", "o2", "o3"] {
        db.put(&order(id, 1)).await.unwrap();
    }
    let first = source.read_after(&StreamPosition::default()).await.unwrap();
    let mut seen = ids(&first.records);
    assert_eq!(first.records.len(), 3);
    // Stored as a string, as a consumer stores it, and read back.
    let stored = first.position.encode();

    db.put(&order("o2", 2)).await.unwrap();
    db.delete::<Order>(Order::key("o1").unwrap()).await.unwrap();
    let at = StreamPosition::decode(&stored).unwrap();
    let second = source.read_after(&at).await.unwrap();
    assert_eq!(second.records.len(), 2, "only what followed the position");
    // A crash before the position was stored: the same records again.
    let again = source.read_after(&at).await.unwrap();
    assert_eq!(ids(&again.records), ids(&second.records));
    seen.extend(ids(&second.records));
    // Caught up.
    let caught_up = source.read_after(&second.position).await.unwrap();
    assert!(caught_up.records.is_empty());
    assert_eq!(caught_up.position, second.position);
    seen
}

#[tokio::test]
async fn stream_consumer_resumes_from_its_position() {
    let local = fresh_stream_db().await;
    let arn = local.stream_arn().await.unwrap().expect("a stream");
    let reader = StreamReader::local(&endpoint()).at(arn);
    let shared: Db = local.clone().into_shared();
    let on_local = consume(&shared, &reader).await;

    let embedded = Db::<Embedded>::in_memory::<FeedTable>("Feed").unwrap();
    let source = embedded.executor().stream("Feed").unwrap();
    let on_embedded = consume(&embedded.clone().into_shared(), &source).await;
    assert_eq!(on_local, on_embedded);
    assert_eq!(
        on_local,
        [
            "Insert ORDER#o1",
            "Insert ORDER#o2",
            "Insert ORDER#o3",
            "Modify ORDER#o2",
            "Remove ORDER#o1"
        ]
    );
    // A position of another stream is refused, typed, not read as empty.
    let mut foreign = stream::StreamPosition::default();
    foreign.advance("shardId-of-another-stream", "1");
    let err = source.read_after(&foreign).await.unwrap_err();
    assert_eq!(err.code(), Some("TrimmedDataAccessException"));
    local.delete_table().await.unwrap();
}

async fn fresh_stream_db() -> Db<singletable::SdkExecutor> {
    let db = Db::local(&endpoint(), unique_table("consumer"));
    assert!(db.create_table_if_missing::<FeedTable>().await.unwrap());
    db
}

/// A keys-only record carries no entity type: it is an entity's change
/// when the entity's own key parsers read its key, not when the key only
/// looks like the template (`ORDER#%ZZ` is no order key: `%ZZ` is not an
/// escape). On DynamoDB Local and embedded.
#[tokio::test]
async fn keys_only_records_use_the_key_parser() {
    async fn write<E: Executor>(db: &Db<E>) {
        for pk in ["ORDER#o1", "ORDER#%ZZ"] {
            let item: Item = [("PK", pk), ("SK", "DETAILS")]
                .map(|(k, v)| (k.to_owned(), singletable::AttributeValue::S(v.into())))
                .into();
            crate::support::raw_put(db, item).await.unwrap();
        }
    }
    let exec = Embedded::new();
    let mut schema = TableSchema::of::<FeedTable>();
    schema.stream = Some(StreamView::KeysOnly);
    exec.create_table_with("Feed", schema).unwrap();
    write(&Db::with_executor(exec.clone(), "Feed")).await;
    let on_embedded = exec.change_feed("Feed").unwrap();

    let db = Db::local(&endpoint(), unique_table("keys-parser"));
    assert!(db.create_table_if_missing::<KeysOnlyTable>().await.unwrap());
    write(&db).await;
    let arn = db.stream_arn().await.unwrap().expect("a stream");
    let on_local = StreamReader::local(&endpoint())
        .read_all(&arn)
        .await
        .unwrap();
    db.delete_table().await.unwrap();

    for records in [on_embedded, on_local] {
        assert_eq!(records.len(), 2);
        let skipped: Vec<Change<Order>> = decode_all::<Order>(&records, OtherTypes::Skip)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].key.pk, "ORDER#o1");
        let reported = decode_all::<Order>(&records, OtherTypes::Error);
        assert!(reported[0].is_ok());
        assert!(
            matches!(
                &reported[1],
                Err(Error::Decode { source, .. }) if matches!(source.kind(), DecodeErrorKind::EntityType { .. })
            ),
            "{:?}",
            reported[1]
        );
    }
}

/// `read_after` refused a stale position with the typed error, and read nothing.
fn stale(result: singletable::Result<stream::StreamBatch>, shard: &str) {
    match result {
        Err(err @ Error::StreamTrimmed { .. }) => {
            assert_eq!(err.code(), Some("TrimmedDataAccessException"));
            let Error::StreamTrimmed { shard: named, .. } = err else {
                unreachable!()
            };
            assert_eq!(named, shard);
        }
        Err(other) => panic!("expected StreamTrimmed for shard {shard}: {other:?}"),
        Ok(batch) => panic!(
            "a stale position read {} records instead of failing",
            batch.records.len()
        ),
    }
}

/// The one shard a position names.
fn only_shard(position: &stream::StreamPosition) -> String {
    let shards: Vec<&str> = position.shards().collect();
    assert_eq!(shards.len(), 1, "{shards:?}");
    shards[0].to_owned()
}

/// A consumer resumed from a position naming a shard its stream does not
/// hold (the table's before it was deleted and created again, or another
/// table's) gets `Error::StreamTrimmed` on DynamoDB Local (through the
/// Streams API) and on the embedded backend, never a silent restart from
/// the oldest record; reading on from the default position recovers.
#[tokio::test]
async fn stale_stream_position_is_an_error_on_both_backends() {
    let order = |id: &str| Order {
        order_id: id.into(),
        status: "NEW".into(),
        total: 1,
    };
    // DynamoDB Local: a position of the table's first stream.
    let local = fresh_stream_db().await;
    local.put(&order("o1")).await.unwrap();
    let reader = StreamReader::local(&endpoint());
    let first = reader.at(local.stream_arn().await.unwrap().expect("a stream"));
    let read = first.read_after(&Default::default()).await.unwrap();
    assert_eq!(read.records.len(), 1);
    let local_position = read.position;
    let local_shard = only_shard(&local_position);

    // The table deleted and created again: a new stream, whose shards the
    // position does not name. Its new record is not read in its place.
    local.delete_table().await.unwrap();
    assert!(local.create_table_if_missing::<FeedTable>().await.unwrap());
    local.put(&order("o2")).await.unwrap();
    let second = reader.at(local.stream_arn().await.unwrap().expect("a stream"));
    assert_ne!(second.arn(), first.arn());
    stale(second.read_after(&local_position).await, &local_shard);

    // The embedded backend: the same position, and its own position on
    // DynamoDB Local's stream.
    let embedded = Db::<Embedded>::in_memory::<FeedTable>("Feed").unwrap();
    embedded.put(&order("e1")).await.unwrap();
    let source = embedded.executor().stream("Feed").unwrap();
    stale(source.read_after(&local_position).await, &local_shard);
    let embedded_position = source
        .read_after(&Default::default())
        .await
        .unwrap()
        .position;
    let embedded_shard = only_shard(&embedded_position);
    stale(second.read_after(&embedded_position).await, &embedded_shard);

    // Stored and read back, the position is refused the same way.
    let stored = stream::StreamPosition::decode(&local_position.encode()).unwrap();
    stale(second.read_after(&stored).await, &local_shard);

    // Recovering: read on from the default position, every record held.
    for (source, pk) in [
        (&second as &dyn StreamSource, "ORDER#o2"),
        (&source as &dyn StreamSource, "ORDER#e1"),
    ] {
        let again = source.read_after(&Default::default()).await.unwrap();
        let keys: Vec<String> = decode_all::<Order>(&again.records, OtherTypes::Error)
            .into_iter()
            .map(|c| c.unwrap().key.pk)
            .collect();
        assert_eq!(keys, [pk]);
        let caught_up = source.read_after(&again.position).await.unwrap();
        assert!(caught_up.records.is_empty());
    }
    local.delete_table().await.unwrap();
}
