//! Vector search: DynamoDB's vector indexes and `SearchVectors`.
//!
//! A table declares a vector index (`#[table(vector1(...))]`: the vector
//! attribute, its dimensions, the distance function, the search schema's
//! `HASH` and `INLINE_FILTER` attributes, the projection); an entity feeds
//! it from a `Vec<f32>` or `[f32; N]` field (`#[vector1(vector = embedding,
//! hash(category), filter(price))]`); each `#[access(name, index =
//! vector1)]` generates a typed search: the `HASH` attributes as arguments
//! (DynamoDB compares them by equality only), the query vector, then
//! [`VectorSearch::top_k`] and typed inline filters
//! ([`VectorSearch::filter`]), answered most similar first with their
//! scores ([`Scored`]).
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop", vector1(name = "ProductSearch", dimensions = 2, distance = cosine, hash(category = S), filter(price = N)))]
//! pub struct Shop;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(table = Shop)]
//! #[pk("PRODUCT#<id>")]
//! #[sk("DETAILS")]
//! #[vector1(vector = embedding, hash(category), filter(price))]
//! #[access(similar, index = vector1)]
//! pub struct Product { pub id: String, pub category: String, pub price: u32, pub embedding: [f32; 2] }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! for (id, price, embedding) in [("tea", 12, [1.0, 0.0]), ("mug", 8, [0.8, 0.6]), ("pan", 30, [0.0, 1.0])] {
//!     db.put(&Product { id: id.into(), category: "kitchen".into(), price, embedding }).await?;
//! }
//! let found = Product::similar("kitchen", &[1.0, 0.1]).top_k(2).all(&db).await?;
//! assert_eq!(found.iter().map(|s| s.item.id.as_str()).collect::<Vec<_>>(), ["tea", "mug"]);
//! assert!(found[0].score < found[1].score); // COSINE: smaller is closer
//! let cheap = Product::similar("kitchen", &[0.0, 1.0]).filter(|f| f.price.lt(&20)).all(&db).await?;
//! assert_eq!(cheap[0].item.id, "mug");
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! # Worked example: semantic search in the shop
//!
//! The shop's products, found by what their descriptions mean rather than
//! by key: each product stores an embedding of its description (here a
//! toy embedding, words hashed into 16 dimensions; a real application
//! calls an embedding model), in a vector index partitioned by category and
//! filterable by price. Products without an embedding (`None`) are not in
//! the index, as a sparse global index leaves out items without its key.
//!
//! ```
//! use singletable::vector::Scored;
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(
//!     name = "AppTable",
//!     vector1(name = "ProductSearch", dimensions = 16, distance = cosine, hash(category = S), filter(price = N))
//! )]
//! pub struct AppTable;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(table = AppTable, name = "Product", rename_all = "camelCase")]
//! #[pk("PRODUCT#<product_id>")]
//! #[sk("DETAILS")]
//! #[vector1(vector = embedding, hash(category), filter(price))]
//! #[access(products_like, index = vector1)]
//! pub struct Product {
//!     pub product_id: String,
//!     pub category: String,
//!     pub name: String,
//!     pub price: f64,
//!     pub embedding: Option<Vec<f32>>,
//! }
//!
//! /// A stand-in for an embedding model: each word adds to one dimension.
//! fn embed(text: &str) -> Vec<f32> {
//!     let mut v = vec![0.0f32; 16];
//!     for word in text.split_whitespace() {
//!         let h = word.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
//!         v[(h % 16) as usize] += 1.0;
//!     }
//!     v
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<AppTable>("AppTable")?;
//! let catalog = [
//!     ("p-sencha", "tea", "Sencha", 12.0, "green tea from japan, grassy"),
//!     ("p-matcha", "tea", "Matcha", 24.0, "powdered green tea for whisking"),
//!     ("p-assam", "tea", "Assam", 9.5, "strong black tea, malty"),
//!     ("p-pot", "tea", "Teapot", 35.0, "cast iron pot for brewing"),
//!     ("p-kbd", "electronics", "Keyboard", 49.9, "mechanical keyboard, green switches"),
//! ];
//! for (id, category, name, price, description) in catalog {
//!     let product = Product {
//!         product_id: id.into(),
//!         category: category.into(),
//!         name: name.into(),
//!         price,
//!         embedding: Some(embed(description)),
//!     };
//!     db.put(&product).await?;
//! }
//! // Not yet described: not in the index.
//! db.put(&Product { product_id: "p-new".into(), category: "tea".into(), name: "New".into(), price: 1.0, embedding: None }).await?;
//!
//! // Teas like "green tea": one SearchVectors in the `tea` part of the index.
//! let found: Vec<Scored<Product>> = Product::products_like("tea", &embed("green tea")).top_k(2).all(&db).await?;
//! let names: Vec<&str> = found.iter().map(|s| s.item.name.as_str()).collect();
//! assert_eq!(names.len(), 2);
//! assert!(names.iter().all(|n| ["Sencha", "Matcha"].contains(n)));
//! // The keyboard's "green" is in another category: never a candidate.
//!
//! // The same search under 15.
//! let cheap = Product::products_like("tea", &embed("green tea"))
//!     .top_k(2)
//!     .filter(|f| f.price.lt(&15.0))
//!     .all(&db)
//!     .await?;
//! assert_eq!(cheap[0].item.name, "Sencha");
//! assert!(cheap.iter().all(|s| s.item.price < 15.0));
//!
//! // A new description moves the product in the index.
//! let f = Product::fields();
//! Product::update("p-assam").set(f.embedding, Some(embed("green tea green tea"))).execute(&db).await?;
//! let found = Product::products_like("tea", &embed("green tea")).top_k(1).all(&db).await?;
//! assert_eq!(found[0].item.name, "Assam");
//! assert!(found[0].score < 1e-6); // the same direction: cosine distance 0
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! # What DynamoDB documents, and what this follows
//!
//! - Scores: `COSINE` is the cosine distance `1 - cos` (0 to 2, smaller is
//!   closer; a zero vector has no direction and scores 1), `EUCLIDEAN` the
//!   distance (smaller is closer), `DOT_PRODUCT` the dot product (larger is
//!   closer). Results come most similar first. DynamoDB documents no order
//!   for equal scores; the embedded backend gives them in the order of the
//!   items' primary keys (partition key, then sort key, each as DynamoDB
//!   orders its type).
//! - `TopK` is 1 to 100; the search vector has the index's dimensions;
//!   every `HASH` attribute is given by equality. Refused before sending
//!   with [`Error::InvalidVector`] when the
//!   typed search can tell, and by DynamoDB (a `ValidationException` in
//!   [`Error::Service`]) otherwise.
//! - An item is in the index when it has the vector attribute (a list of
//!   the index's number of numbers) and every `HASH` attribute, with its
//!   declared type: indexes are sparse, as global indexes are. A write of a
//!   vector of other dimensions is refused.
//! - The API reference allows comparisons and ranges on `INLINE_FILTER`
//!   attributes; the developer guide's troubleshooting page says that the
//!   service accepts only `=` for now. The typed filters offer what the API
//!   reference documents, and the embedded backend evaluates it.

use std::marker::PhantomData;

pub use singletable_core::entity::VectorIndex;
pub use singletable_core::vector::{Distance, MAX_TOP_K, VectorProblem};
use singletable_core::vector::{ScoredItem, SearchVectors, check_vector};

use crate::db::Db;
use crate::error::{Error, Refusal};
use crate::exec::Executor;
use crate::expr::{Cmp, Condition, Operand};
use crate::fields::ValueFor;
use crate::query::Decode;

/// A field type that feeds a vector index: `Vec<f32>` (dimensions checked
/// at write time), `[f32; N]` (checked at compile time against the
/// index), or an `Option` of either (an item without the vector is not in
/// the index).
///
/// ```
/// use singletable::vector::VectorField;
/// assert_eq!(<[f32; 3] as VectorField>::DIMENSIONS, Some(3));
/// assert_eq!(<Vec<f32> as VectorField>::DIMENSIONS, None);
/// assert_eq!(Some(vec![1.0f32]).vector(), Some(&[1.0f32][..]));
/// assert_eq!(Option::<Vec<f32>>::None.vector(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot feed a vector index",
    label = "the vector index's field",
    note = "a vector field is a `Vec<f32>`, a `[f32; N]` with the index's dimensions, or an `Option` of either"
)]
pub trait VectorField {
    /// The dimensions the type fixes, if it fixes them.
    const DIMENSIONS: Option<usize>;
    /// The vector, when the value holds one.
    fn vector(&self) -> Option<&[f32]>;
}

