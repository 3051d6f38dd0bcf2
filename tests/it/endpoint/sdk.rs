//! Plain aws-sdk-dynamodb code, unchanged, on the in-process endpoint and
//! on DynamoDB Local: the same answers.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ReturnValue,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType,
};
use singletable_server::Endpoint;

use crate::support;

fn sorted(item: &std::collections::HashMap<String, AttributeValue>) -> BTreeMap<String, String> {
    item.iter()
        .map(|(k, v)| (k.clone(), format!("{v:?}")))
        .collect()
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}

/// A client of the endpoint at `url`, with DynamoDB Local's test
/// credentials.
pub(super) fn client(url: String) -> Client {
    Client::from_conf(
        aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(url)
            .credentials_provider(Credentials::new("test", "test", None, None, "static"))
            .build(),
    )
}

/// An on-demand table keyed on a string `PK` and an `SK` of type `sk`.
async fn create(client: &Client, table: &str, sk: ScalarAttributeType) {
    keyed_on_pk(client, table)
        .attribute_definitions(def("SK", sk))
        .key_schema(key("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

/// The CreateTable of `table` with a string partition key `PK`, for the
/// caller to finish.
pub(super) fn keyed_on_pk(
    client: &Client,
    table: &str,
) -> aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder {
    client
        .create_table()
        .table_name(table)
        .attribute_definitions(def("PK", ScalarAttributeType::S))
        .key_schema(key("PK", KeyType::Hash))
}

pub(super) fn def(name: &str, kind: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(kind)
        .build()
        .unwrap()
}

pub(super) fn key(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .unwrap()
}

/// What an application would write: every answer it sees, as text.
async fn application(client: &Client, table: &str) -> Vec<String> {
    let mut seen = Vec::new();
    create(client, table, ScalarAttributeType::S).await;
    for (sk, total, status) in [
        ("ORDER#1", "10", "NEW"),
        ("ORDER#2", "25.50", "SHIPPED"),
        ("ORDER#3", "7", "NEW"),
        ("PROFILE", "0", "-"),
    ] {
        client
            .put_item()
            .table_name(table)
            .item("PK", s("USER#ana"))
            .item("SK", s(sk))
            .item("total", n(total))
            .item("status", s(status))
            .item("tags", AttributeValue::Ss(vec!["a".into(), "b".into()]))
            .send()
            .await
            .unwrap();
    }
    let got = client
        .get_item()
        .table_name(table)
        .key("PK", s("USER#ana"))
        .key("SK", s("ORDER#2"))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    seen.push(format!("get {:?}", got.item().map(sorted)));
    let got = client
        .get_item()
        .table_name(table)
        .key("PK", s("USER#ana"))
        .key("SK", s("ORDER#2"))
        .projection_expression("#t, tags")
        .expression_attribute_names("#t", "total")
        .send()
        .await
        .unwrap();
    seen.push(format!("get projected {:?}", got.item().map(sorted)));
    let q = client
        .query()
        .table_name(table)
        .key_condition_expression("PK = :pk AND begins_with(SK, :o)")
        .filter_expression("#s = :new AND #tot >= :min")
        .expression_attribute_names("#s", "status")
        .expression_attribute_names("#tot", "total")
        .expression_attribute_values(":pk", s("USER#ana"))
        .expression_attribute_values(":o", s("ORDER#"))
        .expression_attribute_values(":new", s("NEW"))
        .expression_attribute_values(":min", n("5"))
        .scan_index_forward(false)
        .send()
        .await
        .unwrap();
    seen.push(format!(
        "query {} of {} {:?}",
        q.count(),
        q.scanned_count(),
        q.items().iter().map(sorted).collect::<Vec<_>>()
    ));
    let q = client
        .query()
        .table_name(table)
        .key_condition_expression("PK = :pk AND SK BETWEEN :a AND :b")
        .expression_attribute_values(":pk", s("USER#ana"))
        .expression_attribute_values(":a", s("ORDER#2"))
        .expression_attribute_values(":b", s("ORDER#9"))
        .limit(1)
        .send()
        .await
        .unwrap();
    seen.push(format!(
        "query page {:?} next {:?}",
        q.items().iter().map(sorted).collect::<Vec<_>>(),
        q.last_evaluated_key().map(sorted)
    ));
    let u = client
        .update_item()
        .table_name(table)
        .key("PK", s("USER#ana"))
        .key("SK", s("ORDER#1"))
        .update_expression(
            "SET #tot = #tot + :d, notes = if_not_exists(notes, :note) REMOVE tags ADD visits :one",
        )
        .expression_attribute_names("#tot", "total")
        .expression_attribute_values(":d", n("0.5"))
        .expression_attribute_values(":one", n("1"))
        .expression_attribute_values(":note", AttributeValue::L(vec![s("gift")]))
        .return_values(ReturnValue::UpdatedNew)
        .send()
        .await
        .unwrap();
    seen.push(format!("update {:?}", u.attributes().map(sorted)));
    let failed = client
        .put_item()
        .table_name(table)
        .item("PK", s("USER#ana"))
        .item("SK", s("ORDER#1"))
        .condition_expression("attribute_not_exists(PK)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    seen.push(format!(
        "conditional failure {} {:?} item {:?}",
        failed.is_conditional_check_failed_exception(),
        failed.meta().message(),
        match &failed {
            aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(e) => e.item().map(sorted),
            _ => None,
        }
    ));
    let d = client
        .delete_item()
        .table_name(table)
        .key("PK", s("USER#ana"))
        .key("SK", s("ORDER#3"))
        .condition_expression("#s IN (:a, :b)")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":a", s("NEW"))
        .expression_attribute_values(":b", s("OLD"))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    seen.push(format!("delete {:?}", d.attributes().map(sorted)));
    let scan = client
        .scan()
        .table_name(table)
        .filter_expression("size(SK) > :n")
        .expression_attribute_values(":n", n("7"))
        .send()
        .await
        .unwrap();
    seen.push(format!(
        "scan {} {:?}",
        scan.count(),
        scan.items().iter().map(sorted).collect::<Vec<_>>()
    ));
    let missing = client
        .get_item()
        .table_name("NoSuchTable")
        .key("PK", s("x"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    seen.push(format!(
        "missing table {}",
        missing.is_resource_not_found_exception()
    ));
    client
        .delete_table()
        .table_name(table)
        .send()
        .await
        .unwrap();
    seen
}

#[tokio::test]
async fn unchanged_sdk_code_runs_in_process() {
    let endpoint = Endpoint::new();
    let in_process = application(&endpoint.client(), "Orders").await;
    let local = client(support::endpoint());
    let on_local = application(&local, &support::unique_table("Orders")).await;
    assert_eq!(in_process.len(), on_local.len());
    for (a, b) in in_process.iter().zip(&on_local) {
        assert_eq!(a, b);
    }
}

/// One transaction with a client token, as the SDKs retry it: 40 times the
/// same request (built anew each time, so its maps are filled in another
/// order), then a different one with the same token. What the application
/// sees: how many were answered, the counter the transaction increments,
/// and the error of the different request.
async fn token_retries(client: &Client, table: &str) -> (usize, String, String) {
    create(client, table, ScalarAttributeType::S).await;
    client
        .put_item()
        .table_name(table)
        .item("PK", s("COUNTER"))
        .item("SK", s("orders"))
        .item("n", n("0"))
        .send()
        .await
        .unwrap();
    let transaction = |note: &str| {
        use aws_sdk_dynamodb::types::{Put, TransactWriteItem, Update};
        let nested = AttributeValue::M(
            [
                ("city".to_owned(), s("Lisbon")),
                ("zip".to_owned(), n("1000")),
                (
                    "geo".to_owned(),
                    AttributeValue::M(
                        [("lat".to_owned(), n("38.7")), ("lon".to_owned(), n("-9.1"))].into(),
                    ),
                ),
            ]
            .into(),
        );
        let order = Put::builder()
            .table_name(table)
            .item("PK", s("ORDER#1"))
            .item("SK", s("ORDER#1"))
            .item("status", s("PLACED"))
            .item("total", n("42.50"))
            .item("note", s(note))
            .item("address", nested.clone())
            .item("tags", AttributeValue::Ss(vec!["a".into(), "b".into()]))
            .condition_expression("attribute_not_exists(PK)")
            .build()
            .unwrap();
        let line = Put::builder()
            .table_name(table)
            .item("PK", s("ORDER#1"))
            .item("SK", s("LINE#1"))
            .item("sku", s("BOOK"))
            .item("qty", n("2"))
            .item("shipping", nested)
            .build()
            .unwrap();
        let count = Update::builder()
            .table_name(table)
            .key("PK", s("COUNTER"))
            .key("SK", s("orders"))
            .update_expression("SET #n = #n + :one, #last = :last")
            .expression_attribute_names("#n", "n")
            .expression_attribute_names("#last", "last")
            .expression_attribute_values(":one", n("1"))
            .expression_attribute_values(":last", s("ORDER#1"))
            .build()
            .unwrap();
        client
            .transact_write_items()
            .client_request_token("order-1-token")
            .transact_items(TransactWriteItem::builder().put(order).build())
            .transact_items(TransactWriteItem::builder().put(line).build())
            .transact_items(TransactWriteItem::builder().update(count).build())
    };
    let mut answered = 0;
    for _ in 0..40 {
        match transaction("leave at the door").send().await {
            Ok(_) => answered += 1,
            Err(e) => panic!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&e)),
        }
    }
    let counter = client
        .get_item()
        .table_name(table)
        .key("PK", s("COUNTER"))
        .key("SK", s("orders"))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    let count = format!("{:?}", counter.item().unwrap()["n"]);
    let other = transaction("ring twice").send().await.unwrap_err();
    let code = other
        .into_service_error()
        .meta()
        .code()
        .unwrap_or("")
        .to_owned();
    (answered, count, code)
}

/// A `ClientRequestToken` makes TransactWriteItems idempotent: the same
/// transaction sent 40 times with one token (keys of two attributes, maps
/// inside its items) is answered every time and applied once; a different
/// one with the token is refused. Through the SDK over HTTP, on the
/// endpoint and on DynamoDB Local alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_request_token_makes_transactions_idempotent() {
    let url = super::http::start(Endpoint::new()).await;
    let ours = token_retries(&client(url), "Orders").await;
    assert_eq!(
        ours,
        (
            40,
            format!("{:?}", n("1")),
            "IdempotentParameterMismatchException".to_owned()
        )
    );
    let local = client(support::endpoint());
    let theirs = token_retries(&local, &support::unique_table("Orders")).await;
    assert_eq!(ours, theirs);
}

