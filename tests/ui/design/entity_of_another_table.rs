use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "A", entities(Thing))]
pub struct A;

#[derive(Table)]
#[table(name = "B")]
pub struct B;

#[derive(Entity)]
#[entity(table = B)]
#[pk("THING#<id>")]
#[sk("THING")]
pub struct Thing {
    pub id: String,
}

fn main() {}
