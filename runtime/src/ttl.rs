//! Time to live and automatic timestamps.
//!
//! A `#[attr(ttl)]` field is stored as epoch seconds (`N`), the format
//! DynamoDB's TTL reads. DynamoDB deletes expired items lazily, up to days
//! later, so reads hide them: [`Db::get`](crate::Db::get) and every query
//! leave out items whose TTL is in the past, unless asked not to.
//!
//! `#[attr(created_at)]` and `#[attr(updated_at)]` fields are set by the
//! runtime from the handle's clock: see [`crate::clock`].
//!
//! ```
//! use std::time::{Duration, SystemTime};
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", ttl = "expiresAt")]
//! pub struct App;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = App, rename_all = "camelCase")]
//! #[pk("CODE#<code>")]
//! #[sk("CODE")]
//! pub struct Code {
//!     pub code: String,
//!     #[attr(ttl)]
//!     pub expires_at: Option<SystemTime>, // None: never expires
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?;
//! let in_an_hour = SystemTime::now() + Duration::from_secs(3600);
//! db.put(&Code { code: "live".into(), expires_at: Some(in_an_hour) }).await?;
//! db.put(&Code { code: "gone".into(), expires_at: Some(SystemTime::UNIX_EPOCH) }).await?;
//! db.put(&Code { code: "kept".into(), expires_at: None }).await?;
//! assert!(db.get::<Code>(Code::key("live")?).await?.is_some());
//! assert!(db.get::<Code>(Code::key("gone")?).await?.is_none()); // hidden until DynamoDB deletes it
//! assert!(db.get::<Code>(Code::key("kept")?).await?.is_some());
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{DecodeError, DecodeErrorKind};
use crate::reader::{AttrReader, AttrRef, TableKey};
use crate::value::{AttributeValue, Item};

pub use crate::clock::Timestamp;

/// The current time in epoch seconds, the clock reads compare TTL
/// attributes with (users write `SystemTime::now().to_epoch()`, with
/// [`EpochSeconds`]).
pub(crate) fn now_epoch() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// Types a TTL field can have: epoch seconds, `SystemTime`, UTC timestamps
/// (features `chrono`, `time`), and `Option` of these (no expiry).
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use singletable::ttl::EpochSeconds;
///
/// let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// assert_eq!(t.to_epoch(), Some(1_700_000_000));
/// assert_eq!(Option::<i64>::None.to_epoch(), None);
/// assert_eq!(u64::from_epoch(Some(5))?, 5);
/// assert!(u64::from_epoch(Some(-5)).is_err());
/// # Ok::<(), singletable::DecodeError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a TTL field",
    label = "a TTL is stored as epoch seconds",
    note = "use `i64`, `u64`, `std::time::SystemTime`, a UTC timestamp, or an `Option` of these"
)]
pub trait EpochSeconds: Sized {
    /// The time as epoch seconds; `None` for no expiry.
    fn to_epoch(&self) -> Option<i64>;
    /// The value for `seconds`, `None` when the attribute is absent.
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError>;
}

impl EpochSeconds for i64 {
    fn to_epoch(&self) -> Option<i64> {
        Some(*self)
    }
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError> {
        seconds.ok_or_else(DecodeError::missing)
    }
}

impl EpochSeconds for u64 {
    fn to_epoch(&self) -> Option<i64> {
        Some(i64::try_from(*self).unwrap_or(i64::MAX))
    }
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError> {
        let s = seconds.ok_or_else(DecodeError::missing)?;
        u64::try_from(s).map_err(|_| {
            DecodeError::new(DecodeErrorKind::OutOfRange {
                value: s.to_string(),
                ty: "u64",
            })
        })
    }
}

impl EpochSeconds for SystemTime {
    fn to_epoch(&self) -> Option<i64> {
        Some(match self.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
        })
    }
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError> {
        let s = seconds.ok_or_else(DecodeError::missing)?;
        let d = Duration::from_secs(s.unsigned_abs());
        let t = if s >= 0 {
            UNIX_EPOCH.checked_add(d)
        } else {
            UNIX_EPOCH.checked_sub(d)
        };
        t.ok_or_else(|| {
            DecodeError::new(DecodeErrorKind::Invalid(format!(
                "{s} is out of range for SystemTime"
            )))
        })
    }
}

