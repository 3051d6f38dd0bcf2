use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1)]
struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("PROFILE")]
#[gsi1(pk = "USEREMAIL#<email>", sk = "USER#<id>")]
struct User {
    id: String,
    #[attr(unique)]
    email: String,
}

fn main() {}
