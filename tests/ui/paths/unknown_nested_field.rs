use singletable::{Document, Entity, Table};

#[derive(Table)]
#[table(name = "Tab")]
pub struct T;

#[derive(Document)]
pub struct Address {
    pub city: String,
}

#[derive(Entity)]
#[entity(table = T)]
#[pk("ORDER#<id>")]
#[sk("DETAILS")]
pub struct Order {
    pub id: String,
    pub address: Address,
}

fn main() {
    let f = Order::fields();
    let _ = Order::update("o-1").set(f.address.field(|a| a.zip), "69001".to_owned());
}
