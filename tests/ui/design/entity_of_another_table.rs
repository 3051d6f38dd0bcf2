use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "TabA", entities(Thing))]
pub struct A;

#[derive(Table)]
#[table(name = "TabB")]
pub struct B;

#[derive(Entity)]
#[entity(table = B)]
#[pk("THING#<id>")]
#[sk("THING")]
pub struct Thing {
    pub id: String,
}

fn main() {}