impl VectorField for Vec<f32> {
    const DIMENSIONS: Option<usize> = None;
    fn vector(&self) -> Option<&[f32]> {
        Some(self)
    }
}

impl<const N: usize> VectorField for [f32; N] {
    const DIMENSIONS: Option<usize> = Some(N);
    fn vector(&self) -> Option<&[f32]> {
        Some(self)
    }
}

impl<T: VectorField> VectorField for Option<T> {
    const DIMENSIONS: Option<usize> = T::DIMENSIONS;
    fn vector(&self) -> Option<&[f32]> {
        self.as_ref().and_then(T::vector)
    }
}

/// A typed result: the item and its score.
///
/// ```
/// let s = singletable::vector::Scored { item: "tea", score: 0.5 };
/// assert_eq!((s.item, s.score), ("tea", 0.5));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Scored<T> {
    /// The decoded item (an entity, its key, a projection, a collection's
    /// enum).
    pub item: T,
    /// Its similarity score, as DynamoDB reports it.
    pub score: f64,
}

/// An access pattern on a vector index: its typed inline filters.
/// Implemented by the derive for each pattern's marker.
///
/// ```
/// use singletable::vector::SearchPattern;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, filter(price = N)))]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding, filter(price))]
/// # #[access(similar, index = vector1)]
/// # pub struct Product { pub id: String, pub price: u32, pub embedding: Vec<f32> }
/// let f = <ProductSimilarSearch as SearchPattern>::filters();
/// assert!(f.price.lt(&10).into_condition().is_ok());
/// ```
pub trait SearchPattern: Sized {
    /// The handles of the pattern's search attributes.
    type Filters;
    /// The handles.
    fn filters() -> Self::Filters;
}

