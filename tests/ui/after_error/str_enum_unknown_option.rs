// A misspelt `#[str_enum]` option is the only error: the enum is still a
// string attribute and a key part, with `as_str` and `from_str_value`.
use singletable::{Db, Entity, StrEnum, Table};

#[derive(StrEnum, Clone, Copy)]
#[str_enum(rename_al = "lowercase")]
pub enum Status {
    Pending,
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
    let _ = db.get::<Order>(Order::key("o1", &Status::Pending)?).await?;
    let _ = Status::from_str_value(Status::Shipped.as_str());
    let _ = Status::VARIANTS.len();
    Ok(())
}

fn main() {}
