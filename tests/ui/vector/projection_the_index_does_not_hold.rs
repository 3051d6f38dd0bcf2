use singletable::{Document, Entity, Table};

#[derive(Table)]
#[table(name = "Shop", vector1(dimensions = 2, distance = cosine, include(price)))]
pub struct Shop;

#[derive(Document)]
pub struct Listing {
    pub name: String,
    pub price: u32,
}

// `vector1` projects `price`, not `name`.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector1(vector = embedding)]
#[access(similar_listings, index = vector1, select = Listing)]
pub struct Product {
    pub id: String,
    pub name: String,
    pub price: u32,
    pub embedding: Vec<f32>,
}

fn main() {}
