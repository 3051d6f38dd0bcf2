//! The embedded engine as a DynamoDB endpoint (`singletable-server`):
//! raw HTTP, unchanged aws-sdk-dynamodb code in process, and expression
//! validation compared with DynamoDB Local.

mod errors;
mod http;
mod sdk;
