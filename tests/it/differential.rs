//! The embedded backend against DynamoDB Local: random sequences of raw
//! requests (puts, conditional writes, updates with every action, deletes,
//! queries with every key condition in both directions with limits,
//! filters and pagination, scans, transactions that succeed and fail,
//! batches; a multi-attribute index `GSI3` written by all of them and
//! queried with every key-condition shape, allowed or not) run through the
//! `Executor` trait on both, and every answer must
//! be the same: items, their order, errors (kind, cancellation codes and
//! items, not message text), page boundaries and LastEvaluatedKeys.
//!
//! Each sequence writes under its own partition prefix in one shared table,
//! so sequences stay independent while DynamoDB Local keeps one table. A
//! failing sequence is shrunk by proptest and printed with the first
//! operation whose answers differ.

mod departures;
mod hash_only;
mod ops;
mod rules;

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use singletable::{AttributeValue, Embedded, Error, Executor, Item, SdkExecutor, Table};
use singletable_runtime::reader::{ItemReader, Items, ReaderPage, collect_item};
use singletable_runtime::request::Page;

use self::ops::{Op, Request};

#[derive(Table)]
#[table(
    name = "Differential",
    gsi1,
    gsi2(no_sk, keys_only),
    gsi3(pk(mt = S, mr = N), sk(ms = S, mn = N)),
    lsi1(include(a, n))
)]
pub struct DiffTable;

/// An answer, in a form both backends can be compared on.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    Item(Option<Item>),
    /// Pages: items, LastEvaluatedKey, ScannedCount.
    Pages(Vec<(Vec<Item>, Option<Item>, Option<usize>)>),
    Items(Vec<Item>),
    Gets(Vec<Option<Item>>),
    Done,
    ConditionFailed(Option<Item>),
    Canceled(Vec<(String, Option<Item>)>),
    Service(String),
    Other(String),
}

const CODES: [&str; 7] = [
    "ConditionalCheckFailedException",
    "TransactionCanceledException",
    "IdempotentParameterMismatchException",
    "ResourceNotFoundException",
    "ResourceInUseException",
    "ValidationException",
    "InternalServerError",
];

fn non_empty(item: Option<Item>) -> Option<Item> {
    item.filter(|i| !i.is_empty())
}

