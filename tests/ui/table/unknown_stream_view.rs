use singletable::Table;

#[derive(Table)]
#[table(name = "App", stream = new_and_old)]
struct App;

fn main() {}
