use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S)))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk(tenant))]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
}

fn main() {}
