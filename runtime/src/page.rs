//! Opaque pagination cursors.
//!
//! A cursor is `base64url(version ‖ mac ‖ payload)`: the payload names the
//! access pattern, the partition key value and DynamoDB's
//! `LastEvaluatedKey`; the MAC (HMAC-SHA256, truncated to 16 bytes) is keyed
//! with the [`Db`](crate::Db)'s cursor secret. A cursor that was altered,
//! made by another version, or made for another access pattern or partition
//! is refused with [`CursorError`]; its key must also hold only the table's
//! key attributes, as strings, with the query's partition key value.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::CursorError;
use crate::value::{AttributeValue, Item};

const VERSION: u8 = 1;
const MAC_LEN: usize = 16;

/// What a cursor is valid for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorScope<'a> {
    /// Access pattern name (or `table:<entity>` for ad-hoc queries).
    pub pattern: &'a str,
    /// Partition key value of the query.
    pub partition: &'a str,
    /// Partition key attribute queried (table or index).
    pub pk_attr: &'a str,
    /// Attributes allowed in the start key: key attributes of the table and
    /// of the index queried.
    pub key_attrs: &'a [&'a str],
}

#[derive(Serialize, Deserialize)]
struct Payload {
    p: String,
    k: String,
    e: Vec<(String, String)>,
    /// Sharded queries: per shard, whether it is exhausted and where it
    /// continues.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    s: Vec<(bool, Vec<(String, String)>)>,
}

/// Where one shard of a sharded query continues.
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

fn seal(secret: &[u8], payload: &Payload) -> Option<String> {
    let json = serde_json::to_vec(payload).ok()?;
    let mut bytes = Vec::with_capacity(1 + MAC_LEN + json.len());
    bytes.push(VERSION);
    bytes.extend_from_slice(&mac(secret, &json));
    bytes.extend_from_slice(&json);
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
    if rest.len() < MAC_LEN {
        return Err(CursorError::Encoding);
    }
    let (tag, json) = rest.split_at(MAC_LEN);
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    m.update(&[VERSION]);
    m.update(json);
    m.verify_truncated_left(tag)
        .map_err(|_| CursorError::Tampered)?;
    let payload: Payload = serde_json::from_slice(json).map_err(|_| CursorError::Malformed)?;
    if payload.p != scope.pattern || payload.k != scope.partition {
        return Err(CursorError::Foreign {
            expected: format!("{} {}", scope.pattern, scope.partition),
            found: format!("{} {}", payload.p, payload.k),
        });
    }
    Ok(payload)
}

/// A start key from a cursor, checked: only key attributes, as strings,
/// with the expected partition key value.
fn start_key(
    scope: &CursorScope<'_>,
    entries: Vec<(String, String)>,
    partition: &str,
) -> Result<Item, CursorError> {
    let mut item = Item::with_capacity(entries.len());
    for (k, v) in entries {
        if !scope.key_attrs.contains(&k.as_str()) || item.contains_key(&k) {
            return Err(CursorError::Malformed);
        }
        item.insert(k, AttributeValue::S(v));
    }
    match item.get(scope.pk_attr) {
        Some(AttributeValue::S(pk)) if pk == partition => Ok(item),
        _ => Err(CursorError::Malformed),
    }
}

/// Encodes the positions of every shard of a sharded query.
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
            p: scope.pattern.to_owned(),
            k: scope.partition.to_owned(),
            e: Vec::new(),
            s,
        },
    )
}

/// Decodes a sharded query's cursor; `shard_pk(i)` is shard `i`'s partition
/// key value.
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
                Some(start_key(scope, e, &shard_pk(i))?)
            };
            Ok(ShardPosition { done, start })
        })
        .collect()
}

fn mac(secret: &[u8], payload: &[u8]) -> [u8; MAC_LEN] {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    m.update(&[VERSION]);
    m.update(payload);
    let full = m.finalize().into_bytes();
    let mut out = [0; MAC_LEN];
    out.copy_from_slice(&full[..MAC_LEN]);
    out
}

/// Encodes `LastEvaluatedKey` as a cursor for `scope`. Key attributes that
/// are not strings (never produced by singletable's keys) give `None`.
pub fn encode(secret: &[u8], scope: &CursorScope<'_>, last_key: &Item) -> Option<String> {
    seal(
        secret,
        &Payload {
            p: scope.pattern.to_owned(),
            k: scope.partition.to_owned(),
            e: strings(last_key)?,
            s: Vec::new(),
        },
    )
}

/// Decodes and checks a cursor for `scope`, giving the `ExclusiveStartKey`.
pub fn decode(secret: &[u8], scope: &CursorScope<'_>, cursor: &str) -> Result<Item, CursorError> {
    let payload = open(secret, scope, cursor)?;
    if !payload.s.is_empty() {
        return Err(CursorError::Malformed);
    }
    start_key(scope, payload.e, scope.partition)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> CursorScope<'static> {
        CursorScope {
            pattern: "orders",
            partition: "USER#1",
            pk_attr: "PK",
            key_attrs: &["PK", "SK"],
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
        assert_eq!(decode(b"other", &scope(), &c), Err(CursorError::Tampered));
        let mut other = scope();
        other.partition = "USER#2";
        assert!(matches!(
            decode(b"s", &other, &c),
            Err(CursorError::Foreign { .. })
        ));
        assert_eq!(decode(b"s", &scope(), "%%%"), Err(CursorError::Encoding));
        assert_eq!(decode(b"s", &scope(), ""), Err(CursorError::Encoding));
    }
}
