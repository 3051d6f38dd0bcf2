//! Shared set-up for the tests that run against DynamoDB Local: the test
//! command (`scripts/test.sh`, see docs/testing.md) starts it and sets `DYNAMODB_ENDPOINT`.

use std::sync::atomic::{AtomicUsize, Ordering};

use singletable::SdkDb;
use singletable::admin::Admin;
use singletable::backend::{ExtraIndexes, TableUpdate};
use singletable::definition::TableDefinition;
use singletable::{AttributeValue, Backend, Db, Error, Executor, Item, SdkExecutor, Table};
use singletable_runtime::exec::{BoxFuture, CapacityMeter};
use singletable_runtime::reader::{Items, ReaderPage};
use singletable_runtime::request::{
    BatchGet, BatchGetOutput, BatchOp, BatchWrite, CountPage, DeleteItem, GetItem, Page, PutItem,
    QueryRequest, ScanRequest, TransactGet, TransactWrite, UpdateItem,
};

/// The endpoint of the DynamoDB Local the test command started.
/// A nested cargo command (the cargo running the tests), without the
/// variables cargo set for this test, not for builds: a build script that
/// reads one (ring's reads CARGO_MANIFEST_DIR) would be rerun, and with it
/// everything above it, here and again in the next `cargo test`.
pub fn cargo() -> std::process::Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_BIN_EXE_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
                "OUT_DIR",
            ]
            .contains(&&*name)
        {
            command.env_remove(&*name);
        }
    }
    command
}

pub fn endpoint() -> String {
    std::env::var("DYNAMODB_ENDPOINT").unwrap_or_else(|_| {
        panic!("DYNAMODB_ENDPOINT is not set: run the tests with `scripts/test.sh`, which starts DynamoDB Local")
    })
}

/// A table name no other test uses, so tests run in parallel.
pub fn unique_table(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// A fresh table laid out as `T` declares it.
pub async fn fresh_db<T: Table>(prefix: &str) -> Db<SdkExecutor> {
    let db = Db::local(&endpoint(), unique_table(prefix));
    assert!(
        db.create_table_if_missing::<T>()
            .await
            .expect("create table"),
        "table name should be fresh"
    );
    db
}

/// The shared handle on a fresh table laid out as `T` declares it, on
/// DynamoDB Local, and on an embedded table of the same declaration: one
/// type, so one test body runs on both.
pub async fn both<T: Table>(prefix: &str) -> [Db; 2] {
    let local = fresh_db::<T>(prefix).await;
    let local: Db = Db::open::<T>(
        Backend::DynamoDbLocal {
            endpoint: endpoint(),
        },
        local.table_name(),
    )
    .await
    .unwrap();
    let embedded: Db = Db::open::<T>(Backend::Embedded, T::NAME).await.unwrap();
    [local, embedded]
}

/// A raw item by key, through the executor (what any other client reads).
pub async fn raw_item<E: Executor>(db: &Db<E>, pk: &str, sk: &str) -> Item {
    let mut key = Item::new();
    key.insert("PK".into(), AttributeValue::S(pk.into()));
    key.insert("SK".into(), AttributeValue::S(sk.into()));
    db.executor()
        .get_item(GetItem {
            table: db.table_name().into(),
            key,
            consistent: true,
        })
        .await
        .unwrap()
        .expect("item exists")
}

/// Every item of `table` (or of its index `index`), raw, page after page
/// of at most `limit` items (DynamoDB's page size when `None`).
pub async fn scan_all<E: Executor + ?Sized>(
    exec: &E,
    table: &str,
    index: Option<&str>,
    limit: Option<i32>,
    consistent: bool,
) -> Vec<Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = exec
            .scan(ScanRequest {
                table: table.to_owned(),
                index: index.map(str::to_owned),
                filter: None,
                limit,
                consistent,
                start: start.take(),
                segment: None,
                projection: None,
            })
            .await
            .unwrap();
        out.extend(page.items);
        match page.last_key {
            Some(k) => start = Some(k),
            None => return out,
        }
    }
}

/// Puts a raw item through the executor, as any other client could.
pub async fn raw_put<E: Executor>(db: &Db<E>, item: Item) -> singletable::Result<()> {
    db.executor()
        .put_item(PutItem {
            table: db.table_name().into(),
            item,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await
        .map(drop)
}

/// What a test executor changes about the requests it passes on (fail some,
/// hold some back, act first); every method's default leaves the request
/// alone. [`Layered`] puts a layer in front of an executor.
pub trait Layer: Send + Sync {
    /// Runs before each request, given its operation name and, for requests
    /// of one key (GetItem, UpdateItem, DeleteItem), the key: an error to
    /// return instead of sending the request.
    fn before(&self, op: &'static str, key: Option<&Item>) -> BoxFuture<'static, Option<Error>> {
        let _ = (op, key);
        Box::pin(async { None })
    }

    /// Sends a BatchWriteItem through `inner`.
    fn batch_write<'a, E: Executor>(
        &'a self,
        inner: &'a E,
        req: BatchWrite,
    ) -> BoxFuture<'a, singletable::Result<Vec<BatchOp>>> {
        inner.batch_write(req)
    }

    /// Sends a BatchGetItem through `inner`.
    fn batch_get<'a, E: Executor>(
        &'a self,
        inner: &'a E,
        req: BatchGet,
    ) -> BoxFuture<'a, singletable::Result<BatchGetOutput>> {
        inner.batch_get(req)
    }
}

