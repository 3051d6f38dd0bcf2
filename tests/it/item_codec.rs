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

/// Decodes `item`, expecting `Error::Decode` at `path` with a matching kind.
fn decode_fails(item: Item, path: &str, kind: impl Fn(&DecodeErrorKind) -> bool) {
    let err = match Kitchen::from_item(item) {
        Err(e) => e,
        Ok(k) => panic!("decoding should fail at `{path}`, got {k:?}"),
    };
    let message = err.to_string();
    match &err {
        Error::Decode { entity, source } => {
            assert_eq!(*entity, "Kitchen");
            assert_eq!(source.path(), path, "{message}");
            assert!(kind(source.kind()), "unexpected kind: {message}");
        }
        other => panic!("expected Error::Decode at `{path}`, got {other:?}"),
    }
    assert!(message.contains("`Kitchen`"), "{message}");
    assert!(message.contains(&format!("`{path}`")), "{message}");
}

fn with(name: &str, value: AttributeValue) -> Item {
    let mut item = sample().to_item().unwrap();
    item.insert(name.into(), value);
    item
}

fn without(name: &str) -> Item {
    let mut item = sample().to_item().unwrap();
    assert!(item.remove(name).is_some(), "`{name}` is not in the sample");
    item
}

fn n(text: &str) -> AttributeValue {
    AttributeValue::N(text.into())
}

fn str_attr(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

/// The sample's `address` with one nested attribute replaced.
fn address_with(path: &[&str], value: AttributeValue) -> AttributeValue {
    fn set(v: &mut AttributeValue, path: &[&str], value: AttributeValue) {
        let AttributeValue::M(m) = v else {
            panic!("not a map")
        };
        match path {
            [last] => {
                m.insert((*last).into(), value);
            }
            [first, rest @ ..] => set(m.get_mut(*first).unwrap(), rest, value),
            [] => unreachable!(),
        }
    }
    let mut address = sample().to_item().unwrap().remove("address").unwrap();
    set(&mut address, path, value);
    address
}

fn encode_fails(k: &Kitchen, path: &str) {
    for result in [k.to_item(), k.clone().into_item()] {
        match result {
            Err(Error::Encode { entity, source }) => {
                assert_eq!(entity, "Kitchen");
                assert_eq!(source.path(), path);
            }
            other => panic!("expected Error::Encode at `{path}`, got {other:?}"),
        }
    }
}

fn no_spaces(slug: &str) -> Result<(), String> {
    if slug.contains(' ') {
        Err("must not contain spaces".into())
    } else {
        Ok(())
    }
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ItemTable, name = "Checked")]
#[pk("CHECKED#<id>")]
#[sk("CHECKED")]
pub struct Checked {
    pub id: String,
    #[attr(min_len = 1, max_len = 5)]
    pub name: String,
    #[attr(min = 1, max = 10)]
    pub level: u8,
    #[attr(validate = no_spaces)]
    pub slug: String,
    #[attr(min_len = 1)]
    pub items: Vec<u8>,
}

fn validation_fails(c: &Checked, field: &str, message: &str) {
    for result in [c.to_item(), c.clone().into_item()] {
        match result {
            Err(Error::Validation {
                entity: "Checked",
                field: f,
                message: m,
            }) if f == field && m.contains(message) => {}
            other => panic!("expected a validation error on `{field}`, got {other:?}"),
        }
    }
    assert!(c.validate().is_err());
}

