//! Reading a table's stream through the DynamoDB Streams API (feature
//! `streams`). Its records become [`StreamRecord`]s by the runtime's
//! conversion ([`IntoStreamRecord`]).

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::types::{self as sdk, ShardIteratorType};
use singletable_core::Error;
use singletable_core::exec::BoxFuture;
use singletable_core::stream::{
    IntoStreamRecord, StreamBatch, StreamPosition, StreamRecord, StreamSource,
};

use crate::error::service_error as service;

/// Reads a table's stream through the DynamoDB Streams API
/// (`DescribeStream`, `GetShardIterator`, `GetRecords`): every record still
/// in the stream, shard by shard, parents before children. Meant for tests
/// and tools; production consumers read streams through Lambda or the
/// Kinesis Client Library, which track positions and shard lineage.
#[derive(Debug, Clone)]
pub struct StreamReader {
    client: Client,
}

/// GetRecords calls per shard before [`StreamReader::read_all`] gives up
/// on a shard that keeps returning records.
const MAX_PAGES: usize = 10_000;

impl StreamReader {
    /// Reads through an SDK client configured as usual.
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// A reader of DynamoDB Local's streams at `endpoint` (the same URL as
    /// its tables), signing as `Db::local` does
    /// ([`LocalIdentity::from_env`](crate::LocalIdentity::from_env)), so
    /// it sees the streams of the tables `Db::local` sees.
    pub fn local(endpoint: &str) -> Self {
        Self::local_as(endpoint, &crate::LocalIdentity::from_env())
    }

