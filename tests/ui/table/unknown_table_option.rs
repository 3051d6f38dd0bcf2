use singletable::Table;

#[derive(Table)]
#[table(name = "App", gsi1(keys_olny))]
struct App;

fn main() {}
