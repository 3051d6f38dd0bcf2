use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1)]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
// `gsi1` is keyed on GSI1PK/GSI1SK templates.
#[gsi1(pk(tenant_id), sk(status))]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub status: String,
}

fn main() {}
