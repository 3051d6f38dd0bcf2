use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "ORG#<org>", sk = "USER#<id>", sparse)]
struct User {
    id: String,
    org: String,
}

fn main() {}
