//! PartiQL (`ExecuteStatement`, `BatchExecuteStatement`,
//! `ExecuteTransaction`) through unchanged aws-sdk-dynamodb code, on the
//! in-process endpoint and on DynamoDB Local: the same statements, the
//! same items, the same errors (codes, and messages where DynamoDB Local's
//! are DynamoDB's documented ones), the same pages (compared as the union
//! of a paginated read, not by token text).

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeValue, BatchStatementRequest, BillingMode, GlobalSecondaryIndex, KeyType,
    ParameterizedStatement, Projection, ProjectionType, ScalarAttributeType,
};
use singletable_server::Endpoint;

use super::sdk::{client, def, key};
use crate::support;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}

/// A value as text, sets sorted (neither side promises their order).
fn text(v: &AttributeValue) -> String {
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v.join(",")
    };
    match v {
        AttributeValue::S(x) => format!("S:{x}"),
        AttributeValue::N(x) => format!("N:{x}"),
        AttributeValue::Bool(b) => format!("BOOL:{b}"),
        AttributeValue::Null(_) => "NULL".into(),
        AttributeValue::Ss(x) => format!("SS:<<{}>>", sorted(x)),
        AttributeValue::Ns(x) => format!("NS:<<{}>>", sorted(x)),
        AttributeValue::L(l) => format!("L:[{}]", l.iter().map(text).collect::<Vec<_>>().join(",")),
        AttributeValue::M(m) => format!("M:{}", item(m)),
        other => format!("{other:?}"),
    }
}

fn item(i: &HashMap<String, AttributeValue>) -> String {
    let m: BTreeMap<&String, String> = i.iter().map(|(k, v)| (k, text(v))).collect();
    format!("{m:?}")
}

fn items(list: &[HashMap<String, AttributeValue>]) -> String {
    list.iter().map(item).collect::<Vec<_>>().join(" ")
}

fn sorted_items(list: &[HashMap<String, AttributeValue>]) -> String {
    let mut v: Vec<String> = list.iter().map(item).collect();
    v.sort();
    v.join(" ")
}

/// An error's code, and its message when `message` (the cases where
/// DynamoDB Local's text is DynamoDB's documented one).
fn error<E: ProvideErrorMetadata>(e: &E, message: bool) -> String {
    eprintln!("{:?}: {:?}", e.code(), e.message());
    if message {
        format!(
            "error {} / {}",
            e.code().unwrap_or("?"),
            e.message().unwrap_or("")
        )
    } else {
        format!("error {}", e.code().unwrap_or("?"))
    }
}

/// One statement: its items in order, or its error.
async fn run(c: &Client, statement: &str, params: Vec<AttributeValue>, message: bool) -> String {
    let r = c
        .execute_statement()
        .statement(statement)
        .set_parameters((!params.is_empty()).then_some(params))
        .send()
        .await;
    match r {
        Ok(o) => format!("items {}", items(o.items())),
        Err(e) => error(&e.into_service_error(), message),
    }
}

/// A scan-planned statement: its items in any order.
async fn run_unordered(c: &Client, statement: &str) -> String {
    match c.execute_statement().statement(statement).send().await {
        Ok(o) => format!("items {}", sorted_items(o.items())),
        Err(e) => error(&e.into_service_error(), false),
    }
}

/// Every page of a statement read with `Limit`: the union of the pages,
/// and whether any page but the last carried a NextToken.
async fn paged(c: &Client, statement: &str, limit: i32) -> String {
    let mut all = Vec::new();
    let mut token = None;
    let mut pages = 0;
    loop {
        let o = c
            .execute_statement()
            .statement(statement)
            .limit(limit)
            .set_next_token(token.take())
            .send()
            .await
            .unwrap();
        pages += 1;
        all.extend(o.items().iter().cloned());
        match o.next_token() {
            Some(t) => token = Some(t.to_owned()),
            None => break,
        }
        assert!(pages < 100, "{statement}: pages never end");
    }
    format!(
        "paged {} (several pages: {})",
        sorted_items(&all),
        pages > 1
    )
}

fn stmt(text: &str, params: Vec<AttributeValue>) -> BatchStatementRequest {
    BatchStatementRequest::builder()
        .statement(text)
        .set_parameters((!params.is_empty()).then_some(params))
        .build()
        .unwrap()
}