/// A condition of a search (`SearchConditionExpression`) on pattern `P`'s
/// attributes; several are joined with [`SearchCondition::and`].
///
/// ```
/// # use singletable::vector::SearchPattern;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, filter(price = N, stock = N)))]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding, filter(price, stock))]
/// # #[access(similar, index = vector1)]
/// # pub struct Product { pub id: String, pub price: u32, pub stock: u32, pub embedding: Vec<f32> }
/// let f = <ProductSimilarSearch as SearchPattern>::filters();
/// let c = f.price.between(&5, &10).and(f.stock.gt(&0));
/// assert!(c.into_condition().is_ok());
/// ```
pub struct SearchCondition<P> {
    inner: Result<Condition, Error>,
    _m: PhantomData<fn() -> P>,
}

impl<P> std::fmt::Debug for SearchCondition<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl<P> SearchCondition<P> {
    fn new(inner: Result<Condition, Error>) -> Self {
        Self {
            inner,
            _m: PhantomData,
        }
    }

    /// Both conditions.
    ///
    /// See [`SearchCondition`].
    pub fn and(self, other: Self) -> Self {
        Self::new(match (self.inner, other.inner) {
            (Ok(a), Ok(b)) => Ok(Condition::And(Box::new(a), Box::new(b))),
            (Err(e), _) | (_, Err(e)) => Err(e),
        })
    }

    /// The condition as data, or the error a value of it raised.
    ///
    /// See [`SearchCondition`].
    pub fn into_condition(self) -> Result<Condition, Error> {
        self.inner
    }
}

fn operand<T>(attribute: &'static str, v: impl ValueFor<T>) -> Result<Operand, Error> {
    v.to_value().map(Operand::Value).map_err(|e| Error::Encode {
        entity: "search condition",
        source: e.at(attribute),
    })
}

/// An `INLINE_FILTER` attribute of a search, typed by its field: the
/// comparisons DynamoDB's API reference allows on it.
///
/// ```
/// # use singletable::vector::SearchPattern;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, filter(brand = S)))]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding, filter(brand))]
/// # #[access(similar, index = vector1)]
/// # pub struct Product { pub id: String, pub brand: String, pub embedding: Vec<f32> }
/// let f = <ProductSimilarSearch as SearchPattern>::filters();
/// assert_eq!(f.brand.attribute(), "brand");
/// for c in [f.brand.eq("acme"), f.brand.le("m"), f.brand.ge("b"), f.brand.gt("a"), f.brand.between("a", "c")] {
///     assert!(c.into_condition().is_ok());
/// }
/// ```
pub struct InlineFilter<T, P> {
    attribute: &'static str,
    _m: PhantomData<fn() -> (T, P)>,
}

