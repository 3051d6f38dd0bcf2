//! UTC timestamps in one canonical form, `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`
//! (30 bytes): fixed width, so text order is time order, and nine
//! fractional digits, so every nanosecond is kept.
//!
//! Only what this form spells exactly is written, in attributes and in keys
//! alike, so that every timestamp singletable writes reads back as the same
//! instant and two instants never share a spelling. The rest is refused
//! before anything is sent: years outside 0000–9999 (in UTC), which RFC 3339
//! cannot spell and which would break the text order, and chrono's leap
//! seconds (`nanosecond() >= 1_000_000_000`), which other clients (and the
//! `time` crate) cannot read back as the same instant ([`EncodeError`] for
//! attributes, [`KeyError::TimestampRange`] / [`KeyError::LeapSecond`] for
//! keys).
//!
//! Keys are read in the canonical form only: `+00:00`, a missing or shorter
//! fraction, lowercase `t` / `z` are not the key singletable writes, and
//! accepting them would let two stored keys decode to one value. Attributes
//! are read in the canonical form and, for values other clients wrote, in
//! any RFC 3339 form (any offset, any precision, converted to UTC); such a
//! value (a leap second `23:59:60` read by chrono, an offset moving the year
//! past 9999) can be refused when it is written back.
//!
//! Also here: the other optional types (`uuid::Uuid` as `S`,
//! `rust_decimal::Decimal` as `N`).

#[allow(unused_imports)]
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, KeyError};
#[allow(unused_imports)]
use crate::value::{AttributeValue, wrong_type};

#[cfg(any(feature = "chrono", feature = "time"))]
mod canonical;
#[cfg(any(feature = "chrono", feature = "time"))]
use canonical::{Civil, LEN, Unwritable, invalid_key, invalid_timestamp};

