//! The one error type of singletable, and the typed reasons it carries.
//!
//! Nothing a caller or DynamoDB sends makes singletable panic: bad key values,
//! malformed items, oversized keys and failed validations all come back as an
//! [`Error`] naming the entity and attribute involved.
//!
//! ```
//! use singletable::{Entity, Error, KeyError, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! let err = User::key("").unwrap_err();
//! assert!(matches!(err, Error::KeyValue { entity: "User", field: "id", reason: KeyError::Empty }));
//! assert_eq!(err.to_string(), "invalid key value for `User.id`: empty values cannot be part of a key");
//! ```

// The codec's errors sit a floor lower, where the value codec reaches
// them; they are singletable's errors all the same.
pub use crate::codec_error::{DecodeError, DecodeErrorKind, EncodeError};
pub use crate::refusal::Refusal;

/// Every failure singletable reports. Variants name what DynamoDB
/// answered (`ConditionFailed` for ConditionalCheckFailedException,
/// `TransactionCanceled` with its CancellationReasons, `Throttled`), or
/// what was refused before any request was sent (`KeyValue`,
/// `KeyTooLong`, `ItemTooLarge`, `Validation`, `UpdateNeedsItem`,
/// `UpsertIncomplete`, `TransactionTooLarge`, `TransactionItemTwice`,
/// `EmptyTransaction`, `NotVersioned`, `Refused` with its [`Refusal`],
/// `Cursor`).
///
/// ```
/// use singletable::{Db, Embedded, Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String, pub name: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let ana = User { id: "ana".into(), name: "Ana".into() };
/// db.create(&ana).await?;
/// // PutItem with attribute_not_exists(PK): ConditionalCheckFailedException.
/// match db.create(&ana).await {
///     Err(Error::ConditionFailed { .. }) => {}
///     other => panic!("{other:?}"),
/// }
/// // UpdateItem of a missing item: refused by a condition, reported as such.
/// let missing = User::update("bo").set(User::fields().name, "Bo".to_string()).execute(&db).await;
/// assert!(matches!(missing, Err(Error::NotFound { entity: "User" })));
/// assert!(!missing.unwrap_err().is_throttling());
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value cannot be used as part of a key (empty, or not representable).
    #[error("invalid key value for `{entity}.{field}`: {reason}")]
    KeyValue {
        /// Entity whose key was being built.
        entity: &'static str,
        /// Field that supplied the value.
        field: &'static str,
        /// Why the value was refused.
        reason: KeyError,
    },
    /// A built key exceeds DynamoDB's size limit (2048 bytes for a partition
    /// key, 1024 bytes for a sort key).
    #[error(
        "key attribute `{attribute}` of `{entity}` is {len} bytes; DynamoDB allows at most {max}"
    )]
    KeyTooLong {
        /// Entity whose key was being built.
        entity: &'static str,
        /// Key attribute (`PK`, `GSI1SK`, …).
        attribute: &'static str,
        /// Length in bytes of the built key.
        len: usize,
        /// DynamoDB's limit for this kind of key.
        max: usize,
    },
    /// The attributes of a multi-attribute index key together exceed
    /// DynamoDB's limit: 2048 bytes for the partition attributes, 1024 for
    /// the sort attributes (counted as
    /// [`size::key_bytes`](crate::size::key_bytes) counts them). Nothing
    /// is sent.
    #[error(
        "the {part} attributes of index `{index}` of `{entity}` hold {len} bytes together; DynamoDB allows at most {max}"
    )]
    IndexKeyTooLong {
        /// Entity whose item was being written.
        entity: &'static str,
        /// The index's name.
        index: &'static str,
        /// `"partition"` or `"sort"`.
        part: &'static str,
        /// Their bytes together.
        len: usize,
        /// DynamoDB's limit.
        max: usize,
    },
    /// A stored key string does not match the entity's key template.
    #[error("key {key:?} does not match template `{template}` of `{entity}`: {reason}")]
    KeyParse {
        /// Entity whose template was used.
        entity: &'static str,
        /// The template, as declared.
        template: &'static str,
        /// The key that was parsed.
        key: String,
        /// What did not match.
        reason: KeyError,
    },
    /// An item read from the table does not decode into the entity.
    #[error("cannot decode `{entity}`: {source}")]
    Decode {
        /// Entity being decoded.
        entity: &'static str,
        /// Which attribute failed, and why.
        #[source]
        source: DecodeError,
    },
    /// A field value cannot be stored in DynamoDB (for example a NaN float).
    #[error("cannot encode `{entity}`: {source}")]
    Encode {
        /// Entity being encoded.
        entity: &'static str,
        /// Which attribute failed, and why.
        #[source]
        source: EncodeError,
    },
    /// A conditional write or condition check failed
    /// (`ConditionalCheckFailedException`). Holds the item as it is now when
    /// the request asked for it.
    #[error("condition failed{}", if item.is_some() { " (current item returned)" } else { "" })]
    ConditionFailed {
        /// The current item, when requested with `ReturnValuesOnConditionCheckFailure`.
        item: Option<Box<crate::value::Item>>,
    },
    /// The operation needs an existing item and there is none (for example
    /// `Db::replace`).
    #[error("no `{entity}` with this key exists")]
    NotFound {
        /// Entity that was looked for.
        entity: &'static str,
    },
    /// Optimistic locking: the stored version is not the one that was read;
    /// someone else wrote the item in between. Read it again and retry.
    #[error("version conflict on `{entity}`: expected version {expected}, found {}", found.map_or_else(|| "none".to_owned(), |v| v.to_string()))]
    VersionConflict {
        /// Entity written.
        entity: &'static str,
        /// The version the writer read.
        expected: u64,
        /// The version stored now, if any.
        found: Option<u64>,
    },
    /// An item is over DynamoDB's 400 KB limit (attribute names plus values);
    /// it was not sent.
    #[error("`{entity}` item is {size} bytes; DynamoDB allows at most {max}")]
    ItemTooLarge {
        /// Entity written.
        entity: &'static str,
        /// Size as DynamoDB counts it.
        size: usize,
        /// The limit, 400 KB.
        max: usize,
    },
    /// A batch left writes or keys unprocessed when its attempts ran out or
    /// a request failed; they are all here, none is dropped, and every
    /// other write of the batch was applied.
    #[error("{} batch operations still unprocessed after {attempts} attempts", writes.len() + keys.len())]
    Unprocessed {
        /// Writes that were not applied.
        writes: Vec<crate::request::BatchOp>,
        /// Keys that were not read.
        keys: Vec<crate::value::Item>,
        /// Attempts made for these, the first included (the most, when
        /// their requests made different numbers): fewer than the policy's
        /// when an error other than throttling ended them.
        attempts: u32,
        /// The error of the last attempt, when it failed
        /// ([`Error::Throttled`] if DynamoDB was still throttling).
        #[source]
        cause: Option<Box<Error>>,
    },
    /// A request singletable refuses to send, because DynamoDB would
    /// refuse it or because it cannot be right (an update that would leave
    /// an index key stale, a missing version): the kind says which, with
    /// its data. Nothing was sent.
    #[error("request not sent: {0}")]
    Refused(#[from] Refusal),
    /// A transaction with no operation: refused before sending, as
    /// DynamoDB refuses a TransactWriteItems or TransactGetItems of zero
    /// items with a ValidationException.
    #[error("request not sent: a {operation} needs at least one operation")]
    EmptyTransaction {
        /// `TransactWriteItems` or `TransactGetItems`.
        operation: &'static str,
    },
    /// An update that must write a key it cannot build: an index key
    /// attribute (or the marker of a `#[attr(unique)]` value) is built from
    /// a field the update neither sets nor knows. Set `needs` in the same
    /// update, or give the item read before with
    /// `.knowing(&item)` (the update is then
    /// conditioned on what it knew). Nothing was sent. The derive's design
    /// document lists the updates that need it.
    #[error("request not sent: {message}")]
    UpdateNeedsItem {
        /// Entity updated.
        entity: &'static str,
        /// What the update must write: the index key attribute
        /// (`GSI1PK`), or the unique field whose marker moves.
        writes: &'static str,
        /// The field it lacks (Rust name).
        needs: &'static str,
        /// What was refused and what to do, in words.
        message: String,
    },
    /// An upsert (`.upsert()`, which may create the item) lacks what a new
    /// item needs: fields an item could not be read without, or fields a
    /// key of the new item is built from. Set them in the upsert, or create
    /// the item with `create` or `put`. Nothing was sent.
    #[error("request not sent: {message}")]
    UpsertIncomplete {
        /// Entity upserted.
        entity: &'static str,
        /// The fields the upsert must set (Rust names).
        fields: Vec<&'static str>,
        /// What was refused and what to do, in words.
        message: String,
    },
    /// A transaction over DynamoDB's limits, refused before sending as
    /// DynamoDB refuses it (ValidationException): more than `max`
    /// operations.
    #[error(
        "request not sent: a {operation} holds at most {max} operations, this one {operations}"
    )]
    TransactionTooLarge {
        /// `TransactWriteItems` or `TransactGetItems`.
        operation: &'static str,
        /// Operations in the transaction.
        operations: usize,
        /// DynamoDB's limit, 100.
        max: usize,
    },
    /// Two operations of one transaction on the same item, which DynamoDB
    /// refuses (ValidationException); refused before sending.
    #[error(
        "request not sent: operation {index} touches the same item as an earlier operation ({pk:?} / {sk:?}); DynamoDB allows one operation per item in a transaction"
    )]
    TransactionItemTwice {
        /// Position of the second operation on the item.
        index: usize,
        /// The item's partition key.
        pk: String,
        /// The item's sort key, on a table that has one.
        sk: Option<String>,
    },
    /// `Db::put_versioned` of an entity without
    /// an `#[attr(version)]` field: there is no version to check.
    #[error("request not sent: `{entity}` has no `#[attr(version)]` field")]
    NotVersioned {
        /// Entity written.
        entity: &'static str,
    },
    /// A transaction was cancelled; each reason names its operation.
    #[error("transaction cancelled: {}", reasons.iter().filter(|r| r.code != "None").map(|r| format!("operation {} failed with {}", r.index, r.code)).collect::<Vec<_>>().join(", "))]
    TransactionCanceled {
        /// One reason per operation, in request order (`None` for those that
        /// did not fail).
        reasons: Vec<CancellationReason>,
    },
    /// A pagination cursor from a client was refused.
    #[error("invalid cursor: {0}")]
    Cursor(#[from] CursorError),
    /// DynamoDB (or the network) failed the request; the SDK error is kept.
    #[error("DynamoDB {operation} failed: {message}")]
    Service {
        /// The operation (`PutItem`, `Query`, …).
        operation: &'static str,
        /// DynamoDB's error code (`ValidationException`,
        /// `ResourceNotFoundException`, …), when the service answered;
        /// `None` for a failure before any answer (network, I/O). Read it
        /// with [`Error::code`].
        code: Option<String>,
        /// The service's error code and message.
        message: String,
        /// The SDK error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// DynamoDB refused the request for want of capacity
    /// (`ProvisionedThroughputExceededException`, `ThrottlingException`,
    /// `RequestLimitExceeded`) and the SDK's own retries did not get it
    /// through. Nothing of the request was applied. Batches retry it under
    /// their `BatchPolicy` like unprocessed items;
    /// other operations hand it to the caller, to retry later.
    #[error("DynamoDB {operation} throttled: {message}")]
    Throttled {
        /// The operation (`BatchWriteItem`, `Query`, …).
        operation: &'static str,
        /// DynamoDB's error code, one of
        /// [`THROTTLING_CODES`](crate::exec::THROTTLING_CODES).
        code: String,
        /// The service's error code and message.
        message: String,
        /// The executor's error (the SDK error for the SDK executor).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A write would give a `#[attr(unique)]` field a value that another
    /// item holds: the value's marker item belongs to that item (see
    /// `crate::unique`). Nothing was written.
    #[error("another item already has this `{field}` of `{entity}` (marker `{marker}`)")]
    UniqueViolation {
        /// Entity written.
        entity: &'static str,
        /// The unique field (Rust name).
        field: &'static str,
        /// The partition key of the marker that holds the value
        /// (`UNIQUE#Account#email#ana@example.com`, or the declared
        /// template's `CUSTOMEREMAIL#ana@example.com`): which value was taken.
        marker: String,
    },
    /// A stream record (from a Lambda event, the DynamoDB Streams API or
    /// the embedded change feed) is malformed: it lacks what every record
    /// has, or carries what its event and view cannot. Nothing was decoded
    /// from it; the other records of a batch are unaffected.
    #[error("malformed stream record{}: {reason}", event_id.as_deref().map(|id| format!(" `{id}`")).unwrap_or_default())]
    Stream {
        /// The record's `eventID`, when it has one.
        event_id: Option<String>,
        /// What is wrong with it.
        reason: StreamError,
    },
    /// A stream position names records the stream no longer holds:
    /// DynamoDB's `TrimmedDataAccessException` (what [`Error::code`]
    /// returns for it). The position's shard is gone from the stream
    /// (trimmed after 24 hours before the consumer read it to its end, or
    /// never in it: a position of another stream), or its sequence number
    /// is older than the oldest record the shard keeps. The records
    /// between the position and what the stream holds are gone for this
    /// consumer; nothing was read. Reading on from the oldest record kept
    /// would skip them silently, so no source does: see
    /// `StreamSource::read_after` for how to recover.
    #[error(
        "the stream no longer holds the records after this position: shard `{shard}`{} is trimmed or not of this stream (TrimmedDataAccessException)",
        after.as_deref().map(|s| format!(" after sequence number {s}")).unwrap_or_default()
    )]
    StreamTrimmed {
        /// The shard the position names.
        shard: String,
        /// The position's sequence number in that shard, if it has one.
        after: Option<String>,
    },
    /// A vector refused before sending: a search vector or an item's
    /// vector field with other dimensions than its vector index, a NaN or
    /// infinite element, or a `TopK` outside 1 to 100 (see
    /// [`crate::vector`]).
    #[error("vector index `{index}`: {problem}")]
    InvalidVector {
        /// The vector index's name.
        index: &'static str,
        /// What is wrong.
        problem: VectorProblem,
    },
    /// A field failed a declared validation, checked before every write.
    #[error("validation failed for `{entity}.{field}`: {message}")]
    Validation {
        /// Entity being validated.
        entity: &'static str,
        /// Field whose constraint failed.
        field: &'static str,
        /// What the constraint demands.
        message: String,
    },
}

