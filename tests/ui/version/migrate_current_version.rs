use singletable::{Document, Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Document)]
struct UserV2 {
    id: String,
}

#[derive(Entity)]
#[entity(table = App, name = "User", version = 2, migrate(v2 = UserV2))]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
}

fn main() {}
