//! The item codec `#[derive(Entity)]` and `#[derive(Document)]` generate:
//! every supported type round-trips with the DynamoDB type the docs promise,
//! key and index attributes are written as declared, and malformed items,
//! unstorable values and failed validations are typed errors, never panics.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde::{Deserialize, Serialize};
use singletable::{
    AttributeValue, Blob, DecodeErrorKind, Document, Entity, Error, Item, StrEnum, Table,
};
use singletable_runtime::value::type_name;

mod malformed;

#[derive(Table)]
#[table(name = "ItemCodecTable", gsi1, gsi2)]
pub struct ItemTable;

#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mood {
    Calm,
    InTransit,
    #[str_enum(rename = "so#odd%")]
    Odd,
}

#[derive(Document, Debug, Clone, PartialEq)]
#[document(rename_all = "camelCase")]
pub struct Address {
    pub street_name: String,
    pub zip_code: Option<u32>,
    pub geo: Geo,
    pub lines: Vec<String>,
}

#[derive(Document, Debug, Clone, PartialEq)]
pub struct Geo {
    pub level: u8,
    pub lat: f64,
}

/// Only serde knows how to store these.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Shape {
    Circle { radius: u32 },
    Square(u16),
    Dot,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SerdeOnly {
    pub label: String,
    pub shape: Shape,
    pub weights: Vec<u16>,
}

fn default_region() -> String {
    "eu-west-1".into()
}

/// One field of every supported kind.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ItemTable, name = "Kitchen", rename_all = "camelCase")]
#[pk("KITCHEN#<id>")]
#[sk("V#<version>")]
#[gsi1(pk = "OWNER#<owner>", sk = "KITCHEN#<id>#V#<version>")]
#[gsi2(pk = "PUBLISHED#<mood>", sk = "AT#<stamp>", when = published)]
pub struct Kitchen {
    pub id: String,
    pub version: u32,
    pub owner: String,
    pub published: bool,
    pub stamp: i64,
    pub text: String,
    pub flag: bool,
    pub small_u8: u8,
    pub small_u16: u16,
    pub mid_u32: u32,
    pub big_u64: u64,
    pub huge_u128: u128,
    pub size_usize: usize,
    pub small_i8: i8,
    pub small_i16: i16,
    pub mid_i32: i32,
    pub big_i64: i64,
    pub huge_i128: i128,
    pub size_isize: isize,
    pub ratio_f32: f32,
    pub ratio_f64: f64,
    pub maybe_text: Option<String>,
    pub maybe_num: Option<i32>,
    pub maybe_address: Option<Address>,
    pub numbers: Vec<i16>,
    pub floats: Vec<f64>,
    pub addresses: Vec<Address>,
    pub nested_lists: Vec<Vec<Option<u8>>>,
    pub tag_lists: Vec<BTreeSet<String>>,
    pub payload: Blob,
    pub tags: BTreeSet<String>,
    pub labels: HashSet<String>,
    pub scores: BTreeSet<i64>,
    pub counts: HashMap<String, u64>,
    pub groups: BTreeMap<String, Vec<String>>,
    pub address: Address,
    pub mood: Mood,
    #[attr(serde)]
    pub extra: SerdeOnly,
    #[attr(rename = "legacy_name")]
    pub renamed: String,
    #[attr(skip)]
    pub cache: u32,
    #[attr(default)]
    pub counter: u16,
    #[attr(default = default_region)]
    pub region: String,
}

/// Each stored attribute of `Kitchen` with its DynamoDB type.
const KITCHEN_ATTRS: &[(&str, &str)] = &[
    ("id", "S"),
    ("version", "N"),
    ("owner", "S"),
    ("published", "BOOL"),
    ("stamp", "N"),
    ("text", "S"),
    ("flag", "BOOL"),
    ("smallU8", "N"),
    ("smallU16", "N"),
    ("midU32", "N"),
    ("bigU64", "N"),
    ("hugeU128", "N"),
    ("sizeUsize", "N"),
    ("smallI8", "N"),
    ("smallI16", "N"),
    ("midI32", "N"),
    ("bigI64", "N"),
    ("hugeI128", "N"),
    ("sizeIsize", "N"),
    ("ratioF32", "N"),
    ("ratioF64", "N"),
    ("maybeText", "S"),
    ("maybeNum", "N"),
    ("maybeAddress", "M"),
    ("numbers", "L"),
    ("floats", "L"),
    ("addresses", "L"),
    ("nestedLists", "L"),
    ("tagLists", "L"),
    ("payload", "B"),
    ("tags", "SS"),
    ("labels", "SS"),
    ("scores", "NS"),
    ("counts", "M"),
    ("groups", "M"),
    ("address", "M"),
    ("mood", "S"),
    ("extra", "M"),
    ("legacy_name", "S"),
    ("counter", "N"),
    ("region", "S"),
    ("PK", "S"),
    ("SK", "S"),
    ("GSI1PK", "S"),
    ("GSI1SK", "S"),
    ("GSI2PK", "S"),
    ("GSI2SK", "S"),
    ("entityType", "S"),
];

