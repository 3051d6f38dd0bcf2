// `v<version>` with a `String` can be `v0`, the latest item's key: one
// would overwrite the other.
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Versions", entities(Latest, Version))]
pub struct Versions;

#[derive(Entity)]
#[entity(table = Versions)]
#[pk("DOC#<id>")]
#[sk("v0")]
pub struct Latest {
    pub id: String,
    pub latest: u32,
}

#[derive(Entity)]
#[entity(table = Versions)]
#[pk("DOC#<id>")]
#[sk("v<version>")]
pub struct Version {
    pub id: String,
    pub version: String,
}

fn main() {}
