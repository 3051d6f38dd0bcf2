use singletable::{Collection, Entity, Table};

#[derive(Table)]
#[table(name = "Desk", gsi1(pk(tenantId = S), sk(entityType = S, createdAt = N)))]
pub struct Desk;

#[derive(Entity)]
#[entity(table = Desk, rename_all = "camelCase")]
#[pk("CASE#<id>")]
#[sk("CASE")]
#[gsi1(pk(tenant_id), sk(created_at))]
pub struct Case {
    pub id: String,
    pub tenant_id: String,
    pub created_at: i64,
}

// `gsi1`'s sort key is typed attributes: no template to take a prefix of.
#[derive(Collection)]
#[collection(index = gsi1, sk_prefix = "CASE")]
pub enum Activity {
    Case(Case),
}

fn main() {}
