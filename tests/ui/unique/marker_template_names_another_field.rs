use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop")]
struct Shop;

#[derive(Entity)]
#[entity(table = Shop)]
#[pk("CUSTOMER#<username>")]
#[sk("CUSTOMER#<username>")]
struct Customer {
    username: String,
    #[attr(unique = "CUSTOMEREMAIL#<username>")]
    email: String,
}

fn main() {}
