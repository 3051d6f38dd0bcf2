use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S), sk(status = S, createdAt = N)))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
// The table's index has two sort attributes.
#[gsi1(pk(tenant_id), sk(status))]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub status: String,
}

fn main() {}