/// Attributes left out of the item when the value is `None`, an empty set,
/// or the sparse index condition is false.
const OPTIONAL_ATTRS: &[&str] = &[
    "maybeText",
    "maybeNum",
    "maybeAddress",
    "tags",
    "labels",
    "scores",
    "GSI2PK",
    "GSI2SK",
];

fn address(street: &str) -> Address {
    Address {
        street_name: street.into(),
        zip_code: Some(1010),
        geo: Geo {
            level: 3,
            lat: 48.2,
        },
        lines: vec!["line 1".into(), String::new()],
    }
}

fn sample() -> Kitchen {
    Kitchen {
        id: "k#1".into(),
        version: 7,
        owner: "ana@example.com".into(),
        published: true,
        stamp: -5,
        text: "héllo".into(),
        flag: true,
        small_u8: u8::MAX,
        small_u16: u16::MAX,
        mid_u32: u32::MAX,
        big_u64: u64::MAX,
        huge_u128: 10u128.pow(37),
        size_usize: 12,
        small_i8: i8::MIN,
        small_i16: i16::MIN,
        mid_i32: i32::MIN,
        big_i64: i64::MIN,
        huge_i128: -(10i128.pow(37)),
        size_isize: -12,
        ratio_f32: 0.1,
        ratio_f64: -2.5e-7,
        maybe_text: Some("there".into()),
        maybe_num: Some(-3),
        maybe_address: Some(address("Ring")),
        numbers: vec![1, -2, 3],
        floats: vec![0.5, 1e100],
        addresses: vec![address("A"), address("B")],
        nested_lists: vec![vec![Some(1), None], vec![]],
        tag_lists: vec![["t".to_owned()].into()],
        payload: Blob::new(vec![0u8, 255, 7]),
        tags: ["a".to_owned(), "b".to_owned()].into(),
        labels: ["x".to_owned()].into(),
        scores: [-1, 0, i64::MAX].into(),
        counts: [("one".to_owned(), 1)].into(),
        groups: [("g".to_owned(), vec!["m".to_owned()])].into(),
        address: address("Main"),
        mood: Mood::Odd,
        extra: SerdeOnly {
            label: "serde".into(),
            shape: Shape::Circle { radius: 4 },
            weights: vec![1, 2],
        },
        renamed: "old".into(),
        cache: 0,
        counter: 9,
        region: "us-east-1".into(),
    }
}

/// Sorts the members of sets, which DynamoDB treats as unordered.
fn normalize(v: &AttributeValue) -> AttributeValue {
    match v {
        AttributeValue::Ss(s) => AttributeValue::Ss(sorted(s)),
        AttributeValue::Ns(s) => AttributeValue::Ns(sorted(s)),
        AttributeValue::L(l) => AttributeValue::L(l.iter().map(normalize).collect()),
        AttributeValue::M(m) => AttributeValue::M(normalize_item(m)),
        other => other.clone(),
    }
}

fn sorted(s: &[String]) -> Vec<String> {
    let mut s = s.to_vec();
    s.sort();
    s
}

fn normalize_item(item: &Item) -> Item {
    item.iter()
        .map(|(k, v)| (k.clone(), normalize(v)))
        .collect()
}

fn s(item: &Item, name: &str) -> String {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => panic!("`{name}` should be an S attribute, found {other:?}"),
    }
}

