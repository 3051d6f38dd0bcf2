use singletable::{Db, Entity, Executor, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S, region = N), sk(status = S, createdAt = N)))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk(tenant_id, region), sk(status, created_at))]
#[access(by_status, index = gsi1)]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub region: u32,
    pub status: String,
    pub created_at: i64,
}

// Nothing follows a range condition.
pub async fn run<E: Executor>(db: &Db<E>) {
    let _ = Ticket::by_status("acme", 1).sk_gt("A").sk_eq(5).all(db).await;
}

fn main() {}
