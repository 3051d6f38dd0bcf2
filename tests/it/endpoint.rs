//! The embedded engine as a DynamoDB endpoint (`singletable-server`):
//! raw HTTP, unchanged aws-sdk-dynamodb code in process, the reference
//! documents' boto3 code and the AWS CLI, and expression validation
//! compared with DynamoDB Local.

mod capacity;
mod departures;
mod durable;
mod errors;
mod http;
mod legacy;
mod limits;
mod partiql;
mod python;
mod raw;
mod sdk;
mod streams;
mod ttl;
