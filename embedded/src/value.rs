//! Attribute values the way DynamoDB treats them: validation with
//! DynamoDB's messages, normalisation (numbers to their canonical text, sets
//! sorted and checked for duplicates), ordering, and item sizes as DynamoDB
//! Local counts them.
//!
//! Everything stored is normalised, and so is every value of a request
//! before it is compared, so equality of two values is plain `==`: `1.0`
//! and `1` are the same number, and two sets with the same elements are
//! the same set.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::cmp::Ordering;

use super::error::{Fail, Res};
use super::number::Num;
pub(crate) use singletable_core::value::type_name;
// The runtime's value types, where this crate's files look for them.
pub(crate) use singletable_core::value::{AttributeValue, Blob, Item};

fn invalid(message: &str) -> Fail {
    Fail::validation(format!(
        "One or more parameter values were invalid: {message}"
    ))
}

fn num(text: &str) -> Res<String> {
    Num::checked(text)
        .map(|n| n.canonical())
        .map_err(|e| Fail::validation(e.message()))
}

/// Java's `String.compareTo`: UTF-16 code units. DynamoDB Local returns
/// string sets in this order.
fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// DynamoDB's refusal of a set holding a member twice, which names the
/// members (`Input collection [a, a] contains duplicates.`; shown here in
/// the set's sorted order).
fn no_duplicates<T: PartialEq>(sorted: &[T], show: impl Fn(&T) -> String) -> Res<()> {
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        let members: Vec<String> = sorted.iter().map(show).collect();
        Err(invalid(&format!(
            "Input collection [{}] contains duplicates.",
            members.join(", ")
        )))
    } else {
        Ok(())
    }
}

/// The value as DynamoDB stores it, or the ValidationException DynamoDB
/// answers it with.
pub(crate) fn normalize(v: &AttributeValue) -> Res<AttributeValue> {
    let mut v = v.clone();
    normalize_in_place(&mut v)?;
    Ok(v)
}

/// DynamoDB's limit on the nesting of a value: an attribute's value is at
/// level 1, the values of a map or list in it at level 2, and so on; a
/// value deeper than this is refused (31 maps or lists, one inside the
/// other, hold a scalar at level 32).
pub(crate) const MAX_NESTING: usize = 32;

fn too_deep() -> Fail {
    Fail::validation(
        "Nesting Levels have exceeded supported limits: The maximum supported nesting level is 32",
    )
}

/// [`normalize`] in place: only numbers not in their canonical text and
/// sets out of order are rewritten. The one check of a value's nesting
/// (every write path normalises what it stores).
pub(crate) fn normalize_in_place(v: &mut AttributeValue) -> Res<()> {
    normalize_at(v, 1)
}

fn normalize_at(v: &mut AttributeValue, depth: usize) -> Res<()> {
    if depth > MAX_NESTING {
        return Err(too_deep());
    }
    match v {
        AttributeValue::S(_) | AttributeValue::B(_) | AttributeValue::Bool(_) => {}
        AttributeValue::N(n) => {
            let canonical = num(n)?;
            if canonical != *n {
                *n = canonical;
            }
        }
        AttributeValue::Null(true) => {}
        AttributeValue::Null(false) => {
            return Err(invalid(
                "Null attribute value types must have the value of true",
            ));
        }
        AttributeValue::L(l) => {
            for e in l {
                normalize_at(e, depth + 1)?;
            }
        }
        AttributeValue::M(m) => {
            for (k, e) in m {
                if k.is_empty() {
                    return Err(Fail::validation("Empty attribute name"));
                }
                normalize_at(e, depth + 1)?;
            }
        }
        AttributeValue::Ss(set) => {
            if set.is_empty() {
                return Err(invalid("An string set  may not be empty"));
            }
            set.sort_by(|a, b| utf16_cmp(a, b));
            no_duplicates(set, |s| s.clone())?;
        }
        AttributeValue::Ns(set) => {
            if set.is_empty() {
                return Err(invalid("An number set  may not be empty"));
            }
            let mut nums = set
                .iter()
                .map(|n| Num::checked(n).map_err(|e| Fail::validation(e.message())))
                .collect::<Res<Vec<_>>>()?;
            nums.sort();
            no_duplicates(&nums, Num::canonical)?;
            *set = nums.iter().map(Num::canonical).collect();
        }
        AttributeValue::Bs(set) => {
            if set.is_empty() {
                return Err(invalid("Binary sets should not be empty"));
            }
            set.sort_by(|a, b| a.as_ref().cmp(b.as_ref()));
            let bytes: Vec<&[u8]> = set.iter().map(Blob::as_ref).collect();
            no_duplicates(&bytes, |b| STANDARD.encode(b))?;
        }
        _ => {
            return Err(Fail::validation(
                "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
            ));
        }
    }
    Ok(())
}

/// A value of `ExpressionAttributeValues`, normalised, or the
/// ValidationException DynamoDB answers it with.
pub(crate) fn expression_value(v: &AttributeValue) -> Res<AttributeValue> {
    normalize(v).map_err(|e| match e {
        Fail::Service(mut s) => {
            s.message = format!(
                "ExpressionAttributeValues contains invalid value: {}",
                s.message
            );
            Fail::Service(s)
        }
        other => other,
    })
}

