use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", vector1(dimensions = 2, distance = cosine, filter(price = N)))]
pub struct Shop;

// `name` is not an INLINE_FILTER attribute of the table's `vector1`.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector1(vector = embedding, filter(price, name))]
pub struct Product {
    pub id: String,
    pub name: String,
    pub price: u32,
    pub embedding: Vec<f32>,
}

fn main() {}
