//! Where a backfill is: per scan segment, not started, done, or after a
//! `LastEvaluatedKey`; with the counts so far. Serializable, so a job can
//! save it as it goes and resume after a crash.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use singletable_runtime::error::{Error, Refusal};
use singletable_runtime::value::{AttributeValue, Blob, Item};

/// What a backfill has done so far, counted across the runs that resumed
/// it.
///
/// ```
/// use singletable::backfill::Counts;
///
/// let none = Counts::default();
/// assert_eq!((none.scanned, none.rewritten, none.failed), (0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    /// Items the scan evaluated, of every entity type (`ScannedCount`;
    /// when an executor does not report it, the items of the entity).
    pub scanned: u64,
    /// Items of the entity read.
    pub matched: u64,
    /// Items rewritten (in a dry run: that would be).
    pub rewritten: u64,
    /// Items whose keys (and schema version) already matched.
    pub unchanged: u64,
    /// Rewrites refused because the item changed after it was read; each
    /// was read again and redone.
    pub conflicts: u64,
    /// Items deleted (or replaced by another entity type) between the read
    /// and the rewrite: left alone.
    pub vanished: u64,
    /// Items that could not be rewritten: they do not decode, their
    /// primary key no longer matches its template, or they kept changing.
    /// Each is in the report's failures.
    pub failed: u64,
    /// Requests DynamoDB throttled, sent again after a backoff.
    pub throttled: u64,
    /// Items without an entity type that the scan read for an entity that
    /// reads such items (`#[entity(untyped)]`, `adopt = keys`) but whose
    /// primary key no key template of the entity builds: another untyped
    /// entity's, or written by another client in a shape it does not
    /// declare. Left alone; they are not in `matched`.
    #[serde(default)]
    pub unclaimed: u64,
}

impl Counts {
    pub(crate) fn add(&mut self, other: &Counts) {
        self.apply(other, u64::saturating_add);
    }

    pub(crate) fn sub(&mut self, other: &Counts) {
        self.apply(other, u64::saturating_sub);
    }

    fn apply(&mut self, o: &Counts, f: fn(u64, u64) -> u64) {
        self.scanned = f(self.scanned, o.scanned);
        self.matched = f(self.matched, o.matched);
        self.rewritten = f(self.rewritten, o.rewritten);
        self.unchanged = f(self.unchanged, o.unchanged);
        self.conflicts = f(self.conflicts, o.conflicts);
        self.vanished = f(self.vanished, o.vanished);
        self.failed = f(self.failed, o.failed);
        self.throttled = f(self.throttled, o.throttled);
        self.unclaimed = f(self.unclaimed, o.unclaimed);
    }
}

/// A key attribute value in DynamoDB's JSON shape (`{"S": "..."}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum KeyValue {
    S(String),
    N(String),
    /// Base64.
    B(String),
}

/// Where one segment of the scan is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Segment {
    /// Not read yet.
    Start,
    /// Read up to and including the item with this key.
    After { key: BTreeMap<String, KeyValue> },
    /// Read to the end.
    Done,
}

/// Where a backfill is: the position of each segment of its parallel scan
/// (a `LastEvaluatedKey`, a key of the table, never item data) and the
/// counts so far. Every progress report carries one; save it (as
/// [`Checkpoint::to_json`]) and pass it to
/// [`Backfill::resume_from`](super::Backfill::resume_from) to go on after
/// a crash. The items of the page being processed when it was taken are
/// read again on resume; rewriting them again finds nothing to change.
///
/// ```
/// # use singletable::Embedded;
/// use singletable::backfill::Checkpoint;
/// # use singletable::{Db, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", gsi1)]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct OrderV1 { pub id: String, pub customer: String }
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub customer: String }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// # for i in 0..10 {
/// #     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
/// # }
/// let report = singletable::Backfill::<Order>::new().segments(2).run(&db).await?;
/// let saved: String = report.checkpoint.to_json(); // store it anywhere
/// let checkpoint = Checkpoint::from_json(&saved)?;
/// assert_eq!(checkpoint.entity(), "Order");
/// assert_eq!(checkpoint.total_segments(), 2);
/// assert_eq!(checkpoint.segments_done(), 2);
/// assert!(checkpoint.is_done());
/// assert_eq!(checkpoint.counts().rewritten, 10);
/// assert!(Checkpoint::from_json("{}").is_err());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    entity: String,
    total_segments: u32,
    segments: Vec<Segment>,
    counts: Counts,
}

