//! DynamoDB numbers as exact decimals: parsing with DynamoDB's limits (38
//! significant digits, magnitudes from 1E-130 to below 1E+126), comparison,
//! addition, the canonical text DynamoDB returns, and two byte encodings
//! (one that sorts like the numbers, one that DynamoDB Local hashes and
//! measures).
//!
//! Never `f64`: `0.1 + 0.2` must be `0.3`, and two numbers that differ in the
//! 38th digit must compare as different.

use std::cmp::Ordering;

/// Most significant digits DynamoDB stores.
const MAX_DIGITS: usize = 38;

/// A finite decimal: `0.d1 d2 … dn × 10^exp`, sign apart. `digits` holds
/// values 0–9 with no leading or trailing zero, so each number has exactly
/// one representation; zero has no digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Num {
    neg: bool,
    digits: Vec<u8>,
    exp: i32,
}

/// Why a text is not a DynamoDB number; the messages are DynamoDB's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumError {
    Syntax,
    Precision,
    Overflow,
    Underflow,
}

impl NumError {
    pub(crate) fn message(self) -> &'static str {
        match self {
            NumError::Syntax => "A value provided cannot be converted into a number",
            NumError::Precision => "DynamoDB only supports precision up to 38 digits",
            NumError::Overflow => {
                "Number overflow. Attempting to store a number with magnitude larger than supported range"
            }
            NumError::Underflow => {
                "Number underflow. Attempting to store a number with magnitude smaller than supported range"
            }
        }
    }
}

impl Num {
    fn zero() -> Self {
        Self {
            neg: false,
            digits: Vec::new(),
            exp: 0,
        }
    }

