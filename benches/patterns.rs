//! The access patterns the shop example runs, plus a PutItem, through
//! singletable and as the same request written by hand with the
//! aws-sdk-dynamodb client, against DynamoDB Local.
//!
//! Run with `bash scripts/dynamodb-local.sh cargo bench --bench patterns`
//! (or set `DYNAMODB_ENDPOINT` to a running DynamoDB Local). The bench
//! creates a fresh table, writes the shop's sample data, and deletes the
//! table at the end.
//!
//! Each pattern is one criterion group holding both functions, interleaved
//! request by request (see [`pattern!`]) against the same server through
//! the same SDK client (one connection pool), so their ratio is the overhead
//! of singletable: building the request from typed values, rendering the
//! expression, and decoding the items. The hand-written side sends the same
//! request as an application would write it (plain attribute names where
//! singletable uses `#n` placeholders; the same
//! `ReturnConsumedCapacity=TOTAL` singletable's executor asks for) and
//! decodes into the same structs, checking types as carefully as a service
//! would. After criterion's own report, the bench prints the ratio of the
//! two sides over the same span of time (see [`report_pairs`]).

#[allow(dead_code)]
#[path = "../examples/shop/app.rs"]
mod app;
#[allow(dead_code)]
#[path = "../examples/shop/model.rs"]
mod model;

use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use criterion::Criterion;
use model::*;
use singletable::SdkDb;
use singletable::{AttributeValue, Db, Item, SdkExecutor};
use tokio::runtime::Runtime;

const USER: &str = "u-ana";
const EMAIL: &str = "bruno@example.com";
const ORDER: &str = "o-1004";
const PRODUCT: &str = "p-kbd";
const CATEGORY: &str = "kitchen";
const FROM: &str = "2024-05-08";
const TO: &str = "2024-05-21";

type Sdb = Db<SdkExecutor>;

// ----------------------------------------------------------- singletable --

async fn ours_user_by_id(db: &Sdb) -> Option<User> {
    db.get::<User>(User::key(USER).expect("key"))
        .await
        .expect("GetItem")
}

async fn ours_user_by_email(db: &Sdb) -> Option<User> {
    User::user_by_email(EMAIL).first(db).await.expect("Query")
}

async fn ours_orders_of_user(db: &Sdb) -> Vec<OrderSummary> {
    OrderSummary::orders_of_user(USER)
        .newest_first()
        .all(db)
        .await
        .expect("Query")
}

async fn ours_order_with_items(db: &Sdb) -> Vec<OrderWithItems> {
    OrderWithItems::query(Order::partition(ORDER).expect("key"))
        .all(db)
        .await
        .expect("Query")
}

async fn ours_orders_by_status(db: &Sdb) -> Vec<Order> {
    Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await
        .expect("Query")
}

async fn ours_orders_by_date(db: &Sdb) -> Vec<Order> {
    Order::orders_by_date()
        .sk_between(FROM, TO)
        .all(db)
        .await
        .expect("Query")
}

async fn ours_product_by_id(db: &Sdb) -> Option<Product> {
    db.get::<Product>(Product::key(PRODUCT).expect("key"))
        .await
        .expect("GetItem")
}

async fn ours_products_by_category(db: &Sdb) -> Vec<Product> {
    Product::products_by_category(CATEGORY)
        .all(db)
        .await
        .expect("Query")
}

async fn ours_published_products(db: &Sdb) -> Vec<Product> {
    Product::published_products().all(db).await.expect("Query")
}

async fn ours_put_user(db: &Sdb, user: &User) {
    db.put(user).await.expect("PutItem");
}

// ----------------------------------------------------------- hand-written --

