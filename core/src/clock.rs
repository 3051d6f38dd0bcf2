//! The automatic timestamps of `#[attr(created_at)]` and
//! `#[attr(updated_at)]` fields, as generated code and the item codec
//! see them: the [`Stamp`] a write carries (one reading of the handle's
//! clock, and where `created_at` comes from), the [`AutoTime`] fields an
//! entity declares, and the [`Timestamp`] types such a field may have.
//! The clock a handle reads, and what each write stamps, are the
//! runtime's (`singletable::clock`).
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use singletable_core::clock::{Created, Stamp, Timestamp};
//!
//! let stamp = Stamp::new(UNIX_EPOCH + Duration::from_secs(60), Created::Now);
//! assert_eq!(u64::at(stamp.now()), 60);
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{DecodeError, Error};
use crate::value::{Attr, AttributeValue, Item};

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
/// use singletable_core::clock::TimeKind;
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
/// use singletable_core::clock::AutoTime;
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
    /// The value at `time`. A time outside the years 0000 to 9999 (UTC),
    /// which RFC 3339 cannot spell, gives the value of the nearest time in
    /// them (the first or the last microsecond): a clock set that far off
    /// stamps a readable value rather than fail or panic. Before the epoch
    /// the value is rounded down (`i64::at` of half a second before it is
    /// `-1`), as after it.
    fn at(time: SystemTime) -> Self;

    /// Whether the value is empty (`String::new()`, `0`, the epoch, `None`):
    /// a write stamps an empty `created_at` instead of storing it.
    fn is_unset(&self) -> bool;

    /// The value now, from the system clock.
    fn now() -> Self {
        Self::at(SystemTime::now())
    }
}

/// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds from the
/// Unix epoch: the times RFC 3339 spells (four-digit years).
const FIRST_SECOND: i64 = -62_167_219_200;
const END_SECOND: i64 = 253_402_300_800;

/// `time`, or the nearest time of years 0000 to 9999 when it is outside
/// them: a clock that far off stamps the first or the last instant RFC 3339
/// spells rather than a value no other client can read (or a panic in the
/// `chrono` and `time` conversions). Every [`Timestamp`] goes through it.
fn in_range(time: SystemTime) -> SystemTime {
    // `None`: the platform's `SystemTime` cannot reach that far, so no
    // time is beyond it.
    let first = UNIX_EPOCH.checked_sub(Duration::from_secs(FIRST_SECOND.unsigned_abs()));
    let end = UNIX_EPOCH.checked_add(Duration::from_secs(END_SECOND.unsigned_abs()));
    match (first, end) {
        (Some(first), _) if time < first => first,
        (_, Some(end)) if time >= end => end - Duration::from_nanos(1),
        _ => time,
    }
}

/// `time` ([`in_range`]) as whole seconds from the Unix epoch (rounded
/// down, before the epoch too) and the microseconds past them.
fn seconds_and_micros(time: SystemTime) -> (i64, u32) {
    match in_range(time).duration_since(UNIX_EPOCH) {
        Ok(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            d.subsec_micros(),
        ),
        Err(e) => {
            let d = e.duration();
            let secs = -i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            // Round the instant down to a whole microsecond, then borrow
            // a second for a fraction before the epoch.
            match d.subsec_nanos().div_ceil(1000) {
                0 => (secs, 0),
                1_000_000 => (secs.saturating_sub(1), 0),
                m => (secs.saturating_sub(1), 1_000_000 - m),
            }
        }
    }
}

fn epoch_seconds(time: SystemTime) -> i64 {
    seconds_and_micros(time).0
}

