//! Vector search on the embedded backend (DynamoDB Local does not
//! implement vector indexes): exact results against a brute-force
//! reference written here, the index kept in step with every kind of
//! write, and DynamoDB's documented validation errors.

use singletable::backend::ExtraIndexes;
use singletable::expr::{Cmp, Condition, Operand};
use singletable::{
    AttributeValue, BatchWriter, Counting, Db, Embedded, Entity, Error, Item, Table, Transaction,
};
use singletable_core::vector::{Distance, SearchVectors, VectorProblem};
use singletable_runtime::exec::Executor;

/// Three indexes over the same vectors, one per distance function, each
/// partitioned by tenant and filterable by price.
#[derive(Table)]
#[table(
    name = "Docs",
    vector1(attribute = "cos", dimensions = 8, distance = cosine, hash(tenant = S), filter(price = N)),
    vector2(attribute = "euc", dimensions = 8, distance = euclidean, hash(tenant = S), filter(price = N)),
    vector3(attribute = "dot", dimensions = 8, distance = dot_product, hash(tenant = S), filter(price = N))
)]
pub struct Docs;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Docs)]
#[pk("DOC#<id>")]
#[sk("DOC")]
#[vector1(vector = cos, hash(tenant), filter(price))]
#[vector2(vector = euc, hash(tenant), filter(price))]
#[vector3(vector = dot, hash(tenant), filter(price))]
#[access(by_cosine, index = vector1)]
#[access(by_euclidean, index = vector2)]
#[access(by_dot, index = vector3)]
pub struct Doc {
    pub id: String,
    pub tenant: String,
    pub price: u32,
    pub cos: Vec<f32>,
    pub euc: Vec<f32>,
    pub dot: Vec<f32>,
}

/// xorshift: values in [-1, 1), repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn vector(&mut self) -> Vec<f32> {
        (0..8).map(|_| self.unit()).collect()
    }
}

/// The reference score, in f64, written from the definitions.
fn reference(d: Distance, q: &[f32], v: &[f32]) -> f64 {
    let dot: f64 = q
        .iter()
        .zip(v)
        .map(|(a, b)| f64::from(*a) * f64::from(*b))
        .sum();
    let norm = |x: &[f32]| x.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
    match d {
        Distance::Cosine if norm(q) == 0.0 || norm(v) == 0.0 => 1.0,
        Distance::Cosine => 1.0 - dot / (norm(q) * norm(v)),
        Distance::Euclidean => q
            .iter()
            .zip(v)
            .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
            .sum::<f64>()
            .sqrt(),
        Distance::DotProduct => dot,
    }
}

const EPS: f64 = 1e-4;

