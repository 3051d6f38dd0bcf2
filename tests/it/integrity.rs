//! Integrity under hostile data (issue 10): exact size limits, key fields
//! that must agree with the key, cursors scoped to entity and query shape
//! and opaque, upserts that create readable items. Each test runs on
//! DynamoDB Local and on the embedded backend.

mod cursors;
mod keys;
mod size;
mod upsert;