/// Normalises every attribute of a map or item; names must not be empty.
pub(crate) fn normalize_map(m: &Item) -> Res<Item> {
    let mut out = m.clone();
    normalize_map_in_place(&mut out)?;
    Ok(out)
}

/// Whether every value of `item` is within [`MAX_NESTING`]: what an update
/// checks of the item it made (its values were normalised one by one, and
/// a path puts them deeper).
pub(crate) fn nesting(item: &Item) -> Res<()> {
    fn at(v: &AttributeValue, depth: usize) -> Res<()> {
        if depth > MAX_NESTING {
            return Err(too_deep());
        }
        match v {
            AttributeValue::L(l) => l.iter().try_for_each(|e| at(e, depth + 1)),
            AttributeValue::M(m) => m.values().try_for_each(|e| at(e, depth + 1)),
            _ => Ok(()),
        }
    }
    item.values().try_for_each(|v| at(v, 1))
}

/// [`normalize_map`] in place.
pub(crate) fn normalize_map_in_place(m: &mut Item) -> Res<()> {
    for (k, v) in m {
        if k.is_empty() {
            return Err(Fail::validation("Empty attribute name"));
        }
        normalize_in_place(v)?;
    }
    Ok(())
}

/// The values a [`Val`] of a lent boolean or null points at.
static TRUE: AttributeValue = AttributeValue::Bool(true);
static FALSE: AttributeValue = AttributeValue::Bool(false);
static NULL: AttributeValue = AttributeValue::Null(true);

/// A value a condition reads, borrowed wherever it is: from an item map,
/// or from a stored item's bytes (strings and numbers in place), so that
/// evaluating a condition copies nothing. Strings and numbers are always
/// `S` and `N`, never `Other`, so two views of one value are equal views.
#[derive(Debug, Clone)]
pub(crate) enum Val<'a> {
    S(&'a str),
    /// A number in canonical text (owned only for what `size()` returns).
    N(std::borrow::Cow<'a, str>),
    /// Any other value.
    Other(&'a AttributeValue),
}

impl<'a> Val<'a> {
    pub(crate) fn of(v: &'a AttributeValue) -> Self {
        match v {
            AttributeValue::S(s) => Val::S(s),
            AttributeValue::N(n) => Val::N(std::borrow::Cow::Borrowed(n)),
            other => Val::Other(other),
        }
    }

    /// A value read from a stored item.
    pub(crate) fn stored(v: &'a singletable_core::reader::AttrRef<'_>) -> Self {
        use singletable_core::reader::AttrRef;
        match v {
            AttrRef::S(s) => Val::S(s),
            AttrRef::N(n) => Val::N(std::borrow::Cow::Borrowed(n)),
            AttrRef::Bool(true) => Val::Other(&TRUE),
            AttrRef::Bool(false) => Val::Other(&FALSE),
            AttrRef::Null => Val::Other(&NULL),
            AttrRef::Owned(v) => Val::of(v),
        }
    }

    /// The type's name in DynamoDB's notation.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Val::S(_) => "S",
            Val::N(_) => "N",
            Val::Other(v) => type_name(v),
        }
    }

    /// What `size()` returns; see [`size_of`].
    pub(crate) fn size(&self) -> Option<usize> {
        match self {
            Val::S(s) => Some(s.encode_utf16().count()),
            Val::N(_) => None,
            Val::Other(v) => size_of(v),
        }
    }
}

impl PartialEq for Val<'_> {
    /// Values are normalised (numbers canonical, sets sorted), so equal
    /// values have equal representations.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Val::S(a), Val::S(b)) => a == b,
            (Val::N(a), Val::N(b)) => a == b,
            (Val::Other(a), Val::Other(b)) => a == b,
            _ => false,
        }
    }
}

/// Order of two values of one scalar type (`S` by UTF-8 bytes, `N`
/// numerically, `B` byte-wise); `None` for other or mixed types, which no
/// comparison satisfies.
pub(crate) fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    compare_vals(&Val::of(a), &Val::of(b))
}

/// [`compare`] of two views.
pub(crate) fn compare_vals(a: &Val<'_>, b: &Val<'_>) -> Option<Ordering> {
    match (a, b) {
        (Val::S(x), Val::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Val::Other(AttributeValue::B(x)), Val::Other(AttributeValue::B(y))) => {
            Some(x.as_ref().cmp(y.as_ref()))
        }
        (Val::N(x), Val::N(y)) => {
            if let Some(ord) = compare_plain(x, y) {
                return Some(ord);
            }
            let (x, y) = (Num::parse(x).ok()?, Num::parse(y).ok()?);
            Some(x.cmp(&y))
        }
        _ => None,
    }
}

