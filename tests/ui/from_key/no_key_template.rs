use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", gsi1)]
struct Shop;

#[derive(Entity)]
#[entity(table = Shop)]
#[pk("ORDER#<id>")]
#[sk("ORDER")]
#[gsi1(pk = "CUSTOMER#<customer_id>", sk = "ORDER#<id>")]
struct Order {
    id: String,
    customer_id: String,
    #[attr(from_key)]
    total: u64,
}

fn main() {}
