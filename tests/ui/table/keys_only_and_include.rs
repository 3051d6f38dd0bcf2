use singletable::Table;

#[derive(Table)]
#[table(name = "App", gsi1(keys_only, include(total)))]
struct App;

fn main() {}
