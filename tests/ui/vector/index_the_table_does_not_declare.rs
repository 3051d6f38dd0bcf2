use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Shop", vector1(dimensions = 2, distance = cosine))]
pub struct Shop;

#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector2(vector = embedding)]
pub struct Product {
    pub id: String,
    pub embedding: Vec<f32>,
}

fn main() {}