/// The same requests with the SDK client and hand-written item code.
struct Hand {
    client: Client,
    table: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn take_s(item: &mut Item, k: &str) -> String {
    match item.remove(k) {
        Some(AttributeValue::S(v)) => v,
        other => panic!("{k}: expected S, found {other:?}"),
    }
}

fn take_n<T: std::str::FromStr>(item: &mut Item, k: &str) -> T {
    match item.remove(k) {
        Some(AttributeValue::N(v)) => v.parse().unwrap_or_else(|_| panic!("{k}: bad number")),
        other => panic!("{k}: expected N, found {other:?}"),
    }
}

fn take_status(item: &mut Item) -> OrderStatus {
    match take_s(item, "status").as_str() {
        "PENDING" => OrderStatus::Pending,
        "SHIPPED" => OrderStatus::Shipped,
        "DELIVERED" => OrderStatus::Delivered,
        "CANCELLED" => OrderStatus::Cancelled,
        other => panic!("status: unknown {other}"),
    }
}

fn check_type(item: &mut Item, expected: &str) {
    let found = take_s(item, "entityType");
    assert_eq!(found, expected, "entity type");
}

fn user_from(mut i: Item) -> User {
    check_type(&mut i, "User");
    User {
        user_id: take_s(&mut i, "userId"),
        name: take_s(&mut i, "name"),
        email: take_s(&mut i, "email"),
        created_at: take_s(&mut i, "createdAt"),
    }
}

fn summary_from(mut i: Item) -> OrderSummary {
    check_type(&mut i, "OrderSummary");
    OrderSummary {
        order_id: take_s(&mut i, "orderId"),
        user_id: take_s(&mut i, "userId"),
        status: take_status(&mut i),
        total: take_n(&mut i, "total"),
        created_at: take_s(&mut i, "createdAt"),
    }
}

fn order_from(mut i: Item) -> Order {
    check_type(&mut i, "Order");
    Order {
        order_id: take_s(&mut i, "orderId"),
        user_id: take_s(&mut i, "userId"),
        status: take_status(&mut i),
        total: take_n(&mut i, "total"),
        created_at: take_s(&mut i, "createdAt"),
    }
}

fn order_item_from(mut i: Item) -> OrderItem {
    check_type(&mut i, "OrderItem");
    OrderItem {
        item_id: take_s(&mut i, "itemId"),
        order_id: take_s(&mut i, "orderId"),
        product_id: take_s(&mut i, "productId"),
        quantity: take_n(&mut i, "quantity"),
        price: take_n(&mut i, "price"),
    }
}

fn product_from(mut i: Item) -> Product {
    check_type(&mut i, "Product");
    Product {
        product_id: take_s(&mut i, "productId"),
        category: take_s(&mut i, "category"),
        name: take_s(&mut i, "name"),
        price: take_n(&mut i, "price"),
        published: match i.remove("published") {
            Some(AttributeValue::Bool(b)) => b,
            other => panic!("published: expected BOOL, found {other:?}"),
        },
    }
}

impl Hand {
    async fn get(&self, pk: String, sk: &str) -> Option<Item> {
        self.client
            .get_item()
            .table_name(&self.table)
            .key("PK", AttributeValue::S(pk))
            .key("SK", s(sk))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .expect("GetItem")
            .item
    }