impl Error {
    /// DynamoDB's error code for a failure DynamoDB (or the embedded
    /// backend, which answers with the same codes) reported:
    /// `ConditionalCheckFailedException` for [`Error::ConditionFailed`],
    /// `TransactionCanceledException` for [`Error::TransactionCanceled`],
    /// the throttling code for [`Error::Throttled`],
    /// `TrimmedDataAccessException` for [`Error::StreamTrimmed`], and the service's code
    /// for [`Error::Service`] (`ValidationException`,
    /// `ResourceNotFoundException`, …; `None` when no answer came, as on a
    /// network failure). `None` for everything refused before a request
    /// was sent, and for singletable's readings of an answer
    /// ([`Error::NotFound`], [`Error::VersionConflict`],
    /// [`Error::UniqueViolation`]): match those variants instead.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, Error, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity, Debug)]
    /// #[entity(table = App)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// pub struct User { pub id: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let ana = User { id: "ana".into() };
    /// db.create(&ana).await?;
    /// let err = db.create(&ana).await.unwrap_err();
    /// assert_eq!(err.code(), Some("ConditionalCheckFailedException"));
    /// let missing = Db::with_executor(Embedded::new(), "Missing");
    /// let err = missing.get::<User>(User::key("ana")?).await.unwrap_err();
    /// assert_eq!(err.code(), Some("ResourceNotFoundException"));
    /// # Ok::<(), Error>(())
    /// # }).unwrap();
    /// ```
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::ConditionFailed { .. } => Some("ConditionalCheckFailedException"),
            Error::TransactionCanceled { .. } => Some("TransactionCanceledException"),
            Error::Throttled { code, .. } => Some(code),
            Error::Service { code, .. } => code.as_deref(),
            Error::StreamTrimmed { .. } => Some("TrimmedDataAccessException"),
            _ => None,
        }
    }

    /// Whether DynamoDB throttled the request ([`Error::Throttled`]): the
    /// same request may succeed later, after a backoff.
    pub fn is_throttling(&self) -> bool {
        matches!(self, Error::Throttled { .. })
    }
}

