// An entity without `table = ..` is the only error: its API (keys,
// access patterns) is still generated, on a stub table.
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Sessions", gsi1)]
pub struct Sessions;

#[derive(Entity)]
#[pk("SESSION#<token>")]
#[sk("SESSION")]
#[gsi1(pk = "USER#<username>", sk = "SESSION#<token>")]
#[access(sessions_of, index = gsi1)]
pub struct Session {
    pub token: String,
    pub username: String,
}

fn main() {
    let _ = Session::sessions_of("ana");
}
pub async fn more(db: &singletable::Db) -> singletable::Result<()> {
    db.put(&Session { token: "t".into(), username: "u".into() }).await?;
    let _ = db.get::<Session>(Session::key("t")?).await?;
    let _ = Session::sessions_of("u").all(db).await?;
    Ok(())
}
