use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", entities(Customer, Any))]
struct Shop;

#[derive(Entity)]
#[entity(table = Shop)]
#[pk("CUSTOMER#<username>")]
#[sk("CUSTOMER#<username>")]
struct Customer {
    username: String,
    #[attr(unique = "CUSTOMEREMAIL#<email>")]
    email: String,
}

// `<kind>#<id>` can be `CUSTOMEREMAIL#<email>`.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("<kind>#<id>")]
#[sk("ANY")]
struct Any {
    kind: String,
    id: String,
}

fn main() {}
