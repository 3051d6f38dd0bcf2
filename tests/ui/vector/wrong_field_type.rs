use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", vector1(dimensions = 4, distance = cosine))]
pub struct Shop;

// A vector is `f32`s: `Vec<f32>` or `[f32; 4]`.
#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector1(vector = embedding)]
pub struct Product {
    pub id: String,
    pub embedding: Vec<f64>,
}

fn main() {}
