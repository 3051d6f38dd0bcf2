//! Stream consumers: a stream record decoded into a typed [`Change`] of an
//! entity, and [`changes`] over any source of records (the embedded
//! backend's change feed, a Lambda event, the DynamoDB Streams API). The
//! records themselves, their sources and positions are the executors'
//! (`singletable::stream`); this is the job that reads them.
//!
//! ```
//! use singletable::stream::{Change, EventKind, changes};
//! use singletable::{Db, Embedded, Entity, OtherTypes, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop", stream = new_and_old_images)]
//! pub struct Shop;
//!
//! #[derive(Entity, Debug, PartialEq)]
//! #[entity(table = Shop, name = "Order")]
//! #[pk("ORDER#<id>")]
//! #[sk("DETAILS")]
//! pub struct Order { pub id: String, pub total: u32 }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! db.put(&Order { id: "o1".into(), total: 10 }).await?;
//! db.put(&Order { id: "o1".into(), total: 12 }).await?;
//! let feed = db.executor().change_feed("Shop")?;
//! let change = Change::<Order>::from_record(feed[1].clone(), OtherTypes::Error)?.unwrap();
//! assert_eq!(change.event.kind(), EventKind::Modify);
//! assert_eq!(change.event.new_image().unwrap().total, 12);
//! assert_eq!(changes::<Order, _>(&feed, OtherTypes::Skip).count(), 2);
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! # Resuming, and a position the stream cannot continue
//!
//! A long-running consumer reads batches from a `StreamSource` (the
//! embedded backend's `EmbeddedStream`, the AWS driver's `SdkStream`),
//! handles each batch's records with [`changes`], and only then stores
//! `batch.position.encode()`. Resumed from a stored position that names
//! records the stream no longer holds (a shard trimmed 24 hours after it
//! closed, before the consumer read it to its end; a position of another
//! stream, such as the table's before it was deleted and created again),
//! `read_after` fails with [`Error::StreamTrimmed`] (`err.code()` is
//! `Some("TrimmedDataAccessException")`) on every backend: the records
//! between are gone, and no source quietly starts again from the oldest
//! record. To recover: bring what the consumer maintains up to date from
//! the table itself (a scan, or `Backfill` of the entities concerned),
//! then read on from `StreamPosition::default()` (every record still
//! held; handling is idempotent already, since delivery is at least once)
//! and store the position that returns.
//!
//! ```
//! use singletable::stream::{StreamPosition, changes};
//! use singletable_runtime::stream::StreamSource;
//! use singletable::{Db, Embedded, Entity, Error, OtherTypes, Table};
//! # #[derive(Table)]
//! # #[table(name = "Shop", stream = new_image)]
//! # pub struct Shop;
//! # #[derive(Entity, Debug, PartialEq)]
//! # #[entity(table = Shop, name = "Order")]
//! # #[pk("ORDER#<id>")]
//! # #[sk("DETAILS")]
//! # pub struct Order { pub id: String, pub total: u32 }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! db.put(&Order { id: "o1".into(), total: 10 }).await?;
//! let stream = db.executor().stream("Shop")?;
//! // A position stored by a consumer of another stream.
//! let stored = r#"{"shards":{"shardId-00000001-gone":"000000000000000000017"}}"#;
//! let batch = match stream.read_after(&StreamPosition::decode(stored)?).await {
//!     Err(Error::StreamTrimmed { shard, .. }) => {
//!         assert_eq!(shard, "shardId-00000001-gone");
//!         // Rebuild from the table here, then read every record still held.
//!         stream.read_after(&StreamPosition::default()).await?
//!     }
//!     other => other?,
//! };
//! let totals: Vec<u32> = changes::<Order, _>(&batch.records, OtherTypes::Skip)
//!     .filter_map(|c| c.ok()?.event.new_image().map(|o| o.total))
//!     .collect();
//! assert_eq!(totals, [10]);
//! let _store = batch.position.encode();
//! # Ok::<(), Error>(())
//! # }).unwrap();
//! ```

use std::time::SystemTime;

