use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S), sk(createdAt = N)))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets)]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
// Stored as `tenant_id`, but the table's attribute is `tenantId`.
#[gsi1(pk(tenant_id), sk(created_at))]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    #[attr(rename = "createdAt")]
    pub created_at: i64,
}

fn main() {}
