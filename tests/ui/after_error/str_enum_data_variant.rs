// A variant with fields is the only error: the enum's other variants are
// still a string attribute and a key part.
use singletable::{Db, Entity, StrEnum, Table};

#[derive(StrEnum, Clone)]
pub enum Status {
    Pending,
    Shipped(String),
}

#[derive(Table)]
#[table(name = "App")]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("ORDER#<id>")]
#[sk("STATUS#<status>")]
pub struct Order {
    pub id: String,
    pub status: Status,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = db.get::<Order>(Order::key("o1", &Status::Pending)?).await?;
    let _ = Status::Pending.as_str();
    Ok(())
}

fn main() {}
