//! A server that cannot be starved: idle and slow-loris connections are
//! closed after their timeouts while SDK clients are answered, a connection
//! over the limit is answered 503 at once, and request bodies are bounded.

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::Value;
use singletable_server::{Endpoint, Limits};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::http::error_name;

async fn start(limits: Limits) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(Endpoint::new().serve_with(listener, limits, std::future::pending()));
    addr.to_string()
}

pub(super) fn sdk(addr: &str, retries: bool) -> Client {
    let mut config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(format!("http://{addr}"))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"));
    if !retries {
        config = config.retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled());
    }
    Client::from_conf(config.build())
}

fn request(op: &str, body: &str) -> Vec<u8> {
    format!(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.{op}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one response (status, JSON body) from `s`, within `wait`.
async fn response(s: &mut TcpStream, wait: Duration) -> Option<(u16, Value)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    tokio::time::timeout(wait, async {
        loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len {
                    let status = head.split(' ').nth(1)?.parse().ok()?;
                    let body = serde_json::from_slice(&buf[end + 4..end + 4 + len]).ok()?;
                    return Some((status, body));
                }
            }
            let n = s.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .ok()
    .flatten()
}

/// How long after `from` the server closed `s` (its read side ends).
async fn closed_after(mut s: TcpStream, from: Instant) -> Duration {
    let mut chunk = [0u8; 1024];
    while matches!(s.read(&mut chunk).await, Ok(n) if n > 0) {}
    from.elapsed()
}

/// A slow-loris: a request's headers, a byte every 50 ms, never finished.
/// How long after its first byte the server closed it.
async fn slow_loris(addr: String) -> Duration {
    let mut s = TcpStream::connect(&addr).await.unwrap();
    let head =
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Padding: "
            .iter()
            .chain(std::iter::repeat(&b'a'));
    let first = Instant::now();
    let mut chunk = [0u8; 64];
    for b in head {
        tokio::select! {
            r = s.read(&mut chunk) => if matches!(r, Ok(0) | Err(_)) { break },
            () = tokio::time::sleep(Duration::from_millis(50)) => {
                if s.write_all(&[*b]).await.is_err() { break }
            }
        }
    }
    first.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn idle_and_slow_clients_cannot_starve_the_endpoint() {
    let header = Duration::from_millis(1000);
    let idle = Duration::from_millis(2000);
    let max = 48;
    let addr = start(
        Limits::default()
            .with_max_connections(max)
            .with_header_read_timeout(header)
            .with_idle_timeout(idle),
    )
    .await;

    // 20 connections that send nothing, 10 slow-loris ones and 8 that ask
    // once and then stay open.
    let mut idle_raw = Vec::new();
    for _ in 0..20 {
        let s = TcpStream::connect(&addr).await.unwrap();
        idle_raw.push(tokio::spawn(closed_after(s, Instant::now())));
    }
    let slow: Vec<_> = (0..10)
        .map(|_| tokio::spawn(slow_loris(addr.clone())))
        .collect();
    let mut kept = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(&addr).await.unwrap();
        s.write_all(&request("ListTables", "{}")).await.unwrap();
        let (status, _) = response(&mut s, Duration::from_secs(2)).await.unwrap();
        assert_eq!(status, 200);
        kept.push(tokio::spawn(closed_after(s, Instant::now())));
    }

    // (1) An SDK client is answered while they are open.
    let client = sdk(&addr, true);
    let answered = Instant::now();
    client
        .create_table()
        .table_name("Starve")
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .attribute_definitions(
            aws_sdk_dynamodb::types::AttributeDefinition::builder()
                .attribute_name("PK")
                .attribute_type(aws_sdk_dynamodb::types::ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            aws_sdk_dynamodb::types::KeySchemaElement::builder()
                .attribute_name("PK")
                .key_type(aws_sdk_dynamodb::types::KeyType::Hash)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    client
        .put_item()
        .table_name("Starve")
        .item("PK", AttributeValue::S("a".into()))
        .send()
        .await
        .unwrap();
    let got = client
        .get_item()
        .table_name("Starve")
        .key("PK", AttributeValue::S("a".into()))
        .send()
        .await
        .unwrap();
    assert!(got.item().is_some());
    assert!(answered.elapsed() < Duration::from_millis(500));

    // (3) Beyond the limit: 20 more clients, of which those past the 48th
    // connection are answered 503 at once, never left hanging.
    let (told, mut tell) = tokio::sync::mpsc::unbounded_channel();
    let mut fillers = Vec::new();
    for _ in 0..20 {
        let mut s = TcpStream::connect(&addr).await.unwrap();
        s.write_all(&request("ListTables", "{}")).await.unwrap();
        let told = told.clone();
        fillers.push(tokio::spawn(async move {
            match response(&mut s, Duration::from_millis(300)).await {
                Some((503, body)) => {
                    assert_eq!(error_name(&body), "ServiceUnavailable", "{body}");
                    told.send(true).unwrap();
                    None
                }
                Some((200, _)) => {
                    told.send(false).unwrap();
                    Some(closed_after(s, Instant::now()).await)
                }
                other => panic!("{other:?}"),
            }
        }));
    }
    let mut refused = 0;
    for _ in 0..20 {
        refused += usize::from(tell.recv().await.unwrap());
    }
    // 38 held above and the SDK's pooled connection: 9 fillers fit.
    assert!((10..=12).contains(&refused), "{refused} refused");
    let asked = Instant::now();
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(&request("ListTables", "{}")).await.unwrap();
    let (status, body) = response(&mut s, Duration::from_secs(1)).await.unwrap();
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        body["__type"],
        "com.amazonaws.dynamodb.v20120810#ServiceUnavailable"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Too many connections: the endpoint serves 48 at once")
    );
    assert!(asked.elapsed() < Duration::from_millis(300));
    // What an SDK sees there, without retries: a 503 it would retry.
    let refused_sdk = sdk(&addr, false).list_tables().send().await.unwrap_err();
    assert_eq!(
        refused_sdk.raw_response().map(|r| r.status().as_u16()),
        Some(503),
        "{:?}",
        aws_sdk_dynamodb::error::DisplayErrorContext(&refused_sdk)
    );
    assert_eq!(
        refused_sdk.raw_response().map(|r| r.status().as_u16()),
        Some(503)
    );

    // (2) Closed by the server after their timeouts: those that never sent
    // a byte and the slow-loris ones after the header timeout, the
    // kept-alive ones after the idle timeout.
    for (what, tasks, timeout) in [
        ("silent", idle_raw, header),
        ("slow-loris", slow, header),
        ("kept-alive", kept, idle),
    ] {
        for t in tasks {
            let lived = t.await.unwrap();
            check(what, lived, timeout);
        }
    }
    for t in fillers {
        if let Some(lived) = t.await.unwrap() {
            check("filler", lived, idle);
        }
    }
    // Their slots are free again.
    assert!(client.list_tables().send().await.is_ok());
}

fn check(what: &str, lived: Duration, timeout: Duration) {
    let slack = Duration::from_millis(900);
    assert!(
        lived + Duration::from_millis(50) >= timeout && lived <= timeout + slack,
        "a {what} connection lived {lived:?} (timeout {timeout:?})"
    );
}

/// A body over the limit is answered as DynamoDB answers it (413,
/// `RequestEntityTooLargeException`), whether its length is declared or
/// chunked; the body bytes all requests hold are bounded (a request with no
/// room waits for it); a body that does not arrive in time closes its
/// connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn request_bodies_are_bounded() {
    let timeout = Duration::from_millis(500);
    let addr = start(
        Limits::default()
            .with_max_body_bytes(1000)
            .with_max_body_bytes_in_flight(1500)
            .with_body_read_timeout(timeout),
    )
    .await;
    let too_large = |body: &Value| {
        assert_eq!(
            body["__type"],
            "com.amazon.coral.service#RequestEntityTooLargeException"
        );
        assert_eq!(
            body["message"],
            "Request must be smaller than 1000 bytes for the PutItem operation"
        );
    };

    // Declared: refused before any of it is sent.
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: 500000000\r\n\r\n")
        .await
        .unwrap();
    let (status, body) = response(&mut s, Duration::from_secs(1)).await.unwrap();
    assert_eq!(status, 413);
    too_large(&body);

    // Chunked: refused once it passes the limit.
    let mut s = TcpStream::connect(&addr).await.unwrap();
    let chunk = format!("{:x}\r\n{}\r\n", 600, " ".repeat(600));
    s.write_all(
        format!("POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nTransfer-Encoding: chunked\r\n\r\n{chunk}{chunk}0\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let (status, body) = response(&mut s, Duration::from_secs(1)).await.unwrap();
    assert_eq!(status, 413);
    too_large(&body);

    // 1000 of the 1500 bytes held by a body that never comes: a second
    // body of 800 waits for room until the first's timeout frees it.
    let mut holder = TcpStream::connect(&addr).await.unwrap();
    holder
        .write_all(&request("ListTables", &format!("{{}}{}", " ".repeat(998)))[..150])
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let held = Instant::now();
    let padded = format!("{{}}{}", " ".repeat(798));
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(&request("ListTables", &padded)).await.unwrap();
    let (status, body) = response(&mut s, Duration::from_secs(2)).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let waited = held.elapsed();
    assert!(
        waited >= timeout - Duration::from_millis(100)
            && waited < timeout + Duration::from_millis(500),
        "{waited:?}"
    );
    // The slow body's connection was closed at its timeout.
    let lived = closed_after(holder, held).await;
    assert!(lived < timeout + Duration::from_millis(500), "{lived:?}");
    // Room for a body that fits is there at once.
    let asked = Instant::now();
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(&request("ListTables", &padded)).await.unwrap();
    let (status, body) = response(&mut s, Duration::from_secs(1)).await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(asked.elapsed() < Duration::from_millis(200));
}
