//! Backfills on both backends: a new index's keys written into every old
//! item (then found by the new access pattern, one request per page);
//! writes racing the backfill never lost; a crashed, throttled backfill
//! resumed from its checkpoint.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use singletable::backfill::{Counts, Progress};
use singletable::embedded::Embedded;
use singletable::{
    BatchPolicy, Checkpoint, Counting, Db, Entity, Error, Executor, Item, SdkExecutor, Table,
};
use singletable_runtime::exec::BoxFuture;

use crate::support::{Layer, Layered, fresh_db, raw_item};

#[derive(Table)]
#[table(name = "Backfill", gsi1, gsi2)]
pub struct BackfillTable;

/// The entity as first declared, with no index.
mod v1 {
    use singletable::Entity;

    #[derive(Entity, Debug, Clone)]
    #[entity(table = super::BackfillTable, name = "Order", rename_all = "camelCase")]
    #[pk("ORDER#<order_id>")]
    #[sk("DETAILS")]
    pub struct Order {
        pub order_id: String,
        pub customer: String,
        pub status: String,
        pub hits: u32,
    }
}

/// Later: orders by customer, and by status.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = BackfillTable, name = "Order", rename_all = "camelCase")]
#[pk("ORDER#<order_id>")]
#[sk("DETAILS")]
#[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<order_id>")]
#[gsi2(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
#[access(by_customer, index = gsi1)]
#[access(by_status, index = gsi2)]
pub struct Order {
    pub order_id: String,
    pub customer: String,
    pub status: String,
    pub hits: u32,
}

/// Another entity type in the same table, which a backfill of orders
/// leaves alone.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = BackfillTable, name = "Customer")]
#[pk("CUSTOMER#<id>")]
#[sk("PROFILE")]
pub struct Customer {
    pub id: String,
    pub name: String,
}

fn old_order(i: usize) -> v1::Order {
    v1::Order {
        order_id: format!("o{i:04}"),
        customer: format!("c{}", i % 6),
        status: "s0".into(),
        hits: 0,
    }
}

async fn seed_old<E: Executor>(db: &Db<E>, n: usize) {
    for i in 0..n {
        db.put(&old_order(i)).await.unwrap();
    }
}

/// The index keys `Order` writes for `o`, as stored now.
async fn assert_keys_follow_fields<E: Executor>(db: &Db<E>, o: &Order, backend: &str) {
    let raw = raw_item(db, &Order::pk(&o.order_id).unwrap(), "DETAILS").await;
    let built = o.to_item().unwrap();
    for attr in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
        assert_eq!(raw.get(attr), built.get(attr), "{backend}: {attr} of {o:?}");
    }
}

