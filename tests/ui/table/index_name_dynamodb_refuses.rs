// DynamoDB refuses an index name with a space: a compile error on the
// literal, not a failure at run time.
use singletable::Table;

#[derive(Table)]
#[table(name = "Shop", gsi1(name = "By Email"))]
pub struct Shop;

fn main() {}
