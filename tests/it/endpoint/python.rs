//! Python clients on the endpoint: the reference documents' own boto3 code,
//! read from the documents at run time and run unchanged (through
//! `seed_boto3.py`), and the AWS CLI (v1), each on the endpoint and on
//! DynamoDB Local, with the same answers.
//!
//! The clients come from the virtualenv that `scripts/dynamodb-local.sh`
//! makes and names in `SINGLETABLE_PYTHON` and `SINGLETABLE_AWS_CLI`. A
//! missing virtualenv or seed document fails the test, wherever it runs:
//! it never passes without running.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use singletable_server::Endpoint;

use super::http::start;
use crate::support;

/// The value of an environment variable the test needs; when it is
/// missing the test fails (never passes without running): the test
/// command, `scripts/test.sh`, installs the clients and sets it.
fn needed(var: &str, what: &str) -> String {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!(
            "{var} is not set ({what}): run the tests with `scripts/test.sh`, which installs the Python clients"
        ),
    }
}

/// The seed document whose name starts with `prefix`, from
/// `SINGLETABLE_SEEDS` or `shared/seeds/` beside the repository; a missing
/// one fails the test.
fn seed(prefix: &str) -> PathBuf {
    let dir = std::env::var_os("SINGLETABLE_SEEDS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds"));
    let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries.filter_map(Result::ok).map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".txt"))
        })
    });
    found.unwrap_or_else(|| {
        panic!(
            "missing the seed document {prefix}*.txt in {} (set SINGLETABLE_SEEDS to its folder)",
            dir.display()
        )
    })
}

/// A command with dummy credentials and region and nothing of the
/// caller's AWS configuration.
fn aws_env(program: &str) -> Command {
    let mut c = Command::new(program);
    let none = std::env::temp_dir().join("singletable-no-aws-config");
    c.env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", &none)
        .env("AWS_SHARED_CREDENTIALS_FILE", &none)
        .env("AWS_PAGER", "")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB");
    c
}

fn run(mut c: Command) -> Output {
    c.output()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", c.get_program()))
}

/// Runs `f` for the endpoint and for DynamoDB Local at once (each is
/// mostly waiting on a Python process).
async fn on_both<F>(endpoint: String, f: F) -> [Value; 2]
where
    F: Fn(&str) -> Value + Send + Sync + Clone + 'static,
{
    let local = support::endpoint();
    let (f1, f2) = (f.clone(), f);
    let ours = tokio::task::spawn_blocking(move || f1(&endpoint));
    let theirs = tokio::task::spawn_blocking(move || f2(&local));
    [ours.await.unwrap(), theirs.await.unwrap()]
}

/// The first step whose value differs, for a readable failure.
fn first_difference(ours: &Value, local: &Value) -> String {
    let (a, b) = (&ours["results"], &local["results"]);
    for i in 0..a
        .as_array()
        .map_or(0, Vec::len)
        .max(b.as_array().map_or(0, Vec::len))
    {
        if a[i] != b[i] {
            return format!("step {i}:\n  endpoint: {}\n  local:    {}", a[i], b[i]);
        }
    }
    format!("endpoint: {ours}\nlocal: {local}")
}

/// The value of the step `name` (of its last call, when it was called
/// more than once).
fn step<'a>(out: &'a Value, name: &str) -> &'a Value {
    out["results"]
        .as_array()
        .and_then(|r| r.iter().rev().find(|s| s["step"] == name))
        .map(|s| &s["value"])
        .unwrap_or_else(|| panic!("no step {name:?} in {out}"))
}

