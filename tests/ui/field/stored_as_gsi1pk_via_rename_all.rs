use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
struct App;

#[derive(Entity)]
#[entity(table = App, rename_all = "UPPERCASE")]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
    gsi1pk: String,
}

fn main() {}