use singletable_runtime::decode::Decode;
use singletable_runtime::error::{DecodeError, DecodeErrorKind, Error};
use singletable_runtime::key::PrimaryKey;
use singletable_runtime::reader::OtherTypes;
use singletable_runtime::stream::{EventKind, IntoStreamRecord, StreamRecord};
use singletable_runtime::value::Item;

/// A change of an item of type `T`, decoded from a stream record.
///
/// ```
/// # use singletable::Embedded;
/// use singletable::stream::{changes, Change, EventKind};
/// # use singletable::{Db, Entity, OtherTypes, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", stream = new_and_old_images)]
/// # pub struct Shop;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct Order { pub id: String, pub total: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Order { id: "o1".into(), total: 10 }).await?;
/// db.put(&Order { id: "o1".into(), total: 12 }).await?;
/// db.delete::<Order>(Order::key("o1")?).await?;
/// let feed = db.executor().change_feed("Shop")?; // insert, modify, remove
/// let all: Vec<Change<Order>> = changes(feed, OtherTypes::Skip).collect::<Result<_, _>>()?;
/// let kinds: Vec<EventKind> = all.iter().map(|c| c.event.kind()).collect();
/// assert_eq!(kinds, [EventKind::Insert, EventKind::Modify, EventKind::Remove]);
/// assert_eq!(all[2].event.old_image().unwrap().total, 12);
/// assert!(all[2].event.new_image().is_none() && !all[2].by_ttl);
/// assert!(all[0].sequence_number < all[1].sequence_number);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Change<T> {
    /// What happened, with the images the stream's view carries.
    pub event: Event<T>,
    /// The item's primary key.
    pub key: PrimaryKey,
    /// The record's sequence number (decimal digits).
    pub sequence_number: String,
    /// When the write happened, approximately (DynamoDB rounds to the
    /// second, DynamoDB Local to the minute).
    pub approximate_creation_time: Option<SystemTime>,
    /// The record's `eventID`.
    pub event_id: String,
    /// Whether DynamoDB's TTL process removed the item.
    pub by_ttl: bool,
}

/// What a write did, with the images a stream's view carries: `None` where
/// the view leaves an image out (every image under `KEYS_ONLY`, the old one
/// under `NEW_IMAGE`, the new one under `OLD_IMAGE`).
///
/// ```
/// # use singletable::Embedded;
/// use singletable::stream::{changes, Event};
/// # use singletable::{Db, Entity, OtherTypes, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", stream = new_and_old_images)]
/// # pub struct Shop;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct Order { pub id: String, pub total: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Order { id: "o1".into(), total: 10 }).await?;
/// db.put(&Order { id: "o1".into(), total: 12 }).await?;
/// db.delete::<Order>(Order::key("o1")?).await?;
/// let feed = db.executor().change_feed("Shop")?; // insert, modify, remove
/// for change in changes::<Order, _>(&feed, OtherTypes::Skip) {
///     let event = change?.event;
///     assert_eq!(event.new_image().is_some(), event.kind() != singletable::stream::EventKind::Remove);
///     assert_eq!(event.old_image().is_some(), event.kind() != singletable::stream::EventKind::Insert);
///     match event {
///         Event::Insert { new } => assert_eq!(new.unwrap().total, 10),
///         Event::Modify { old, new } => assert!(old.unwrap().total < new.unwrap().total),
///         Event::Remove { old } => assert!(old.is_some()),
///     }
/// }
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Event<T> {
    /// The item was created.
    Insert {
        /// The item written.
        new: Option<T>,
    },
    /// The item was changed.
    Modify {
        /// The item before the write.
        old: Option<T>,
        /// The item after the write.
        new: Option<T>,
    },
    /// The item was deleted.
    Remove {
        /// The item deleted.
        old: Option<T>,
    },
}

impl<T> Event<T> {
    /// Insert, modify or remove.
    pub fn kind(&self) -> EventKind {
        match self {
            Event::Insert { .. } => EventKind::Insert,
            Event::Modify { .. } => EventKind::Modify,
            Event::Remove { .. } => EventKind::Remove,
        }
    }

    /// The item after the write, if the view carries it.
    pub fn new_image(&self) -> Option<&T> {
        match self {
            Event::Insert { new } | Event::Modify { new, .. } => new.as_ref(),
            Event::Remove { .. } => None,
        }
    }

