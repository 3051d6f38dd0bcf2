use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App, rename_all = "camelCase")]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
    entity_type: String,
}

fn main() {}