impl<T, P> Clone for InlineFilter<T, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, P> Copy for InlineFilter<T, P> {}

macro_rules! comparisons {
    ($($(#[$doc:meta])* $name:ident => $cmp:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            pub fn $name(self, value: impl ValueFor<T>) -> SearchCondition<P> {
                let a = self.attribute;
                SearchCondition::new(operand(a, value).map(|v| {
                    Condition::Compare(Operand::Path(a.into()), Cmp::$cmp, v)
                }))
            }
        )*
    };
}

impl<T, P> InlineFilter<T, P> {
    pub(crate) const fn new(attribute: &'static str) -> Self {
        Self {
            attribute,
            _m: PhantomData,
        }
    }

    /// The stored attribute.
    ///
    /// See [`InlineFilter`].
    pub fn attribute(&self) -> &'static str {
        self.attribute
    }

    comparisons! {
        /// `attribute = value`. See [`InlineFilter`].
        eq => Eq,
        /// `attribute < value`. See [`InlineFilter`].
        lt => Lt,
        /// `attribute <= value`. See [`InlineFilter`].
        le => Le,
        /// `attribute > value`. See [`InlineFilter`].
        gt => Gt,
        /// `attribute >= value`. See [`InlineFilter`].
        ge => Ge,
    }

    /// `attribute BETWEEN low AND high`. See [`SearchCondition`].
    pub fn between(self, low: impl ValueFor<T>, high: impl ValueFor<T>) -> SearchCondition<P> {
        let a = self.attribute;
        SearchCondition::new(operand(a, low).and_then(|lo| {
            let hi = operand(a, high)?;
            Ok(Condition::Between(Operand::Path(a.into()), lo, hi))
        }))
    }
}

/// A `HASH` attribute of a search: given by equality as an argument of the
/// pattern, so it has no condition of its own. Its range methods exist only
/// to say so at compile time.
///
/// ```compile_fail
/// # use singletable::vector::SearchPattern;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, hash(category = S)))]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding, hash(category))]
/// # #[access(similar, index = vector1)]
/// # pub struct Product { pub id: String, pub category: String, pub embedding: Vec<f32> }
/// let f = <ProductSimilarSearch as SearchPattern>::filters();
/// f.category.gt("b"); // DynamoDB compares HASH attributes by equality only
/// f.category.between("a", "c"); // nor ranges
/// ```
///
/// ```
/// # use singletable::vector::SearchPattern;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, hash(category = S)))]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding, hash(category))]
/// # #[access(similar, index = vector1)]
/// # pub struct Product { pub id: String, pub category: String, pub embedding: Vec<f32> }
/// assert_eq!(<ProductSimilarSearch as SearchPattern>::filters().category.attribute(), "category");
/// ```
pub struct HashAttribute<T, P> {
    attribute: &'static str,
    _m: PhantomData<fn() -> (T, P)>,
}

impl<T, P> Clone for HashAttribute<T, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, P> Copy for HashAttribute<T, P> {}

mod refused {
    /// Never implemented: what a range on a `HASH` attribute would need, so
    /// that one is a compile error saying why (see
    /// [`HashAttribute`](super::HashAttribute)).
    #[diagnostic::on_unimplemented(
        message = "a vector index's `HASH` attribute is compared by equality only",
        label = "a comparison on a `HASH` attribute",
        note = "DynamoDB partitions a vector index by its `HASH` attributes: the search gives each as an argument of the access pattern; compare `INLINE_FILTER` attributes instead (`filter(...)` on the table's vector index)"
    )]
    pub trait ComparableInSearch {}
}
use refused::ComparableInSearch;

macro_rules! refused {
    ($($name:ident),*) => {
        $(
            /// Refused at compile time; see [`HashAttribute`].
            pub fn $name(self, value: impl ValueFor<T>) -> SearchCondition<P>
            where
                Self: ComparableInSearch,
            {
                let _ = value;
                SearchCondition::new(Err(Error::Refused(Refusal::HashComparison { condition: "comparison" })))
            }
        )*
    };
}

impl<T, P> HashAttribute<T, P> {
    pub(crate) const fn new(attribute: &'static str) -> Self {
        Self {
            attribute,
            _m: PhantomData,
        }
    }