fn errors(out: &Value) -> BTreeSet<String> {
    out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| {
            s["value"]["error"]
                .as_str()
                .map(|e| format!("{} -> {e}", s["step"].as_str().unwrap_or("")))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_boto3_code_runs_against_the_endpoint() {
    let python = needed("SINGLETABLE_PYTHON", "the virtualenv with boto3");
    let (app, tienda) = (seed("000_"), seed("004_"));
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/endpoint/seed_boto3.py");
    let url = start(Endpoint::new()).await;

    for (plan, doc) in [("app", app), ("tienda", tienda)] {
        let (python, harness, doc_path) = (python.clone(), harness.clone(), doc.clone());
        let [ours, local] = on_both(url.clone(), move |endpoint| {
            let mut c = aws_env(&python);
            c.arg(&harness).arg(endpoint).arg(plan).arg(&doc);
            let out = run(c);
            assert!(
                out.status.success(),
                "the {plan} seed's code failed on {endpoint}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!(
                    "harness output is not JSON ({e}): {}",
                    String::from_utf8_lossy(&out.stdout)
                )
            })
        })
        .await;
        assert_eq!(
            ours,
            local,
            "the {plan} seed's code answers differently on the endpoint and on DynamoDB Local; {}",
            first_difference(&ours, &local)
        );

        // The code that ran is the document's, as written there.
        let text = std::fs::read_to_string(&doc_path).unwrap();
        let blocks = ours["blocks"].as_array().unwrap();
        assert_eq!(
            blocks.len(),
            if plan == "app" { 8 } else { 2 },
            "code blocks found in {}",
            doc_path.display()
        );
        for b in blocks {
            let b = b.as_str().unwrap();
            assert!(text.contains(b), "not verbatim in the document: {b}");
        }

        // Equal is not enough: the answers must be the ones the documents
        // promise.
        match plan {
            "app" => {
                let functions: Vec<&str> = ours["functions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                assert_eq!(
                    functions,
                    [
                        "create_order_with_items",
                        "get_order_with_items",
                        "get_orders_by_date_range",
                        "get_orders_by_status",
                        "get_products_by_category",
                        "get_user",
                        "get_user_orders",
                        "put_order",
                        "put_order_item",
                        "put_product",
                        "put_product#2",
                        "put_user",
                        "update_order_status",
                    ],
                    "the functions found in the 000 document"
                );
                assert_eq!(
                    step(
                        &ours,
                        "create the table: print(f\"Table created: {response['TableDescription']['TableName']}\")"
                    )["printed"],
                    "Table created: AppTable\n"
                );
                assert_eq!(step(&ours, "get_user('u1',)")["name"], "Ana");
                assert_eq!(step(&ours, "get_user('nobody',)"), &Value::Null);
                let orders = step(&ours, "get_user_orders('u1',)").as_array().unwrap();
                assert_eq!(orders.len(), 2);
                assert_eq!(orders[0]["SK"], "ORDER#o1");
                let o1 = step(&ours, "get_order_with_items('o1',)");
                assert_eq!(o1["items"].as_array().unwrap().len(), 2);
                assert_eq!(o1["items"][0]["quantity"], json!({"N": "2"}));
                let books = step(&ours, "get_products_by_category('books',)");
                // p1, p4 and both variants (p5 unpublished, p6 published):
                // GSI1 holds every product, GSI2 only published ones.
                assert_eq!(books.as_array().unwrap().len(), 4);
                assert_eq!(
                    step(&ours, "get_order_with_items('o4',)")["items"]
                        .as_array()
                        .unwrap()
                        .len(),
                    2,
                    "the transaction wrote both lines"
                );
                let shipped = step(&ours, "get_orders_by_status('SHIPPED',)");
                assert_eq!(shipped.as_array().unwrap().len(), 2);
                let range = step(
                    &ours,
                    "get_orders_by_date_range('2026-01-01', '2026-01-31')",
                );
                assert_eq!(range.as_array().unwrap().len(), 2);
                assert_eq!(
                    step(&ours, "paginate: response Items")
                        .as_array()
                        .unwrap()
                        .len(),
                    3,
                    "u1's profile and orders"
                );
                assert_eq!(
                    errors(&ours),
                    BTreeSet::from([
                        "update_order_status('o9', 'u1', 'SHIPPED') -> ConditionalCheckFailedException"
                            .to_owned()
                    ])
                );
            }
            _ => {
                let pedidos = step(&ours, "pattern 2: pedidos").as_array().unwrap();
                assert_eq!(pedidos.len(), 20, "Limit=20");
                assert_eq!(
                    pedidos[0]["SK"], "PEDIDO#2026-10-23#A023",
                    "most recent first"
                );
                assert_eq!(pedidos[19]["SK"], "PEDIDO#2026-10-04#A004");
                assert_eq!(
                    step(&ours, "pattern 2: siguiente"),
                    &json!({"PK": "CLIENTE#123", "SK": "PEDIDO#2026-10-04#A004"})
                );
                let header = step(&ours, "after: {'PK': 'PEDIDO#A001', 'SK': 'CABECERA'}");
                assert_eq!(header["estado"], "ENVIADO");
                assert_eq!(header["version"], json!({"N": "4"}));
                assert_eq!(
                    step(&ours, "after: {'PK': 'CLIENTE#123', 'SK': 'PERFIL'}")["nombre"],
                    "Ana"
                );
                assert_eq!(
                    errors(&ours),
                    BTreeSet::from([
                        "conditional writes, second run: tabla.put_item( -> ConditionalCheckFailedException".to_owned(),
                        "conditional writes, second run: tabla.update_item( -> ConditionalCheckFailedException".to_owned(),
                    ])
                );
            }
        }
    }
}