/// Everything the codec promises about one value's item.
fn check_item(k: &Kitchen) {
    let item = k.to_item().unwrap();
    let owned = k.clone().into_item().unwrap();
    assert_eq!(
        normalize_item(&item),
        normalize_item(&owned),
        "to_item vs into_item"
    );

    // Exactly the stored attributes, with their DynamoDB types.
    for (name, ty) in KITCHEN_ATTRS {
        match item.get(*name) {
            Some(v) => assert_eq!(type_name(v), *ty, "type of `{name}`: {v:?}"),
            None => assert!(OPTIONAL_ATTRS.contains(name), "`{name}` missing: {item:?}"),
        }
    }
    for name in item.keys() {
        assert!(
            KITCHEN_ATTRS.iter().any(|(n, _)| n == name),
            "unexpected attribute `{name}`"
        );
    }
    assert!(!item.contains_key("cache") && !item.contains_key("renamed"));
    assert_eq!(item.contains_key("maybeText"), k.maybe_text.is_some());
    assert_eq!(item.contains_key("maybeNum"), k.maybe_num.is_some());
    assert_eq!(item.contains_key("maybeAddress"), k.maybe_address.is_some());
    assert_eq!(item.contains_key("tags"), !k.tags.is_empty());
    assert_eq!(item.contains_key("labels"), !k.labels.is_empty());
    assert_eq!(item.contains_key("scores"), !k.scores.is_empty());

    // Key attributes and the entity type.
    assert_eq!(s(&item, "PK"), Kitchen::pk(&k.id).unwrap());
    assert_eq!(s(&item, "SK"), Kitchen::sk(k.version).unwrap());
    assert_eq!(s(&item, "GSI1PK"), Kitchen::gsi1_pk(&k.owner).unwrap());
    assert_eq!(
        s(&item, "GSI1SK"),
        Kitchen::gsi1_sk(&k.id, k.version).unwrap()
    );
    assert_eq!(s(&item, "entityType"), "Kitchen");
    assert_eq!(Kitchen::parse_pk(&s(&item, "PK")).unwrap(), k.id);
    // The sparse index is written only while its condition holds.
    if k.published {
        assert_eq!(s(&item, "GSI2PK"), Kitchen::gsi2_pk(&k.mood).unwrap());
        assert_eq!(s(&item, "GSI2SK"), Kitchen::gsi2_sk(k.stamp).unwrap());
    } else {
        assert!(!item.contains_key("GSI2PK") && !item.contains_key("GSI2SK"));
    }

    // Numbers are written as DynamoDB reads them.
    let n = |name: &str| match &item[name] {
        AttributeValue::N(n) => n.clone(),
        other => panic!("`{name}` should be N, found {other:?}"),
    };
    assert_eq!(n("bigU64"), k.big_u64.to_string());
    assert_eq!(n("hugeI128"), k.huge_i128.to_string());
    assert_eq!(n("ratioF64").parse::<f64>().unwrap(), k.ratio_f64);
    assert_eq!(s(&item, "mood"), k.mood.as_str());
    assert_eq!(s(&item, "legacy_name"), k.renamed);

    let mut expected = k.clone();
    expected.cache = 0;
    assert_eq!(Kitchen::from_item(item).unwrap(), expected);
    assert_eq!(Kitchen::from_item(owned).unwrap(), expected);
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "\\PC{0,12}",
        1 => prop::sample::select(vec!["", "#", "%23", "NULL", "true", "1e3", "🦀"]).prop_map(String::from),
    ]
}

fn key_text() -> impl Strategy<Value = String> {
    "\\PC{1,12}"
}

/// Finite floats inside DynamoDB's number range, edges included.
fn float64() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => prop::sample::select(vec![0.0, -0.0, 1e-130, -1e-130, 9.99e125, f64::EPSILON, 0.1, 1.0 / 3.0]),
        4 => any::<f64>().prop_filter("storable", |x| {
            x.is_finite() && (*x == 0.0 || (x.abs() >= 1e-130 && x.abs() < 1e126))
        }),
    ]
}

fn float32() -> impl Strategy<Value = f32> {
    prop_oneof![
        1 => prop::sample::select(vec![0.0f32, f32::MIN_POSITIVE, f32::MAX, f32::MIN, 0.1]),
        4 => any::<f32>().prop_filter("finite", |x| x.is_finite()),
    ]
}

