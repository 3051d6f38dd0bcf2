use singletable::Table;

#[derive(Table)]
#[table(name = "App")]
struct App {
    name: String,
}

fn main() {}
