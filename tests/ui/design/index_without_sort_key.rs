use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab", gsi1(no_sk), entities(User, Project))]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("USER#<id>")]
#[sk("DETAILS")]
#[gsi1(pk = "OWNER#<owner>")]
pub struct User {
    pub id: String,
    pub owner: String,
}

// `gsi1` has no sort key: a query of an owner's users reads the whole
// `OWNER#<owner>` partition, projects included.
#[derive(Entity)]
#[entity(table = T)]
#[pk("PROJECT#<id>")]
#[sk("DETAILS")]
#[gsi1(pk = "OWNER#<owner>")]
pub struct Project {
    pub id: String,
    pub owner: String,
}

fn main() {}
