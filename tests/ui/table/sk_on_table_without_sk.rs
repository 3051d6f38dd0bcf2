use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", no_sk)]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
}

fn main() {}
