//! SearchVectors as data: the request, its `TopK` limit and the scored
//! items it returns.

use super::*;

/// DynamoDB's limits on `TopK`: 1 to 100.
///
/// ```
/// assert_eq!(singletable::vector::MAX_TOP_K, 100);
/// ```
pub const MAX_TOP_K: u32 = 100;

/// SearchVectors, as data: what [`Executor::search_vectors`](crate::exec::Executor::search_vectors) receives.
///
/// ```
/// use singletable_core::exec::Executor;
/// use singletable_core::vector::SearchVectors;
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = euclidean))]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding)]
/// # pub struct Product { pub id: String, pub embedding: Vec<f32> }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Product { id: "a".into(), embedding: vec![3.0, 4.0] }).await?;
/// let req = SearchVectors { table: "Shop".into(), index: "VECTOR1".into(), vector: vec![0.0, 0.0], condition: None, top_k: 5, projection: None };
/// let found = db.executor().search_vectors(req).await?;
/// assert_eq!(found[0].score, 5.0);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SearchVectors {
    /// Table name.
    pub table: String,
    /// The vector index's name.
    pub index: String,
    /// The query vector (`SearchVector`).
    pub vector: Vec<f32>,
    /// `SearchConditionExpression`: equality on every `HASH` attribute,
    /// comparisons on `INLINE_FILTER` ones, joined by `AND`.
    pub condition: Option<Condition>,
    /// `TopK`.
    pub top_k: u32,
    /// `ProjectionExpression`: top-level attribute names; `None` for every
    /// attribute the index projects.
    pub projection: Option<Vec<String>>,
}

/// One result of a SearchVectors: the item's projected attributes and its
/// similarity score.
///
/// ```
/// use singletable_core::vector::ScoredItem;
/// let s = ScoredItem { item: Default::default(), score: 0.25 };
/// assert_eq!(s.score, 0.25);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredItem {
    /// The attributes.
    pub item: Item,
    /// The score ([`Distance::score`](crate::vector::Distance::score)).
    pub score: f64,
}
