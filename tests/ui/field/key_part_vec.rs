use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("TAGS#<tags>")]
#[sk("PROFILE")]
struct User {
    tags: Vec<String>,
}

fn main() {}
