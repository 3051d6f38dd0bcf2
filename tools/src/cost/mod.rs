//! What a design costs: a workload declared in code beside the design
//! (rates per access pattern, writes and sizes per entity), priced from the
//! declarations by DynamoDB's capacity rules (the core's, which the
//! embedded backend meters with) and a price table that is data.
//!
//! The report gives, for every access pattern and write path, the read and
//! write units per request and per second; the storage of the table and of
//! each index; the money per month on demand, provisioned at a target
//! utilisation, in the Standard and the Standard-IA table classes; which
//! pattern and which index dominate; and the partitions that a constant or
//! few-valued key makes hot, with the write shards that keep them under
//! DynamoDB's per-partition limits. As JSON (serde) and as a Markdown
//! section. docs/cost.md works examples by hand.
//!
//! ```
//! use singletable::cost::{EntityLoad, PatternLoad, Prices, Rate, Workload};
//! use singletable::{Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1)]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("ORDER#<id>")]
//! #[sk("ORDER")]
//! #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>")]
//! #[access(by_status, index = gsi1)]
//! pub struct Order { pub id: String, pub status: String }
//!
//! // A renamed pattern is a compile error here, not a stale row.
//! let workload = Workload::<App>::new()
//!     .pattern::<OrderByStatusQuery>(PatternLoad::new(Rate::new(10.0, 50.0), 20))
//!     .entity::<Order>(EntityLoad::sized(1_000_000, 600).creates(Rate::new(5.0, 20.0)));
//! let report = workload.report(&Prices::us_east_1(), 0.7)?;
//! // 20 items of 600 bytes: 12,000 bytes, 3 blocks of 4 KB, eventually consistent.
//! assert_eq!(report.patterns[0].units_per_request, 1.5);
//! // A 600-byte item and its GSI1 entry: one write unit each.
//! assert_eq!(report.writes[0].units_per_request, 2.0);
//! assert!(report.markdown().contains("| by_status |"));
//! # Ok::<(), singletable::cost::CostError>(())
//! ```

mod chart;
mod measured;
mod prices;
mod report;

use std::marker::PhantomData;

use singletable_runtime::capacity::Read;
use singletable_runtime::entity::AccessPattern;
use singletable_runtime::shape::EntityShape;
use singletable_runtime::{Entity, Item, Table};

pub use prices::{ClassPrices, Prices};
pub use report::{CostReport, HotPartition, IndexCost, Monthly, PatternCost, WritePathCost};
pub use singletable_runtime::cost::{Measured, Recorder};

/// Requests (or writes) per second: on average, and at peak.
///
/// ```
/// use singletable::cost::Rate;
///
/// let r = Rate::new(100.0, 400.0);
/// assert_eq!((r.avg, r.peak), (100.0, 400.0));
/// assert_eq!(Rate::ZERO.peak, 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rate {
    /// Average per second over the month (what on-demand bills).
    pub avg: f64,
    /// Peak per second (what provisioned capacity and partitions must serve).
    pub peak: f64,
}

impl Rate {
    /// No requests.
    pub const ZERO: Rate = Rate {
        avg: 0.0,
        peak: 0.0,
    };

    /// `avg` per second on average, `peak` at peak.
    ///
    /// ```
    /// use singletable::cost::Rate;
    /// assert_eq!(Rate::new(1.0, 2.0).peak, 2.0);
    /// ```
    pub const fn new(avg: f64, peak: f64) -> Rate {
        Rate { avg, peak }
    }

    fn check(&self, what: impl Fn() -> String) -> Result<(), CostError> {
        let ok = self.avg.is_finite()
            && self.peak.is_finite()
            && self.avg >= 0.0
            && self.peak >= self.avg;
        if ok {
            Ok(())
        } else {
            Err(CostError::InvalidRate {
                what: what(),
                avg: self.avg,
                peak: self.peak,
            })
        }
    }
}

/// The load of one access pattern: its rate, the items a page reads, the
/// pages a request reads, the items the filter keeps, the consistency.
///
/// ```
/// use singletable::cost::{PatternLoad, Rate};
///
/// let load = PatternLoad::new(Rate::new(5.0, 20.0), 25).pages(2).returning(5).strong();
/// assert_eq!((load.items, load.pages, load.returned), (25, 2, Some(5)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatternLoad {
    /// Requests per second.
    pub rate: Rate,
    /// Items a page reads (before any filter).
    pub items: u32,
    /// Pages a request reads (1 unless it follows cursors).
    pub pages: u32,
    /// Items per page a filter keeps (`None`: no filter, all of them).
    pub returned: Option<u32>,
    /// Eventually consistent (the default) or strongly consistent.
    pub read: Read,
}

