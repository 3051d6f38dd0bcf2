//! Failures of the embedded backend, mapped onto the [`Error`] variants the
//! SDK executor produces for the same DynamoDB errors, so application code
//! handles both backends alike.

use std::fmt;

// The runtime's error types, where this crate's files look for them.
pub(crate) use singletable_core::error::{CancellationReason, DecodeError, Error};
use singletable_core::value::Item;

/// A DynamoDB service error raised by the embedded backend: the source of
/// [`Error::Service`] when the request used [`Embedded`](super::Embedded),
/// where the SDK executor would hold an SDK error.
///
/// ```
/// use singletable::embedded::EmbeddedError;
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
/// // A handle on a table that does not exist:
/// let db = Db::with_executor(Embedded::new(), "Missing");
/// match db.get::<User>(User::key("ana")?).await {
///     Err(Error::Service { operation, source, .. }) => {
///         assert_eq!(operation, "GetItem");
///         let e = source.downcast_ref::<EmbeddedError>().unwrap();
///         assert_eq!(e.code, "ResourceNotFoundException");
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedError {
    /// DynamoDB's error code: `ValidationException`,
    /// `ResourceNotFoundException`, `ResourceInUseException`,
    /// `IdempotentParameterMismatchException`, `InternalServerError`.
    pub code: &'static str,
    /// DynamoDB's message (as DynamoDB Local words it, where known).
    pub message: String,
}

impl fmt::Display for EmbeddedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for EmbeddedError {}

/// Internal failure, turned into an [`Error`] at the executor boundary.
#[derive(Debug)]
pub(crate) enum Fail {
    /// A service error with its code.
    Service(EmbeddedError),
    /// `ConditionalCheckFailedException`, with the item when asked for.
    Condition(Option<Item>),
    /// `TransactionCanceledException`.
    Canceled(Vec<CancellationReason>),
    /// A ValidationException that DynamoDB Local turns into the
    /// operation's `ValidationError` cancellation reason inside a
    /// transaction (an index key attribute of the wrong scalar type).
    OpValidation(String),
}

impl Fail {
    pub(crate) fn validation(message: impl Into<String>) -> Self {
        Fail::Service(EmbeddedError {
            code: "ValidationException",
            message: message.into(),
        })
    }

    pub(crate) fn no_table() -> Self {
        Fail::Service(EmbeddedError {
            code: "ResourceNotFoundException",
            message: "Requested resource not found".into(),
        })
    }

    pub(crate) fn code(code: &'static str, message: impl Into<String>) -> Self {
        Fail::Service(EmbeddedError {
            code,
            message: message.into(),
        })
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Fail::code("InternalServerError", message)
    }

    pub(crate) fn into_error(self, operation: &'static str) -> Error {
        match self {
            Fail::Condition(item) => Error::ConditionFailed {
                item: item.map(Box::new),
            },
            Fail::Canceled(reasons) => Error::TransactionCanceled { reasons },
            Fail::OpValidation(message) => Fail::validation(message).into_error(operation),
            Fail::Service(e) => Error::Service {
                operation,
                code: Some(e.code.to_owned()),
                message: e.to_string(),
                source: Box::new(e),
            },
        }
    }
}

pub(crate) type Res<T> = Result<T, Fail>;