    fn query(&self) -> QueryFluentBuilder {
        self.client
            .query()
            .table_name(&self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
    }

    /// Every page of a query.
    async fn all(&self, q: QueryFluentBuilder) -> Vec<Item> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = q
                .clone()
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .expect("Query");
            out.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return out,
            }
        }
    }

    async fn user_by_id(&self) -> Option<User> {
        self.get(format!("USER#{USER}"), "PROFILE")
            .await
            .map(user_from)
    }

    async fn user_by_email(&self) -> Option<User> {
        let out = self
            .query()
            .index_name("GSI1")
            .key_condition_expression("GSI1PK = :pk AND begins_with(GSI1SK, :sk)")
            .expression_attribute_values(":pk", AttributeValue::S(format!("USEREMAIL#{EMAIL}")))
            .expression_attribute_values(":sk", s("USER#"))
            .limit(1)
            .send()
            .await
            .expect("Query");
        out.items
            .unwrap_or_default()
            .into_iter()
            .next()
            .map(user_from)
    }

    async fn orders_of_user(&self) -> Vec<OrderSummary> {
        let q = self
            .query()
            .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
            .expression_attribute_values(":pk", AttributeValue::S(format!("USER#{USER}")))
            .expression_attribute_values(":sk", s("ORDER#"))
            .scan_index_forward(false);
        self.all(q).await.into_iter().map(summary_from).collect()
    }

    async fn order_with_items(&self) -> Vec<OrderWithItems> {
        let q = self
            .query()
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(format!("ORDER#{ORDER}")));
        self.all(q)
            .await
            .into_iter()
            .map(|i| match i.get("entityType") {
                Some(AttributeValue::S(t)) if t == "Order" => OrderWithItems::Order(order_from(i)),
                Some(AttributeValue::S(t)) if t == "OrderItem" => {
                    OrderWithItems::Item(order_item_from(i))
                }
                other => panic!("unexpected entity type {other:?}"),
            })
            .collect()
    }

    async fn orders_by_status(&self) -> Vec<Order> {
        let q = self
            .query()
            .index_name("GSI1")
            .key_condition_expression("GSI1PK = :pk AND begins_with(GSI1SK, :sk)")
            .expression_attribute_values(":pk", s("ORDERSTATUS#PENDING"))
            .expression_attribute_values(":sk", s("ORDER#"));
        self.all(q).await.into_iter().map(order_from).collect()
    }

    async fn orders_by_date(&self) -> Vec<Order> {
        let q = self
            .query()
            .index_name("GSI2")
            .key_condition_expression("GSI2PK = :pk AND GSI2SK BETWEEN :from AND :to")
            .expression_attribute_values(":pk", s("ORDERBYDATE"))
            .expression_attribute_values(":from", AttributeValue::S(format!("DATE#{FROM}")))
            .expression_attribute_values(":to", AttributeValue::S(format!("DATE#{TO}")));
        self.all(q).await.into_iter().map(order_from).collect()
    }

    async fn product_by_id(&self) -> Option<Product> {
        self.get(format!("PRODUCT#{PRODUCT}"), "DETAILS")
            .await
            .map(product_from)
    }

    async fn products_by_category(&self) -> Vec<Product> {
        let q = self
            .query()
            .index_name("GSI1")
            .key_condition_expression("GSI1PK = :pk AND begins_with(GSI1SK, :sk)")
            .expression_attribute_values(":pk", AttributeValue::S(format!("CATEGORY#{CATEGORY}")))
            .expression_attribute_values(":sk", s("PRODUCT#"));
        self.all(q).await.into_iter().map(product_from).collect()
    }

    async fn published_products(&self) -> Vec<Product> {
        let q = self
            .query()
            .index_name("GSI2")
            .key_condition_expression("GSI2PK = :pk AND begins_with(GSI2SK, :sk)")
            .expression_attribute_values(":pk", s("PUBLISHED"))
            .expression_attribute_values(":sk", s("PRODUCT#"));
        self.all(q).await.into_iter().map(product_from).collect()
    }

    async fn put_user(&self, u: &User) {
        let mut item = Item::with_capacity(9);
        item.insert(
            "PK".into(),
            AttributeValue::S(format!("USER#{}", u.user_id)),
        );
        item.insert("SK".into(), s("PROFILE"));
        item.insert(
            "GSI1PK".into(),
            AttributeValue::S(format!("USEREMAIL#{}", u.email)),
        );
        item.insert(
            "GSI1SK".into(),
            AttributeValue::S(format!("USER#{}", u.user_id)),
        );
        item.insert("entityType".into(), s("User"));
        item.insert("userId".into(), s(&u.user_id));
        item.insert("name".into(), s(&u.name));
        item.insert("email".into(), s(&u.email));
        item.insert("createdAt".into(), s(&u.created_at));
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .expect("PutItem");
    }
}

// ------------------------------------------------------------------ bench --

/// Both sides must return the same values before their times mean anything.
async fn check_agreement(db: &Sdb, hand: &Hand) {
    assert!(ours_user_by_id(db).await.is_some());
    assert_eq!(ours_user_by_id(db).await, hand.user_by_id().await);
    assert!(ours_user_by_email(db).await.is_some());
    assert_eq!(ours_user_by_email(db).await, hand.user_by_email().await);
    assert_eq!(ours_orders_of_user(db).await.len(), 3);
    assert_eq!(ours_orders_of_user(db).await, hand.orders_of_user().await);
    assert_eq!(ours_order_with_items(db).await.len(), 4);
    assert_eq!(
        ours_order_with_items(db).await,
        hand.order_with_items().await
    );
    assert_eq!(ours_orders_by_status(db).await.len(), 6);
    assert_eq!(
        ours_orders_by_status(db).await,
        hand.orders_by_status().await
    );
    assert_eq!(ours_orders_by_date(db).await.len(), 4);
    assert_eq!(ours_orders_by_date(db).await, hand.orders_by_date().await);
    assert!(ours_product_by_id(db).await.is_some());
    assert_eq!(ours_product_by_id(db).await, hand.product_by_id().await);
    assert_eq!(ours_products_by_category(db).await.len(), 2);
    assert_eq!(
        ours_products_by_category(db).await,
        hand.products_by_category().await
    );
    assert_eq!(ours_published_products(db).await.len(), 3);
    assert_eq!(
        ours_published_products(db).await,
        hand.published_products().await
    );
    let user = ours_user_by_id(db).await.expect("seeded");
    let before = db
        .sdk()
        .get_item()
        .table_name(db.table_name())
        .key("PK", AttributeValue::S(format!("USER#{USER}")))
        .key("SK", s("PROFILE"))
        .send()
        .await
        .expect("GetItem")
        .item;
    hand.put_user(&user).await;
    let after_hand = hand.get(format!("USER#{USER}"), "PROFILE").await;
    ours_put_user(db, &user).await;
    let after_ours = hand.get(format!("USER#{USER}"), "PROFILE").await;
    assert_eq!(before, after_hand, "hand-written put wrote another item");
    assert_eq!(before, after_ours, "singletable put wrote another item");
}

