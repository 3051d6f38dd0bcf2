// A misspelt `#[collection]` option is the only error: the collection is
// still generated, and the query reading it raises none.
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

#[derive(Entity)]
#[entity(table = App)]
#[pk("ORDER#<order>")]
#[sk("ITEM#<sku>")]
pub struct Item {
    pub order: String,
    pub sku: String,
}

#[derive(Collection)]
#[collection(sk_prefx = "ITEM#")]
pub enum OrderDetails {
    Order(Order),
    Item(Item),
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    for d in OrderDetails::query(Order::partition("o1")?).all(db).await? {
        match d {
            OrderDetails::Order(o) => drop(o),
            OrderDetails::Item(i) => drop(i),
        }
    }
    Ok(())
}

fn main() {}
