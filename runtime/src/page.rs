//! Opaque pagination cursors.
//!
//! A cursor is `base64url(version ‖ nonce ‖ XChaCha20-Poly1305(payload))`:
//! the payload names the entity (or collection), the access pattern, the
//! partition, a digest of the query's shape (index, direction, sort-key
//! condition, filter) and DynamoDB's `LastEvaluatedKey`. It is encrypted
//! and authenticated with a key derived from the [`Db`](crate::Db)'s
//! cursor secret, so a client learns nothing from it (the last evaluated
//! key of a filtered query can be an item the filter hid) and cannot alter
//! it. The nonce is derived from the payload (a synthetic IV), so equal
//! positions give equal cursors and no random nonce can repeat.
//!
//! A cursor that was altered, made by another version, sealed with another
//! secret, or made for another entity, access pattern, partition or query
//! shape is refused with [`CursorError`]; its key must also hold only the
//! key attributes of the table and index queried, as strings, with the
//! query's partition key value.
//!
//! Queries use this module for every `page(&db, cursor)`; it is public for
//! requests sent another way (the SDK client directly) that should hand
//! out the same cursors:
//!
//! ```
//! use singletable_runtime::page::{decode, encode, shape_digest, CursorScope};
//! use singletable::{AttributeValue, CursorError, Item};
//!
//! let scope = CursorScope {
//!     entity: "Order",
//!     pattern: "orders",
//!     partition: "USER#ana",
//!     pk_attr: "PK",
//!     key_attrs: &["PK", "SK"],
//!     shape: shape_digest(None, true, None, None, 1),
//! };
//! let last: Item = [
//!     ("PK".to_string(), AttributeValue::S("USER#ana".into())),
//!     ("SK".to_string(), AttributeValue::S("ORDER#7".into())),
//! ]
//! .into();
//! let secret = b"the same secret on every server";
//! let cursor = encode(secret, &scope, &last).unwrap();
//! assert!(!cursor.contains("ORDER")); // opaque: encrypted
//! assert_eq!(decode(secret, &scope, &cursor)?, last);
//!
//! // Another secret, another pattern, or a changed byte: refused.
//! assert!(decode(b"another secret", &scope, &cursor).is_err());
//! let other = CursorScope { pattern: "drafts", ..scope.clone() };
//! assert!(matches!(decode(secret, &other, &cursor), Err(CursorError::Foreign { .. })));
//! # Ok::<(), CursorError>(())
//! ```

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::CursorError;
use crate::expr::{Condition, Rendered, SortCondition};
use crate::value::{AttributeValue, Item};

const VERSION: u8 = 2;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;

/// What a cursor is valid for: a cursor made for one scope is refused
/// under another.
///
/// ```
/// use singletable_runtime::page::{decode, encode, shape_digest, CursorScope};
/// use singletable::{AttributeValue, CursorError, Item};
///
/// let scope = CursorScope {
///     entity: "Order",
///     pattern: "orders",
///     partition: "USER#ana",
///     pk_attr: "PK",
///     key_attrs: &["PK", "SK"],
///     shape: shape_digest(None, true, None, None, 1),
/// };
/// let last: Item = [
///     ("PK".to_string(), AttributeValue::S("USER#ana".into())),
///     ("SK".to_string(), AttributeValue::S("ORDER#7".into())),
/// ]
/// .into();
/// let cursor = encode(b"secret", &scope, &last).unwrap();
/// // Replayed on another user's partition:
/// let other = CursorScope { partition: "USER#bo", ..scope.clone() };
/// assert!(matches!(decode(b"secret", &other, &cursor), Err(CursorError::Foreign { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorScope<'a> {
    /// The entity type (or collection) the query decodes.
    pub entity: &'a str,
    /// Access pattern name (or `table:<entity>` for ad-hoc queries).
    pub pattern: &'a str,
    /// Partition key value of the query.
    pub partition: &'a str,
    /// Partition key attribute queried (table or index); empty for a
    /// multi-attribute key, whose start keys may hold numbers and binaries
    /// and whose `partition` stands for its partition attributes' values.
    pub pk_attr: &'a str,
    /// Attributes allowed in the start key: key attributes of the table and
    /// of the index queried.
    pub key_attrs: &'a [&'a str],
    /// Digest of what else gives a position its meaning: see
    /// [`shape_digest`].
    pub shape: [u8; 16],
}

