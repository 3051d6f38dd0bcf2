// A misspelt option on a variant is the only error: the enum is still a
// string attribute and a key part, with `as_str` and `from_str_value`.
use singletable::{Db, Entity, StrEnum, Table};

#[derive(StrEnum, Clone, Copy)]
pub enum Status {
    Pending,
    #[str_enum(renme = "sent")]
    Shipped,
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
    let _ = db.get::<Order>(Order::key("o1", &Status::Shipped)?).await?;
    let _ = Status::from_str_value(Status::Pending.as_str()).map(|s| s.to_string());
    Ok(())
}

fn main() {}