#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
#[cfg(feature = "chrono")]
mod chrono_impls {
    use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};

    use super::*;
    use crate::key::{KeyPart, KeyPartDecode};
    use crate::value::Attr;

    fn civil(t: &DateTime<Utc>) -> Civil {
        // Every field but the year is in range by chrono's own invariants;
        // the nanosecond field is not (leap seconds), and `write` says so.
        let small = |v: u32| u8::try_from(v).unwrap_or(u8::MAX);
        Civil {
            year: t.year(),
            month: small(t.month()),
            day: small(t.day()),
            hour: small(t.hour()),
            minute: small(t.minute()),
            second: small(t.second()),
            nanosecond: t.nanosecond(),
        }
    }

    fn from_civil(c: Civil) -> Option<DateTime<Utc>> {
        NaiveDate::from_ymd_opt(c.year, c.month.into(), c.day.into())?
            .and_hms_nano_opt(
                c.hour.into(),
                c.minute.into(),
                c.second.into(),
                c.nanosecond,
            )
            .map(|t| t.and_utc())
    }

    fn parse_canonical(s: &str) -> Option<DateTime<Utc>> {
        Civil::parse(s).and_then(from_civil)
    }

    fn parse_any(s: &str) -> Option<DateTime<Utc>> {
        parse_canonical(s).or_else(|| {
            DateTime::parse_from_rfc3339(s)
                .ok()
                .map(|t| t.with_timezone(&Utc))
        })
    }

    impl Attr for DateTime<Utc> {
        const DYNAMODB_TYPE: Option<&'static str> = Some("S");
        fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
            civil(self)
                .format()
                .map(AttributeValue::S)
                .map_err(|e| e.encode_error(self))
        }
        fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
            match value {
                AttributeValue::S(s) => parse_any(&s).ok_or_else(|| invalid_timestamp(&s)),
                other => Err(wrong_type("S (DateTime<Utc>)", &other)),
            }
        }
    }

    impl KeyPart for DateTime<Utc> {
        fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
            civil(self).write(out).map_err(Unwritable::key_error)
        }
        #[inline]
        fn size_hint(&self) -> usize {
            LEN
        }
    }

    impl KeyPartDecode for DateTime<Utc> {
        fn read_key_part(segment: &str) -> Result<Self, KeyError> {
            parse_canonical(segment).ok_or_else(|| {
                invalid_key(segment, "DateTime<Utc> (YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ)")
            })
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
#[cfg(feature = "time")]
mod time_impls {
    use time::format_description::well_known::Rfc3339;
    use time::{Date, Month, OffsetDateTime, UtcOffset};

    use super::*;
    use crate::key::{KeyPart, KeyPartDecode};
    use crate::value::Attr;

    /// The instant in UTC; `None` when its UTC date is outside the range
    /// the `time` crate represents (a year 9999 with a negative offset).
    fn civil(t: &OffsetDateTime) -> Result<Civil, Unwritable> {
        let t = t
            .checked_to_offset(UtcOffset::UTC)
            .ok_or(Unwritable::Year)?;
        Ok(Civil {
            year: t.year(),
            month: u8::from(t.month()),
            day: t.day(),
            hour: t.hour(),
            minute: t.minute(),
            second: t.second(),
            nanosecond: t.nanosecond(),
        })
    }

    fn from_civil(c: Civil) -> Option<OffsetDateTime> {
        let month = Month::try_from(c.month).ok()?;
        Date::from_calendar_date(c.year, month, c.day)
            .ok()?
            .with_hms_nano(c.hour, c.minute, c.second, c.nanosecond)
            .ok()
            .map(|t| t.assume_utc())
    }

    fn parse_canonical(s: &str) -> Option<OffsetDateTime> {
        Civil::parse(s).and_then(from_civil)
    }

    fn parse_any(s: &str) -> Option<OffsetDateTime> {
        parse_canonical(s).or_else(|| {
            OffsetDateTime::parse(s, &Rfc3339)
                .ok()
                .and_then(|t| t.checked_to_offset(UtcOffset::UTC))
        })
    }

    impl Attr for OffsetDateTime {
        const DYNAMODB_TYPE: Option<&'static str> = Some("S");
        fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
            civil(self)
                .and_then(|c| c.format())
                .map(AttributeValue::S)
                .map_err(|e| e.encode_error(self))
        }
        fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
            match value {
                AttributeValue::S(s) => parse_any(&s).ok_or_else(|| invalid_timestamp(&s)),
                other => Err(wrong_type("S (OffsetDateTime)", &other)),
            }
        }
    }

    impl KeyPart for OffsetDateTime {
        fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
            civil(self)
                .and_then(|c| c.write(out))
                .map_err(Unwritable::key_error)
        }
        #[inline]
        fn size_hint(&self) -> usize {
            LEN
        }
    }

    impl KeyPartDecode for OffsetDateTime {
        fn read_key_part(segment: &str) -> Result<Self, KeyError> {
            parse_canonical(segment).ok_or_else(|| {
                invalid_key(segment, "OffsetDateTime (YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ)")
            })
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
#[cfg(feature = "uuid")]
impl crate::value::Attr for uuid::Uuid {
    const DYNAMODB_TYPE: Option<&'static str> = Some("S");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::S(self.hyphenated().to_string()))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::S(s) => uuid::Uuid::parse_str(&s).map_err(|_| {
                DecodeError::new(DecodeErrorKind::Invalid(format!("{s:?} is not a uuid")))
            }),
            other => Err(wrong_type("S (Uuid)", &other)),
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "rust_decimal")))]
#[cfg(feature = "rust_decimal")]
impl crate::value::Attr for rust_decimal::Decimal {
    const DYNAMODB_TYPE: Option<&'static str> = Some("N");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::N(self.normalize().to_string()))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        use std::str::FromStr;
        match value {
            AttributeValue::N(n) => rust_decimal::Decimal::from_str(&n)
                .or_else(|_| rust_decimal::Decimal::from_scientific(&n))
                .map_err(|_| {
                    DecodeError::new(DecodeErrorKind::InvalidNumber {
                        value: n,
                        ty: "Decimal",
                    })
                }),
            other => Err(wrong_type("N (Decimal)", &other)),
        }
    }
}

#[cfg(all(test, feature = "chrono"))]
mod tests {
    use chrono::{TimeZone, Utc};

    use crate::key::{KeyPart, KeyPartDecode};
    use crate::value::Attr;

    #[test]
    fn chrono_is_fixed_width_and_round_trips() {
        let t = Utc.with_ymd_and_hms(2024, 5, 1, 12, 0, 0).unwrap()
            + chrono::Duration::nanoseconds(1234);
        let mut k = String::new();
        t.write_key_part(&mut k).unwrap();
        assert_eq!(k, "2024-05-01T12:00:00.000001234Z");
        assert_eq!(chrono::DateTime::<Utc>::read_key_part(&k).unwrap(), t);
        assert_eq!(
            chrono::DateTime::<Utc>::from_attr(t.to_attr().unwrap()).unwrap(),
            t
        );
    }
}

#[cfg(all(test, feature = "chrono", feature = "time"))]
mod round_trip;
