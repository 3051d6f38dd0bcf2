//! Error bodies as DynamoDB writes them: HTTP 400 with
//! `{"__type": "<namespace>#<Name>", "message": …}`, the namespace
//! DynamoDB uses for each error, and the extra members some errors carry
//! (`Item` of a failed condition, `CancellationReasons`).

use serde_json::{Map, Value, json};
use singletable_core::error::Error;
use singletable_embedded::EmbeddedError;

use crate::wire;

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

    /// The runtime's error, as the engine raised it, on the wire.
    pub(crate) fn from_engine(e: Error) -> Self {
        match e {
            Error::ConditionFailed { item } => {
                let mut out = Self::dynamodb(
                    "ConditionalCheckFailedException",
                    "The conditional request failed",
                );
                if let Some(item) = item {
                    out.extra.insert("Item".into(), wire::item_json(&item));
                }
                out
            }
            Error::TransactionCanceled { reasons } => {
                let codes: Vec<&str> = reasons.iter().map(|r| r.code.as_str()).collect();
                let mut out = Self::dynamodb(
                    "TransactionCanceledException",
                    format!(
                        "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                        codes.join(", ")
                    ),
                );
                let list: Vec<Value> = reasons
                    .iter()
                    .map(|r| {
                        let mut m = Map::new();
                        m.insert("Code".into(), json!(r.code));
                        if let Some(msg) = &r.message {
                            m.insert("Message".into(), json!(msg));
                        }
                        if let Some(item) = &r.item {
                            m.insert("Item".into(), wire::item_json(item));
                        }
                        Value::Object(m)
                    })
                    .collect();
                out.extra
                    .insert("CancellationReasons".into(), Value::Array(list));
                out
            }
            Error::Service {
                source, message, ..
            } => match source.downcast_ref::<EmbeddedError>() {
                Some(e) if e.code == "ValidationException" => Self::validation(e.message.clone()),
                Some(e) => Self::dynamodb(e.code, e.message.clone()),
                None => Self::dynamodb("InternalServerError", message),
            },
            other => Self::validation(other.to_string()),
        }
    }
}
