//! Batches under a DynamoDB that throttles and holds work back, on both
//! backends. Neither DynamoDB Local nor the embedded backend ever throttles,
//! so a test executor in front of the real one plays DynamoDB under load:
//! it fails calls with throttling errors, processes only part of others,
//! and never processes one partition's items, as told.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use singletable::embedded::Embedded;
use singletable::{AttributeValue, BatchPolicy, Db, Entity, Error, Executor, Item, KeyOf, Table};
use singletable_runtime::exec::BoxFuture;
use singletable_runtime::request::{BatchGet, BatchGetOutput, BatchOp, BatchWrite, PutItem};

use crate::model::{AppTable, OrderItem};
use crate::support::{Layer, Layered, fresh_db};

/// What the test executor does to the batch calls it sees.
#[derive(Debug, Default, Clone)]
pub(crate) struct Plan {
    /// The next this many calls fail with a throttling error.
    pub(crate) throttle: usize,
    /// Then this many calls process only the first half of their request.
    pub(crate) halve: usize,
    /// Every call fails with an error that retrying does not cure.
    pub(crate) invalid: bool,
    /// Items of this partition are never processed.
    pub(crate) stuck_pk: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Throttle,
    Invalid,
    Halve,
    Serve,
}

/// One batch call the executor saw.
#[derive(Debug, Clone)]
struct Call {
    started: Instant,
    ended: Instant,
    size: usize,
    action: Action,
}

/// A layer that throttles, halves or refuses batch calls as its plan says.
pub(crate) struct Hostile {
    plan: Mutex<Plan>,
    calls: Mutex<Vec<Call>>,
}

const CODES: [&str; 3] = [
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
];

/// `inner` behind a [`Hostile`] layer with an empty plan.
pub(crate) fn hostile<E: Executor>(inner: E) -> Layered<E, Hostile> {
    Layered {
        inner,
        layer: Hostile {
            plan: Mutex::new(Plan::default()),
            calls: Mutex::new(Vec::new()),
        },
    }
}

impl Hostile {
    pub(crate) fn set(&self, plan: Plan) {
        *self.plan.lock().unwrap() = plan;
        self.calls.lock().unwrap().clear();
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    fn next(&self) -> (Action, Option<String>) {
        let mut plan = self.plan.lock().unwrap();
        let action = if plan.invalid {
            Action::Invalid
        } else if plan.throttle > 0 {
            plan.throttle -= 1;
            Action::Throttle
        } else if plan.halve > 0 {
            plan.halve -= 1;
            Action::Halve
        } else {
            Action::Serve
        };
        (action, plan.stuck_pk.clone())
    }

    fn log(&self, started: Instant, size: usize, action: Action) {
        self.calls.lock().unwrap().push(Call {
            started,
            ended: Instant::now(),
            size,
            action,
        });
    }

    /// Sends what the plan lets through, hands back the rest; the one
    /// injection of both batch calls.
    async fn serve<W: Clone, O>(
        &self,
        operation: &'static str,
        work: Vec<W>,
        pk: impl Fn(&W) -> Option<&str>,
        send: impl AsyncFnOnce(Vec<W>) -> singletable::Result<(Vec<O>, Vec<W>)>,
    ) -> singletable::Result<(Vec<O>, Vec<W>)> {
        let started = Instant::now();
        let size = work.len();
        let (action, stuck) = self.next();
        let result = match action {
            Action::Throttle => {
                let n = self.calls.lock().unwrap().len();
                let code = CODES[n % CODES.len()];
                Err(Error::Throttled {
                    operation,
                    code: code.to_owned(),
                    message: format!("{code}: injected by the test executor"),
                    source: "injected throttling".into(),
                })
            }
            Action::Invalid => Err(Error::Service {
                operation,
                code: Some("ValidationException".into()),
                message: "ValidationException: injected by the test executor".into(),
                source: "injected validation error".into(),
            }),
            Action::Halve | Action::Serve => {
                let (mut sent, mut held): (Vec<W>, Vec<W>) = work
                    .into_iter()
                    .partition(|w| stuck.is_none() || pk(w) != stuck.as_deref());
                if action == Action::Halve {
                    let keep = sent.len().div_ceil(2);
                    held.extend(sent.split_off(keep));
                }
                if sent.is_empty() {
                    Ok((Vec::new(), held))
                } else {
                    send(sent).await.map(|(done, mut left)| {
                        left.extend(held);
                        (done, left)
                    })
                }
            }
        };
        self.log(started, size, action);
        result
    }
}

fn pk_of(item: &Item) -> Option<&str> {
    item.get("PK")
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

fn op_pk(op: &BatchOp) -> Option<&str> {
    match op {
        BatchOp::Put(item) | BatchOp::Delete(item) => pk_of(item),
    }
}

impl Layer for Hostile {
    fn batch_write<'a, E: Executor>(
        &'a self,
        inner: &'a E,
        req: BatchWrite,
    ) -> BoxFuture<'a, singletable::Result<Vec<BatchOp>>> {
        Box::pin(async move {
            let table = req.table;
            let send = async |ops: Vec<BatchOp>| {
                let left = inner.batch_write(BatchWrite { table, ops }).await?;
                Ok((Vec::<()>::new(), left))
            };
            let (_, left) = self.serve("BatchWriteItem", req.ops, op_pk, send).await?;
            Ok(left)
        })
    }
    fn batch_get<'a, E: Executor>(
        &'a self,
        inner: &'a E,
        req: BatchGet,
    ) -> BoxFuture<'a, singletable::Result<BatchGetOutput>> {
        Box::pin(async move {
            let (table, consistent) = (req.table, req.consistent);
            let send = async |keys: Vec<Item>| {
                let out = inner
                    .batch_get(BatchGet {
                        table,
                        keys,
                        consistent,
                    })
                    .await?;
                Ok((out.items, out.unprocessed))
            };
            let (items, unprocessed) = self.serve("BatchGetItem", req.keys, pk_of, send).await?;
            Ok(BatchGetOutput { items, unprocessed })
        })
    }
}