/// One AWS CLI call: exit code, stdout as JSON (`null` when empty), and
/// stderr when it failed.
fn cli(aws: &str, endpoint: &str, args: &[&str]) -> Value {
    let mut c = aws_env(aws);
    c.arg("dynamodb")
        .args(args)
        .args(["--endpoint-url", endpoint, "--output", "json"]);
    let out = run(c);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let body = if stdout.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("aws {args:?}: output is not JSON ({e}): {stdout}"))
    };
    let mut v = json!({"code": out.status.code(), "out": body});
    if !out.status.success() {
        v["stderr"] = json!(String::from_utf8_lossy(&out.stderr).trim());
    }
    v
}

/// What a table description must agree on: its schema and state, not the
/// figures DynamoDB refreshes every few hours (sizes, counts) nor the
/// creation time.
fn schema(desc: &Value) -> Value {
    let mut defs = desc["AttributeDefinitions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    defs.sort_by_key(|d| d["AttributeName"].as_str().unwrap_or("").to_owned());
    let indexes: Vec<Value> = desc["GlobalSecondaryIndexes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|ix| {
            json!({"IndexName": ix["IndexName"], "KeySchema": ix["KeySchema"],
                "Projection": ix["Projection"], "IndexStatus": ix["IndexStatus"]})
        })
        .collect();
    json!({
        "TableName": desc["TableName"],
        "KeySchema": desc["KeySchema"],
        "AttributeDefinitions": defs,
        "BillingMode": desc["BillingModeSummary"]["BillingMode"],
        "DeletionProtectionEnabled": desc["DeletionProtectionEnabled"],
        "GlobalSecondaryIndexes": indexes,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_cli_round_trip() {
    let aws = needed("SINGLETABLE_AWS_CLI", "AWS CLI v1 in the virtualenv");
    let url = start(Endpoint::new()).await;
    let table = support::unique_table("cli-round-trip");

    let t = table.clone();
    let [ours, local] = on_both(url, move |endpoint| {
        let t = t.as_str();
        let key = |pk: &str, sk: &str| format!(r#"{{"PK":{{"S":"{pk}"}},"SK":{{"S":"{sk}"}}}}"#);
        let steps: Vec<(&str, Vec<String>)> = vec![
            ("create-table", vec!["create-table".into(), "--table-name".into(), t.into(),
                "--attribute-definitions".into(), "AttributeName=PK,AttributeType=S".into(),
                "AttributeName=SK,AttributeType=S".into(), "AttributeName=G,AttributeType=S".into(),
                "--key-schema".into(), "AttributeName=PK,KeyType=HASH".into(), "AttributeName=SK,KeyType=RANGE".into(),
                "--global-secondary-indexes".into(),
                "IndexName=GSI1,KeySchema=[{AttributeName=G,KeyType=HASH}],Projection={ProjectionType=KEYS_ONLY}".into(),
                "--billing-mode".into(), "PAY_PER_REQUEST".into(), "--deletion-protection-enabled".into()]),
            ("wait table-exists", vec!["wait".into(), "table-exists".into(), "--table-name".into(), t.into()]),
            ("describe-table", vec!["describe-table".into(), "--table-name".into(), t.into()]),
            ("put-item 1", vec!["put-item".into(), "--table-name".into(), t.into(), "--item".into(),
                r#"{"PK":{"S":"A"},"SK":{"S":"1"},"n":{"N":"1.50"},"G":{"S":"g"}}"#.into(),
                "--return-consumed-capacity".into(), "TOTAL".into()]),
            ("put-item 2", vec!["put-item".into(), "--table-name".into(), t.into(), "--item".into(),
                r#"{"PK":{"S":"A"},"SK":{"S":"2"},"b":{"B":"AQI="},"ss":{"SS":["x","y"]},"m":{"M":{"k":{"BOOL":true}}}}"#.into()]),
            ("put-item 3, conditional", vec!["put-item".into(), "--table-name".into(), t.into(), "--item".into(),
                r#"{"PK":{"S":"B"},"SK":{"S":"1"},"l":{"L":[{"N":"1"},{"NULL":true}]}}"#.into(),
                "--condition-expression".into(), "attribute_not_exists(PK)".into()]),
            ("put-item 3 again, condition fails", vec!["put-item".into(), "--table-name".into(), t.into(), "--item".into(),
                key("B", "1"), "--condition-expression".into(), "attribute_not_exists(PK)".into()]),
            ("query", vec!["query".into(), "--table-name".into(), t.into(),
                "--key-condition-expression".into(), "PK = :p".into(),
                "--expression-attribute-values".into(), r#"{":p":{"S":"A"}}"#.into()]),
            ("query, descending, consumed capacity", vec!["query".into(), "--table-name".into(), t.into(),
                "--key-condition-expression".into(), "PK = :p AND SK > :s".into(),
                "--expression-attribute-values".into(), r#"{":p":{"S":"A"},":s":{"S":"0"}}"#.into(),
                "--no-scan-index-forward".into(), "--return-consumed-capacity".into(), "TOTAL".into()]),
            ("query, pages of one", vec!["query".into(), "--table-name".into(), t.into(),
                "--key-condition-expression".into(), "PK = :p".into(),
                "--expression-attribute-values".into(), r#"{":p":{"S":"A"}}"#.into(), "--page-size".into(), "1".into()]),
            ("query, max one item", vec!["query".into(), "--table-name".into(), t.into(),
                "--key-condition-expression".into(), "PK = :p".into(),
                "--expression-attribute-values".into(), r#"{":p":{"S":"A"}}"#.into(), "--max-items".into(), "1".into()]),
            ("query the index", vec!["query".into(), "--table-name".into(), t.into(), "--index-name".into(), "GSI1".into(),
                "--key-condition-expression".into(), "G = :g".into(),
                "--expression-attribute-values".into(), r#"{":g":{"S":"g"}}"#.into()]),
            ("query, projection", vec!["query".into(), "--table-name".into(), t.into(),
                "--key-condition-expression".into(), "PK = :p".into(),
                "--expression-attribute-values".into(), r#"{":p":{"S":"A"}}"#.into(),
                "--projection-expression".into(), "SK, #n".into(),
                "--expression-attribute-names".into(), r##"{"#n":"n"}"##.into()]),
            ("scan", vec!["scan".into(), "--table-name".into(), t.into()]),
            ("scan, pages of one", vec!["scan".into(), "--table-name".into(), t.into(), "--page-size".into(), "1".into()]),
            ("scan, count with a filter", vec!["scan".into(), "--table-name".into(), t.into(),
                "--filter-expression".into(), "attribute_exists(n)".into(), "--select".into(), "COUNT".into()]),
            ("update-item", vec!["update-item".into(), "--table-name".into(), t.into(), "--key".into(), key("A", "1"),
                "--update-expression".into(), "SET n = n + :one ADD c :one".into(),
                "--expression-attribute-values".into(), r#"{":one":{"N":"1"}}"#.into(),
                "--return-values".into(), "ALL_NEW".into()]),
            ("get-item", vec!["get-item".into(), "--table-name".into(), t.into(), "--key".into(), key("A", "1"), "--consistent-read".into()]),
            ("delete-item", vec!["delete-item".into(), "--table-name".into(), t.into(), "--key".into(), key("A", "2"),
                "--return-values".into(), "ALL_OLD".into()]),
            ("list-tables", vec!["list-tables".into()]),
            ("delete-table, protected", vec!["delete-table".into(), "--table-name".into(), t.into()]),
            ("update-table, unprotect", vec!["update-table".into(), "--table-name".into(), t.into(),
                "--no-deletion-protection-enabled".into()]),
            ("delete-table", vec!["delete-table".into(), "--table-name".into(), t.into()]),
            ("wait table-not-exists", vec!["wait".into(), "table-not-exists".into(), "--table-name".into(), t.into()]),
            ("list-tables after", vec!["list-tables".into()]),
            ("describe-table after", vec!["describe-table".into(), "--table-name".into(), t.into()]),
        ];
        let mut out = serde_json::Map::new();
        for (name, args) in steps {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            out.insert(name.to_owned(), cli(&aws, endpoint, &args));
        }
        Value::Object(out)
    })
    .await;

    let listed = |v: &Value, step: &str| -> bool {
        v[step]["out"]["TableNames"]
            .as_array()
            .is_some_and(|names| names.iter().any(|n| n == table.as_str()))
    };
    for (side, v) in [("endpoint", &ours), ("DynamoDB Local", &local)] {
        assert!(listed(v, "list-tables"), "{side}: the table is listed");
        assert!(!listed(v, "list-tables after"), "{side}: and then gone");
    }
    for (name, a) in ours.as_object().unwrap() {
        let b = &local[name];
        let (a, b) = match name.as_str() {
            // Other tests' tables are on DynamoDB Local too.
            "list-tables" | "list-tables after" => continue,
            "create-table" | "update-table, unprotect" | "delete-table" => (
                schema(&a["out"]["TableDescription"]),
                schema(&b["out"]["TableDescription"]),
            ),
            "describe-table" => (schema(&a["out"]["Table"]), schema(&b["out"]["Table"])),
            _ => (a.clone(), b.clone()),
        };
        assert_eq!(a, b, "aws dynamodb {name}: endpoint vs DynamoDB Local");
    }

    // And the answers are the right ones, not just the same ones.
    let ok = |step: &str| -> &Value {
        assert_eq!(ours[step]["code"], 0, "{step}: {}", ours[step]);
        &ours[step]["out"]
    };
    assert_eq!(
        ok("create-table")["TableDescription"]["TableStatus"],
        "ACTIVE"
    );
    assert_eq!(
        ok("create-table")["TableDescription"]["DeletionProtectionEnabled"],
        true
    );
    assert!(
        ours["delete-table, protected"]["stderr"]
            .as_str()
            .unwrap()
            .contains("currently protected against deletion"),
        "{}",
        ours["delete-table, protected"]
    );
    assert_eq!(
        ok("update-table, unprotect")["TableDescription"]["DeletionProtectionEnabled"],
        false
    );
    assert_eq!(ok("describe-table")["Table"]["TableName"], table.as_str());
    assert_eq!(
        ok("put-item 1")["ConsumedCapacity"],
        // One unit for the table, one for the index the item is in.
        json!({"TableName": table, "CapacityUnits": 2.0})
    );
    assert_eq!(ours["put-item 3 again, condition fails"]["code"], 255);
    assert!(
        ours["put-item 3 again, condition fails"]["stderr"]
            .as_str()
            .unwrap()
            .contains("ConditionalCheckFailedException")
    );
    let q = ok("query");
    assert_eq!(q["Count"], 2);
    assert_eq!(
        q["Items"][0]["n"],
        json!({"N": "1.5"}),
        "numbers normalised"
    );
    // CLI v1 takes the text of a `B` argument as the bytes themselves and
    // base64-encodes them on the wire: the item holds b"AQI=".
    assert_eq!(q["Items"][1]["b"], json!({"B": "QVFJPQ=="}));
    assert_eq!(ok("query, pages of one")["Items"], q["Items"]);
    assert_eq!(
        ok("query, max one item")["Items"].as_array().unwrap().len(),
        1
    );
    assert!(ok("query, max one item")["NextToken"].is_string());
    assert_eq!(
        ok("query, descending, consumed capacity")["Items"][0]["SK"],
        json!({"S": "2"})
    );
    assert_eq!(
        ok("query the index")["Items"],
        json!([{"PK": {"S": "A"}, "SK": {"S": "1"}, "G": {"S": "g"}}])
    );
    assert_eq!(
        ok("query, projection")["Items"][0],
        json!({"SK": {"S": "1"}, "n": {"N": "1.5"}})
    );
    assert_eq!(ok("scan")["Count"], 3);
    assert_eq!(ok("scan, pages of one")["Count"], 3);
    assert_eq!(ok("scan, count with a filter")["Count"], 1);
    assert_eq!(ok("update-item")["Attributes"]["n"], json!({"N": "2.5"}));
    assert_eq!(ok("get-item")["Item"]["c"], json!({"N": "1"}));
    assert_eq!(
        ok("delete-item")["Attributes"]["ss"],
        json!({"SS": ["x", "y"]})
    );
    assert_eq!(
        ok("delete-table")["TableDescription"]["TableName"],
        table.as_str()
    );
    assert_eq!(ours["describe-table after"]["code"], 255);
    assert!(
        ours["describe-table after"]["stderr"]
            .as_str()
            .unwrap()
            .contains("ResourceNotFoundException")
    );
}