#[tokio::test]
async fn vector_search_is_exact_on_the_embedded_backend() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut docs = Vec::new();
    // Groups of identical vectors make exact ties, ordered by key.
    let shared: Vec<Vec<f32>> = (0..6).map(|_| rng.vector()).collect();
    for i in 0..400 {
        let v = if i % 10 == 0 {
            shared[rng.below(6) as usize].clone()
        } else {
            rng.vector()
        };
        let doc = Doc {
            id: format!("{:04}", rng.below(10_000) * 1000 + i),
            tenant: ["acme", "globex"][rng.below(2) as usize].into(),
            price: rng.below(100) as u32,
            cos: v.clone(),
            euc: v.clone(),
            dot: v,
        };
        db.put(&doc).await?;
        docs.push(doc);
    }
    let mut checked = 0;
    for round in 0..60 {
        let q = if round % 5 == 0 {
            shared[rng.below(6) as usize].clone()
        } else {
            rng.vector()
        };
        let tenant = ["acme", "globex"][rng.below(2) as usize];
        let k = 1 + rng.below(25) as u32;
        let (lo, hi) = (rng.below(50) as u32, 50 + rng.below(50) as u32);
        let filter = round % 3; // none, `price < hi`, `price BETWEEN lo AND hi`
        for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
            // One pattern per distance function, each with its own type.
            macro_rules! run {
                ($search:expr) => {{
                    let s = $search.top_k(k);
                    let s = match filter {
                        1 => s.filter(|f| f.price.lt(&hi)),
                        2 => s.filter(|f| f.price.between(&lo, &hi)),
                        _ => s,
                    };
                    s.all(&db).await?
                }};
            }
            let found = match d {
                Distance::Cosine => run!(Doc::by_cosine(tenant, &q)),
                Distance::Euclidean => run!(Doc::by_euclidean(tenant, &q)),
                Distance::DotProduct => run!(Doc::by_dot(tenant, &q)),
            };
            // The reference: every matching document, best first, equal
            // scores by key.
            let mut want: Vec<(f64, &Doc)> = docs
                .iter()
                .filter(|x| x.tenant == tenant)
                .filter(|x| match filter {
                    1 => x.price < hi,
                    2 => (lo..=hi).contains(&x.price),
                    _ => true,
                })
                .map(|x| (reference(d, &q, &x.cos), x))
                .collect();
            let oriented = |s: f64| if d == Distance::DotProduct { -s } else { s };
            want.sort_by(|a, b| {
                oriented(a.0)
                    .total_cmp(&oriented(b.0))
                    .then_with(|| a.1.id.cmp(&b.1.id))
            });
            assert_eq!(
                found.len(),
                want.len().min(k as usize),
                "{d:?} round {round}"
            );
            let kth = want
                .get(found.len().saturating_sub(1))
                .map(|w| oriented(w.0));
            for (i, got) in found.iter().enumerate() {
                let exact = reference(d, &q, &got.item.cos);
                assert!(
                    (got.score - exact).abs() <= EPS * exact.abs().max(1.0),
                    "{d:?}: score {} for {}, reference {exact}",
                    got.score,
                    got.item.id
                );
                // In the reference's top k (up to float noise at the edge).
                assert!(
                    oriented(exact) <= kth.unwrap() + EPS,
                    "{d:?}: {} is not in the top {k}",
                    got.item.id
                );
                assert_eq!(got.item.tenant, tenant);
                if i > 0 {
                    let prev = &found[i - 1];
                    assert!(
                        oriented(prev.score) <= oriented(got.score) + EPS,
                        "{d:?}: results out of order"
                    );
                    if prev.item.cos == got.item.cos {
                        assert!(prev.item.id < got.item.id, "{d:?}: a tie out of key order");
                    }
                }
                match filter {
                    1 => assert!(got.item.price < hi),
                    2 => assert!((lo..=hi).contains(&got.item.price)),
                    _ => {}
                }
            }
            // Where scores are far apart, the order is the reference's.
            for (got, (ws, w)) in found.iter().zip(&want) {
                if (got.score - ws).abs() > EPS * ws.abs().max(1.0) {
                    continue;
                }
                if got.item.cos != w.cos {
                    continue; // a near-tie, in either order
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked > 1000,
        "only {checked} results compared with the reference"
    );
    Ok(())
}

/// Vectors whose elements reach `f32::MAX`: every score is a number (a
/// cosine distance in [0, 2], a dot product or a distance past `f32`'s range
/// infinite, never `NaN`), and the order is the `f64` reference's, on the
/// typed search of the embedded backend (the engine the endpoint serves too)
/// and in `Distance::score`.
#[tokio::test]
async fn vector_scores_never_overflow() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut docs = Vec::new();
    // Past 64 rows the search reads the `i8` copies first: 150 rows, a
    // third huge (elements up to 3.4e38), a third large (squares past
    // f32::MAX), a third small.
    for i in 0..150u32 {
        let scale = [3.4e38f32, 1e25, 1.0][i as usize % 3];
        let v: Vec<f32> = (0..8).map(|_| rng.unit() * scale).collect();
        let doc = Doc {
            id: format!("{i:04}"),
            tenant: "acme".into(),
            price: i,
            cos: v.clone(),
            euc: v.clone(),
            dot: v,
        };
        db.put(&doc).await?;
        docs.push(doc);
    }
    let mut compared = 0;
    for scale in [3.4e38f32, 1e25, 1.0] {
        for _ in 0..4 {
            let q: Vec<f32> = (0..8).map(|_| rng.unit() * scale).collect();
            for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
                let found = match d {
                    Distance::Cosine => Doc::by_cosine("acme", &q).top_k(20).all(&db).await?,
                    Distance::Euclidean => Doc::by_euclidean("acme", &q).top_k(20).all(&db).await?,
                    Distance::DotProduct => Doc::by_dot("acme", &q).top_k(20).all(&db).await?,
                };
                assert_eq!(found.len(), 20);
                let oriented = |s: f64| if d == Distance::DotProduct { -s } else { s };
                // The reference's order, in f64, with scores as f32 gives
                // them (past its range: infinite).
                let mut want: Vec<(f64, &Doc)> =
                    docs.iter().map(|x| (reference(d, &q, &x.cos), x)).collect();
                want.sort_by(|a, b| {
                    oriented(a.0)
                        .total_cmp(&oriented(b.0))
                        .then_with(|| a.1.id.cmp(&b.1.id))
                });
                for (i, got) in found.iter().enumerate() {
                    assert!(!got.score.is_nan(), "{d:?}: NaN score for {}", got.item.id);
                    let exact = reference(d, &q, &got.item.cos);
                    let as_f32 = exact as f32;
                    assert_eq!(
                        Distance::score(d, &q, &got.item.cos).is_infinite(),
                        as_f32.is_infinite(),
                        "{d:?}: Distance::score of {}",
                        got.item.id
                    );
                    if as_f32.is_infinite() {
                        assert_eq!(
                            got.score,
                            f64::from(as_f32),
                            "{d:?}: score of {}",
                            got.item.id
                        );
                    } else {
                        assert!(
                            (got.score - exact).abs() <= EPS * exact.abs().max(1.0),
                            "{d:?}: score {} for {}, reference {exact}",
                            got.score,
                            got.item.id
                        );
                    }
                    // The same rows as the reference's top 20, in its order
                    // (scores that differ past f32's precision).
                    let (w, wdoc) = want[i];
                    if (oriented(w) - oriented(exact)).abs() > EPS * w.abs().max(1.0)
                        && !(w as f32).is_infinite()
                    {
                        panic!(
                            "{d:?}: result {i} is {} ({exact}), the reference's is {} ({w})",
                            got.item.id, wdoc.id
                        );
                    }
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 3 * 4 * 3 * 20);
    Ok(())
}

/// A smaller table to watch one item move through the index.
#[derive(Table)]
#[table(
    name = "Shelf",
    vector1(name = "Similar", dimensions = 3, distance = euclidean, hash(tenant = S), filter(price = N))
)]
pub struct Shelf;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Shelf)]
#[pk("ITEM#<id>")]
#[sk("ITEM")]
#[vector1(vector = embedding, hash(tenant), filter(price))]
#[access(near, index = vector1)]
pub struct Thing {
    pub id: String,
    pub tenant: String,
    pub price: u32,
    pub embedding: Option<[f32; 3]>,
}

