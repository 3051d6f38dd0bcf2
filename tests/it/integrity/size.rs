//! The 400 KB pre-flight check agrees with DynamoDB Local byte for byte:
//! for every attribute type and nesting, a binary search finds the largest
//! item each backend stores, and the shared size function must put it at
//! exactly 400 KB, accept it and refuse one byte more.

use std::collections::{BTreeSet, HashMap};

use singletable::size::{MAX_ITEM_BYTES, item_size};
use singletable::{AttributeValue, Blob, Db, Entity, Error, Executor, Item, Table};

use crate::support::{fresh_db, raw_put};

#[derive(Table)]
#[table(name = "Sizes")]
pub struct SizeTable;

/// An entity of the list and map shapes that the pre-flight check used to
/// undercount.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = SizeTable, name = "Bulky")]
#[pk("BULKY#<id>")]
#[sk("BULKY")]
pub struct Bulky {
    pub id: String,
    pub tags: Vec<String>,
    pub amounts: Vec<f64>,
    pub flags: HashMap<String, bool>,
    pub grid: Vec<Vec<i64>>,
    pub codes: BTreeSet<i64>,
    pub pad: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// The shapes: name, and the attributes beside the key and the padding.
fn shapes() -> Vec<(&'static str, Vec<(String, AttributeValue)>)> {
    let numbers = [
        "-1.5",
        "1",
        "-1",
        "10",
        "100",
        "0.001",
        "-0.01",
        "12345678901234567890123456789012345678",
        "-12345678901234567890123456789012345678",
        "-1234567890123456789012345678901234567",
        "1E+125",
        "-1E-130",
        "9.9E-130",
        "0",
        "123.456",
    ];
    let mut flags = HashMap::new();
    for i in 0..20_000 {
        flags.insert(format!("k{i:05}"), AttributeValue::Bool(i % 2 == 0));
    }
    let mut nested = HashMap::new();
    nested.insert("é".to_owned(), AttributeValue::M(flags.clone()));
    nested.insert("null".to_owned(), AttributeValue::Null(true));
    nested.insert(
        "list".to_owned(),
        AttributeValue::L(vec![AttributeValue::M(HashMap::new()); 3000]),
    );
    vec![
        (
            "list of one-byte strings",
            vec![("l".into(), AttributeValue::L(vec![s("a"); 100_000]))],
        ),
        (
            "list of -1.5",
            vec![("l".into(), AttributeValue::L(vec![n("-1.5"); 60_000]))],
        ),
        (
            "list of every number shape",
            vec![(
                "l".into(),
                AttributeValue::L((0..4_000).map(|i| n(numbers[i % numbers.len()])).collect()),
            )],
        ),
        (
            "map of booleans",
            vec![("m".into(), AttributeValue::M(flags))],
        ),
        (
            "nested lists of numbers",
            vec![(
                "l".into(),
                AttributeValue::L(
                    (0..2_000)
                        .map(|i| {
                            AttributeValue::L(vec![
                                n(numbers[i % numbers.len()]),
                                AttributeValue::L(vec![n("-7"), n("0.5")]),
                            ])
                        })
                        .collect(),
                ),
            )],
        ),
        (
            "nested maps, null, empty maps",
            vec![("m".into(), AttributeValue::M(nested))],
        ),
        (
            "sets",
            vec![
                (
                    "ss".into(),
                    AttributeValue::Ss((0..5_000).map(|i| format!("s{i}")).collect()),
                ),
                (
                    "ns".into(),
                    AttributeValue::Ns(
                        (0..5_000)
                            .map(|i| format!("{}", (i as f64 - 2_500.0) * 1.25))
                            .collect(),
                    ),
                ),
                (
                    "bs".into(),
                    AttributeValue::Bs(
                        (0..2_000u32)
                            .map(|i| Blob::new(i.to_be_bytes().to_vec()))
                            .collect(),
                    ),
                ),
            ],
        ),
        (
            "scalars",
            vec![
                ("b".into(), AttributeValue::B(Blob::new(vec![7; 10_000]))),
                ("bool".into(), AttributeValue::Bool(false)),
                ("null".into(), AttributeValue::Null(true)),
                ("multibyte é😀".into(), s("ü€😀")),
                ("big".into(), n("-98765432109876543210987654321098765432")),
            ],
        ),
    ]
}

fn item(attrs: &[(String, AttributeValue)], pad: usize) -> Item {
    let mut item = Item::new();
    item.insert("PK".into(), s("SIZE#1"));
    item.insert("SK".into(), s("SIZE"));
    item.insert("pad".into(), s(&"x".repeat(pad)));
    item.extend(attrs.iter().cloned());
    item
}

async fn stores<E: Executor>(db: &Db<E>, item: Item) -> bool {
    let res = raw_put(db, item).await;
    match res {
        Ok(_) => true,
        Err(Error::Service { message, .. }) if message.contains("size has exceeded") => false,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// The largest `pad` for which `accepted(pad)` holds, knowing it holds at
/// `lo` and not at `hi`.
async fn boundary<F, Fut>(mut lo: usize, mut hi: usize, accepted: F) -> usize
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    assert!(accepted(lo).await, "the smallest item must be stored");
    assert!(!accepted(hi).await, "the largest item must be refused");
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if accepted(mid).await {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

async fn raw_boundaries<E: Executor>(db: &Db<E>, backend: &str) {
    for (name, attrs) in shapes() {
        // Search a window around where the size function puts the limit;
        // the window's ends are checked against the backend too.
        let predicted = MAX_ITEM_BYTES - item_size(&item(&attrs, 0));
        let max = boundary(predicted - 1_000, predicted + 1_000, |pad| {
            stores(db, item(&attrs, pad))
        })
        .await;
        let at = item(&attrs, max);
        assert_eq!(
            item_size(&at),
            MAX_ITEM_BYTES,
            "{backend}, {name}: the largest stored item must measure exactly 400 KB"
        );
        assert!(
            singletable::size::check_item("Raw", &at).is_ok(),
            "{backend}, {name}"
        );
        assert!(
            matches!(
                singletable::size::check_item("Raw", &item(&attrs, max + 1)),
                Err(Error::ItemTooLarge { size, .. }) if size == MAX_ITEM_BYTES + 1
            ),
            "{backend}, {name}: one byte more is refused before sending"
        );
    }
}

fn bulky(pad: usize) -> Bulky {
    let mut flags = HashMap::new();
    for i in 0..5_000 {
        flags.insert(format!("f{i}"), i % 3 == 0);
    }
    Bulky {
        id: "b1".into(),
        tags: vec!["t".into(); 40_000],
        amounts: vec![-1.5; 20_000],
        flags,
        grid: (0..1_000).map(|i| vec![i, -i, i * 1_000_003]).collect(),
        codes: (-500..500).collect(),
        pad: "p".repeat(pad),
    }
}

/// Through the typed API: the largest `Bulky` that `put` accepts is the
/// largest DynamoDB stores; one byte more is refused before sending, by
/// `put` and by a batch put (which would otherwise fail the whole batch).
async fn typed_boundary<E: Executor>(db: &Db<E>, backend: &str) {
    let predicted = MAX_ITEM_BYTES - item_size(&bulky(0).to_item().unwrap());
    let max = boundary(predicted - 1_000, predicted + 1_000, |pad| async move {
        match db.put(&bulky(pad)).await {
            Ok(()) => true,
            Err(Error::ItemTooLarge { .. }) => false,
            Err(e) => panic!("{backend}: unexpected error: {e}"),
        }
    })
    .await;
    let at = bulky(max).to_item().unwrap();
    assert_eq!(item_size(&at), MAX_ITEM_BYTES, "{backend}");
    assert!(
        stores(db, at).await,
        "{backend}: DynamoDB stores the largest accepted item"
    );
    assert!(
        !stores(db, bulky(max + 1).to_item().unwrap()).await,
        "{backend}: DynamoDB refuses one byte more, as the check does"
    );
    let batch = db.batch_write().put(&bulky(max + 1)).execute().await;
    assert!(
        matches!(batch, Err(Error::ItemTooLarge { .. })),
        "{backend}: {batch:?}"
    );
    let read = db.get::<Bulky>(Bulky::key("b1").unwrap()).await.unwrap();
    assert_eq!(read, Some(bulky(max)), "{backend}");
}

#[tokio::test]
async fn size_check_agrees_with_dynamodb_local_at_the_boundary() {
    let local = fresh_db::<SizeTable>("sizes").await;
    raw_boundaries(&local, "DynamoDB Local").await;
    typed_boundary(&local, "DynamoDB Local").await;
    let embedded = Db::<singletable::Embedded>::in_memory::<SizeTable>("Sizes").unwrap();
    raw_boundaries(&embedded, "embedded").await;
    typed_boundary(&embedded, "embedded").await;
}
