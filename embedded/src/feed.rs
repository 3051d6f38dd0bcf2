//! A table's change feed: the records its DynamoDB stream would hold, made
//! where writes commit, in commit order.
//!
//! What DynamoDB (and DynamoDB Local) write, the feed writes: one record
//! per item a write changed (a put or update that leaves the item as it
//! was writes none, nor does a delete of a missing item); the images the
//! view asks for; the records of a transaction or batch in the order of its
//! operations. Records are kept for 24 hours, as DynamoDB keeps them.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use futures_channel::mpsc::{UnboundedReceiver, UnboundedSender, unbounded};

use super::schema::TableSchema;
use crate::value::Item;
use singletable_core::entity::StreamView;
use singletable_core::stream::{EventKind, StreamRecord};

/// How long records stay in the feed, as in a DynamoDB stream.
const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

pub(crate) struct Feed {
    view: StreamView,
    records: VecDeque<StreamRecord>,
    next: u64,
    subscribers: Vec<UnboundedSender<StreamRecord>>,
}

impl Feed {
    pub(crate) fn new(view: StreamView) -> Self {
        Self {
            view,
            records: VecDeque::new(),
            next: 1,
            subscribers: Vec::new(),
        }
    }

    /// Records a committed write of the item `old` was and `new` is
    /// (`None`: absent) at `now`, unless it changed nothing; `by_ttl` when
    /// the write is TTL's deletion of an expired item (the record carries
    /// DynamoDB's TTL service identity).
    pub(crate) fn record(
        &mut self,
        schema: &TableSchema,
        old: Option<&Item>,
        new: Option<&Item>,
        now: SystemTime,
        by_ttl: bool,
    ) {
        let event = match (old, new) {
            (None, None) => return,
            (Some(o), Some(n)) if o == n => return,
            (None, Some(_)) => EventKind::Insert,
            (Some(_), Some(_)) => EventKind::Modify,
            (Some(_), None) => EventKind::Remove,
        };
        let Some(item) = new.or(old) else { return };
        let keys: Item = schema
            .table_keys()
            .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
            .collect();
        let new_image = new.filter(|_| self.view.has_new_image()).cloned();
        let old_image = old.filter(|_| self.view.has_old_image()).cloned();
        let size = [Some(&keys), new_image.as_ref(), old_image.as_ref()]
            .into_iter()
            .flatten()
            .map(singletable_core::size::item_size)
            .sum::<usize>();
        // DynamoDB reports the time to the second.
        let seconds = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let seq = self.next;
        self.next += 1;
        let record = StreamRecord {
            event_id: format!("00000000-0000-4000-8000-{seq:012x}"),
            event,
            keys,
            new_image,
            old_image,
            sequence_number: format!("{seq:021}"),
            approximate_creation_time: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)),
            view: Some(self.view),
            size_bytes: Some(size as u64),
            by_ttl,
        };
        self.subscribers
            .retain(|s| s.unbounded_send(record.clone()).is_ok());
        while self.records.front().is_some_and(|r| {
            r.approximate_creation_time
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > RETENTION)
        }) {
            self.records.pop_front();
        }
        self.records.push_back(record);
    }

    /// The view, the next sequence number and the records kept: what a
    /// snapshot keeps of the feed ([`Feed::restore`] makes it again).
    pub(crate) fn parts(&self) -> (StreamView, u64, &VecDeque<StreamRecord>) {
        (self.view, self.next, &self.records)
    }

    /// A feed as [`Feed::parts`] gave it (no subscribers: they belong to
    /// the process that made them).
    pub(crate) fn restore(view: StreamView, next: u64, records: VecDeque<StreamRecord>) -> Self {
        Self {
            view,
            records,
            next,
            subscribers: Vec::new(),
        }
    }

    /// The records kept, oldest first.
    pub(crate) fn records(&self) -> Vec<StreamRecord> {
        self.records.iter().cloned().collect()
    }

    /// The records after sequence number `after` (every record kept when
    /// `None`), oldest first; `None` when records after it were dropped
    /// (older than the retention), as DynamoDB's
    /// TrimmedDataAccessException says.
    pub(crate) fn records_after(&self, after: Option<u64>) -> Option<Vec<StreamRecord>> {
        let seq = |r: &StreamRecord| r.sequence_number.parse::<u64>().unwrap_or(0);
        let oldest = self.records.front().map_or(self.next, seq);
        if after.is_some_and(|a| a.saturating_add(1) < oldest) {
            return None;
        }
        Some(
            self.records
                .iter()
                .filter(|r| after.is_none_or(|a| seq(r) > a))
                .cloned()
                .collect(),
        )
    }

    /// A receiver of every record made from now on.
    pub(crate) fn subscribe(&mut self) -> UnboundedReceiver<StreamRecord> {
        let (tx, rx) = unbounded();
        self.subscribers.push(tx);
        rx
    }
}

/// The records of an embedded table's stream as they are committed, from
/// [`Embedded::subscribe`](super::Embedded::subscribe): a
/// [`Stream`](futures_util::Stream) that ends when the table is deleted.
///
/// ```
/// # use singletable::Embedded;
/// use singletable::stream::EventKind;
/// # use singletable::{Db, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", stream = new_image)]
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
/// let records = feed.drain();
/// assert_eq!(records.len(), 1);
/// assert_eq!(records[0].event, EventKind::Insert);
/// assert!(feed.drain().is_empty()); // nothing new since
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct ChangeFeed {
    rx: UnboundedReceiver<StreamRecord>,
}

impl ChangeFeed {
    pub(crate) fn new(rx: UnboundedReceiver<StreamRecord>) -> Self {
        Self { rx }
    }

    /// The records committed since the last call (or the subscription),
    /// without waiting.
    pub fn drain(&mut self) -> Vec<StreamRecord> {
        let mut out = Vec::new();
        while let Ok(r) = self.rx.try_recv() {
            out.push(r);
        }
        out
    }
}

impl futures_util::Stream for ChangeFeed {
    type Item = StreamRecord;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<StreamRecord>> {
        std::pin::Pin::new(&mut self.rx).poll_next(cx)
    }
}
