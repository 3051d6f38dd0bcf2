use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab", entities(UserV1, UserV2))]
pub struct T;

#[derive(Entity)]
#[entity(table = T, name = "User")]
#[pk("USER#<id>")]
#[sk("V1")]
pub struct UserV1 {
    pub id: String,
}

#[derive(Entity)]
#[entity(table = T, name = "User")]
#[pk("USER#<id>")]
#[sk("V2")]
pub struct UserV2 {
    pub id: String,
}

fn main() {}