    /// Parses the grammar Java's `BigDecimal` accepts (what DynamoDB Local
    /// runs): optional sign, digits with an optional point, optional
    /// exponent. Does not apply DynamoDB's limits; see [`Num::checked`].
    pub(crate) fn parse(text: &str) -> Result<Self, NumError> {
        let b = text.as_bytes();
        let mut i = 0;
        let mut neg = false;
        if let Some(&c) = b.first()
            && (c == b'+' || c == b'-')
        {
            neg = c == b'-';
            i = 1;
        }
        let mut mantissa = Vec::new();
        let mut int_len: i64 = 0;
        let mut seen_point = false;
        while let Some(&c) = b.get(i) {
            match c {
                b'0'..=b'9' => {
                    mantissa.push(c - b'0');
                    if !seen_point {
                        int_len += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                _ => break,
            }
            i += 1;
        }
        if mantissa.is_empty() {
            return Err(NumError::Syntax);
        }
        let mut e: i64 = 0;
        if let Some(&c) = b.get(i)
            && (c == b'e' || c == b'E')
        {
            i += 1;
            let mut eneg = false;
            if let Some(&s) = b.get(i)
                && (s == b'+' || s == b'-')
            {
                eneg = s == b'-';
                i += 1;
            }
            let start = i;
            while let Some(&d) = b.get(i) {
                if !d.is_ascii_digit() {
                    break;
                }
                e = e.saturating_mul(10).saturating_add(i64::from(d - b'0'));
                i += 1;
            }
            if i == start || e > i64::from(i32::MAX) {
                return Err(NumError::Syntax);
            }
            if eneg {
                e = -e;
            }
        }
        if i != b.len() {
            return Err(NumError::Syntax);
        }
        let lead = mantissa.iter().take_while(|d| **d == 0).count();
        let Some(last) = mantissa.iter().rposition(|d| *d != 0) else {
            return Ok(Self::zero());
        };
        let digits = mantissa[lead..=last].to_vec();
        let exp = int_len - lead as i64 + e;
        let exp = i32::try_from(exp).map_err(|_| NumError::Syntax)?;
        Ok(Self { neg, digits, exp })
    }

    /// Parses and applies DynamoDB's precision and magnitude limits.
    pub(crate) fn checked(text: &str) -> Result<Self, NumError> {
        Self::parse(text)?.check()
    }

    /// Applies DynamoDB's limits to a computed number.
    pub(crate) fn check(self) -> Result<Self, NumError> {
        if self.digits.is_empty() {
            return Ok(self);
        }
        if self.digits.len() > MAX_DIGITS {
            return Err(NumError::Precision);
        }
        // The magnitude is 10^(exp-1) ≤ |x| < 10^exp.
        if self.exp - 1 > 125 {
            return Err(NumError::Overflow);
        }
        if self.exp - 1 < -130 {
            return Err(NumError::Underflow);
        }
        Ok(self)
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The text DynamoDB returns: plain notation, no exponent, no trailing
    /// zeros (`1E+2` → `100`, `01.50` → `1.5`, `-0` → `0`).
    pub(crate) fn canonical(&self) -> String {
        if self.is_zero() {
            return "0".to_owned();
        }
        let mut s = String::with_capacity(self.digits.len() + 4);
        if self.neg {
            s.push('-');
        }
        let n = self.digits.len() as i64;
        let exp = i64::from(self.exp);
        let digit = |d: &u8| char::from(b'0' + d);
        if exp <= 0 {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', (-exp) as usize));
            s.extend(self.digits.iter().map(digit));
        } else if exp >= n {
            s.extend(self.digits.iter().map(digit));
            s.extend(std::iter::repeat_n('0', (exp - n) as usize));
        } else {
            let (int, frac) = self.digits.split_at(exp as usize);
            s.extend(int.iter().map(digit));
            s.push('.');
            s.extend(frac.iter().map(digit));
        }
        s
    }

    fn cmp_magnitude(&self, other: &Self) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => self
                .exp
                .cmp(&other.exp)
                .then_with(|| self.digits.cmp(&other.digits)),
        }
    }

    /// `-self`.
    pub(crate) fn negated(&self) -> Self {
        let mut n = self.clone();
        n.neg = !n.neg && !n.is_zero();
        n
    }

    /// The sum, exact (limits are the caller's business).
    pub(crate) fn add(&self, other: &Self) -> Self {
        if self.is_zero() {
            return other.clone();
        }
        if other.is_zero() {
            return self.clone();
        }
        // Align both coefficients on the exponent of their last digits.
        let low = |n: &Self| i64::from(n.exp) - n.digits.len() as i64;
        let base = low(self).min(low(other));
        let top = i64::from(self.exp.max(other.exp));
        let width = (top - base) as usize;
        let spread = |n: &Self| {
            let mut v = vec![0u8; width];
            let start = (top - i64::from(n.exp)) as usize;
            v[start..start + n.digits.len()].copy_from_slice(&n.digits);
            v
        };
        let (a, b) = (spread(self), spread(other));
        let (neg, mut digits) = if self.neg == other.neg {
            (self.neg, add_digits(&a, &b))
        } else {
            match a.cmp(&b) {
                Ordering::Equal => return Self::zero(),
                Ordering::Greater => (self.neg, sub_digits(&a, &b)),
                Ordering::Less => (other.neg, sub_digits(&b, &a)),
            }
        };
        // `digits` has `width` (+1 on carry) places; its first place is 10^(top-1).
        let extra = digits.len() - width;
        let lead = digits.iter().take_while(|d| **d == 0).count();
        let last = digits.iter().rposition(|d| *d != 0).unwrap_or(lead);
        let exp = top + extra as i64 - lead as i64;
        digits.truncate(last + 1);
        digits.drain(..lead);
        Self {
            neg,
            digits,
            exp: i32::try_from(exp).unwrap_or(if exp > 0 { i32::MAX } else { i32::MIN }),
        }
    }

    /// Bytes that sort like the numbers: a sign class, then for the
    /// magnitude a biased exponent and the digits with a terminator;
    /// negative magnitudes are the byte-wise complement, which reverses
    /// their order. Self-delimiting, so keys can be concatenated.
    pub(crate) fn order_bytes(&self, out: &mut Vec<u8>) {
        if self.is_zero() {
            out.push(0x02);
            return;
        }
        let start = out.len();
        out.push(if self.neg { 0x01 } else { 0x03 });
        let body = out.len();
        out.extend_from_slice(&((self.exp as u32) ^ 0x8000_0000).to_be_bytes());
        out.extend(self.digits.iter().map(|d| d + 1));
        out.push(0);
        if self.neg {
            for b in &mut out[body..] {
                *b = !*b;
            }
        }
        debug_assert!(out.len() > start);
    }

    /// Reads back what [`Num::order_bytes`] wrote at `b[*at..]`.
    pub(crate) fn from_order_bytes(b: &[u8], at: &mut usize) -> Option<Self> {
        let class = *b.get(*at)?;
        *at += 1;
        let neg = match class {
            0x02 => return Some(Self::zero()),
            0x01 => true,
            0x03 => false,
            _ => return None,
        };
        let flip = |x: u8| if neg { !x } else { x };
        let e = b.get(*at..*at + 4)?;
        let exp = u32::from_be_bytes([flip(e[0]), flip(e[1]), flip(e[2]), flip(e[3])]);
        *at += 4;
        let mut digits = Vec::new();
        loop {
            let d = flip(*b.get(*at)?);
            *at += 1;
            if d == 0 {
                break;
            }
            digits.push(d.checked_sub(1).filter(|d| *d < 10)?);
        }
        Some(Self {
            neg,
            digits,
            exp: (exp ^ 0x8000_0000) as i32,
        })
    }

    /// DynamoDB Local's `encodeBigDecimal`: base-100 digit pairs after an
    /// exponent byte. Local hashes these bytes to place number keys and
    /// counts their length as the number's size, so this reproduces it
    /// byte for byte.
    pub(crate) fn local_bytes(&self) -> Vec<u8> {
        if self.is_zero() {
            return vec![0x80];
        }
        let s = &self.digits;
        let mut exp = self.exp;
        let odd = usize::from(exp % 2 != 0);
        exp += odd as i32;
        let len = s.len() + odd;
        let n = len.div_ceil(2);
        let mut buf = if n < 20 && self.neg {
            let mut b = vec![0u8; n + 2];
            b[n + 1] = 102;
            b
        } else {
            vec![0u8; n + 1]
        };
        buf[0] = (192 + exp / 2) as u8;
        if self.neg {
            buf[0] = !buf[0];
        }
        // Pairs of digits in one byte, value+1 (or 101-value when negative);
        // an odd exponent starts with a half-empty pair.
        for (i, d) in s.iter().enumerate() {
            let pos = i + odd;
            let idx = pos / 2 + 1;
            if pos % 2 == 0 {
                buf[idx] = d * 10;
            } else {
                buf[idx] = buf[idx].wrapping_add(*d);
            }
            if pos % 2 == 1 || i == s.len() - 1 {
                buf[idx] = if self.neg {
                    101u8.wrapping_sub(buf[idx])
                } else {
                    buf[idx].wrapping_add(1)
                };
            }
        }
        buf
    }
}

impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Num {
    fn cmp(&self, other: &Self) -> Ordering {
        let class = |n: &Num| {
            if n.is_zero() {
                1
            } else if n.neg {
                0
            } else {
                2
            }
        };
        match class(self).cmp(&class(other)) {
            Ordering::Equal if self.neg => other.cmp_magnitude(self),
            Ordering::Equal => self.cmp_magnitude(other),
            o => o,
        }
    }
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; a.len() + 1];
    let mut carry = 0;
    for i in (0..a.len()).rev() {
        let s = a[i] + b[i] + carry;
        out[i + 1] = s % 10;
        carry = s / 10;
    }
    out[0] = carry;
    if carry == 0 {
        out.remove(0);
    }
    out
}

