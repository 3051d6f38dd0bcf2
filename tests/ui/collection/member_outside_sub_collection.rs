use singletable::{Collection, Entity, Table};

#[derive(Table)]
#[table(name = "Tab", gsi1)]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("ISSUE#<id>")]
#[sk("ISSUE")]
#[gsi1(pk = "OWNER#<author>", sk = "OWNED#TICKET#<id>")]
pub struct Issue {
    pub id: String,
    pub author: String,
}

#[derive(Entity)]
#[entity(table = T)]
#[pk("REPO#<repo>")]
#[sk("REPO")]
#[gsi1(pk = "OWNER#<owner>", sk = "OWNED#REPO#<repo>")]
pub struct Repo {
    pub repo: String,
    pub owner: String,
}

// Repositories are owned, but not tickets.
#[derive(Collection)]
#[collection(index = gsi1, sk_prefix = "OWNED#TICKET#")]
pub enum Tickets {
    Issue(Issue),
    Repo(Repo),
}

fn main() {}
