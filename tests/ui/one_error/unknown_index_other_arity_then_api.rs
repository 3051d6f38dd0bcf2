// An access pattern on an index the entity does not declare is the only
// error, even when the table's partition key takes other arguments than
// the call gives: the pattern is generated on the entity's index that no
// other pattern reads.
use singletable::{Db, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1, gsi2)]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("TENANT#<tenant>#USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "EMAIL#<email>", sk = "USER#<id>")]
#[access(by_email, index = gsi2)]
pub struct User {
    pub tenant: String,
    pub id: String,
    pub email: String,
}

pub async fn calls(db: &Db) -> singletable::Result<()> {
    let _ = User::by_email("ana@example.com").all(db).await?;
    Ok(())
}

fn main() {}
