use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App, rename_all = "camel_case")]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
}

fn main() {}