/// A digest of a query's shape: the index it reads, its direction, its
/// sort-key condition and its filter. A cursor is refused under a query of
/// another shape, where its position would mean something else (or, for a
/// sort-key condition, start outside the range the query allows).
///
/// ```
/// use singletable::expr::SortCondition;
/// use singletable_runtime::page::shape_digest;
///
/// let forward = shape_digest(None, true, None, None, 1);
/// assert_eq!(forward, shape_digest(None, true, None, None, 1));
/// assert_ne!(forward, shape_digest(None, false, None, None, 1)); // newest_first
/// assert_ne!(forward, shape_digest(Some("GSI1"), true, None, None, 1));
/// let prefix = SortCondition::BeginsWith("ORDER#".into());
/// assert_ne!(forward, shape_digest(None, true, Some(&prefix), None, 1));
/// ```
pub fn shape_digest(
    index: Option<&str>,
    forward: bool,
    sort: Option<&SortCondition>,
    filter: Option<&Condition>,
    shards: usize,
) -> [u8; 16] {
    let mut h = Sha256::new();
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_be_bytes());
        h.update(b);
    };
    field(index.unwrap_or("").as_bytes());
    field(&[u8::from(index.is_some()), u8::from(forward)]);
    field(&(shards as u64).to_be_bytes());
    match sort {
        None => field(b"-"),
        Some(SortCondition::Compare(op, v)) => {
            field(format!("{op:?}").as_bytes());
            field(v.as_bytes());
        }
        Some(SortCondition::Between(lo, hi)) => {
            field(b"between");
            field(lo.as_bytes());
            field(hi.as_bytes());
        }
        Some(SortCondition::BeginsWith(p)) => {
            field(b"begins_with");
            field(p.as_bytes());
        }
    }
    match filter {
        None => field(b"-"),
        Some(c) => {
            // The rendered text is deterministic; the placeholders' values
            // are fed in placeholder order, maps and sets canonically.
            let mut r = Rendered::default();
            field(r.condition(c).as_bytes());
            let mut names: Vec<_> = r.names.iter().collect();
            names.sort();
            for (k, v) in names {
                field(k.as_bytes());
                field(v.as_bytes());
            }
            let mut values: Vec<_> = r.values.iter().collect();
            values.sort_by(|a, b| a.0.cmp(b.0));
            for (k, v) in values {
                field(k.as_bytes());
                let mut out = Vec::new();
                canonical(v, &mut out);
                field(&out);
            }
        }
    }
    let full = h.finalize();
    let mut out = [0; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// A canonical byte encoding of a value: tagged, length-prefixed, map
/// entries and set elements sorted.
fn canonical(v: &AttributeValue, out: &mut Vec<u8>) {
    fn bytes(out: &mut Vec<u8>, tag: u8, b: &[u8]) {
        out.push(tag);
        out.extend_from_slice(&(b.len() as u64).to_be_bytes());
        out.extend_from_slice(b);
    }
    fn sorted<'a>(items: impl Iterator<Item = &'a [u8]>) -> Vec<&'a [u8]> {
        let mut v: Vec<&[u8]> = items.collect();
        v.sort();
        v
    }
    match v {
        AttributeValue::S(s) => bytes(out, b's', s.as_bytes()),
        AttributeValue::N(n) => bytes(out, b'n', n.as_bytes()),
        AttributeValue::B(b) => bytes(out, b'b', b.as_ref()),
        AttributeValue::Bool(b) => bytes(out, b't', &[u8::from(*b)]),
        AttributeValue::Null(_) => bytes(out, b'0', &[]),
        AttributeValue::Ss(s) => {
            out.push(b'S');
            for e in sorted(s.iter().map(|x| x.as_bytes())) {
                bytes(out, b's', e);
            }
        }
        AttributeValue::Ns(s) => {
            out.push(b'N');
            for e in sorted(s.iter().map(|x| x.as_bytes())) {
                bytes(out, b'n', e);
            }
        }
        AttributeValue::Bs(s) => {
            out.push(b'B');
            for e in sorted(s.iter().map(|x| x.as_ref())) {
                bytes(out, b'b', e);
            }
        }
        AttributeValue::L(l) => {
            bytes(out, b'L', &(l.len() as u64).to_be_bytes());
            for e in l {
                canonical(e, out);
            }
        }
        AttributeValue::M(m) => {
            bytes(out, b'M', &(m.len() as u64).to_be_bytes());
            let mut entries: Vec<_> = m.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (k, e) in entries {
                bytes(out, b'k', k.as_bytes());
                canonical(e, out);
            }
        }
        _ => bytes(out, b'?', &[]),
    }
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// Entity or collection.
    t: String,
    /// Access pattern.
    p: String,
    /// Partition key value.
    k: String,
    /// Shape digest.
    q: [u8; 16],
    e: Vec<(String, String)>,
    /// Number key attributes of the start key (multi-attribute keys).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    n: Vec<(String, String)>,
    /// Binary key attributes of the start key (multi-attribute keys).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    b: Vec<(String, Vec<u8>)>,
    /// Sharded queries: per shard, whether it is exhausted and where it
    /// continues.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    s: Vec<(bool, Vec<(String, String)>)>,
}

