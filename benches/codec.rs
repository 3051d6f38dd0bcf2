//! The item and key codecs against serde_dynamo and hand-written code.
//!
//! Run with `cargo bench --bench codec`. Every group measures its functions
//! in one run, so the ratios between them are what to read; absolute times
//! move with the machine.
//!
//! The entity has 11 attributes (strings, `u32`/`i64`/`u64`, `f64`, `bool`,
//! `Option<String>`, a `StrEnum`, `Vec<String>`, `BTreeSet<String>`) and is
//! stored with its table key, one index key and its entity type: 16
//! attributes in all. serde_dynamo and the hand-written code produce and read
//! that same item: for serde_dynamo the key attributes are added after
//! `to_item`, the way an application would.

use std::collections::BTreeSet;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use singletable::{AttributeValue, Entity, Item, StrEnum, Table};

#[derive(Table)]
#[table(name = "BenchTable", gsi1)]
pub struct BenchTable;

#[derive(StrEnum, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Pending,
    Shipped,
    Delivered,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = BenchTable, name = "Order", rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
#[pk("ORDER#<order_id>")]
#[sk("DETAILS")]
#[gsi1(pk = "USER#<user_id>", sk = "ORDER#<created_at>")]
pub struct Order {
    pub order_id: String,
    pub user_id: String,
    pub quantity: u32,
    pub created_at: i64,
    pub version: u64,
    pub total: f64,
    pub gift: bool,
    pub note: Option<String>,
    pub status: Status,
    pub tags: Vec<String>,
    #[serde(with = "serde_dynamo::string_set")]
    pub labels: BTreeSet<String>,
}

