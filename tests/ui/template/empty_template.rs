use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("")]
#[sk("PROFILE")]
struct User {
    id: String,
    org: String,
}

fn main() {}
