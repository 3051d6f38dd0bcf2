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
    let batch = singletable::BatchWriter::new()
        .put(&bulky(max + 1))
        .execute(db)
        .await;
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

/// Multi-attribute index keys have limits of their own: an index's
/// partition attributes together at most 2048 bytes, its sort attributes
/// at most 1024, counted whether or not the item is in the index.
mod key_limits {
    use singletable::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
    use singletable::{AttributeValue, Blob, Db, Entity, Error, Executor, Item, Table};
    use singletable_runtime::size::key_bytes;

    use super::{boundary, s};
    use crate::support::{fresh_db, raw_put};

    #[derive(Table)]
    #[table(
        name = "KeyLimits",
        gsi1(pk(tenant = S, region = N), sk(status = S, at = N)),
        gsi2(pk(owner = S), sk(blob = B))
    )]
    pub struct KeyLimits;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = KeyLimits)]
    #[pk("T#<id>")]
    #[sk("T")]
    #[gsi1(pk(tenant, region), sk(status, at))]
    pub struct Ticket {
        pub id: String,
        pub tenant: String,
        pub region: u32,
        pub status: String,
        pub at: i64,
    }

    fn ticket(tenant: usize, status: usize) -> Ticket {
        Ticket {
            id: "t1".into(),
            tenant: "t".repeat(tenant),
            region: 12,
            status: "s".repeat(status),
            at: -1_234_567,
        }
    }

    fn raw(attrs: &[(&str, AttributeValue)]) -> Item {
        let mut item: Item = [("PK", s("T#raw")), ("SK", s("T"))]
            .map(|(k, v)| (k.to_owned(), v))
            .into();
        item.extend(attrs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        item
    }

    async fn stores<E: Executor>(db: &Db<E>, item: Item) -> bool {
        match raw_put(db, item).await {
            Ok(()) => true,
            Err(Error::Service { message, .. })
                if message.contains("Size limit exceeded")
                    || message.contains("has exceeded limit") =>
            {
                false
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    }

    /// A shape of key each backend is searched on: the attributes besides
    /// the one that grows, the growing one, the limit of its group and the
    /// group's attributes.
    struct Shape {
        name: &'static str,
        fixed: Vec<(&'static str, AttributeValue)>,
        grow: &'static str,
        value: fn(usize) -> AttributeValue,
        max: usize,
        group: &'static [&'static str],
    }

    fn shapes() -> Vec<Shape> {
        let st = |n| AttributeValue::S("x".repeat(n));
        let bin = |n| AttributeValue::B(Blob::new(vec![7u8; n]));
        let n = |v: &str| AttributeValue::N(v.into());
        vec![
            Shape {
                name: "one partition attribute",
                fixed: vec![],
                grow: "tenant",
                value: st,
                max: MAX_PARTITION_KEY_BYTES,
                group: &["tenant", "region"],
            },
            Shape {
                name: "partition string beside a number",
                fixed: vec![("region", n("-12.5"))],
                grow: "tenant",
                value: st,
                max: MAX_PARTITION_KEY_BYTES,
                group: &["tenant", "region"],
            },
            Shape {
                name: "sort string beside a 38-digit number",
                fixed: vec![("at", n("12345678901234567890123456789012345678"))],
                grow: "status",
                value: st,
                max: MAX_SORT_KEY_BYTES,
                group: &["status", "at"],
            },
            Shape {
                name: "sort binary",
                fixed: vec![("owner", s("o"))],
                grow: "blob",
                value: bin,
                max: MAX_SORT_KEY_BYTES,
                group: &["blob"],
            },
        ]
    }

    async fn raw_limits<E: Executor>(db: &Db<E>, backend: &str) {
        for shape in shapes() {
            let at = |n: usize| {
                let mut attrs = shape.fixed.clone();
                attrs.push((shape.grow, (shape.value)(n)));
                raw(&attrs)
            };
            let largest = boundary(1, shape.max + 100, |n| stores(db, at(n))).await;
            assert_eq!(
                key_bytes(&at(largest), shape.group.iter().copied()),
                shape.max,
                "{backend}, {}: the largest key stored measures exactly the limit",
                shape.name
            );
        }
    }

    /// Through the typed API: the largest ticket `put` accepts is the
    /// largest DynamoDB stores, and one byte more is refused before
    /// sending, by puts and updates.
    async fn typed_limits<E: Executor>(db: &Db<E>, backend: &str) {
        let largest = boundary(1, 3_000, |n| async move {
            match db.put(&ticket(n, 1)).await {
                Ok(()) => true,
                Err(Error::IndexKeyTooLong {
                    part: "partition",
                    max: 2048,
                    ..
                }) => false,
                Err(e) => panic!("{backend}: unexpected error: {e}"),
            }
        })
        .await;
        let item = ticket(largest, 1).to_item().unwrap();
        assert_eq!(
            key_bytes(&item, ["tenant", "region"]),
            MAX_PARTITION_KEY_BYTES,
            "{backend}"
        );
        let mut over = item.clone();
        over.insert("tenant".into(), s(&"t".repeat(largest + 1)));
        assert!(
            stores(db, item).await,
            "{backend}: DynamoDB stores the largest accepted key"
        );
        assert!(
            !stores(db, over).await,
            "{backend}: DynamoDB refuses one byte more, as the check does"
        );
        let sort = boundary(
            1,
            2_000,
            |n| async move { db.put(&ticket(1, n)).await.is_ok() },
        )
        .await;
        let item = ticket(1, sort).to_item().unwrap();
        assert_eq!(
            key_bytes(&item, ["status", "at"]),
            MAX_SORT_KEY_BYTES,
            "{backend}"
        );
        let update = Ticket::update("t1")
            .set(Ticket::fields().status, "s".repeat(MAX_SORT_KEY_BYTES + 1))
            .execute(db)
            .await;
        assert!(
            matches!(
                update,
                Err(Error::IndexKeyTooLong {
                    index: "GSI1",
                    part: "sort",
                    ..
                })
            ),
            "{backend}: {update:?}"
        );
    }

    #[tokio::test]
    async fn multi_attribute_key_limits_agree_with_dynamodb_local() {
        let local = fresh_db::<KeyLimits>("key-limits").await;
        raw_limits(&local, "DynamoDB Local").await;
        typed_limits(&local, "DynamoDB Local").await;
        let embedded = Db::<singletable::Embedded>::in_memory::<KeyLimits>("KeyLimits").unwrap();
        raw_limits(&embedded, "embedded").await;
        typed_limits(&embedded, "embedded").await;
    }
}
