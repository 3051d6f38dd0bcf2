use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
struct User {
    id: String,
}

fn main() {}
