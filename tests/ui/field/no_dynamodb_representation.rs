use singletable::{Entity, Table};

struct Address {
    city: String,
}

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
    address: Address,
}

fn main() {}