type Hook = dyn Fn(&'static str, Option<&Item>) -> BoxFuture<'static, Option<Error>> + Send + Sync;

/// A layer that lets a test act before each request (given the operation
/// and, for requests of one key, the key): fail it, or write first.
pub(crate) struct Before(Box<Hook>);

impl Layer for Before {
    fn before(&self, op: &'static str, key: Option<&Item>) -> BoxFuture<'static, Option<Error>> {
        (self.0)(op, key)
    }
}

/// `inner` with `before` run ahead of each request.
pub(crate) fn hooked<E: Executor>(
    inner: E,
    before: impl Fn(&'static str, Option<&Item>) -> BoxFuture<'static, Option<Error>>
    + Send
    + Sync
    + 'static,
) -> Layered<E, Before> {
    Layered {
        inner,
        layer: Before(Box::new(before)),
    }
}

fn throttled() -> Error {
    Error::Throttled {
        operation: "test",
        code: "ProvisionedThroughputExceededException".into(),
        message: "slow down".into(),
        source: Box::new(std::io::Error::other("slow down")),
    }
}

pub(crate) fn crashed() -> Error {
    Error::Service {
        operation: "test",
        code: None,
        message: "the process crashed".into(),
        source: Box::new(std::io::Error::other("crash")),
    }
}

/// Quick retries, so injected throttling costs milliseconds.
fn quick() -> BatchPolicy {
    BatchPolicy {
        concurrency: 4,
        max_attempts: 6,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(4),
    }
}

// ---------------------------------------------------------------------------

async fn adds_keys<E: Executor>(exec: E, table: &str, backend: &str) {
    let db = Db::with_executor(Counting::new(exec), table);
    seed_old(&db, 240).await;
    for i in 0..30 {
        db.put(&Customer {
            id: format!("c{i}"),
            name: format!("customer {i}"),
        })
        .await
        .unwrap();
    }
    // Written by the new declaration already: nothing to do for these.
    for i in 240..244 {
        let o = Order {
            order_id: format!("o{i:04}"),
            customer: "c0".into(),
            status: "s0".into(),
            hits: 0,
        };
        db.put(&o).await.unwrap();
    }
    assert_eq!(Order::by_customer("c1").all(&db).await.unwrap(), []);

    let dry = singletable::Backfill::<Order>::new()
        .segments(3)
        .dry_run()
        .run(&db)
        .await
        .unwrap();
    assert!(dry.dry_run);
    assert_eq!(
        dry.counts.rewritten, 240,
        "{backend}: would rewrite the old items"
    );
    assert_eq!(dry.counts.unchanged, 4, "{backend}");
    assert_eq!(dry.counts.matched, 244, "{backend}: only orders");
    assert_eq!(dry.counts.scanned, 274, "{backend}: every item is read");
    assert_eq!(
        Order::by_customer("c1").all(&db).await.unwrap(),
        [],
        "{backend}: a dry run writes nothing"
    );

    let seen: Mutex<Vec<Progress>> = Mutex::new(Vec::new());
    db.executor().reset();
    let report = singletable::Backfill::<Order>::new()
        .segments(3)
        .page_size(25)
        .on_progress(|p| seen.lock().unwrap().push(p.clone()))
        .run(&db)
        .await
        .unwrap();
    assert_eq!(report.counts.rewritten, 240, "{backend}: {report:?}");
    assert_eq!(report.counts.unchanged, 4, "{backend}");
    assert_eq!(report.counts.conflicts, 0, "{backend}");
    assert!(
        report.failures.is_empty(),
        "{backend}: {:?}",
        report.failures
    );
    assert!(report.checkpoint.is_done());
    assert!(report.rate() > 0.0);
    // One Scan per page of 25 evaluated items per segment, one UpdateItem
    // per old item, and the DescribeTable of the estimate.
    let scans = db.executor().count() - 240 - 1;
    assert!(
        (274 / 25..=274 / 25 + 2 * 3 + 3).contains(&scans),
        "{backend}: {scans} scans"
    );

    let seen = seen.into_inner().unwrap();
    assert!(
        seen.len() >= scans,
        "{backend}: a report per page and one at the end"
    );
    assert!(
        seen.windows(2)
            .all(|w| w[0].counts.scanned <= w[1].counts.scanned),
        "{backend}: counts only grow"
    );
    let last = seen.last().unwrap();
    assert!(last.done && last.segments_done == 3 && last.fraction() == Some(1.0));
    assert_eq!(last.counts, report.counts);
    if backend == "embedded" {
        assert_eq!(last.estimated_total, Some(274));
        assert!(
            seen.iter()
                .any(|p| !p.done && p.eta.is_some() && p.rate > 0.0),
            "progress estimates the time left"
        );
    }

    // The new access pattern finds every old item, one request per page.
    for c in 0..6 {
        let customer = format!("c{c}");
        let mut expected: Vec<String> = (0..240)
            .filter(|i| i % 6 == c)
            .map(|i| format!("o{i:04}"))
            .collect();
        if c == 0 {
            expected.extend((240..244).map(|i| format!("o{i:04}")));
        }
        db.executor().reset();
        let mut found = Vec::new();
        let mut pages = 0;
        let mut cursor = None;
        loop {
            let page = Order::by_customer(&customer)
                .limit(15)
                .page(&db, cursor.as_ref())
                .await
                .unwrap();
            pages += 1;
            found.extend(page.items.into_iter().map(|o| o.order_id));
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(found, expected, "{backend}: orders of {customer}");
        assert_eq!(
            db.executor().count(),
            pages,
            "{backend}: one request per page"
        );
    }
    assert_eq!(
        Order::by_status("s0").all(&db).await.unwrap().len(),
        244,
        "{backend}: and the other new index"
    );

    // Every key now matches: a second backfill rewrites nothing.
    let again = singletable::Backfill::<Order>::new()
        .run(&db)
        .await
        .unwrap();
    assert_eq!(again.counts.rewritten, 0, "{backend}");
    assert_eq!(again.counts.unchanged, 244, "{backend}");
    // The other entity is untouched.
    assert_eq!(db.scan_all::<Customer>().await.unwrap().len(), 30);
}

#[tokio::test]
async fn backfill_adds_keys_of_a_new_index() {
    let embedded = Db::<Embedded>::in_memory::<BackfillTable>("Backfill").unwrap();
    adds_keys(embedded.executor().clone(), "Backfill", "embedded").await;
    let local = fresh_db::<BackfillTable>("backfill-keys").await;
    adds_keys(
        local.executor().clone(),
        local.table_name(),
        "DynamoDB Local",
    )
    .await;
}

// ---------------------------------------------------------------------------

/// What each order should hold at the end: (status, hits).
type Ledger = Arc<Mutex<HashMap<String, (String, u32)>>>;

/// One writer's update of order `id`: the next status, one more hit.
async fn bump<E: Executor>(db: &Db<E>, ledger: &Ledger, id: &str) {
    let (status, hits) = {
        let l = ledger.lock().unwrap();
        let (s, h) = &l[id];
        (format!("s{}", s[1..].parse::<u32>().unwrap() + 1), *h + 1)
    };
    let f = Order::fields();
    Order::update(id)
        .set(f.status, status.clone())
        .add(f.hits, 1)
        .execute(db)
        .await
        .unwrap();
    ledger.lock().unwrap().insert(id.to_owned(), (status, hits));
}

async fn concurrent<E: Executor + Clone + 'static>(exec: E, table: &str, backend: &str) {
    const N: usize = 120;
    let plain = Db::with_executor(exec.clone(), table);
    seed_old(&plain, N).await;
    let ledger: Ledger = Arc::new(Mutex::new(
        (0..N)
            .map(|i| (format!("o{i:04}"), ("s0".to_owned(), 0)))
            .collect(),
    ));

    // Even orders: before every third rewrite the backfill sends, a writer
    // updates that order first, so the rewrite finds it changed.
    let writer = Db::with_executor(exec.clone(), table);
    let interfere = {
        let ledger = ledger.clone();
        let writer = writer.clone();
        let seen = Arc::new(AtomicUsize::new(0));
        move |op: &'static str, key: Option<&Item>| -> BoxFuture<'static, Option<Error>> {
            let ledger = ledger.clone();
            let writer = writer.clone();
            let id = key
                .filter(|_| op == "UpdateItem")
                .and_then(|k| k.get("PK"))
                .and_then(|v| v.as_s().ok())
                .and_then(|pk| Order::parse_pk(pk).ok())
                .filter(|id| id[1..].parse::<usize>().is_ok_and(|i| i % 2 == 0));
            let n = seen.fetch_add(usize::from(id.is_some()), Ordering::SeqCst);
            Box::pin(async move {
                if let (Some(id), "UpdateItem", 0) = (id, op, n % 3) {
                    bump(&writer, &ledger, &id).await;
                }
                None
            })
        }
    };
    let db = Db::with_executor(hooked(exec.clone(), interfere), table);

    // Odd orders: writers racing the backfill on other threads.
    let racers: Vec<_> = (0..2)
        .map(|w| {
            let writer = writer.clone();
            let ledger = ledger.clone();
            tokio::spawn(async move {
                for round in 0..3 {
                    for i in (1..N).step_by(2).filter(|i| (i / 2) % 2 == w) {
                        bump(&writer, &ledger, &format!("o{i:04}")).await;
                        if (i + round) % 7 == 0 {
                            tokio::task::yield_now().await;
                        }
                    }
                }
            })
        })
        .collect();
    let report = singletable::Backfill::<Order>::new()
        .segments(4)
        .page_size(10)
        .run(&db)
        .await
        .unwrap();
    for r in racers {
        r.await.unwrap();
    }
    assert!(
        report.failures.is_empty(),
        "{backend}: {:?}",
        report.failures
    );
    assert!(
        report.counts.conflicts > 0,
        "{backend}: the writers got in first"
    );

    // Nothing lost: every order holds what its writer wrote last, and its
    // index keys are those of its fields.
    let ledger = ledger.lock().unwrap().clone();
    let mut by_status: HashMap<String, Vec<String>> = HashMap::new();
    for (id, (status, hits)) in &ledger {
        let o: Order = plain
            .get_consistent(Order::key(id).unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!((&o.status, o.hits), (status, *hits), "{backend}: {id}");
        assert_keys_follow_fields(&plain, &o, backend).await;
        by_status
            .entry(status.clone())
            .or_default()
            .push(id.clone());
    }
    for (status, mut ids) in by_status {
        ids.sort();
        let found: Vec<String> = Order::by_status(&status)
            .all(&plain)
            .await
            .unwrap()
            .into_iter()
            .map(|o| o.order_id)
            .collect();
        assert_eq!(found, ids, "{backend}: orders in {status}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backfill_never_overwrites_a_concurrent_write() {
    let embedded = Db::<Embedded>::in_memory::<BackfillTable>("Backfill").unwrap();
    concurrent(embedded.executor().clone(), "Backfill", "embedded").await;
    let local: Db<SdkExecutor> = fresh_db::<BackfillTable>("backfill-race").await;
    concurrent(
        local.executor().clone(),
        local.table_name(),
        "DynamoDB Local",
    )
    .await;
}

// ---------------------------------------------------------------------------

async fn resumes<E: Executor + Clone + 'static>(exec: E, table: &str, backend: &str) {
    const N: usize = 200;
    let db = Db::with_executor(exec.clone(), table);
    seed_old(&db, N).await;

    // The first run is throttled on every fifth request and crashes at its
    // 90th rewrite.
    let requests = Arc::new(AtomicUsize::new(0));
    let updates = Arc::new(AtomicUsize::new(0));
    let flaky = hooked(exec.clone(), {
        let (requests, updates) = (requests.clone(), updates.clone());
        move |op, _: Option<&Item>| -> BoxFuture<'static, Option<Error>> {
            let n = requests.fetch_add(1, Ordering::SeqCst) + 1;
            let failure = if n % 5 == 0 {
                Some(throttled())
            } else if op == "UpdateItem" && updates.fetch_add(1, Ordering::SeqCst) + 1 >= 90 {
                Some(crashed())
            } else {
                None
            };
            Box::pin(async move { failure })
        }
    });
    let saved: Mutex<Option<String>> = Mutex::new(None);
    let flaky = Db::with_executor(flaky, table);
    let err = singletable::Backfill::<Order>::new()
        .segments(2)
        .page_size(20)
        .policy(quick())
        .on_progress(|p| *saved.lock().unwrap() = Some(p.checkpoint.to_json()))
        .run(&flaky)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Service { .. }), "{backend}: {err:?}");

    // The last checkpoint, as a job would have saved it.
    let saved = saved.into_inner().unwrap().expect("progress was reported");
    let checkpoint = Checkpoint::from_json(&saved).unwrap();
    assert!(
        !checkpoint.is_done(),
        "{backend}: the crash came before the end"
    );
    let before: Counts = checkpoint.counts();
    assert!(
        before.rewritten > 0 && before.rewritten < N as u64,
        "{backend}: {before:?}"
    );
    assert!(
        before.throttled > 0,
        "{backend}: throttled requests were retried"
    );

    // A checkpoint resumes the backfill it belongs to only.
    assert!(matches!(
        singletable::Backfill::<Customer>::new()
            .resume_from(checkpoint.clone())
            .run(&db)
            .await,
        Err(Error::Refused(
            singletable::Refusal::CheckpointOfAnother { .. }
        ))
    ));
    assert!(matches!(
        singletable::Backfill::<Order>::new()
            .segments(3)
            .resume_from(checkpoint.clone())
            .run(&db)
            .await,
        Err(Error::Refused(singletable::Refusal::CheckpointSegments {
            requested: 3,
            ..
        }))
    ));

    let report = singletable::Backfill::<Order>::new()
        .resume_from(checkpoint)
        .page_size(20)
        .run(&db)
        .await
        .unwrap();
    assert_eq!(report.resumed, before);
    let this_run = report.counts.scanned - before.scanned;
    assert!(
        this_run < N as u64,
        "{backend}: resumed, not started over ({this_run} items read again)"
    );
    assert!(
        report.failures.is_empty(),
        "{backend}: {:?}",
        report.failures
    );
    // Every old item was rewritten once: in the first run (counted unless
    // its page was cut by the crash) or in this one.
    let rewritten_now = report.counts.rewritten - before.rewritten;
    assert!(
        before.rewritten + rewritten_now <= N as u64
            && before.rewritten + rewritten_now + report.counts.unchanged - before.unchanged
                >= N as u64,
        "{backend}: {report:?}"
    );
    for c in 0..6 {
        let found = Order::by_customer(&format!("c{c}")).all(&db).await.unwrap();
        assert_eq!(
            found.len(),
            N / 6 + usize::from(c < N % 6),
            "{backend}: c{c}"
        );
    }
    let again = singletable::Backfill::<Order>::new()
        .run(&db)
        .await
        .unwrap();
    assert_eq!(again.counts.rewritten, 0, "{backend}");
}

#[tokio::test]
async fn backfill_resumes_from_checkpoint() {
    let embedded = Db::<Embedded>::in_memory::<BackfillTable>("Backfill").unwrap();
    resumes(embedded.executor().clone(), "Backfill", "embedded").await;
    let local = fresh_db::<BackfillTable>("backfill-resume").await;
    resumes(
        local.executor().clone(),
        local.table_name(),
        "DynamoDB Local",
    )
    .await;
}

#[derive(Table)]
#[table(name = "UntypedLegacy", gsi1, entities(LegacyProfile, LegacyPurchase))]
pub struct UntypedLegacy;

/// Items another client writes without an entity type.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = UntypedLegacy, untyped, rename_all = "camelCase")]
#[pk("USER#<user_id>")]
#[sk("PROFILE")]
pub struct LegacyProfile {
    #[attr(from_key)]
    pub user_id: String,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = UntypedLegacy, untyped, rename_all = "camelCase")]
#[pk("USER#<user_id>")]
#[sk("PURCHASE#<purchase_id>")]
#[gsi1(pk = "STATUS#<status>", sk = "PURCHASE#<purchase_id>")]
#[access(purchases)]
#[access(by_status, index = gsi1)]
pub struct LegacyPurchase {
    #[attr(from_key)]
    pub user_id: String,
    #[attr(from_key)]
    pub purchase_id: String,
    pub status: String,
}

/// A raw item of strings, as another client writes it.
fn strings(pairs: &[(&str, &str)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), singletable::AttributeValue::S((*v).into())))
        .collect()
}

