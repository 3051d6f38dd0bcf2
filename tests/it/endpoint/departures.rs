//! One case per place where DynamoDB Local departs from DynamoDB's
//! documentation and the endpoint follows DynamoDB (the list is in the
//! `singletable_server` crate docs and docs/endpoint.md). Each case asserts the
//! endpoint's answer and, so that the list stays honest, DynamoDB Local's
//! differing one: a case whose Local answer changes to DynamoDB's fails
//! here and leaves the list.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use singletable_server::Endpoint;

use super::http::{call, error_message, error_name, post, start, target};
use crate::support;

/// A table with a local index on `L` (a string) and a stream.
async fn create(url: &str, table: &str) {
    let (status, body) = call(
        url,
        "CreateTable",
        &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
            "LocalSecondaryIndexes": [{"IndexName": "byL", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

fn key() -> Value {
    json!({"PK": {"S": "a"}, "SK": {"S": "1"}})
}

/// The two servers, each with its own table.
struct Both {
    ours: (String, String),
    local: (String, String),
}

impl Both {
    /// `op` with `body` (an empty `TableName` set to each side's table) on
    /// the endpoint and on Local.
    async fn call(&self, op: &str, body: Value) -> [(u16, Value); 2] {
        let on = |(url, table): &(String, String)| {
            let mut body = body.clone();
            if body["TableName"] == "" {
                body["TableName"] = json!(table);
            }
            let url = url.clone();
            let op = op.to_owned();
            async move { call(&url, &op, &body).await }
        };
        [on(&self.ours).await, on(&self.local).await]
    }

    async fn raw(&self, target: Option<&str>, body: &[u8]) -> [(u16, Value); 2] {
        let a = post(&self.ours.0, target, body).await;
        let b = post(&self.local.0, target, body).await;
        [(a.status, a.json()), (b.status, b.json())]
    }
}

/// The stream records of `url`'s `table`, from the start.
async fn records(url: &str, table: &str) -> Vec<Value> {
    let (_, d) = call(url, "DescribeTable", &json!({"TableName": table})).await;
    let arn = d["Table"]["LatestStreamArn"].clone();
    let (_, s) = call(url, "Streams.DescribeStream", &json!({"StreamArn": arn})).await;
    let shard = s["StreamDescription"]["Shards"][0]["ShardId"].clone();
    let (_, it) = call(
        url,
        "Streams.GetShardIterator",
        &json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
    )
    .await;
    let (status, r) = call(
        url,
        "Streams.GetRecords",
        &json!({"ShardIterator": it["ShardIterator"]}),
    )
    .await;
    assert_eq!(status, 200, "{r}");
    r["Records"].as_array().cloned().unwrap_or_default()
}

fn seconds_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

#[tokio::test]
async fn local_departures_follow_dynamodb() {
    let both = Both {
        ours: (start(Endpoint::new()).await, "Departures".to_owned()),
        local: (support::endpoint(), support::unique_table("Departures")),
    };
    create(&both.ours.0, &both.ours.1).await;
    create(&both.local.0, &both.local.1).await;

    // 1. Error bodies carry `message`: the developer guide's "Error
    //    handling with DynamoDB" shows `{"__type": "...#ResourceNotFoundException",
    //    "message": "Requested resource not found: ..."}`. Local writes `Message`.
    let [(s1, ours), (s2, local)] = both
        .call("DescribeTable", json!({"TableName": "NoSuchTable"}))
        .await;
    assert_eq!((s1, s2), (400, 400));
    assert_eq!(error_name(&ours), "ResourceNotFoundException");
    assert!(
        ours["message"].is_string() && ours.get("Message").is_none(),
        "{ours}"
    );
    assert!(
        local["Message"].is_string() && local.get("message").is_none(),
        "{local}"
    );

    // 2. A body that is not JSON is the client's error: 400 (the guide's
    //    error handling: 4xx is a problem with the request, 5xx one AWS must
    //    resolve), SerializationException. Local answers 500 InternalFailure.
    let [(s1, ours), (s2, local)] = both.raw(Some(&target("ListTables")), b"{not json").await;
    assert_eq!(
        (s1, error_name(&ours).as_str()),
        (400, "SerializationException")
    );
    assert_eq!((s2, error_name(&local).as_str()), (500, "InternalFailure"));

    // 3. An unknown operation: 400 `com.amazon.coral.service#UnknownOperationException`
    //    (the service framework's namespace, as for ValidationException's
    //    `com.amazon.coral.validate`), also for a target without the
    //    service's prefix. Local writes it in DynamoDB's own namespace, and
    //    answers a target without the prefix with 500 InternalFailure.
    let [(s1, ours), (s2, local)] = both.raw(Some(&target("Frobnicate")), b"{}").await;
    assert_eq!((s1, s2), (400, 400));
    assert_eq!(
        ours["__type"],
        "com.amazon.coral.service#UnknownOperationException"
    );
    assert_eq!(
        local["__type"],
        "com.amazonaws.dynamodb.v20120810#UnknownOperationException"
    );
    let [(s1, ours), (s2, _)] = both.raw(Some("Frobnicate"), b"{}").await;
    assert_eq!(
        (s1, error_name(&ours).as_str()),
        (400, "UnknownOperationException")
    );
    assert_eq!(s2, 500);

    // 4. Numbers come back canonical: "Leading and trailing zeroes are
    //    trimmed" (developer guide, Supported data types, Number). Local
    //    returns a number written by UpdateItem as it was sent.
    let [(s1, ours), (s2, local)] = both
        .call(
            "UpdateItem",
            json!({"TableName": "", "Key": key(), "UpdateExpression": "SET n = :v",
                "ExpressionAttributeValues": {":v": {"N": "01.50"}}, "ReturnValues": "ALL_NEW"}),
        )
        .await;
    assert_eq!((s1, s2), (200, 200), "{ours} {local}");
    assert_eq!(ours["Attributes"]["n"], json!({"N": "1.5"}));
    assert_eq!(local["Attributes"]["n"], json!({"N": "01.50"}));
    let [(_, ours), (_, local)] = both
        .call("GetItem", json!({"TableName": "", "Key": key()}))
        .await;
    assert_eq!(ours["Item"]["n"], json!({"N": "1.5"}));
    assert_eq!(local["Item"]["n"], json!({"N": "01.50"}));

    // 5. An index key attribute has the type AttributeDefinitions gives it
    //    (developer guide, local secondary indexes: an item whose index key
    //    has another type is refused with "Type mismatch for Index Key"), on
    //    UpdateItem as on PutItem. Local accepts it from UpdateItem.
    let [(s1, ours), (s2, local)] = both
        .call(
            "UpdateItem",
            json!({"TableName": "", "Key": key(), "UpdateExpression": "SET L = :v",
                "ExpressionAttributeValues": {":v": {"N": "1"}}}),
        )
        .await;
    assert_eq!(
        (s1, error_name(&ours).as_str()),
        (400, "ValidationException")
    );
    assert_eq!(
        error_message(&ours),
        "One or more parameter values were invalid: Type mismatch for Index Key"
    );
    assert_eq!(s2, 200, "{local}");
    let [(s1, _), (s2, _)] = both
        .call(
            "PutItem",
            json!({"TableName": "", "Item": {"PK": {"S": "b"}, "SK": {"S": "1"}, "L": {"N": "1"}}}),
        )
        .await;
    assert_eq!((s1, s2), (400, 400), "PutItem refuses it on both");

    // 6. ReturnConsumedCapacity is one of INDEXES, TOTAL, NONE (API
    //    reference, GetItem: "Valid Values: INDEXES | TOTAL | NONE"); Local
    //    accepts any text.
    let [(s1, ours), (s2, local)] = both
        .call(
            "GetItem",
            json!({"TableName": "", "Key": key(), "ReturnConsumedCapacity": "BOGUS"}),
        )
        .await;
    assert_eq!(
        (s1, error_name(&ours).as_str()),
        (400, "ValidationException")
    );
    assert!(error_message(&ours).contains("[INDEXES, TOTAL, NONE]"));
    assert_eq!(s2, 200, "{local}");

    // 7. ShardIteratorType is one of four (Streams API reference,
    //    GetShardIterator: "Valid Values: TRIM_HORIZON | LATEST |
    //    AT_SEQUENCE_NUMBER | AFTER_SEQUENCE_NUMBER"): another is a
    //    ValidationException. Local answers 500 InternalFailure.
    let iterator = |url: String, table: String| async move {
        let (_, d) = call(&url, "DescribeTable", &json!({"TableName": table})).await;
        let arn = d["Table"]["LatestStreamArn"].clone();
        let (_, s) = call(&url, "Streams.DescribeStream", &json!({"StreamArn": arn})).await;
        let shard = s["StreamDescription"]["Shards"][0]["ShardId"].clone();
        call(
            &url,
            "Streams.GetShardIterator",
            &json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "OLDEST"}),
        )
        .await
    };
    let (s1, ours) = iterator(both.ours.0.clone(), both.ours.1.clone()).await;
    let (s2, local) = iterator(both.local.0.clone(), both.local.1.clone()).await;
    assert_eq!(
        (s1, error_name(&ours).as_str()),
        (400, "ValidationException")
    );
    assert_eq!((s2, error_name(&local).as_str()), (500, "InternalFailure"));

    // 8. A stream record's ApproximateCreationDateTime is "rounded down to
    //    the closest second" (Streams API reference, StreamRecord). Local
    //    rounds it down to the minute.
    let before = seconds_now().floor();
    let put = json!({"TableName": "", "Item": {"PK": {"S": "t"}, "SK": {"S": "1"}}});
    let [(s1, _), (s2, _)] = both.call("PutItem", put).await;
    assert_eq!((s1, s2), (200, 200));
    let after = seconds_now();
    let time = |r: &Value| {
        r["dynamodb"]["ApproximateCreationDateTime"]
            .as_f64()
            .unwrap()
    };
    let ours = records(&both.ours.0, &both.ours.1).await;
    let t = time(ours.last().unwrap());
    assert!(
        t.fract() == 0.0 && before <= t && t <= after,
        "{t} not in [{before}, {after}]"
    );
    let local = records(&both.local.0, &both.local.1).await;
    let t = time(local.last().unwrap());
    assert_eq!(t % 60.0, 0.0, "Local's time {t}");

    // 9. A member outside its constraints is refused in the form of the
    //    service's model validation, `1 validation error detected: Value
    //    at 'Limit' failed to satisfy constraint: ...` (the API reference
    //    gives Limit "Minimum value of 1"; DynamoDB leaves Query's value
    //    out and names the member `Limit`), as Local itself does for other
    //    members (Segment); Local words Limit its own way.
    let [(s1, ours), (s2, local)] = both
        .call(
            "Query",
            json!({"TableName": "", "KeyConditionExpression": "PK = :p",
                "ExpressionAttributeValues": {":p": {"S": "a"}}, "Limit": 0}),
        )
        .await;
    assert_eq!((s1, s2), (400, 400));
    assert_eq!(
        error_message(&ours),
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
    assert_eq!(
        error_message(&local),
        "Limit must be greater than or equal to 1"
    );

    // 10. ConsumedCapacity "is only returned if the ReturnConsumedCapacity
    //     parameter was specified" (API reference, DeleteItem). Local
    //     reports it unasked when the item to delete does not exist.
    let missing = json!({"TableName": "", "Key": {"PK": {"S": "none"}, "SK": {"S": "1"}}});
    let [(s1, ours), (s2, local)] = both.call("DeleteItem", missing).await;
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(ours, json!({}));
    assert!(local["ConsumedCapacity"].is_object(), "{local}");

    // 11. Two document paths that overlap are named as they are: `a, e, a`
    //     repeats `a`. Local names `a` and `e`, which do not overlap.
    let twice = json!({"TableName": "", "Key": key(), "ProjectionExpression": "a, e, a"});
    let [(s1, ours), (s2, local)] = both.call("GetItem", twice).await;
    assert_eq!((s1, s2), (400, 400));
    let said = "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: ";
    assert_eq!(error_message(&ours), format!("{said}[a]"));
    assert_eq!(error_message(&local), format!("{said}[e]"));

    // 12. A global index holds only the items that have its key attributes
    //     (developer guide, sparse indexes), and IndexSizeBytes is "the
    //     total size of the specified index" (API reference,
    //     GlobalSecondaryIndexDescription). Local adds to IndexSizeBytes
    //     (not to ItemCount) the items that have only some of its key
    //     attributes, which the index does not hold.
    let sparse = |url: String, table: String| async move {
        let (status, r) = call(
            &url,
            "CreateTable",
            &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "h", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "h", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
        )
        .await;
        assert_eq!(status, 200, "{r}");
        let mut capacity = Value::Null;
        for item in [
            json!({"PK": {"S": "in"}, "g": {"S": "x"}, "h": {"S": "y"}}),
            json!({"PK": {"S": "out"}, "g": {"S": "x"}}),
            // The other attribute instead (case 18): still not in the index.
            json!({"PK": {"S": "out"}, "h": {"S": "y"}}),
        ] {
            let put =
                json!({"TableName": table, "Item": item, "ReturnConsumedCapacity": "INDEXES"});
            let (status, r) = call(&url, "PutItem", &put).await;
            assert_eq!(status, 200, "{r}");
            capacity = r["ConsumedCapacity"].clone();
        }
        let (_, d) = call(&url, "DescribeTable", &json!({"TableName": table})).await;
        let ix = &d["Table"]["GlobalSecondaryIndexes"][0];
        let sizes = (
            d["Table"]["TableSizeBytes"].clone(),
            ix["ItemCount"].clone(),
            ix["IndexSizeBytes"].clone(),
        );
        capacity.as_object_mut().map(|m| m.remove("TableName"));
        (sizes, capacity)
    };
    let (ours, ours_put) = sparse(both.ours.0.clone(), "Sparse".into()).await;
    let (local, local_put) = sparse(both.local.0.clone(), support::unique_table("Sparse")).await;
    // "PK"+"in", "g"+"x", "h"+"y" in the index; "PK"+"out", "h"+"y" not.
    assert_eq!(ours, (json!(15), json!(1), json!(8)));
    assert_eq!(local, (json!(15), json!(1), json!(15)));

    // 18. Nor is an item with only some of a global index's key attributes
    //     written to the index (developer guide, sparse indexes), so a
    //     write that replaces one such item by another consumes no capacity
    //     of the index and ReturnConsumedCapacity=INDEXES names none. Local
    //     bills the index a write unit when the two have different ones
    //     (`g`, then `h`).
    assert_eq!(
        ours_put,
        json!({"CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}})
    );
    assert_eq!(
        local_put,
        json!({"CapacityUnits": 2.0, "Table": {"CapacityUnits": 1.0},
            "GlobalSecondaryIndexes": {"byG": {"CapacityUnits": 1.0}}})
    );

    // 13. On a table with a local index, a write that asks for
    //     ReturnItemCollectionMetrics=SIZE gets ItemCollectionMetrics: the
    //     partition key and a size range in GB (API reference, PutItem: "If
    //     the table does not have any local secondary indexes, this
    //     information is not returned", so it is when it has one). Local
    //     never returns it.
    let put = json!({"TableName": "", "Item": {"PK": {"S": "m"}, "SK": {"S": "1"}, "L": {"S": "x"}},
        "ReturnItemCollectionMetrics": "SIZE"});
    let [(s1, ours), (s2, local)] = both.call("PutItem", put).await;
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(
        ours["ItemCollectionMetrics"],
        json!({"ItemCollectionKey": {"PK": {"S": "m"}}, "SizeEstimateRangeGB": [0.0, 1.0]})
    );
    assert_eq!(local, json!({}));

    // 14. ReturnItemCollectionMetrics is SIZE or NONE (API reference:
    //     "Valid Values: SIZE | NONE"); Local accepts any text.
    let bogus = json!({"TableName": "", "Key": key(), "ReturnItemCollectionMetrics": "BOGUS"});
    let [(s1, ours), (s2, local)] = both.call("DeleteItem", bogus).await;
    assert_eq!(
        (s1, error_name(&ours).as_str()),
        (400, "ValidationException")
    );
    assert!(error_message(&ours).contains("[SIZE, NONE]"), "{ours}");
    assert_eq!(s2, 200, "{local}");

    // 15. "A Query operation can retrieve a maximum of 1 MB of data. This
    //     limit applies before the filter expression is evaluated"
    //     (developer guide, Filter expressions for the Query operation,
    //     whose example filters on `#v >= :num`, Views). Five items of
    //     300 KB, none of which the filter keeps: the page ends after the
    //     fourth, the first to take the items read past 1 MB, with a
    //     LastEvaluatedKey. Local counts only the items the filter keeps
    //     and reads all five into one page.
    for sk in 1..=5 {
        let item = json!({"TableName": "", "Item": {"PK": {"S": "pages"}, "SK": {"S": sk.to_string()},
            "Views": {"N": "0"}, "body": {"S": "x".repeat(300_000)}}});
        let [(s1, ours), (s2, local)] = both.call("PutItem", item).await;
        assert_eq!((s1, s2), (200, 200), "{ours} {local}");
    }
    let query = json!({"TableName": "", "KeyConditionExpression": "PK = :pk",
        "FilterExpression": "#v >= :num", "ExpressionAttributeNames": {"#v": "Views"},
        "ExpressionAttributeValues": {":pk": {"S": "pages"}, ":num": {"N": "3"}}});
    let [(s1, ours), (s2, local)] = both.call("Query", query).await;
    assert_eq!((s1, s2), (200, 200), "{ours} {local}");
    assert_eq!(
        ours,
        json!({"Items": [], "Count": 0, "ScannedCount": 4,
            "LastEvaluatedKey": {"PK": {"S": "pages"}, "SK": {"S": "4"}}})
    );
    assert_eq!(local, json!({"Items": [], "Count": 0, "ScannedCount": 5}));

    // 16. A Query that stops because it evaluated `Limit` items returns a
    //     LastEvaluatedKey (API reference, Query, Limit: DynamoDB "stops
    //     the operation and returns the matching values up to that point,
    //     and a key in LastEvaluatedKey"; "If LastEvaluatedKey is not
    //     empty, it does not necessarily mean that there is more data"),
    //     also when the last item read sits on the inclusive bound of the
    //     key condition; that key starts an empty last page. Local returns
    //     no LastEvaluatedKey there, and refuses that key as a start key.
    for sk in ["1", "2", "3"] {
        let item = json!({"TableName": "", "Item": {"PK": {"S": "lek"}, "SK": {"S": sk}}});
        let [(s1, _), (s2, _)] = both.call("PutItem", item).await;
        assert_eq!((s1, s2), (200, 200));
    }
    let bounded = |start: Option<Value>| {
        let mut q = json!({"TableName": "", "KeyConditionExpression": "PK = :p AND SK <= :s",
            "ExpressionAttributeValues": {":p": {"S": "lek"}, ":s": {"S": "2"}}, "Limit": 2});
        if let Some(k) = start {
            q["ExclusiveStartKey"] = k;
        }
        q
    };
    let [(s1, ours), (s2, local)] = both.call("Query", bounded(None)).await;
    assert_eq!((s1, s2), (200, 200), "{ours} {local}");
    let last = json!({"PK": {"S": "lek"}, "SK": {"S": "2"}});
    assert_eq!(ours["LastEvaluatedKey"], last, "{ours}");
    assert_eq!(
        (ours["Count"].clone(), local["Count"].clone()),
        (json!(2), json!(2))
    );
    assert!(local.get("LastEvaluatedKey").is_none(), "{local}");
    let [(s1, ours), (s2, local)] = both.call("Query", bounded(Some(last))).await;
    assert_eq!(s1, 200, "{ours}");
    assert_eq!(ours, json!({"Items": [], "Count": 0, "ScannedCount": 0}));
    assert_eq!(
        (s2, error_message(&local).as_str()),
        (
            400,
            "The provided starting key does not match the range key predicate"
        )
    );

    // 17. "No two actions can target the same item" (API reference,
    //     TransactWriteItems): such a request is refused up front with
    //     "Transaction request cannot include multiple operations on one
    //     item", whatever the actions' conditions. Local refuses it only
    //     when both pass their conditions; here the first fails, and Local
    //     cancels the transaction with its reason.
    let missing = json!({"PK": {"S": "tx"}, "SK": {"S": "1"}});
    let twice = json!({"TransactItems": [
        {"ConditionCheck": {"TableName": "", "Key": missing, "ConditionExpression": "attribute_exists(PK)"}},
        {"Put": {"TableName": "", "Item": missing}}]});
    let on = |table: &str| with_table(&twice, table);
    let (s1, ours) = call(&both.ours.0, "TransactWriteItems", &on(&both.ours.1)).await;
    let (s2, local) = call(&both.local.0, "TransactWriteItems", &on(&both.local.1)).await;
    assert_eq!(
        (
            s1,
            error_name(&ours).as_str(),
            error_message(&ours).as_str()
        ),
        (
            400,
            "ValidationException",
            "Transaction request cannot include multiple operations on one item"
        )
    );
    assert_eq!(
        (s2, error_name(&local).as_str()),
        (400, "TransactionCanceledException"),
        "{local}"
    );
    assert_eq!(
        local["CancellationReasons"][0]["Code"],
        "ConditionalCheckFailed"
    );

    // 23. A body over the request size limit (16 MB, BatchWriteItem's) is
    //     answered 413 `RequestEntityTooLargeException`, naming the limit
    //     and the operation; Local answers 413 with an empty `Message` and
    //     no error type.
    let big = format!(
        r#"{{"TableName": "{}", "Item": {{"PK": {{"S": "big"}}, "SK": {{"S": "1"}}, "d": {{"S": "{}"}}}}}}"#,
        both.ours.1,
        "x".repeat(17 * 1024 * 1024)
    );
    let [(s1, ours), (s2, local)] = both.raw(Some(&target("PutItem")), big.as_bytes()).await;
    assert_eq!((s1, s2), (413, 413));
    assert_eq!(error_name(&ours), "RequestEntityTooLargeException");
    assert_eq!(
        error_message(&ours),
        "Request must be smaller than 16777216 bytes for the PutItem operation"
    );
    assert!(local.get("__type").is_none(), "{local}");
    assert_eq!(error_message(&local), "");
}

/// `body` with every empty `TableName` set to `table`.
fn with_table(body: &Value, table: &str) -> Value {
    match body {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("TableName", Value::String(t)) if t.is_empty() => (k.clone(), json!(table)),
                    _ => (k.clone(), with_table(v, table)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| with_table(v, table)).collect()),
        other => other.clone(),
    }
}