/// A table whose sort key is binary, queried with `begins_with` on a binary
/// prefix (and with a string prefix and a number, which DynamoDB refuses):
/// what the application sees, as text.
async fn binary_prefixes(client: &Client, table: &str) -> Vec<String> {
    use aws_sdk_dynamodb::primitives::Blob;
    let b = |bytes: &[u8]| AttributeValue::B(Blob::new(bytes));
    create(client, table, ScalarAttributeType::B).await;
    // Prefixes that share bytes, bytes past 0x7F, an empty-prefix edge
    // (0x00) and 0xFF (whose successor is no byte).
    let keys: [&[u8]; 8] = [
        &[0x00],
        &[0x01, 0x02],
        &[0x01, 0x02, 0x03],
        &[0x01, 0x03],
        &[0x01, 0xFF],
        &[0x01, 0xFF, 0x00],
        &[0xFF, 0x01],
        &[0xFF],
    ];
    for k in keys {
        client
            .put_item()
            .table_name(table)
            .item("PK", s("P"))
            .item("SK", b(k))
            .item("data", b(k))
            .send()
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    let prefixes: [AttributeValue; 6] = [
        b(&[0x01]),
        b(&[0x01, 0x02]),
        b(&[0x01, 0xFF]),
        b(&[0xFF]),
        s("x"),
        n("1"),
    ];
    for prefix in prefixes {
        for forward in [true, false] {
            let out = client
                .query()
                .table_name(table)
                .key_condition_expression("PK = :p AND begins_with(SK, :b)")
                .expression_attribute_values(":p", s("P"))
                .expression_attribute_values(":b", prefix.clone())
                .scan_index_forward(forward)
                .send()
                .await;
            seen.push(match out {
                Ok(out) => format!(
                    "{prefix:?} forward={forward}: {:?}",
                    out.items()
                        .iter()
                        .map(|i| format!("{:?}", i["SK"]))
                        .collect::<Vec<_>>()
                ),
                Err(e) => {
                    let e = e.into_service_error();
                    format!(
                        "{prefix:?}: {} {}",
                        e.meta().code().unwrap_or_default(),
                        e.meta().message().unwrap_or_default()
                    )
                }
            });
        }
    }
    // The same function in a filter, on a binary attribute that is no key.
    let out = client
        .query()
        .table_name(table)
        .key_condition_expression("PK = :p")
        .filter_expression("begins_with(#data, :b)")
        .expression_attribute_names("#data", "data")
        .expression_attribute_values(":p", s("P"))
        .expression_attribute_values(":b", b(&[0x01, 0x02]))
        .send()
        .await
        .unwrap();
    seen.push(format!("filter: {:?}", out.items().len()));
    seen
}

/// `begins_with` on a binary sort key in a key condition reads the items
/// whose key starts with the prefix's bytes, in order both ways, on the
/// endpoint as on DynamoDB Local; a string or number prefix is refused as
/// DynamoDB refuses it.
#[tokio::test]
async fn binary_sort_keys_support_begins_with() {
    let url = super::http::start(Endpoint::new()).await;
    let ours = binary_prefixes(&client(url), "Blobs").await;
    let local = client(support::endpoint());
    let theirs = binary_prefixes(&local, &support::unique_table("Blobs")).await;
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b);
    }
    assert_eq!(ours.len(), theirs.len());
    // Two items start with 0x01 0x02: the answer holds them, in order.
    assert!(
        ours[2]
            .ends_with(r#"forward=true: ["B(Blob { inner: 0102 })", "B(Blob { inner: 010203 })"]"#),
        "{}",
        ours[2]
    );
}

