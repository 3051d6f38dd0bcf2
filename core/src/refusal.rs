//! Why a request was not sent: [`Refusal`], the kinds of
//! [`Error::Refused`](crate::Error::Refused). Each kind carries what a
//! caller needs to act on it (the entity, the field, the index, the
//! counts), so code branches on the kind, never on the message.
//!
//! ```
//! use singletable::{Error, Refusal};
//!
//! let e = Error::Refused(Refusal::InListSize { len: 0 });
//! assert!(matches!(e, Error::Refused(Refusal::InListSize { len: 0 })));
//! assert_eq!(e.to_string(), "request not sent: IN takes 1 to 100 values, not 0");
//! ```

/// A request singletable refuses to send, because DynamoDB would refuse it
/// or because it cannot be right (an update that would leave an index key
/// stale, a write that would lose a unique value's marker). Nothing was
/// sent and nothing was written.
///
/// ```
/// use singletable::Refusal;
///
/// let r = Refusal::SegmentCount { segments: 0 };
/// assert_eq!(r.to_string(), "a scan has 1 to 1000000 segments, not 0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The executor does not implement this operation (a custom executor
    /// without vector search, say).
    #[error("this executor does not implement {operation}")]
    Unsupported {
        /// The DynamoDB operation (`SearchVectors`, …).
        operation: &'static str,
    },
    /// The backend is not part of this build: the facade's feature that
    /// brings it is off.
    #[error(
        "backend {backend} needs the feature `{feature}` of singletable, which this build does not enable"
    )]
    BackendNotBuilt {
        /// The backend asked for, as `Backend`'s `Debug` prints it.
        backend: String,
        /// The feature that brings it (`embedded` or `client`).
        feature: &'static str,
    },
    /// A value of a multi-attribute index key attribute is of another type
    /// than the index declares.
    #[error(
        "attribute `{attribute}` of `{entity}` holds a {found} value, but it is a key attribute of type {expected} of a multi-attribute index"
    )]
    KeyAttributeType {
        /// The entity written.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The type of the value given (`S`, `N`, `M`, …).
        found: &'static str,
        /// The type the index declares (`S`, `N` or `B`).
        expected: &'static str,
    },
    /// Two operations of one batch are on the same item, which DynamoDB
    /// refuses (BatchWriteItem and BatchGetItem alike).
    #[error(
        "batch operations {first} and {second} are on the same item ({pk:?} / {sk:?}); DynamoDB rejects duplicate keys in a batch"
    )]
    DuplicateBatchKey {
        /// The position of the first operation on the item.
        first: usize,
        /// The position of the second.
        second: usize,
        /// The item's partition key.
        pk: String,
        /// The item's sort key.
        sk: Option<String>,
    },
    /// A batch key without the sort key its table needs.
    #[error("batch key {index} ({pk:?}) has no sort key; table `{table}` needs one")]
    MissingSortKey {
        /// The key's position in the batch.
        index: usize,
        /// Its partition key.
        pk: String,
        /// The table.
        table: String,
    },
    /// A batch put of an entity whose creation timestamp is empty: batch
    /// writes have no conditions, so it could replace the creation time of
    /// an item that exists.
    #[error(
        "a batch put of `{entity}` with an empty `{field}` could replace the creation time of an item that exists (batch writes have no conditions); set `{field}`, or write the item with `put` or `create`"
    )]
    BatchPutWithoutCreated {
        /// The entity.
        entity: &'static str,
        /// Its `#[attr(created)]` field.
        field: &'static str,
    },
    /// A write of an entity with a unique field where its marker item
    /// cannot be kept in step: a batch (not transactional), a transaction
    /// that does not know the stored item, an upsert.
    #[error(
        "{operation} of `{entity}` cannot keep the marker of its unique field `{field}` in step; {instead}"
    )]
    UniqueMarker {
        /// The entity.
        entity: &'static str,
        /// The unique field.
        field: &'static str,
        /// The write refused (`a batch put`, `a transaction's delete`, …).
        operation: &'static str,
        /// What to do instead.
        instead: &'static str,
    },
    /// A write whose answer DynamoDB cannot give: a put or update that must
    /// be a transaction (it moves a unique value's marker) asked for the
    /// item's old or new values, which transactions do not return.
    #[error(
        "{operation} of `{entity}` moves the marker of a unique value, so it is a transaction, which returns no values; send it without them and read the item again"
    )]
    NoReturnValues {
        /// The entity.
        entity: &'static str,
        /// The call (`put_returning_old`, `an update returning values`).
        operation: &'static str,
    },
    /// A versioned entity written without its version check.
    #[error("`{entity}` is versioned: {instead}")]
    Versioned {
        /// The entity.
        entity: &'static str,
        /// The call that checks the version.
        instead: &'static str,
    },
    /// An update with no action.
    #[error("an update needs at least one action")]
    EmptyUpdate,
    /// An update given `.knowing(&item)` with an item of another key.
    #[error(
        "`.knowing(&item)` was given the `{entity}` with key {given:?}, but the update is of {updated:?}"
    )]
    KnowingAnotherItem {
        /// The entity.
        entity: &'static str,
        /// The key of the item given (partition key, sort key).
        given: (String, Option<String>),
        /// The key of the item updated.
        updated: (String, Option<String>),
    },
    /// An update both `.knowing(&item)` (an existing item) and `.upsert()`
    /// (which may create one).
    #[error(
        "an update of `{entity}` cannot be both `.knowing(&item)`, which describes an existing item, and `.upsert()`, which may create one; keep one of them"
    )]
    KnowingAndUpsert {
        /// The entity.
        entity: &'static str,
    },
    /// An update that changes a key field of a sparse index whose condition
    /// is a function of the whole item: whether the item belongs in the
    /// index cannot be known without it.
    #[error(
        "{what} of `{entity}` changes a key field of `{index}`, a sparse index whose condition is a function of the whole item; write the item with a put instead"
    )]
    SparseByFunction {
        /// The entity.
        entity: &'static str,
        /// The index, by its DynamoDB name (`GSI1`).
        index: &'static str,
        /// `an upsert`, `this update`, or the automatic timestamp every
        /// update stamps.
        what: String,
    },
    /// A unique field changed by an action whose new value is not known
    /// before sending (an `ADD`, an arithmetic `SET`).
    #[error(
        "`{field}` of `{entity}` is unique: change it with `set` or `remove`, whose new value is known before sending"
    )]
    UniqueNeedsValue {
        /// The entity.
        entity: &'static str,
        /// The unique field.
        field: &'static str,
    },
    /// An `IN` condition with no value or more than DynamoDB's 100.
    #[error("IN takes 1 to 100 values, not {len}")]
    InListSize {
        /// The number of values given.
        len: usize,
    },
    /// A sort-key range whose bounds are of two kinds (a key and an
    /// attribute value).
    #[error("a sort-key range between a key and an attribute value")]
    MixedSortRange,
    /// `begins_with` on a sort attribute that is not a string.
    #[error("`begins_with` on the non-string sort attribute `{attribute}`")]
    BeginsWithNonString {
        /// The sort attribute.
        attribute: String,
    },
    /// A sort-key condition on an index without a sort key.
    #[error("a sort-key condition on an index without a sort key")]
    NoSortKey,
    /// A condition on a key attribute of a multi-attribute index, on a
    /// query of no such index.
    #[error("a condition on `{attribute}` on a query of no multi-attribute index")]
    NotMultiAttribute {
        /// The attribute the condition names.
        attribute: String,
    },
    /// A query filter naming a key attribute of the index queried, which
    /// DynamoDB refuses: the condition belongs in the key condition.
    #[error(
        "the filter names `{attribute}`, a key attribute of index `{index}`, which DynamoDB refuses in a query's filter; put the condition in the key condition (the query's sort methods) instead"
    )]
    FilterOnKey {
        /// The key attribute.
        attribute: String,
        /// The index, by its DynamoDB name (`GSI2`).
        index: &'static str,
    },
    /// A comparison or range on a vector index's `HASH` attribute, which
    /// takes equality only.
    #[error("{condition} on a HASH attribute")]
    HashComparison {
        /// `comparison` or `range`.
        condition: &'static str,
    },
    /// A search vector with an element that is not a finite number.
    #[error("the search vector holds a value that is not a finite number")]
    SearchVectorNotFinite,
    /// A position DynamoDB handed out (a `LastEvaluatedKey`) whose key is
    /// not a string, which no cursor can hold.
    #[error("{what} holds a non-string key")]
    CursorKeyNotString {
        /// `LastEvaluatedKey`, or a shard's position.
        what: &'static str,
    },
    /// A backfill's scan split in no segment or more than DynamoDB's
    /// 1,000,000.
    #[error("a scan has 1 to 1000000 segments, not {segments}")]
    SegmentCount {
        /// The segments asked for.
        segments: u64,
    },
    /// A scan's segment that is not below its number of segments
    /// (`Segment` counts from 0).
    #[error(
        "segment {segment} of a scan split in {total} is out of range: segments count from 0 to {total} - 1"
    )]
    SegmentOutOfRange {
        /// The segment asked for.
        segment: u32,
        /// The scan's number of segments.
        total: u32,
    },
    /// A read names an index the table does not declare (of that kind:
    /// global or local).
    #[error("the table declares no {kind} index named `{index}`")]
    UnknownIndex {
        /// `global` or `local`.
        kind: &'static str,
        /// The index name asked for.
        index: String,
    },
    /// A read of whole items on an index that does not project every
    /// attribute they decode (a keys-only index, an `INCLUDE` list short
    /// of one): it would read nothing it could return.
    #[error(
        "index `{index}` does not project every attribute `{read}` decodes: read its keys (`keys()`) or a projection (`select::<D>()`), or read the table"
    )]
    IndexProjection {
        /// The index read.
        index: String,
        /// The entity (or collection) asked for.
        read: &'static str,
    },
    /// A backfill resumed from a checkpoint of another number of segments.
    #[error("the checkpoint has {checkpoint} segments, not {requested}")]
    CheckpointSegments {
        /// The checkpoint's segments.
        checkpoint: u32,
        /// The segments asked for.
        requested: u32,
    },
    /// A backfill resumed from the checkpoint of another backfill.
    #[error("the checkpoint is of a backfill of `{checkpoint}`, not `{backfill}`")]
    CheckpointOfAnother {
        /// What the checkpoint is of.
        checkpoint: String,
        /// What the backfill is of.
        backfill: String,
    },
    /// A checkpoint that does not read as one.
    #[error("backfill checkpoint: {problem}")]
    BadCheckpoint {
        /// What is wrong with it.
        problem: String,
    },
    /// An adoption of an entity that adopts no items.
    #[error("entity `{entity}` adopts no items: declare `#[entity(adopt = keys)]`")]
    NotAdopting {
        /// The entity.
        entity: &'static str,
    },
    /// A table definition DynamoDB would refuse (a provisioned table with
    /// vector indexes, say).
    #[error("{problem}")]
    TableDefinition {
        /// What DynamoDB would refuse.
        problem: String,
    },
    /// A request the SDK's builders refuse to build (a required member
    /// missing).
    #[error("cannot build {what}: {message}")]
    SdkBuild {
        /// What was built.
        what: String,
        /// The builder's error.
        message: String,
    },
    /// An answer DynamoDB should not give: fewer responses than requests,
    /// no table in a DescribeTable.
    #[error("{operation} answered what it should not: {problem}")]
    UnexpectedResponse {
        /// The operation.
        operation: &'static str,
        /// What was wrong with the answer.
        problem: String,
    },
}
