use singletable::Table;

#[derive(Table)]
#[table(name = "App", gsi1(pk = "GSI1PK", sk = "SK"))]
struct App;

fn main() {}
