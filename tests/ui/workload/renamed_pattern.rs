// The pattern `posts` was renamed `recent_posts`: the workload's row for it
// no longer compiles, instead of pricing a pattern that does not exist.
use singletable::cost::{PatternLoad, Rate, Workload};
use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "App")]
pub struct App;

#[derive(Entity)]
#[entity(table = App)]
#[pk("USER#<id>")]
#[sk("POST#<at>")]
#[access(recent_posts)]
pub struct Post {
    pub id: String,
    pub at: u64,
}

fn main() {
    let _ = Workload::<App>::new().pattern::<PostPostsQuery>(PatternLoad::new(Rate::new(1.0, 2.0), 10));
}