/// Tags as an application uses them: added, listed, overwritten, removed,
/// listed again; and a resource that does not exist. What it sees, as text.
async fn tag_story(client: &Client, table: &str) -> Vec<String> {
    use aws_sdk_dynamodb::types::Tag;
    create(client, table, ScalarAttributeType::S).await;
    let arn = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .unwrap()
        .table()
        .and_then(|t| t.table_arn())
        .unwrap()
        .to_owned();
    let tag = |k: &str, v: &str| Tag::builder().key(k).value(v).build().unwrap();
    let list = || async {
        let mut tags: Vec<String> = client
            .list_tags_of_resource()
            .resource_arn(&arn)
            .send()
            .await
            .unwrap()
            .tags()
            .iter()
            .map(|t| format!("{}={}", t.key(), t.value()))
            .collect();
        tags.sort();
        tags.join(",")
    };
    let mut seen = vec![list().await];
    client
        .tag_resource()
        .resource_arn(&arn)
        .tags(tag("team", "orders"))
        .tags(tag("env", "test"))
        .send()
        .await
        .unwrap();
    seen.push(list().await);
    client
        .tag_resource()
        .resource_arn(&arn)
        .tags(tag("env", "prod"))
        .send()
        .await
        .unwrap();
    seen.push(list().await);
    client
        .untag_resource()
        .resource_arn(&arn)
        .tag_keys("team")
        .tag_keys("absent")
        .send()
        .await
        .unwrap();
    seen.push(list().await);
    let missing = arn.replace(table, "NoSuchTable");
    let e = client
        .list_tags_of_resource()
        .resource_arn(missing)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    seen.push(e.meta().code().unwrap_or_default().to_owned());
    seen
}

