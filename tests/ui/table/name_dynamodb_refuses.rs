// DynamoDB refuses a table name under 3 characters: a compile error on the
// literal, not a failure at run time.
use singletable::Table;

#[derive(Table)]
#[table(name = "S")]
pub struct Shop;

fn main() {}
