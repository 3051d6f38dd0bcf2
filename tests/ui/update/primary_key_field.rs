use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab")]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("ORDER#<id>")]
#[sk("DETAILS")]
pub struct Order {
    pub id: String,
    pub total: f64,
}

fn main() {
    let _ = Order::update("o-1").set(Order::fields().id, "o-2".to_owned());
}