/// One operation's reason in a cancelled transaction
/// (TransactionCanceledException's `CancellationReasons`, in request
/// order).
///
/// ```
/// use singletable::{Db, Embedded, Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "b".into() }).await?;
/// let r = singletable::Transaction::new()
///     .create(&User { id: "a".into() })
///     .create(&User { id: "b".into() }) // exists: this one fails
///     .execute(&db)
///     .await;
/// match r {
///     Err(Error::TransactionCanceled { reasons }) => {
///         assert_eq!(reasons[0].code, "None");
///         assert_eq!((reasons[1].index, reasons[1].code.as_str()), (1, "ConditionalCheckFailed"));
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CancellationReason {
    /// Position of the operation in the request, from 0.
    pub index: usize,
    /// DynamoDB's code: `ConditionalCheckFailed`, `TransactionConflict`,
    /// `ThrottlingError`, `ValidationError`, …
    pub code: String,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// The item as it is now, when the operation asked for it on failure.
    pub item: Option<crate::value::Item>,
}

/// Why a stream record is malformed (see [`Error::Stream`]).
///
/// ```
/// use singletable::stream::{EventKind, StreamRecord};
/// use singletable::{Error, Item, StreamError};
///
/// // An INSERT cannot carry the item as it was before.
/// let record = StreamRecord {
///     event_id: "e1".into(),
///     event: EventKind::Insert,
///     keys: Item::new(),
///     new_image: Some(Item::new()),
///     old_image: Some(Item::new()),
///     sequence_number: "100".into(),
///     approximate_creation_time: None,
///     view: None,
///     size_bytes: None,
///     by_ttl: false,
/// };
/// match record.check() {
///     Err(Error::Stream { reason: StreamError::UnexpectedImage { image, .. }, .. }) => assert_eq!(image, "OldImage"),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// A field every record has is absent (`eventName`, `dynamodb`,
    /// `Keys`, `SequenceNumber`).
    #[error("`{0}` is missing")]
    Missing(&'static str),
    /// `eventName` is not `INSERT`, `MODIFY` or `REMOVE`.
    #[error("unknown event name {0:?}")]
    UnknownEvent(String),
    /// `StreamViewType` is not one of DynamoDB's four views.
    #[error("unknown stream view type {0:?}")]
    UnknownView(String),
    /// The record's view says it carries an image that it lacks (an
    /// `INSERT` without `NewImage` under `NEW_IMAGE`).
    #[error("{event} record under {view} has no `{image}`")]
    MissingImage {
        /// `INSERT`, `MODIFY` or `REMOVE`.
        event: &'static str,
        /// The view the record names.
        view: &'static str,
        /// `NewImage` or `OldImage`.
        image: &'static str,
    },
    /// The record carries an image its event cannot have (an `INSERT`
    /// with an `OldImage`) or its view does not carry.
    #[error("{event} record carries `{image}`, which it cannot have")]
    UnexpectedImage {
        /// `INSERT`, `MODIFY` or `REMOVE`.
        event: &'static str,
        /// `NewImage` or `OldImage`.
        image: &'static str,
    },
    /// `Keys` lacks a key attribute of the table, holds it with another
    /// type than `S`, or disagrees with an image's key attributes.
    #[error("key attribute `{0}` is missing, not a string, or differs from the image's")]
    Key(String),
    /// An attribute value of a type DynamoDB does not have (the SDK's
    /// `Unknown` variant, from a newer service).
    #[error("attribute `{0}` has a value of an unknown type")]
    UnknownValue(String),
    /// A field holds a value DynamoDB never writes there (a sequence
    /// number that is not decimal digits).
    #[error("{0}")]
    Invalid(String),
    /// The text is not a DynamoDB event as Lambda delivers it (JSON that
    /// does not parse, an attribute value not in DynamoDB's JSON shape).
    #[error("not a DynamoDB stream event: {0}")]
    Json(String),
}