fn tx(text: &str, params: Vec<AttributeValue>) -> ParameterizedStatement {
    ParameterizedStatement::builder()
        .statement(text)
        .set_parameters((!params.is_empty()).then_some(params))
        .build()
        .unwrap()
}

/// A batch's answer: per statement, the item or the error code (and
/// message when asked).
async fn batch(c: &Client, list: Vec<BatchStatementRequest>, message: bool) -> String {
    match c
        .batch_execute_statement()
        .set_statements(Some(list))
        .send()
        .await
    {
        Ok(o) => {
            let parts: Vec<String> = o
                .responses()
                .iter()
                .map(|r| match r.error() {
                    Some(e) => format!(
                        "error {:?}{}",
                        e.code(),
                        if message {
                            format!(" / {}", e.message().unwrap_or(""))
                        } else {
                            String::new()
                        }
                    ),
                    None => format!("item {}", r.item().map(item).unwrap_or_default()),
                })
                .collect();
            format!("batch [{}]", parts.join("; "))
        }
        Err(e) => error(&e.into_service_error(), message),
    }
}

/// A transaction's answer: the items read, or the cancellation codes.
async fn transaction(c: &Client, list: Vec<ParameterizedStatement>, token: Option<&str>) -> String {
    match c
        .execute_transaction()
        .set_transact_statements(Some(list))
        .set_client_request_token(token.map(str::to_owned))
        .send()
        .await
    {
        Ok(o) => {
            let parts: Vec<String> = o
                .responses()
                .iter()
                .map(|r| r.item().map(item).unwrap_or_default())
                .collect();
            format!("transaction ok [{}]", parts.join("; "))
        }
        Err(e) => {
            let e = e.into_service_error();
            let reasons = match &e {
                aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(t) => t
                    .cancellation_reasons()
                    .iter()
                    .map(|r| r.code().unwrap_or("?").to_owned())
                    .collect::<Vec<_>>()
                    .join(","),
                _ => String::new(),
            };
            if let aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(t) = &e {
                eprintln!("reasons: {:?}", t.cancellation_reasons());
            }
            format!("{} [{reasons}]", error(&e, false))
        }
    }
}

