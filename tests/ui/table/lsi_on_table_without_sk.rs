use singletable::Table;

#[derive(Table)]
#[table(name = "App", no_sk, lsi1)]
struct App;

fn main() {}
