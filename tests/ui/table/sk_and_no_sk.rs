use singletable::Table;

#[derive(Table)]
#[table(name = "App", sk = "SK", no_sk)]
struct App;

fn main() {}
