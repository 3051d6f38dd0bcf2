use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S), sk(createdAt = N)))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk(tenant_id), sk(created_at))]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    // The table declares `createdAt = N`.
    pub created_at: String,
}

fn main() {}
