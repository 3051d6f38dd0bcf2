use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", gsi1)]
struct Shop;

// `<status><date>` reads back in more than one way: `PACKED2024` could be
// any split of it.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("SHIPMENT#<id>")]
#[sk("SHIPMENT")]
#[gsi1(pk = "w#<warehouse_id>", sk = "<status><date>")]
struct Shipment {
    id: String,
    #[attr(from_key)]
    warehouse_id: String,
    #[attr(from_key)]
    status: String,
    #[attr(from_key)]
    date: String,
}

fn main() {}
