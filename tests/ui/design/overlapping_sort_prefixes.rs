use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab", entities(Account, Invoice))]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("ORG#<org>")]
#[sk("user#<email>")]
pub struct Account {
    pub org: String,
    pub email: String,
}

// A query for an org's accounts (`begins_with(SK, "user#")`) would return
// these too.
#[derive(Entity)]
#[entity(table = T)]
#[pk("ORG#<org>")]
#[sk("user#<email>#inv#<n>")]
pub struct Invoice {
    pub org: String,
    pub email: String,
    pub n: u32,
}

fn main() {}
