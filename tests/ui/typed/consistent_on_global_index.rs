// DynamoDB reads global indexes eventually consistent only: the error says
// so at `.consistent()`.
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", gsi1)]
pub struct Shop;

#[derive(Entity, Debug)]
#[entity(table = Shop)]
#[pk("ORDER#<id>")]
#[sk("ORDER")]
#[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
#[access(orders_of, index = gsi1)]
pub struct Order {
    pub id: String,
    pub customer: String,
}

fn main() {
    let _ = Order::orders_of("ana").consistent();
}