/// `time` in RFC 3339, UTC, with six fractional digits
/// (`2023-11-14T22:13:20.000001Z`): 27 bytes for every time, so text order
/// is time order. Years 0000 to 9999 (see [`in_range`]).
fn rfc3339_micros(time: SystemTime) -> String {
    let (secs, micros) = seconds_and_micros(time);
    let (days, of_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`: eras of 400 years, years starting in
/// March so the leap day ends them).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl Timestamp for String {
    fn at(time: SystemTime) -> Self {
        rfc3339_micros(time)
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
        chrono::DateTime::<chrono::Utc>::from(in_range(time))
    }
    fn is_unset(&self) -> bool {
        self.timestamp() == 0 && self.timestamp_subsec_nanos() == 0
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
#[cfg(feature = "time")]
impl Timestamp for time::OffsetDateTime {
    fn at(time: SystemTime) -> Self {
        time::OffsetDateTime::from(in_range(time))
    }
    fn is_unset(&self) -> bool {
        *self == time::OffsetDateTime::UNIX_EPOCH
    }
}

pub(crate) mod generated;
#[cfg(test)]
use generated::created_value;

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

    /// A time `secs` seconds and `micros` microseconds from the epoch
    /// (`secs` may be negative).
    fn at_secs(secs: i64, micros: u32) -> SystemTime {
        let base = if secs >= 0 {
            UNIX_EPOCH + Duration::from_secs(secs.unsigned_abs())
        } else {
            UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
        };
        base + Duration::from_micros(u64::from(micros))
    }

    /// 400 Gregorian years, in seconds: the calendar repeats after them.
    const CYCLE: i64 = 146_097 * 86_400;

    /// 20,000 pseudo-random words (xorshift), from `seed`.
    fn words(mut x: u64) -> impl Iterator<Item = u64> {
        (0..20_000).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
    }

    #[test]
    fn strings_match_an_independent_formatter_after_1970() {
        // humantime (a dev-dependency here) formats times after the epoch.
        for (i, x) in words(0x9E37_79B9_7F4A_7C15).enumerate() {
            let secs = (x % END_SECOND as u64) as i64;
            let micros = (x >> 40) as u32 % 1_000_000;
            let t = at_secs(secs, if i % 3 == 0 { 0 } else { micros });
            assert_eq!(
                String::at(t),
                humantime::format_rfc3339_micros(t).to_string(),
                "{secs}.{micros}"
            );
        }
    }

    #[test]
    fn strings_before_1970_follow_the_400_year_cycle() {
        // Five cycles later the calendar is the same, 2000 years on, and
        // after the epoch, where the formatter above is checked.
        for x in words(0xD1B5_4A32_D192_ED03) {
            let secs = FIRST_SECOND + (x % FIRST_SECOND.unsigned_abs()) as i64;
            let micros = (x >> 40) as u32 % 1_000_000;
            let before = String::at(at_secs(secs, micros));
            let after = String::at(at_secs(secs + 5 * CYCLE, micros));
            let year: i64 = after[..4].parse().unwrap();
            assert_eq!(
                before,
                format!("{:04}{}", year - 2000, &after[4..]),
                "{secs}"
            );
        }
    }

    #[test]
    fn strings_at_the_edges() {
        let cases: [(SystemTime, &str); 9] = [
            (UNIX_EPOCH, "1970-01-01T00:00:00.000000Z"),
            (
                UNIX_EPOCH - Duration::from_micros(1),
                "1969-12-31T23:59:59.999999Z",
            ),
            // Rounded down to the microsecond, before the epoch as after.
            (
                UNIX_EPOCH - Duration::from_nanos(1),
                "1969-12-31T23:59:59.999999Z",
            ),
            (
                UNIX_EPOCH - Duration::from_millis(1500),
                "1969-12-31T23:59:58.500000Z",
            ),
            (at_secs(951_782_400, 0), "2000-02-29T00:00:00.000000Z"),
            (at_secs(-2_203_891_200, 0), "1900-03-01T00:00:00.000000Z"),
            (at_secs(-11_670_998_400, 0), "1600-02-29T00:00:00.000000Z"),
            (at_secs(FIRST_SECOND, 0), "0000-01-01T00:00:00.000000Z"),
            (
                at_secs(END_SECOND - 1, 999_999),
                "9999-12-31T23:59:59.999999Z",
            ),
        ];
        for (t, text) in cases {
            assert_eq!(String::at(t), text);
        }
    }

    #[test]
    fn clocks_outside_the_years_0000_to_9999_stamp_the_nearest_time() {
        let before = at_secs(FIRST_SECOND - 1, 0);
        let far = at_secs(FIRST_SECOND - 400 * CYCLE, 0);
        let after = at_secs(END_SECOND, 0);
        let later = at_secs(END_SECOND + 400 * CYCLE, 5);
        for t in [before, far] {
            assert_eq!(String::at(t), "0000-01-01T00:00:00.000000Z");
            assert_eq!(i64::at(t), FIRST_SECOND);
            assert_eq!(u64::at(t), 0);
        }
        for t in [after, later] {
            assert_eq!(String::at(t), "9999-12-31T23:59:59.999999Z");
            assert_eq!(i64::at(t), END_SECOND - 1);
        }
        #[cfg(feature = "chrono")]
        {
            use chrono::{DateTime, Utc};
            assert_eq!(DateTime::<Utc>::at(far).timestamp(), FIRST_SECOND);
            assert_eq!(DateTime::<Utc>::at(later).timestamp(), END_SECOND - 1);
        }
        #[cfg(feature = "time")]
        {
            use ::time::OffsetDateTime;
            assert_eq!(OffsetDateTime::at(far).unix_timestamp(), FIRST_SECOND);
            assert_eq!(OffsetDateTime::at(later).unix_timestamp(), END_SECOND - 1);
        }
        // Epoch seconds round down before the epoch, as the strings do.
        assert_eq!(i64::at(UNIX_EPOCH - Duration::from_millis(500)), -1);
        assert_eq!(i64::at(UNIX_EPOCH + Duration::from_millis(500)), 0);
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
