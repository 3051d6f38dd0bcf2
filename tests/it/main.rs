//! The integration tests, in one test binary (one link of aws-sdk-dynamodb).
//! Modules that talk to DynamoDB use the DynamoDB Local that the README's
//! test command (`scripts/test.sh`) starts; the codec tests need nothing.

#[allow(dead_code)]
#[path = "../../examples/shop/app.rs"]
mod app;
#[allow(dead_code)]
#[path = "../../examples/shop/model.rs"]
mod model;

mod access;
mod backfill;
mod batches;
mod collections;
mod design;
mod differential;
mod embedded;
mod integrity;
mod item_codec;
mod key_codec;
mod lints;
mod pagination;
mod reserved;
mod shop;
mod streams;
mod support;
mod versions;
mod writes;
