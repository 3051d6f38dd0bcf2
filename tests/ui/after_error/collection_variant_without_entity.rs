// A variant that holds no entity is the only error: the collection of the
// other variants is still generated, and the query reading it raises none.
use singletable::{Collection, Db, Entity, Table};

#[derive(Table)]
#[table(name = "App")]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("ORDER#<id>")]
#[sk("ORDER")]
pub struct Order {
    pub id: String,
}

#[derive(Collection)]
pub enum OrderDetails {
    Order(Order),
    Note,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = OrderDetails::query(Order::partition("o1")?).all(db).await?;
    Ok(())
}

fn main() {}