/// Where one shard of a sharded query continues.
///
/// ```
/// use singletable_runtime::page::ShardPosition;
///
/// let fresh = ShardPosition::default();
/// assert!(!fresh.done && fresh.start.is_none()); // from the start of the shard
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShardPosition {
    /// No more items in this shard.
    pub done: bool,
    /// Continue after this key (`None`: from the start).
    pub start: Option<Item>,
}

fn strings(item: &Item) -> Option<Vec<(String, String)>> {
    let mut e = Vec::with_capacity(item.len());
    for (k, v) in item {
        match v {
            AttributeValue::S(s) => e.push((k.clone(), s.clone())),
            _ => return None,
        }
    }
    e.sort();
    Some(e)
}

/// The start key's attributes by type: strings, numbers, binaries. Only a
/// multi-attribute key's scope (no `pk_attr`) takes numbers and binaries.
type Typed = (
    Vec<(String, String)>,
    Vec<(String, String)>,
    Vec<(String, Vec<u8>)>,
);

fn typed(scope: &CursorScope<'_>, item: &Item) -> Option<Typed> {
    if !scope.pk_attr.is_empty() {
        return Some((strings(item)?, Vec::new(), Vec::new()));
    }
    let (mut e, mut n, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for (k, v) in item {
        match v {
            AttributeValue::S(s) => e.push((k.clone(), s.clone())),
            AttributeValue::N(x) => n.push((k.clone(), x.clone())),
            AttributeValue::B(x) => b.push((k.clone(), x.as_ref().to_vec())),
            _ => return None,
        }
    }
    e.sort();
    n.sort();
    b.sort();
    Some((e, n, b))
}

/// The partition of a query on a multi-attribute key, as its cursors
/// name it: a canonical text of the partition attributes' typed values.
pub(crate) fn partition_text(values: &[(String, AttributeValue)]) -> String {
    let mut out = Vec::new();
    for (k, v) in values {
        canonical(&AttributeValue::S(k.clone()), &mut out);
        canonical(v, &mut out);
    }
    URL_SAFE_NO_PAD.encode(Sha256::digest(&out))
}

/// A shape digest that also covers the typed sort conditions of a query on
/// a multi-attribute key.
pub(crate) fn with_sort_attrs(
    shape: [u8; 16],
    equal: &[(String, AttributeValue)],
    range: Option<&(String, crate::expr::AttrRange)>,
) -> [u8; 16] {
    let mut out = shape.to_vec();
    for (k, v) in equal {
        canonical(&AttributeValue::S(k.clone()), &mut out);
        canonical(v, &mut out);
    }
    if let Some((k, r)) = range {
        canonical(&AttributeValue::S(k.clone()), &mut out);
        let op = match r {
            crate::expr::AttrRange::Compare(op, _) => format!("{op:?}"),
            crate::expr::AttrRange::Between(..) => "between".into(),
            crate::expr::AttrRange::BeginsWith(_) => "begins_with".into(),
        };
        canonical(&AttributeValue::S(op), &mut out);
        for v in r.values() {
            canonical(&v, &mut out);
        }
    }
    let full = Sha256::digest(&out);
    let mut d = [0; 16];
    d.copy_from_slice(&full[..16]);
    d
}

/// The cipher and the nonce key derived from a cursor secret.
fn keys(secret: &[u8]) -> (XChaCha20Poly1305, [u8; 32]) {
    let derive = |label: &[u8]| -> [u8; 32] {
        // HMAC accepts keys of any length, so this cannot fail.
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        m.update(label);
        m.finalize().into_bytes().into()
    };
    let cipher = XChaCha20Poly1305::new(&derive(b"singletable cursor v2: encryption").into());
    (cipher, derive(b"singletable cursor v2: nonce"))
}

fn seal(secret: &[u8], payload: &Payload) -> Option<String> {
    let json = serde_json::to_vec(payload).ok()?;
    let (cipher, nonce_key) = keys(secret);
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(&nonce_key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    m.update(&json);
    let tag = m.finalize().into_bytes();
    let nonce = XNonce::try_from(&tag[..NONCE_LEN]).ok()?;
    let sealed = cipher
        .encrypt(
            &nonce,
            chacha20poly1305::aead::Payload {
                msg: &json,
                aad: &[VERSION],
            },
        )
        .ok()?;
    let mut bytes = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
    bytes.push(VERSION);
    bytes.extend_from_slice(&nonce);
    bytes.extend_from_slice(&sealed);
    Some(URL_SAFE_NO_PAD.encode(bytes))
}

fn open(secret: &[u8], scope: &CursorScope<'_>, cursor: &str) -> Result<Payload, CursorError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor.as_bytes())
        .map_err(|_| CursorError::Encoding)?;
    let (&version, rest) = bytes.split_first().ok_or(CursorError::Encoding)?;
    if version != VERSION {
        return Err(CursorError::Version(version));
    }
    if rest.len() < NONCE_LEN + TAG_LEN {
        return Err(CursorError::Encoding);
    }
    let (nonce, sealed) = rest.split_at(NONCE_LEN);
    let (cipher, _) = keys(secret);
    let json = cipher
        .decrypt(
            &XNonce::try_from(nonce).map_err(|_| CursorError::Encoding)?,
            chacha20poly1305::aead::Payload {
                msg: sealed,
                aad: &[VERSION],
            },
        )
        .map_err(|_| CursorError::Tampered)?;
    let payload: Payload = serde_json::from_slice(&json).map_err(|_| CursorError::Malformed)?;
    if payload.t != scope.entity || payload.p != scope.pattern {
        return Err(CursorError::Foreign {
            expected: format!("{} {}", scope.entity, scope.pattern),
            found: format!("{} {}", payload.t, payload.p),
        });
    }
    if payload.k != scope.partition {
        return Err(CursorError::Foreign {
            expected: format!("{} {} in this partition", scope.entity, scope.pattern),
            found: format!("{} {} in another partition", payload.t, payload.p),
        });
    }
    if payload.q != scope.shape {
        return Err(CursorError::OtherShape);
    }
    Ok(payload)
}

/// A start key from a cursor, checked: only key attributes, strings (and,
/// for a multi-attribute key, numbers and binaries), with the expected
/// partition key value (a multi-attribute key's partition is checked
/// through the scope's partition text).
fn start_key(
    scope: &CursorScope<'_>,
    (e, n, b): Typed,
    partition: &str,
) -> Result<Item, CursorError> {
    let mut item = Item::with_capacity(e.len() + n.len() + b.len());
    let values = e
        .into_iter()
        .map(|(k, v)| (k, AttributeValue::S(v)))
        .chain(n.into_iter().map(|(k, v)| (k, AttributeValue::N(v))))
        .chain(
            b.into_iter()
                .map(|(k, v)| (k, AttributeValue::B(crate::value::Blob::new(v)))),
        );
    for (k, v) in values {
        if !scope.key_attrs.contains(&k.as_str()) || item.contains_key(&k) {
            return Err(CursorError::Malformed);
        }
        item.insert(k, v);
    }
    if scope.pk_attr.is_empty() {
        return Ok(item);
    }
    match item.get(scope.pk_attr) {
        Some(AttributeValue::S(pk)) if pk == partition => Ok(item),
        _ => Err(CursorError::Malformed),
    }
}

fn payload(scope: &CursorScope<'_>) -> Payload {
    Payload {
        t: scope.entity.to_owned(),
        p: scope.pattern.to_owned(),
        k: scope.partition.to_owned(),
        q: scope.shape,
        e: Vec::new(),
        n: Vec::new(),
        b: Vec::new(),
        s: Vec::new(),
    }
}

/// Encodes the positions of every shard of a sharded query.
///
/// ```
/// use singletable_runtime::page::{decode_shards, encode_shards, shape_digest, CursorScope, ShardPosition};
/// use singletable::{AttributeValue, Item};
///
/// let scope = CursorScope {
///     entity: "Order",
///     pattern: "by_date",
///     partition: "ORDERBYDATE",
///     pk_attr: "GSI1PK",
///     key_attrs: &["PK", "SK", "GSI1PK", "GSI1SK"],
///     shape: shape_digest(Some("GSI1"), true, None, None, 2),
/// };
/// let start: Item = [
///     ("PK".to_string(), AttributeValue::S("ORDER#o1".into())),
///     ("SK".to_string(), AttributeValue::S("DETAILS".into())),
///     ("GSI1PK".to_string(), AttributeValue::S("ORDERBYDATE#1".into())),
///     ("GSI1SK".to_string(), AttributeValue::S("DATE#2024-05-01".into())),
/// ]
/// .into();
/// let shards = [ShardPosition { done: true, start: None }, ShardPosition { done: false, start: Some(start) }];
/// let cursor = encode_shards(b"secret", &scope, &shards).unwrap();
/// let back = decode_shards(b"secret", &scope, &cursor, 2, |i| format!("ORDERBYDATE#{i}"))?;
/// assert_eq!(back, shards);
/// # Ok::<(), singletable::CursorError>(())
/// ```
pub fn encode_shards(
    secret: &[u8],
    scope: &CursorScope<'_>,
    shards: &[ShardPosition],
) -> Option<String> {
    let mut s = Vec::with_capacity(shards.len());
    for pos in shards {
        let e = match &pos.start {
            Some(k) => strings(k)?,
            None => Vec::new(),
        };
        s.push((pos.done, e));
    }
    seal(
        secret,
        &Payload {
            s,
            ..payload(scope)
        },
    )
}

/// Decodes a sharded query's cursor; `shard_pk(i)` is shard `i`'s partition
/// key value. See [`encode_shards`] for an example.
///
/// ```
/// use singletable_runtime::page::{decode_shards, shape_digest, CursorScope};
///
/// let scope = CursorScope {
///     entity: "Order",
///     pattern: "by_date",
///     partition: "ORDERBYDATE",
///     pk_attr: "GSI1PK",
///     key_attrs: &["PK", "SK", "GSI1PK", "GSI1SK"],
///     shape: shape_digest(Some("GSI1"), true, None, None, 2),
/// };
/// // Whatever a client sends that this secret did not seal is refused.
/// assert!(decode_shards(b"secret", &scope, "bm90LWEtY3Vyc29y", 2, |i| format!("ORDERBYDATE#{i}")).is_err());
/// ```
pub fn decode_shards(
    secret: &[u8],
    scope: &CursorScope<'_>,
    cursor: &str,
    shards: usize,
    shard_pk: impl Fn(usize) -> String,
) -> Result<Vec<ShardPosition>, CursorError> {
    let payload = open(secret, scope, cursor)?;
    if payload.s.len() != shards || !payload.e.is_empty() {
        return Err(CursorError::Malformed);
    }
    payload
        .s
        .into_iter()
        .enumerate()
        .map(|(i, (done, e))| {
            let start = if e.is_empty() {
                None
            } else {
                Some(start_key(scope, (e, Vec::new(), Vec::new()), &shard_pk(i))?)
            };
            Ok(ShardPosition { done, start })
        })
        .collect()
}

/// Encodes `LastEvaluatedKey` as a cursor for `scope`. Key attributes that
/// are not strings give `None`, unless the scope is a multi-attribute
/// key's (an empty `pk_attr`), whose attributes may be numbers or binaries.
///
/// ```
/// use singletable_runtime::page::{encode, shape_digest, CursorScope};
/// use singletable::{AttributeValue, Item};
///
/// let scope = CursorScope {
///     entity: "Order",
///     pattern: "orders",
///     partition: "USER#ana",
///     pk_attr: "PK",
///     key_attrs: &["PK", "SK"],
///     shape: shape_digest(None, true, None, None, 1),
/// };
/// let key: Item = [("PK".to_string(), AttributeValue::S("USER#ana".into()))].into();
/// let a = encode(b"secret", &scope, &key).unwrap();
/// assert_eq!(a, encode(b"secret", &scope, &key).unwrap()); // same position, same cursor
/// assert!(a.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')); // URL-safe
/// let numeric: Item = [("PK".to_string(), AttributeValue::N("1".into()))].into();
/// assert_eq!(encode(b"secret", &scope, &numeric), None);
/// ```
pub fn encode(secret: &[u8], scope: &CursorScope<'_>, last_key: &Item) -> Option<String> {
    let (e, n, b) = typed(scope, last_key)?;
    seal(
        secret,
        &Payload {
            e,
            n,
            b,
            ..payload(scope)
        },
    )
}

/// Decodes and checks a cursor for `scope`, giving the `ExclusiveStartKey`.
///
/// ```
/// use singletable_runtime::page::{decode, shape_digest, CursorScope};
/// use singletable::CursorError;
///
/// let scope = CursorScope {
///     entity: "Order",
///     pattern: "orders",
///     partition: "USER#ana",
///     pk_attr: "PK",
///     key_attrs: &["PK", "SK"],
///     shape: shape_digest(None, true, None, None, 1),
/// };
/// assert!(matches!(decode(b"secret", &scope, "%%%"), Err(CursorError::Encoding)));
/// ```
pub fn decode(secret: &[u8], scope: &CursorScope<'_>, cursor: &str) -> Result<Item, CursorError> {
    let payload = open(secret, scope, cursor)?;
    if !payload.s.is_empty() {
        return Err(CursorError::Malformed);
    }
    start_key(scope, (payload.e, payload.n, payload.b), scope.partition)
}

/// The cursor secret of a handle that was given none: random, drawn once
/// per process. Cursors then stay valid for the life of the process;
/// applications served by several processes (or that must honour cursors
/// across restarts) set one secret with
/// [`Db::with_cursor_secret`](crate::Db::with_cursor_secret).
pub(crate) fn process_secret() -> Vec<u8> {
    static SECRET: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    SECRET
        .get_or_init(|| {
            let mut key = [0u8; 32];
            if getrandom::fill(&mut key).is_err() {
                // No OS randomness: fall back to std's randomly seeded
                // hasher keys, still unknown to clients.
                use std::hash::{BuildHasher, Hasher};
                for chunk in key.chunks_mut(8) {
                    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                    h.write_usize(chunk.as_ptr() as usize);
                    chunk.copy_from_slice(&h.finish().to_le_bytes());
                }
            }
            key
        })
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> CursorScope<'static> {
        CursorScope {
            entity: "Order",
            pattern: "orders",
            partition: "USER#1",
            pk_attr: "PK",
            key_attrs: &["PK", "SK"],
            shape: shape_digest(None, true, None, None, 0),
        }
    }

    fn key() -> Item {
        let mut k = Item::new();
        k.insert("PK".into(), AttributeValue::S("USER#1".into()));
        k.insert("SK".into(), AttributeValue::S("ORDER#9".into()));
        k
    }

    #[test]
    fn round_trips_and_refuses_changes() {
        let c = encode(b"s", &scope(), &key()).unwrap();
        assert_eq!(decode(b"s", &scope(), &c).unwrap(), key());
        assert_eq!(encode(b"s", &scope(), &key()).unwrap(), c, "deterministic");
        assert_eq!(decode(b"other", &scope(), &c), Err(CursorError::Tampered));
        let mut other = scope();
        other.partition = "USER#2";
        assert!(matches!(
            decode(b"s", &other, &c),
            Err(CursorError::Foreign { .. })
        ));
        let mut other = scope();
        other.entity = "Invoice";
        assert!(matches!(
            decode(b"s", &other, &c),
            Err(CursorError::Foreign { .. })
        ));
        let mut other = scope();
        other.shape = shape_digest(None, false, None, None, 0);
        assert_eq!(decode(b"s", &other, &c), Err(CursorError::OtherShape));
        assert_eq!(decode(b"s", &scope(), "%%%"), Err(CursorError::Encoding));
        assert_eq!(decode(b"s", &scope(), ""), Err(CursorError::Encoding));
    }

    #[test]
    fn shapes_differ_by_every_part() {
        use crate::expr::Cmp;
        let f = Condition::eq("status", AttributeValue::S("A".into()));
        let g = Condition::eq("status", AttributeValue::S("B".into()));
        let sk = SortCondition::BeginsWith("ORDER#".into());
        let shapes = [
            shape_digest(None, true, None, None, 0),
            shape_digest(Some("GSI1"), true, None, None, 0),
            shape_digest(None, false, None, None, 0),
            shape_digest(None, true, Some(&sk), None, 0),
            shape_digest(
                None,
                true,
                Some(&SortCondition::Compare(Cmp::Gt, "ORDER#".into())),
                None,
                0,
            ),
            shape_digest(None, true, None, Some(&f), 0),
            shape_digest(None, true, None, Some(&g), 0),
            shape_digest(None, true, None, None, 4),
        ];
        for (i, a) in shapes.iter().enumerate() {
            for b in &shapes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(
            shape_digest(None, true, Some(&sk), Some(&f), 0),
            shape_digest(None, true, Some(&sk), Some(&f.clone()), 0)
        );
    }
}
