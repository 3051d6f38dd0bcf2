//! The time writes stamp into `#[attr(created_at)]` and `#[attr(updated_at)]`
//! fields.
//!
//! Every write reads its handle's [`Clock`] once and carries that reading as
//! a [`Stamp`]: the stamped fields are set first, then every key attribute
//! is built from the stamped values, so an index keyed on `created_at` or
//! `updated_at` always agrees with the stored attribute. On a create both
//! fields hold the same instant.
//!
//! What a write does with `created_at`:
//!
//! | write | `created_at` |
//! |---|---|
//! | `create`, `put_versioned` of version 0, transaction `create`, an upsert that creates | the write's time |
//! | any other put, when the struct's field is set (an item read from the table has it) | the struct's value |
//! | `Db::put`, `replace`, `put_if`, `put_versioned`, `put_returning_old`, when the field is empty | the stored item's creation time if the item exists, else the write's time (see below) |
//! | a transaction put whose field is empty | the write's time, and the put also requires that the stored item has no creation time |
//! | a batch put whose field is empty | refused: a batch cannot condition, so it could not keep a stored creation time |
//!
//! An empty field is `String::new()`, `0`, the Unix epoch or `None`
//! ([`Timestamp::is_unset`]). A `Db` put of an empty field is sent
//! conditioned on the stored item having no creation time; when it has one,
//! DynamoDB returns the item with the failure and the put is sent again
//! with that creation time (conditioned on it still being the stored one):
//! one request for a new item, two for an existing one. A stored creation
//! time is never replaced by a put that did not name it.
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use singletable::clock::Clock;
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = App)]
//! #[pk("NOTE#<id>")]
//! #[sk("NOTE")]
//! pub struct Note {
//!     pub id: String,
//!     #[attr(created_at)]
//!     pub created: u64,
//!     #[attr(updated_at)]
//!     pub updated: u64,
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // A fixed clock, for tests: every stamp is this instant.
//! let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
//! let db = Db::<Embedded>::in_memory::<App>("App")?.with_clock(Clock::fixed(at));
//! db.create(&Note { id: "n1".into(), created: 0, updated: 0 }).await?;
//! let note = db.get::<Note>(Note::key("n1")?).await?.unwrap();
//! assert_eq!((note.created, note.updated), (1_700_000_000, 1_700_000_000));
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! The stamp, the timestamp fields and the [`Timestamp`] types are
//! core's, re-exported here; the [`Clock`] a handle reads is the
//! runtime's.

use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

pub use singletable_core::clock::*;

/// Where a `Db` handle reads the time for automatic timestamps:
/// the system clock by default; tests set a fixed or scripted one with
/// `Db::with_clock`.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use singletable::Clock;
///
/// let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// assert_eq!(Clock::fixed(at).now(), at);
/// assert!(Clock::system().now() > at);
/// ```
#[derive(Clone, Default)]
pub struct Clock(Source);

#[derive(Clone, Default)]
enum Source {
    #[default]
    System,
    Fixed(SystemTime),
    Function(Arc<dyn Fn() -> SystemTime + Send + Sync>),
}

impl Clock {
    /// The system clock (`SystemTime::now`).
    pub fn system() -> Self {
        Self(Source::System)
    }

    /// A clock that always reads `at`.
    pub fn fixed(at: SystemTime) -> Self {
        Self(Source::Fixed(at))
    }

    /// A clock that reads `now()`: a test can move time forward through
    /// shared state.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use singletable::Clock;
    ///
    /// let secs = Arc::new(AtomicU64::new(100));
    /// let shared = secs.clone();
    /// let clock = Clock::from_fn(move || UNIX_EPOCH + Duration::from_secs(shared.load(Ordering::SeqCst)));
    /// secs.store(200, Ordering::SeqCst);
    /// assert_eq!(clock.now(), UNIX_EPOCH + Duration::from_secs(200));
    /// ```
    pub fn from_fn(now: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        Self(Source::Function(Arc::new(now)))
    }

    /// Reads the clock.
    pub fn now(&self) -> SystemTime {
        match &self.0 {
            Source::System => SystemTime::now(),
            Source::Fixed(at) => *at,
            Source::Function(now) => now(),
        }
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::System => f.write_str("Clock::system()"),
            Source::Fixed(at) => write!(f, "Clock::fixed({at:?})"),
            Source::Function(_) => f.write_str("Clock::from_fn(..)"),
        }
    }
}
