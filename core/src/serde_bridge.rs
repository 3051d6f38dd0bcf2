//! Fields marked `#[attr(serde)]` go through serde_dynamo, for types that
//! implement serde's traits but not [`Attr`](crate::Attr).

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Serialize, de::DeserializeOwned};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};

/// Encodes any serde value as an attribute value.
pub fn serde_to_attr<T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue, EncodeError> {
    serde_dynamo::to_attribute_value(value).map_err(|e| EncodeError::new(e.to_string()))
}

/// Decodes any serde value from an attribute value.
pub fn serde_from_attr<T: DeserializeOwned>(value: AttributeValue) -> Result<T, DecodeError> {
    serde_dynamo::from_attribute_value(value)
        .map_err(|e| DecodeError::new(DecodeErrorKind::Invalid(e.to_string())))
}
