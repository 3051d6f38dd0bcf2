//! `singletable-server --port 8000 [--host 127.0.0.1] [--snapshot FILE]`:
//! serves the embedded engine as a DynamoDB endpoint. With `--snapshot`,
//! the file is loaded when it exists and written on shutdown (ctrl-c or
//! SIGTERM).

use std::path::PathBuf;
use std::process::ExitCode;

use singletable_server::{Embedded, Endpoint};

struct Args {
    host: String,
    port: u16,
    snapshot: Option<PathBuf>,
}

const USAGE: &str = "usage: singletable-server [--port PORT] [--host HOST] [--snapshot FILE]";

fn args() -> Result<Args, String> {
    let mut out = Args {
        host: "127.0.0.1".into(),
        port: 8000,
        snapshot: None,
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
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
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
    let store = match &args.snapshot {
        Some(p) if p.exists() => match Embedded::load(p) {
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
    let endpoint = Endpoint::with_store(store);
    if let Err(e) = endpoint.clone().serve(listener, shutdown()).await {
        eprintln!("server error: {e}");
        return ExitCode::FAILURE;
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
