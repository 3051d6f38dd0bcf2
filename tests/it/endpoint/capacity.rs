//! `ReturnConsumedCapacity=INDEXES` on writes: the units of each index
//! whose entries a write changed (`GlobalSecondaryIndexes`,
//! `LocalSecondaryIndexes`), the item's own on `Table`, their sum in
//! `CapacityUnits` (API reference, ConsumedCapacity), on every write
//! operation, the same figures as DynamoDB Local's.

use serde_json::{Value, json};
use singletable_server::Endpoint;

use super::http::{call, start};
use crate::support;

/// A table with a global index projecting everything (`gix`), one
/// projecting keys (`gix2`), both on `G`, and a local index on `L`.
async fn create(url: &str, table: &str) {
    let (status, r) = call(
        url,
        "CreateTable",
        &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [
                {"IndexName": "gix", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "gix2", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            "LocalSecondaryIndexes": [
                {"IndexName": "lix", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
    )
    .await;
    assert_eq!(status, 200, "{r}");
}

/// The writes, each with `ReturnConsumedCapacity=INDEXES` and `TABLE` for
/// the table's name.
fn writes() -> Vec<(&'static str, Value)> {
    let body = "x".repeat(1500);
    let k = |pk: &str, sk: &str| json!({"PK": {"S": pk}, "SK": {"S": sk}});
    vec![
        // 1.5 KB in the table and in the two indexes projecting it all,
        // the keys alone in gix2.
        (
            "PutItem",
            json!({"TableName": "TABLE", "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "G": {"S": "x"},
                "L": {"S": "y"}, "b": {"S": body}}}),
        ),
        // Moves the entries of both global indexes (a delete and a put
        // each) and changes lix's.
        (
            "UpdateItem",
            json!({"TableName": "TABLE", "Key": k("a", "1"), "UpdateExpression": "SET G = :g",
                "ExpressionAttributeValues": {":g": {"S": "z"}}}),
        ),
        // Changes an attribute gix2 does not project: gix2 is not written.
        (
            "UpdateItem",
            json!({"TableName": "TABLE", "Key": k("a", "1"), "UpdateExpression": "SET c = :c",
                "ExpressionAttributeValues": {":c": {"N": "1"}}}),
        ),
        (
            "DeleteItem",
            json!({"TableName": "TABLE", "Key": k("a", "1")}),
        ),
        // No index key: no index is named.
        (
            "PutItem",
            json!({"TableName": "TABLE", "Item": {"PK": {"S": "d"}, "SK": {"S": "1"}}}),
        ),
        (
            "BatchWriteItem",
            json!({"RequestItems": {"TABLE": [
                {"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}, "G": {"S": "x"}}}},
                {"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "2"}, "L": {"S": "x"}}}}]}}),
        ),
        // Doubled; the condition check bills the table alone.
        (
            "TransactWriteItems",
            json!({"TransactItems": [
                {"Put": {"TableName": "TABLE", "Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "G": {"S": "x"}}}},
                {"ConditionCheck": {"TableName": "TABLE", "Key": k("b", "1"), "ConditionExpression": "attribute_exists(PK)"}}]}),
        ),
    ]
}

#[tokio::test]
async fn write_capacity_is_reported_per_index() {
    let ours = start(Endpoint::new()).await;
    let local = support::endpoint();
    let mut seen = Vec::new();
    for (url, table) in [
        (ours, "PerIndex".to_owned()),
        (local, support::unique_table("PerIndex")),
    ] {
        create(&url, &table).await;
        let mut capacities = Vec::new();
        for (op, body) in writes() {
            let mut body: Value = serde_json::from_str(
                &body
                    .to_string()
                    .replace("\"TABLE\"", &format!("\"{table}\"")),
            )
            .unwrap();
            body["ReturnConsumedCapacity"] = json!("INDEXES");
            let (status, r) = call(&url, op, &body).await;
            assert_eq!(status, 200, "{op} {r}");
            let c = r["ConsumedCapacity"].clone();
            // Batches and transactions report a list, one entry a table.
            let c = c.as_array().map_or(c.clone(), |l| l[0].clone());
            let mut c = c.as_object().cloned().unwrap_or_default();
            c.remove("TableName");
            capacities.push(Value::Object(c));
        }
        seen.push(capacities);
    }
    let units = |n: f64| json!({"CapacityUnits": n});
    assert_eq!(
        seen[0][0],
        json!({"CapacityUnits": 7.0, "Table": units(2.0), "LocalSecondaryIndexes": {"lix": units(2.0)},
            "GlobalSecondaryIndexes": {"gix": units(2.0), "gix2": units(1.0)}})
    );
    assert_eq!(
        seen[0][1],
        json!({"CapacityUnits": 10.0, "Table": units(2.0), "LocalSecondaryIndexes": {"lix": units(2.0)},
            "GlobalSecondaryIndexes": {"gix": units(4.0), "gix2": units(2.0)}})
    );
    assert_eq!(
        seen[0][4],
        json!({"CapacityUnits": 1.0, "Table": units(1.0)})
    );
    assert_eq!(
        seen[0][6],
        json!({"CapacityUnits": 8.0, "Table": units(4.0),
            "GlobalSecondaryIndexes": {"gix": units(2.0), "gix2": units(2.0)}})
    );
    for (i, (ours, local)) in seen[0].iter().zip(&seen[1]).enumerate() {
        assert_eq!(ours, local, "write {i}: {:?}", writes()[i].0);
    }
}
