//! The DynamoDB Streams API's records (feature `streams`) as
//! [`StreamRecord`]s. Only the SDK's types are used here; the reader that
//! calls the API is the AWS driver's (`singletable::aws::StreamReader`).

use std::collections::HashMap;

use aws_sdk_dynamodbstreams::types as sdk;

use super::{IntoStreamRecord, StreamRecord, TTL_PRINCIPAL};
use crate::error::{Error, StreamError};
use crate::value::{AttributeValue, Item};

/// A Streams API value as the DynamoDB SDK's, or the path of a value of a
/// type this SDK does not know.
fn value(v: sdk::AttributeValue, path: &str) -> Result<AttributeValue, String> {
    Ok(match v {
        sdk::AttributeValue::S(s) => AttributeValue::S(s),
        sdk::AttributeValue::N(n) => AttributeValue::N(n),
        sdk::AttributeValue::B(b) => AttributeValue::B(b),
        sdk::AttributeValue::Bool(b) => AttributeValue::Bool(b),
        sdk::AttributeValue::Null(n) => AttributeValue::Null(n),
        sdk::AttributeValue::Ss(v) => AttributeValue::Ss(v),
        sdk::AttributeValue::Ns(v) => AttributeValue::Ns(v),
        sdk::AttributeValue::Bs(v) => AttributeValue::Bs(v),
        sdk::AttributeValue::L(l) => AttributeValue::L(
            l.into_iter()
                .enumerate()
                .map(|(i, v)| value(v, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        sdk::AttributeValue::M(m) => AttributeValue::M(map(m, &format!("{path}."))?),
        _ => return Err(path.to_owned()),
    })
}

fn map(m: HashMap<String, sdk::AttributeValue>, prefix: &str) -> Result<Item, String> {
    m.into_iter()
        .map(|(k, v)| {
            let path = format!("{prefix}{k}");
            value(v, &path).map(|v| (k, v))
        })
        .collect()
}

fn convert(r: sdk::Record) -> Result<StreamRecord, Error> {
    let id = r.event_id.clone();
    let unknown = |path: String| Error::Stream {
        event_id: id.clone(),
        reason: StreamError::UnknownValue(path),
    };
    let Some(c) = r.dynamodb else {
        return Err(Error::Stream {
            event_id: id,
            reason: StreamError::Missing("dynamodb"),
        });
    };
    let image = |m: Option<HashMap<String, sdk::AttributeValue>>| {
        m.map(|m| map(m, "")).transpose().map_err(unknown)
    };
    let keys = image(c.keys)?;
    let new_image = image(c.new_image)?;
    let old_image = image(c.old_image)?;
    let time = c
        .approximate_creation_date_time
        .and_then(|t| std::time::SystemTime::try_from(t).ok());
    let by_ttl = r
        .user_identity
        .as_ref()
        .is_some_and(|u| u.principal_id() == Some(TTL_PRINCIPAL));
    super::record(
        r.event_id,
        r.event_name.as_ref().map(sdk::OperationType::as_str),
        keys,
        new_image,
        old_image,
        c.sequence_number,
        time,
        c.stream_view_type.as_ref().map(sdk::StreamViewType::as_str),
        c.size_bytes,
        by_ttl,
    )
}

impl IntoStreamRecord for sdk::Record {
    fn into_stream_record(self) -> Result<StreamRecord, Error> {
        convert(self)
    }
}

impl IntoStreamRecord for &sdk::Record {
    fn into_stream_record(self) -> Result<StreamRecord, Error> {
        convert(self.clone())
    }
}