/// DynamoDB keeps 38 significant digits: every 128-bit integer below 10^38
/// in magnitude, and larger ones with trailing zeros.
fn huge_u128() -> impl Strategy<Value = u128> {
    prop_oneof![
        4 => 0..10u128.pow(38),
        1 => prop::sample::select(vec![10u128.pow(38) - 1, 10u128.pow(38), 34 * 10u128.pow(37)]),
    ]
}

fn huge_i128() -> impl Strategy<Value = i128> {
    prop_oneof![
        4 => -(10i128.pow(38) - 1)..10i128.pow(38),
        1 => prop::sample::select(vec![-(10i128.pow(38)), 10i128.pow(38), -17 * 10i128.pow(37)]),
    ]
}

fn address_strategy() -> impl Strategy<Value = Address> {
    (
        text(),
        prop::option::of(any::<u32>()),
        any::<u8>(),
        float64(),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(street_name, zip_code, level, lat, lines)| Address {
            street_name,
            zip_code,
            geo: Geo { level, lat },
            lines,
        })
}

fn mood() -> impl Strategy<Value = Mood> {
    prop::sample::select(Mood::VARIANTS.to_vec())
}

fn kitchen() -> impl Strategy<Value = Kitchen> {
    use prop::collection::{btree_map, btree_set, hash_map, hash_set, vec};
    let keys = (
        key_text(),
        any::<u32>(),
        key_text(),
        any::<bool>(),
        any::<i64>(),
        text(),
        any::<bool>(),
    );
    let ints = (
        (
            any::<u8>(),
            any::<u16>(),
            any::<u32>(),
            any::<u64>(),
            huge_u128(),
            any::<usize>(),
        ),
        (
            any::<i8>(),
            any::<i16>(),
            any::<i32>(),
            any::<i64>(),
            huge_i128(),
            any::<isize>(),
        ),
        float32(),
        float64(),
    );
    let containers = (
        prop::option::of(text()),
        prop::option::of(any::<i32>()),
        prop::option::of(address_strategy()),
        vec(any::<i16>(), 0..4),
        vec(float64(), 0..4),
        vec(address_strategy(), 0..3),
        vec(vec(prop::option::of(any::<u8>()), 0..3), 0..3),
        vec(btree_set("\\PC{1,6}", 1..3), 0..3),
        vec(any::<u8>(), 0..16).prop_map(Blob::new),
    );
    let collections = (
        btree_set("\\PC{1,6}", 0..4),
        hash_set("\\PC{1,6}", 0..4),
        btree_set(any::<i64>(), 0..4),
        hash_map("\\PC{0,6}", any::<u64>(), 0..4),
        btree_map("\\PC{0,6}", vec(text(), 0..3), 0..3),
        address_strategy(),
        mood(),
    );
    let shape = prop_oneof![
        any::<u32>().prop_map(|radius| Shape::Circle { radius }),
        any::<u16>().prop_map(Shape::Square),
        Just(Shape::Dot),
    ];
    let rest = (
        (text(), shape, vec(any::<u16>(), 0..3)).prop_map(|(label, shape, weights)| SerdeOnly {
            label,
            shape,
            weights,
        }),
        text(),
        any::<u16>(),
        text(),
    );
    (keys, ints, containers, collections, rest).prop_map(
        |(
            (id, version, owner, published, stamp, text, flag),
            (
                (small_u8, small_u16, mid_u32, big_u64, huge_u128, size_usize),
                (small_i8, small_i16, mid_i32, big_i64, huge_i128, size_isize),
                ratio_f32,
                ratio_f64,
            ),
            (
                maybe_text,
                maybe_num,
                maybe_address,
                numbers,
                floats,
                addresses,
                nested_lists,
                tag_lists,
                payload,
            ),
            (tags, labels, scores, counts, groups, address, mood),
            (extra, renamed, counter, region),
        )| Kitchen {
            id,
            version,
            owner,
            published,
            stamp,
            text,
            flag,
            small_u8,
            small_u16,
            mid_u32,
            big_u64,
            huge_u128,
            size_usize,
            small_i8,
            small_i16,
            mid_i32,
            big_i64,
            huge_i128,
            size_isize,
            ratio_f32,
            ratio_f64,
            maybe_text,
            maybe_num,
            maybe_address,
            numbers,
            floats,
            addresses,
            nested_lists,
            tag_lists,
            payload,
            tags,
            labels,
            scores,
            counts,
            groups,
            address,
            mood,
            extra,
            renamed,
            cache: 0,
            counter,
            region,
        },
    )
}

