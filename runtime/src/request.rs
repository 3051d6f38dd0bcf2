//! Operations as values: each DynamoDB request singletable sends is built
//! here as data first, then handed to an [`Executor`](crate::exec::Executor),
//! which turns it into SDK calls (or, in tests, counts or alters it).

use crate::expr::{Condition, KeyCondition, Path, PathRef};
use crate::value::Item;

/// GetItem: one item by its full primary key.
#[derive(Debug, Clone, PartialEq)]
pub struct GetItem {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// Strongly consistent read (costs twice an eventually consistent one).
    pub consistent: bool,
}

/// PutItem: create or replace one item.
#[derive(Debug, Clone, PartialEq)]
pub struct PutItem {
    /// Table name.
    pub table: String,
    /// The whole item, key attributes included.
    pub item: Item,
    /// Written only if this holds.
    pub condition: Option<Condition>,
    /// Return the replaced item (`ReturnValues=ALL_OLD`).
    pub return_old: bool,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// DeleteItem: delete one item by key.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteItem {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// Deleted only if this holds.
    pub condition: Option<Condition>,
    /// Return the deleted item (`ReturnValues=ALL_OLD`).
    pub return_old: bool,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// ConditionCheck inside a transaction: a condition on an item that is not
/// written.
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionCheck {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// The condition that must hold.
    pub condition: Condition,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// Query: items of one partition, optionally narrowed by a sort-key condition.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRequest {
    /// Table name.
    pub table: String,
    /// Index name, `None` for the table.
    pub index: Option<String>,
    /// Partition and sort key condition.
    pub key: KeyCondition,
    /// Filter applied after reading; it does not reduce consumed capacity.
    pub filter: Option<Condition>,
    /// Maximum number of items evaluated (before the filter) in this page.
    pub limit: Option<i32>,
    /// Ascending sort-key order when true.
    pub forward: bool,
    /// Strongly consistent read (tables and local indexes only).
    pub consistent: bool,
    /// Attributes to return; `None` returns all projected attributes.
    pub projection: Option<Vec<String>>,
    /// Continue after this key (`ExclusiveStartKey`).
    pub start: Option<Item>,
}

/// Scan: reads every item of the table or index, page by page. Costly: it
/// consumes capacity for every item read, whatever the filter keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanRequest {
    /// Table name.
    pub table: String,
    /// Index name, `None` for the table.
    pub index: Option<String>,
    /// Filter applied after reading.
    pub filter: Option<Condition>,
    /// Maximum number of items evaluated in this page.
    pub limit: Option<i32>,
    /// Strongly consistent read (tables and local indexes only).
    pub consistent: bool,
    /// Continue after this key.
    pub start: Option<Item>,
    /// Read one segment of a parallel scan, `None` for the whole table.
    pub segment: Option<ScanSegment>,
}

/// One segment of a parallel Scan (`Segment`, `TotalSegments`): DynamoDB
/// splits the items by the hash of their partition key into
/// `total_segments` disjoint parts, which separate workers read at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScanSegment {
    /// This segment, from 0.
    pub segment: u32,
    /// How many segments the scan is split into (1 to 1,000,000).
    pub total_segments: u32,
}

/// One write inside a TransactWriteItems request.
#[derive(Debug, Clone, PartialEq)]
pub enum TransactWriteOp {
    /// A put, with an optional condition.
    Put(PutItem),
    /// A delete, with an optional condition.
    Delete(DeleteItem),
    /// A condition on an item that is not written.
    ConditionCheck(ConditionCheck),
    /// An update, with an optional condition.
    Update(UpdateItem),
}

/// TransactWriteItems: up to 100 writes that all succeed or all fail; each
/// costs twice a plain write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransactWrite {
    /// The operations, in order; cancellation reasons refer to these positions.
    pub ops: Vec<TransactWriteOp>,
    /// Idempotency token: a retry with the same token within 10 minutes is
    /// not applied twice.
    pub token: Option<String>,
}

/// A result page of a Query or Scan.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Page {
    /// Items of the page, in order.
    pub items: Vec<Item>,
    /// Where the next page starts; `None` on the last page.
    pub last_key: Option<Item>,
    /// Items evaluated before the filter (`ScannedCount`), when the
    /// executor reports it.
    pub scanned: Option<usize>,
}

/// One page of a Query with `Select=COUNT`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CountPage {
    /// Items of the page that matched (after the filter).
    pub count: usize,
    /// Items evaluated before the filter, when the executor reports it.
    pub scanned: Option<usize>,
    /// Where the next page starts; `None` on the last page.
    pub last_key: Option<Item>,
}

/// What an UpdateItem or PutItem returns (`ReturnValues`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReturnValues {
    /// Nothing.
    #[default]
    None,
    /// The whole item before the write.
    AllOld,
    /// The whole item after the write.
    AllNew,
    /// The updated attributes, before the write.
    UpdatedOld,
    /// The updated attributes, after the write.
    UpdatedNew,
}

/// The value side of a `SET` action.
#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    /// `SET a = :v`
    Value(crate::value::AttributeValue),
    /// `SET a = if_not_exists(a, :v)`
    IfNotExists(crate::value::AttributeValue),
    /// `SET a = list_append(a, :v)`
    Append(crate::value::AttributeValue),
    /// `SET a = list_append(:v, a)`
    Prepend(crate::value::AttributeValue),
    /// `SET a = a + :v` (atomic increment, the attribute must exist)
    Increment(crate::value::AttributeValue),
}

