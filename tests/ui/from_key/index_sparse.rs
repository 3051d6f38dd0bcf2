use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", gsi1)]
struct Shop;

// The sparse index's key is absent while `shipped` is false: the
// warehouse would be stored nowhere.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("SHIPMENT#<id>")]
#[sk("SHIPMENT")]
#[gsi1(pk = "w#<warehouse_id>", sk = "SHIPMENT#<id>", when = shipped)]
struct Shipment {
    id: String,
    #[attr(from_key)]
    warehouse_id: String,
    shipped: bool,
}

fn main() {}
