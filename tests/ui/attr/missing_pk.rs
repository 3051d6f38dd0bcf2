use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[sk("PROFILE")]
struct User {
    id: String,
}

fn main() {}