fn bad(what: impl std::fmt::Display) -> Error {
    Error::Refused(Refusal::BadCheckpoint {
        problem: what.to_string(),
    })
}

impl Checkpoint {
    pub(crate) fn new(entity: &str, total_segments: u32) -> Self {
        Self {
            entity: entity.to_owned(),
            total_segments,
            segments: vec![Segment::Start; total_segments as usize],
            counts: Counts::default(),
        }
    }

    /// The entity type the backfill rewrites.
    pub fn entity(&self) -> &str {
        &self.entity
    }

    /// Segments of the parallel scan.
    pub fn total_segments(&self) -> u32 {
        self.total_segments
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Segments read to the end.
    pub fn segments_done(&self) -> u32 {
        self.segments
            .iter()
            .filter(|s| matches!(s, Segment::Done))
            .count() as u32
    }

    /// Whether every segment is read to the end.
    pub fn is_done(&self) -> bool {
        self.segments_done() == self.total_segments
    }

    /// As JSON, to save.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("plain data serializes"))
    }

    /// A checkpoint saved with [`Checkpoint::to_json`].
    pub fn from_json(json: &str) -> Result<Self, Error> {
        let c: Self = serde_json::from_str(json).map_err(bad)?;
        if c.total_segments == 0 || c.segments.len() != c.total_segments as usize {
            return Err(bad("segment count does not match its segments"));
        }
        Ok(c)
    }

    pub(crate) fn counts_mut(&mut self) -> &mut Counts {
        &mut self.counts
    }

    pub(crate) fn is_segment_done(&self, segment: u32) -> bool {
        matches!(self.segments.get(segment as usize), Some(Segment::Done))
    }

    /// Where segment `segment` goes on from (`ExclusiveStartKey`).
    pub(crate) fn start(&self, segment: u32) -> Result<Option<Item>, Error> {
        match self.segments.get(segment as usize) {
            Some(Segment::After { key }) => key
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        KeyValue::S(s) => AttributeValue::S(s.clone()),
                        KeyValue::N(n) => AttributeValue::N(n.clone()),
                        KeyValue::B(b) => {
                            AttributeValue::B(Blob::new(STANDARD.decode(b).map_err(bad)?))
                        }
                    };
                    Ok((k.clone(), v))
                })
                .collect::<Result<Item, Error>>()
                .map(Some),
            _ => Ok(None),
        }
    }

    /// Records that segment `segment` was read up to `last_key` (`None`:
    /// to the end).
    pub(crate) fn advance(&mut self, segment: u32, last_key: Option<&Item>) -> Result<(), Error> {
        let state = match last_key {
            None => Segment::Done,
            Some(key) => Segment::After {
                key: key
                    .iter()
                    .map(|(k, v)| {
                        let v = match v {
                            AttributeValue::S(s) => KeyValue::S(s.clone()),
                            AttributeValue::N(n) => KeyValue::N(n.clone()),
                            AttributeValue::B(b) => KeyValue::B(STANDARD.encode(b.as_ref())),
                            other => return Err(bad(format!("key attribute {k} is {other:?}"))),
                        };
                        Ok((k.clone(), v))
                    })
                    .collect::<Result<_, Error>>()?,
            },
        };
        if let Some(s) = self.segments.get_mut(segment as usize) {
            *s = state;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_round_trip_through_json() {
        let mut c = Checkpoint::new("Order", 3);
        let key: Item = [
            ("PK".to_owned(), AttributeValue::S("ORDER#o1".into())),
            ("SK".to_owned(), AttributeValue::S("DETAILS".into())),
        ]
        .into_iter()
        .collect();
        c.advance(0, Some(&key)).unwrap();
        c.advance(2, None).unwrap();
        c.counts_mut().matched = 7;
        let back = Checkpoint::from_json(&c.to_json()).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.start(0).unwrap(), Some(key));
        assert_eq!(back.start(1).unwrap(), None);
        assert!(back.is_segment_done(2));
        assert_eq!(back.segments_done(), 1);
        assert!(Checkpoint::from_json("{}").is_err());
        assert!(
            Checkpoint::from_json(
                r#"{"entity":"Order","total_segments":2,"segments":[{"state":"done"}],"counts":{"scanned":0,"matched":0,"rewritten":0,"unchanged":0,"conflicts":0,"vanished":0,"failed":0,"throttled":0}}"#
            )
            .is_err()
        );
    }
}
