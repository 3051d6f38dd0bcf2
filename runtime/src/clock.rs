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
//! | [`Db::put`](crate::Db::put), `replace`, `put_if`, `put_when`, `put_versioned`, `put_returning_old`, when the field is empty | the stored item's creation time if the item exists, else the write's time (see below) |
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

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{DecodeError, Error};
use crate::value::{Attr, AttributeValue, Item};

/// Where a [`Db`](crate::Db) handle reads the time for automatic timestamps:
/// the system clock by default; tests set a fixed or scripted one with
/// [`Db::with_clock`](crate::Db::with_clock).
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

/// Where a write's `created_at` comes from.
///
/// ```
/// use std::time::UNIX_EPOCH;
/// use singletable::clock::{Created, Stamp};
///
/// let stamp = Stamp::new(UNIX_EPOCH, Created::Keep);
/// assert_eq!(stamp.created(), &Created::Keep);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Created {
    /// The write creates the item: the write's time.
    Now,
    /// The struct's value when set, the write's time when empty.
    Keep,
    /// The struct's value when set, else this stored item's creation time,
    /// else the write's time.
    Stored(Item),
}

/// One write's automatic timestamps: one reading of the clock, and where
/// `created_at` comes from.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use singletable::clock::{Created, Stamp};
///
/// let stamp = Stamp::new(UNIX_EPOCH + Duration::from_secs(60), Created::Now);
/// assert_eq!(stamp.now(), UNIX_EPOCH + Duration::from_secs(60));
/// assert_eq!(stamp.created(), &Created::Now);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Stamp {
    now: SystemTime,
    created: Created,
}

impl Stamp {
    /// A stamp at `now`.
    pub fn new(now: SystemTime, created: Created) -> Self {
        Self { now, created }
    }

    /// The instant every stamped field of the write holds.
    pub fn now(&self) -> SystemTime {
        self.now
    }

    /// Where `created_at` comes from.
    pub fn created(&self) -> &Created {
        &self.created
    }
}

/// Which automatic timestamp a field is.
///
/// ```
/// use singletable::clock::TimeKind;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("NOTE#<id>")]
/// #[sk("NOTE")]
/// pub struct Note { pub id: String, #[attr(created_at)] pub created: u64, #[attr(updated_at)] pub updated: u64 }
///
/// let kinds: Vec<TimeKind> = Note::TIMESTAMPS.iter().map(|t| t.kind).collect();
/// assert_eq!(kinds, [TimeKind::Created, TimeKind::Updated]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeKind {
    /// `#[attr(created_at)]`.
    Created,
    /// `#[attr(updated_at)]`.
    Updated,
}

/// An automatic timestamp field, as the derive describes it to updates and
/// upserts.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use singletable::clock::AutoTime;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("NOTE#<id>")]
/// #[sk("NOTE")]
/// pub struct Note { pub id: String, #[attr(created_at)] pub created: u64, #[attr(updated_at)] pub updated: u64 }
///
/// let created: &AutoTime = &Note::TIMESTAMPS[0];
/// assert_eq!((created.field, created.attribute), ("created", "created"));
/// let at = (created.value)(UNIX_EPOCH + Duration::from_secs(60))?;
/// assert_eq!(at.as_n().unwrap(), "60"); // u64 fields store epoch seconds
/// assert!(created.key_part.is_none());  // not in a key template
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct AutoTime {
    /// The Rust field name.
    pub field: &'static str,
    /// The stored attribute name.
    pub attribute: &'static str,
    /// Created or updated.
    pub kind: TimeKind,
    /// The stored value at an instant.
    pub value: fn(SystemTime) -> Result<AttributeValue, Error>,
    /// The key part at an instant, for fields used in key templates.
    pub key_part: Option<fn(SystemTime) -> Result<String, Error>>,
}

/// Types an automatic timestamp field can have.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use singletable::clock::Timestamp;
///
/// let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// assert_eq!(String::at(t), "2023-11-14T22:13:20.000000Z");
/// assert_eq!(i64::at(t), 1_700_000_000);
/// assert!(String::new().is_unset() && None::<i64>.is_unset());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an automatic timestamp",
    label = "`created_at`/`updated_at` fields are set to the current time",
    note = "use `String` (RFC 3339 UTC), `i64`/`u64` epoch seconds, a UTC timestamp, or an `Option` of these"
)]
pub trait Timestamp: Attr + Clone {
    /// The value at `time`.
    fn at(time: SystemTime) -> Self;