/// Warms the server's JIT and the connection pool before measuring: a fresh
/// DynamoDB Local gets about twice as fast over its first tens of thousands
/// of requests (slower still when the machine is busy), which would favour
/// whichever function criterion measures second; interleaving evens out
/// short bursts of load, not a drift between the two functions' windows.
/// Runs every pattern both ways until the median round time of three
/// windows of 3 s in a row stays within 2% (at least 30 s, at most 75 s).
/// The server keeps getting faster for a while after that: the interleaved
/// pairs of [`report_pairs`] are the figure to trust for the first groups.
async fn warm_up(db: &Sdb, hand: &Hand) {
    fn median(v: &mut [Duration]) -> Duration {
        v.sort_unstable();
        v[v.len() / 2]
    }
    let start = Instant::now();
    let mut previous: Option<Duration> = None;
    let mut steady_windows = 0;
    loop {
        let window = Instant::now();
        let mut rounds = Vec::new();
        while window.elapsed() < Duration::from_secs(3) {
            let round = Instant::now();
            check_agreement(db, hand).await;
            rounds.push(round.elapsed());
        }
        let now = median(&mut rounds);
        let steady = previous.is_some_and(|p| {
            let (a, b) = (p.as_secs_f64(), now.as_secs_f64());
            (a - b).abs() / a < 0.02
        });
        steady_windows = if steady { steady_windows + 1 } else { 0 };
        let elapsed = start.elapsed();
        if (steady_windows >= 2 && elapsed >= Duration::from_secs(30))
            || elapsed >= Duration::from_secs(75)
        {
            eprintln!(
                "warm-up: {:.0} s, median round of every pattern both ways {:.2} ms",
                elapsed.as_secs_f64(),
                now.as_secs_f64() * 1e3
            );
            return;
        }
        previous = Some(now);
    }
}

