use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab", gsi3, entities(Order, Sale))]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("ORDER#<id>")]
#[sk("DETAILS")]
#[gsi3(pk = "BYDATE", sk = "DATE#<date>", shards = 4)]
pub struct Order {
    pub id: String,
    pub date: String,
}

// The orders are stored in `BYDATE#0`..`BYDATE#3`; a sale of region "2" in
// `BYDATE#2`, with the same `DATE#` sort keys.
#[derive(Entity)]
#[entity(table = T)]
#[pk("SALE#<id>")]
#[sk("DETAILS")]
#[gsi3(pk = "BYDATE#<region>", sk = "DATE#<date>")]
pub struct Sale {
    pub id: String,
    pub region: String,
    pub date: String,
}

fn main() {}
