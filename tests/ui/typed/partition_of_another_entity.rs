// A collection reads its members' partition: another entity's partition
// (here one that shares the table but not the collection) is refused.
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
}

#[derive(Entity, Debug)]
#[entity(table = Tracker)]
#[pk("ISSUE#<number>")]
#[sk("REVIEW#<id>")]
pub struct Review {
    pub number: u32,
    pub id: String,
}

#[derive(Entity, Debug)]
#[entity(table = Tracker)]
#[pk("REPO#<name>")]
#[sk("REPO")]
pub struct Repo {
    pub name: String,
}

#[derive(Collection, Debug)]
pub enum IssueReview {
    Issue(Issue),
    Review(Review),
}

fn main() {
    let _ = IssueReview::query(Repo::partition("db").unwrap());
}
