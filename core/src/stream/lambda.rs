//! The records a Lambda function receives from a DynamoDB stream (feature
//! `lambda`): the `aws_lambda_events` types, whose attribute values are in
//! DynamoDB's JSON shape (`{"S": "ORDER#o1"}`).
//!
//! ```
//! use singletable::stream::{self, Event};
//! use singletable_core::stream::lambda;
//! use singletable::{Entity, OtherTypes, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop", stream = new_image)]
//! pub struct Shop;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = Shop, name = "Order")]
//! #[pk("ORDER#<id>")]
//! #[sk("DETAILS")]
//! pub struct Order {
//!     pub id: String,
//!     pub total: u32,
//! }
//!
//! let json = r#"{"Records": [{
//!     "eventID": "1", "eventName": "INSERT", "eventSource": "aws:dynamodb",
//!     "awsRegion": "eu-west-1",
//!     "dynamodb": {
//!         "ApproximateCreationDateTime": 1700000000,
//!         "Keys": {"PK": {"S": "ORDER#o1"}, "SK": {"S": "DETAILS"}},
//!         "NewImage": {"PK": {"S": "ORDER#o1"}, "SK": {"S": "DETAILS"},
//!                      "entityType": {"S": "Order"}, "id": {"S": "o1"}, "total": {"N": "12"}},
//!         "SequenceNumber": "100", "SizeBytes": 80, "StreamViewType": "NEW_IMAGE"
//!     }
//! }]}"#;
//! // In a Lambda function, the runtime hands over the parsed event.
//! let event: lambda::Event = lambda::parse_event(json.as_bytes())?;
//! for change in stream::changes::<Order, _>(&event.records, OtherTypes::Skip) {
//!     let change = change?;
//!     assert!(matches!(change.event, Event::Insert { new: Some(Order { total: 12, .. }) }));
//! }
//! # Ok::<(), singletable::Error>(())
//! ```

use std::time::{Duration, SystemTime};

#[doc(no_inline)]
pub use aws_lambda_events;
pub use aws_lambda_events::event::dynamodb::{Event, EventRecord};

use super::{IntoStreamRecord, StreamRecord, TTL_PRINCIPAL};
use crate::error::{Error, StreamError};
use crate::value::Item;

/// Parses the JSON of a DynamoDB event as Lambda delivers it (for tests,
/// and for functions that receive the raw payload).
pub fn parse_event(json: &[u8]) -> Result<Event, Error> {
    serde_json::from_slice(json).map_err(|e| Error::Stream {
        event_id: None,
        reason: StreamError::Json(e.to_string()),
    })
}

fn item(item: serde_dynamo::Item) -> Item {
    item.into()
}

fn convert(r: EventRecord) -> Result<StreamRecord, Error> {
    let c = r.change;
    let micros = c.approximate_creation_date_time.timestamp_micros();
    // An absent time deserializes as the epoch.
    let time = u64::try_from(micros)
        .ok()
        .filter(|m| *m > 0)
        .map(|m| SystemTime::UNIX_EPOCH + Duration::from_micros(m));
    let view = c.stream_view_type.as_ref().map(ToString::to_string);
    let by_ttl = r
        .user_identity
        .as_ref()
        .is_some_and(|u| u.principal_id == TTL_PRINCIPAL);
    super::record(
        Some(r.event_id),
        Some(&r.event_name),
        Some(item(c.keys)),
        Some(item(c.new_image)),
        Some(item(c.old_image)),
        c.sequence_number,
        time,
        view.as_deref(),
        Some(c.size_bytes),
        by_ttl,
    )
}

impl IntoStreamRecord for &EventRecord {
    fn into_stream_record(self) -> Result<StreamRecord, Error> {
        convert(self.clone())
    }
}

impl IntoStreamRecord for EventRecord {
    fn into_stream_record(self) -> Result<StreamRecord, Error> {
        convert(self)
    }
}
