//! Every timestamp singletable writes reads back as the same instant, in
//! both crates, or is refused; keys are read in the canonical form only.

use chrono::{DateTime, NaiveDate, Utc};
use time::{OffsetDateTime, UtcOffset};

use crate::error::KeyError;
use crate::key::{KeyPart, KeyPartDecode};
use crate::value::{Attr, AttributeValue};

/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds.
const FIRST: i64 = -62_167_219_200;
const LAST: i64 = 253_402_300_799;

fn key<T: KeyPart>(t: &T) -> Result<String, KeyError> {
    let mut out = String::new();
    t.write_key_part(&mut out)?;
    Ok(out)
}

fn attr<T: Attr>(t: &T) -> Option<String> {
    match t.to_attr() {
        Ok(AttributeValue::S(s)) => Some(s),
        Ok(other) => panic!("timestamps are strings, got {other:?}"),
        Err(_) => None,
    }
}

fn chrono_at(secs: i64, nanos: u32) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, nanos).expect("in chrono's range")
}

fn time_at(secs: i64, nanos: u32) -> OffsetDateTime {
    let n = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    OffsetDateTime::from_unix_timestamp_nanos(n).expect("in time's range")
}

/// Writes `t` as an attribute and as a key, checks both are the same
/// canonical text and read back as `t`; returns the text.
fn round_trip<T>(t: T) -> String
where
    T: Attr + KeyPartDecode + PartialEq + std::fmt::Debug + Clone,
{
    let k = key(&t).unwrap_or_else(|e| panic!("{t:?} refused as a key: {e}"));
    let a = attr(&t).unwrap_or_else(|| panic!("{t:?} refused as an attribute"));
    assert_eq!(k, a, "key and attribute spell {t:?} alike");
    assert_eq!(k.len(), 30, "{k}");
    assert_eq!(T::read_key_part(&k).as_ref(), Ok(&t), "key {k}");
    assert_eq!(
        T::from_attr(AttributeValue::S(a.clone())).ok().as_ref(),
        Some(&t),
        "attribute {a}"
    );
    k
}

fn refused<T>(t: T, expected: KeyError)
where
    T: Attr + KeyPart + std::fmt::Debug,
{
    let mut out = String::from("DATE#");
    assert_eq!(t.write_key_part(&mut out), Err(expected), "{t:?}");
    assert_eq!(out, "DATE#", "nothing of a refused key part is written");
    let err = t.to_attr().expect_err("refused as an attribute");
    assert!(err.to_string().starts_with("timestamp "), "{err}");
}

