use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", no_sk, gsi1)]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[lsi1(sk = "ORG#<org>")]
struct User {
    id: String,
    org: String,
}

fn main() {}