    /// The stored attribute.
    pub fn attribute(&self) -> &'static str {
        self.attribute
    }

    refused!(lt, le, gt, ge);

    /// Refused at compile time: DynamoDB compares a `HASH` attribute by
    /// equality only, given as an argument of the access pattern.
    ///
    /// ```compile_fail
    /// # use singletable::vector::SearchPattern;
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, hash(category = S)))]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("P#<id>")]
    /// # #[sk("P")]
    /// # #[vector1(vector = embedding, hash(category))]
    /// # #[access(similar, index = vector1)]
    /// # pub struct Product { pub id: String, pub category: String, pub embedding: Vec<f32> }
    /// let f = <ProductSimilarSearch as SearchPattern>::filters();
    /// f.category.between("a", "c"); // error: a vector index's `HASH` attribute is compared by equality only
    /// ```
    pub fn between(self, low: impl ValueFor<T>, high: impl ValueFor<T>) -> SearchCondition<P>
    where
        Self: ComparableInSearch,
    {
        let _ = (low, high);
        SearchCondition::new(Err(Error::Refused(Refusal::HashComparison {
            condition: "range",
        })))
    }
}

/// A typed vector search: what an access pattern on a vector index
/// returns. Run it with [`VectorSearch::all`].
///
/// ```
/// use singletable::vector::Scored;
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", vector1(dimensions = 2, distance = euclidean, filter(price = N)))]
/// # pub struct Shop;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = Shop)]
/// # #[pk("P#<id>")]
/// # #[sk("P")]
/// # #[vector1(vector = embedding, filter(price))]
/// # #[access(similar, index = vector1)]
/// # pub struct Product { pub id: String, pub price: u32, pub embedding: Vec<f32> }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// for (id, price, x) in [("a", 5, 0.0), ("b", 50, 1.0), ("c", 7, 2.0)] {
///     db.put(&Product { id: id.into(), price, embedding: vec![x, 0.0] }).await?;
/// }
/// let found: Vec<Scored<Product>> = Product::similar(&[1.1, 0.0])
///     .top_k(1)
///     .filter(|f| f.price.lt(&10))
///     .all(&db)
///     .await?;
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].item.id, "c"); // `b` is closer, but over the price
/// assert!((found[0].score - 0.9).abs() < 1e-6); // EUCLIDEAN: the distance
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct VectorSearch<T, P> {
    index: &'static str,
    vector: Vec<f32>,
    condition: Option<Condition>,
    top_k: u32,
    error: Option<Error>,
    _m: PhantomData<fn() -> (T, P)>,
}

impl<T, P> std::fmt::Debug for VectorSearch<T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorSearch")
            .field("index", &self.index)
            .field("condition", &self.condition)
            .field("top_k", &self.top_k)
            .finish_non_exhaustive()
    }
}

impl<T, P> VectorSearch<T, P> {
    /// The search generated code starts: on `index`, for `vector`, with
    /// `TopK` 10.
    pub(crate) fn new(index: &VectorIndex, vector: &[f32]) -> Self {
        let error = check_vector(vector, index.dimensions as usize)
            .err()
            .map(|problem| Error::InvalidVector {
                index: index.name,
                problem,
            });
        Self {
            index: index.name,
            vector: vector.to_vec(),
            condition: None,
            top_k: 10,
            error,
            _m: PhantomData,
        }
    }

    /// Adds `attribute = value` for a `HASH` attribute (generated code).
    pub(crate) fn hash<V>(self, attribute: &'static str, v: impl ValueFor<V>) -> Self {
        let c = operand(attribute, v)
            .map(|v| Condition::Compare(Operand::Path(attribute.into()), Cmp::Eq, v));
        self.and(c)
    }

