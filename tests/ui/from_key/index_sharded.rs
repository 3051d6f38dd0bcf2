use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Feed", gsi1)]
struct Feed;

// A sharded partition key ends with a shard suffix (`FEED#<topic>#3`).
#[derive(Entity)]
#[entity(table = Feed)]
#[pk("POST#<id>")]
#[sk("POST")]
#[gsi1(pk = "FEED#<topic>", sk = "AT#<at>", shards = 4)]
struct Post {
    id: String,
    #[attr(from_key)]
    topic: String,
    at: u64,
}

fn main() {}
