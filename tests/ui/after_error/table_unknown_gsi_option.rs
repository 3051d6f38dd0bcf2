// An unknown option inside `gsi1(...)` is the only error: the table and
// its index are still declared, so the entity on that index, its access
// pattern and the query on it raise none.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1(pk = "GSI1PK", projektion = "all"))]
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
    let _ = <App as Table>::GLOBAL_INDEXES;
    Ok(())
}

fn main() {}