    /// A reader of DynamoDB Local's streams at `endpoint` signing with
    /// `identity`, as [`SdkExecutor::local_as`](crate::SdkExecutor::local_as).
    pub fn local_as(endpoint: &str, identity: &crate::LocalIdentity) -> Self {
        let config = aws_sdk_dynamodbstreams::Config::builder()
            .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodbstreams::config::Region::new(
                identity.region.clone(),
            ))
            .endpoint_url(endpoint)
            .credentials_provider(identity.credentials())
            .build();
        Self::new(Client::from_conf(config))
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Every record of the stream `stream_arn` (a table's
    /// `LatestStreamArn`, see `Db::stream_arn`), from the
    /// oldest: each shard is read from `TRIM_HORIZON` until a `GetRecords`
    /// call returns no record (an open shard) or no next iterator (a
    /// closed one). The records of one item are in order; records of
    /// different shards are not interleaved by time. DynamoDB Local
    /// answers with every record written so far; DynamoDB itself may
    /// answer an open shard with an empty page before later records, so
    /// against it this reads what it can see now.
    pub async fn read_all(&self, stream_arn: &str) -> Result<Vec<StreamRecord>, Error> {
        Ok(self
            .read_after(stream_arn, &StreamPosition::default())
            .await?
            .records)
    }

    /// The stream `stream_arn` as a [`StreamSource`]: read from a position
    /// and resumed from the position it returns, the same API as the
    /// embedded backend's stream.
    ///
    /// ```no_run
    /// use singletable_core::stream::{StreamPosition, StreamSource};
    /// use singletable::{Db, SdkDb};
    ///
    /// # async fn run() -> singletable::Result<()> {
    /// let db = Db::local("http://127.0.0.1:8000", "Shop");
    /// let arn = db.stream_arn().await?.expect("the table has a stream");
    /// let stream = singletable::aws::StreamReader::local("http://127.0.0.1:8000").at(arn);
    /// let batch = stream.read_after(&StreamPosition::default()).await?;
    /// let stored = batch.position.encode(); // after handling batch.records
    /// let again = stream.read_after(&StreamPosition::decode(&stored)?).await?;
    /// # let _ = again; Ok(()) }
    /// ```
    pub fn at(&self, stream_arn: impl Into<String>) -> SdkStream {
        SdkStream {
            reader: self.clone(),
            arn: stream_arn.into(),
        }
    }

    /// Every record of the stream after `position` that it holds now, shard
    /// by shard, parents first; each shard from the record after the
    /// position's sequence number (`AFTER_SEQUENCE_NUMBER`), or from its
    /// oldest (`TRIM_HORIZON`) when the position has none. A shard of the
    /// position the stream no longer lists, unless it was read to its
    /// end, and DynamoDB's `TrimmedDataAccessException` are
    /// [`Error::StreamTrimmed`] (see `StreamSource::read_after`).
    async fn read_after(
        &self,
        stream_arn: &str,
        position: &StreamPosition,
    ) -> Result<StreamBatch, Error> {
        let mut shards: Vec<sdk::Shard> = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let out = self
                .client
                .describe_stream()
                .stream_arn(stream_arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| service("DescribeStream", e))?;
            let Some(desc) = out.stream_description else {
                break;
            };
            shards.extend(desc.shards.unwrap_or_default());
            match desc.last_evaluated_shard_id {
                Some(id) => start = Some(id),
                None => break,
            }
        }
        // Parents first: a shard whose parent is listed comes after it.
        let mut ordered: Vec<sdk::Shard> = Vec::with_capacity(shards.len());
        while !shards.is_empty() {
            let ready = shards.iter().position(|s| {
                s.parent_shard_id()
                    .is_none_or(|p| !shards.iter().any(|o| o.shard_id() == Some(p)))
            });
            ordered.push(shards.remove(ready.unwrap_or(0)));
        }
        // A shard the position read that the stream no longer lists: its
        // unread records are gone (TrimmedDataAccessException), not a
        // reason to start again from the oldest record.
        let position = position.check_held(ordered.iter().filter_map(sdk::Shard::shard_id))?;
        let mut records = Vec::new();
        let mut next = position.clone();
        for shard in &ordered {
            let Some(id) = shard.shard_id() else { continue };
            if position.is_finished(id) {
                continue;
            }
            let trimmed = |e: Error| match e.code() {
                Some("TrimmedDataAccessException") => Error::StreamTrimmed {
                    shard: id.to_owned(),
                    after: position.after(id).map(str::to_owned),
                },
                _ => e,
            };
            let iterator = match position.after(id) {
                Some(seq) => self
                    .client
                    .get_shard_iterator()
                    .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                    .sequence_number(seq),
                None => self
                    .client
                    .get_shard_iterator()
                    .shard_iterator_type(ShardIteratorType::TrimHorizon),
            };
            let out = iterator
                .stream_arn(stream_arn)
                .shard_id(id)
                .send()
                .await
                .map_err(|e| trimmed(service("GetShardIterator", e)))?;
            let mut iterator = out.shard_iterator;
            for _ in 0..MAX_PAGES {
                let Some(it) = iterator.take() else { break };
                let out = self
                    .client
                    .get_records()
                    .shard_iterator(it)
                    .send()
                    .await
                    .map_err(|e| trimmed(service("GetRecords", e)))?;
                let page = out.records.unwrap_or_default();
                let empty = page.is_empty();
                for r in page {
                    let record = r.into_stream_record()?;
                    next.advance(id, &record.sequence_number);
                    records.push(record);
                }
                iterator = out.next_shard_iterator;
                if iterator.is_none() {
                    // A closed shard read to its end: once the stream
                    // drops it, the position has lost nothing.
                    next.finish(id);
                }
                if empty {
                    break;
                }
            }
        }
        Ok(StreamBatch {
            records,
            position: next,
        })
    }
}

/// One stream read from a position through the DynamoDB Streams API, from
/// [`StreamReader::at`]: the [`StreamSource`] of a table on DynamoDB.
///
/// ```no_run
/// # async fn run() {
/// let stream = singletable::aws::StreamReader::local("http://127.0.0.1:8000").at("arn:...");
/// assert_eq!(stream.arn(), "arn:...");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SdkStream {
    reader: StreamReader,
    arn: String,
}

impl SdkStream {
    /// The stream's ARN.
    pub fn arn(&self) -> &str {
        &self.arn
    }
}

impl StreamSource for SdkStream {
    fn read_after<'a>(
        &'a self,
        position: &'a StreamPosition,
    ) -> BoxFuture<'a, Result<StreamBatch, Error>> {
        Box::pin(self.reader.read_after(&self.arn, position))
    }
}
