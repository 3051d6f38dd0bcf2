use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("SCORE#<score>")]
#[sk("PROFILE")]
struct User {
    score: f64,
}

fn main() {}
