//! Where a consumer of a table's stream stands: per shard, the sequence
//! number of the last record it handled. A consumer reads the records
//! after its position ([`StreamSource::read_after`]), handles them, and
//! only then stores the new position: at least once, in order per item
//! (a stream orders the records of one item within its shard, and a
//! source reads parent shards before their children).

use std::collections::{BTreeMap, BTreeSet};

use super::StreamRecord;
use crate::error::{Error, StreamError};
use crate::exec::BoxFuture;

/// A consumer's position in a stream: for each shard read, the sequence
/// number of the last record handled. Plain data for the caller to store
/// (a string, [`StreamPosition::encode`]; or serde), and to give back to
/// [`StreamSource::read_after`] when it resumes, in this process or
/// another.
///
/// ```
/// use singletable::stream::StreamPosition;
///
/// let mut at = StreamPosition::default();
/// assert_eq!(at.after("shard-1"), None); // from the oldest record kept
/// at.advance("shard-1", "000000000000000000042");
/// let stored = at.encode();
/// let back = StreamPosition::decode(&stored)?;
/// assert_eq!(back.after("shard-1"), Some("000000000000000000042"));
/// assert!(StreamPosition::decode("not a position").is_err());
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StreamPosition {
    shards: BTreeMap<String, String>,
    /// Closed shards read to their end: one the stream no longer lists is
    /// simply done, not trimmed. Left out of the stored form when empty,
    /// so positions stored before it read back the same.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    finished: BTreeSet<String>,
}

impl StreamPosition {
    /// The sequence number of the last record handled in `shard`; `None`
    /// when none was (the shard is read from its oldest record kept).
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// assert_eq!(StreamPosition::default().after("s"), None);
    /// ```
    pub fn after(&self, shard: &str) -> Option<&str> {
        self.shards.get(shard).map(String::as_str)
    }

    /// Records that `shard`'s records up to `sequence_number` are handled.
    /// A position never moves back: an older sequence number (compared as
    /// the decimal numbers they are) leaves it where it is.
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// let mut at = StreamPosition::default();
    /// at.advance("s", "120");
    /// at.advance("s", "99"); // older: ignored
    /// assert_eq!(at.after("s"), Some("120"));
    /// ```
    pub fn advance(&mut self, shard: &str, sequence_number: &str) {
        let newer =
            |old: &String| (sequence_number.len(), sequence_number) > (old.len(), old.as_str());
        match self.shards.get_mut(shard) {
            Some(old) if newer(old) => *old = sequence_number.to_owned(),
            Some(_) => {}
            None => {
                self.shards
                    .insert(shard.to_owned(), sequence_number.to_owned());
            }
        }
    }

    /// The shards read so far.
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// let mut at = StreamPosition::default();
    /// at.advance("b", "2");
    /// at.advance("a", "1");
    /// assert_eq!(at.shards().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn shards(&self) -> impl Iterator<Item = &str> {
        self.shards.keys().map(String::as_str)
    }

    /// Records that `shard`, a closed shard, was read to its end: the
    /// stream may then drop it (DynamoDB trims shards after 24 hours)
    /// without [`StreamPosition::check_held`] taking that for lost records.
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// let mut at = StreamPosition::default();
    /// at.advance("parent", "7");
    /// at.finish("parent");
    /// assert!(at.is_finished("parent") && !at.is_finished("child"));
    /// ```
    pub fn finish(&mut self, shard: &str) {
        self.finished.insert(shard.to_owned());
    }

    /// Whether `shard` was read to its end ([`StreamPosition::finish`]).
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// assert!(!StreamPosition::default().is_finished("s"));
    /// ```
    pub fn is_finished(&self, shard: &str) -> bool {
        self.finished.contains(shard)
    }

    /// The position checked against the shards a stream holds now (`held`),
    /// before any record is read: every source's first step, so a position
    /// the stream cannot continue is refused the same way on every
    /// backend. A shard the position read but did not finish that `held`
    /// lacks was trimmed before the consumer read it to its end, or is of
    /// another stream: [`Error::StreamTrimmed`], never a silent restart
    /// from the oldest record. Finished shards no longer held are dropped
    /// from the returned position.
    ///
    /// ```
    /// use singletable::Error;
    /// use singletable::stream::StreamPosition;
    ///
    /// let mut at = StreamPosition::default();
    /// at.advance("old", "5");
    /// at.finish("old");
    /// at.advance("open", "9");
    /// // `old` was read to its end, so its absence loses nothing.
    /// let kept = at.check_held(["open", "new"])?;
    /// assert_eq!(kept.shards().collect::<Vec<_>>(), ["open"]);
    /// // `open` gone before it was finished: its later records are lost.
    /// match at.check_held(["new"]) {
    ///     Err(Error::StreamTrimmed { shard, after }) => {
    ///         assert_eq!((shard.as_str(), after.as_deref()), ("open", Some("9")));
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), Error>(())
    /// ```
    pub fn check_held<'a>(
        &self,
        held: impl IntoIterator<Item = &'a str>,
    ) -> Result<StreamPosition, Error> {
        let held: BTreeSet<&str> = held.into_iter().collect();
        let mut kept = self.clone();
        for (shard, seq) in &self.shards {
            if held.contains(shard.as_str()) {
                continue;
            }
            if !self.finished.contains(shard) {
                return Err(Error::StreamTrimmed {
                    shard: shard.clone(),
                    after: Some(seq.clone()),
                });
            }
            kept.shards.remove(shard);
            kept.finished.remove(shard);
        }
        kept.finished.retain(|s| held.contains(s.as_str()));
        Ok(kept)
    }

    /// The position as a string to store (JSON).
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// assert_eq!(StreamPosition::default().encode(), r#"{"shards":{}}"#);
    /// ```
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("plain data serializes"))
    }

    /// A position stored with [`StreamPosition::encode`]; a typed error
    /// (never a panic) for anything else, sequence numbers that are not
    /// decimal digits included.
    ///
    /// ```
    /// use singletable::stream::StreamPosition;
    ///
    /// assert!(StreamPosition::decode(r#"{"shards":{"s":"12x"}}"#).is_err());
    /// ```
    pub fn decode(stored: &str) -> Result<Self, Error> {
        let invalid = |why: String| Error::Stream {
            event_id: None,
            reason: StreamError::Invalid(format!("stream position: {why}")),
        };
        let position: Self = serde_json::from_str(stored).map_err(|e| invalid(e.to_string()))?;
        if let Some((shard, seq)) = position
            .shards
            .iter()
            .find(|(_, s)| s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(invalid(format!(
                "shard {shard:?} has sequence number {seq:?}, not decimal digits"
            )));
        }
        Ok(position)
    }
}

