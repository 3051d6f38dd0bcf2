use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", vector1(dimensions = 4, distance = cosine))]
pub struct Shop;

// The index has 4 dimensions; the array fixes 3.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector1(vector = embedding)]
pub struct Product {
    pub id: String,
    pub embedding: [f32; 3],
}

fn main() {}
