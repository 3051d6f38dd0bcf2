//! The Streams API (ListStreams, DescribeStream, GetShardIterator,
//! GetRecords) on the endpoint and on DynamoDB Local: the same writes give
//! the same records (events, keys, images, sizes, view) under every view
//! type, read from every kind of iterator, and the same refusals.

use serde_json::{Value, json};
use singletable_server::Endpoint;

use super::http::{call, error_message, error_name, start};
use crate::support;

/// Creates `table` with a stream of `view` and makes the writes whose
/// records the test compares: every write path (put, overwrite, put of the
/// same item, update with arithmetic, delete, delete of a missing item,
/// transaction, batch).
/// With `later`, the table is created without a stream and UpdateTable
/// gives it one before the writes.
async fn write(url: &str, table: &str, view: &str, later: bool) {
    let ok = |what: &str, (status, body): (u16, Value)| {
        assert_eq!(status, 200, "{what} on {url}: {body}");
    };
    let k = |pk: &str, sk: &str| json!({"PK": {"S": pk}, "SK": {"S": sk}});
    let item = |pk: &str, extra: Value| {
        let mut i = k(pk, "1");
        i.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        i
    };
    ok(
        "CreateTable",
        call(
            url,
            "CreateTable",
            &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
            "StreamSpecification": if later {
                json!({"StreamEnabled": false})
            } else {
                json!({"StreamEnabled": true, "StreamViewType": view})
            }}),
        )
        .await,
    );
    if later {
        let enable = json!({"TableName": table, "StreamSpecification": {"StreamEnabled": true, "StreamViewType": view}});
        let (status, r) = call(url, "UpdateTable", &enable).await;
        assert_eq!(status, 200, "{r}");
        let d = &r["TableDescription"];
        assert_eq!(d["StreamSpecification"]["StreamViewType"], view);
        assert!(d["LatestStreamArn"].is_string(), "{d}");
        let (status, again) = call(url, "UpdateTable", &enable).await;
        assert_eq!(
            (status, error_message(&again).as_str()),
            (400, "Table already has an enabled stream")
        );
    }
    let a = item("a", json!({"n": {"N": "1"}, "tags": {"SS": ["x", "y"]}}));
    let a2 = item("a", json!({"n": {"N": "2"}, "b": {"B": "AQI="}}));
    for body in [json!({"Item": a}), json!({"Item": a2}), json!({"Item": a2})] {
        let mut body = body;
        body["TableName"] = json!(table);
        ok("PutItem", call(url, "PutItem", &body).await);
    }
    ok(
        "UpdateItem",
        call(
            url,
            "UpdateItem",
            &json!({"TableName": table, "Key": k("a", "1"), "UpdateExpression": "SET n = n + :one REMOVE b",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}),
        )
        .await,
    );
    let b = item(
        "b",
        json!({"m": {"M": {"l": {"L": [{"NULL": true}, {"BOOL": false}]}}}}),
    );
    ok(
        "PutItem",
        call(url, "PutItem", &json!({"TableName": table, "Item": b})).await,
    );
    for key in [k("a", "1"), k("missing", "1")] {
        ok(
            "DeleteItem",
            call(url, "DeleteItem", &json!({"TableName": table, "Key": key})).await,
        );
    }
    ok(
        "TransactWriteItems",
        call(
            url,
            "TransactWriteItems",
            &json!({"TransactItems": [
                {"Put": {"TableName": table, "Item": item("c", json!({"s": {"S": "t"}}))}},
                {"Delete": {"TableName": table, "Key": k("b", "1")}},
            ]}),
        )
        .await,
    );
    ok(
        "BatchWriteItem",
        call(
            url,
            "BatchWriteItem",
            &json!({"RequestItems": {table: [{"PutRequest": {"Item": item("d", json!({}))}}]}}),
        )
        .await,
    );
}

/// A record without what differs from one stream to another (ids, times,
/// sequence numbers, checked for their form here).
fn record_shape(r: &Value) -> Value {
    let mut r = r.clone();
    assert!(r["eventID"].is_string(), "{r}");
    let d = &mut r["dynamodb"];
    assert!(d["ApproximateCreationDateTime"].is_number(), "{d}");
    let seq = d["SequenceNumber"].as_str().unwrap_or_default();
    assert!(
        !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit()),
        "{d}"
    );
    let d = d.as_object_mut().unwrap();
    d.remove("ApproximateCreationDateTime");
    d.remove("SequenceNumber");
    r.as_object_mut().unwrap().remove("eventID");
    r
}

