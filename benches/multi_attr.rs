//! One query, two index designs, same data: tickets of a tenant and region
//! with a status, created after a time, read from a multi-attribute index
//! (`tenantId = :t AND region = :r AND status = :s AND createdAt >= :c`, typed
//! attributes of the items) and from a template index (`GSI1PK =
//! TENANT#acme#1 AND GSI1SK BETWEEN STATUS#OPEN#AT#<c> AND
//! STATUS#OPEN#AT#<max>`, synthetic strings), on DynamoDB Local and on the
//! embedded backend.
//!
//! Run with `bash scripts/dynamodb-local.sh cargo bench --bench multi_attr`.
//! Both queries return the same items (the bench asserts it first).

use std::time::Duration;

use criterion::Criterion;
use singletable::SdkDb;
use singletable::{Backend, Db, Entity, Table};
use tokio::runtime::Runtime;

#[derive(Table)]
#[table(
    name = "BenchTickets",
    gsi1,
    gsi2(pk(tenantId = S, region = N), sk(status = S, createdAt = N))
)]
pub struct Tickets;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(
    pk = "TENANT#<tenant_id>#<region>",
    sk = "STATUS#<status>#AT#<created_at>"
)]
#[gsi2(pk(tenant_id, region), sk(status, created_at))]
#[access(by_status_template, index = gsi1)]
#[access(by_status, index = gsi2)]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub region: u32,
    pub status: String,
    pub created_at: u64,
    pub title: String,
}

const TICKETS: u64 = 500;
const AFTER: u64 = 1_700_000_250;

async fn multi(db: &Db) -> Vec<Ticket> {
    Ticket::by_status("acme", 1)
        .sk_eq("OPEN")
        .sk_ge(AFTER)
        .all(db)
        .await
        .expect("Query")
}

async fn template(db: &Db) -> Vec<Ticket> {
    Ticket::by_status_template("acme", 1)
        .sk_between(("OPEN", AFTER), ("OPEN", u64::MAX))
        .all(db)
        .await
        .expect("Query")
}

async fn seed(db: &Db) {
    let statuses = ["OPEN", "CLOSED", "PENDING", "DONE"];
    for i in 0..TICKETS {
        let t = Ticket {
            id: format!("t{i:04}"),
            tenant_id: "acme".into(),
            region: 1,
            status: statuses[(i % 4) as usize].into(),
            created_at: 1_700_000_000 + i,
            title: format!("ticket number {i} with a title of some length"),
        };
        db.put(&t).await.expect("PutItem");
    }
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let endpoint = std::env::var("DYNAMODB_ENDPOINT")
        .expect("run with scripts/dynamodb-local.sh, which sets DYNAMODB_ENDPOINT");
    let name = format!("BenchTickets-{}", std::process::id());
    let backends: Vec<(&str, Db)> = rt.block_on(async {
        let local = Db::local(&endpoint, name.clone());
        local
            .create_table_if_missing::<Tickets>()
            .await
            .expect("CreateTable");
        let local: Db = Db::open::<Tickets>(Backend::DynamoDbLocal { endpoint }, &name)
            .await
            .expect("open");
        let embedded: Db = Db::open::<Tickets>(Backend::Embedded, &name)
            .await
            .expect("open");
        for db in [&local, &embedded] {
            seed(db).await;
            let (a, b) = (multi(db).await, template(db).await);
            assert_eq!(a, b, "both indexes return the same items");
            assert_eq!(a.len(), 62);
        }
        vec![("dynamodb_local", local), ("embedded", embedded)]
    });
    let mut c = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    for (backend, db) in &backends {
        let mut g = c.benchmark_group(format!("multi_attr/{backend}"));
        g.bench_function("multi_attribute_index", |b| {
            b.to_async(&rt).iter(|| multi(db))
        });
        g.bench_function("template_index", |b| b.to_async(&rt).iter(|| template(db)));
        g.finish();
    }
    c.final_summary();
    rt.block_on(async {
        let _ = Db::local(
            &std::env::var("DYNAMODB_ENDPOINT").unwrap_or_default(),
            name.clone(),
        )
        .sdk()
        .delete_table()
        .table_name(&name)
        .send()
        .await;
    });
}
