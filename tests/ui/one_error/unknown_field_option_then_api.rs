// A misspelt `#[attr]` option is the only error; the field keeps its other
// options (`rename` here), so the key template naming it still builds.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App")]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
pub struct User {
    pub id: String,
    #[attr(rename = "fullName", min_lenn = 1)]
    pub name: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    User::update("u1").set(User::fields().name, "Ana".to_owned()).execute(db).await?;
    Ok(())
}

fn main() {}