/// Records read after a position, and the position after them: store
/// `position` once `records` are handled.
///
/// ```
/// use singletable_core::stream::{StreamBatch, StreamPosition};
///
/// let empty = StreamBatch { records: vec![], position: StreamPosition::default() };
/// assert!(empty.records.is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct StreamBatch {
    /// The records, parents' shards before their children's, each shard's
    /// in order.
    pub records: Vec<StreamRecord>,
    /// The position after them.
    pub position: StreamPosition,
}

/// A table's stream read from a position, the same on every backend: the
/// AWS driver's `StreamReader` (the DynamoDB Streams API) and the embedded
/// backend's `EmbeddedStream` (its change feed) implement it, so one
/// consumer runs on both.
///
/// ```
/// use singletable_core::stream::{StreamPosition, StreamSource};
/// use singletable::{Db, Embedded, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop", stream = new_image)]
/// pub struct Shop;
///
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// pub struct Order { pub id: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// let stream = db.executor().stream("Shop")?;
/// db.put(&Order { id: "o1".into() }).await?;
/// let batch = stream.read_after(&StreamPosition::default()).await?;
/// assert_eq!(batch.records.len(), 1);
/// db.put(&Order { id: "o2".into() }).await?;
/// let next = stream.read_after(&batch.position).await?; // resumes after o1
/// assert_eq!(next.records.len(), 1);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub trait StreamSource: Send + Sync {
    /// Every record after `position` that the stream holds now, and the
    /// position after them.
    ///
    /// # A position the stream cannot continue
    ///
    /// A shard the position names that the stream no longer holds (it
    /// was trimmed, 24 hours after it closed, before the consumer read it
    /// to its end; or it is of another stream, e.g. of the table before it
    /// was recreated), or a sequence number older than the oldest record
    /// kept, is [`Error::StreamTrimmed`] (DynamoDB's
    /// `TrimmedDataAccessException`; `err.code()` names it): the records
    /// between the position and what the stream holds are gone. No source
    /// starts again from the oldest record on its own, which would skip
    /// them without a word. To recover, bring what the consumer maintains
    /// up to date from the table itself (a scan, or a `singletable::Backfill`
    /// of the affected entities), then read on from
    /// [`StreamPosition::default()`] (every record the stream still
    /// holds; handling must be idempotent, as it already is for
    /// at-least-once delivery) and store the position that returns.
    ///
    /// ```
    /// use singletable_core::stream::{StreamPosition, StreamSource};
    /// use singletable::{Db, Embedded, Error, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "Shop", stream = keys_only)]
    /// pub struct Shop;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// let stream = db.executor().stream("Shop")?;
    /// let mut stored = StreamPosition::default();
    /// stored.advance("shardId-of-another-stream", "42");
    /// let batch = match stream.read_after(&stored).await {
    ///     Err(Error::StreamTrimmed { .. }) => {
    ///         // Records were lost: rebuild from the table, then read on.
    ///         stream.read_after(&StreamPosition::default()).await?
    ///     }
    ///     other => other?,
    /// };
    /// assert!(batch.records.is_empty());
    /// # Ok::<(), Error>(())
    /// # }).unwrap();
    /// ```
    fn read_after<'a>(
        &'a self,
        position: &'a StreamPosition,
    ) -> BoxFuture<'a, Result<StreamBatch, Error>>;
}
