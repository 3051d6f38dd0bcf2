// A misspelt `#[attr]` option on a document's field is the only error: the
// document is still generated, so the entity holding it, its field handles
// and a path into it raise none.
use singletable::{Db, Document, Entity, Table};

#[derive(Table)]
#[table(name = "App")]
pub struct App;

#[derive(Document)]
pub struct Address {
    #[attr(min_lenn = 1)]
    pub city: String,
}

#[derive(Entity)]
#[entity(table = App)]
#[pk("ORDER#<id>")]
#[sk("DETAILS")]
pub struct Order {
    pub id: String,
    pub address: Address,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let f = Order::fields();
    Order::update("o1").set(f.address.field(|a| a.city), "Lyon".to_owned()).execute(db).await?;
    let _ = Address::fields();
    Ok(())
}

fn main() {}
