// `gsi1` includes `title` only: a pattern returning `Listing`, which also
// reads `price`, would fail on every read, so it does not compile.
use singletable::{Document, Entity, Table};

#[derive(Table)]
#[table(name = "Shop", gsi1(include(title)))]
pub struct Shop;

#[derive(Document)]
pub struct Listing {
    pub title: String,
    pub price: u32,
}

#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("PRODUCT")]
#[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>")]
#[access(listing, index = gsi1, select = Listing)]
pub struct Product {
    pub id: String,
    pub category: String,
    pub title: String,
    pub price: u32,
}

fn main() {}