/// Why a pagination cursor was refused (inside [`Error::Cursor`]).
///
/// ```
/// use singletable::{CursorError, Db, Embedded, Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug)]
/// #[entity(table = App)]
/// #[pk("USER#<user>")]
/// #[sk("NOTE#<n>")]
/// #[access(notes)]
/// pub struct Note { pub user: String, pub n: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..3 {
///     db.put(&Note { user: "ana".into(), n }).await?;
/// }
/// let page = Note::notes("ana").limit(1).page(&db, None).await?;
/// let cursor = page.cursor.unwrap();
/// // Ana's cursor replayed on Bo's notes:
/// let r = Note::notes("bo").limit(1).page(&db, Some(&cursor)).await;
/// assert!(matches!(r, Err(Error::Cursor(CursorError::Foreign { .. }))));
/// // The same pattern, another direction:
/// let r = Note::notes("ana").newest_first().limit(1).page(&db, Some(&cursor)).await;
/// assert!(matches!(r, Err(Error::Cursor(CursorError::OtherShape))));
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not valid URL-safe base64, or too short.
    #[error("cursor is not valid base64url")]
    Encoding,
    /// Made by another format version.
    #[error("cursor version {0} is not supported")]
    Version(u8),
    /// Authentication failed: the cursor was altered, or sealed with
    /// another secret (another handle's, or another process's when no
    /// secret is set).
    #[error("cursor was altered or sealed with another secret")]
    Tampered,
    /// The cursor's content is not a cursor.
    #[error("cursor content is malformed")]
    Malformed,
    /// The cursor belongs to another entity, access pattern or partition.
    #[error("cursor belongs to {found:?}, not to this query ({expected:?})")]
    Foreign {
        /// What this query expects.
        expected: String,
        /// What the cursor was made for.
        found: String,
    },
    /// The cursor was made by the same access pattern with another index,
    /// direction, sort-key condition or filter, where its position means
    /// something else.
    #[error(
        "cursor was made by a query of another shape (index, direction, sort-key condition or filter)"
    )]
    OtherShape,
}

