//! The tracker's model and access patterns, one module for the example
//! binary (`main.rs`) and the integration tests.

#[path = "app.rs"]
pub mod app;
#[path = "model.rs"]
pub mod model;
