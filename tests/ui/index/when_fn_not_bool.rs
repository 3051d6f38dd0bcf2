use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
struct App;

fn is_listed(user: &User) -> Option<bool> {
    Some(!user.org.is_empty())
}

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "ORG#<org>", sk = "USER#<id>", when = is_listed)]
struct User {
    id: String,
    org: String,
}

fn main() {}
