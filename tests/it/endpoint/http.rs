//! A minimal HTTP/1.1 client for raw requests (no new dependency), and the
//! server started on a free loopback port.

use serde_json::Value;
use singletable_server::Endpoint;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw response: status, lower-cased headers, body.
pub struct Raw {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Raw {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// Starts an endpoint on 127.0.0.1 and returns `http://127.0.0.1:PORT`;
/// it serves until the test's runtime ends.
pub async fn start(endpoint: Endpoint) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(endpoint.serve(listener, std::future::pending()));
    format!("http://{addr}")
}

/// POSTs `body` to `url` with the given `X-Amz-Target` (none when `None`)
/// and a dummy SigV4 header (DynamoDB Local wants one present).
pub async fn post(url: &str, target: Option<&str>, body: &[u8]) -> Raw {
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(host).await.unwrap();
    let mut req = format!(
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: {}\r\nConnection: close\r\nAuthorization: AWS4-HMAC-SHA256 Credential=test/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x\r\n",
        body.len()
    );
    if let Some(t) = target {
        req.push_str(&format!("X-Amz-Target: {t}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    // The body is written while the answer is read: a server may answer
    // (and close) before it has read all of a body it refuses (a 413), and
    // what it answered is read before the closed socket resets.
    let (mut reader, mut writer) = s.into_split();
    let body = body.to_vec();
    let sending = tokio::spawn(async move {
        let _ = writer.write_all(&body).await;
        writer
    });
    let mut buf = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if !buf.is_empty() => {
                eprintln!("read after an answer: {e}");
                break;
            }
            Err(e) => panic!("no answer: {e}"),
        }
    }
    drop(sending.await);
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = buf[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v == "chunked")
    {
        body = dechunk(&body);
    }
    Raw {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(std::str::from_utf8(&b[..i]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + n]);
        b = &b[i + 4 + n..];
    }
    out
}

/// The short name of an error body's `__type` (after the `#`).
pub fn error_name(v: &Value) -> String {
    v["__type"]
        .as_str()
        .unwrap_or("")
        .rsplit('#')
        .next()
        .unwrap_or("")
        .to_owned()
}

/// An error body's message (DynamoDB Local writes `Message`).
pub fn error_message(v: &Value) -> String {
    v.get("message")
        .or_else(|| v.get("Message"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

#[tokio::test]
async fn unknown_operations_are_refused_cleanly() {
    let url = start(Endpoint::new()).await;
    let cases: [(Option<&str>, &[u8], &str); 6] = [
        (
            Some("DynamoDB_20120810.Frobnicate"),
            b"{}",
            "com.amazon.coral.service#UnknownOperationException",
        ),
        (
            None,
            b"{}",
            "com.amazon.coral.service#UnknownOperationException",
        ),
        (
            Some("Nope"),
            b"{}",
            "com.amazon.coral.service#UnknownOperationException",
        ),
        (
            Some("DynamoDB_20120810.ListTables"),
            b"{bad",
            "com.amazon.coral.service#SerializationException",
        ),
        (
            Some("DynamoDB_20120810.ListTables"),
            b"[]",
            "com.amazon.coral.service#SerializationException",
        ),
        (
            Some("DynamoDB_20120810.GetItem"),
            br#"{"TableName": 5, "Key": {}}"#,
            "com.amazon.coral.service#SerializationException",
        ),
    ];
    for (target, body, kind) in cases {
        let r = post(&url, target, body).await;
        assert_eq!(
            r.status,
            400,
            "{target:?} {}",
            String::from_utf8_lossy(body)
        );
        assert_eq!(r.json()["__type"], kind, "{target:?}");
        assert!(!error_message(&r.json()).is_empty());
        assert!(r.header("x-amzn-requestid").is_some_and(|v| v.len() == 36));
        let crc: u32 = r.header("x-amz-crc32").unwrap().parse().unwrap();
        assert_eq!(crc, singletable_server::crc32(&r.body));
    }
    // Values a client may get wrong: typed 400s, never a 5xx or a panic.
    let create = br#"{"TableName":"T1x","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(
        post(&url, Some("DynamoDB_20120810.CreateTable"), create)
            .await
            .status,
        200
    );
    let deep = format!(
        "{}{{\"S\":\"x\"}}{}",
        "{\"L\":[".repeat(5000),
        "]}".repeat(5000)
    );
    for body in [
        r#"{"TableName":"T1x","Item":{"PK":{"S":"a"},"n":{"N":"1e999999"}}}"#.to_owned(),
        r#"{"TableName":"T1x","Item":{"PK":{"S":"a"},"n":{"N":"123456789012345678901234567890123456789"}}}"#.to_owned(),
        r#"{"TableName":"T1x","Item":{"PK":{"S":"a"},"n":{"N":"abc"}}}"#.to_owned(),
        r#"{"TableName":"T1x","Item":{"PK":{"N":"1"}}}"#.to_owned(),
        r#"{"TableName":"T1x","Item":{"PK":{"S":"a"},"b":{"B":"!!"}}}"#.to_owned(),
        r#"{"TableName":"T1x","Item":{"PK":{"S":"a"}},"ConditionExpression":"((((("}"#.to_owned(),
        format!(r#"{{"TableName":"T1x","Item":{{"PK":{{"S":"a"}},"d":{deep}}}}}"#),
    ] {
        let r = post(&url, Some("DynamoDB_20120810.PutItem"), body.as_bytes()).await;
        assert_eq!(r.status, 400, "{}", &body[..body.len().min(200)]);
        assert!(!error_name(&r.json()).is_empty());
    }
}

/// What the AWS CLI's table commands set beyond the schema: the billing
/// mode (one of DynamoDB's two, with the time it became on-demand) and
/// deletion protection, which DeleteTable honours until UpdateTable lifts it.
#[tokio::test]
async fn table_settings_follow_dynamodb() {
    let ep = Endpoint::new();
    let call = |op: &str, body: Value| {
        let ep = ep.clone();
        let target = format!("DynamoDB_20120810.{op}");
        async move {
            let r = ep.handle(Some(&target), body.to_string().as_bytes()).await;
            (r.status, serde_json::from_slice::<Value>(&r.body).unwrap())
        }
    };
    let table = serde_json::json!({
        "TableName": "Settings",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
    });
    let with = |extra: Value| {
        let mut t = table.clone();
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        t
    };

    let (status, bad) = call(
        "CreateTable",
        with(serde_json::json!({"BillingMode": "FREE"})),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        error_message(&bad),
        "1 validation error detected: Value 'FREE' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"
    );

    let (status, created) = call(
        "CreateTable",
        with(serde_json::json!({"BillingMode": "PAY_PER_REQUEST", "DeletionProtectionEnabled": true})),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let d = &created["TableDescription"];
    assert_eq!(d["DeletionProtectionEnabled"], true);
    assert_eq!(
        d["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"],
        d["CreationDateTime"]
    );

    let name = serde_json::json!({"TableName": "Settings"});
    let (status, refused) = call("DeleteTable", name.clone()).await;
    assert_eq!(status, 400);
    assert_eq!(error_name(&refused), "ValidationException");
    assert_eq!(
        error_message(&refused),
        "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."
    );

    // A malformed member changes nothing, not even the members before it.
    let (status, _) = call(
        "UpdateTable",
        serde_json::json!({"TableName": "Settings", "DeletionProtectionEnabled": false, "BillingMode": "FREE"}),
    )
    .await;
    assert_eq!(status, 400);
    let (_, described) = call("DescribeTable", name.clone()).await;
    assert_eq!(described["Table"]["DeletionProtectionEnabled"], true);

    let (status, updated) = call(
        "UpdateTable",
        serde_json::json!({"TableName": "Settings", "DeletionProtectionEnabled": false}),
    )
    .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        updated["TableDescription"]["DeletionProtectionEnabled"],
        false
    );
    let (status, deleted) = call("DeleteTable", name).await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["TableDescription"]["TableStatus"], "DELETING");
}

/// The JSON 1.0 target of a DynamoDB operation (`GetItem`) or, prefixed
/// `Streams.`, of a Streams API operation (`Streams.GetRecords`).
pub fn target(op: &str) -> String {
    match op.strip_prefix("Streams.") {
        Some(op) => format!("DynamoDBStreams_20120810.{op}"),
        None => format!("DynamoDB_20120810.{op}"),
    }
}

/// Creates `table` on `url`: on-demand, a string partition key `PK`.
pub async fn create_table(url: &str, table: &str) {
    let body = serde_json::json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]});
    let (status, r) = call(url, "CreateTable", &body).await;
    assert_eq!(status, 200, "{r}");
}

/// Sends `body` as operation `op` (see [`target`]) to `url`: status and
/// JSON body.
pub async fn call(url: &str, op: &str, body: &Value) -> (u16, Value) {
    let r = post(url, Some(&target(op)), body.to_string().as_bytes()).await;
    (r.status, r.json())
}

/// TTL settings live in the store: UpdateTimeToLive answers as DynamoDB
/// Local does, and a snapshot written and loaded again still describes the
/// same setting (the answer compared with Local's after the reload).
#[tokio::test]
async fn time_to_live_survives_a_snapshot() {
    let ep = Endpoint::new();
    let ours = start(ep.clone()).await;
    let local = crate::support::endpoint();
    let (a, b) = (
        "TtlSnap".to_owned(),
        crate::support::unique_table("TtlSnap"),
    );
    for (url, table) in [(&ours, &a), (&local, &b)] {
        create_table(url, table).await;
        let (status, r) = call(
            url,
            "UpdateTimeToLive",
            &serde_json::json!({"TableName": table, "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}}),
        )
        .await;
        assert_eq!(status, 200, "{r}");
    }
    let path = std::env::temp_dir().join(format!("singletable-ttl-{}.json", std::process::id()));
    ep.store().save(&path).unwrap();
    let reloaded = start(Endpoint::with_store(
        singletable_server::Embedded::load(&path).unwrap(),
    ))
    .await;
    std::fs::remove_file(&path).ok();
    let describe = |url: String, table: String| async move {
        call(
            &url,
            "DescribeTimeToLive",
            &serde_json::json!({"TableName": table}),
        )
        .await
    };
    let theirs = describe(local.clone(), b.clone()).await;
    assert_eq!(describe(reloaded.clone(), a.clone()).await, theirs);
    assert_eq!(
        theirs.1["TimeToLiveDescription"]["TimeToLiveStatus"],
        "ENABLED"
    );
    // Enabling it again is refused by both, after the reload too.
    let again = serde_json::json!({"TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}});
    let on = |url: &str, table: &str| {
        let mut body = again.clone();
        body["TableName"] = serde_json::json!(table);
        let url = url.to_owned();
        async move { call(&url, "UpdateTimeToLive", &body).await }
    };
    let (x, y) = (on(&reloaded, &a).await, on(&local, &b).await);
    assert_eq!((x.0, error_name(&x.1)), (y.0, error_name(&y.1)));
    assert_eq!(x.0, 400);
}

/// Concurrent writes each report their own capacity: 24 PutItems of one
/// small item at once, each 1 write unit on the endpoint as on DynamoDB
/// Local (the endpoint meters a request that asks for capacity alone).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn consumed_capacity_is_per_request() {
    let ours = start(Endpoint::new()).await;
    let local = crate::support::endpoint();
    let mut seen = Vec::new();
    for (url, table) in [
        (ours, "Metered".to_owned()),
        (local, crate::support::unique_table("Metered")),
    ] {
        create_table(&url, &table).await;
        let puts = (0..24).map(|i| {
            let (url, table) = (url.clone(), table.clone());
            tokio::spawn(async move {
                call(
                    &url,
                    "PutItem",
                    &serde_json::json!({"TableName": table, "Item": {"PK": {"S": format!("k{i}")}},
                        "ReturnConsumedCapacity": "TOTAL"}),
                )
                .await
            })
        });
        let mut units = Vec::new();
        for p in puts.collect::<Vec<_>>() {
            let (status, r) = p.await.unwrap();
            assert_eq!(status, 200, "{r}");
            units.push(r["ConsumedCapacity"]["CapacityUnits"].as_f64().unwrap());
        }
        seen.push(units);
    }
    assert_eq!(seen[0], vec![1.0; 24]);
    assert_eq!(seen[0], seen[1]);
}