#[test]
fn malformed_items_are_errors_not_panics() {
    let missing = |k: &DecodeErrorKind| matches!(k, DecodeErrorKind::Missing);
    let wrong_type = |k: &DecodeErrorKind| matches!(k, DecodeErrorKind::WrongType { .. });
    let out_of_range = |k: &DecodeErrorKind| matches!(k, DecodeErrorKind::OutOfRange { .. });
    let invalid_number = |k: &DecodeErrorKind| matches!(k, DecodeErrorKind::InvalidNumber { .. });
    let invalid = |k: &DecodeErrorKind| matches!(k, DecodeErrorKind::Invalid(_));

    // Missing attributes, including in nested documents and the serde field.
    decode_fails(without("text"), "text", missing);
    decode_fails(without("smallU8"), "smallU8", missing);
    decode_fails(without("address"), "address", missing);
    decode_fails(without("extra"), "extra", missing);
    decode_fails(without("legacy_name"), "legacy_name", missing);
    decode_fails(
        with("address", {
            let AttributeValue::M(mut m) = address_with(&["geo", "level"], n("1")) else {
                unreachable!()
            };
            m.remove("streetName");
            AttributeValue::M(m)
        }),
        "address.streetName",
        missing,
    );

    // Wrong DynamoDB types.
    decode_fails(with("flag", str_attr("true")), "flag", wrong_type);
    decode_fails(with("text", n("1")), "text", wrong_type);
    decode_fails(with("smallU8", str_attr("1")), "smallU8", wrong_type);
    decode_fails(with("text", AttributeValue::Null(true)), "text", wrong_type);
    decode_fails(
        with("numbers", AttributeValue::Ss(vec!["1".into()])),
        "numbers",
        wrong_type,
    );
    decode_fails(
        with("tags", AttributeValue::Ns(vec!["1".into()])),
        "tags",
        wrong_type,
    );
    decode_fails(
        with("scores", AttributeValue::Ss(vec!["1".into()])),
        "scores",
        wrong_type,
    );
    decode_fails(with("payload", str_attr("AAE=")), "payload", wrong_type);
    decode_fails(
        with("counts", AttributeValue::L(vec![])),
        "counts",
        wrong_type,
    );
    decode_fails(with("address", str_attr("Main")), "address", wrong_type);
    decode_fails(with("mood", n("1")), "mood", wrong_type);
    decode_fails(with("maybeNum", str_attr("1")), "maybeNum", wrong_type);

    // Numbers that do not fit, or are not integers, or are not finite.
    decode_fails(with("smallU8", n("300")), "smallU8", out_of_range);
    decode_fails(with("smallU8", n("-1")), "smallU8", out_of_range);
    decode_fails(with("midU32", n("-1")), "midU32", out_of_range);
    decode_fails(with("smallI8", n("-129")), "smallI8", out_of_range);
    decode_fails(
        with("bigU64", n("18446744073709551616")),
        "bigU64",
        out_of_range,
    );
    decode_fails(
        with("hugeU128", n("1".repeat(40).as_str())),
        "hugeU128",
        out_of_range,
    );
    decode_fails(with("midI32", n("1.5")), "midI32", invalid_number);
    decode_fails(with("midI32", n("1e3")), "midI32", invalid_number);
    decode_fails(with("midI32", n("")), "midI32", invalid_number);
    decode_fails(with("midI32", n("abc")), "midI32", invalid_number);
    for bad in ["NaN", "nan", "inf", "-inf", "infinity", "1e400", "x"] {
        decode_fails(with("ratioF64", n(bad)), "ratioF64", invalid_number);
        decode_fails(with("ratioF32", n(bad)), "ratioF32", invalid_number);
    }

    // The entity type: another entity's item, or none at all.
    decode_fails(
        with("entityType", str_attr("Order")),
        "entityType",
        |k| matches!(k, DecodeErrorKind::EntityType { expected: "Kitchen", found } if found == "Order"),
    );
    decode_fails(without("entityType"), "entityType", missing);
    decode_fails(with("entityType", n("1")), "entityType", wrong_type);

    // Bad nested documents, enum strings, list elements, map entries, sets.
    decode_fails(
        with("address", address_with(&["zipCode"], str_attr("1010"))),
        "address.zipCode",
        wrong_type,
    );
    decode_fails(
        with("address", address_with(&["geo", "level"], n("999"))),
        "address.geo.level",
        out_of_range,
    );
    decode_fails(
        with("address", address_with(&["geo"], AttributeValue::L(vec![]))),
        "address.geo",
        wrong_type,
    );
    decode_fails(
        with("maybeAddress", address_with(&["geo", "lat"], n("NaN"))),
        "maybeAddress.geo.lat",
        invalid_number,
    );
    decode_fails(with("mood", str_attr("ANGRY")), "mood", invalid);
    decode_fails(with("mood", str_attr("calm")), "mood", invalid);
    decode_fails(
        with("numbers", AttributeValue::L(vec![n("1"), str_attr("2")])),
        "numbers[1]",
        wrong_type,
    );
    decode_fails(
        with(
            "numbers",
            AttributeValue::L(vec![n("1"), n("2"), n("40000")]),
        ),
        "numbers[2]",
        out_of_range,
    );
    decode_fails(
        with(
            "addresses",
            AttributeValue::L(vec![
                address_with(&["lines"], AttributeValue::L(vec![])),
                address_with(&["streetName"], n("5")),
            ]),
        ),
        "addresses[1].streetName",
        wrong_type,
    );
    decode_fails(
        with(
            "nestedLists",
            AttributeValue::L(vec![AttributeValue::L(vec![n("1"), n("256")])]),
        ),
        "nestedLists[0][1]",
        out_of_range,
    );
    decode_fails(
        with(
            "counts",
            AttributeValue::M([("one".into(), n("-1"))].into()),
        ),
        "counts.one",
        out_of_range,
    );
    decode_fails(
        with(
            "groups",
            AttributeValue::M([("g".into(), AttributeValue::L(vec![n("1")]))].into()),
        ),
        "groups.g[0]",
        wrong_type,
    );
    decode_fails(
        with("scores", AttributeValue::Ns(vec!["1".into(), "x".into()])),
        "scores",
        invalid_number,
    );
    decode_fails(with("extra", str_attr("nope")), "extra", invalid);
    decode_fails(
        with(
            "extra",
            AttributeValue::M(
                [
                    ("label".into(), str_attr("l")),
                    ("shape".into(), str_attr("Hexagon")),
                    ("weights".into(), AttributeValue::L(vec![])),
                ]
                .into(),
            ),
        ),
        "extra",
        invalid,
    );

    // Values DynamoDB cannot store are encode errors naming the attribute.
    let mut k = sample();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e200, 1e-200] {
        k.ratio_f64 = bad;
        encode_fails(&k, "ratioF64");
    }
    let mut k = sample();
    k.ratio_f32 = f32::NAN;
    encode_fails(&k, "ratioF32");
    let mut k = sample();
    k.floats = vec![1.0, 2.0, f64::INFINITY];
    encode_fails(&k, "floats[2]");
    let mut k = sample();
    k.address.geo.lat = f64::NAN;
    encode_fails(&k, "address.geo.lat");
    let mut k = sample();
    k.addresses[1].geo.lat = f64::NAN;
    encode_fails(&k, "addresses[1].geo.lat");
    let mut k = sample();
    k.maybe_address.as_mut().unwrap().geo.lat = f64::NEG_INFINITY;
    encode_fails(&k, "maybeAddress.geo.lat");
    // DynamoDB keeps 38 significant digits; trailing zeros do not count.
    for bad in [u128::MAX, 10u128.pow(38) + 1] {
        let mut k = sample();
        k.huge_u128 = bad;
        encode_fails(&k, "hugeU128");
    }
    for bad in [i128::MIN, i128::MAX, -(10i128.pow(38)) - 1] {
        let mut k = sample();
        k.huge_i128 = bad;
        encode_fails(&k, "hugeI128");
    }
    let mut k = sample();
    k.huge_u128 = 10u128.pow(38) - 1;
    k.huge_i128 = -17 * 10i128.pow(37);
    assert!(k.to_item().is_ok());
    // DynamoDB has no empty set; outside a list it is stored absent, inside
    // a list it cannot be stored at all.
    let mut k = sample();
    k.tag_lists = vec![["a".to_owned()].into(), BTreeSet::new()];
    encode_fails(&k, "tagLists[1]");

    // Declared validations fail every write before anything is encoded.
    let good = Checked {
        id: "c".into(),
        name: "ok".into(),
        level: 10,
        slug: "a-b".into(),
        items: vec![1],
    };
    assert!(good.to_item().is_ok() && good.validate().is_ok());
    let mut c = good.clone();
    c.name = String::new();
    validation_fails(&c, "name", "at least 1");
    c.name = "toolong".into();
    validation_fails(&c, "name", "at most 5");
    c.name = "ééééé".into(); // five characters is the limit, not five bytes
    assert!(c.to_item().is_ok());
    let mut c = good.clone();
    c.level = 11;
    validation_fails(&c, "level", "at most 10");
    c.level = 0;
    validation_fails(&c, "level", "at least 1");
    let mut c = good.clone();
    c.slug = "a b".into();
    validation_fails(&c, "slug", "must not contain spaces");
    let mut c = good;
    c.items.clear();
    validation_fails(&c, "items", "at least 1");

    // Arbitrary attribute trees under the entity's names never panic.
    check(1024, fuzzed_item(), |item| {
        if let Ok(k) = Kitchen::from_item(item) {
            // Whatever decodes must also encode (or fail with an error).
            let _ = k.to_item();
        }
    });
}

