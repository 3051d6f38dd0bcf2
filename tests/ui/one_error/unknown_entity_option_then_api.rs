// A misspelt `#[entity]` option is the only error.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App")]
pub struct App;

#[derive(Entity)]
#[entity(table = App, nmae = "User")]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[access(users)]
pub struct User {
    pub id: String,
    pub name: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = db.get::<User>(User::key("u1")?).await?;
    User::update("u1").set(User::fields().name, "Ana".to_owned()).execute(db).await?;
    let _ = User::users("u1").all(db).await?;
    Ok(())
}

fn main() {}
