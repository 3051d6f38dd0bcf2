//! The endpoint beside DynamoDB Local and dynoxide's server, in one run:
//! cold start to the first answer, a GetItem round trip over loopback,
//! PutItem from one client (one request at a time on one keep-alive
//! connection, so its throughput is one over its latency), and PutItem
//! from 16 clients at once (throughput under concurrency, where group
//! commit counts). Each server runs in memory and, as `…/durable`, on a
//! data directory (`--data-dir`; DynamoDB Local's `-dbPath`, dynoxide's
//! `--db-path`), a fresh one per start under the system's temporary
//! directory.
//!
//! Run with the servers it compares with:
//!
//! ```text
//! bash scripts/bench-endpoint.sh
//! ```
//!
//! which fetches DynamoDB Local (as the tests do) and builds dynoxide's
//! server once into `.cache/dynoxide`, then runs
//! `cargo bench -p singletable-server --bench endpoint` with
//! `DYNAMODB_LOCAL_JAR` and `DYNOXIDE_BIN` set. A server whose variable is
//! unset is left out (and said so).
//!
//! Every server gets the same bytes: a raw HTTP/1.1 client over one TCP
//! connection (`TCP_NODELAY`), so the client's own cost is the same for
//! all three and small.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};

/// A server under test: how to start it on a port.
struct Server {
    name: &'static str,
    command: Box<dyn Fn(u16) -> Command>,
}