/// Latencies of adjacent requests, `(singletable, hand_written)`, per pattern.
type Pairs = Mutex<Vec<(&'static str, Duration, Duration)>>;

/// One group per pattern with both functions, interleaved: every timed
/// request is followed by an untimed one of the other side, so both sides
/// see the same request mix. Criterion still measures the two functions in
/// two windows one after the other, and a burst of load from a neighbour or
/// a garbage collection in the server can cover one window and not the
/// other; so the untimed requests are timed too, on the side, and
/// [`report_pairs`] prints the ratio of the two sides over the same span of
/// time, which no drift can bias.
macro_rules! pattern {
    ($c:expr, $rt:expr, $pairs:expr, $name:literal, $ours:expr, $hand:expr) => {{
        let mut g = $c.benchmark_group(concat!("pattern/", $name));
        g.bench_function("singletable", |b| {
            b.to_async($rt).iter_custom(|iters| async move {
                let mut timed = Duration::ZERO;
                let mut pairs = Vec::with_capacity(iters as usize);
                for _ in 0..iters {
                    let start = Instant::now();
                    black_box($ours.await);
                    let ours = start.elapsed();
                    timed += ours;
                    let start = Instant::now();
                    black_box($hand.await);
                    pairs.push(($name, ours, start.elapsed()));
                }
                $pairs.lock().expect("pairs").extend(pairs);
                timed
            })
        });
        g.bench_function("hand_written", |b| {
            b.to_async($rt).iter_custom(|iters| async move {
                let mut timed = Duration::ZERO;
                let mut pairs = Vec::with_capacity(iters as usize);
                for _ in 0..iters {
                    let start = Instant::now();
                    black_box($hand.await);
                    let hand = start.elapsed();
                    timed += hand;
                    let start = Instant::now();
                    black_box($ours.await);
                    pairs.push(($name, start.elapsed(), hand));
                }
                $pairs.lock().expect("pairs").extend(pairs);
                timed
            })
        });
        g.finish();
    }};
}

/// Prints, per pattern, the median latency of each side over every request
/// of both functions (criterion's warm-up included) and their ratio.
fn report_pairs(pairs: &Pairs) {
    fn median(mut v: Vec<Duration>) -> Duration {
        v.sort_unstable();
        v[v.len() / 2]
    }
    let pairs = pairs.lock().expect("pairs");
    let mut names: Vec<&str> = pairs.iter().map(|p| p.0).collect();
    names.dedup();
    println!("\ninterleaved pairs: median latency per side over the same span of time");
    println!(
        "{:<22} {:>8} {:>14} {:>14} {:>7}",
        "pattern", "pairs", "singletable", "hand_written", "ratio"
    );
    for name in names {
        let (ours, hand): (Vec<_>, Vec<_>) = pairs
            .iter()
            .filter(|p| p.0 == name)
            .map(|p| (p.1, p.2))
            .unzip();
        let n = ours.len();
        let (o, h) = (median(ours), median(hand));
        println!(
            "{name:<22} {n:>8} {:>11.1} µs {:>11.1} µs {:>7.3}",
            o.as_secs_f64() * 1e6,
            h.as_secs_f64() * 1e6,
            o.as_secs_f64() / h.as_secs_f64()
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs each
    // function once, and needs neither the warm-up nor, without a server,
    // to fail.
    let bench_mode = std::env::args().any(|a| a == "--bench");
    let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") else {
        eprintln!(
            "DYNAMODB_ENDPOINT is not set; run `bash scripts/dynamodb-local.sh cargo bench --bench patterns`"
        );
        if bench_mode {
            std::process::exit(2);
        }
        return;
    };
    let rt = Runtime::new().expect("tokio runtime");
    let table = format!(
        "bench-patterns-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
    );
    let db = Db::local(&endpoint, &table);
    let hand = Hand {
        client: db.sdk().clone(),
        table: table.clone(),
    };
    rt.block_on(async {
        assert!(
            db.create_table_if_missing::<AppTable>()
                .await
                .expect("CreateTable")
        );
        app::seed(&db, &app::sample()).await.expect("seed");
        if bench_mode {
            warm_up(&db, &hand).await;
        } else {
            check_agreement(&db, &hand).await;
        }
    });
    let user = rt.block_on(ours_user_by_id(&db)).expect("seeded");

    let mut c = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let pairs = Pairs::default();
    let (db, hand, rt, user, pairs) = (&db, &hand, &rt, &user, &pairs);
    pattern!(
        c,
        rt,
        pairs,
        "user_by_id",
        ours_user_by_id(db),
        hand.user_by_id()
    );
    pattern!(
        c,
        rt,
        pairs,
        "user_by_email",
        ours_user_by_email(db),
        hand.user_by_email()
    );
    pattern!(
        c,
        rt,
        pairs,
        "orders_of_user",
        ours_orders_of_user(db),
        hand.orders_of_user()
    );
    pattern!(
        c,
        rt,
        pairs,
        "order_with_items",
        ours_order_with_items(db),
        hand.order_with_items()
    );
    pattern!(
        c,
        rt,
        pairs,
        "orders_by_status",
        ours_orders_by_status(db),
        hand.orders_by_status()
    );
    pattern!(
        c,
        rt,
        pairs,
        "orders_by_date",
        ours_orders_by_date(db),
        hand.orders_by_date()
    );
    pattern!(
        c,
        rt,
        pairs,
        "product_by_id",
        ours_product_by_id(db),
        hand.product_by_id()
    );
    pattern!(
        c,
        rt,
        pairs,
        "products_by_category",
        ours_products_by_category(db),
        hand.products_by_category()
    );
    pattern!(
        c,
        rt,
        pairs,
        "published_products",
        ours_published_products(db),
        hand.published_products()
    );
    pattern!(
        c,
        rt,
        pairs,
        "put_user",
        ours_put_user(db, user),
        hand.put_user(user)
    );
    c.final_summary();
    if bench_mode {
        report_pairs(pairs);
    }

    rt.block_on(db.delete_table()).expect("DeleteTable");
}
