//! Streams on the engine: a table's change feed, its subscriptions, and
//! the stream read from a position (`EmbeddedStream`).

use crate::error::{Error, Fail};
use crate::feed::ChangeFeed;
use singletable_core::exec::BoxFuture;

use super::Embedded;

impl Embedded {
    /// The records of `table`'s stream, oldest first: what DynamoDB's stream
    /// of the table would hold after the same writes (see
    /// [`singletable_core::stream`]), kept for 24 hours. Fails when the table does not
    /// exist or has no stream (`#[table(stream = ...)]`).
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// use singletable::stream::EventKind;
    /// # #[derive(Table)]
    /// # #[table(name = "Docs", stream = keys_only)]
    /// # pub struct Docs;
    /// # #[derive(Entity)]
    /// # #[entity(table = Docs, name = "Line")]
    /// # #[pk("DOC#<doc>")]
    /// # #[sk("LINE#<n>")]
    /// # pub struct Line { pub doc: String, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    /// db.put(&Line { doc: "d".into(), n: 1 }).await?;
    /// db.delete::<Line>(Line::key("d", 1)?).await?;
    /// let kinds: Vec<EventKind> =
    ///     db.executor().change_feed("Docs")?.iter().map(|r| r.event).collect();
    /// assert_eq!(kinds, [EventKind::Insert, EventKind::Remove]);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn change_feed(
        &self,
        table: &str,
    ) -> Result<Vec<singletable_core::stream::StreamRecord>, Error> {
        let store = self.read();
        let t = store
            .table(table)
            .map_err(|e| e.into_error("DescribeStream"))?;
        match &t.feed {
            Some(feed) => Ok(feed.records()),
            None => Err(no_stream(table)),
        }
    }

    /// The records of `table`'s stream committed from now on, as they are
    /// committed: a [`Stream`](futures_util::Stream) a handler under test can
    /// consume while the code under test writes.
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", stream = keys_only)]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # pub struct Order { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// let mut feed = db.executor().subscribe("Shop")?;
    /// db.put(&Order { id: "o1".into() }).await?;
    /// assert_eq!(feed.drain().len(), 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn subscribe(&self, table: &str) -> Result<ChangeFeed, Error> {
        let mut store = self.write();
        let t = store
            .table_mut(table)
            .map_err(|e| e.into_error("DescribeStream"))?;
        match &mut t.feed {
            Some(feed) => Ok(ChangeFeed::new(feed.subscribe())),
            None => Err(no_stream(table)),
        }
    }

    /// `table`'s stream, read from a position
    /// ([`StreamSource`](singletable_core::stream::StreamSource)): what the AWS
    /// driver's `StreamReader` is on DynamoDB, so that one consumer runs on
    /// both. The stream has one shard, [`EMBEDDED_SHARD`].
    ///
    /// ```
    /// # use singletable::Embedded;
    /// use singletable_core::stream::{StreamPosition, StreamSource};
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", stream = keys_only)]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # pub struct Order { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// db.put(&Order { id: "o1".into() }).await?;
    /// let stream = db.executor().stream("Shop")?;
    /// let batch = stream.read_after(&StreamPosition::default()).await?;
    /// assert_eq!(batch.records.len(), 1);
    /// assert!(stream.read_after(&batch.position).await?.records.is_empty());
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn stream(&self, table: &str) -> Result<EmbeddedStream, Error> {
        let store = self.read();
        let t = store
            .table(table)
            .map_err(|e| e.into_error("DescribeStream"))?;
        if t.feed.is_none() {
            return Err(no_stream(table));
        }
        Ok(EmbeddedStream {
            embedded: self.clone(),
            table: table.to_owned(),
        })
    }
}

/// The one shard of an embedded table's stream.
///
/// ```
/// assert!(singletable::embedded::EMBEDDED_SHARD.starts_with("shardId-"));
/// ```
pub const EMBEDDED_SHARD: &str = "shardId-00000000000000000000-embedded";

/// An embedded table's stream read from a position, from
/// [`Embedded::stream`]: the same [`StreamSource`](singletable_core::stream::StreamSource)
/// as the AWS driver's `StreamReader`.
///
/// ```
/// # use singletable::Embedded;
/// use singletable_core::stream::{StreamPosition, StreamSource};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "Shop", stream = keys_only)]
/// # pub struct Shop;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let embedded = Embedded::new();
/// embedded.create_table::<Shop>("Shop")?;
/// let stream = embedded.stream("Shop")?;
/// assert!(stream.read_after(&StreamPosition::default()).await?.records.is_empty());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct EmbeddedStream {
    embedded: Embedded,
    table: String,
}

impl singletable_core::stream::StreamSource for EmbeddedStream {
    fn read_after<'a>(
        &'a self,
        position: &'a singletable_core::stream::StreamPosition,
    ) -> BoxFuture<'a, Result<singletable_core::stream::StreamBatch, Error>> {
        Box::pin(async move {
            // A shard of another stream: refused as every source refuses it.
            let position = position.check_held([EMBEDDED_SHARD])?;
            let seq = position.after(EMBEDDED_SHARD);
            let trimmed = || Error::StreamTrimmed {
                shard: EMBEDDED_SHARD.to_owned(),
                after: seq.map(str::to_owned),
            };
            let after = seq
                .map(|s| s.parse::<u64>().map_err(|_| trimmed()))
                .transpose()?;
            let store = self.embedded.read();
            let t = store
                .table(&self.table)
                .map_err(|e| e.into_error("DescribeStream"))?;
            let feed = t.feed.as_ref().ok_or_else(|| no_stream(&self.table))?;
            let records = feed.records_after(after).ok_or_else(trimmed)?;
            let mut next = position.clone();
            if let Some(last) = records.last() {
                next.advance(EMBEDDED_SHARD, &last.sequence_number);
            }
            Ok(singletable_core::stream::StreamBatch {
                records,
                position: next,
            })
        })
    }
}

fn no_stream(table: &str) -> Error {
    Fail::validation(format!(
        "Table {table} has no stream: declare one with #[table(stream = ...)]"
    ))
    .into_error("DescribeStream")
}
