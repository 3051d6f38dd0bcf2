//! Malformed items, unstorable values and failed validations: typed errors
//! at the path that is wrong, never panics, for hand-made and fuzzed items.

use super::*;

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
