// A misspelt option of `#[access]` is the only error: the pattern is still
// generated, and the other items of the entity with it.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "EMAIL#<email>", sk = "USER#<id>")]
#[access(by_email, indx = gsi1)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = db.get::<User>(User::key("u1")?).await?;
    let _ = User::by_email("u1").all(db).await?;
    User::update("u1").set(User::fields().name, "Ana".to_owned()).execute(db).await?;
    Ok(())
}

fn main() {}
