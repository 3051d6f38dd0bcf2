use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Tab", entities(User, Tag))]
pub struct T;

#[derive(Entity)]
#[entity(table = T)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
pub struct User {
    pub id: String,
    #[attr(unique)]
    pub email: String,
}

// `UNIQUE#User#email#ana@example.com` is the partition of a marker of
// `User.email`: a query of this partition would read it.
#[derive(Entity)]
#[entity(table = T)]
#[pk("UNIQUE#<kind>#<group>#<name>")]
#[sk("TAG")]
pub struct Tag {
    pub kind: String,
    pub group: String,
    pub name: String,
}

fn main() {}
