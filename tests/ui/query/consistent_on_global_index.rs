use singletable::{Db, Entity, Executor, Table};

#[derive(Table)]
#[table(name = "Tab", gsi1)]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("ORDER#<id>")]
#[sk("DETAILS")]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>")]
#[access(by_status, index = gsi1)]
pub struct Order {
    pub id: String,
    pub status: String,
}

pub async fn run<E: Executor>(db: &Db<E>) {
    let _ = Order::by_status("PENDING").consistent().all(db).await;
}

fn main() {}
