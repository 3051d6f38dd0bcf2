// `gsi1` is keyed on the tickets' own attributes and holds only keys: a
// pattern returning whole tickets would read none of their other
// attributes, so it does not compile, as on an index of synthetic keys.
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S), sk(createdAt = N), keys_only))]
pub struct Tickets;

#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk(tenant_id), sk(created_at))]
#[access(tickets_of, index = gsi1)]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub created_at: i64,
    pub title: String,
}

fn main() {}
