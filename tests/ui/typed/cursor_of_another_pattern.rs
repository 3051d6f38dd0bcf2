// A cursor of one access pattern given to another: a compile error on the
// argument, naming both patterns' query types.
use singletable::{Db, Embedded, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
pub struct App;

#[derive(Entity, Debug, Clone)]
#[entity(table = App)]
#[pk("USER#<user>")]
#[sk("ORDER#<n>")]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
#[access(orders)]
#[access(by_status, index = gsi1)]
pub struct Order {
    pub user: String,
    pub n: u32,
    pub status: String,
}

async fn pages(db: &Db<Embedded>) -> singletable::Result<()> {
    let first = Order::orders("ana").limit(2).page(db, None).await?;
    // Fine: the same pattern.
    Order::orders("ana").page(db, first.cursor.as_ref()).await?;
    // Another pattern's query.
    Order::by_status("NEW").page(db, first.cursor.as_ref()).await?;
    Ok(())
}

fn main() {
    let _ = pages;
}
