//! Typed stream records: the changes a table's DynamoDB stream reports,
//! decoded into the entities (or `#[derive(Collection)]` enums) they are
//! changes of.
//!
//! A table declares its stream with `#[table(stream = new_and_old_images)]`
//! (or `keys_only`, `new_image`, `old_image`): CreateTable enables it with
//! that view, `Db::verify` reports a table whose stream
//! differs, and the embedded backend keeps the same records in a change
//! feed ([`Embedded::change_feed`](https://docs.rs/singletable/latest/singletable/struct.Embedded.html#method.change_feed)).
//!
//! Records come from three places, all turned into one [`StreamRecord`]:
//! a Lambda function's DynamoDB event (feature `lambda`, the
//! `aws_lambda_events` types), the DynamoDB Streams API (feature
//! `streams`, `aws-sdk-dynamodbstreams`, with a small `StreamReader`
//! for tests and tools), and the embedded change feed. The consumers
//! (`singletable::stream::changes`, `Change::from_record`, in
//! `singletable-tools`) then decode each into a `Change`: an
//! insert, a modification or a removal, with the item's key, the record's
//! sequence number and approximate time, and the images its view carries,
//! typed.
//!
//! ```
//! use singletable::stream::{self, Event};
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
//! pub struct Order {
//!     pub id: String,
//!     pub total: u32,
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! db.put(&Order { id: "o1".into(), total: 10 }).await?;
//! db.put(&Order { id: "o1".into(), total: 12 }).await?;
//!
//! let feed = db.executor().change_feed("Shop")?;
//! let changes: Vec<_> = stream::changes::<Order, _>(feed, OtherTypes::Skip)
//!     .collect::<Result<_, _>>()?;
//! assert!(matches!(&changes[0].event, Event::Insert { new: Some(o) } if o.total == 10));
//! assert!(matches!(
//!     &changes[1].event,
//!     Event::Modify { old: Some(a), new: Some(b) } if a.total == 10 && b.total == 12
//! ));
//! assert_eq!(changes[1].key, Order::key("o1")?);
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! Items of other entity types are skipped with `OtherTypes::Skip`, or
//! each reported as an [`Error::Decode`] of kind
//! [`EntityType`](crate::DecodeErrorKind::EntityType) with
//! `OtherTypes::Error`; a keys-only record carries no entity type, so it
//! is told apart by its key (see `Decode::key_matches`). A malformed
//! record is an [`Error::Stream`]; in `changes`, each record gets its own
//! `Result`, so one bad record loses no other.

use std::time::SystemTime;

pub use crate::entity::StreamView;
use crate::entity::Table;
use crate::error::{Error, StreamError};
use crate::key::PrimaryKey;

use crate::value::{AttributeValue, Item};

#[cfg_attr(docsrs, doc(cfg(feature = "lambda")))]
#[cfg(feature = "lambda")]
pub mod lambda;
mod position;
#[cfg(feature = "streams")]
mod sdk;
/// The DynamoDB Streams SDK whose records become [`StreamRecord`]s
/// (feature `streams`), for naming its types.
#[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
#[cfg(feature = "streams")]
#[doc(no_inline)]
pub use aws_sdk_dynamodbstreams;
pub use position::{StreamBatch, StreamPosition, StreamSource};

/// What a write did to an item (`eventName`).
///
/// ```
/// use singletable::stream::EventKind;
///
/// assert_eq!(EventKind::from_name("MODIFY"), Some(EventKind::Modify));
/// assert_eq!(EventKind::Insert.as_str(), "INSERT");
/// assert_eq!(EventKind::from_name("UPDATE"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `INSERT`: the item did not exist.
    Insert,
    /// `MODIFY`: the item existed and some attribute changed.
    Modify,
    /// `REMOVE`: the item was deleted (by a request or by TTL).
    Remove,
}

