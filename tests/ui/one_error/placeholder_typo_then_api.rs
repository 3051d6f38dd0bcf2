// A misspelt placeholder is the only error: the key builders, `fields()`,
// `update()` and the access patterns are still generated and called below.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<idd>")]
#[sk("PROFILE")]
#[gsi1(pk = "EMAIL#<email>", sk = "USER#<id>")]
#[access(by_email, index = gsi1)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = db.get::<User>(User::key("u1")?).await?;
    let f = User::fields();
    User::update("u1").set(f.name, "Ana".to_owned()).execute(db).await?;
    let _ = User::by_email("a@example.com").all(db).await?;
    Ok(())
}

fn main() {}