/// TagResource, UntagResource and ListTagsOfResource through the SDK, as
/// DynamoDB's API reference describes them (a tag of an existing key is
/// overwritten, untagging an absent key is no error, an unknown table is
/// `ResourceNotFoundException`). DynamoDB Local does not implement tags:
/// what it can show is that it refuses them.
#[tokio::test]
async fn tags_round_trip() {
    let url = super::http::start(Endpoint::new()).await;
    let ours = tag_story(&client(url), "Tagged").await;
    assert_eq!(
        ours,
        [
            "",
            "env=test,team=orders",
            "env=prod,team=orders",
            "env=prod",
            "ResourceNotFoundException"
        ]
    );
    let local = client(support::endpoint());
    let table = support::unique_table("Tagged");
    create(&local, &table, ScalarAttributeType::S).await;
    let e = local
        .list_tags_of_resource()
        .resource_arn(format!(
            "arn:aws:dynamodb:ddblocal:000000000000:table/{table}"
        ))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(e.meta().code(), Some("UnknownOperationException"));
}

/// Control-plane requests DynamoDB refuses: what each answered, as text.
async fn control_plane(client: &Client, table: &str) -> Vec<String> {
    use aws_sdk_dynamodb::types::{ProvisionedThroughput, TimeToLiveSpecification};
    fn code<T, E: aws_sdk_dynamodb::error::ProvideErrorMetadata, R>(
        r: Result<T, aws_sdk_dynamodb::error::SdkError<E, R>>,
    ) -> String {
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
        match r {
            Ok(_) => "ok".into(),
            Err(e) => e.code().unwrap_or("(no code)").to_owned(),
        }
    }
    let mut seen = Vec::new();
    // An attribute definition no key uses.
    seen.push(code(
        keyed_on_pk(client, &format!("{table}-unused"))
            .attribute_definitions(def("other", ScalarAttributeType::S))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await,
    ));
    // A key with no definition.
    seen.push(code(
        keyed_on_pk(client, &format!("{table}-undefined"))
            .key_schema(key("SK", KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await,
    ));
    // Provisioned without throughput, on demand with it.
    seen.push(code(
        keyed_on_pk(client, &format!("{table}-nothroughput"))
            .billing_mode(BillingMode::Provisioned)
            .send()
            .await,
    ));
    let throughput = |r: i64, w: i64| {
        ProvisionedThroughput::builder()
            .read_capacity_units(r)
            .write_capacity_units(w)
            .build()
            .unwrap()
    };
    seen.push(code(
        keyed_on_pk(client, &format!("{table}-both"))
            .billing_mode(BillingMode::PayPerRequest)
            .provisioned_throughput(throughput(5, 5))
            .send()
            .await,
    ));
    seen.push(code(
        keyed_on_pk(client, &format!("{table}-zero"))
            .provisioned_throughput(throughput(0, 5))
            .send()
            .await,
    ));
    // A valid provisioned table, then updates DynamoDB refuses.
    seen.push(code(
        keyed_on_pk(client, table)
            .provisioned_throughput(throughput(5, 5))
            .send()
            .await,
    ));
    seen.push(code(
        client
            .update_table()
            .table_name(table)
            .provisioned_throughput(throughput(0, 0))
            .send()
            .await,
    ));
    seen.push(code(
        client
            .update_time_to_live()
            .table_name(table)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .enabled(true)
                    .attribute_name("")
                    .build()
                    .unwrap(),
            )
            .send()
            .await,
    ));
    seen.extend(index_limits(client, table).await);
    seen
}

/// The index quotas: 20 global and 5 local indexes per table, one index
/// created or deleted per UpdateTable. Each answer as its code and message.
async fn index_limits(client: &Client, table: &str) -> Vec<String> {
    use aws_sdk_dynamodb::types::{
        CreateGlobalSecondaryIndexAction, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate,
        LocalSecondaryIndex, Projection, ProjectionType,
    };
    fn said<T, E: aws_sdk_dynamodb::error::ProvideErrorMetadata, R>(
        r: Result<T, aws_sdk_dynamodb::error::SdkError<E, R>>,
    ) -> String {
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
        match r {
            Ok(_) => "ok".into(),
            Err(e) => format!("{}: {}", e.code().unwrap_or("?"), e.message().unwrap_or("")),
        }
    }
    let all = || {
        Projection::builder()
            .projection_type(ProjectionType::All)
            .build()
    };
    let global = |i: usize| {
        GlobalSecondaryIndex::builder()
            .index_name(format!("byA{i}"))
            .key_schema(key(&format!("a{i}"), KeyType::Hash))
            .projection(all())
            .build()
            .unwrap()
    };
    let keyed = |name: String, globals: usize, locals: usize| {
        let mut b = client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(def("PK", ScalarAttributeType::S))
            .attribute_definitions(def("SK", ScalarAttributeType::S))
            .key_schema(key("PK", KeyType::Hash))
            .key_schema(key("SK", KeyType::Range));
        for i in 0..globals {
            b = b
                .attribute_definitions(def(&format!("a{i}"), ScalarAttributeType::S))
                .global_secondary_indexes(global(i));
        }
        for i in 0..locals {
            b = b
                .attribute_definitions(def(&format!("b{i}"), ScalarAttributeType::S))
                .local_secondary_indexes(
                    LocalSecondaryIndex::builder()
                        .index_name(format!("byB{i}"))
                        .key_schema(key("PK", KeyType::Hash))
                        .key_schema(key(&format!("b{i}"), KeyType::Range))
                        .projection(all())
                        .build()
                        .unwrap(),
                );
        }
        b
    };
    let create = |i: usize| {
        GlobalSecondaryIndexUpdate::builder()
            .create(
                CreateGlobalSecondaryIndexAction::builder()
                    .index_name(format!("byA{i}"))
                    .key_schema(key(&format!("a{i}"), KeyType::Hash))
                    .projection(all())
                    .build()
                    .unwrap(),
            )
            .build()
    };
    let full = format!("{table}-full");
    let mut seen = vec![
        said(keyed(format!("{table}-g21"), 21, 0).send().await),
        said(keyed(format!("{table}-l6"), 0, 6).send().await),
        said(keyed(format!("{table}-l5"), 0, 5).send().await),
        said(keyed(full.clone(), 20, 0).send().await),
    ];
    seen.push(said(
        client
            .update_table()
            .table_name(&full)
            .attribute_definitions(def("a20", ScalarAttributeType::S))
            .global_secondary_index_updates(create(20))
            .send()
            .await,
    ));
    let two = format!("{table}-two");
    seen.push(said(keyed(two.clone(), 0, 0).send().await));
    seen.push(said(
        client
            .update_table()
            .table_name(&two)
            .attribute_definitions(def("a0", ScalarAttributeType::S))
            .attribute_definitions(def("a1", ScalarAttributeType::S))
            .global_secondary_index_updates(create(0))
            .global_secondary_index_updates(create(1))
            .send()
            .await,
    ));
    seen
}

/// The control-plane checks DynamoDB makes (attribute definitions against
/// the key schema, throughput against the billing mode, TTL attribute
/// names, index quotas), on the endpoint as on DynamoDB Local.
#[tokio::test]
async fn control_plane_refuses_what_dynamodb_refuses() {
    let url = super::http::start(Endpoint::new()).await;
    let ours = control_plane(&client(url), "Control").await;
    let theirs = control_plane(
        &client(support::endpoint()),
        &support::unique_table("Control"),
    )
    .await;
    assert_eq!(ours, theirs);
}
