use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App, name = "User", version = 2, rename_all = "camelCase")]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
    schema_version: u32,
}

fn main() {}
