//! The embedded backend against DynamoDB Local, through the same public API
//! (`Db<Embedded>` and `Db<SdkExecutor>`, one client task): PutItem, GetItem
//! and a 100-item Query, interleaved in one criterion group per operation.
//! Then the memory the embedded backend holds for one million small items,
//! against their raw size (DynamoDB's item size: names plus values),
//! measured with a counting allocator.
//!
//! Run with `bash scripts/dynamodb-local.sh cargo bench --bench embedded`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Duration;

use criterion::Criterion;
use singletable::SdkDb;
use singletable::embedded::Embedded;
use singletable::{Db, Entity, Executor, SdkExecutor, Table};
use tokio::runtime::Runtime;

/// Counts live heap bytes while `COUNTING` is set (only in the memory
/// measurement, so that the timed runs pay nothing for it).
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

fn count(delta: isize) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE.fetch_add(delta, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[path = "shared/readings.rs"]
mod readings;
use readings::*;

/// PutItem of the same reading into tables with no, one and two global
/// indexes, over 1000 keys stored beforehand: each put replaces an item
/// and moves nothing in the indexes (the first thousand puts would
/// otherwise insert, and weigh on short runs such as callgrind's).
/// `none_len` and `one_len` put readings whose stored value changes length
/// at every put.
fn put_indexes(c: &mut Criterion, rt: &Runtime) {
    let none: Db<Embedded> = Db::in_memory::<BenchTable>("Bench0").expect("table");
    let one: Db<Embedded> = Db::in_memory::<OneIndex>("BenchOne").expect("table");
    let two: Db<Embedded> = Db::in_memory::<TwoIndexes>("BenchTwo").expect("table");
    rt.block_on(async {
        for t in 0..1000 {
            let r = reading("p", t);
            none.put(&r).await.expect("put");
            one.put(&Indexed1::from(r.clone())).await.expect("put");
            two.put(&Indexed2::from(r)).await.expect("put");
        }
    });
    let mut g = c.benchmark_group("put_indexes");
    let mut n = 0u32;
    g.bench_function("none", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            rt.block_on(none.put(&reading("p", n % 1000))).expect("put");
        })
    });
    g.bench_function("one", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let r = Indexed1::from(reading("p", n % 1000));
            rt.block_on(one.put(&r)).expect("put");
        })
    });
    // The same puts, but each stored value is one of another length than
    // the one it replaces (`value` gains or loses digits): the replaced
    // record cannot be overwritten in place, and its index entry moves to
    // the new one (an index lookup), as for most updates of an item.
    let lens = |n: u32| {
        let mut r = reading("p", n % 1000);
        if (n / 1000) % 2 == 1 {
            r.value += 0.001;
        }
        r
    };
    g.bench_function("none_len", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            rt.block_on(none.put(&lens(n))).expect("put");
        })
    });
    g.bench_function("one_len", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            rt.block_on(one.put(&Indexed1::from(lens(n)))).expect("put");
        })
    });
    g.bench_function("two", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let r = Indexed2::from(reading("p", n % 1000));
            rt.block_on(two.put(&r)).expect("put");
        })
    });
    g.finish();
}

async fn seed<E: Executor>(db: &Db<E>) {
    for t in 0..100 {
        db.put(&reading("q", t)).await.expect("put");
    }
}