impl PatternLoad {
    /// `rate` requests of one page of `items` items, eventually
    /// consistent, without filter.
    ///
    /// ```
    /// use singletable::cost::{PatternLoad, Rate};
    /// use singletable::capacity::Read;
    ///
    /// let load = PatternLoad::new(Rate::new(1.0, 1.0), 10);
    /// assert_eq!((load.pages, load.returned, load.read), (1, None, Read::Eventual));
    /// ```
    pub fn new(rate: Rate, items: u32) -> PatternLoad {
        PatternLoad {
            rate,
            items,
            pages: 1,
            returned: None,
            read: Read::Eventual,
        }
    }

    /// Strongly consistent reads (the table and local indexes only).
    ///
    /// ```
    /// use singletable::cost::{PatternLoad, Rate};
    /// use singletable::capacity::Read;
    /// assert_eq!(PatternLoad::new(Rate::ZERO, 1).strong().read, Read::Strong);
    /// ```
    pub fn strong(mut self) -> PatternLoad {
        self.read = Read::Strong;
        self
    }

    /// Each request reads `pages` pages.
    ///
    /// ```
    /// use singletable::cost::{PatternLoad, Rate};
    /// assert_eq!(PatternLoad::new(Rate::ZERO, 1).pages(3).pages, 3);
    /// ```
    pub fn pages(mut self, pages: u32) -> PatternLoad {
        self.pages = pages;
        self
    }

    /// A filter keeps `returned` of the items each page reads (it still
    /// pays for all of them).
    ///
    /// ```
    /// use singletable::cost::{PatternLoad, Rate};
    /// assert_eq!(PatternLoad::new(Rate::ZERO, 10).returning(1).returned, Some(1));
    /// ```
    pub fn returning(mut self, returned: u32) -> PatternLoad {
        self.returned = Some(returned);
        self
    }
}

/// The data and writes of one entity: how many items, how large, how often
/// created, updated, deleted and read by key, and how often each sparse
/// index holds one.
///
/// The size is a sample item's (exact, for the table and every index's
/// projection) or a given size (every index entry is then counted at the
/// whole item's size, an upper bound for `keys_only` and `include`).
///
/// ```
/// use singletable::cost::{EntityLoad, Rate};
///
/// let load = EntityLoad::sized(10_000, 700)
///     .creates(Rate::new(1.0, 5.0))
///     .updates(Rate::new(2.0, 10.0))
///     .deletes(Rate::new(0.5, 1.0))
///     .in_index("gsi1", 0.1);
/// assert_eq!(load.item_bytes(), 700);
/// ```
#[derive(Debug, Clone)]
pub struct EntityLoad {
    count: u64,
    bytes: usize,
    sample: Option<Item>,
    creates: Rate,
    updates: Rate,
    deletes: Rate,
    gets: Rate,
    get_read: Read,
    transactional: bool,
    key_changes: Vec<(String, f64)>,
    present: Vec<(String, f64)>,
}

impl EntityLoad {
    /// `count` items of `bytes` bytes each (DynamoDB's size: attribute
    /// names plus values).
    ///
    /// ```
    /// use singletable::cost::EntityLoad;
    /// assert_eq!(EntityLoad::sized(1, 1024).item_bytes(), 1024);
    /// ```
    pub fn sized(count: u64, bytes: usize) -> EntityLoad {
        EntityLoad {
            count,
            bytes,
            sample: None,
            creates: Rate::ZERO,
            updates: Rate::ZERO,
            deletes: Rate::ZERO,
            gets: Rate::ZERO,
            get_read: Read::Eventual,
            transactional: false,
            key_changes: Vec::new(),
            present: Vec::new(),
        }
    }

