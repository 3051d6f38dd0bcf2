//! One case per expression validation rule, on the endpoint and on
//! DynamoDB Local: the same error type and message where Local agrees with
//! DynamoDB's documentation.

use serde_json::{Value, json};
use singletable_server::Endpoint;

use super::http::{create_table as create, error_message, error_name, post, start};
use crate::support;

/// `(rule, operation, request)`; `TABLE` is replaced by the table's name.
fn cases() -> Vec<(&'static str, &'static str, Value)> {
    let key = json!({"PK": {"S": "a"}});
    vec![
        (
            "reserved word",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET status = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}),
        ),
        (
            "value not defined",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET a = :missing"}),
        ),
        (
            "name not defined",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET #missing = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}),
        ),
        (
            "value unused",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"S": "x"}, ":x": {"S": "y"}}}),
        ),
        (
            "name unused",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET a = :v", "ExpressionAttributeNames": {"#x": "x"}, "ExpressionAttributeValues": {":v": {"S": "x"}}}),
        ),
        (
            "syntax",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET a = = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}),
        ),
        (
            "syntax at the end",
            "PutItem",
            json!({"Item": key, "ConditionExpression": "a ="}),
        ),
        (
            "section twice",
            "UpdateItem",
            json!({"Key": key, "UpdateExpression": "SET a = :v SET b = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}),
        ),
        (
            "empty expression",
            "PutItem",
            json!({"Item": key, "ConditionExpression": ""}),
        ),
        (
            "too long",
            "PutItem",
            json!({"Item": key, "ConditionExpression": format!("attribute_exists(a){}", " AND attribute_exists(a)".repeat(200))}),
        ),
        (
            "unknown function",
            "PutItem",
            json!({"Item": key, "ConditionExpression": "frob(a)"}),
        ),
        (
            "empty value map",
            "PutItem",
            json!({"Item": key, "ConditionExpression": "attribute_exists(a)", "ExpressionAttributeValues": {}}),
        ),
        (
            "key condition OR",
            "Query",
            json!({"KeyConditionExpression": "PK = :a OR PK = :b", "ExpressionAttributeValues": {":a": {"S": "a"}, ":b": {"S": "b"}}}),
        ),
        (
            "reserved word in projection",
            "GetItem",
            json!({"Key": key, "ProjectionExpression": "name"}),
        ),
    ]
}

/// Rules where DynamoDB Local's answer departs from DynamoDB's
/// documentation (or from the endpoint's wording): compared by type only.
const TYPE_ONLY: &[&str] = &[
    "too long",
    "syntax",
    "syntax at the end",
    "unknown function",
    "empty value map",
    "key condition OR",
    "section twice",
    "empty expression",
];