/// Attribute names the decoder looks at, at any depth.
const NAMES: &[&str] = &[
    "id",
    "version",
    "owner",
    "published",
    "stamp",
    "text",
    "flag",
    "smallU8",
    "smallU16",
    "midU32",
    "bigU64",
    "hugeU128",
    "sizeUsize",
    "smallI8",
    "smallI16",
    "midI32",
    "bigI64",
    "hugeI128",
    "sizeIsize",
    "ratioF32",
    "ratioF64",
    "maybeText",
    "maybeNum",
    "maybeAddress",
    "numbers",
    "floats",
    "addresses",
    "nestedLists",
    "tagLists",
    "payload",
    "tags",
    "labels",
    "scores",
    "counts",
    "groups",
    "address",
    "mood",
    "extra",
    "legacy_name",
    "cache",
    "counter",
    "region",
    "PK",
    "SK",
    "GSI1PK",
    "GSI1SK",
    "GSI2PK",
    "GSI2SK",
    "entityType",
    "streetName",
    "zipCode",
    "geo",
    "lines",
    "level",
    "lat",
    "label",
    "shape",
    "weights",
    "Circle",
    "radius",
    "Square",
    "Dot",
    "one",
    "g",
    "",
];

fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u128>().prop_map(|n| n.to_string()),
        any::<i128>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            "300", "-1", "256", "-129", "1.5", "1e3", "1E+3", "NaN", "inf", "-inf", "1e400", "",
            "-", "+1", "0x10", "١", "00", "-0", ".5", "5.",
        ])
        .prop_map(String::from),
        "\\PC{0,6}",
    ]
}