fn thing(id: &str, tenant: &str, price: u32, v: [f32; 3]) -> Thing {
    Thing {
        id: id.into(),
        tenant: tenant.into(),
        price,
        embedding: Some(v),
    }
}

/// The ids the search finds, best first.
async fn near(db: &Db<Embedded>, tenant: &str, v: [f32; 3], below: Option<u32>) -> Vec<String> {
    let mut s = Thing::near(tenant, &v).top_k(100);
    if let Some(p) = below {
        s = s.filter(|f| f.price.lt(&p));
    }
    s.all(db)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.item.id)
        .collect()
}

#[tokio::test]
async fn vector_index_stays_in_sync_with_writes() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<Shelf>("Shelf")?;
    let origin = [0.0, 0.0, 0.0];
    // put
    db.put(&thing("a", "t1", 10, [1.0, 0.0, 0.0])).await?;
    db.put(&thing("b", "t1", 20, [2.0, 0.0, 0.0])).await?;
    assert_eq!(near(&db, "t1", origin, None).await, ["a", "b"]);
    // a put over an item moves its vector
    db.put(&thing("a", "t1", 10, [3.0, 0.0, 0.0])).await?;
    assert_eq!(near(&db, "t1", origin, None).await, ["b", "a"]);
    // update of the vector
    let f = Thing::fields();
    Thing::update("b")
        .set(f.embedding, Some([5.0, 0.0, 0.0]))
        .execute(&db)
        .await?;
    assert_eq!(near(&db, "t1", origin, None).await, ["a", "b"]);
    // update of a filter attribute
    assert_eq!(near(&db, "t1", origin, Some(15)).await, ["a"]);
    Thing::update("a").set(f.price, 99).execute(&db).await?;
    Thing::update("b").set(f.price, 1).execute(&db).await?;
    assert_eq!(near(&db, "t1", origin, Some(15)).await, ["b"]);
    // update of the HASH attribute moves the item to another part
    Thing::update("b")
        .set(f.tenant, "t2".to_string())
        .execute(&db)
        .await?;
    assert_eq!(near(&db, "t1", origin, None).await, ["a"]);
    assert_eq!(near(&db, "t2", origin, None).await, ["b"]);
    // removing the vector takes the item out (sparse)
    Thing::update("a")
        .set(f.embedding, None)
        .execute(&db)
        .await?;
    assert!(near(&db, "t1", origin, None).await.is_empty());
    db.put(&Thing {
        embedding: None,
        ..thing("c", "t1", 1, origin)
    })
    .await?;
    assert!(near(&db, "t1", origin, None).await.is_empty());
    // delete
    db.delete::<Thing>(Thing::key("b")?).await?;
    assert!(near(&db, "t2", origin, None).await.is_empty());
    // transaction: one put, one delete, atomically
    db.put(&thing("d", "t3", 5, [1.0, 1.0, 0.0])).await?;
    let e = thing("e", "t3", 5, [0.0, 1.0, 0.0]);
    Transaction::new()
        .put(&e)
        .delete::<Thing>(Thing::key("d")?)
        .execute(&db)
        .await?;
    assert_eq!(near(&db, "t3", origin, None).await, ["e"]);
    // a cancelled transaction leaves the index as it was
    let f2 = thing("f", "t3", 5, [0.0, 0.5, 0.0]);
    let failed = Transaction::new().put(&f2).create(&e).execute(&db).await;
    assert!(matches!(failed, Err(Error::TransactionCanceled { .. })));
    assert_eq!(near(&db, "t3", origin, None).await, ["e"]);
    // batch: puts and a delete
    let (g, h) = (
        thing("g", "t3", 5, [0.0, 0.0, 0.1]),
        thing("h", "t3", 5, [0.0, 0.0, 9.0]),
    );
    BatchWriter::new()
        .put(&g)
        .put(&h)
        .delete::<Thing>(Thing::key("e")?)
        .execute(&db)
        .await?;
    assert_eq!(near(&db, "t3", origin, None).await, ["g", "h"]);
    Ok(())
}

