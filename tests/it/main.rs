//! The integration tests, in one test binary (one link of aws-sdk-dynamodb).
//! Modules that talk to DynamoDB use the DynamoDB Local that the test
//! command (`scripts/test.sh`, see docs/testing.md) starts; the codec tests need nothing.

#[allow(dead_code)]
#[path = "../../examples/shop/app.rs"]
mod app;
#[allow(dead_code)]
#[path = "../../examples/shop/model.rs"]
mod model;
/// The shop example's declared workload.
#[path = "../../examples/shop/workload.rs"]
mod shop_workload;

mod access;
mod admin;
mod backends;
mod backfill;
mod batches;
mod collections;
mod consistency;
mod cost;
/// The tracker example's model and access patterns.
#[allow(dead_code)]
#[path = "../../examples/tracker/tracker.rs"]
mod tracker_example;

mod declared_markers;
mod design;
mod differential;
mod docs;
mod embedded;
mod endpoint;
mod errors;
mod evolution;
mod existing;
mod index_keys;
mod integrity;
mod item_codec;
mod key_codec;
mod keys_in_sync;
mod layers;
mod lints;
mod multi_attribute;
mod packaging;
mod pagination;
mod paths;
mod published;
mod refusals;
mod reserved;
mod scans;
mod shop;
mod streams;
mod support;
mod tracing_spans;
mod tracker;
mod vector_tools;
mod vectors;
mod versions;
mod workbench;
mod writes;