/// The magnitude digits of a number in canonical plain form (`12.5`,
/// `-0.25`, `0`: no exponent, no leading zero but a lone one before the
/// point, no trailing zero after it, no `-0`), with its sign; `None` for
/// any other spelling.
fn plain(n: &str) -> Option<(bool, &str)> {
    let (neg, digits) = match n.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, n),
    };
    let b = digits.as_bytes();
    let point = b.iter().position(|&c| c == b'.');
    let int = &b[..point.unwrap_or(b.len())];
    let ok_int =
        !int.is_empty() && int.iter().all(u8::is_ascii_digit) && (int[0] != b'0' || int.len() == 1);
    let ok_frac = match point {
        None => true,
        Some(p) => {
            let frac = &b[p + 1..];
            !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) && frac.last() != Some(&b'0')
        }
    };
    let zero = digits == "0";
    (ok_int && ok_frac && !(neg && zero)).then_some((neg, digits))
}

/// Compares two numbers in canonical plain form without parsing them
/// (what stored items and prepared conditions hold): by sign, then the
/// integer part's length, then the digits. `None` when either is in
/// another form.
fn compare_plain(x: &str, y: &str) -> Option<Ordering> {
    let ((xn, xd), (yn, yd)) = (plain(x)?, plain(y)?);
    let int_len = |d: &str| d.find('.').unwrap_or(d.len());
    let magnitude = int_len(xd)
        .cmp(&int_len(yd))
        .then_with(|| xd.as_bytes().cmp(yd.as_bytes()));
    Some(match (xn, yn) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    })
}

/// Whether a value may be an operand of `<`, `<=`, `>`, `>=`, `BETWEEN`.
pub(crate) fn is_sortable(v: &AttributeValue) -> bool {
    matches!(
        v,
        AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
    )
}

/// What `size()` returns: string length (in UTF-16 units, as DynamoDB Local
/// counts), binary length, number of elements; `None` for numbers,
/// booleans and nulls, whose size no comparison satisfies.
pub(crate) fn size_of(v: &AttributeValue) -> Option<usize> {
    Some(match v {
        AttributeValue::S(s) => s.encode_utf16().count(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::L(l) => l.len(),
        AttributeValue::M(m) => m.len(),
        AttributeValue::Ss(s) => s.len(),
        AttributeValue::Ns(s) => s.len(),
        AttributeValue::Bs(s) => s.len(),
        _ => return None,
    })
}

#[cfg(test)]
use singletable_core::size::number_size;
pub(crate) use singletable_core::size::{item_size, value_size};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_numbers_and_sets() {
        let v = AttributeValue::Ns(vec!["10".into(), "01".into(), "2.50".into()]);
        assert_eq!(
            normalize(&v).unwrap(),
            AttributeValue::Ns(vec!["1".into(), "2.5".into(), "10".into()])
        );
        assert!(normalize(&AttributeValue::Ns(vec!["1".into(), "1.0".into()])).is_err());
        assert!(normalize(&AttributeValue::Ss(vec![])).is_err());
        let ss = AttributeValue::Ss(vec!["\u{ffff}".into(), "\u{10000}".into(), "a".into()]);
        assert_eq!(
            normalize(&ss).unwrap(),
            AttributeValue::Ss(vec!["a".into(), "\u{10000}".into(), "\u{ffff}".into()])
        );
    }

    #[test]
    fn plain_numbers_compare_like_parsed_ones() {
        let numbers = [
            "0", "1", "-1", "0.5", "-0.5", "0.25", "12", "12.5", "12.45", "-12.45", "100", "99.99",
            "-100", "1E+5", "007", "1.50", "-0",
        ];
        for x in numbers {
            for y in numbers {
                let parsed = Num::parse(x).unwrap().cmp(&Num::parse(y).unwrap());
                if let Some(fast) = compare_plain(x, y) {
                    assert_eq!(fast, parsed, "{x} vs {y}");
                }
            }
        }
        assert!(compare_plain("1E+5", "1").is_none());
        assert!(compare_plain("007", "1").is_none());
        assert!(compare_plain("-0", "1").is_none());
    }

    #[test]
    fn number_sizes_match_the_encoding() {
        for n in [
            "0",
            "5",
            "-5",
            "12",
            "123",
            "1.5",
            "-0.001",
            "1e10",
            "-1e-5",
            "100",
            "0.10",
            "12345678901234567890123456789012345678",
            "-12345678901234567890123456789012345678",
        ] {
            let encoded = Num::parse(n).unwrap().local_bytes().len();
            assert_eq!(number_size(n), encoded, "{n}");
        }
    }

    #[test]
    fn sizes_like_dynamodb_local() {
        let mut item = Item::new();
        item.insert("a".into(), AttributeValue::N("5".into()));
        item.insert(
            "l".into(),
            AttributeValue::L(vec![
                AttributeValue::S("xy".into()),
                AttributeValue::Bool(true),
            ]),
        );
        // a: 1 + 2; l: 1 + 3 + 2 elements + 2 + 1
        assert_eq!(item_size(&item), 3 + 9);
        assert_eq!(size_of(&AttributeValue::S("é😀".into())), Some(3));
    }
}
