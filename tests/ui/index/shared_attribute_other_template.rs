// `gsi1`'s partition key is the table's sort key attribute (an inverted
// index), so the entity must write the same template into it.
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1(pk = "SK", sk = "PK"))]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("EMP#<emp_id>")]
#[sk("PROJECT#<project_id>")]
#[gsi1(pk = "PROJ#<project_id>", sk = "EMP#<emp_id>")]
pub struct Membership {
    pub emp_id: String,
    pub project_id: String,
}

fn main() {}
