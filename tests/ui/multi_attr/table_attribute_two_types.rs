use singletable::Table;

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(tenantId = S)), gsi2(pk(tenantId = N)))]
pub struct Tickets;

fn main() {}