    fn and(mut self, c: Result<Condition, Error>) -> Self {
        match c {
            Ok(c) => {
                self.condition = Some(match self.condition.take() {
                    Some(a) => Condition::And(Box::new(a), Box::new(c)),
                    None => c,
                });
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// How many results (`TopK`, 1 to 100; 10 unless set). Outside that
    /// range the search is refused before sending.
    ///
    /// See [`VectorSearch`].
    pub fn top_k(mut self, k: u32) -> Self {
        self.top_k = k;
        self
    }

    /// Adds an inline filter on the pattern's `INLINE_FILTER` attributes
    /// (several calls are joined with `AND`).
    ///
    /// See [`VectorSearch`].
    pub fn filter(self, f: impl FnOnce(P::Filters) -> SearchCondition<P>) -> Self
    where
        P: SearchPattern,
    {
        let c = f(P::filters()).inner;
        self.and(c)
    }

    /// The same search, its results decoded as `U`: a collection's enum
    /// (`#[derive(Collection)]`) when several entity types feed the index,
    /// or another view of the items (`KeyOf<E>`).
    ///
    /// ```
    /// use singletable::{Collection, Db, Embedded, Entity, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "Library", vector1(dimensions = 2, distance = euclidean))]
    /// pub struct Library;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(table = Library)]
    /// #[pk("WORK#<id>")]
    /// #[sk("BOOK")]
    /// #[vector1(vector = embedding)]
    /// #[access(similar, index = vector1)]
    /// pub struct Book { pub id: String, pub embedding: Vec<f32> }
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(table = Library)]
    /// #[pk("WORK#<id>")]
    /// #[sk("FILM")]
    /// #[vector1(vector = embedding)]
    /// pub struct Film { pub id: String, pub embedding: Vec<f32> }
    ///
    /// #[derive(Collection, Debug, Clone, PartialEq)]
    /// pub enum Work { Book(Book), Film(Film) }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Library>("Library")?;
    /// db.put(&Book { id: "b".into(), embedding: vec![1.0, 0.0] }).await?;
    /// db.put(&Film { id: "f".into(), embedding: vec![0.9, 0.0] }).await?;
    /// let found = Book::similar(&[1.0, 0.0]).decode_as::<Work>().all(&db).await?;
    /// assert!(matches!(found[0].item, Work::Book(_)));
    /// assert!(matches!(found[1].item, Work::Film(_)));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn decode_as<U>(self) -> VectorSearch<U, P> {
        VectorSearch {
            index: self.index,
            vector: self.vector,
            condition: self.condition,
            top_k: self.top_k,
            error: self.error,
            _m: PhantomData,
        }
    }

    /// The request this search sends on table `table`, or why it is
    /// refused.
    ///
    /// ```
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", vector1(dimensions = 2, distance = cosine, hash(category = S)))]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("P#<id>")]
    /// # #[sk("P")]
    /// # #[vector1(vector = embedding, hash(category))]
    /// # #[access(similar, index = vector1)]
    /// # pub struct Product { pub id: String, pub category: String, pub embedding: Vec<f32> }
    /// let req = Product::similar("tea", &[1.0, 0.0]).top_k(3).request("Shop")?;
    /// assert_eq!((req.index.as_str(), req.top_k), ("VECTOR1", 3));
    /// assert!(Product::similar("tea", &[1.0]).request("Shop").is_err()); // 1 dimension, not 2
    /// assert!(Product::similar("tea", &[1.0, 0.0]).top_k(101).request("Shop").is_err());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn request(self, table: &str) -> Result<SearchVectors, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.top_k == 0 || self.top_k > MAX_TOP_K {
            return Err(Error::InvalidVector {
                index: self.index,
                problem: VectorProblem::TopK(self.top_k),
            });
        }
        Ok(SearchVectors {
            table: table.to_owned(),
            index: self.index.to_owned(),
            vector: self.vector,
            condition: self.condition,
            top_k: self.top_k,
            projection: None,
        })
    }
}

impl<T: Decode, P> VectorSearch<T, P> {
    /// Sends the SearchVectors (one request) and decodes its results,
    /// most similar first. Items of other entity types are an error, or
    /// left out when the table skips them (`#[table(other_items = skip)]`).
    ///
    /// See [`VectorSearch`].
    pub async fn all<E: Executor>(self, db: &Db<E>) -> Result<Vec<Scored<T>>, Error> {
        let (index, top_k) = (self.index, self.top_k);
        let req = self.request(db.table_name())?;
        let r = crate::trace::Request {
            index: Some(index),
            limit: Some(top_k),
            ..Default::default()
        };
        let span = crate::trace::span("SearchVectors", db.table_name(), &r);
        let found = crate::trace::traced(
            span.clone(),
            r.sender("SearchVectors"),
            db.executor().search_vectors(req),
        )
        .await?;
        crate::trace::count(&span, found.len());
        let other = <T::Table as crate::entity::Table>::OTHER_ITEMS;
        let mut out = Vec::with_capacity(found.len());
        for ScoredItem { item, score } in found {
            if let Some(item) = T::decode(item, other)? {
                out.push(Scored { item, score });
            }
        }
        Ok(out)
    }
}
