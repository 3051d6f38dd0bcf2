// A misspelt `#[table]` option is the only error: the table is still
// declared, so its entities raise none.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1, entites(User))]
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
    let _ = db.get::<User>(User::key("u1")?).await?;
    let _ = User::by_email("a@example.com").all(db).await?;
    Ok(())
}

fn main() {}