fn line(order: &str, i: usize) -> OrderItem {
    OrderItem {
        item_id: format!("{i:03}"),
        order_id: order.to_owned(),
        product_id: format!("p-{i}"),
        quantity: 1 + i as u32 % 5,
        price: 0.5 + i as f64,
    }
}

async fn stored<E: Executor>(db: &Db<E>, order: &str) -> Vec<OrderItem> {
    OrderItem::items_of_order(order).all(db).await.unwrap()
}

fn keys(items: &[OrderItem]) -> Vec<KeyOf<OrderItem>> {
    items.iter().map(|i| i.key_of().unwrap()).collect()
}

/// Waits between consecutive calls: from one call's end to the next one's
/// start (the injected failures return at once, so this is the backoff).
fn waits(calls: &[Call]) -> Vec<Duration> {
    calls
        .windows(2)
        .map(|w| w[1].started.saturating_duration_since(w[0].ended))
        .collect()
}

fn sizes(calls: &[Call]) -> Vec<usize> {
    calls.iter().map(|c| c.size).collect()
}

async fn check<E: Executor + Clone>(exec: E, table: &str, backend: &str) {
    let plain = Db::with_executor(exec.clone(), table);
    let db = Db::with_executor(hostile(exec), table);
    let hostile = &db.executor().layer;
    let policy = BatchPolicy {
        concurrency: 1,
        max_attempts: 6,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(8),
    };

    // 1. Throttled twice, then half processed twice: the first request
    // gets through on its fifth attempt, the others on their first.
    let lines: Vec<OrderItem> = (0..60).map(|i| line("o-1", i)).collect();
    hostile.set(Plan {
        throttle: 2,
        halve: 2,
        ..Plan::default()
    });
    let mut batch = singletable::BatchWriter::new().policy(policy);
    for l in &lines {
        batch = batch.put(l);
    }
    batch
        .execute(&db)
        .await
        .unwrap_or_else(|e| panic!("{backend}: {e:?}"));
    let calls = hostile.calls();
    assert_eq!(
        sizes(&calls),
        [25, 25, 25, 12, 6, 25, 10],
        "{backend}: throttled requests are sent again whole, then what is left"
    );
    for (wait, retry) in waits(&calls[..5]).into_iter().zip(1..) {
        assert!(
            wait <= policy.max_backoff(retry) + Duration::from_millis(200),
            "{backend}: wait {wait:?} before retry {retry}"
        );
    }
    assert_eq!(
        stored(&plain, "o-1").await,
        lines,
        "{backend}: every write landed"
    );

    // 2. Attempts run out: every write not applied comes back, with the
    // attempts made, and the others are in the table.
    let stuck: Vec<OrderItem> = (0..30).map(|i| line("o-stuck", i)).collect();
    let free: Vec<OrderItem> = (0..20).map(|i| line("o-2", i)).collect();
    hostile.set(Plan {
        throttle: 1,
        stuck_pk: Some("ORDER#o-stuck".into()),
        ..Plan::default()
    });
    let mut batch = singletable::BatchWriter::new().policy(BatchPolicy {
        max_attempts: 4,
        ..policy
    });
    for l in stuck.iter().zip(&free).flat_map(|(a, b)| [a, b]) {
        batch = batch.put(l);
    }
    for l in &stuck[free.len()..] {
        batch = batch.put(l);
    }
    match batch.execute(&db).await {
        Err(Error::Unprocessed {
            writes,
            keys,
            attempts,
            cause,
        }) => {
            assert!(keys.is_empty());
            assert_eq!(attempts, 4, "{backend}");
            assert!(cause.is_none(), "{backend}: the last attempts did not fail");
            let mut left: Vec<OrderItem> = writes
                .into_iter()
                .map(|w| match w {
                    BatchOp::Put(item) => OrderItem::from_item(item).unwrap(),
                    other => panic!("{other:?}"),
                })
                .collect();
            left.sort_by(|a, b| a.item_id.cmp(&b.item_id));
            assert_eq!(left, stuck, "{backend}: exactly the writes not applied");
        }
        other => panic!("{backend}: expected Unprocessed, got {other:?}"),
    }
    // 50 writes in 2 requests, 4 attempts each.
    assert_eq!(hostile.calls().len(), 8, "{backend}");
    assert_eq!(stored(&plain, "o-2").await, free, "{backend}");
    assert!(stored(&plain, "o-stuck").await.is_empty(), "{backend}");

    // 3. Throttled to the end: the attempts follow the policy's backoff
    // (capped exponential, full jitter) and the cause says throttling.
    let slow = BatchPolicy {
        concurrency: 1,
        max_attempts: 21,
        base_delay: Duration::from_millis(2),
        max_delay: Duration::from_millis(16),
    };
    hostile.set(Plan {
        throttle: usize::MAX,
        ..Plan::default()
    });
    let five = keys(&lines[..5]);
    let got = singletable::BatchGetter::<OrderItem>::new(&five)
        .policy(slow)
        .execute(&db)
        .await
        .unwrap();
    assert!(got.items.iter().all(Option::is_none), "{backend}");
    assert_eq!(got.unprocessed, five, "{backend}");
    assert_eq!(got.attempts, 21, "{backend}");
    assert!(
        got.cause.as_ref().is_some_and(Error::is_throttling),
        "{backend}: {:?}",
        got.cause
    );
    let calls = hostile.calls();
    assert_eq!(calls.len(), 21, "{backend}");
    assert!(calls.iter().all(|c| c.action == Action::Throttle));
    let waits = waits(&calls);
    let caps: Vec<Duration> = (1..=20).map(|r| slow.max_backoff(r)).collect();
    assert_eq!(caps[..5], [2, 4, 8, 16, 16].map(Duration::from_millis));
    for (wait, cap) in waits.iter().zip(&caps) {
        assert!(
            *wait <= *cap + Duration::from_millis(200),
            "{backend}: {wait:?} over {cap:?}"
        );
    }
    // Uniform waits add up to half the caps on average (143 ms here, with
    // a deviation of 19 ms); without backoff they would be near zero.
    let total: Duration = waits.iter().sum();
    assert!(
        total >= Duration::from_millis(60),
        "{backend}: backoff too short, {total:?} in all"
    );
    assert!(
        waits.iter().zip(&caps).any(|(w, c)| *w * 2 < *c),
        "{backend}: waits are jittered: {waits:?}"
    );

    // A failure that retrying does not cure ends at the first attempt.
    hostile.set(Plan {
        invalid: true,
        ..Plan::default()
    });
    match singletable::BatchWriter::new()
        .policy(policy)
        .put(&line("o-9", 1))
        .execute(&db)
        .await
    {
        Err(Error::Unprocessed {
            writes,
            attempts,
            cause: Some(cause),
            ..
        }) => {
            assert_eq!(writes.len(), 1);
            assert_eq!(attempts, 1, "{backend}: attempts made, not the policy's");
            assert!(matches!(*cause, Error::Service { .. }), "{cause:?}");
        }
        other => panic!("{backend}: expected Unprocessed, got {other:?}"),
    }
    assert_eq!(hostile.calls().len(), 1);

    // 4. A batch get of 120 keys (2 requests) under throttling, with a
    // partition never processed, a missing item and an item that does not
    // decode: every item read comes back, beside the keys not read.
    let mut bad = OrderItem::to_item(&line("o-bad", 900)).unwrap();
    bad.insert("quantity".into(), AttributeValue::S("many".into()));
    plain
        .executor()
        .put_item(PutItem {
            table: table.to_owned(),
            item: bad,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await
        .unwrap();
    let mut wanted: Vec<KeyOf<OrderItem>> = keys(&lines);
    wanted.extend(keys(&stuck[..10]));
    wanted.push(OrderItem::key("o-1", "missing").unwrap());
    wanted.push(OrderItem::key("o-bad", "900").unwrap());
    wanted.extend(keys(&free));
    wanted.extend(keys(&stuck[10..25]));
    assert_eq!(wanted.len(), 107);
    // Write the stuck items now, so that they exist but cannot be read.
    let mut batch = singletable::BatchWriter::new();
    for l in &stuck {
        batch = batch.put(l);
    }
    batch.execute(&plain).await.unwrap();
    hostile.set(Plan {
        throttle: 2,
        halve: 1,
        stuck_pk: Some("ORDER#o-stuck".into()),
        ..Plan::default()
    });
    let got = singletable::BatchGetter::<OrderItem>::new(&wanted)
        .policy(BatchPolicy {
            concurrency: 2,
            max_attempts: 5,
            ..policy
        })
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(got.items.len(), wanted.len());
    let expected_unprocessed: Vec<KeyOf<OrderItem>> = keys(&stuck[..25]);
    assert_eq!(got.unprocessed, expected_unprocessed, "{backend}");
    assert_eq!(got.attempts, 5, "{backend}");
    assert!(got.cause.is_none(), "{backend}: {:?}", got.cause);
    assert_eq!(got.undecodable.len(), 1, "{backend}");
    let (bad_key, err) = &got.undecodable[0];
    assert_eq!(bad_key, &OrderItem::key("o-bad", "900").unwrap());
    assert!(
        matches!(err, Error::Decode { entity: "OrderItem", source } if source.path() == "quantity"),
        "{err:?}"
    );
    for (key, item) in wanted.iter().zip(&got.items) {
        let expected = lines
            .iter()
            .chain(&free)
            .find(|l| &l.primary_key().unwrap() == key);
        assert_eq!(item.as_ref(), expected, "{backend}: {key:?}");
    }
    // Both requests made every attempt (their stuck keys never cleared).
    let calls = hostile.calls();
    assert_eq!(calls.len(), 10, "{backend}: {:?}", sizes(&calls));
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.action == Action::Throttle)
            .count(),
        2
    );
    assert!(!got.is_complete());
    match got.into_result() {
        Err(Error::Unprocessed { keys, attempts, .. }) => {
            assert_eq!(keys.len(), 25);
            assert_eq!(attempts, 5);
        }
        other => panic!("{backend}: expected Unprocessed, got {other:?}"),
    }

    // Nothing written was lost: the table holds every write of every batch.
    assert_eq!(stored(&plain, "o-1").await.len(), 60, "{backend}");
    assert_eq!(stored(&plain, "o-2").await, free, "{backend}");
    assert_eq!(stored(&plain, "o-stuck").await, stuck, "{backend}");
    assert!(stored(&plain, "o-9").await.is_empty(), "{backend}");
}

#[tokio::test]
async fn batch_follows_policy_under_throttling_and_keeps_partial_results() {
    let local = fresh_db::<AppTable>("batches").await;
    check(
        local.executor().clone(),
        local.table_name(),
        "DynamoDB Local",
    )
    .await;

    let embedded = Embedded::new();
    embedded.create_table::<AppTable>(AppTable::NAME).unwrap();
    check(embedded, AppTable::NAME, "embedded").await;
}