/// Every record from `iterator` on, in pages of `limit`.
async fn drain(url: &str, mut iterator: Value, limit: u64) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let (status, page) = call(
            url,
            "Streams.GetRecords",
            &json!({"ShardIterator": iterator, "Limit": limit}),
        )
        .await;
        assert_eq!(status, 200, "{page}");
        let records = page["Records"].as_array().unwrap().clone();
        assert!(records.len() as u64 <= limit);
        iterator = page["NextShardIterator"].clone();
        assert!(iterator.is_string(), "{page}");
        if records.is_empty() {
            return out;
        }
        out.extend(records);
    }
}

/// What one stream shows: ListStreams and DescribeStream (without names
/// and times), the records read from each kind of iterator, and the
/// refusals, all as values to compare between the endpoint and Local.
async fn observe(url: &str, table: &str) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    let (status, list) = call(url, "Streams.ListStreams", &json!({"TableName": table})).await;
    assert_eq!(status, 200, "{list}");
    let streams = list["Streams"].as_array().unwrap();
    assert_eq!(streams.len(), 1, "{list}");
    let arn = streams[0]["StreamArn"].as_str().unwrap().to_owned();
    let label = streams[0]["StreamLabel"].as_str().unwrap();
    assert!(
        arn.ends_with(&format!(":table/{table}/stream/{label}")),
        "{arn}"
    );
    assert_eq!(streams[0]["TableName"], table);
    let (status, described) = call(url, "DescribeTable", &json!({"TableName": table})).await;
    assert_eq!(status, 200);
    assert_eq!(described["Table"]["LatestStreamArn"], arn.as_str());
    assert_eq!(described["Table"]["LatestStreamLabel"], label);

    let (status, desc) = call(url, "Streams.DescribeStream", &json!({"StreamArn": arn})).await;
    assert_eq!(status, 200, "{desc}");
    let mut d = desc["StreamDescription"].clone();
    assert_eq!(d["StreamArn"], arn.as_str());
    assert_eq!(d["StreamLabel"], label);
    assert!(d["CreationRequestDateTime"].is_number());
    let shards = d["Shards"].as_array().unwrap().clone();
    assert_eq!(shards.len(), 1, "{d}");
    let shard = shards[0]["ShardId"].as_str().unwrap().to_owned();
    assert!(shard.starts_with("shardId-"));
    assert_eq!(d["TableName"], table);
    let starting = d["Shards"][0]["SequenceNumberRange"]["StartingSequenceNumber"].clone();
    for k in [
        "StreamArn",
        "StreamLabel",
        "CreationRequestDateTime",
        "TableName",
    ] {
        d.as_object_mut().unwrap().remove(k);
    }
    d["Shards"][0]["ShardId"] = json!("shard");
    // Local numbers the records of all its streams in one sequence.
    d["Shards"][0]["SequenceNumberRange"]["StartingSequenceNumber"] = json!("first");
    seen.push(("DescribeStream".into(), d));

    let it = |kind: &str, seq: Option<&str>| {
        let mut b = json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": kind});
        if let Some(s) = seq {
            b["SequenceNumber"] = json!(s);
        }
        b
    };
    let iterator = |body: Value| async move {
        let (status, r) = call(url, "Streams.GetShardIterator", &body).await;
        assert_eq!(status, 200, "{body}: {r}");
        r["ShardIterator"].clone()
    };
    let all = drain(url, iterator(it("TRIM_HORIZON", None)).await, 1000).await;
    let seqs: Vec<String> = all
        .iter()
        .map(|r| r["dynamodb"]["SequenceNumber"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        seqs.windows(2)
            .all(|w| (w[0].len(), &w[0]) < (w[1].len(), &w[1])),
        "{seqs:?}"
    );
    // The shard starts at or before its first record (Local numbers the
    // records of every stream in one sequence, so other tables' writes
    // may come between).
    let starting = starting.as_str().unwrap_or_default();
    assert!(
        (starting.len(), starting) <= (seqs[0].len(), seqs[0].as_str()),
        "{starting} after {}",
        seqs[0]
    );
    let shapes: Vec<Value> = all.iter().map(record_shape).collect();
    seen.push(("TRIM_HORIZON".into(), Value::Array(shapes.clone())));
    let paged = drain(url, iterator(it("TRIM_HORIZON", None)).await, 2).await;
    assert_eq!(paged, all, "pages of 2 read the same records");
    let first = &seqs[0];
    let second = &seqs[1];
    let after = drain(
        url,
        iterator(it("AFTER_SEQUENCE_NUMBER", Some(first))).await,
        1000,
    )
    .await;
    assert_eq!(after[..], all[1..]);
    let at = drain(
        url,
        iterator(it("AT_SEQUENCE_NUMBER", Some(second))).await,
        1000,
    )
    .await;
    assert_eq!(at[..], all[1..]);

    let latest = iterator(it("LATEST", None)).await;
    let (status, none) = call(url, "Streams.GetRecords", &json!({"ShardIterator": latest})).await;
    assert_eq!(status, 200);
    assert_eq!(none["Records"], json!([]));
    let (status, _) = call(
        url,
        "PutItem",
        &json!({"TableName": table, "Item": {"PK": {"S": "late"}, "SK": {"S": "1"}}}),
    )
    .await;
    assert_eq!(status, 200);
    let late = drain(url, latest, 1000).await;
    seen.push((
        "LATEST".into(),
        Value::Array(late.iter().map(record_shape).collect()),
    ));

    let refusals = [
        (
            "Streams.GetShardIterator",
            it("TRIM_HORIZON", None),
            Some("arn"),
        ),
        (
            "Streams.GetShardIterator",
            json!({"StreamArn": arn, "ShardId": "shardId-nope", "ShardIteratorType": "TRIM_HORIZON"}),
            None,
        ),
        (
            "Streams.GetShardIterator",
            it("AT_SEQUENCE_NUMBER", None),
            None,
        ),
        ("Streams.GetShardIterator", it("LATEST", Some(first)), None),
        (
            "Streams.GetRecords",
            json!({"ShardIterator": "garbage"}),
            None,
        ),
        (
            "Streams.DescribeStream",
            json!({"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/Nope/stream/2020-01-01T00:00:00.000"}),
            None,
        ),
        ("Streams.Frobnicate", json!({}), None),
    ];
    for (op, mut body, break_arn) in refusals {
        if break_arn.is_some() {
            body["StreamArn"] = json!(format!("{arn}x"));
        }
        let (status, r) = call(url, op, &body).await;
        seen.push((
            format!("{op} {body}")
                .replace(&arn, "ARN")
                .replace(&shard, "SHARD"),
            json!([status, error_name(&r), error_message(&r)]),
        ));
    }
    seen
}

