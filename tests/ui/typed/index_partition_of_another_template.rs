// A collection on gsi1 reads the partition its members build there: the
// gsi1 partition of an entity with another template is refused, although
// both are partitions of gsi1.
use singletable::{Collection, Entity, Table};

#[derive(Table)]
#[table(name = "Tracker", gsi1)]
pub struct Tracker;

#[derive(Entity, Debug)]
#[entity(table = Tracker)]
#[pk("REPO#<name>")]
#[sk("REPO")]
#[gsi1(pk = "ACCOUNT#<owner>", sk = "OWNED#REPO#<name>")]
pub struct Repo {
    pub name: String,
    pub owner: String,
}

#[derive(Entity, Debug)]
#[entity(table = Tracker)]
#[pk("LABEL#<name>")]
#[sk("LABEL")]
#[gsi1(pk = "COLOR#<color>", sk = "LABEL#<name>")]
pub struct Label {
    pub name: String,
    pub color: String,
}

#[derive(Collection, Debug)]
#[collection(index = gsi1)]
pub enum Owned {
    Repo(Repo),
}

fn main() {
    let _ = Owned::query(Label::gsi1_partition("red").unwrap());
}