    /// Whether the value is empty (`String::new()`, `0`, the epoch, `None`):
    /// a write stamps an empty `created_at` instead of storing it.
    fn is_unset(&self) -> bool;

    /// The value now, from the system clock.
    fn now() -> Self {
        Self::at(SystemTime::now())
    }
}

fn epoch_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

impl Timestamp for String {
    fn at(time: SystemTime) -> Self {
        humantime::format_rfc3339_micros(time).to_string()
    }
    fn is_unset(&self) -> bool {
        self.is_empty()
    }
}

impl Timestamp for i64 {
    fn at(time: SystemTime) -> Self {
        epoch_seconds(time)
    }
    fn is_unset(&self) -> bool {
        *self == 0
    }
}

impl Timestamp for u64 {
    fn at(time: SystemTime) -> Self {
        u64::try_from(epoch_seconds(time)).unwrap_or(0)
    }
    fn is_unset(&self) -> bool {
        *self == 0
    }
}

impl<T: Timestamp> Timestamp for Option<T> {
    fn at(time: SystemTime) -> Self {
        Some(T::at(time))
    }
    fn is_unset(&self) -> bool {
        self.as_ref().is_none_or(T::is_unset)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
#[cfg(feature = "chrono")]
impl Timestamp for chrono::DateTime<chrono::Utc> {
    fn at(time: SystemTime) -> Self {
        chrono::DateTime::<chrono::Utc>::from(time)
    }
    fn is_unset(&self) -> bool {
        self.timestamp() == 0 && self.timestamp_subsec_nanos() == 0
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
#[cfg(feature = "time")]
impl Timestamp for time::OffsetDateTime {
    fn at(time: SystemTime) -> Self {
        time::OffsetDateTime::from(time)
    }
    fn is_unset(&self) -> bool {
        *self == time::OffsetDateTime::UNIX_EPOCH
    }
}

/// The `created_at` value a write stores (see [`Created`]). Used by
/// generated code.
#[doc(hidden)]
pub fn created_value<T: Timestamp>(
    current: &T,
    stamp: &Stamp,
    entity: &'static str,
    attribute: &str,
) -> Result<T, Error> {
    match &stamp.created {
        Created::Now => Ok(T::at(stamp.now)),
        Created::Keep | Created::Stored(_) if !current.is_unset() => Ok(current.clone()),
        Created::Stored(item) => match item.get(attribute) {
            Some(AttributeValue::Null(_)) | None => Ok(T::at(stamp.now)),
            Some(v) => T::from_attr(v.clone()).map_err(|e: DecodeError| Error::Decode {
                entity,
                source: e.at(attribute),
            }),
        },
        Created::Keep => Ok(T::at(stamp.now)),
    }
}

/// The `updated_at` value a write stores. Used by generated code.
#[doc(hidden)]
pub fn updated_value<T: Timestamp>(stamp: &Stamp) -> T {
    T::at(stamp.now)
}

/// The stored value of `T` at `time`. Used by generated code.
#[doc(hidden)]
pub fn time_attr<T: Timestamp>(
    time: SystemTime,
    entity: &'static str,
    attribute: &str,
) -> Result<AttributeValue, Error> {
    T::at(time).to_attr().map_err(|e| Error::Encode {
        entity,
        source: e.at(attribute),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn created_value_follows_the_stamp() {
        let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let stored = Item::from([("createdAt".to_owned(), AttributeValue::N("5".into()))]);
        let v = |current: i64, created: Created| {
            created_value(&current, &Stamp::new(at, created), "E", "createdAt").unwrap()
        };
        assert_eq!(v(7, Created::Now), 1_700_000_000);
        assert_eq!(v(7, Created::Keep), 7);
        assert_eq!(v(0, Created::Keep), 1_700_000_000);
        assert_eq!(v(0, Created::Stored(stored.clone())), 5);
        assert_eq!(v(7, Created::Stored(stored)), 7);
        assert_eq!(v(0, Created::Stored(Item::new())), 1_700_000_000);
    }

    #[test]
    fn strings_are_fixed_width_utc() {
        let at = UNIX_EPOCH + Duration::from_micros(1_700_000_000_000_001);
        assert_eq!(String::at(at), "2023-11-14T22:13:20.000001Z");
        assert!(String::new().is_unset());
        assert!(None::<String>.is_unset());
        assert!(!Some(String::at(at)).is_unset());
    }
}