#[tokio::test]
async fn streams_api_matches_dynamodb_local() {
    let ours = start(Endpoint::new()).await;
    let local = support::endpoint();
    let mut report = Vec::new();
    // Each view from CreateTable; one more enabled by UpdateTable.
    let cases = [
        ("KEYS_ONLY", false),
        ("NEW_IMAGE", false),
        ("OLD_IMAGE", false),
        ("NEW_AND_OLD_IMAGES", false),
        ("NEW_AND_OLD_IMAGES", true),
    ];
    for (view, later) in cases {
        let (a, b) = (
            format!("Streams{view}{later}"),
            support::unique_table("Streams"),
        );
        write(&ours, &a, view, later).await;
        write(&local, &b, view, later).await;
        let (seen_ours, seen_local) = (observe(&ours, &a).await, observe(&local, &b).await);
        assert_eq!(seen_ours.len(), seen_local.len());
        for ((what, x), (_, y)) in seen_ours.iter().zip(&seen_local) {
            if x != y {
                report.push(format!("{view} {what}:\n  endpoint {x}\n  local    {y}"));
            }
        }
        let records = &seen_ours[1].1;
        assert_eq!(
            records.as_array().map(Vec::len),
            Some(8),
            "insert, modify, modify, insert, remove, insert and remove, insert: {records}"
        );
    }
    // A view type without a stream is refused alike.
    let mut refusals = Vec::new();
    for (url, table) in [
        (&ours, "StreamsOff".to_owned()),
        (&local, support::unique_table("StreamsOff")),
    ] {
        let (status, r) = call(
            url,
            "CreateTable",
            &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                "StreamSpecification": {"StreamEnabled": false, "StreamViewType": "KEYS_ONLY"}}),
        )
        .await;
        refusals.push((status, error_name(&r), error_message(&r)));
    }
    assert_eq!(refusals[0], refusals[1]);
    assert_eq!(refusals[0].0, 400);
    assert!(report.is_empty(), "{}", report.join("\n"));
}
