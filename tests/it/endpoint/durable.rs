//! Durable storage (`--data-dir`): the real `singletable-server` binary
//! as a child process, killed with SIGKILL mid-load and restarted on the
//! same directory; and a log whose tail is torn or corrupt, cut at its
//! last whole record.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use serde_json::{Value, json};

use super::http::{call, post};
use super::limits::sdk;

/// The server binary, built (by the cargo running these tests, into the
/// same target directory and profile) the first time a test asks.
fn binary() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/<profile>/deps/it-<hash>
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test binary sits in target/<profile>/deps");
        let mut build = crate::support::cargo();
        build.current_dir(env!("CARGO_MANIFEST_DIR")).args([
            "build",
            "-q",
            "-p",
            "singletable-server",
            "--bin",
            "singletable-server",
        ]);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "building singletable-server failed");
        let bin = profile_dir.join(format!(
            "singletable-server{}",
            std::env::consts::EXE_SUFFIX
        ));
        assert!(bin.exists(), "{} was not built", bin.display());
        bin
    })
}

/// A `singletable-server --data-dir` child process.
struct Server {
    child: Child,
    url: String,
    addr: String,
    stderr: PathBuf,
}

impl Server {
    /// Starts the server on `dir`, its stderr going to `stderr`; returns
    /// once it listens.
    fn start(dir: &Path, stderr: &Path) -> Self {
        let err = std::fs::File::create(stderr).expect("stderr file");
        let mut child = Command::new(binary())
            .args(["--port", "0", "--data-dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .expect("the server starts");
        let out = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(out)
            .read_line(&mut line)
            .expect("the server prints its address");
        let url = line
            .trim()
            .strip_prefix("singletable-server listening on ")
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!(
                    "the server did not start: {line:?}, stderr: {}",
                    std::fs::read_to_string(stderr).unwrap_or_default()
                )
            })
            .to_owned();
        let addr = url.trim_start_matches("http://").to_owned();
        Self {
            child,
            url,
            addr,
            stderr: stderr.to_owned(),
        }
    }

    /// SIGKILL: no shutdown code runs.
    fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("the server exits");
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An empty directory of this test's own.
fn fresh_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("singletable-durable-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// Every item of `table`, by `(PK, SK)`, each as sorted `name=value`
/// strings of its attributes (paged through a Scan).
async fn scan_all(client: &Client, table: &str) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("Scan");
        for item in page.items() {
            let key = |k: &str| match item.get(k) {
                Some(AttributeValue::S(v)) => v.clone(),
                other => panic!("{k} is {other:?}"),
            };
            out.insert((key("PK"), key("SK")), text(item));
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return out;
        }
    }
}

/// An item's key: `(PK, SK)`.
type Key = (String, String);

/// A way to damage a log's bytes.
type Damage = Box<dyn Fn(&mut Vec<u8>)>;

/// An item as text, attributes sorted by name.
fn text(item: &HashMap<String, AttributeValue>) -> String {
    let sorted: BTreeMap<&String, &AttributeValue> = item.iter().collect();
    format!("{sorted:?}")
}

/// The item the load writes at `(pk, sk)`: its attributes follow from its
/// key, so a wrong item is seen.
fn item_at(pk: &str, sk: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("PK".to_owned(), s(pk)),
        ("SK".to_owned(), s(sk)),
        ("owner".to_owned(), s(&format!("owner-{}", pk.len() % 3))),
        ("body".to_owned(), s(&format!("{pk}/{sk}").repeat(8))),
        ("n".to_owned(), AttributeValue::N(sk.len().to_string())),
    ])
}

/// A Streams API call (DynamoDB Local's streams target on the same
/// address).
async fn streams(url: &str, op: &str, body: &Value) -> Value {
    let r = post(
        url,
        Some(&format!("DynamoDBStreams_20120810.{op}")),
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 200, "{op}: {:?}", r.json());
    r.json()
}