    /// `count` items like `sample`: its item as written (keys, index keys,
    /// entity type and all) gives the size of the item and of each index
    /// entry by the index's projection.
    ///
    /// ```
    /// use singletable::cost::EntityLoad;
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// pub struct User { pub id: String }
    ///
    /// let load = EntityLoad::sample(5, &User { id: "ana".into() })?;
    /// // PK "USER#ana" (2 + 8), SK "PROFILE" (2 + 7), entityType "User" (10 + 4), id "ana" (2 + 3).
    /// assert_eq!(load.item_bytes(), 10 + 9 + 14 + 5);
    /// # Ok::<(), singletable::cost::CostError>(())
    /// ```
    pub fn sample<E: Entity>(count: u64, sample: &E) -> Result<EntityLoad, CostError> {
        let item = sample.to_item().map_err(|source| CostError::Sample {
            entity: E::SHAPE.name,
            source: Box::new(source),
        })?;
        let mut load = EntityLoad::sized(count, singletable_runtime::size::item_size(&item));
        load.sample = Some(item);
        Ok(load)
    }

    /// Items created per second (PutItem, or a transaction with the
    /// unique markers).
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Rate};
    /// let _ = EntityLoad::sized(1, 1).creates(Rate::new(1.0, 2.0));
    /// ```
    pub fn creates(mut self, rate: Rate) -> EntityLoad {
        self.creates = rate;
        self
    }

    /// Items updated per second (billed on the whole item's size).
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Rate};
    /// let _ = EntityLoad::sized(1, 1).updates(Rate::new(1.0, 2.0));
    /// ```
    pub fn updates(mut self, rate: Rate) -> EntityLoad {
        self.updates = rate;
        self
    }

    /// Items deleted per second.
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Rate};
    /// let _ = EntityLoad::sized(1, 1).deletes(Rate::new(1.0, 2.0));
    /// ```
    pub fn deletes(mut self, rate: Rate) -> EntityLoad {
        self.deletes = rate;
        self
    }

    /// Items read by primary key per second (GetItem), with `read`
    /// consistency (`Read::Transactional`: inside TransactGetItems).
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Rate};
    /// use singletable::capacity::Read;
    /// let _ = EntityLoad::sized(1, 1).gets(Rate::new(1.0, 2.0), Read::Strong);
    /// ```
    pub fn gets(mut self, rate: Rate, read: Read) -> EntityLoad {
        self.gets = rate;
        self.get_read = read;
        self
    }

    /// Every write of the entity goes through TransactWriteItems (twice
    /// the units).
    ///
    /// ```
    /// use singletable::cost::EntityLoad;
    /// let _ = EntityLoad::sized(1, 1).transactional();
    /// ```
    pub fn transactional(mut self) -> EntityLoad {
        self.transactional = true;
        self
    }

    /// The share of updates (0 to 1) that change the key of index `index`
    /// (`gsi1`): each writes two entries there (the old one removed, the
    /// new one put). Other updates write one entry on indexes that project
    /// more than keys, none on `keys_only` ones.
    ///
    /// ```
    /// use singletable::cost::EntityLoad;
    /// // A quarter of the updates change the status that keys GSI1.
    /// let _ = EntityLoad::sized(1, 1).key_changes("gsi1", 0.25);
    /// ```
    pub fn key_changes(mut self, index: &str, share: f64) -> EntityLoad {
        self.key_changes.retain(|(i, _)| i != index);
        self.key_changes.push((index.to_owned(), share));
        self
    }

    /// The share of items (0 to 1) that a sparse index (`gsi1`, `lsi1`)
    /// holds: its `when` condition true. Without it a sparse index is
    /// counted as holding every item (an upper bound).
    ///
    /// ```
    /// use singletable::cost::EntityLoad;
    /// let _ = EntityLoad::sized(1, 1).in_index("gsi1", 0.05);
    /// ```
    pub fn in_index(mut self, index: &str, share: f64) -> EntityLoad {
        self.present.retain(|(i, _)| i != index);
        self.present.push((index.to_owned(), share));
        self
    }

    /// The item's size in bytes.
    ///
    /// ```
    /// use singletable::cost::EntityLoad;
    /// assert_eq!(EntityLoad::sized(1, 99).item_bytes(), 99);
    /// ```
    pub fn item_bytes(&self) -> usize {
        self.bytes
    }
}

