use singletable::Table;

// The entity-type attribute may lead a sort key as a string only.
#[derive(Table)]
#[table(name = "Desk", gsi1(pk(tenantId = S), sk(entityType = N, createdAt = N)))]
pub struct Desk;

fn main() {}