impl<T: EpochSeconds> EpochSeconds for Option<T> {
    fn to_epoch(&self) -> Option<i64> {
        self.as_ref().and_then(T::to_epoch)
    }
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError> {
        match seconds {
            None => Ok(None),
            Some(s) => T::from_epoch(Some(s)).map(Some),
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
#[cfg(feature = "chrono")]
impl EpochSeconds for chrono::DateTime<chrono::Utc> {
    fn to_epoch(&self) -> Option<i64> {
        Some(self.timestamp())
    }
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError> {
        let s = seconds.ok_or_else(DecodeError::missing)?;
        chrono::DateTime::from_timestamp(s, 0).ok_or_else(|| {
            DecodeError::new(DecodeErrorKind::Invalid(format!(
                "{s} is out of range for DateTime"
            )))
        })
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
#[cfg(feature = "time")]
impl EpochSeconds for time::OffsetDateTime {
    fn to_epoch(&self) -> Option<i64> {
        Some(self.unix_timestamp())
    }
    fn from_epoch(seconds: Option<i64>) -> Result<Self, DecodeError> {
        let s = seconds.ok_or_else(DecodeError::missing)?;
        time::OffsetDateTime::from_unix_timestamp(s).map_err(|_| {
            DecodeError::new(DecodeErrorKind::Invalid(format!(
                "{s} is out of range for OffsetDateTime"
            )))
        })
    }
}

/// Whether `item`'s TTL attribute `attribute` is in the past (at or
/// before `now`, in epoch seconds): the test reads apply to hide items
/// DynamoDB has not deleted yet. No TTL attribute: never.
pub(crate) fn is_expired(item: &Item, attribute: Option<&str>, now: i64) -> bool {
    let Some(attr) = attribute else {
        return false;
    };
    match item.get(attr) {
        Some(AttributeValue::N(n)) => passed(n, now),
        _ => false,
    }
}

/// Whether epoch seconds `n` (a DynamoDB number) are at or before `now`.
fn passed(n: &str, now: i64) -> bool {
    n.parse::<i64>().is_ok_and(|t| t <= now)
}

/// What reads hide: items whose TTL attribute has passed, which DynamoDB
/// deletes only lazily. One per read; the clock is read only when the
/// table has a TTL attribute.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expiry {
    attribute: Option<&'static str>,
    now: i64,
}

impl Expiry {
    /// Hides items whose `attribute` has passed; `None` hides nothing.
    pub(crate) fn new(attribute: Option<&'static str>) -> Self {
        Self {
            attribute,
            now: if attribute.is_some() { now_epoch() } else { 0 },
        }
    }

    /// Whether no item is hidden (the table has no TTL attribute, or the
    /// read includes expired items): readers then need no watch.
    pub(crate) fn hides_nothing(&self) -> bool {
        self.attribute.is_none()
    }

    /// Whether `item` is hidden.
    pub(crate) fn hides(&self, item: &Item) -> bool {
        is_expired(item, self.attribute, self.now)
    }

    /// Reads an item with `read`, watching its TTL attribute on the way:
    /// `None` when the item is hidden.
    pub(crate) fn read<R: AttrReader + ?Sized, T>(
        &self,
        item: &mut R,
        read: impl FnOnce(&mut TtlWatch<'_, R>) -> T,
    ) -> Option<T> {
        let mut watch = TtlWatch {
            inner: item,
            expiry: *self,
            expired: false,
            key_expired: std::cell::Cell::new(false),
        };
        let out = read(&mut watch);
        (!watch.expired && !watch.key_expired.get()).then_some(out)
    }
}

/// Reads an item through, noting whether its TTL attribute has passed.
pub(crate) struct TtlWatch<'r, R: AttrReader + ?Sized> {
    inner: &'r mut R,
    expiry: Expiry,
    expired: bool,
    /// The TTL attribute is a key attribute the inner reader lent, and has
    /// passed.
    key_expired: std::cell::Cell<bool>,
}

/// Notes in `expired` whether attribute `name` is the TTL attribute and has
/// passed.
fn see(expiry: Expiry, expired: &mut bool, name: &str, value: &AttrRef<'_>) {
    if expiry.attribute == Some(name) {
        *expired = value.as_n().is_some_and(|n| passed(n, expiry.now));
    }
}

impl<R: AttrReader + ?Sized> AttrReader for TtlWatch<'_, R> {
    fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let attr = self.inner.next_attr()?;
        if let Ok((name, value)) = &attr {
            see(self.expiry, &mut self.expired, name, value);
        }
        Some(attr)
    }

    fn next_data_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let attr = self.inner.next_data_attr()?;
        if let Ok((name, value)) = &attr {
            see(self.expiry, &mut self.expired, name, value);
        }
        Some(attr)
    }

    fn next_field_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let attr = self.inner.next_field_attr()?;
        if let Ok((name, value)) = &attr {
            see(self.expiry, &mut self.expired, name, value);
        }
        Some(attr)
    }

    fn next_numbered(
        &mut self,
        numbering: &'static crate::reader::Numbering,
    ) -> Option<crate::reader::NumberedAttr<'_>> {
        let attr = self.inner.next_numbered(numbering)?;
        if let Ok((_, name, value)) = &attr {
            see(self.expiry, &mut self.expired, name, value);
        }
        Some(attr)
    }

    /// The inner reader's key; a key attribute that is the TTL attribute
    /// (a number sort key) is seen when the key is read, as the decoders
    /// read it after the other attributes.
    fn table_key(
        &self,
        pk: &'static str,
        sk: Option<&'static str>,
    ) -> Option<Result<TableKey<'_>, DecodeError>> {
        let key = self.inner.table_key(pk, sk)?;
        if let (Ok(k), Some(attribute)) = (&key, self.expiry.attribute) {
            let stored = if attribute == pk {
                &k.pk
            } else if Some(attribute) == sk {
                &k.sk
            } else {
                &None
            };
            if let Some(v) = stored {
                let mut expired = self.key_expired.get();
                see(self.expiry, &mut expired, attribute, &v.as_attr_ref());
                self.key_expired.set(expired);
            }
        }
        Some(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An item expires at its TTL second, not before; without a TTL
    /// attribute, never.
    #[test]
    fn expiry_is_at_or_before_now() {
        let item: Item = [("exp".to_string(), AttributeValue::N("100".into()))].into();
        assert!(is_expired(&item, Some("exp"), 100));
        assert!(!is_expired(&item, Some("exp"), 99));
        assert!(!is_expired(&item, None, 1_000));
        assert!(now_epoch() > 1_700_000_000);
    }
}
