use singletable::{Db, Entity, Executor, Table};

#[derive(Table)]
#[table(name = "Shop", vector1(dimensions = 2, distance = cosine, hash(category = S), filter(price = N)))]
pub struct Shop;

#[derive(Entity)]
#[entity(table = Shop)]
#[pk("PRODUCT#<id>")]
#[sk("DETAILS")]
#[vector1(vector = embedding, hash(category), filter(price))]
#[access(similar, index = vector1)]
pub struct Product {
    pub id: String,
    pub category: String,
    pub price: u32,
    pub embedding: Vec<f32>,
}

// DynamoDB compares a HASH attribute by equality only.
pub async fn run<E: Executor>(db: &Db<E>) {
    let _ = Product::similar("tea", &[1.0, 0.0])
        .filter(|f| f.category.between("a", "m"))
        .all(db)
        .await;
}

fn main() {}
