use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Desk", gsi1(pk(tenantId = S)), entities(Case, Note))]
pub struct Desk;

#[derive(Entity)]
#[entity(table = Desk, rename_all = "camelCase")]
#[pk("CASE#<id>")]
#[sk("CASE")]
#[gsi1(pk(tenant_id))]
pub struct Case {
    pub id: String,
    pub tenant_id: String,
}

// Also on `gsi1`: its items cannot be told apart from `Case`'s by key.
#[derive(Entity)]
#[entity(table = Desk, rename_all = "camelCase")]
#[pk("NOTE#<id>")]
#[sk("NOTE")]
#[gsi1(pk(tenant_id))]
pub struct Note {
    pub id: String,
    pub tenant_id: String,
}

fn main() {}