fn ops<E: Executor>(c: &mut Criterion, rt: &Runtime, name: &str, db: &Db<E>) {
    let mut n = 0u32;
    c.benchmark_group("put").bench_function(name, |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            rt.block_on(db.put(&reading("p", n % 1000))).expect("put");
        })
    });
    c.benchmark_group("get").bench_function(name, |b| {
        b.iter(|| {
            let key = Reading::key("q", 42).expect("key");
            black_box(rt.block_on(db.get::<Reading>(key)).expect("get"));
        })
    });
    c.benchmark_group("query_100").bench_function(name, |b| {
        b.iter(|| {
            let items = rt.block_on(Reading::readings("q").all(db)).expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
}

/// What a request's span costs with no subscriber listening (the span
/// and its instrumentation of the request future, around a request that
/// does nothing), and a get through the shared handle type.
fn overheads(c: &mut Criterion, rt: &Runtime, embedded: &Db<Embedded>) {
    let mut g = c.benchmark_group("span");
    g.bench_function("request_without_span", |b| {
        b.iter(|| rt.block_on(async { black_box(Ok::<u32, singletable::Error>(1)) }))
    });
    g.bench_function("request_in_span_no_subscriber", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = singletable::__private::trace::Request {
                    entity: Some("Reading"),
                    ..Default::default()
                };
                let span = singletable::__private::trace::span("GetItem", "Bench", &r);
                black_box(
                    singletable::__private::trace::traced(span, r.sender("GetItem"), async {
                        Ok::<Option<singletable::Item>, singletable::Error>(None)
                    })
                    .await,
                )
            })
        })
    });
    g.finish();
    let shared: Db = embedded.clone().into_shared();
    let mut g = c.benchmark_group("get_shared");
    g.bench_function("Db<Embedded>", |b| {
        b.iter(|| {
            let key = Reading::key("q", 42).expect("key");
            black_box(rt.block_on(embedded.get::<Reading>(key)).expect("get"));
        })
    });
    g.bench_function("Db<SharedExecutor>", |b| {
        b.iter(|| {
            let key = Reading::key("q", 42).expect("key");
            black_box(rt.block_on(shared.get::<Reading>(key)).expect("get"));
        })
    });
    g.finish();
    // The same 100-item query through both handles, on the same store.
    let mut g = c.benchmark_group("query_100_shared");
    g.bench_function("Db<Embedded>", |b| {
        b.iter(|| {
            let items = rt
                .block_on(Reading::readings("q").all(embedded))
                .expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.bench_function("Db<SharedExecutor>", |b| {
        b.iter(|| {
            let items = rt
                .block_on(Reading::readings("q").all(&shared))
                .expect("query");
            assert_eq!(items.len(), 100);
            black_box(items);
        })
    });
    g.finish();
}

/// Live heap bytes the embedded backend holds for `n` items made by
/// `make` in a table laid out as `Tb`, against their size as DynamoDB
/// counts it (names plus values, index key attributes included).
fn memory_of<Tb: Table, T: Entity>(label: &str, n: u32, make: impl Fn(u32) -> T) {
    let rt = Runtime::new().expect("runtime");
    COUNTING.store(true, Ordering::SeqCst);
    let before = LIVE.load(Ordering::SeqCst);
    let db: Db<Embedded> = Db::in_memory::<Tb>("Mem").expect("table");
    let mut raw = 0usize;
    rt.block_on(async {
        for t in 0..n {
            let r = make(t);
            raw += singletable::size::item_size(&r.to_item().expect("encode"));
            db.put(&r).await.expect("put");
        }
    });
    let held = LIVE.load(Ordering::SeqCst) - before;
    COUNTING.store(false, Ordering::SeqCst);
    println!(
        "memory, {label}: {n} items, raw {:.1} MB ({:.0} B/item), embedded holds {:.1} MB ({:.0} B/item), ratio {:.2}",
        raw as f64 / 1e6,
        raw as f64 / f64::from(n),
        held as f64 / 1e6,
        held as f64 / f64::from(n),
        held as f64 / raw as f64
    );
    drop(db);
}

fn memory() {
    let sensor = |t: u32| reading(&format!("s{}", t % 1000), t);
    memory_of::<BenchTable, _>("no index", 1_000_000, sensor);
    memory_of::<OneIndex, _>("one global index", 1_000_000, |t| Indexed1::from(sensor(t)));
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let embedded: Db<Embedded> = Db::in_memory::<BenchTable>("Bench").expect("table");
    rt.block_on(seed(&embedded));
    let endpoint = std::env::var("DYNAMODB_ENDPOINT").ok();
    let local = endpoint.as_deref().map(|e| {
        let db = Db::local(e, format!("bench-embedded-{}", std::process::id()));
        rt.block_on(async {
            db.create_table_if_missing::<BenchTable>()
                .await
                .expect("create");
            seed(&db).await;
        });
        db
    });
    let mut c = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    ops(&mut c, &rt, "embedded", &embedded);
    overheads(&mut c, &rt, &embedded);
    put_indexes(&mut c, &rt);
    match &local {
        Some(db) => ops::<SdkExecutor>(&mut c, &rt, "dynamodb_local", db),
        None => eprintln!("DYNAMODB_ENDPOINT not set: DynamoDB Local side skipped"),
    }
    c.final_summary();
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--profile-time") {
        memory();
    }
}
