//! UTC timestamps as fixed-precision ISO-8601 strings,
//! `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: text order is time order, and the nine
//! fractional digits keep every nanosecond. Years outside 0000–9999 would
//! break the ordering and are refused in keys. Reading accepts any RFC 3339
//! timestamp (any offset, any precision) and converts it to UTC.
//!
//! Also here: the other optional types (`uuid::Uuid` as `S`,
//! `rust_decimal::Decimal` as `N`).

#[allow(unused_imports)]
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, KeyError};
#[allow(unused_imports)]
use crate::value::{AttributeValue, wrong_type};

/// Formats the fixed-width UTC form.
#[allow(dead_code)]
fn format_utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, ns: u32) -> String {
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ns:09}Z")
}

#[allow(dead_code)]
fn invalid_timestamp(s: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Invalid(format!(
        "{s:?} is not an RFC 3339 timestamp"
    )))
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use chrono::{DateTime, Datelike, Timelike, Utc};

    use super::*;
    use crate::key::{KeyPart, KeyPartDecode};
    use crate::value::Attr;

    fn format(t: &DateTime<Utc>) -> String {
        format_utc(
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.nanosecond(),
        )
    }

    fn parse(s: &str) -> Option<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }

    impl Attr for DateTime<Utc> {
        fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
            Ok(AttributeValue::S(format(self)))
        }
        fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
            match value {
                AttributeValue::S(s) => parse(&s).ok_or_else(|| invalid_timestamp(&s)),
                other => Err(wrong_type("S (DateTime<Utc>)", &other)),
            }
        }
    }

    impl KeyPart for DateTime<Utc> {
        fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
            if !(0..=9999).contains(&self.year()) {
                return Err(KeyError::TimestampRange);
            }
            out.push_str(&format(self));
            Ok(())
        }
    }

    impl KeyPartDecode for DateTime<Utc> {
        fn read_key_part(segment: &str) -> Result<Self, KeyError> {
            parse(segment).ok_or_else(|| KeyError::Segment {
                segment: segment.to_owned(),
                expected: "DateTime<Utc>",
            })
        }
    }
}

#[cfg(feature = "time")]
mod time_impls {
    use time::OffsetDateTime;
    use time::format_description::well_known::Rfc3339;

    use super::*;
    use crate::key::{KeyPart, KeyPartDecode};
    use crate::value::Attr;

    fn format(t: &OffsetDateTime) -> String {
        let t = t.to_offset(time::UtcOffset::UTC);
        format_utc(
            t.year(),
            u32::from(u8::from(t.month())),
            u32::from(t.day()),
            u32::from(t.hour()),
            u32::from(t.minute()),
            u32::from(t.second()),
            t.nanosecond(),
        )
    }

    fn parse(s: &str) -> Option<OffsetDateTime> {
        OffsetDateTime::parse(s, &Rfc3339)
            .ok()
            .map(|t| t.to_offset(time::UtcOffset::UTC))
    }

    impl Attr for OffsetDateTime {
        fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
            Ok(AttributeValue::S(format(self)))
        }
        fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
            match value {
                AttributeValue::S(s) => parse(&s).ok_or_else(|| invalid_timestamp(&s)),
                other => Err(wrong_type("S (OffsetDateTime)", &other)),
            }
        }
    }

    impl KeyPart for OffsetDateTime {
        fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
            if !(0..=9999).contains(&self.to_offset(time::UtcOffset::UTC).year()) {
                return Err(KeyError::TimestampRange);
            }
            out.push_str(&format(self));
            Ok(())
        }
    }

    impl KeyPartDecode for OffsetDateTime {
        fn read_key_part(segment: &str) -> Result<Self, KeyError> {
            parse(segment).ok_or_else(|| KeyError::Segment {
                segment: segment.to_owned(),
                expected: "OffsetDateTime",
            })
        }
    }
}

#[cfg(feature = "uuid")]
impl crate::value::Attr for uuid::Uuid {
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

#[cfg(feature = "rust_decimal")]
impl crate::value::Attr for rust_decimal::Decimal {
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
