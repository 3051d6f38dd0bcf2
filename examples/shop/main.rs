//! The store of the reference documents on singletable.
//!
//! `cargo run --example shop` runs on the embedded in-memory backend, with
//! nothing else installed. With `DYNAMODB_ENDPOINT` set (for example by
//! `scripts/dynamodb-local.sh`) it runs against that endpoint instead, and
//! `TABLE_NAME` picks the table (default `AppTable`); there it creates the
//! table when missing and leaves its data in the table.
//! `cargo run --example shop -- --design` prints the design document
//! generated from the declarations; `-- --cost` what a month of the
//! declared workload (`workload.rs`) costs, `-- --cost-json` the same as JSON,
//! `-- --cost-design` the design document with the cost as its last section,
//! and `-- --cost-svg FILE` writes a chart of the money per path (on demand
//! against provisioned) to FILE.
//! `cargo run --release --example shop -- --backfill [--items N]` writes N
//! orders (default 10,000) as the code before the sharded index wrote
//! them, then backfills their index keys with a progress bar; against a
//! DynamoDB endpoint it uses a table of its own, deleted afterwards.

mod app;
mod backfill;
mod model;
mod workload;

use model::*;
use singletable::SdkDb;
use singletable::embedded::Embedded;
use singletable::{Db, Result};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cost_flags = ["--cost", "--cost-json", "--cost-design", "--cost-svg"];
    if let Some(flag) = args.iter().find(|a| cost_flags.contains(&a.as_str())) {
        // What the declared workload costs, priced from the declarations.
        let report = workload::workload()
            .and_then(|w| w.report(&singletable::cost::Prices::us_east_1(), 0.7));
        match report {
            Ok(r) if flag == "--cost-json" => println!(
                "{}",
                serde_json::to_string_pretty(&r).expect("a report serializes")
            ),
            Ok(r) if flag == "--cost-design" => print!("{}", r.document::<AppTable>()),
            Ok(r) if flag == "--cost-svg" => {
                let Some(path) = args.iter().skip_while(|a| *a != flag).nth(1) else {
                    eprintln!("error: --cost-svg needs the file to write the chart to");
                    std::process::exit(2);
                };
                if let Err(e) = std::fs::write(path, r.svg()) {
                    eprintln!("error: writing {path}: {e}");
                    std::process::exit(1);
                }
                println!("wrote {path}");
            }
            Ok(r) => print!("{}", r.markdown()),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<()> {
    if std::env::args().any(|a| a == "--design") {
        // The single-table design document, generated from the declarations.
        print!("{}", singletable::design::document::<AppTable>());
        return Ok(());
    }
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--backfill") {
        let items = args
            .iter()
            .position(|a| a == "--items")
            .and_then(|i| args.get(i + 1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(10_000);
        return backfill_demo(items).await;
    }
    let table = std::env::var("TABLE_NAME").unwrap_or_else(|_| "AppTable".to_owned());
    if std::env::var_os("DYNAMODB_ENDPOINT").is_some() {
        let db = Db::from_env(table).await;
        println!(
            "DynamoDB at {}",
            std::env::var("DYNAMODB_ENDPOINT").unwrap_or_default()
        );
        if db.create_table_if_missing::<AppTable>().await? {
            println!("created table {}", db.table_name());
        }
        app::tour(&db).await
    } else {
        println!("embedded in-memory backend (set DYNAMODB_ENDPOINT to use a DynamoDB)");
        let db: Db<Embedded> = Db::in_memory::<AppTable>(table)?;
        app::tour(&db).await
    }
}

async fn backfill_demo(items: usize) -> Result<()> {
    if std::env::var_os("DYNAMODB_ENDPOINT").is_some() {
        let table = format!("ShopBackfill-{}", std::process::id());
        let db = Db::from_env(table).await;
        db.create_table_if_missing::<AppTable>().await?;
        println!(
            "DynamoDB at {}, table {}",
            std::env::var("DYNAMODB_ENDPOINT").unwrap_or_default(),
            db.table_name()
        );
        let result = backfill::run(&db, items).await;
        db.delete_table().await?;
        result
    } else {
        println!("embedded in-memory backend");
        let db: Db<Embedded> = Db::in_memory::<AppTable>("AppTable")?;
        backfill::run(&db, items).await
    }
}