/// The table as it was before its vector index was declared.
#[derive(Table)]
#[table(name = "Shelf")]
pub struct ShelfWithoutVectors;

#[tokio::test]
async fn vector_index_added_by_update_table_indexes_stored_items() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<ShelfWithoutVectors>("Shelf")?;
    let raw = |id: &str, v: &[f32]| -> Item {
        let mut item = thing(id, "t1", 1, [0.0; 3]).to_item().unwrap();
        item.insert(
            "embedding".into(),
            singletable_core::vector::to_attribute(v).unwrap(),
        );
        item
    };
    db.executor()
        .put_item(singletable_runtime::request::PutItem {
            table: "Shelf".into(),
            item: raw("x", &[1.0, 0.0, 0.0]),
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await?;
    // Before the index exists, any vector goes in.
    db.executor()
        .put_item(singletable_runtime::request::PutItem {
            table: "Shelf".into(),
            item: raw("y", &[1.0, 0.0]),
            condition: None,
            return_old: false,
            return_on_condition_failure: false,
        })
        .await?;
    let plan = db.update_table::<Shelf>(ExtraIndexes::Keep).await?;
    assert_eq!(plan.created, ["Similar"]);
    let found = near(&db, "t1", [0.0; 3], None).await;
    // `y`'s 2-dimensional vector is left out, as DynamoDB's backfill does.
    assert_eq!(found, ["x"]);
    Ok(())
}

fn search(
    index: &str,
    vector: Vec<f32>,
    top_k: u32,
    condition: Option<Condition>,
) -> SearchVectors {
    SearchVectors {
        table: "Shelf".into(),
        index: index.into(),
        vector,
        condition,
        top_k,
        projection: None,
    }
}

fn tenant_is(v: &str) -> Condition {
    Condition::eq("tenant", AttributeValue::S(v.into()))
}

fn validation(r: Result<impl std::fmt::Debug, Error>, message: &str) {
    match r {
        Err(e) => {
            assert_eq!(e.code(), Some("ValidationException"), "{e}");
            assert!(
                e.to_string().contains(message),
                "`{e}` does not say `{message}`"
            );
        }
        Ok(v) => panic!("accepted: {v:?}; expected `{message}`"),
    }
}

#[tokio::test]
async fn vector_validation_errors_match_dynamodb() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<Shelf>("Shelf")?;
    db.put(&thing("a", "t1", 1, [1.0, 0.0, 0.0])).await?;
    let x = db.executor();
    let v = vec![1.0, 0.0, 0.0];
    // The messages the developer guide's troubleshooting table quotes.
    for k in [0, 101] {
        let r = x
            .search_vectors(search("Similar", v.clone(), k, Some(tenant_is("t1"))))
            .await;
        validation(r, "Provided TopK value is out of valid range");
    }
    let r = x
        .search_vectors(search("Similar", v.clone(), 5, None))
        .await;
    validation(
        r,
        "SearchConditionExpression must be provided when SearchSchema has a HASH key",
    );
    let on_price_only = Condition::Compare(
        Operand::Path("price".into()),
        Cmp::Lt,
        Operand::Value(AttributeValue::N("5".into())),
    );
    let r = x
        .search_vectors(search("Similar", v.clone(), 5, Some(on_price_only)))
        .await;
    validation(
        r,
        "SearchConditionExpression must be provided when SearchSchema has a HASH key",
    );
    let range_on_hash = Condition::Compare(
        Operand::Path("tenant".into()),
        Cmp::Gt,
        Operand::Value(AttributeValue::S("t".into())),
    );
    let r = x
        .search_vectors(search("Similar", v.clone(), 5, Some(range_on_hash)))
        .await;
    validation(r, "Invalid comparator used in SearchConditionExpression");
    let r = x
        .search_vectors(search("Missing", v.clone(), 5, Some(tenant_is("t1"))))
        .await;
    validation(r, "The table does not have the specified index: Missing");
    let r = x
        .search_vectors(search("Similar", vec![1.0], 5, Some(tenant_is("t1"))))
        .await;
    validation(r, "dimensions");
    // A write whose vector has other dimensions, or is not a list of
    // numbers, is refused; the item stays as it was.
    let mut item = thing("a", "t1", 1, [0.0; 3]).to_item()?;
    item.insert(
        "embedding".into(),
        singletable_core::vector::to_attribute(&[1.0, 2.0]).unwrap(),
    );
    let put = |item: Item| singletable_runtime::request::PutItem {
        table: "Shelf".into(),
        item,
        condition: None,
        return_old: false,
        return_on_condition_failure: false,
    };
    validation(x.put_item(put(item.clone())).await, "dimensions");
    item.insert("embedding".into(), AttributeValue::S("[1,2,3]".into()));
    validation(x.put_item(put(item)).await, "Invalid parameter type");
    let found = x
        .search_vectors(search("Similar", v.clone(), 5, Some(tenant_is("t1"))))
        .await?;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].score, 0.0);
    // The typed API refuses what it can tell before sending: nothing is sent.
    let counted = Db::with_executor(Counting::new(db.executor().clone()), "Shelf");
    let r = Thing::near("t1", &[1.0, f32::NAN, 0.0]).all(&counted).await;
    assert!(matches!(
        r,
        Err(Error::InvalidVector {
            index: "Similar",
            problem: VectorProblem::NotFinite { at: 1 }
        })
    ));
    let r = Thing::near("t1", &[1.0]).all(&counted).await;
    assert!(matches!(
        r,
        Err(Error::InvalidVector {
            problem: VectorProblem::Dimensions {
                expected: 3,
                found: 1
            },
            ..
        })
    ));
    let r = Thing::near("t1", &v).top_k(101).all(&counted).await;
    assert!(matches!(
        r,
        Err(Error::InvalidVector {
            problem: VectorProblem::TopK(101),
            ..
        })
    ));
    let r = counted
        .put(&Thing {
            embedding: Some([0.0, f32::INFINITY, 0.0]),
            ..thing("z", "t1", 1, [0.0; 3])
        })
        .await;
    assert!(
        matches!(
            r,
            Err(Error::InvalidVector {
                problem: VectorProblem::NotFinite { at: 1 },
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(counted.executor().count(), 0);
    Ok(())
}

/// A `Vec<f32>` field is checked against the index at write time.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Docs, name = "Loose")]
#[pk("LOOSE#<id>")]
#[sk("LOOSE")]
#[vector1(vector = cos, hash(tenant))]
pub struct Loose {
    pub id: String,
    pub tenant: String,
    pub cos: Vec<f32>,
}

#[tokio::test]
async fn vector_fields_are_checked_before_writes() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    let short = Loose {
        id: "l".into(),
        tenant: "acme".into(),
        cos: vec![1.0; 3],
    };
    let r = db.put(&short).await;
    assert!(
        matches!(
            r,
            Err(Error::InvalidVector {
                problem: VectorProblem::Dimensions {
                    expected: 8,
                    found: 3
                },
                ..
            })
        ),
        "{r:?}"
    );
    let r = Transaction::new().put(&short).execute(&db).await;
    assert!(matches!(r, Err(Error::InvalidVector { .. })), "{r:?}");
    assert!(db.get::<Loose>(Loose::key("l")?).await?.is_none());
    Ok(())
}

#[tokio::test]
async fn vector_indexes_survive_a_snapshot() -> singletable::Result<()> {
    let db = Db::<Embedded>::in_memory::<Shelf>("Shelf")?;
    db.put(&thing("a", "t1", 1, [1.0, 0.0, 0.0])).await?;
    db.put(&thing("b", "t1", 2, [0.0, 3.0, 0.0])).await?;
    let dir = std::env::temp_dir().join(format!("singletable-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("snapshot.json");
    db.executor().save(&file)?;
    let loaded = Db::with_executor(Embedded::load(&file)?, "Shelf");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(near(&loaded, "t1", [0.0, 2.0, 0.0], None).await, ["b", "a"]);
    let schema = loaded.executor().schema("Shelf").unwrap();
    assert_eq!(schema.vectors[0].name, "Similar");
    Ok(())
}