/// An `#[entity(untyped)]` entity whose items exist (written by another
/// client, without an entity type or index keys) is never read as empty:
/// `scan_all`, counts and `Backfill::new` recognise its items by its key
/// templates, as its queries do, and the backfill counts the items without
/// an entity type that are not its as `unclaimed`; on both backends.
#[tokio::test]
async fn untyped_entities_are_never_silently_empty() {
    for db in crate::support::both::<UntypedLegacy>("untyped-empty").await {
        for item in [
            strings(&[("PK", "USER#u1"), ("SK", "PROFILE"), ("name", "Ana")]),
            strings(&[("PK", "USER#u1"), ("SK", "PURCHASE#p1"), ("status", "NEW")]),
            strings(&[("PK", "USER#u1"), ("SK", "PURCHASE#p2"), ("status", "NEW")]),
            strings(&[("PK", "USER#u2"), ("SK", "PURCHASE#p3"), ("status", "DONE")]),
            // No template of either entity builds this key.
            strings(&[("PK", "AUDIT#1"), ("SK", "ENTRY"), ("what", "login")]),
        ] {
            crate::support::raw_put(&db, item).await.unwrap();
        }

        let profiles = db.scan_all::<LegacyProfile>().await.unwrap();
        assert_eq!(
            profiles,
            [LegacyProfile {
                user_id: "u1".into(),
                name: "Ana".into()
            }]
        );
        let mut purchases: Vec<String> = db
            .scan_all::<LegacyPurchase>()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.purchase_id)
            .collect();
        purchases.sort();
        assert_eq!(purchases, ["p1", "p2", "p3"]);
        assert_eq!(LegacyPurchase::purchases("u1").count(&db).await.unwrap(), 2);

        // The index keys the other client never wrote: none by status yet.
        let new = || LegacyPurchase::by_status("NEW");
        assert_eq!(new().count(&db).await.unwrap(), 0);
        let dry = singletable::Backfill::<LegacyPurchase>::new()
            .dry_run()
            .run(&db)
            .await
            .unwrap();
        assert_eq!((dry.counts.matched, dry.counts.rewritten), (3, 3));
        let report = singletable::Backfill::<LegacyPurchase>::new()
            .run(&db)
            .await
            .unwrap();
        let c = report.counts;
        assert_eq!(
            (c.matched, c.rewritten, c.unchanged, c.failed),
            (3, 3, 0, 0),
            "{c:?}"
        );
        // The profile and the audit entry: no entity type, not purchases.
        assert_eq!(c.unclaimed, 2, "{c:?}");
        assert!(c.scanned >= 5, "{c:?}");
        assert_eq!(new().count(&db).await.unwrap(), 2);
        let again = singletable::Backfill::<LegacyPurchase>::new()
            .run(&db)
            .await
            .unwrap()
            .counts;
        assert_eq!((again.matched, again.rewritten, again.unchanged), (3, 0, 3));
        // Still untyped: the backfill wrote index keys, no entity type.
        let stored = raw_item(&db, "USER#u1", "PURCHASE#p1").await;
        assert!(!stored.contains_key("entityType"), "{stored:?}");
        assert_eq!(
            stored.get("GSI1PK"),
            Some(&singletable::AttributeValue::S("STATUS#NEW".into()))
        );
    }
}
