use singletable::{Document, Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Document)]
struct UserV1 {
    id: String,
}

#[derive(Entity)]
#[entity(table = App, name = "User", version = 2, migrate(v1 = UserV1))]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
}

fn main() {}
