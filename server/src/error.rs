//! Error bodies as DynamoDB writes them: HTTP 400 with
//! `{"__type": "<namespace>#<Name>", "message": …}`, the namespace
//! DynamoDB uses for each error, and the extra members some errors carry
//! (`Item` of a failed condition, `CancellationReasons`).

use serde_json::{Map, Value};

/// A request refused: what becomes the 400 response.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApiError {
    /// The whole `__type`, namespace included.
    pub kind: String,
    pub message: String,
    /// Members beside `__type` and `message`.
    pub extra: Map<String, Value>,
}

const DYNAMODB: &str = "com.amazonaws.dynamodb.v20120810";

impl ApiError {
    pub(crate) fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// An error in DynamoDB's own namespace, by its short name.
    pub(crate) fn dynamodb(name: &str, message: impl Into<String>) -> Self {
        Self::new(format!("{DYNAMODB}#{name}"), message)
    }

    pub(crate) fn validation(message: impl Into<String>) -> Self {
        Self::new("com.amazon.coral.validate#ValidationException", message)
    }

    pub(crate) fn serialization(message: impl Into<String>) -> Self {
        Self::new("com.amazon.coral.service#SerializationException", message)
    }

    pub(crate) fn unknown_operation(message: impl Into<String>) -> Self {
        Self::new(
            "com.amazon.coral.service#UnknownOperationException",
            message,
        )
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::dynamodb("ResourceNotFoundException", message)
    }

    /// The response body.
    pub(crate) fn body(&self) -> Value {
        let mut m = Map::new();
        m.insert("__type".into(), Value::String(self.kind.clone()));
        m.insert("message".into(), Value::String(self.message.clone()));
        m.extend(self.extra.clone());
        Value::Object(m)
    }
}