impl EventKind {
    /// DynamoDB's name: `INSERT`, `MODIFY` or `REMOVE`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EventKind::Insert => "INSERT",
            EventKind::Modify => "MODIFY",
            EventKind::Remove => "REMOVE",
        }
    }

    /// The kind DynamoDB names `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "INSERT" => EventKind::Insert,
            "MODIFY" => EventKind::Modify,
            "REMOVE" => EventKind::Remove,
            _ => return None,
        })
    }
}

/// One stream record, whoever delivered it: the item's key attributes,
/// the images the stream's view carries, the sequence number (increasing
/// within a shard; the records of one item are in order) and the
/// approximate time of the write.
///
/// ```
/// # use singletable::Embedded;
/// use singletable::stream::{Change, EventKind};
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
/// let record = &feed[1];
/// record.check()?; // images as its view and event require
/// assert_eq!(record.event, EventKind::Modify);
/// assert_eq!(record.key::<Shop>()?, Order::key("o1")?);
/// let change = Change::<Order>::from_record(record.clone(), OtherTypes::Error)?.unwrap();
/// assert_eq!(change.event.new_image().unwrap().total, 12);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRecord {
    /// `eventID`: unique per record.
    pub event_id: String,
    /// `eventName`.
    pub event: EventKind,
    /// `Keys`: the item's key attributes.
    pub keys: Item,
    /// `NewImage`: the item after the write, when the view carries it.
    pub new_image: Option<Item>,
    /// `OldImage`: the item before the write, when the view carries it.
    pub old_image: Option<Item>,
    /// `SequenceNumber`: decimal digits, increasing within a shard.
    pub sequence_number: String,
    /// `ApproximateCreationDateTime`, when the record has one.
    pub approximate_creation_time: Option<SystemTime>,
    /// `StreamViewType`, when the record names it.
    pub view: Option<StreamView>,
    /// `SizeBytes`: keys and images as DynamoDB counts item sizes.
    pub size_bytes: Option<u64>,
    /// Whether DynamoDB's TTL process deleted the item (`userIdentity`
    /// `dynamodb.amazonaws.com`), rather than a request.
    pub by_ttl: bool,
}

/// A source of stream records: [`StreamRecord`] itself, a Lambda event's
/// record (feature `lambda`), a DynamoDB Streams API record (feature
/// `streams`).
///
/// ```
/// # use singletable::Embedded;
/// use singletable::stream::{changes, IntoStreamRecord};
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
/// let first = feed[0].clone().into_stream_record()?; // records are their own source
/// assert_eq!(changes::<Order, _>(&feed, OtherTypes::Skip).count(), 3);
/// # let _ = first;
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub trait IntoStreamRecord {
    /// The record, or why it is malformed ([`Error::Stream`]).
    fn into_stream_record(self) -> Result<StreamRecord, Error>;
}

impl IntoStreamRecord for StreamRecord {
    fn into_stream_record(self) -> Result<StreamRecord, Error> {
        Ok(self)
    }
}

impl IntoStreamRecord for &StreamRecord {
    fn into_stream_record(self) -> Result<StreamRecord, Error> {
        Ok(self.clone())
    }
}

fn stream_error(event_id: &str, reason: StreamError) -> Error {
    Error::Stream {
        event_id: (!event_id.is_empty()).then(|| event_id.to_owned()),
        reason,
    }
}

impl StreamRecord {
    fn fail(&self, reason: StreamError) -> Error {
        stream_error(&self.event_id, reason)
    }