/// One action of an update expression.
///
/// `Set`, `Remove`, `Add` and `Delete` name a top-level attribute (the
/// form key maintenance writes); the `…At` variants take any document path
/// (`address.city`, `reviewers.ana`, `lines[3]`). [`UpdateAction::set`] and
/// the other constructors pick the right one.
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateAction {
    /// `SET name = …`
    Set(String, SetValue),
    /// `REMOVE name`
    Remove(String),
    /// `ADD name :v`: adds to a number (creating it at 0) or to a set.
    Add(String, crate::value::AttributeValue),
    /// `DELETE name :v`: removes elements from a set.
    Delete(String, crate::value::AttributeValue),
    /// `SET path = …`: the parent of `path` must exist (a map for a key, a
    /// list for an index); an index past the end of a list appends.
    SetAt(Path, SetValue),
    /// `REMOVE path`: removes a map entry, or a list element (the later
    /// elements move down).
    RemoveAt(Path),
    /// `ADD path :v`, below a top-level attribute.
    AddAt(Path, crate::value::AttributeValue),
    /// `DELETE path :v`, below a top-level attribute.
    DeleteAt(Path, crate::value::AttributeValue),
}

/// What an [`UpdateAction`] does, whatever form its path has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ActionKind<'a> {
    /// `SET`
    Set(&'a SetValue),
    /// `REMOVE`
    Remove,
    /// `ADD`
    Add(&'a crate::value::AttributeValue),
    /// `DELETE`
    Delete(&'a crate::value::AttributeValue),
}

impl UpdateAction {
    /// `SET path = …`, in the form that fits the path.
    ///
    /// ```
    /// use singletable::expr::Path;
    /// use singletable::request::{SetValue, UpdateAction};
    /// use singletable::AttributeValue;
    ///
    /// let one = || SetValue::Value(AttributeValue::N("1".into()));
    /// let top = UpdateAction::set(Path::new("hits"), one());
    /// assert_eq!(top, UpdateAction::Set("hits".into(), one()));
    /// let below = UpdateAction::set(Path::new("hits").key("2024-05"), one());
    /// assert_eq!(below.path().steps.len(), 1);
    /// ```
    pub fn set(path: Path, value: SetValue) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Set(a, value),
            Err(p) => Self::SetAt(p, value),
        }
    }

    /// `REMOVE path`, in the form that fits the path.
    pub fn remove(path: Path) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Remove(a),
            Err(p) => Self::RemoveAt(p),
        }
    }

    /// `ADD path :v`, in the form that fits the path.
    pub fn add(path: Path, value: crate::value::AttributeValue) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Add(a, value),
            Err(p) => Self::AddAt(p, value),
        }
    }

    /// `DELETE path :v`, in the form that fits the path.
    pub fn delete(path: Path, value: crate::value::AttributeValue) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Delete(a, value),
            Err(p) => Self::DeleteAt(p, value),
        }
    }

    /// The path the action writes.
    pub fn path(&self) -> PathRef<'_> {
        match self {
            Self::Set(a, _) | Self::Remove(a) | Self::Add(a, _) | Self::Delete(a, _) => {
                PathRef::attribute(a)
            }
            Self::SetAt(p, _) | Self::RemoveAt(p) | Self::AddAt(p, _) | Self::DeleteAt(p, _) => {
                p.as_ref()
            }
        }
    }

    /// What the action does.
    pub fn kind(&self) -> ActionKind<'_> {
        match self {
            Self::Set(_, v) | Self::SetAt(_, v) => ActionKind::Set(v),
            Self::Remove(_) | Self::RemoveAt(_) => ActionKind::Remove,
            Self::Add(_, v) | Self::AddAt(_, v) => ActionKind::Add(v),
            Self::Delete(_, v) | Self::DeleteAt(_, v) => ActionKind::Delete(v),
        }
    }
}

/// UpdateItem: changes attributes of one item in place (creating it if
/// absent, unless a condition forbids it).
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateItem {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// The actions, applied atomically.
    pub actions: Vec<UpdateAction>,
    /// Applied only if this holds.
    pub condition: Option<Condition>,
    /// What to return.
    pub return_values: ReturnValues,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

/// One write of a BatchWriteItem request (no conditions allowed).
#[derive(Debug, Clone, PartialEq)]
pub enum BatchOp {
    /// PutRequest with the whole item.
    Put(Item),
    /// DeleteRequest with the key attributes.
    Delete(Item),
}

/// BatchWriteItem: up to 25 puts and deletes, each applied on its own.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchWrite {
    /// Table name.
    pub table: String,
    /// The writes.
    pub ops: Vec<BatchOp>,
}

/// BatchGetItem: up to 100 items by key.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchGet {
    /// Table name.
    pub table: String,
    /// Keys to read.
    pub keys: Vec<Item>,
    /// Strongly consistent reads.
    pub consistent: bool,
}

/// What a BatchGetItem request returned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchGetOutput {
    /// Items found, in no particular order.
    pub items: Vec<Item>,
    /// Keys DynamoDB did not process; to be retried.
    pub unprocessed: Vec<Item>,
}

/// TransactGetItems: up to 100 items read atomically.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransactGet {
    /// `(table, key)` pairs, in order.
    pub gets: Vec<(String, Item)>,
}