/// A number in plain notation without superfluous zeros. DynamoDB Local
/// returns numbers that UpdateItem wrote as they were sent (`01.50`,
/// `1E+1`, `5.50` after an addition) where DynamoDB, and the embedded
/// backend, return them normalised; the two are compared as numbers.
fn canonical(n: &str) -> String {
    let (neg, n) = match n.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, n.strip_prefix('+').unwrap_or(n)),
    };
    let (mantissa, exp) = match n.find(['e', 'E']) {
        Some(i) => (&n[..i], n[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (n, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let lead = digits.iter().take_while(|d| **d == b'0').count();
    let Some(last) = digits.iter().rposition(|d| *d != b'0') else {
        return "0".to_owned();
    };
    let digits = &digits[lead..=last];
    let point = int.len() as i64 - lead as i64 + exp;
    let len = digits.len() as i64;
    let text = String::from_utf8_lossy(digits).into_owned();
    let body = if point <= 0 {
        format!("0.{}{text}", "0".repeat((-point) as usize))
    } else if point >= len {
        format!("{text}{}", "0".repeat((point - len) as usize))
    } else {
        format!("{}.{}", &text[..point as usize], &text[point as usize..])
    };
    if neg { format!("-{body}") } else { body }
}

fn normal_value(v: AttributeValue) -> AttributeValue {
    match v {
        AttributeValue::N(n) => AttributeValue::N(canonical(&n)),
        AttributeValue::Ns(s) => AttributeValue::Ns(s.iter().map(|n| canonical(n)).collect()),
        AttributeValue::L(l) => AttributeValue::L(l.into_iter().map(normal_value).collect()),
        AttributeValue::M(m) => AttributeValue::M(normal(m)),
        other => other,
    }
}

fn normal(item: Item) -> Item {
    item.into_iter()
        .map(|(k, v)| (k, normal_value(v)))
        .collect()
}

fn normal_opt(item: Option<Item>) -> Option<Item> {
    non_empty(item).map(normal)
}

impl Answer {
    /// The answer with numbers in canonical form.
    fn normal(self) -> Self {
        let items = |v: Vec<Item>| v.into_iter().map(normal).collect::<Vec<_>>();
        match self {
            Answer::Item(i) => Answer::Item(normal_opt(i)),
            Answer::Pages(p) => Answer::Pages(
                p.into_iter()
                    .map(|(i, k, n)| (items(i), k.map(normal), n))
                    .collect(),
            ),
            Answer::Items(i) => Answer::Items(items(i)),
            Answer::Gets(g) => Answer::Gets(g.into_iter().map(normal_opt).collect()),
            Answer::ConditionFailed(i) => Answer::ConditionFailed(normal_opt(i)),
            Answer::Canceled(r) => {
                Answer::Canceled(r.into_iter().map(|(c, i)| (c, normal_opt(i))).collect())
            }
            other => other,
        }
    }
}

fn error(e: Error) -> Answer {
    match e {
        Error::ConditionFailed { item } => Answer::ConditionFailed(non_empty(item.map(|i| *i))),
        Error::TransactionCanceled { reasons } => Answer::Canceled(
            reasons
                .into_iter()
                .map(|r| (r.code, non_empty(r.item)))
                .collect(),
        ),
        Error::Service { message, .. } => Answer::Service(
            CODES
                .iter()
                .find(|c| message.contains(*c))
                .map_or_else(|| format!("unknown: {message}"), |c| (*c).to_owned()),
        ),
        other => Answer::Other(other.to_string()),
    }
}

/// Every item of a reader, as maps.
fn read_all(mut items: Items) -> Vec<Item> {
    let mut out = Vec::new();
    while let Some(item) = items.next_item() {
        out.push(collect_item(item).expect("an item the backend returned reads back"));
    }
    out
}

fn answer<T>(r: Result<T, Error>, f: impl FnOnce(T) -> Answer) -> Answer {
    r.map_or_else(error, f)
}

async fn run<E: Executor>(exec: &E, req: &Request, table: &str, prefix: &str) -> Answer {
    match req {
        Request::Put(r) => answer(exec.put_item(r.clone()).await, Answer::Item),
        Request::Update(r) => answer(exec.update_item(r.clone()).await, Answer::Item),
        Request::Delete(r) => answer(exec.delete_item(r.clone()).await, Answer::Item),
        // Gets and queries go through the readers `Db` uses (the embedded
        // backend's hands out items encoded, read in place).
        Request::Get(r) => answer(exec.get_item_reader(r.clone()).await, |items| {
            Answer::Item(read_all(items).into_iter().next())
        }),
        Request::Query(q) => {
            let mut pages = Vec::new();
            let mut start = None;
            for _ in 0..q.pages {
                match exec
                    .query_reader(q.request(table, prefix, start.take()))
                    .await
                {
                    Ok(ReaderPage {
                        items,
                        last_key,
                        scanned,
                    }) => {
                        start = last_key.clone();
                        // ScannedCount too: what the page's capacity paid for.
                        pages.push((read_all(items), last_key, scanned));
                        if start.is_none() {
                            break;
                        }
                    }
                    Err(e) => return error(e),
                }
            }
            Answer::Pages(pages)
        }
        Request::Scan(r) => answer(exec.scan(r.clone()).await, |p| {
            Answer::Pages(vec![(p.items, p.last_key, p.scanned)])
        }),
        Request::Transact(r) => answer(exec.transact_write(r.clone()).await, |()| Answer::Done),
        Request::BatchWrite(r) => answer(exec.batch_write(r.clone()).await, |u| {
            Answer::Other(format!("{} unprocessed", u.len()))
        }),
        Request::BatchGet(r) => answer(exec.batch_get(r.clone()).await, |out| {
            let mut items = out.items;
            items.sort_by_key(|i| format!("{:?}{:?}", i.get("PK"), i.get("SK")));
            Answer::Items(items)
        }),
        Request::TransactGet(r) => answer(exec.transact_get(r.clone()).await, Answer::Gets),
    }
}

struct Backends {
    embedded: Embedded,
    local: SdkExecutor,
    table: String,
}

/// A runtime, and a fresh table laid out as `T` in DynamoDB Local and in
/// an embedded backend, under the same name.
fn backends<T: Table>(prefix: &str) -> (tokio::runtime::Runtime, Backends) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let backends = rt.block_on(async {
        let db = crate::support::fresh_db::<T>(prefix).await;
        let table = db.table_name().to_owned();
        let embedded = Embedded::new();
        embedded
            .create_table::<T>(&table)
            .expect("create embedded table");
        Backends {
            embedded,
            local: db.executor().clone(),
            table,
        }
    });
    (rt, backends)
}

static CASE: AtomicUsize = AtomicUsize::new(0);
/// Queries without a limit that took more than one page.
static SIZE_PAGES: AtomicUsize = AtomicUsize::new(0);
/// Queries of the multi-attribute index `GSI3` that returned items, and
/// those that both backends refused, by the shape of their sort conditions.
static MULTI_ITEMS: [AtomicUsize; 5] = [const { AtomicUsize::new(0) }; 5];
static MULTI_REFUSED: [AtomicUsize; 5] = [const { AtomicUsize::new(0) }; 5];

async fn run_case(b: &Backends, ops: &[Op]) -> Result<(), TestCaseError> {
    // Unique across runs too: DynamoDB Local remembers transaction tokens
    // for ten minutes, whatever the table.
    let prefix = format!(
        "{}c{}-",
        std::process::id(),
        CASE.fetch_add(1, Ordering::SeqCst)
    );
    for (i, op) in ops.iter().enumerate() {
        let req = ops::request(op, &b.table, &prefix);
        let mut local = run(&b.local, &req, &b.table, &prefix).await.normal();
        let mut embedded = run(&b.embedded, &req, &b.table, &prefix).await.normal();
        match op {
            Op::Query(q) => {
                embedded = departures::limit_bound(b, q, &prefix, &local, embedded).await;
            }
            Op::Transact(ops, _) => local = departures::one_item_twice(ops, local, &embedded),
            Op::TransactGet(_) => local = departures::malformed_get(local, &embedded),
            _ => {}
        }
        if local != embedded {
            return Err(TestCaseError::fail(format!(
                "operation {i} (prefix {prefix}) answered differently\n  DynamoDB Local: {local:?}\n  embedded:       {embedded:?}\n  operation: {op:?}"
            )));
        }
        if let Op::Query(q) = op
            && q.target == 4
        {
            let shape = q.multi.1 as usize % 5;
            match &local {
                Answer::Pages(p) if p.iter().any(|(items, _, _)| !items.is_empty()) => {
                    MULTI_ITEMS[shape].fetch_add(1, Ordering::SeqCst);
                }
                Answer::Service(_) => {
                    MULTI_REFUSED[shape].fetch_add(1, Ordering::SeqCst);
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("DIFFERENTIAL_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(2000)
}

#[test]
fn embedded_backend_matches_dynamodb_local() {
    let (rt, backends) = backends::<DiffTable>("differential");
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let strategy = prop::collection::vec(ops::op(), 5..16);
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |ops| rt.block_on(run_case(&backends, &ops)));
    if let Err(e) = result {
        panic!("{e}");
    }
    // The multi-attribute index was read with each allowed shape, and each
    // shape DynamoDB refuses was refused by both.
    let load = |a: &[AtomicUsize; 5]| {
        a.iter()
            .map(|c| c.load(Ordering::SeqCst))
            .collect::<Vec<_>>()
    };
    let (items, refused) = (load(&MULTI_ITEMS), load(&MULTI_REFUSED));
    assert!(
        items[..3].iter().all(|n| *n > 0),
        "GSI3 queries with items by shape: {items:?}"
    );
    assert!(
        refused[3..].iter().all(|n| *n > 0),
        "GSI3 queries refused by shape: {refused:?}"
    );
}

/// Document paths below attributes (map entries, list elements, deeper):
/// updates of every action on them, conditions and filters reading them,
/// `ReturnValues` of writes below an attribute.
#[test]
fn embedded_nested_paths_match_dynamodb_local() {
    let (rt, backends) = backends::<DiffTable>("nested");
    let config = Config {
        cases: cases() / 2,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&ops::paths_case(), |ops| {
        rt.block_on(run_case(&backends, &ops))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Reads from the first page to the last (at most 200) through
/// LastEvaluatedKey: the keys of each page and its LastEvaluatedKey.
async fn follow<F, Fut>(mut read: F) -> Result<Vec<(Vec<String>, Option<Item>)>, TestCaseError>
where
    F: FnMut(Option<Item>) -> Fut,
    Fut: std::future::Future<Output = Result<Page, Error>>,
{
    let mut pages = Vec::new();
    let mut start = None;
    loop {
        let page = read(start.take())
            .await
            .map_err(|e| TestCaseError::fail(format!("read failed: {e}")))?;
        let keys = page
            .items
            .iter()
            .map(|i| format!("{:?} {:?}", i.get("PK"), i.get("SK")))
            .collect();
        pages.push((keys, page.last_key.clone()));
        match page.last_key {
            Some(k) if pages.len() < 200 => start = Some(k),
            _ => return Ok(pages),
        }
    }
}

/// Items of up to 400 KB in one partition (and one index partition), read
/// back page by page in every direction, with and without a filter and a
/// limit: both backends must end their 1 MB pages on the same item.
///
/// One difference is normalised, departure 15 of the endpoint's list: a
/// filtered Query's 1 MB counts every item read on DynamoDB (and the
/// engine), only the items the filter keeps on DynamoDB Local. So a
/// filtered Query's pages are compared with DynamoDB Local's pages of the
/// same Query unfiltered, each page keeping only the items the filter
/// keeps (the same LastEvaluatedKeys); and all its items, in order, with
/// DynamoDB Local's filtered Query's.
async fn pages_case(b: &Backends, items: &[(usize, bool, u8)]) -> Result<(), TestCaseError> {
    use singletable_runtime::expr::{Condition, KeyCondition};
    use singletable_runtime::request::{PutItem, QueryRequest, ScanRequest};

    let prefix = format!(
        "{}p{}-",
        std::process::id(),
        CASE.fetch_add(1, Ordering::SeqCst)
    );
    let s = |v: String| AttributeValue::S(v);
    for (i, (size, keep, group)) in items.iter().enumerate() {
        let item = Item::from([
            ("PK".into(), s(format!("{prefix}P"))),
            ("SK".into(), s(format!("{i:03}"))),
            ("a".into(), s("x".repeat(size * 1000))),
            ("keep".into(), AttributeValue::Bool(*keep)),
            ("GSI1PK".into(), s(format!("{prefix}g"))),
            ("GSI1SK".into(), s(format!("k{group}"))),
        ]);
        let req = Request::Put(PutItem {
            table: b.table.clone(),
            item,
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        });
        let local = run(&b.local, &req, &b.table, &prefix).await;
        let embedded = run(&b.embedded, &req, &b.table, &prefix).await;
        prop_assert_eq!(local, embedded, "put {}", i);
    }
    let keep = Condition::eq("keep", AttributeValue::Bool(true));
    // The keys, as `follow` writes them, of the items the filter keeps.
    let kept: std::collections::HashSet<String> = items
        .iter()
        .enumerate()
        .filter(|(_, (_, keep, _))| *keep)
        .map(|(i, _)| {
            let (pk, sk) = (s(format!("{prefix}P")), s(format!("{i:03}")));
            format!("{:?} {:?}", Some(&pk), Some(&sk))
        })
        .collect();
    for index in [None, Some("GSI1")] {
        for forward in [true, false] {
            for limit in [None, Some(5)] {
                // DynamoDB Local's pages of the unfiltered Query.
                let mut unfiltered = Vec::new();
                for filter in [None, Some(keep.clone())] {
                    let (pk_attr, pk) = match index {
                        None => ("PK", format!("{prefix}P")),
                        Some(_) => ("GSI1PK", format!("{prefix}g")),
                    };
                    let query = |start: Option<Item>| QueryRequest {
                        table: b.table.clone(),
                        index: index.map(str::to_owned),
                        key: KeyCondition {
                            pk_attr: pk_attr.to_owned(),
                            pk: pk.clone(),
                            sk: None,
                            attrs: None,
                        },
                        filter: filter.clone(),
                        limit,
                        forward,
                        consistent: false,
                        projection: None,
                        start,
                    };
                    let mut pages = [
                        follow(|start| b.local.query(query(start))).await?,
                        follow(|start| b.embedded.query(query(start))).await?,
                    ];
                    if limit.is_none() && pages[0].len() > 1 {
                        SIZE_PAGES.fetch_add(1, Ordering::SeqCst);
                    }
                    if filter.is_none() {
                        unfiltered = pages[0].clone();
                    } else {
                        let all = |p: &[(Vec<String>, Option<Item>)]| {
                            p.iter().flat_map(|(k, _)| k.clone()).collect::<Vec<_>>()
                        };
                        prop_assert_eq!(
                            all(&pages[0]),
                            all(&pages[1]),
                            "filtered items, index {:?}, forward {}, limit {:?}",
                            index,
                            forward,
                            limit
                        );
                        pages[0] = unfiltered
                            .iter()
                            .map(|(keys, last)| {
                                let keys = keys.iter().filter(|k| kept.contains(*k)).cloned();
                                (keys.collect(), last.clone())
                            })
                            .collect();
                    }
                    prop_assert_eq!(
                        &pages[0],
                        &pages[1],
                        "index {:?}, forward {}, filter {}, limit {:?}",
                        index,
                        forward,
                        filter.is_some(),
                        limit
                    );
                }
            }
        }
    }
    // A scan of the whole table, filtered to this case.
    let scan = |start: Option<Item>| ScanRequest {
        table: b.table.clone(),
        index: None,
        filter: Some(Condition::BeginsWith("PK".into(), s(prefix.clone()))),
        limit: None,
        consistent: false,
        start,
        segment: None,
        projection: None,
    };
    let pages = [
        follow(|start| b.local.scan(scan(start))).await?,
        follow(|start| b.embedded.scan(scan(start))).await?,
    ];
    prop_assert_eq!(&pages[0], &pages[1], "scan");
    Ok(())
}

#[test]
fn embedded_pages_match_dynamodb_local() {
    let (rt, backends) = backends::<DiffTable>("pages");
    let config = Config {
        cases: 10,
        failure_persistence: None,
        max_shrink_iters: 200,
        ..Config::default()
    };
    // Sizes in thousands of bytes: up to 412, past the 400 KB item limit.
    let strategy = prop::collection::vec((0usize..=412, any::<bool>(), 0u8..3), 6..25);
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, |items| {
        rt.block_on(pages_case(&backends, &items))
    }) {
        panic!("{e}");
    }
    assert!(
        SIZE_PAGES.load(Ordering::SeqCst) > 0,
        "no query ended a page at 1 MB"
    );
}