    /// Checks that the record is one DynamoDB could write: an `INSERT`
    /// has no old image and a `REMOVE` no new one; a record that names its
    /// view carries exactly the images that view gives its event; the
    /// images' key attributes are the record's keys.
    pub fn check(&self) -> Result<(), Error> {
        let event = self.event.as_str();
        match self.event {
            EventKind::Insert if self.old_image.is_some() => {
                return Err(self.fail(StreamError::UnexpectedImage {
                    event,
                    image: "OldImage",
                }));
            }
            EventKind::Remove if self.new_image.is_some() => {
                return Err(self.fail(StreamError::UnexpectedImage {
                    event,
                    image: "NewImage",
                }));
            }
            _ => {}
        }
        if let Some(view) = self.view {
            let wants_new = view.has_new_image() && self.event != EventKind::Remove;
            let wants_old = view.has_old_image() && self.event != EventKind::Insert;
            for (wants, has, image) in [
                (wants_new, self.new_image.is_some(), "NewImage"),
                (wants_old, self.old_image.is_some(), "OldImage"),
            ] {
                if wants && !has {
                    return Err(self.fail(StreamError::MissingImage {
                        event,
                        view: view.as_str(),
                        image,
                    }));
                }
                if has && !wants {
                    return Err(self.fail(StreamError::UnexpectedImage { event, image }));
                }
            }
        }
        for image in self.new_image.iter().chain(&self.old_image) {
            for (name, value) in &self.keys {
                if image.get(name) != Some(value) {
                    return Err(self.fail(StreamError::Key(name.clone())));
                }
            }
        }
        Ok(())
    }

    /// The item's primary key in table `T`, from `Keys`.
    pub fn key<T: Table>(&self) -> Result<PrimaryKey, Error> {
        let get = |attr: &str| match self.keys.get(attr) {
            Some(AttributeValue::S(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(self.fail(StreamError::Key(attr.to_owned()))),
        };
        let pk = get(T::PK)?;
        let sk = T::SK.map(get).transpose()?;
        let extra = self.keys.len() - 1 - usize::from(sk.is_some());
        if extra > 0 {
            let other = self
                .keys
                .keys()
                .find(|k| *k != T::PK && Some(k.as_str()) != T::SK)
                .cloned()
                .unwrap_or_default();
            return Err(self.fail(StreamError::Key(other)));
        }
        Ok(PrimaryKey { pk, sk })
    }
}

/// The principal DynamoDB's TTL process deletes items as.
#[cfg(any(feature = "lambda", feature = "streams"))]
pub(crate) const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

/// Builds a record from the fields every source has, checking what each
/// source leaves optional.
#[cfg(any(feature = "lambda", feature = "streams"))]
#[allow(clippy::too_many_arguments)]
#[cfg(any(feature = "lambda", feature = "streams"))]
pub(crate) fn record(
    event_id: Option<String>,
    event_name: Option<&str>,
    keys: Option<Item>,
    new_image: Option<Item>,
    old_image: Option<Item>,
    sequence_number: Option<String>,
    approximate_creation_time: Option<SystemTime>,
    view: Option<&str>,
    size_bytes: Option<i64>,
    by_ttl: bool,
) -> Result<StreamRecord, Error> {
    let id = event_id.unwrap_or_default();
    let fail = |reason| stream_error(&id, reason);
    let event = match event_name {
        None | Some("") => return Err(fail(StreamError::Missing("eventName"))),
        Some(name) => EventKind::from_name(name)
            .ok_or_else(|| fail(StreamError::UnknownEvent(name.to_owned())))?,
    };
    let keys = keys
        .filter(|k| !k.is_empty())
        .ok_or_else(|| fail(StreamError::Missing("Keys")))?;
    let sequence_number = sequence_number
        .filter(|s| !s.is_empty())
        .ok_or_else(|| fail(StreamError::Missing("SequenceNumber")))?;
    if !sequence_number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fail(StreamError::Invalid(format!(
            "sequence number {sequence_number:?} is not decimal digits"
        ))));
    }
    let view = view
        .map(|v| {
            StreamView::from_name(v).ok_or_else(|| fail(StreamError::UnknownView(v.to_owned())))
        })
        .transpose()?;
    let record = StreamRecord {
        event_id: id.clone(),
        event,
        keys,
        new_image: new_image.filter(|i| !i.is_empty()),
        old_image: old_image.filter(|i| !i.is_empty()),
        sequence_number,
        approximate_creation_time,
        view,
        size_bytes: size_bytes.and_then(|s| u64::try_from(s).ok()),
        by_ttl,
    };
    record.check()?;
    Ok(record)
}
