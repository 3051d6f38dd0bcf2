use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

// A validation must say what is wrong, not only that something is.
fn positive(n: &u32) -> bool {
    *n > 0
}

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
struct User {
    id: String,
    #[attr(validate = positive)]
    age: u32,
}

fn main() {}
