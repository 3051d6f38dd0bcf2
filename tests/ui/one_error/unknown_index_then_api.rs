// An access pattern on an index the entity does not declare is the only
// error: the pattern's function still exists.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "EMAIL#<email>")]
#[access(by_email, index = gsi2)]
pub struct User {
    pub id: String,
    pub email: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = User::by_email("u1").all(db).await?;
    Ok(())
}

fn main() {}
