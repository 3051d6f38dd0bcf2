use singletable::Table;

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = BOOL)))]
pub struct Tickets;

fn main() {}
