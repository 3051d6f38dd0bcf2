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

// Repositories are keyed on GSI1 by their repository, not their owner:
// they never share a partition with the owner's profile.
#[derive(Entity)]
#[entity(table = T)]
#[pk("REPO#<repo>")]
#[sk("REPO")]
#[gsi1(pk = "REPOSITORY#<repo>", sk = "REPO")]
pub struct Repo {
    pub repo: String,
}

#[derive(Collection)]
#[collection(index = gsi1)]
pub enum Owned {
    User(User),
    Repo(Repo),
}

fn main() {}