#[test]
fn timestamps_round_trip_or_are_refused() {
    // Leap seconds: chrono has them, nobody reads them back alike.
    let leap = NaiveDate::from_ymd_opt(2016, 12, 31)
        .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_500_000_000))
        .expect("chrono leap second")
        .and_utc();
    refused(leap, KeyError::LeapSecond);
    let before = chrono_at(1_483_228_799, 999_999_999);
    let after = chrono_at(1_483_228_800, 0);
    assert!(before < leap && leap < after);
    for s in [
        "2016-12-31T23:59:60.000000000Z",
        "2016-12-31T23:59:60.500000000Z",
    ] {
        assert!(DateTime::<Utc>::read_key_part(s).is_err(), "{s}");
        assert!(OffsetDateTime::read_key_part(s).is_err(), "{s}");
    }

    // Year bounds, in both crates.
    assert_eq!(
        round_trip(chrono_at(FIRST, 0)),
        "0000-01-01T00:00:00.000000000Z"
    );
    assert_eq!(
        round_trip(chrono_at(LAST, 999_999_999)),
        "9999-12-31T23:59:59.999999999Z"
    );
    assert_eq!(
        round_trip(time_at(FIRST, 0)),
        "0000-01-01T00:00:00.000000000Z"
    );
    assert_eq!(
        round_trip(time_at(LAST, 999_999_999)),
        "9999-12-31T23:59:59.999999999Z"
    );
    refused(chrono_at(FIRST - 1, 999_999_999), KeyError::TimestampRange);
    refused(chrono_at(LAST + 1, 0), KeyError::TimestampRange);
    refused(
        NaiveDate::from_ymd_opt(-1, 6, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .expect("year -1")
            .and_utc(),
        KeyError::TimestampRange,
    );
    refused(
        NaiveDate::from_ymd_opt(10_000, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .expect("year 10000")
            .and_utc(),
        KeyError::TimestampRange,
    );
    refused(time_at(FIRST - 1, 999_999_999), KeyError::TimestampRange);
    // `time` cannot hold year 10000 itself, but an offset can put the
    // UTC instant there (or before year 0), and converting must not
    // panic.
    let offset = |h: i8| UtcOffset::from_hms(h, 0, 0).expect("offset");
    let late = time_at(LAST - 3599, 0).replace_offset(offset(-5));
    refused(late, KeyError::TimestampRange);
    let early = time_at(FIRST, 0).replace_offset(offset(3));
    refused(early, KeyError::TimestampRange);

    // Random instants over the whole range: both crates write the same
    // text, which reads back as the same instant in both.
    let mut rng = fastrand::Rng::with_seed(0x5eed_0010);
    let mut written = Vec::new();
    for i in 0..20_000 {
        let secs = match i % 4 {
            // Near the bounds and near the epoch, then anywhere.
            0 => FIRST + rng.i64(0..1_000_000),
            1 => LAST - rng.i64(0..1_000_000),
            2 => rng.i64(-1_000_000..1_000_000),
            _ => rng.i64(FIRST..=LAST),
        };
        let nanos = match rng.u8(0..4) {
            0 => 0,
            1 => 999_999_999,
            _ => rng.u32(0..1_000_000_000),
        };
        let c = round_trip(chrono_at(secs, nanos));
        let t = time_at(secs, nanos);
        assert_eq!(round_trip(t), c, "chrono and time agree");
        // The offset an OffsetDateTime carries is not part of the instant.
        let local = t.checked_to_offset(offset(rng.i8(-23..=23)));
        if let Some(local) = local {
            assert_eq!(key(&local).as_ref(), Ok(&c));
            assert_eq!(attr(&local).as_ref(), Some(&c));
        }
        written.push(((secs, nanos), c));
    }

    // Key order is time order.
    written.sort_by_key(|w| w.0);
    for pair in written.windows(2) {
        let ((ta, ka), (tb, kb)) = (&pair[0], &pair[1]);
        assert_eq!(ta.cmp(tb), ka.as_bytes().cmp(kb.as_bytes()), "{ka} / {kb}");
    }

    // Keys are read in the canonical spelling only, so two stored keys
    // never decode to one value.
    let canonical = "2024-05-01T12:00:00.000000000Z";
    assert!(DateTime::<Utc>::read_key_part(canonical).is_ok());
    assert!(OffsetDateTime::read_key_part(canonical).is_ok());
    for s in [
        "2024-05-01T12:00:00.000000000+00:00",
        "2024-05-01T14:00:00.000000000+02:00",
        "2024-05-01T14:00:00+02:00",
        "2024-05-01T12:00:00Z",
        "2024-05-01T12:00:00.5Z",
        "2024-05-01T12:00:00.000000Z",
        "2024-05-01T12:00:00.0000000000Z",
        "2024-05-01t12:00:00.000000000Z",
        "2024-05-01T12:00:00.000000000z",
        "2024-05-01t12:00:00.000000000z",
        "2024-05-01 12:00:00.000000000Z",
        "2024-05-01T12:00:00,000000000Z",
        "+024-05-01T12:00:00.000000000Z",
        "-001-05-01T12:00:00.000000000Z",
        "10000-01-01T00:00:00.000000000Z",
        "2024-5-01T12:00:00.000000000Z",
        "2024-05-01T12:00:00.+00000000Z",
        "2024-05-01T12:00:00.-00000000Z",
        "2024-02-30T12:00:00.000000000Z",
        "2023-02-29T12:00:00.000000000Z",
        "2024-13-01T12:00:00.000000000Z",
        "2024-00-01T12:00:00.000000000Z",
        "2024-05-00T12:00:00.000000000Z",
        "2024-05-01T24:00:00.000000000Z",
        "2024-05-01T12:60:00.000000000Z",
        " 2024-05-01T12:00:00.000000000Z",
        "2024-05-01T12:00:00.000000000Z ",
        "2024-05-01T12:00:00.000000000",
        "",
    ] {
        assert!(DateTime::<Utc>::read_key_part(s).is_err(), "chrono: {s:?}");
        assert!(OffsetDateTime::read_key_part(s).is_err(), "time: {s:?}");
    }

    // Attributes other clients wrote may be any RFC 3339 spelling; what
    // singletable writes back is the canonical one.
    for s in [
        "2024-05-01T14:00:00+02:00",
        "2024-05-01T12:00:00Z",
        "2024-05-01t12:00:00.000z",
    ] {
        let c = DateTime::<Utc>::from_attr(AttributeValue::S(s.into())).expect(s);
        let t = OffsetDateTime::from_attr(AttributeValue::S(s.into())).expect(s);
        assert_eq!(attr(&c).as_deref(), Some(canonical), "{s}");
        assert_eq!(attr(&t).as_deref(), Some(canonical), "{s}");
    }
    // A read that would convert out of `time`'s range is an error, not
    // a panic.
    assert!(
        OffsetDateTime::from_attr(AttributeValue::S("9999-12-31T23:00:00-05:00".into())).is_err()
    );
}