/// Why a value cannot be a key part, or a key string cannot be parsed.
///
/// ```
/// use singletable::{Entity, Error, KeyError, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ORDER#<n>")]
/// #[sk("DETAILS")]
/// pub struct Order { pub n: u32 }
///
/// match Order::parse_pk("ORDER#12") {
///     Err(Error::KeyParse { reason: KeyError::Segment { segment, expected }, .. }) => {
///         assert_eq!((segment.as_str(), expected), ("12", "u32")); // not padded: not our key
///     }
///     other => panic!("{other:?}"),
/// }
/// assert!(matches!(Order::parse_pk("USER#1"), Err(Error::KeyParse { reason: KeyError::Literal { .. }, .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// DynamoDB rejects empty strings in key attributes.
    #[error("empty values cannot be part of a key")]
    Empty,
    /// The key does not contain the literal text the template expects.
    #[error("expected `{expected}` at byte {at}")]
    Literal {
        /// Literal text of the template.
        expected: &'static str,
        /// Byte offset in the key.
        at: usize,
    },
    /// An escape sequence other than `%23` or `%25`.
    #[error("invalid escape sequence at byte {at}")]
    Escape {
        /// Byte offset in the segment.
        at: usize,
    },
    /// A segment does not hold a value of the field's type.
    #[error("segment {segment:?} is not a valid {expected}")]
    Segment {
        /// The raw segment text.
        segment: String,
        /// The type that was expected.
        expected: &'static str,
    },
    /// A timestamp outside years 0000–9999 (in UTC) cannot sort correctly
    /// as text.
    #[error("timestamp outside years 0000-9999 cannot be a key part")]
    TimestampRange,
    /// A `#[attr(verbatim)]` value holds the delimiter `#` where its
    /// template goes on after it: the key could not be read back to one
    /// value, so it is refused instead of escaped.
    #[error("verbatim value contains `#`, which would end its key segment early")]
    Delimiter,
    /// A leap second (chrono's `nanosecond() >= 1_000_000_000`) has no
    /// spelling in the canonical timestamp form that keeps text order.
    #[error("a leap second cannot be a key part")]
    LeapSecond,
}