/// `a - b` for `a > b`, same width.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; a.len()];
    let mut borrow = 0i8;
    for i in (0..a.len()).rev() {
        let mut d = a[i] as i8 - b[i] as i8 - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out[i] = d as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Num {
        Num::parse(s).unwrap()
    }

    #[test]
    fn canonical_text_matches_dynamodb() {
        for (input, out) in [
            ("01.500", "1.5"),
            ("1E+2", "100"),
            ("-0.00", "0"),
            ("1.5e-3", "0.0015"),
            (".5", "0.5"),
            ("5.", "5"),
            ("+5", "5"),
            ("1E-0", "1"),
            ("-12.340", "-12.34"),
            (
                "123456789012345678901234567890123456780000",
                "123456789012345678901234567890123456780000",
            ),
        ] {
            assert_eq!(n(input).canonical(), out, "{input}");
        }
        for bad in ["", " 5", "1e", "1_0", "0x10", "--1", "1.2.3", "e5", "."] {
            assert_eq!(Num::parse(bad), Err(NumError::Syntax), "{bad:?}");
        }
    }

    #[test]
    fn limits() {
        assert!(Num::checked("1e125").is_ok());
        assert!(Num::checked("9.9999999999999999999999999999999999999e125").is_ok());
        assert_eq!(Num::checked("1e126"), Err(NumError::Overflow));
        assert!(Num::checked("1e-130").is_ok());
        assert_eq!(Num::checked("1e-131"), Err(NumError::Underflow));
        assert!(Num::checked("12345678901234567890123456789012345678").is_ok());
        assert_eq!(
            Num::checked("123456789012345678901234567890123456789"),
            Err(NumError::Precision)
        );
    }

    #[test]
    fn order_is_numeric() {
        let sorted = [
            "-1e10", "-123.5", "-123.45", "-1", "-0.5", "-0.0001", "0", "0.0001", "0.5", "1",
            "1.5", "10", "99", "100", "1e10",
        ];
        for w in sorted.windows(2) {
            let (a, b) = (n(w[0]), n(w[1]));
            assert!(a < b, "{} < {}", w[0], w[1]);
            let (mut ea, mut eb) = (Vec::new(), Vec::new());
            a.order_bytes(&mut ea);
            b.order_bytes(&mut eb);
            assert!(ea < eb, "bytes of {} < {}", w[0], w[1]);
        }
        assert_eq!(n("1.0").cmp(&n("1")), Ordering::Equal);
    }

    #[test]
    fn addition_is_exact() {
        for (a, b, sum) in [
            ("0.1", "0.2", "0.3"),
            ("5", "-3.5", "1.5"),
            ("-5", "3.5", "-1.5"),
            ("99", "1", "100"),
            ("1", "-1", "0"),
            ("1e20", "1e-5", "100000000000000000000.00001"),
            ("-0.001", "-0.009", "-0.01"),
        ] {
            assert_eq!(n(a).add(&n(b)).canonical(), sum, "{a} + {b}");
        }
        let long = n("5").add(&n("0.00000000000000000000000000000000000001"));
        assert_eq!(long.check(), Err(NumError::Precision));
    }

    #[test]
    fn local_bytes_match_big_decimal_encoder() {
        // Reference values computed with DynamoDB Local's encoder.
        assert_eq!(n("0").local_bytes(), [0x80]);
        assert_eq!(n("5").local_bytes(), [193, 6]);
        assert_eq!(n("12").local_bytes(), [193, 13]);
        assert_eq!(n("123").local_bytes(), [194, 2, 24]);
        assert_eq!(n("1.5").local_bytes(), [193, 2, 51]);
        assert_eq!(n("-5").local_bytes(), [!193u8, 96, 102]);
    }
}