#[tokio::test]
async fn expression_errors_match_dynamodb() {
    let url = start(Endpoint::new()).await;
    let local = support::endpoint();
    let ours = "ExprErrors";
    let theirs = support::unique_table("ExprErrors");
    create(&url, ours).await;
    create(&local, &theirs).await;
    let mut report = Vec::new();
    for (rule, op, mut body) in cases() {
        let target = format!("DynamoDB_20120810.{op}");
        body["TableName"] = json!(ours);
        let a = post(&url, Some(&target), body.to_string().as_bytes()).await;
        body["TableName"] = json!(theirs);
        let b = post(&local, Some(&target), body.to_string().as_bytes()).await;
        assert_eq!(
            a.status,
            400,
            "{rule}: {}",
            String::from_utf8_lossy(&a.body)
        );
        assert_eq!(
            b.status,
            400,
            "{rule} on Local: {}",
            String::from_utf8_lossy(&b.body)
        );
        let (ja, jb) = (a.json(), b.json());
        let same_type = error_name(&ja) == error_name(&jb);
        let same_message = error_message(&ja) == error_message(&jb);
        if !same_type || (!same_message && !TYPE_ONLY.contains(&rule)) {
            report.push(format!(
                "{rule}:\n  endpoint {} {}\n  local    {} {}",
                error_name(&ja),
                error_message(&ja),
                error_name(&jb),
                error_message(&jb)
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// What a case expects of the endpoint's refusal and of DynamoDB Local's.
enum Expect {
    /// Local words it as DynamoDB does: the same error type and message.
    AsLocal,
    /// Local departs from DynamoDB (a case of docs/endpoint.md's list):
    /// the endpoint's type and message are DynamoDB's, and Local's message
    /// is the one given, so a Local that changes leaves the list.
    Dynamodb {
        error: &'static str,
        message: &'static str,
        local: &'static str,
    },
}

/// `(what, operation, request, expectation)`. `TableName` `@hash` names a
/// table with a string partition key `PK`, `@sort` one with `PK` and a
/// string sort key `SK`, `@provisioned` a provisioned (5, 5) one with `PK`.
fn message_cases() -> Vec<(&'static str, &'static str, Value, Expect)> {
    use Expect::{AsLocal, Dynamodb};
    let key = json!({"PK": {"S": "a"}});
    let unused = json!({":v": {"S": "x"}});
    let valid = "ValidationException";
    vec![
        (
            "values without a condition",
            "PutItem",
            json!({"TableName": "@hash", "Item": key, "ExpressionAttributeValues": unused}),
            AsLocal,
        ),
        (
            "values without an update or a condition",
            "UpdateItem",
            json!({"TableName": "@hash", "Key": key, "ExpressionAttributeValues": unused}),
            AsLocal,
        ),
        (
            "values without a filter",
            "Scan",
            json!({"TableName": "@hash", "ExpressionAttributeValues": unused}),
            AsLocal,
        ),
        (
            "a character of no token",
            "GetItem",
            json!({"TableName": "@hash", "Key": key, "ProjectionExpression": "!!! INVALID !!!"}),
            AsLocal,
        ),
        (
            "a character of no token between two",
            "GetItem",
            json!({"TableName": "@hash", "Key": key, "ProjectionExpression": "a, !=b"}),
            AsLocal,
        ),
        (
            "an empty binary set",
            "PutItem",
            json!({"TableName": "@hash", "Item": {"PK": {"S": "a"}, "b": {"BS": []}}}),
            AsLocal,
        ),
        (
            "several model violations at once",
            "DeleteItem",
            json!({"TableName": "@hash", "Key": key, "ReturnValues": "BAD", "ReturnConsumedCapacity": "WORSE"}),
            Dynamodb {
                error: valid,
                message: "2 validation errors detected: Value 'BAD' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; Value 'WORSE' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
                local: "Return values set to invalid value",
            },
        ),
        (
            "an empty table name",
            "PutItem",
            json!({"TableName": "", "Item": key, "ReturnValues": "BAD"}),
            Dynamodb {
                error: valid,
                message: "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1",
                local: "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'",
            },
        ),
        (
            "a table name outside the pattern",
            "PutItem",
            json!({"TableName": "bad table!", "Item": key}),
            Dynamodb {
                error: valid,
                message: "1 validation error detected: Value 'bad table!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
                local: "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'",
            },
        ),
        (
            "a table that does not exist",
            "GetItem",
            json!({"TableName": "NoSuchTableHere", "Key": key}),
            Dynamodb {
                error: "ResourceNotFoundException",
                message: "Requested resource not found",
                local: "Cannot do operations on a non-existent table",
            },
        ),
        (
            "a key without its sort key",
            "DeleteItem",
            json!({"TableName": "@sort", "Key": key}),
            Dynamodb {
                error: valid,
                message: "The provided key element does not match the schema",
                local: "The number of conditions on the keys is invalid",
            },
        ),
        (
            "a key condition without the partition key",
            "Query",
            json!({"TableName": "@sort", "KeyConditionExpression": "SK = :v", "ExpressionAttributeValues": unused}),
            Dynamodb {
                error: valid,
                message: "Query condition missed key schema element: PK",
                local: "Query condition missed key schema element",
            },
        ),
        (
            "no RequestItems",
            "BatchGetItem",
            json!({"RequestItems": {}}),
            Dynamodb {
                error: valid,
                message: "The requestItems parameter is required for BatchGetItem",
                local: "BatchGetItem must have some requests set",
            },
        ),
        (
            "no TransactItems",
            "TransactWriteItems",
            json!({"TransactItems": []}),
            Dynamodb {
                error: valid,
                message: "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
                local: "Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
            },
        ),
        (
            "a set holding a member twice",
            "PutItem",
            json!({"TableName": "@hash", "Item": {"PK": {"S": "a"}, "s": {"SS": ["x", "x"]}}}),
            Dynamodb {
                error: valid,
                message: "One or more parameter values were invalid: Input collection [x, x] contains duplicates.",
                local: "One or more parameter values were invalid: Input collection [x, x] contains duplicates",
            },
        ),
        (
            "CreateTable without a name",
            "CreateTable",
            json!({"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}),
            Dynamodb {
                error: valid,
                message: "The parameter 'TableName' is required but was not present in the request",
                local: "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'",
            },
        ),
        (
            "a table key naming one attribute twice",
            "CreateTable",
            json!({"TableName": "TwiceKeyed", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "PK", "KeyType": "RANGE"}],
                "BillingMode": "PAY_PER_REQUEST"}),
            Dynamodb {
                error: valid,
                message: "Invalid KeySchema: Some index key attribute have no definition",
                local: "Two keys can not have the same name",
            },
        ),
        (
            "a local index on a table without a sort key",
            "CreateTable",
            json!({"TableName": "LocalOnHash", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                "LocalSecondaryIndexes": [{"IndexName": "byL", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
            Dynamodb {
                error: valid,
                message: "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
                local: "Local Secondary indices are not allowed on hash tables, only hash and range tables",
            },
        ),
        (
            "two indexes of one name",
            "CreateTable",
            json!({"TableName": "SameIndexNames", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "A", "AttributeType": "S"}, {"AttributeName": "B", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [
                    {"IndexName": "same", "KeySchema": [{"AttributeName": "A", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
                    {"IndexName": "same", "KeySchema": [{"AttributeName": "B", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}),
            Dynamodb {
                error: valid,
                message: "One or more parameter values were invalid: Duplicate index name: same",
                local: "Two global secondary indices have the same name",
            },
        ),
        (
            "the throughput a table has",
            "UpdateTable",
            json!({"TableName": "@provisioned", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}),
            Dynamodb {
                error: valid,
                message: "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
                local: "The requested throughput value equals the current value",
            },
        ),
        (
            "throughput with PAY_PER_REQUEST",
            "UpdateTable",
            json!({"TableName": "@provisioned", "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}),
            Dynamodb {
                error: valid,
                message: "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
                local: "The requested throughput value equals the current value",
            },
        ),
    ]
}

/// The three tables of [`message_cases`] on `url`, named after `prefix`.
async fn message_tables(url: &str, prefix: &str) -> [(String, String); 3] {
    let names = [
        ("@hash", format!("{prefix}Hash")),
        ("@sort", format!("{prefix}Sort")),
        ("@provisioned", format!("{prefix}Prov")),
    ];
    create(url, &names[0].1).await;
    let defs = |sort: bool| {
        let mut d = vec![json!({"AttributeName": "PK", "AttributeType": "S"})];
        let mut k = vec![json!({"AttributeName": "PK", "KeyType": "HASH"})];
        if sort {
            d.push(json!({"AttributeName": "SK", "AttributeType": "S"}));
            k.push(json!({"AttributeName": "SK", "KeyType": "RANGE"}));
        }
        (d, k)
    };
    let (d, k) = defs(true);
    let (s, r) = super::http::call(
        url,
        "CreateTable",
        &json!({"TableName": names[1].1,
        "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": d, "KeySchema": k}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let (d, k) = defs(false);
    let (s, r) = super::http::call(
        url,
        "CreateTable",
        &json!({"TableName": names[2].1,
        "AttributeDefinitions": d, "KeySchema": k,
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    names.map(|(marker, name)| (marker.to_owned(), name))
}

fn with_tables(body: &Value, tables: &[(String, String); 3]) -> Value {
    let mut body = body.clone();
    if let Some((_, name)) = tables.iter().find(|(m, _)| body["TableName"] == *m) {
        body["TableName"] = json!(name);
    }
    body
}

/// DynamoDB's wording of the refusals where the endpoint used to word them
/// otherwise: compared with DynamoDB Local where Local words them as
/// DynamoDB does, and DynamoDB's own wording (as recorded against
/// DynamoDB) asserted beside Local's differing one where it does not.
#[tokio::test]
async fn validation_messages_match_dynamodb() {
    let url = start(Endpoint::new()).await;
    let local = support::endpoint();
    let ours = message_tables(&url, "Msg").await;
    let theirs = message_tables(&local, &support::unique_table("Msg")).await;
    let mut report = Vec::new();
    for (what, op, body, expect) in message_cases() {
        let (s1, a) = super::http::call(&url, op, &with_tables(&body, &ours)).await;
        let (s2, b) = super::http::call(&local, op, &with_tables(&body, &theirs)).await;
        let got = format!(
            "{what}:\n  endpoint {s1} {} {}\n  local    {s2} {} {}",
            error_name(&a),
            error_message(&a),
            error_name(&b),
            error_message(&b)
        );
        let fine = match expect {
            Expect::AsLocal => {
                (s1, s2) == (400, 400)
                    && error_name(&a) == error_name(&b)
                    && error_message(&a) == error_message(&b)
            }
            Expect::Dynamodb {
                error,
                message,
                local,
            } => {
                (s1, s2) == (400, 400)
                    && error_name(&a) == error
                    && error_message(&a) == message
                    && error_message(&b) == local
            }
        };
        if !fine {
            report.push(got);
        }
    }

    // A TransactGetItems key of the wrong shape cancels the transaction
    // with a `ValidationError` reason for it (DynamoDB's per-action
    // validation); Local cancels it with a message and no reasons.
    let get = |tables: &[(String, String); 3]| json!({"TransactItems": [{"Get": {"TableName": tables[1].1, "Key": {"PK": {"S": "a"}}}}]});
    let (s1, a) = super::http::call(&url, "TransactGetItems", &get(&ours)).await;
    let (s2, b) = super::http::call(&local, "TransactGetItems", &get(&theirs)).await;
    assert_eq!((s1, s2), (400, 400));
    assert_eq!(error_name(&a), "TransactionCanceledException");
    assert_eq!(error_name(&b), "TransactionCanceledException");
    assert_eq!(
        error_message(&a),
        "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"
    );
    assert_eq!(
        a["CancellationReasons"][0]["Code"], "ValidationError",
        "{a}"
    );
    assert_eq!(
        error_message(&b),
        "The number of conditions on the keys is invalid"
    );
    assert!(b.get("CancellationReasons").is_none(), "{b}");

    assert!(report.is_empty(), "{}", report.join("\n"));
}
