use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Desk", gsi1(pk(tenantId = S), sk(entityType = S, createdAt = N)))]
pub struct Desk;

// `entityType` is the library's to write: map the attributes after it.
#[derive(Entity)]
#[entity(table = Desk, rename_all = "camelCase")]
#[pk("CASE#<id>")]
#[sk("CASE")]
#[gsi1(pk(tenant_id), sk(kind, created_at))]
pub struct Case {
    pub id: String,
    pub tenant_id: String,
    pub kind: String,
    pub created_at: i64,
}

fn main() {}
