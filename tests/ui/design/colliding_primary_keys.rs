use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab", entities(Order, Refund))]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("ORDER#<id>")]
#[sk("DETAILS")]
pub struct Order {
    pub id: String,
}

// `ORDER#<id>` with id = "r-1" and `ORDER#r-<id>` with id = "1" are the same key.
#[derive(Entity)]
#[entity(table = T)]
#[pk("ORDER#r-<id>")]
#[sk("DETAILS")]
pub struct Refund {
    pub id: String,
}

fn main() {}