/// A workload declared in code beside the design: per access pattern,
/// named by its marker type (so a renamed pattern does not compile), and
/// per entity. Volumes differ per environment: declare one workload per
/// environment, not in the derive attributes.
///
/// ```
/// use singletable::cost::{EntityLoad, PatternLoad, Prices, Rate, Workload};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("POST#<at>")]
/// #[access(posts)]
/// pub struct Post { pub id: String, pub at: u64 }
///
/// let report = Workload::<App>::new()
///     .pattern::<PostPostsQuery>(PatternLoad::new(Rate::new(100.0, 300.0), 10).strong())
///     .entity::<Post>(EntityLoad::sized(1000, 2000))
///     .report(&Prices::us_east_1(), 0.7)?;
/// // Ten 2,000-byte posts: 20,000 bytes, 5 blocks of 4 KB, strongly consistent.
/// assert_eq!(report.patterns[0].units_per_request, 5.0);
/// assert_eq!(report.patterns[0].peak_per_second, 1500.0);
/// # Ok::<(), singletable::cost::CostError>(())
/// ```
pub struct Workload<T: Table> {
    patterns: Vec<DeclaredPattern>,
    entities: Vec<DeclaredEntity>,
    table: PhantomData<fn() -> T>,
}

struct DeclaredPattern {
    name: &'static str,
    entity: EntityShape,
    entity_type: &'static str,
    load: PatternLoad,
}

struct DeclaredEntity {
    shape: EntityShape,
    entity_type: &'static str,
    unique: usize,
    load: EntityLoad,
}

impl<T: Table> Default for Workload<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Table> Workload<T> {
    /// A workload with nothing declared.
    ///
    /// ```
    /// use singletable::cost::Workload;
    /// # #[derive(singletable::Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// let _ = Workload::<App>::new();
    /// ```
    pub fn new() -> Self {
        Workload {
            patterns: Vec::new(),
            entities: Vec::new(),
            table: PhantomData,
        }
    }

    /// The load of the access pattern whose marker is `P`
    /// (`OrderByStatusQuery` for `#[access(by_status)]` on `Order`); a
    /// second declaration of one pattern replaces the first.
    ///
    /// ```
    /// use singletable::cost::{PatternLoad, Rate, Workload};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("POST#<at>")]
    /// # #[access(posts)]
    /// # pub struct Post { pub id: String, pub at: u64 }
    /// let _ = Workload::<App>::new().pattern::<PostPostsQuery>(PatternLoad::new(Rate::new(1.0, 2.0), 10));
    /// ```
    pub fn pattern<P>(mut self, load: PatternLoad) -> Self
    where
        P: AccessPattern,
        P::Entity: Entity<Table = T>,
    {
        let entity = <P::Entity as Entity>::SHAPE;
        self.patterns
            .retain(|p| !(p.name == P::NAME && p.entity.name == entity.name));
        self.patterns.push(DeclaredPattern {
            name: P::NAME,
            entity,
            entity_type: <P::Entity as Entity>::ENTITY_TYPE,
            load,
        });
        self
    }

    /// The items and writes of entity `E`; a second declaration replaces
    /// the first.
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Workload};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// let _ = Workload::<App>::new().entity::<User>(EntityLoad::sized(100, 300));
    /// ```
    pub fn entity<E: Entity<Table = T>>(mut self, load: EntityLoad) -> Self {
        self.entities.retain(|e| e.shape.name != E::SHAPE.name);
        self.entities.push(DeclaredEntity {
            shape: E::SHAPE,
            entity_type: E::ENTITY_TYPE,
            unique: E::UNIQUE.len(),
            load,
        });
        self
    }

    /// The cost report under `prices`, provisioned capacity set so that the
    /// peak uses `utilisation` of it (0.7: 70%).
    ///
    /// ```
    /// use singletable::cost::{CostError, Prices, Workload};
    /// # #[derive(singletable::Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// let err = Workload::<App>::new().report(&Prices::us_east_1(), 1.5).unwrap_err();
    /// assert!(matches!(err, CostError::InvalidUtilisation(u) if u == 1.5));
    /// ```
    pub fn report(&self, prices: &Prices, utilisation: f64) -> Result<CostReport, CostError> {
        report::build::<T>(&self.patterns, &self.entities, prices, utilisation)
    }

    /// The report with a measurement beside each path: what a
    /// [`Recorder`] measured while a test suite or a load ran
    /// (`recorder.measured()`), priced at the declared rates, and the
    /// [`CostReport::deviations`]: a filter that drops most of what it
    /// reads, items larger or smaller than declared, paths measured but
    /// not declared.
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, PatternLoad, Prices, Rate, Recorder, Workload};
    /// use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<id>")]
    /// #[sk("POST#<at>")]
    /// #[access(posts)]
    /// pub struct Post { pub id: String, pub at: u64, pub body: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let recorder = Recorder::new();
    /// db.record_costs(&recorder)?;
    /// for at in 0..4 {
    ///     db.put(&Post { id: "ana".into(), at, body: "x".repeat(3000) }).await?;
    /// }
    /// Post::posts("ana").all(&db).await?;
    /// // Declared at 100 bytes a post; they are 3 KB.
    /// let report = Workload::<App>::new()
    ///     .pattern::<PostPostsQuery>(PatternLoad::new(Rate::new(10.0, 10.0), 4))
    ///     .entity::<Post>(EntityLoad::sized(1000, 100).creates(Rate::new(1.0, 1.0)))
    ///     .measured_report(&recorder.measured(), &Prices::us_east_1(), 0.7)
    ///     .unwrap();
    /// let posts = &report.patterns[0];
    /// assert_eq!(posts.units_per_request, 0.5);
    /// // 4 items of about 3 KB: 3 blocks of 4 KB, eventually consistent.
    /// assert_eq!(posts.measured.as_ref().unwrap().read_units, 1.5);
    /// assert!(report.deviations.iter().any(|d| d.contains("larger than the declared 100 bytes")));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn measured_report(
        &self,
        measured: &[Measured],
        prices: &Prices,
        utilisation: f64,
    ) -> Result<CostReport, CostError> {
        let mut report = self.report(prices, utilisation)?;
        measured::compare(&mut report, &self.patterns, &self.entities, measured);
        Ok(report)
    }
}

