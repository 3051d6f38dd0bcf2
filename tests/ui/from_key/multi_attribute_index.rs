use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S), sk(createdAt = N)))]
struct Tickets;

// A multi-attribute index reads the field's own attribute.
#[derive(Entity)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk(tenant_id), sk(created_at))]
struct Ticket {
    id: String,
    #[attr(from_key)]
    tenant_id: String,
    created_at: u64,
}

fn main() {}