    /// The item before the write, if the view carries it.
    pub fn old_image(&self) -> Option<&T> {
        match self {
            Event::Modify { old, .. } | Event::Remove { old } => old.as_ref(),
            Event::Insert { .. } => None,
        }
    }
}

/// Decodes `records` into changes of `T`, one `Result` per record, in
/// order; records of other entity types are left out under
/// [`OtherTypes::Skip`] and are errors under [`OtherTypes::Error`].
///
/// ```
/// # use singletable::Embedded;
/// use singletable::stream::changes;
/// # use singletable::{Db, Entity, OtherTypes, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", stream = new_and_old_images)]
/// # pub struct Shop;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct Order { pub id: String, pub total: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Order { id: "o1".into(), total: 10 }).await?;
/// db.put(&Order { id: "o1".into(), total: 12 }).await?;
/// db.delete::<Order>(Order::key("o1")?).await?;
/// let feed = db.executor().change_feed("Shop")?; // insert, modify, remove
/// let totals: Vec<u32> = changes::<Order, _>(feed, OtherTypes::Skip)
///     .filter_map(|c| c.ok()?.event.new_image().map(|o| o.total))
///     .collect();
/// assert_eq!(totals, [10, 12]);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub fn changes<T: Decode, R: IntoStreamRecord>(
    records: impl IntoIterator<Item = R>,
    other: OtherTypes,
) -> impl Iterator<Item = Result<Change<T>, Error>> {
    records.into_iter().filter_map(move |r| {
        r.into_stream_record()
            .and_then(|r| Change::from_record(r, other))
            .transpose()
    })
}

impl<T: Decode> Change<T> {
    /// Decodes `record` into a change of `T` (see [`changes`]):
    /// `Ok(None)` when it is a change of another entity type and `other`
    /// says to skip those. A record that carries images is of the type its
    /// images decode to; a keys-only record is of `T` when its key fits
    /// `T`'s own key parsers ([`Decode::key_matches`], `Entity::parses_key`).
    ///
    /// ```
    /// use singletable::stream::{Change, EventKind};
    /// use singletable::{Db, Embedded, Entity, OtherTypes, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", stream = new_and_old_images)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, PartialEq)]
    /// # #[entity(table = Shop, name = "Order")]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # pub struct Order { pub id: String, pub total: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// db.put(&Order { id: "o1".into(), total: 10 }).await?;
    /// let record = db.executor().change_feed("Shop")?.remove(0);
    /// let change = Change::<Order>::from_record(record, OtherTypes::Error)?.unwrap();
    /// assert_eq!(change.event.kind(), EventKind::Insert);
    /// assert_eq!(change.key, Order::key("o1")?);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn from_record(record: StreamRecord, other: OtherTypes) -> Result<Option<Self>, Error> {
        record.check()?;
        let key = record.key::<T::Table>()?;
        let decode = |image: Option<Item>| -> Result<(bool, Option<T>), Error> {
            match image {
                None => Ok((false, None)),
                Some(item) => T::decode(item, other).map(|v| (true, v)),
            }
        };
        let (had_new, new) = decode(record.new_image)?;
        let (had_old, old) = decode(record.old_image)?;
        let of_t = if had_new || had_old {
            new.is_some() || old.is_some()
        } else {
            T::key_matches(&key.pk, key.sk.as_deref())
        };
        if !of_t {
            return match other {
                OtherTypes::Skip => Ok(None),
                OtherTypes::Error => Err(Error::Decode {
                    entity: T::cursor_scope(),
                    source: DecodeError::new(DecodeErrorKind::EntityType {
                        expected: T::cursor_scope(),
                        found: format!("an item whose key {key:?} no key template of it builds"),
                    }),
                }),
            };
        }
        let event = match record.event {
            EventKind::Insert => Event::Insert { new },
            EventKind::Modify => Event::Modify { old, new },
            EventKind::Remove => Event::Remove { old },
        };
        Ok(Some(Self {
            event,
            key,
            sequence_number: record.sequence_number,
            approximate_creation_time: record.approximate_creation_time,
            event_id: record.event_id,
            by_ttl: record.by_ttl,
        }))
    }
}