fn leaf() -> impl Strategy<Value = AttributeValue> {
    prop_oneof![
        "\\PC{0,8}".prop_map(AttributeValue::S),
        prop::sample::select(vec![
            "Kitchen",
            "CALM",
            "IN_TRANSIT",
            "so#odd%",
            "Dot",
            "Circle"
        ])
        .prop_map(|s| AttributeValue::S(s.into())),
        number_text().prop_map(AttributeValue::N),
        any::<bool>().prop_map(AttributeValue::Bool),
        any::<bool>().prop_map(AttributeValue::Null),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(|b| AttributeValue::B(Blob::new(b))),
        prop::collection::vec("\\PC{0,4}", 0..4).prop_map(AttributeValue::Ss),
        prop::collection::vec(number_text(), 0..4).prop_map(AttributeValue::Ns),
        prop::collection::vec(
            prop::collection::vec(any::<u8>(), 0..4).prop_map(Blob::new),
            0..3
        )
        .prop_map(AttributeValue::Bs),
    ]
}

fn tree() -> impl Strategy<Value = AttributeValue> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(AttributeValue::L),
            prop::collection::hash_map(
                prop::sample::select(NAMES).prop_map(String::from),
                inner,
                0..6
            )
            .prop_map(AttributeValue::M),
        ]
    })
}

/// Valid items with a few attributes replaced or removed, and items made of
/// random trees (mostly carrying the right entity type).
fn fuzzed_item() -> impl Strategy<Value = Item> {
    let edits = prop::collection::vec(
        (
            prop::sample::select(NAMES),
            prop::option::weighted(0.8, tree()),
        ),
        1..8,
    );
    let edited = (kitchen(), edits).prop_map(|(k, edits)| {
        let mut item = k.to_item().unwrap_or_default();
        for (name, value) in edits {
            match value {
                Some(v) => item.insert(name.to_owned(), v),
                None => item.remove(name),
            };
        }
        item
    });
    let random = (
        prop::collection::hash_map(
            prop::sample::select(NAMES).prop_map(String::from),
            tree(),
            0..48,
        ),
        prop::bool::weighted(0.9),
    )
        .prop_map(|(mut item, typed)| {
            if typed {
                item.insert("entityType".into(), AttributeValue::S("Kitchen".into()));
            }
            item
        });
    prop_oneof![3 => edited, 1 => random]
}