/// Runs `test` over `strategy` with shrinking, failing the test on the
/// smallest failing input.
fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value))
where
    S::Value: Debug,
{
    let mut runner = TestRunner::new(Config::with_cases(cases));
    if let Err(e) = runner.run(&strategy, |v| {
        test(v);
        Ok(())
    }) {
        panic!("{e}");
    }
}

#[test]
fn item_round_trips_all_supported_types() {
    let k = sample();
    check_item(&k);
    let item = k.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "KITCHEN#k%231");
    assert_eq!(s(&item, "SK"), "V#0000000007");
    assert_eq!(s(&item, "GSI1PK"), "OWNER#ana@example.com");
    assert_eq!(s(&item, "GSI1SK"), "KITCHEN#k%231#V#0000000007");
    assert_eq!(s(&item, "GSI2PK"), "PUBLISHED#so%23odd%25");
    assert_eq!(s(&item, "GSI2SK"), "AT#-9223372036854775803");
    assert_eq!(s(&item, "mood"), "so#odd%");
    assert_eq!(
        item["bigU64"],
        AttributeValue::N("18446744073709551615".into())
    );
    assert_eq!(item["smallI8"], AttributeValue::N("-128".into()));
    assert_eq!(item["ratioF32"], AttributeValue::N("0.1".into()));
    assert_eq!(item["published"], AttributeValue::Bool(true));
    assert_eq!(
        item["payload"],
        AttributeValue::B(Blob::new(vec![0u8, 255, 7]))
    );
    assert_eq!(
        normalize(&item["scores"]),
        AttributeValue::Ns(vec!["-1".into(), "0".into(), "9223372036854775807".into()])
    );
    assert_eq!(
        normalize(&item["tags"]),
        AttributeValue::Ss(vec!["a".into(), "b".into()])
    );
    assert_eq!(
        item["nestedLists"],
        AttributeValue::L(vec![
            AttributeValue::L(vec![
                AttributeValue::N("1".into()),
                AttributeValue::Null(true)
            ]),
            AttributeValue::L(vec![]),
        ])
    );
    let AttributeValue::M(address) = &item["address"] else {
        panic!("address is not M")
    };
    assert_eq!(address["streetName"], AttributeValue::S("Main".into()));
    assert_eq!(address["zipCode"], AttributeValue::N("1010".into()));
    assert!(
        matches!(&address["geo"], AttributeValue::M(g) if g["level"] == AttributeValue::N("3".into()))
    );
    // The serde-only field goes through serde_dynamo.
    assert_eq!(
        item["extra"],
        serde_dynamo::to_attribute_value::<_, AttributeValue>(&k.extra).unwrap()
    );

    // None, empty sets and a false sparse condition leave attributes out.
    let mut bare = sample();
    bare.published = false;
    bare.maybe_text = None;
    bare.maybe_num = None;
    bare.maybe_address = None;
    bare.tags.clear();
    bare.labels.clear();
    bare.scores.clear();
    check_item(&bare);
    let item = bare.to_item().unwrap();
    for name in OPTIONAL_ATTRS {
        assert!(!item.contains_key(*name), "`{name}` should be absent");
    }
    assert!(item.contains_key("GSI1PK") && item.contains_key("GSI1SK"));

    // NULL reads as None; absent defaults apply; the skipped field is Default.
    let mut item = sample().to_item().unwrap();
    item.insert("maybeText".into(), AttributeValue::Null(true));
    item.insert("maybeAddress".into(), AttributeValue::Null(true));
    item.remove("maybeNum");
    item.remove("counter");
    item.remove("region");
    item.remove("tags");
    let mut with_cache = sample();
    with_cache.cache = 99;
    let read = Kitchen::from_item(item).unwrap();
    assert_eq!(read.maybe_text, None);
    assert_eq!(read.maybe_address, None);
    assert_eq!(read.maybe_num, None);
    assert_eq!(read.counter, 0);
    assert_eq!(read.region, "eu-west-1");
    assert!(read.tags.is_empty());
    assert_eq!(read.cache, 0);
    assert!(!with_cache.to_item().unwrap().contains_key("cache"));

    check(256, kitchen(), |k| check_item(&k));
}
