// A filter on the fields of an entity that is not a member of the
// collection would hold for every item: it does not compile.
use singletable::{Collection, Entity, Table};

#[derive(Table)]
#[table(name = "Tracker")]
pub struct Tracker;

#[derive(Entity, Debug)]
#[entity(table = Tracker)]
#[pk("ISSUE#<number>")]
#[sk("ISSUE")]
pub struct Issue {
    pub number: u32,
    pub title: String,
}

#[derive(Entity, Debug)]
#[entity(table = Tracker)]
#[pk("ISSUE#<number>")]
#[sk("COMMENT#<id>")]
pub struct IssueComment {
    pub number: u32,
    pub id: String,
    pub body: String,
}

#[derive(Collection, Debug)]
pub enum Owned {
    Issue(Issue),
}

fn main() {
    let _ = Owned::query(Issue::partition(7).unwrap())
        .filter(IssueComment::fields().body.eq("x").in_collection::<Owned>());
}