/// Why a workload cannot be priced.
///
/// ```
/// use singletable::cost::{CostError, EntityLoad, Prices, Rate, Workload};
/// # #[derive(singletable::Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(singletable::Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
/// let err = Workload::<App>::new()
///     .entity::<User>(EntityLoad::sized(1, 100).creates(Rate::new(5.0, 1.0)))
///     .report(&Prices::us_east_1(), 0.7)
///     .unwrap_err();
/// assert!(matches!(err, CostError::InvalidRate { .. }));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum CostError {
    /// A rate is negative, not a number, or its peak under its average.
    #[error(
        "{what}: the rate (average {avg}/s, peak {peak}/s) must be finite, at least 0, with the peak at least the average"
    )]
    InvalidRate {
        /// Which rate.
        what: String,
        /// Its average.
        avg: f64,
        /// Its peak.
        peak: f64,
    },
    /// The target utilisation is not in (0, 1].
    #[error("target utilisation {0} is not in (0, 1]")]
    InvalidUtilisation(f64),
    /// A share (sparse index, key changes) is not in [0, 1].
    #[error("entity `{entity}`: {what} {share} is not a share in [0, 1]")]
    InvalidShare {
        /// The entity.
        entity: &'static str,
        /// Which share.
        what: String,
        /// Its value.
        share: f64,
    },
    /// A pattern reads no item, or a request no page.
    #[error(
        "access pattern `{pattern}`: a request reads at least one page (pages = 0), and a filter keeps no more items than it reads"
    )]
    InvalidPage {
        /// The pattern.
        pattern: &'static str,
    },
    /// A pattern's entity has no declared load: its items' size is unknown.
    #[error(
        "access pattern `{pattern}` reads `{entity}` items, but the workload declares no load for `{entity}` (`.entity::<{entity}>(EntityLoad::...)`)"
    )]
    MissingEntity {
        /// The pattern.
        pattern: &'static str,
        /// Its entity.
        entity: &'static str,
    },
    /// Strongly consistent reads on a global secondary index, which
    /// DynamoDB refuses.
    #[error(
        "access pattern `{pattern}` reads global index `{index}` strongly consistent, which DynamoDB refuses"
    )]
    StrongReadOnGlobalIndex {
        /// The pattern.
        pattern: &'static str,
        /// The index.
        index: String,
    },
    /// A Query declared transactional (only TransactGetItems is).
    #[error(
        "access pattern `{pattern}` is a Query: it cannot read inside a transaction (`Read::Transactional` is for gets)"
    )]
    TransactionalQuery {
        /// The pattern.
        pattern: &'static str,
    },
    /// `in_index` or `key_changes` names an index the entity is not
    /// written to.
    #[error("entity `{entity}` declares a share of index `{index}`, which it is not written to")]
    UnknownIndex {
        /// The entity.
        entity: &'static str,
        /// The index named.
        index: String,
    },
    /// The sample item could not be encoded.
    #[error("entity `{entity}`: the sample item does not encode: {source}")]
    Sample {
        /// The entity.
        entity: &'static str,
        /// Why.
        source: Box<singletable_runtime::Error>,
    },
}
