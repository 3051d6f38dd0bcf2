//! An issue tracker on singletable: most item collections on global
//! indexes (see `model.rs`).
//!
//! `cargo run --example tracker` runs on the embedded in-memory backend;
//! with `DYNAMODB_ENDPOINT` set (for example by `scripts/dynamodb-local.sh`)
//! it runs against that endpoint, creating table `TABLE_NAME` (default
//! `Tracker`) when missing. `cargo run --example tracker -- --design`
//! prints the design document.

mod tracker;

use singletable::SdkDb;
use singletable::{Backend, Db, Result};
use tracker::app;
use tracker::model::Tracker;

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<()> {
    if std::env::args().any(|a| a == "--design") {
        print!("{}", singletable::design::document::<Tracker>());
        return Ok(());
    }
    let table = std::env::var("TABLE_NAME").unwrap_or_else(|_| "Tracker".to_owned());
    // The backend is chosen here, explicitly; the library never falls back.
    let db: Db = match std::env::var("DYNAMODB_ENDPOINT") {
        Ok(endpoint) => {
            println!("DynamoDB at {endpoint}");
            let sdk = Db::local(&endpoint, table);
            if sdk.create_table_if_missing::<Tracker>().await? {
                println!("created table {}", sdk.table_name());
            }
            sdk.into_shared()
        }
        Err(_) => {
            println!("embedded in-memory backend (set DYNAMODB_ENDPOINT to use a DynamoDB)");
            Db::open::<Tracker>(Backend::Embedded, table).await?
        }
    };
    app::tour(&db).await
}
