//! `singletable-server --port 8000 [--host 127.0.0.1] [--data-dir DIR |
//! --snapshot FILE]`: serves the embedded engine as a DynamoDB endpoint,
//! in memory by default. With `--data-dir` (DynamoDB Local's `-dbPath`),
//! the store is durable ([`Embedded::open`]): every write is in the
//! directory's log before it is answered, so an acknowledged write
//! survives `kill -9`, and a restart on the directory has what the last
//! run had. With `--snapshot`, the file is loaded when it exists and
//! written on shutdown (ctrl-c or SIGTERM) only. The server's [`Limits`] have a flag each (`--max-connections
//! N`, `--header-read-timeout SECS`, `--idle-timeout SECS`,
//! `--body-read-timeout SECS`, `--max-body-bytes N`,
//! `--max-body-bytes-in-flight N`, `--accept-backoff-max SECS`), with
//! [`Limits::default()`]'s values when absent. `--ttl-sweep-interval SECS`
//! (10 by default, 0 for none) is how often expired items are deleted
//! ([`Embedded::sweep_expired_every`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use singletable_server::{Embedded, Endpoint, Limits};

struct Args {
    host: String,
    port: u16,
    snapshot: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    limits: Limits,
    ttl_sweep: Duration,
}

const USAGE: &str = "usage: singletable-server [--port PORT] [--host HOST]
  [--data-dir DIR | --snapshot FILE]
  [--max-connections N (1000)] [--header-read-timeout SECS (10)]
  [--idle-timeout SECS (60)] [--body-read-timeout SECS (30)]
  [--max-body-bytes N (16777216)] [--max-body-bytes-in-flight N (268435456)]
  [--accept-backoff-max SECS (1)] [--ttl-sweep-interval SECS (10)]

Storage (in memory when neither is given):
  --data-dir DIR   durable: every write is in DIR's write-ahead log (synced)
                   before it is answered; an acknowledged write survives a
                   crash or kill -9. DIR is created when missing; a restart
                   on DIR has every table, item and setting the last run had.
  --snapshot FILE  in memory, loaded from FILE when it exists and saved to it
                   on ctrl-c or SIGTERM (a crash loses what the run wrote)

TTL: every --ttl-sweep-interval seconds, items whose TTL attribute has passed
are deleted with a stream REMOVE record of DynamoDB's TTL service (0: never;
the ExpireItems operation sweeps at once)";

fn seconds(flag: &str, v: &str) -> Result<Duration, String> {
    v.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{flag}: {v:?} is not a number of seconds"))
}

fn count(flag: &str, v: &str) -> Result<usize, String> {
    v.parse().map_err(|e| format!("{flag}: {e}"))
}

fn args() -> Result<Args, String> {
    let mut out = Args {
        host: "127.0.0.1".into(),
        port: 8000,
        snapshot: None,
        data_dir: None,
        limits: Limits::default(),
        ttl_sweep: Duration::from_secs(10),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--port" => out.port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--host" => out.host = value()?,
            "--snapshot" => out.snapshot = Some(PathBuf::from(value()?)),
            "--data-dir" => out.data_dir = Some(PathBuf::from(value()?)),
            "--max-connections" => {
                out.limits.max_connections = count(&a, &value()?)?.max(1);
            }
            "--header-read-timeout" => out.limits.header_read_timeout = seconds(&a, &value()?)?,
            "--idle-timeout" => out.limits.idle_timeout = seconds(&a, &value()?)?,
            "--body-read-timeout" => out.limits.body_read_timeout = seconds(&a, &value()?)?,
            "--max-body-bytes" => out.limits.max_body_bytes = count(&a, &value()?)?,
            "--max-body-bytes-in-flight" => {
                out.limits.max_body_bytes_in_flight = count(&a, &value()?)?;
            }
            "--accept-backoff-max" => out.limits.accept_backoff_max = seconds(&a, &value()?)?,
            "--ttl-sweep-interval" => out.ttl_sweep = seconds(&a, &value()?)?,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if out.snapshot.is_some() && out.data_dir.is_some() {
        return Err(format!(
            "--data-dir and --snapshot exclude each other: a data directory keeps its own snapshots\n{USAGE}"
        ));
    }
    Ok(out)
}

async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let store = match (&args.data_dir, &args.snapshot) {
        (Some(dir), _) => match Embedded::open(dir) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("cannot open {}: {e}", dir.display());
                return ExitCode::FAILURE;
            }
        },
        (None, Some(p)) if p.exists() => match Embedded::load(p) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("cannot load {}: {e}", p.display());
                return ExitCode::FAILURE;
            }
        },
        _ => Embedded::new(),
    };
    let listener = match tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot listen on {}:{}: {e}", args.host, args.port);
            return ExitCode::FAILURE;
        }
    };
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    println!("singletable-server listening on http://{addr}");
    store.sweep_expired_every(args.ttl_sweep);
    let endpoint = Endpoint::with_store(store);
    if let Err(e) = endpoint
        .clone()
        .serve_with(listener, args.limits, shutdown())
        .await
    {
        eprintln!("server error: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(dir) = &args.data_dir {
        // Everything is in the log already; a snapshot makes the next
        // start read it instead of replaying the log.
        if let Err(e) = endpoint.store().compact() {
            eprintln!("cannot compact {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    if let Some(p) = &args.snapshot {
        if let Err(e) = endpoint.store().save(p) {
            eprintln!("cannot save {}: {e}", p.display());
            return ExitCode::FAILURE;
        }
        println!("saved {}", p.display());
    }
    ExitCode::SUCCESS
}
