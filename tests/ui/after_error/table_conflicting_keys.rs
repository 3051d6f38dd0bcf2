// An index keyed on the entity-type attribute is the only error: the table is
// still declared from its model, so its entities raise none.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1(pk = "entityType"))]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "EMAIL#<email>", sk = "USER#<id>")]
#[access(by_email, index = gsi1)]
pub struct User {
    pub id: String,
    pub email: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = User::by_email("a@example.com").all(db).await?;
    Ok(())
}

fn main() {}
