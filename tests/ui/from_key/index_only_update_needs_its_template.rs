use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", gsi1)]
struct Shop;

// `status` and `ship_date` live only in GSI1SK: an update of one of them
// rewrites that key, so it needs the other too.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("SHIPMENT#<id>")]
#[sk("SHIPMENT")]
#[gsi1(pk = "w#<warehouse_id>", sk = "<status>#<ship_date>")]
struct Shipment {
    #[attr(from_key)]
    id: String,
    #[attr(from_key)]
    warehouse_id: String,
    #[attr(from_key)]
    status: String,
    #[attr(from_key)]
    ship_date: String,
}

async fn deliver(db: &singletable::Db) -> singletable::Result<()> {
    Shipment::update("s1")
        .set(Shipment::fields().status, "DELIVERED".to_string())
        .execute(db)
        .await
}

fn main() {}
