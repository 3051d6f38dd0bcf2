use singletable::{Document, Entity, Table};

#[derive(Document)]
struct Address {
    city: String,
}

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("ADDR#<address>")]
#[sk("PROFILE")]
struct User {
    address: Address,
}

fn main() {}