/// One keep-alive connection speaking DynamoDB's JSON 1.0 protocol.
struct Conn {
    port: u16,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(port: u16) -> std::io::Result<Self> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(Self {
            port,
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Sends one request and reads its whole response: the status and body.
    fn call(&mut self, operation: &str, body: &str) -> std::io::Result<(u16, Vec<u8>)> {
        let head = format!(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n\
             X-Amz-Target: DynamoDB_20120810.{operation}\r\nX-Amz-Date: 20260101T000000Z\r\n\
             Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-target, Signature=00\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body.as_bytes());
        self.writer.write_all(&request)?;
        self.read_response()
    }

    fn read_response(&mut self) -> std::io::Result<(u16, Vec<u8>)> {
        let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_owned());
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(&format!("status line {line:?}")))?;
        let (mut length, mut chunked) = (None, false);
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').ok_or_else(|| bad(header))?;
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.trim().eq_ignore_ascii_case("chunked");
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader.read_line(&mut line)?;
                let size = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("chunk size"))?;
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length.ok_or_else(|| bad("no length"))?, 0);
            self.reader.read_exact(&mut body)?;
        }
        Ok((status, body))
    }

    /// Sends one request that must succeed. A server may close a
    /// keep-alive connection left idle while the others were measured
    /// (DynamoDB Local does): then it is opened again, once.
    fn ok(&mut self, operation: &str, body: &str) {
        let (status, out) = self
            .call(operation, body)
            .or_else(|_| {
                *self = Conn::open(self.port)?;
                self.call(operation, body)
            })
            .expect("request");
        assert_eq!(
            status,
            200,
            "{operation}: {}",
            String::from_utf8_lossy(&out)
        );
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A started server, stopped when dropped.
struct Running {
    child: Child,
    port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `server` and waits for its first answer to ListTables; the time
/// that took.
fn start(server: &Server) -> (Running, Duration) {
    let port = free_port();
    let begin = Instant::now();
    let child = (server.command)(port)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", server.name));
    let running = Running { child, port };
    loop {
        if let Ok(mut c) = Conn::open(port)
            && matches!(c.call("ListTables", "{}"), Ok((200, _)))
        {
            return (running, begin.elapsed());
        }
        assert!(
            begin.elapsed() < Duration::from_secs(60),
            "{} did not answer",
            server.name
        );
        std::thread::sleep(Duration::from_micros(200));
    }
}

const TABLE: &str = r#"{"TableName":"Bench","BillingMode":"PAY_PER_REQUEST",
 "AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}],
 "KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}]}"#;

/// A 200-byte order, as the library would write it.
fn order(n: u64) -> String {
    format!(
        r#"{{"TableName":"Bench","Item":{{"PK":{{"S":"USER#ana"}},"SK":{{"S":"ORDER#{n:010}"}},"entityType":{{"S":"Order"}},"status":{{"S":"PENDING"}},"totalCents":{{"N":"12990"}},"placedAt":{{"S":"2026-12-01T10:00:00Z"}},"lines":{{"L":[{{"M":{{"sku":{{"S":"BOOK-1"}},"qty":{{"N":"2"}}}}}}]}}}}}}"#
    )
}

const GET: &str =
    r#"{"TableName":"Bench","Key":{"PK":{"S":"USER#ana"},"SK":{"S":"ORDER#0000000000"}}}"#;

/// A fresh, empty data directory for the server started on `port`.
fn data_dir(name: &str, port: u16) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("singletable-bench-{name}-{port}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a data directory");
    dir
}

fn servers() -> Vec<Server> {
    let mut out = vec![
        Server {
            name: "singletable-server",
            command: Box::new(|port| {
                let mut c = Command::new(env!("CARGO_BIN_EXE_singletable-server"));
                c.args(["--port", &port.to_string()]);
                c
            }),
        },
        Server {
            name: "singletable-server/durable",
            command: Box::new(|port| {
                let mut c = Command::new(env!("CARGO_BIN_EXE_singletable-server"));
                c.args(["--port", &port.to_string(), "--data-dir"])
                    .arg(data_dir("singletable", port));
                c
            }),
        },
    ];
    match std::env::var_os("DYNAMODB_LOCAL_JAR") {
        Some(jar) => {
            let jar = PathBuf::from(jar);
            let java = std::env::var_os("JAVA").unwrap_or_else(|| "java".into());
            for durable in [false, true] {
                let (jar, java) = (jar.clone(), java.clone());
                out.push(Server {
                    name: if durable {
                        "dynamodb-local/durable"
                    } else {
                        "dynamodb-local"
                    },
                    command: Box::new(move |port| {
                        let lib = jar.parent().expect("jar dir").join("DynamoDBLocal_lib");
                        let mut c = Command::new(&java);
                        c.arg(format!("-Djava.library.path={}", lib.display()))
                            .arg("-jar")
                            .arg(&jar);
                        if durable {
                            c.arg("-dbPath").arg(data_dir("dynamodb-local", port));
                        } else {
                            c.arg("-inMemory");
                        }
                        c.args(["-port", &port.to_string()]);
                        c
                    }),
                });
            }
        }
        None => eprintln!("DYNAMODB_LOCAL_JAR unset: DynamoDB Local left out"),
    }
    match std::env::var_os("DYNOXIDE_BIN") {
        Some(bin) => {
            for durable in [false, true] {
                let bin = bin.clone();
                out.push(Server {
                    name: if durable {
                        "dynoxide/durable"
                    } else {
                        "dynoxide"
                    },
                    command: Box::new(move |port| {
                        let mut c = Command::new(&bin);
                        c.args(["--port", &port.to_string()]);
                        if durable {
                            // Its SQLite store in a file (in memory otherwise).
                            c.arg("--db-path")
                                .arg(data_dir("dynoxide", port).join("dynoxide.db"));
                        }
                        c
                    }),
                });
            }
        }
        None => eprintln!("DYNOXIDE_BIN unset: dynoxide left out"),
    }
    out
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let servers = servers();

    let mut cold = c.benchmark_group("endpoint/cold_start");
    cold.sample_size(10);
    for s in &servers {
        cold.bench_function(BenchmarkId::from_parameter(s.name), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| start(s).1).sum())
        });
    }
    cold.finish();

    let running: Vec<(&Server, Running)> = servers.iter().map(|s| (s, start(s).0)).collect();
    let mut conns: Vec<(&str, Conn)> = running
        .iter()
        .map(|(s, r)| {
            let mut conn = Conn::open(r.port).expect("connect");
            conn.ok("CreateTable", TABLE);
            conn.ok("PutItem", &order(0));
            (s.name, conn)
        })
        .collect();

    let mut get = c.benchmark_group("endpoint/get_item");
    for (name, conn) in &mut conns {
        get.bench_function(BenchmarkId::from_parameter(*name), |b| {
            b.iter(|| conn.ok("GetItem", GET))
        });
    }
    get.finish();

    let mut put = c.benchmark_group("endpoint/put_item");
    put.throughput(Throughput::Elements(1));
    for (name, conn) in &mut conns {
        let mut n = 1;
        put.bench_function(BenchmarkId::from_parameter(*name), |b| {
            b.iter(|| {
                n += 1;
                conn.ok("PutItem", &order(n));
            })
        });
    }
    put.finish();

    // 16 clients at once, each on its own connection and thread; every
    // put a new item.
    const CLIENTS: u64 = 16;
    let next = std::sync::atomic::AtomicU64::new(1 << 32);
    let mut many = c.benchmark_group("endpoint/put_item_16_clients");
    many.throughput(Throughput::Elements(1));
    many.sample_size(10);
    for (s, r) in &running {
        let mut pool: Vec<Conn> = (0..CLIENTS)
            .map(|_| Conn::open(r.port).expect("connect"))
            .collect();
        many.bench_function(BenchmarkId::from_parameter(s.name), |b| {
            b.iter_custom(|iters| {
                let each = iters.div_ceil(CLIENTS);
                let begin = Instant::now();
                std::thread::scope(|scope| {
                    for conn in &mut pool {
                        let next = &next;
                        scope.spawn(move || {
                            for _ in 0..each {
                                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                conn.ok("PutItem", &order(n));
                            }
                        });
                    }
                });
                begin
                    .elapsed()
                    .mul_f64(iters as f64 / (each * CLIENTS) as f64)
            })
        });
    }
    many.finish();
    drop(conns);
    drop(running);
    c.final_summary();
}
