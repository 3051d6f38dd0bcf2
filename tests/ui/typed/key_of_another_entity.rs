// A key built for one entity, read as another: the type names both.
use singletable::{Db, Entity, Executor, Table};

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
#[sk("COMMENT#<id>")]
pub struct IssueComment {
    pub number: u32,
    pub id: String,
}

pub async fn read<E: Executor>(db: &Db<E>) -> singletable::Result<Option<Issue>> {
    let key = IssueComment::key(7, "c1")?;
    db.get::<Issue>(key).await
}

fn main() {}