fn sample() -> Order {
    Order {
        order_id: "o-20240501-000042".into(),
        user_id: "u-ana-7f3c".into(),
        quantity: 3,
        created_at: 1_714_564_800_000,
        version: 17,
        total: 129.95,
        gift: true,
        note: Some("leave at the door, ring twice".into()),
        status: Status::Shipped,
        tags: vec!["express".into(), "fragile".into(), "eu".into()],
        labels: ["priority", "reviewed"]
            .into_iter()
            .map(String::from)
            .collect(),
    }
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The key attributes an application adds itself when it encodes with
/// serde_dynamo or by hand.
fn insert_keys(item: &mut Item, o: &Order) {
    item.insert("PK".into(), s(format!("ORDER#{}", o.order_id)));
    item.insert("SK".into(), s("DETAILS"));
    item.insert("GSI1PK".into(), s(format!("USER#{}", o.user_id)));
    item.insert("GSI1SK".into(), s(format!("ORDER#{:019}", o.created_at)));
    item.insert("entityType".into(), s("Order"));
}

fn serde_dynamo_to_item(o: &Order) -> Item {
    let mut item: Item = serde_dynamo::to_item(o).expect("serde_dynamo encodes");
    insert_keys(&mut item, o);
    item
}

fn hand_to_item(o: &Order) -> Item {
    let mut item = Item::with_capacity(16);
    insert_keys(&mut item, o);
    item.insert("orderId".into(), s(o.order_id.clone()));
    item.insert("userId".into(), s(o.user_id.clone()));
    item.insert("quantity".into(), n(o.quantity));
    item.insert("createdAt".into(), n(o.created_at));
    item.insert("version".into(), n(o.version));
    item.insert("total".into(), n(o.total));
    item.insert("gift".into(), AttributeValue::Bool(o.gift));
    if let Some(note) = &o.note {
        item.insert("note".into(), s(note.clone()));
    }
    item.insert("status".into(), s(o.status.as_str()));
    item.insert(
        "tags".into(),
        AttributeValue::L(o.tags.iter().cloned().map(AttributeValue::S).collect()),
    );
    if !o.labels.is_empty() {
        item.insert(
            "labels".into(),
            AttributeValue::Ss(o.labels.iter().cloned().collect()),
        );
    }
    item
}

fn hand_into_item(o: Order) -> Item {
    let mut item = Item::with_capacity(16);
    insert_keys(&mut item, &o);
    item.insert("orderId".into(), s(o.order_id));
    item.insert("userId".into(), s(o.user_id));
    item.insert("quantity".into(), n(o.quantity));
    item.insert("createdAt".into(), n(o.created_at));
    item.insert("version".into(), n(o.version));
    item.insert("total".into(), n(o.total));
    item.insert("gift".into(), AttributeValue::Bool(o.gift));
    if let Some(note) = o.note {
        item.insert("note".into(), s(note));
    }
    item.insert("status".into(), s(o.status.as_str()));
    item.insert(
        "tags".into(),
        AttributeValue::L(o.tags.into_iter().map(AttributeValue::S).collect()),
    );
    if !o.labels.is_empty() {
        item.insert(
            "labels".into(),
            AttributeValue::Ss(o.labels.into_iter().collect()),
        );
    }
    item
}

/// Hand-written decoding, as careful as the derive: checks the entity type,
/// every attribute's type, and parses numbers.
fn hand_from_item(mut item: Item) -> Option<Order> {
    fn take_s(item: &mut Item, k: &str) -> Option<String> {
        match item.remove(k)? {
            AttributeValue::S(v) => Some(v),
            _ => None,
        }
    }
    fn take_n<T: std::str::FromStr>(item: &mut Item, k: &str) -> Option<T> {
        match item.remove(k)? {
            AttributeValue::N(v) => v.parse().ok(),
            _ => None,
        }
    }
    if take_s(&mut item, "entityType")? != "Order" {
        return None;
    }
    Some(Order {
        order_id: take_s(&mut item, "orderId")?,
        user_id: take_s(&mut item, "userId")?,
        quantity: take_n(&mut item, "quantity")?,
        created_at: take_n(&mut item, "createdAt")?,
        version: take_n(&mut item, "version")?,
        total: take_n(&mut item, "total")?,
        gift: match item.remove("gift")? {
            AttributeValue::Bool(b) => b,
            _ => return None,
        },
        note: match item.remove("note") {
            Some(AttributeValue::S(v)) => Some(v),
            None | Some(AttributeValue::Null(_)) => None,
            Some(_) => return None,
        },
        status: match take_s(&mut item, "status")?.as_str() {
            "PENDING" => Status::Pending,
            "SHIPPED" => Status::Shipped,
            "DELIVERED" => Status::Delivered,
            _ => return None,
        },
        tags: match item.remove("tags")? {
            AttributeValue::L(l) => l
                .into_iter()
                .map(|v| match v {
                    AttributeValue::S(s) => Some(s),
                    _ => None,
                })
                .collect::<Option<_>>()?,
            _ => return None,
        },
        labels: match item.remove("labels") {
            Some(AttributeValue::Ss(v)) => v.into_iter().collect(),
            None => BTreeSet::new(),
            Some(_) => return None,
        },
    })
}

/// The three encoders must agree before their times mean anything.
fn check_agreement(order: &Order) {
    let ours = order.to_item().expect("singletable encodes");
    assert_eq!(
        ours,
        serde_dynamo_to_item(order),
        "serde_dynamo item differs"
    );
    assert_eq!(ours, hand_to_item(order), "hand-written item differs");
    assert_eq!(ours, order.clone().into_item().expect("into_item"));
    assert_eq!(ours, hand_into_item(order.clone()));
    assert_eq!(&Order::from_item(ours.clone()).expect("decodes"), order);
    let via_serde: Order = serde_dynamo::from_item(ours.clone()).expect("serde_dynamo decodes");
    assert_eq!(&via_serde, order);
    assert_eq!(hand_from_item(ours).as_ref(), Some(order));
}

/// Inputs are prepared and outputs dropped outside the timed section, in
/// batches small enough to stay in cache: criterion's `SmallInput` keeps
/// thousands of items alive per batch, and then the allocator's page faults
/// and consolidation, not the codec, dominate every function alike.
const BATCH: BatchSize = BatchSize::NumIterations(64);

fn encode(c: &mut Criterion) {
    let order = sample();
    check_agreement(&order);

    let mut g = c.benchmark_group("encode/to_item");
    g.bench_function("singletable", |b| {
        b.iter_batched(
            || (),
            |()| black_box(&order).to_item().expect("encodes"),
            BATCH,
        )
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(|| (), |()| serde_dynamo_to_item(black_box(&order)), BATCH)
    });
    g.bench_function("hand_written", |b| {
        b.iter_batched(|| (), |()| hand_to_item(black_box(&order)), BATCH)
    });
    g.finish();

    let mut g = c.benchmark_group("encode/into_item");
    g.bench_function("singletable", |b| {
        b.iter_batched(|| order.clone(), |o| o.into_item().expect("encodes"), BATCH)
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || order.clone(),
            |o| {
                let mut item: Item = serde_dynamo::to_item(&o).expect("encodes");
                insert_keys(&mut item, &o);
                item
            },
            BATCH,
        )
    });
    g.bench_function("hand_written", |b| {
        b.iter_batched(|| order.clone(), hand_into_item, BATCH)
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let item = sample().to_item().expect("encodes");

    // The input map is cloned in the untimed setup, identically for all three.
    let mut g = c.benchmark_group("decode/from_item");
    g.bench_function("singletable", |b| {
        b.iter_batched(
            || item.clone(),
            |i| Order::from_item(i).expect("decodes"),
            BATCH,
        )
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || item.clone(),
            |i| serde_dynamo::from_item::<_, Order>(i).expect("decodes"),
            BATCH,
        )
    });
    g.bench_function("hand_written", |b| {
        b.iter_batched(
            || item.clone(),
            |i| hand_from_item(i).expect("decodes"),
            BATCH,
        )
    });
    g.finish();
}

fn keys(c: &mut Criterion) {
    let order = sample();
    let id = order.order_id.as_str();
    let user = order.user_id.as_str();

    let mut g = c.benchmark_group("key/pk");
    g.bench_function("singletable", |b| {
        b.iter(|| Order::pk(black_box(id)).expect("key"))
    });
    g.bench_function("format", |b| b.iter(|| format!("ORDER#{}", black_box(id))));
    g.finish();

    let mut g = c.benchmark_group("key/primary_key");
    g.bench_function("singletable", |b| {
        b.iter(|| Order::key(black_box(id)).expect("key"))
    });
    g.bench_function("format", |b| {
        b.iter(|| (format!("ORDER#{}", black_box(id)), "DETAILS".to_owned()))
    });
    g.finish();

    let mut g = c.benchmark_group("key/gsi1_pk");
    g.bench_function("singletable", |b| {
        b.iter(|| Order::gsi1_pk(black_box(user)).expect("key"))
    });
    g.bench_function("format", |b| b.iter(|| format!("USER#{}", black_box(user))));
    g.finish();
}

criterion_group!(benches, encode, decode, keys);
criterion_main!(benches);
