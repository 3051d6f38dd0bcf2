use singletable::{Collection, Entity, Table};

#[derive(Table)]
#[table(name = "Tab", gsi1)]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("USER#<name>")]
#[sk("PROFILE")]
#[gsi1(pk = "OWNER#<name>", sk = "OWNER")]
pub struct User {
    pub name: String,
}

#[derive(Entity)]
#[entity(table = T)]
#[pk("USER#<name>")]
#[sk("SETTINGS")]
pub struct Settings {
    pub name: String,
}

#[derive(Collection)]
#[collection(index = gsi1)]
pub enum Owned {
    User(User),
    Settings(Settings),
}

fn main() {}
