// `gsi1` holds only keys: a pattern returning whole sessions would fail on
// every read, so it does not compile.
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Sessions", gsi1(keys_only))]
pub struct Sessions;

#[derive(Entity)]
#[entity(table = Sessions)]
#[pk("SESSION#<token>")]
#[sk("SESSION")]
#[gsi1(pk = "USER#<username>", sk = "SESSION#<token>")]
#[access(sessions_of, index = gsi1)]
pub struct Session {
    pub token: String,
    pub username: String,
    pub agent: String,
}

fn main() {}
