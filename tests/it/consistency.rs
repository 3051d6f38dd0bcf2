//! Results that agree with each other: `count()` counts what `all()`
//! returns, and `first()` asks DynamoDB for one item whenever DynamoDB can
//! answer with one, on every kind of query, on both backends.

use singletable::{AttributeValue, Collection, Db, Entity, Item, Table};

use crate::support::{both, raw_put};

#[derive(Table)]
#[table(name = "Counts", gsi1(pk(stream = S), sk(seq = N)))]
pub struct CountsTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = CountsTable)]
#[pk("STREAM#<stream>")]
#[sk("EV#<seq>")]
#[gsi1(pk(stream), sk(seq))]
#[access(events)]
#[access(by_stream, index = gsi1)]
pub struct Event {
    pub stream: String,
    pub seq: u32,
    pub body: String,
}

/// Another entity of the same partition, whose sort keys fall inside the
/// events' ranges (`EV#0000000002#M` sorts between events 2 and 3).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = CountsTable)]
#[pk("STREAM#<stream>")]
#[sk("EV#<seq>#M")]
pub struct Marker {
    pub stream: String,
    pub seq: u32,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum StreamPage {
    Event(Event),
    Marker(Marker),
}

fn event(seq: u32) -> Event {
    Event {
        stream: "s1".into(),
        seq,
        body: format!("event {seq}"),
    }
}

/// Events 1..=n, markers after events 2 and 4, and two items another client
/// wrote: one in the partition's event range, one on the index only.
async fn fill(db: &Db, n: u32) {
    for seq in 1..=n {
        db.put(&event(seq)).await.unwrap();
    }
    for seq in [2, 4] {
        db.put(&Marker {
            stream: "s1".into(),
            seq,
        })
        .await
        .unwrap();
    }
    let s = |v: &str| AttributeValue::S(v.into());
    let foreign: [Item; 2] = [
        [
            ("PK", s("STREAM#s1")),
            ("SK", s("EV#0000000003#X")),
            ("stream", s("s1")),
            ("seq", AttributeValue::N("3".into())),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
        [
            ("PK", s("IMPORT#1")),
            ("SK", s("ROW")),
            ("stream", s("s1")),
            ("seq", AttributeValue::N("2".into())),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
    ];
    for item in foreign {
        raw_put(db, item).await.unwrap();
    }
}

#[tokio::test]
async fn count_matches_all_on_every_query_kind() {
    for db in both::<CountsTable>("counts").await {
        fill(&db, 5).await;
        let partition = || Event::partition("s1").unwrap();
        macro_rules! agree {
            ($q:expr, $expected:expr) => {{
                let all = $q.all(&db).await.unwrap();
                assert_eq!(all.len(), $expected, "{all:?}");
                assert_eq!($q.count(&db).await.unwrap(), $expected as u64);
            }};
        }
        // A sort-key range on the table, with another entity inside it.
        agree!(Event::events("s1").sk_between(1, 5), 5);
        agree!(Event::events("s1").sk_ge(3), 3);
        // The whole pattern, skipping what it cannot attribute.
        agree!(Event::events("s1").skip_other_types(), 5);
        agree!(Event::events("s1").skip_other_types().limit(2), 2);
        // A filter as well.
        agree!(
            Event::events("s1")
                .skip_other_types()
                .filter(Event::fields().body.ne("event 1")),
            4
        );
        // A multi-attribute index, where the markers (their `stream` and
        // `seq` copies) and another client's items have the same
        // attributes: its queries skip other types always.
        agree!(Event::by_stream("s1"), 5);
        agree!(Event::by_stream("s1").sk_between(2, 4), 3);
        // A collection: its members, not the other client's item.
        agree!(StreamPage::query(partition()).skip_other_types(), 7);
    }
}

#[tokio::test]
async fn first_reads_one_item_whenever_dynamodb_can() {
    for db in both::<CountsTable>("first").await {
        fill(&db, 200).await;
        let cost = |db: &Db| db.take_consumed_capacity().unwrap_or_default();
        cost(&db);
        // One item read (half a unit, eventually consistent) however long
        // the range: on the table, in a sort-key range, on a
        // multi-attribute index.
        let first = Event::events("s1").first(&db).await.unwrap();
        assert_eq!(first, Some(event(1)));
        assert_eq!(cost(&db), 0.5);
        let first = Event::events("s1")
            .sk_between(10, 200)
            .first(&db)
            .await
            .unwrap();
        assert_eq!(first, Some(event(10)));
        assert_eq!(cost(&db), 0.5);
        let first = Event::by_stream("s1").sk_ge(150).first(&db).await.unwrap();
        assert_eq!(first, Some(event(150)));
        assert_eq!(cost(&db), 0.5);
        // Newest first.
        let last = Event::events("s1").newest_first().first(&db).await.unwrap();
        assert_eq!(last, Some(event(200)));
        assert_eq!(cost(&db), 0.5);
        // The first item read is another type's: one more page, and still
        // the right answer (event 3 after the marker of event 2).
        let after_marker = Event::events("s1").sk_gt(2).first(&db).await.unwrap();
        assert_eq!(after_marker, Some(event(3)));
        // A filter: DynamoDB applies Limit before it, so pages are read
        // whole, and the answer is still the first match.
        let filtered = Event::events("s1")
            .filter(Event::fields().body.eq("event 120"))
            .first(&db)
            .await
            .unwrap();
        assert_eq!(filtered, Some(event(120)));
        assert!(cost(&db) > 0.5);
        // Nothing in range: None, after one request.
        let none = Event::events("s1").sk_gt(1000).first(&db).await.unwrap();
        assert_eq!(none, None);
    }
}

#[tokio::test]
async fn pages_report_count_and_scanned_count() {
    for db in both::<CountsTable>("page-counts").await {
        fill(&db, 5).await;
        // Events 1 to 5, two markers and another client's item in range:
        // DynamoDB returned 8, the page keeps the 5 events.
        let page = Event::events("s1")
            .sk_between(1, 5)
            .page(&db, None)
            .await
            .unwrap();
        assert_eq!(page.items.len(), 5);
        assert_eq!((page.count, page.scanned_count), (8, Some(8)));
        // A filter: read 8, returned 1.
        let page = Event::events("s1")
            .sk_between(1, 5)
            .filter(Event::fields().body.eq("event 3"))
            .page(&db, None)
            .await
            .unwrap();
        assert_eq!(page.items, vec![event(3)]);
        assert_eq!((page.count, page.scanned_count), (1, Some(8)));
    }
}
