//! Malformed stream records: each a typed error of its own, never a panic.

use super::*;

const GOOD: &str = r#"{
    "eventID": "e1", "eventName": "INSERT", "eventVersion": "1.1",
    "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
    "dynamodb": {
        "ApproximateCreationDateTime": 1700000000,
        "Keys": {"PK": {"S": "ORDER#o9"}, "SK": {"S": "DETAILS"}},
        "NewImage": {"PK": {"S": "ORDER#o9"}, "SK": {"S": "DETAILS"}, "entityType": {"S": "Order"},
                     "orderId": {"S": "o9"}, "status": {"S": "NEW"}, "total": {"N": "3"}},
        "SequenceNumber": "111", "SizeBytes": 60, "StreamViewType": "NEW_IMAGE"
    }
}"#;

/// `GOOD` with `edit` applied to its JSON.
fn edited(edit: impl FnOnce(&mut Value)) -> Value {
    let mut v: Value = serde_json::from_str(GOOD).unwrap();
    edit(&mut v);
    v
}

/// A malformed record: what it shows, the record, and the error expected.
type Malformed = (&'static str, Value, fn(&StreamError) -> bool);

/// Malformed records are typed errors, one per record, never panics.
pub(super) fn check_malformed() {
    let cases: Vec<Malformed> = vec![
        (
            "unknown event name",
            edited(|v| v["eventName"] = json!("UPSERT")),
            |r| matches!(r, StreamError::UnknownEvent(n) if n == "UPSERT"),
        ),
        (
            "no keys",
            edited(|v| {
                v["dynamodb"].as_object_mut().unwrap().remove("Keys");
            }),
            |r| *r == StreamError::Missing("Keys"),
        ),
        (
            "no sequence number",
            edited(|v| {
                v["dynamodb"]
                    .as_object_mut()
                    .unwrap()
                    .remove("SequenceNumber");
            }),
            |r| *r == StreamError::Missing("SequenceNumber"),
        ),
        (
            "sequence number not digits",
            edited(|v| v["dynamodb"]["SequenceNumber"] = json!("12a")),
            |r| matches!(r, StreamError::Invalid(_)),
        ),
        (
            "insert with an old image",
            edited(|v| v["dynamodb"]["OldImage"] = v["dynamodb"]["NewImage"].clone()),
            |r| {
                matches!(
                    r,
                    StreamError::UnexpectedImage {
                        image: "OldImage",
                        ..
                    }
                )
            },
        ),
        (
            "new-image insert without its image",
            edited(|v| {
                v["dynamodb"].as_object_mut().unwrap().remove("NewImage");
            }),
            |r| {
                matches!(
                    r,
                    StreamError::MissingImage {
                        image: "NewImage",
                        view: "NEW_IMAGE",
                        ..
                    }
                )
            },
        ),
        (
            "keys-only record with an image",
            edited(|v| v["dynamodb"]["StreamViewType"] = json!("KEYS_ONLY")),
            |r| {
                matches!(
                    r,
                    StreamError::UnexpectedImage {
                        image: "NewImage",
                        ..
                    }
                )
            },
        ),
        (
            "key of another type",
            edited(|v| {
                v["dynamodb"]["Keys"]["PK"] = json!({"N": "1"});
                v["dynamodb"]["NewImage"]["PK"] = json!({"N": "1"});
            }),
            |r| matches!(r, StreamError::Key(k) if k == "PK"),
        ),
        (
            "image under another key",
            edited(|v| v["dynamodb"]["NewImage"]["PK"] = json!({"S": "ORDER#other"})),
            |r| matches!(r, StreamError::Key(k) if k == "PK"),
        ),
    ];
    for (what, record, ok) in cases {
        let text = json!({ "Records": [serde_json::from_str::<Value>(GOOD).unwrap(), record] })
            .to_string();
        let event = lambda::parse_event(text.as_bytes()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let results: Vec<_> = changes::<Order, _>(&event.records, OtherTypes::Skip).collect();
        assert_eq!(results.len(), 2, "{what}");
        assert!(results[0].is_ok(), "{what}: the good record still decodes");
        let err = results[1].as_ref().expect_err(what);
        assert!(ok(stream_reason(err)), "{what}: {err:?}");
        if let Error::Stream { event_id, .. } = err {
            assert_eq!(
                event_id.as_deref(),
                Some("e1"),
                "{what}: the error names the record"
            );
        }
    }

    // What is not a DynamoDB event at all.
    for text in [
        "not json".to_owned(),
        edited(|v| v["dynamodb"]["NewImage"]["total"] = json!({"S": 5})).to_string(),
        edited(|v| v["dynamodb"]["StreamViewType"] = json!("BOTH")).to_string(),
    ] {
        let wrapped = format!(r#"{{"Records": [{text}]}}"#);
        let err = lambda::parse_event(wrapped.as_bytes()).unwrap_err();
        assert!(
            matches!(stream_reason(&err), StreamError::Json(_)),
            "{err:?}"
        );
    }

    // A well-formed record whose image is not an Order is a decode error.
    let text =
        json!({ "Records": [edited(|v| v["dynamodb"]["NewImage"]["total"] = json!({"S": "x"}))] })
            .to_string();
    let event = lambda::parse_event(text.as_bytes()).unwrap();
    let err = changes::<Order, _>(&event.records, OtherTypes::Skip)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { source, .. } if source.path() == "total"),
        "{err:?}"
    );

    // Streams API records: the same checks through the SDK's types.
    let keys = |pk: &str| {
        [
            ("PK".to_owned(), ddbs::AttributeValue::S(pk.into())),
            ("SK".to_owned(), ddbs::AttributeValue::S("DETAILS".into())),
        ]
        .into_iter()
        .collect::<std::collections::HashMap<_, _>>()
    };
    let body = |view: ddbs::StreamViewType| {
        ddbs::StreamRecord::builder()
            .set_keys(Some(keys("ORDER#o9")))
            .sequence_number("5")
            .stream_view_type(view)
            .build()
    };
    let record = |name: &str, body: Option<ddbs::StreamRecord>| {
        ddbs::Record::builder()
            .event_id("s1")
            .event_name(ddbs::OperationType::from(name))
            .set_dynamodb(body)
            .build()
    };
    let sdk_cases = [
        (record("INSERT", None), StreamError::Missing("dynamodb")),
        (
            record("UPSERT", Some(body(ddbs::StreamViewType::KeysOnly))),
            StreamError::UnknownEvent("UPSERT".into()),
        ),
        (
            record("REMOVE", Some(body(ddbs::StreamViewType::OldImage))),
            StreamError::MissingImage {
                event: "REMOVE",
                view: "OLD_IMAGE",
                image: "OldImage",
            },
        ),
        (
            record(
                "REMOVE",
                Some(body(ddbs::StreamViewType::from("EVERYTHING"))),
            ),
            StreamError::UnknownView("EVERYTHING".into()),
        ),
    ];
    for (r, expected) in sdk_cases {
        let err = changes::<Order, _>([r], OtherTypes::Skip)
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(stream_reason(&err), &expected);
    }
    // A keys-only Streams API record of an order decodes, without images.
    let ok = record("REMOVE", Some(body(ddbs::StreamViewType::KeysOnly)));
    let change = changes::<Order, _>([ok], OtherTypes::Skip)
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(change.event, Event::Remove { old: None });
    assert_eq!(change.key, Order::key("o9").unwrap());
    // ... and one of a note is another type.
    let note = ddbs::Record::builder()
        .event_id("s2")
        .event_name(ddbs::OperationType::Remove)
        .dynamodb(
            ddbs::StreamRecord::builder()
                .set_keys(Some(
                    [
                        ("PK".to_owned(), ddbs::AttributeValue::S("NOTE#n".into())),
                        ("SK".to_owned(), ddbs::AttributeValue::S("NOTE".into())),
                    ]
                    .into_iter()
                    .collect(),
                ))
                .sequence_number("6")
                .stream_view_type(ddbs::StreamViewType::KeysOnly)
                .build(),
        )
        .build();
    assert_eq!(
        changes::<Order, _>([note.clone()], OtherTypes::Skip).count(),
        0
    );
    let err = changes::<Order, _>([note], OtherTypes::Error)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(is_other_type(&err), "{err:?}");
}