/// The statements, run against `c` on table `t`: every answer as text.
/// Also the code of the error an INSERT of an existing key gets.
async fn story(c: &Client, t: &str) -> (Vec<(String, String)>, String) {
    c.create_table()
        .table_name(t)
        .attribute_definitions(def("PK", ScalarAttributeType::S))
        .attribute_definitions(def("SK", ScalarAttributeType::S))
        .attribute_definitions(def("status", ScalarAttributeType::S))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("ByStatus")
                .key_schema(key("status", KeyType::Hash))
                .key_schema(key("SK", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let mut seen: Vec<(String, String)> = Vec::new();
    macro_rules! note {
        ($what:expr, $e:expr) => {{
            let got = $e;
            seen.push(($what.to_string(), got));
        }};
    }
    // INSERT, with literals of every kind and with parameters.
    for (pk, sk, total, status) in [
        ("u1", "o1", "10", "NEW"),
        ("u1", "o2", "25", "SHIPPED"),
        ("u1", "o3", "7", "NEW"),
        ("u2", "o1", "3", "NEW"),
        ("u3", "o1", "40", "SHIPPED"),
    ] {
        note!(
            format!("insert {pk} {sk}"),
            run(
                c,
                &format!(
                    r#"INSERT INTO "{t}" VALUE {{'PK': ?, 'SK': ?, 'total': ?, 'status': '{status}', 'tags': <<'a', 'b'>>, 'nums': <<1, 2>>, 'flag': true, 'gone': NULL, 'l': [1, 'x', [true]], 'm': {{'k': 'v', 'n': 2}}}}"#
                ),
                vec![s(pk), s(sk), n(total)],
                true,
            )
            .await
        );
    }
    note!(
        "insert with a note",
        run(
            c,
            &format!(
                r#"INSERT INTO "{t}" VALUE {{'PK': 'u2', 'SK': 'o2', 'total': 12, 'note': 'gift'}}"#
            ),
            vec![],
            true
        )
        .await
    );
    // DynamoDB's error is `DuplicateItemException` (API reference,
    // ExecuteStatement, Errors); DynamoDB Local names it `DuplicateItem`:
    // the message is compared here, the codes by the caller.
    let duplicate = c
        .execute_statement()
        .statement(format!(
            r#"INSERT INTO "{t}" VALUE {{'PK': 'u1', 'SK': 'o1'}}"#
        ))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let duplicate_code = duplicate.code().unwrap_or("?").to_owned();
    note!(
        "insert of an existing key",
        duplicate.message().unwrap_or("").to_owned()
    );
    // SELECT as a Query: the partition key's equality.
    for (what, q) in [
        ("query", format!(r#"SELECT * FROM "{t}" WHERE PK = 'u1'"#)),
        (
            "query projected",
            format!(r#"SELECT SK, total, m.k, l[1] FROM "{t}" WHERE PK = 'u1' AND SK > 'o1'"#),
        ),
        (
            "query begins_with",
            format!(r#"SELECT SK FROM "{t}" WHERE PK = 'u1' AND begins_with(SK, 'o')"#),
        ),
        (
            "query between and filter",
            format!(
                r#"SELECT SK FROM "{t}" WHERE PK = 'u1' AND SK BETWEEN 'o1' AND 'o2' AND total >= 10"#
            ),
        ),
        (
            "query filter or not",
            format!(
                r#"SELECT SK FROM "{t}" WHERE "PK" = 'u1' AND (status = 'SHIPPED' OR NOT total < 9)"#
            ),
        ),
        (
            "query contains and <>",
            format!(
                r#"SELECT SK FROM "{t}" WHERE PK = 'u1' AND contains(tags, 'a') AND status <> 'NEW'"#
            ),
        ),
        (
            "query missing",
            format!(r#"SELECT SK FROM "{t}" WHERE PK = 'u2' AND note IS MISSING"#),
        ),
        (
            "query not missing",
            format!(r#"SELECT SK, note FROM "{t}" WHERE PK = 'u2' AND note IS NOT MISSING"#),
        ),
        (
            "query sort key range and IN filter",
            format!(
                r#"SELECT SK FROM "{t}" WHERE PK = 'u1' AND SK >= 'o2' AND status IN ['NEW', 'X']"#
            ),
        ),
        (
            "query in descending order",
            format!(r#"SELECT * FROM "{t}" WHERE PK = 'u1' ORDER BY SK DESC"#),
        ),
        (
            "query in ascending order",
            format!(r#"SELECT SK FROM "{t}" WHERE PK = 'u1' AND SK > 'o1' ORDER BY "SK" ASC"#),
        ),
        (
            "index query",
            format!(r#"SELECT PK, SK FROM "{t}"."ByStatus" WHERE status = 'SHIPPED'"#),
        ),
    ] {
        note!(what, run(c, &q, vec![], false).await);
    }
    note!(
        "query with parameters",
        run(
            c,
            &format!(r#"SELECT SK FROM "{t}" WHERE PK = ? AND SK <= ?"#),
            vec![s("u1"), s("o2")],
            false
        )
        .await
    );
    // IN on the partition key, and Scans.
    note!(
        "partition IN",
        run_unordered(
            c,
            &format!(r#"SELECT PK, SK FROM "{t}" WHERE PK IN ['u1', 'u3']"#)
        )
        .await
    );
    note!(
        "scan filter",
        run_unordered(c, &format!(r#"SELECT PK, SK FROM "{t}" WHERE total > 9"#)).await
    );
    note!(
        "scan or on keys",
        run_unordered(
            c,
            &format!(r#"SELECT PK, SK FROM "{t}" WHERE PK = 'u2' OR SK = 'o3'"#)
        )
        .await
    );
    note!(
        "scan all",
        run_unordered(c, &format!(r#"SELECT * FROM "{t}""#)).await
    );
    // Pages.
    note!(
        "paged scan",
        paged(c, &format!(r#"SELECT PK, SK FROM "{t}""#), 2).await
    );
    note!(
        "paged query",
        paged(
            c,
            &format!(r#"SELECT PK, SK FROM "{t}" WHERE PK = 'u1'"#),
            2
        )
        .await
    );
    note!(
        "paged IN",
        paged(
            c,
            &format!(r#"SELECT PK, SK FROM "{t}" WHERE PK IN ['u1', 'u2']"#),
            2
        )
        .await
    );
    note!(
        "consistent read",
        match c
            .execute_statement()
            .statement(format!(r#"SELECT SK FROM "{t}" WHERE PK = 'u3'"#))
            .consistent_read(true)
            .send()
            .await
        {
            Ok(o) => items(o.items()),
            Err(e) => error(&e.into_service_error(), false),
        }
    );
    // UPDATE and DELETE.
    note!(
        "update returning",
        run(
            c,
            &format!(
                r#"UPDATE "{t}" SET total = total + 5 SET status = 'DONE' REMOVE gone WHERE PK = 'u1' AND SK = 'o1' RETURNING ALL NEW *"#
            ),
            vec![],
            false
        )
        .await
    );
    note!(
        "update with a condition that holds",
        run(
            c,
            &format!(
                r#"UPDATE "{t}" SET l = list_append(l, [9]), m.k = ? WHERE PK = 'u1' AND SK = 'o2' AND total = 25 RETURNING MODIFIED OLD *"#
            ),
            vec![s("w")],
            false
        )
        .await
    );
    note!(
        "update with a condition that fails",
        run(
            c,
            &format!(r#"UPDATE "{t}" SET total = 1 WHERE PK = 'u1' AND SK = 'o2' AND total = 99"#),
            vec![],
            false
        )
        .await
    );
    note!(
        "update of a missing item",
        run(
            c,
            &format!(r#"UPDATE "{t}" SET total = 1 WHERE PK = 'nobody' AND SK = 'o1'"#),
            vec![],
            false
        )
        .await
    );
    note!(
        "update without the whole key",
        run(
            c,
            &format!(r#"UPDATE "{t}" SET total = 1 WHERE PK = 'u1'"#),
            vec![],
            false
        )
        .await
    );
    note!(
        "delete with a condition that fails",
        run(
            c,
            &format!(r#"DELETE FROM "{t}" WHERE PK = 'u3' AND SK = 'o1' AND total < 5"#),
            vec![],
            false
        )
        .await
    );
    note!(
        "delete returning",
        run(
            c,
            &format!(r#"DELETE FROM "{t}" WHERE PK = 'u3' AND SK = 'o1' RETURNING ALL OLD *"#),
            vec![],
            false
        )
        .await
    );
    note!(
        "delete of a missing item",
        run(
            c,
            &format!(r#"DELETE FROM "{t}" WHERE PK = 'u3' AND SK = 'o1'"#),
            vec![],
            false
        )
        .await
    );
    // Errors.
    note!(
        "syntax error",
        run(c, &format!(r#"SELEC * FROM "{t}""#), vec![], false).await
    );
    // Reserved words: refused as bare names (in a condition, a projection,
    // a SET), taken when quoted; words DynamoDB does not reserve are taken.
    for word in [
        "size",
        "user",
        "count",
        "value",
        "key",
        "date",
        "timestamp",
        "list",
        r#""size""#,
        r#""user""#,
        "status",
        "name",
        "data",
        "type",
        "year",
    ] {
        for q in [
            format!(r#"SELECT * FROM "{t}" WHERE PK = 'u1' AND {word} = 3"#),
            format!(r#"SELECT {word} FROM "{t}" WHERE PK = 'u1'"#),
            format!(r#"UPDATE "{t}" SET {word} = 1 WHERE PK = 'u9' AND SK = 'o9'"#),
        ] {
            note!(q.replace(t, "T"), run(c, &q, vec![], false).await);
        }
    }
    note!(
        "too few parameters",
        run(
            c,
            &format!(r#"SELECT * FROM "{t}" WHERE PK = ?"#),
            vec![],
            false
        )
        .await
    );
    note!(
        "too many parameters",
        run(
            c,
            &format!(r#"SELECT * FROM "{t}" WHERE PK = 'u1'"#),
            vec![s("x")],
            false
        )
        .await
    );
    note!(
        "missing table",
        run(
            c,
            r#"SELECT * FROM "NoSuchTable" WHERE PK = 'a'"#,
            vec![],
            false
        )
        .await
    );
    // BatchExecuteStatement: reads, writes, per-statement errors.
    note!(
        "batch reads",
        batch(
            c,
            vec![
                stmt(
                    &format!(r#"SELECT * FROM "{t}" WHERE PK = ? AND SK = ?"#),
                    vec![s("u1"), s("o3")]
                ),
                stmt(
                    &format!(r#"SELECT SK, total FROM "{t}" WHERE PK = 'u2' AND SK = 'o1'"#),
                    vec![]
                ),
                stmt(
                    &format!(r#"SELECT * FROM "{t}" WHERE PK = 'nobody' AND SK = 'o1'"#),
                    vec![]
                ),
            ],
            false
        )
        .await
    );
    note!(
        "batch writes",
        batch(
            c,
            vec![
                stmt(
                    &format!(r#"INSERT INTO "{t}" VALUE {{'PK': 'u4', 'SK': 'o1', 'total': 1}}"#),
                    vec![]
                ),
                stmt(
                    &format!(r#"INSERT INTO "{t}" VALUE {{'PK': 'u1', 'SK': 'o3'}}"#),
                    vec![]
                ),
                stmt(
                    &format!(r#"UPDATE "{t}" SET total = 2 WHERE PK = 'u2' AND SK = 'o1'"#),
                    vec![]
                ),
                stmt(
                    &format!(r#"UPDATE "{t}" SET total = 2 WHERE PK = 'nobody' AND SK = 'o1'"#),
                    vec![]
                ),
                stmt(
                    &format!(r#"DELETE FROM "{t}" WHERE PK = 'u2' AND SK = 'o2'"#),
                    vec![]
                ),
            ],
            false
        )
        .await
    );
    note!(
        "batch mixing reads and writes",
        batch(
            c,
            vec![
                stmt(
                    &format!(r#"SELECT * FROM "{t}" WHERE PK = 'u1' AND SK = 'o1'"#),
                    vec![]
                ),
                stmt(
                    &format!(r#"DELETE FROM "{t}" WHERE PK = 'u1' AND SK = 'o1'"#),
                    vec![]
                ),
            ],
            false
        )
        .await
    );
    note!(
        "batch of 26",
        batch(
            c,
            (0..26)
                .map(|i| stmt(
                    &format!(r#"SELECT * FROM "{t}" WHERE PK = 'x{i}' AND SK = 'o1'"#),
                    vec![]
                ))
                .collect(),
            false
        )
        .await
    );
    // ExecuteTransaction: all or nothing.
    let writes = |extra: &str| {
        vec![
            tx(
                &format!(r#"INSERT INTO "{t}" VALUE {{'PK': 'u5', 'SK': 'o1', 'total': 5}}"#),
                vec![],
            ),
            tx(
                &format!(r#"UPDATE "{t}" SET total = total + 1 WHERE PK = 'u1' AND SK = 'o3'"#),
                vec![],
            ),
            tx(
                &format!(r#"DELETE FROM "{t}" WHERE PK = 'u4' AND SK = 'o1'"#),
                vec![],
            ),
            tx(
                &format!(r#"INSERT INTO "{t}" VALUE {{'PK': 'u1', 'SK': '{extra}'}}"#),
                vec![],
            ),
        ]
    };
    note!(
        "transaction cancelled by an existing key",
        transaction(c, writes("o1"), None).await
    );
    note!(
        "nothing of it applied",
        run_unordered(
            c,
            &format!(r#"SELECT PK, SK, total FROM "{t}" WHERE PK IN ['u1', 'u4', 'u5']"#)
        )
        .await
    );
    note!(
        "transaction with a token",
        transaction(c, writes("o9"), Some("token-1")).await
    );
    note!(
        "the same transaction retried with its token",
        transaction(c, writes("o9"), Some("token-1")).await
    );
    note!(
        "transaction with a failed condition",
        transaction(
            c,
            vec![
                tx(&format!(r#"UPDATE "{t}" SET total = 0 WHERE PK = 'u1' AND SK = 'o3' AND total = 1000"#), vec![]),
                tx(&format!(r#"DELETE FROM "{t}" WHERE PK = 'u5' AND SK = 'o1'"#), vec![]),
            ],
            None
        )
        .await
    );
    note!(
        "transaction reads",
        transaction(
            c,
            vec![
                tx(
                    &format!(r#"SELECT * FROM "{t}" WHERE PK = ? AND SK = ?"#),
                    vec![s("u5"), s("o1")]
                ),
                tx(
                    &format!(r#"SELECT SK FROM "{t}" WHERE PK = 'nobody' AND SK = 'o1'"#),
                    vec![]
                ),
            ],
            None
        )
        .await
    );
    note!(
        "transaction mixing reads and writes",
        transaction(
            c,
            vec![
                tx(
                    &format!(r#"SELECT * FROM "{t}" WHERE PK = 'u5' AND SK = 'o1'"#),
                    vec![]
                ),
                tx(
                    &format!(r#"DELETE FROM "{t}" WHERE PK = 'u5' AND SK = 'o1'"#),
                    vec![]
                ),
            ],
            None
        )
        .await
    );
    let exists = |cond: &str, sk: &str| {
        vec![
            tx(
                &format!(r#"EXISTS(SELECT * FROM "{t}" WHERE PK = 'u1' AND SK = 'o3'{cond})"#),
                vec![],
            ),
            tx(
                &format!(r#"INSERT INTO "{t}" VALUE {{'PK': 'u6', 'SK': '{sk}'}}"#),
                vec![],
            ),
        ]
    };
    note!(
        "transaction whose EXISTS holds",
        transaction(c, exists(" AND total > 0", "e1"), None).await
    );
    note!(
        "transaction whose EXISTS fails",
        transaction(c, exists(" AND total < 0", "e2"), None).await
    );
    note!(
        "EXISTS without a condition",
        match c
            .execute_transaction()
            .set_transact_statements(Some(exists("", "e3")))
            .send()
            .await
        {
            Ok(_) => "taken".to_owned(),
            Err(e) => error(&e.into_service_error(), true),
        }
    );
    note!(
        "after the EXISTS transactions",
        run_unordered(c, &format!(r#"SELECT PK, SK FROM "{t}" WHERE PK = 'u6'"#)).await
    );
    let operands: Vec<String> = (0..101).map(|i| i.to_string()).collect();
    note!(
        "IN with more than 100 operands",
        run(
            c,
            &format!(
                r#"SELECT * FROM "{t}" WHERE total IN [{}]"#,
                operands.join(", ")
            ),
            vec![],
            true
        )
        .await
    );
    note!(
        "final state",
        run_unordered(c, &format!(r#"SELECT * FROM "{t}""#)).await
    );
    (seen, duplicate_code)
}

/// A `NextToken` given for one statement, sent with another: its error,
/// or `taken` when it is taken.
async fn replayed(c: &Client, t: &str) -> String {
    let first = c
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}" WHERE PK = 'u1'"#))
        .limit(1)
        .send()
        .await
        .unwrap();
    let token = first
        .next_token()
        .expect("a page of one of several items has a NextToken")
        .to_owned();
    let other = c
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}" WHERE PK = 'u2'"#))
        .limit(1)
        .next_token(token)
        .send()
        .await;
    match other {
        Ok(_) => "taken".to_owned(),
        Err(e) => error(&e.into_service_error(), true),
    }
}

/// The three PartiQL operations, statement by statement, on the endpoint
/// and on DynamoDB Local.
#[tokio::test]
async fn partiql_matches_dynamodb_local() {
    let url = super::http::start(Endpoint::new()).await;
    let ours_client = client(url);
    let theirs_client = client(support::endpoint());
    let their_table = support::unique_table("Partiql");
    let (ours, our_code) = story(&ours_client, "Partiql").await;
    let (theirs, their_code) = story(&theirs_client, &their_table).await;
    let mut differ = Vec::new();
    for ((what, a), (_, b)) in ours.iter().zip(&theirs) {
        if a != b {
            differ.push(format!("{what}:\n  endpoint: {a}\n  local:    {b}"));
        }
    }
    assert_eq!(ours.len(), theirs.len());
    // The departure listed in docs/endpoint.md: the documented code here,
    // Local's own name there.
    assert_eq!(our_code, "DuplicateItemException");
    assert_eq!(their_code, "DuplicateItem");
    // The departure listed in docs/endpoint.md: a NextToken belongs to the
    // statement and parameters it was given for; Local takes it with
    // another statement.
    assert_eq!(
        replayed(&ours_client, "Partiql").await,
        "error ValidationException / Invalid NextToken"
    );
    assert_eq!(replayed(&theirs_client, &their_table).await, "taken");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
