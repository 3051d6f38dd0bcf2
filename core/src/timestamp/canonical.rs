//! The canonical timestamp form, `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`, shared
//! by the chrono and time impls: one writer, one strict reader.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, KeyError};

/// Length of the canonical form.
pub(super) const LEN: usize = 30;

/// The fields of a UTC instant, as the canonical form spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Civil {
    pub(super) year: i32,
    pub(super) month: u8,
    pub(super) day: u8,
    pub(super) hour: u8,
    pub(super) minute: u8,
    pub(super) second: u8,
    pub(super) nanosecond: u32,
}

/// Why an instant has no canonical form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unwritable {
    /// The UTC year is outside 0000–9999.
    Year,
    /// A leap second: chrono's nanosecond field at one second or more.
    LeapSecond,
}

impl Unwritable {
    pub(super) fn encode_error(self, shown: &dyn std::fmt::Display) -> EncodeError {
        EncodeError::new(match self {
            Unwritable::Year => format!(
                "timestamp {shown} is outside years 0000-9999 (UTC), which `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` cannot spell"
            ),
            Unwritable::LeapSecond => format!(
                "timestamp {shown} is a leap second, which other clients cannot read back as the same instant"
            ),
        })
    }

    pub(super) fn key_error(self) -> KeyError {
        match self {
            Unwritable::Year => KeyError::TimestampRange,
            Unwritable::LeapSecond => KeyError::LeapSecond,
        }
    }
}

impl Civil {
    /// Appends the canonical form, or says why there is none.
    pub(super) fn write(&self, out: &mut String) -> Result<(), Unwritable> {
        let year = u32::try_from(self.year)
            .ok()
            .filter(|y| *y <= 9999)
            .ok_or(Unwritable::Year)?;
        if self.nanosecond >= 1_000_000_000 || self.second > 59 {
            return Err(Unwritable::LeapSecond);
        }
        let mut buf = [0u8; LEN];
        let mut put = |at: usize, width: usize, mut v: u32| {
            for i in (at..at + width).rev() {
                buf[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, self.month.into());
        put(8, 2, self.day.into());
        put(11, 2, self.hour.into());
        put(14, 2, self.minute.into());
        put(17, 2, self.second.into());
        put(20, 9, self.nanosecond);
        for (at, b) in [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (29, b'Z'),
        ] {
            buf[at] = b;
        }
        // Only ASCII digits and separators were written.
        out.extend(buf.iter().map(|b| char::from(*b)));
        Ok(())
    }

    /// The canonical form as a string.
    pub(super) fn format(&self) -> Result<String, Unwritable> {
        let mut s = String::with_capacity(LEN);
        self.write(&mut s)?;
        Ok(s)
    }

    /// Reads exactly the canonical form; field ranges are checked here
    /// except the day of the month, which the date types check.
    pub(super) fn parse(s: &str) -> Option<Civil> {
        let b = s.as_bytes();
        if b.len() != LEN {
            return None;
        }
        let seps = [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (29, b'Z'),
        ];
        if seps.iter().any(|(at, c)| b[*at] != *c) {
            return None;
        }
        let num = |at: usize, width: usize| -> Option<u32> {
            b[at..at + width].iter().try_fold(0u32, |acc, d| {
                d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
            })
        };
        let small = |at: usize, max: u32, min: u32| -> Option<u8> {
            num(at, 2)
                .filter(|v| (min..=max).contains(v))
                .and_then(|v| u8::try_from(v).ok())
        };
        Some(Civil {
            year: i32::try_from(num(0, 4)?).ok()?,
            month: small(5, 12, 1)?,
            day: small(8, 31, 1)?,
            hour: small(11, 23, 0)?,
            minute: small(14, 59, 0)?,
            second: small(17, 59, 0)?,
            nanosecond: num(20, 9)?,
        })
    }
}

pub(super) fn invalid_timestamp(s: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Invalid(format!(
        "{s:?} is not an RFC 3339 timestamp"
    )))
}

pub(super) fn invalid_key(segment: &str, expected: &'static str) -> KeyError {
    KeyError::Segment {
        segment: segment.to_owned(),
        expected,
    }
}
