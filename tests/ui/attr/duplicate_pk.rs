use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[pk("ACCOUNT#<id>")]
struct User {
    id: String,
}

fn main() {}