/// Result alias used across singletable.
///
/// ```
/// fn order_key(id: &str) -> singletable::Result<String> {
///     let mut key = String::from("ORDER#");
///     singletable_core::key::write_part("Order", "id", id, &mut key)?;
///     Ok(key)
/// }
/// assert_eq!(order_key("o1").unwrap(), "ORDER#o1");
/// assert!(order_key("").is_err());
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a vector or a search was refused before sending.
///
/// ```
/// use singletable_core::vector::{check_vector, VectorProblem};
/// assert_eq!(check_vector(&[1.0], 3), Err(VectorProblem::Dimensions { expected: 3, found: 1 }));
/// assert_eq!(check_vector(&[1.0, f32::NAN, 0.0], 3), Err(VectorProblem::NotFinite { at: 1 }));
/// assert_eq!(VectorProblem::TopK(0).to_string(), "TopK must be 1 to 100, not 0");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VectorProblem {
    /// The vector has another number of dimensions than the index.
    #[error("the vector has {found} dimensions; the index has {expected}")]
    Dimensions {
        /// The index's.
        expected: usize,
        /// The vector's.
        found: usize,
    },
    /// An element is NaN or infinite (DynamoDB stores only finite numbers).
    #[error("element {at} of the vector is not a finite number")]
    NotFinite {
        /// Its position.
        at: usize,
    },
    /// `TopK` outside 1 to 100.
    #[error("TopK must be 1 to {max}, not {0}", max = crate::request::MAX_TOP_K)]
    TopK(u32),
}
