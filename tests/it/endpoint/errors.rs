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
