// A multi-attribute key condition takes one range condition: a second
// one is one error that says to use `sk_between`.
use singletable::{Db, Entity, Executor, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S), sk(createdAt = N)))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk(tenant_id), sk(created_at))]
#[access(by_date, index = gsi1)]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub created_at: i64,
}

pub async fn run<E: Executor>(db: &Db<E>) {
    let _ = Ticket::by_date("acme").sk_gt(10).sk_lt(20).all(db).await;
}

fn main() {}