/// An executor with a [`Layer`] in front: what the layer leaves alone,
/// in-place reads and capacity included, goes to `inner` unchanged.
pub struct Layered<E, L> {
    pub inner: E,
    pub layer: L,
}

impl<E: Executor, L: Layer> Layered<E, L> {
    fn guard<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        key: Option<&Item>,
        send: BoxFuture<'a, singletable::Result<T>>,
    ) -> BoxFuture<'a, singletable::Result<T>> {
        let hook = self.layer.before(op, key);
        Box::pin(async move {
            match hook.await {
                Some(e) => Err(e),
                None => send.await,
            }
        })
    }
}

/// Table administration goes to `inner` unchanged: layers inject faults
/// into item requests only.
impl<E: Executor, L: Layer> Admin for Layered<E, L> {
    fn create_table<'a>(
        &'a self,
        table: &'a str,
        definition: &'a TableDefinition,
    ) -> BoxFuture<'a, singletable::Result<bool>> {
        self.inner.create_table(table, definition)
    }
    fn describe_table<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, singletable::Result<TableDefinition>> {
        self.inner.describe_table(table)
    }
    fn update_table<'a>(
        &'a self,
        table: &'a str,
        declared: &'a TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> BoxFuture<'a, singletable::Result<TableUpdate>> {
        self.inner.update_table(table, declared, extra, apply)
    }
    fn delete_table<'a>(&'a self, table: &'a str) -> BoxFuture<'a, singletable::Result<()>> {
        Admin::delete_table(&self.inner, table)
    }
    fn stream_arn<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, singletable::Result<Option<String>>> {
        self.inner.stream_arn(table)
    }
}

impl<E: Executor, L: Layer> Executor for Layered<E, L> {
    fn capacity(&self) -> Option<&CapacityMeter> {
        self.inner.capacity()
    }
    fn get_item(&self, req: GetItem) -> BoxFuture<'_, singletable::Result<Option<Item>>> {
        let key = req.key.clone();
        self.guard("GetItem", Some(&key), self.inner.get_item(req))
    }
    fn get_item_reader(&self, req: GetItem) -> BoxFuture<'_, singletable::Result<Items>> {
        let key = req.key.clone();
        self.guard("GetItem", Some(&key), self.inner.get_item_reader(req))
    }
    fn put_item(&self, req: PutItem) -> BoxFuture<'_, singletable::Result<Option<Item>>> {
        self.guard("PutItem", None, self.inner.put_item(req))
    }
    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, singletable::Result<Option<Item>>> {
        let key = req.key.clone();
        self.guard("DeleteItem", Some(&key), self.inner.delete_item(req))
    }
    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, singletable::Result<Option<Item>>> {
        let key = req.key.clone();
        self.guard("UpdateItem", Some(&key), self.inner.update_item(req))
    }
    fn query(&self, req: QueryRequest) -> BoxFuture<'_, singletable::Result<Page>> {
        self.guard("Query", None, self.inner.query(req))
    }
    fn query_reader(&self, req: QueryRequest) -> BoxFuture<'_, singletable::Result<ReaderPage>> {
        self.guard("Query", None, self.inner.query_reader(req))
    }
    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, singletable::Result<CountPage>> {
        self.guard("Query", None, self.inner.query_count(req))
    }
    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, singletable::Result<Page>> {
        self.guard("Scan", None, self.inner.scan(req))
    }
    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, singletable::Result<()>> {
        self.guard("TransactWriteItems", None, self.inner.transact_write(req))
    }
    fn transact_get(
        &self,
        req: TransactGet,
    ) -> BoxFuture<'_, singletable::Result<Vec<Option<Item>>>> {
        self.guard("TransactGetItems", None, self.inner.transact_get(req))
    }
    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, singletable::Result<Vec<BatchOp>>> {
        self.guard(
            "BatchWriteItem",
            None,
            self.layer.batch_write(&self.inner, req),
        )
    }
    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, singletable::Result<BatchGetOutput>> {
        self.guard("BatchGetItem", None, self.layer.batch_get(&self.inner, req))
    }
    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, singletable::Result<Option<u64>>> {
        self.inner.estimated_item_count(table)
    }
}