/// The sequence numbers of every record of `table`'s stream, oldest
/// first.
async fn stream_sequence(url: &str, table: &str) -> Vec<String> {
    let (_, d) = call(url, "DescribeTable", &json!({"TableName": table})).await;
    let arn = d["Table"]["LatestStreamArn"]
        .as_str()
        .expect("a stream")
        .to_owned();
    let desc = streams(url, "DescribeStream", &json!({"StreamArn": arn})).await;
    let shard = desc["StreamDescription"]["Shards"][0]["ShardId"]
        .as_str()
        .expect("a shard")
        .to_owned();
    let it = streams(
        url,
        "GetShardIterator",
        &json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
    )
    .await;
    let mut iterator = it["ShardIterator"].clone();
    let mut out = Vec::new();
    loop {
        let page = streams(
            url,
            "GetRecords",
            &json!({"ShardIterator": iterator, "Limit": 1000}),
        )
        .await;
        let records = page["Records"].as_array().cloned().unwrap_or_default();
        if records.is_empty() {
            return out;
        }
        out.extend(records.iter().map(|r| {
            r["dynamodb"]["SequenceNumber"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        }));
        iterator = page["NextShardIterator"].clone();
    }
}

/// What a restart must keep of a table's settings: DescribeTable without
/// the counts and sizes, TTL, tags.
async fn settings(url: &str, table: &str) -> Value {
    let (status, mut d) = call(url, "DescribeTable", &json!({"TableName": table})).await;
    assert_eq!(status, 200, "{d}");
    let t = &mut d["Table"];
    for k in ["ItemCount", "TableSizeBytes"] {
        t.as_object_mut().unwrap().remove(k);
    }
    for ix in t["GlobalSecondaryIndexes"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        for k in ["ItemCount", "IndexSizeBytes"] {
            ix.as_object_mut().unwrap().remove(k);
        }
    }
    let (_, ttl) = call(url, "DescribeTimeToLive", &json!({"TableName": table})).await;
    let arn = t["TableArn"].clone();
    let (_, tags) = call(url, "ListTagsOfResource", &json!({"ResourceArn": arn})).await;
    json!({"table": d["Table"], "ttl": ttl, "tags": tags})
}

/// Start the real binary on a data directory, run PutItem and
/// TransactWriteItems from several tasks, SIGKILL it mid-load, restart it
/// on the directory: every acknowledged write is there, nothing that was
/// never sent is, each transaction is all there or not at all, and the
/// table's settings (billing mode, creation time, index, TTL, stream and
/// its records, tags) are the ones it had.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_writes_survive_a_crash() {
    let dir = fresh_dir("crash");
    let log = dir.with_extension("stderr");
    let server = Server::start(&dir, &log);
    let url = server.url.clone();
    let table = "Durable";
    let (status, created) = call(
        &url,
        "CreateTable",
        &json!({
            "TableName": table,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"},
                {"AttributeName": "owner", "AttributeType": "S"}
            ],
            "KeySchema": [
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"}
            ],
            "GlobalSecondaryIndexes": [{
                "IndexName": "byOwner",
                "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}
            }],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            "Tags": [{"Key": "team", "Value": "storage"}]
        }),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let (status, ttl) = call(
        &url,
        "UpdateTimeToLive",
        &json!({"TableName": table, "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}}),
    )
    .await;
    assert_eq!(status, 200, "{ttl}");
    let arn = created["TableDescription"]["TableArn"].clone();
    let (status, tagged) = call(
        &url,
        "TagResource",
        &json!({"ResourceArn": arn, "Tags": [{"Key": "env", "Value": "test"}]}),
    )
    .await;
    assert_eq!(status, 200, "{tagged}");
    let before = settings(&url, table).await;
    assert_eq!(
        before["table"]["BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST",
        "{before}"
    );

    // The load: each task puts single items and two-item transactions,
    // recording a key as sent before sending and as acknowledged after
    // its answer, until the server is gone.
    let client = sdk(&server.addr, false);
    let sent: Arc<Mutex<BTreeSet<Key>>> = Arc::default();
    let acked: Arc<Mutex<BTreeSet<Key>>> = Arc::default();
    let transactions: Arc<Mutex<Vec<[Key; 2]>>> = Arc::default();
    let mut tasks = Vec::new();
    for task in 0..6 {
        let (client, sent, acked, transactions) = (
            client.clone(),
            sent.clone(),
            acked.clone(),
            transactions.clone(),
        );
        tasks.push(tokio::spawn(async move {
            for i in 0.. {
                if i % 3 == 2 {
                    let keys = [
                        (format!("tx{task}-{i}"), "a".to_owned()),
                        (format!("tx{task}-{i}"), "b".to_owned()),
                    ];
                    sent.lock().unwrap().extend(keys.iter().cloned());
                    transactions.lock().unwrap().push(keys.clone());
                    let items = keys.iter().map(|(pk, sk)| {
                        TransactWriteItem::builder()
                            .put(
                                Put::builder()
                                    .table_name(table)
                                    .set_item(Some(item_at(pk, sk)))
                                    .build()
                                    .unwrap(),
                            )
                            .build()
                    });
                    match client
                        .transact_write_items()
                        .set_transact_items(Some(items.collect()))
                        .send()
                        .await
                    {
                        Ok(_) => acked.lock().unwrap().extend(keys),
                        Err(_) => return,
                    }
                } else {
                    let key = (format!("p{task}"), format!("{i:06}"));
                    sent.lock().unwrap().insert(key.clone());
                    match client
                        .put_item()
                        .table_name(table)
                        .set_item(Some(item_at(&key.0, &key.1)))
                        .send()
                        .await
                    {
                        Ok(_) => {
                            acked.lock().unwrap().insert(key);
                        }
                        Err(_) => return,
                    }
                }
            }
        }));
    }
    // Kill it mid-load: once a few hundred writes are acknowledged.
    let started = Instant::now();
    while acked.lock().unwrap().len() < 600 && started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill();
    for t in tasks {
        t.await.expect("a load task");
    }
    let (sent, acked) = (sent.lock().unwrap().clone(), acked.lock().unwrap().clone());
    assert!(
        acked.len() >= 600,
        "only {} writes acknowledged",
        acked.len()
    );
    assert!(
        sent.len() > acked.len(),
        "the kill came after the load: nothing was in flight"
    );

    let server = Server::start(&dir, &log);
    let client = sdk(&server.addr, false);
    let present = scan_all(&client, table).await;
    let missing: Vec<_> = acked.iter().filter(|k| !present.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged writes lost, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    let unsent: Vec<_> = present.keys().filter(|k| !sent.contains(*k)).collect();
    assert!(unsent.is_empty(), "items never sent: {unsent:?}");
    for ((pk, sk), attrs) in &present {
        assert_eq!(
            attrs,
            &text(&item_at(pk, sk)),
            "{pk}/{sk} is not the item written"
        );
    }
    for [a, b] in transactions.lock().unwrap().iter() {
        assert_eq!(
            present.contains_key(a),
            present.contains_key(b),
            "transaction {a:?}/{b:?} is half there"
        );
    }
    // The index holds what the table holds.
    let mut in_index = 0;
    for owner in ["owner-0", "owner-1", "owner-2"] {
        let mut start = None;
        loop {
            let page = client
                .query()
                .table_name(table)
                .index_name("byOwner")
                .key_condition_expression("#o = :o")
                .expression_attribute_names("#o", "owner")
                .expression_attribute_values(":o", s(owner))
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("Query of the index");
            in_index += page.count();
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                break;
            }
        }
    }
    assert_eq!(in_index as usize, present.len());
    let after = settings(&server.url, table).await;
    assert_eq!(
        after, before,
        "the table's settings changed across the crash"
    );
    assert_eq!(
        after["table"]["BillingModeSummary"]["BillingMode"],
        "PAY_PER_REQUEST"
    );
    assert_eq!(
        after["table"]["CreationDateTime"],
        before["table"]["CreationDateTime"]
    );
    // One stream record per item the load left changed, in sequence.
    let records = stream_sequence(&server.url, table).await;
    assert_eq!(records.len(), present.len());
    let numbers: Vec<u64> = records.iter().map(|s| s.parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");

    // A restart's memory is the one before it: kill again, with no load,
    // and everything (items, settings, stream) reads back the same.
    server.kill();
    let server = Server::start(&dir, &log);
    let client = sdk(&server.addr, false);
    assert_eq!(scan_all(&client, table).await, present);
    assert_eq!(settings(&server.url, table).await, before);
    assert_eq!(stream_sequence(&server.url, table).await, records);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&log);
}

/// The byte offsets at which each record of the log `bytes` starts (after
/// the 8-byte header: `len: u32 LE`, `crc: u32 LE`, payload), as
/// docs/endpoint.md describes the format.
fn record_starts(bytes: &[u8]) -> Vec<usize> {
    assert_eq!(&bytes[..8], b"STWAL\0\0\x01", "the log's header");
    let mut at = 8;
    let mut out = Vec::new();
    while at < bytes.len() {
        out.push(at);
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 8 + len;
    }
    assert_eq!(at, bytes.len(), "the log ends with a whole record");
    out
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Records written, the server stopped; then the log is cut mid-record,
/// and (in a copy) a byte of its last record flipped: the server starts,
/// says where it cut, serves every whole record before the cut and no
/// corrupted item, and writes on after the cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_log_tail_is_cut_cleanly() {
    let dir = fresh_dir("tail");
    let log = dir.with_extension("stderr");
    let server = Server::start(&dir, &log);
    let table = "Tail";
    let (status, created) = call(
        &server.url,
        "CreateTable",
        &json!({
            "TableName": table,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"}
            ],
            "KeySchema": [
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"}
            ]
        }),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let client = sdk(&server.addr, false);
    let keys: Vec<(String, String)> = (0..10)
        .map(|i| ("k".to_owned(), format!("{i:02}")))
        .collect();
    for (pk, sk) in &keys {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item_at(pk, sk)))
            .send()
            .await
            .expect("PutItem");
    }
    server.kill();
    let wal = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("wal-"))
        .expect("a log file");
    let bytes = std::fs::read(&wal).unwrap();
    let starts = record_starts(&bytes);
    // CreateTable, its annotation, ten puts.
    assert!(starts.len() >= 11, "{} records", starts.len());
    let last = *starts.last().unwrap();
    let whole: BTreeMap<(String, String), String> = {
        let server = Server::start(&dir, &log);
        let all = scan_all(&sdk(&server.addr, false), table).await;
        assert_eq!(all.len(), 10);
        all
    };
    let kept: BTreeMap<_, _> = whole
        .iter()
        .filter(|(k, _)| k.1 != "09")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();

    let damages: [(&str, Damage); 3] = [
        (
            "torn-payload",
            Box::new(move |b| b.truncate(last + 8 + (b.len() - last - 8) / 2)),
        ),
        ("torn-header", Box::new(move |b| b.truncate(last + 3))),
        (
            "flipped",
            Box::new(move |b| {
                let mid = last + 8 + (b.len() - last - 8) / 2;
                b[mid] ^= 0x5a;
                b[mid + 1] ^= 0xff;
            }),
        ),
    ];
    for (name, damage) in damages {
        let copy = dir.with_extension(name);
        copy_dir(&dir, &copy);
        let file = copy.join(wal.file_name().unwrap());
        let mut b = bytes.clone();
        damage(&mut b);
        std::fs::write(&file, &b).unwrap();
        let err = copy.with_extension(format!("{name}.stderr"));
        let server = Server::start(&copy, &err);
        let said = server.stderr();
        assert!(
            said.contains(&format!("cut at byte {last} of {}", b.len())),
            "{name}: the server did not say where it cut: {said:?}"
        );
        let client = sdk(&server.addr, false);
        assert_eq!(scan_all(&client, table).await, kept, "{name}");
        // The cut is where the log goes on: a write after it is read back
        // after another crash, with everything before it.
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item_at("k", "10")))
            .send()
            .await
            .expect("PutItem after the cut");
        server.kill();
        assert!(std::fs::metadata(&file).unwrap().len() as usize > last);
        let server = Server::start(&copy, &err);
        let mut want = kept.clone();
        want.insert(("k".into(), "10".into()), text(&item_at("k", "10")));
        let got = scan_all(&sdk(&server.addr, false), table).await;
        assert_eq!(got, want, "{name}: after a write past the cut");
        assert!(
            !server.stderr().contains("cut at"),
            "{name}: the log was cut again: {}",
            server.stderr()
        );
        drop(server);
        let _ = std::fs::remove_dir_all(&copy);
        let _ = std::fs::remove_file(&err);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&log);
}
