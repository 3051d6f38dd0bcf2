use singletable::Table;

#[derive(Table)]
#[table(gsi1)]
struct App;

fn main() {}
