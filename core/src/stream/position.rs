//! Where a consumer of a table's stream stands: per shard, the sequence
//! number of the last record it handled. A consumer reads the records
//! after its position ([`StreamSource::read_after`]), handles them, and
//! only then stores the new position: at least once, in order per item
//! (a stream orders the records of one item within its shard, and a
//! source reads parent shards before their children).

use std::collections::BTreeMap;

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
    /// position after them. A shard the position names that the stream no
    /// longer keeps, or a sequence number older than the oldest record
    /// kept (24 hours), is DynamoDB's `TrimmedDataAccessException`: records
    /// were lost to the consumer, which must decide what to do.
    fn read_after<'a>(
        &'a self,
        position: &'a StreamPosition,
    ) -> BoxFuture<'a, Result<StreamBatch, Error>>;
}
