//! [NoSQL Workbench](https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.html)
//! data models: the declared design exported as a model Workbench imports
//! (the table, its key attributes, indexes with their projections, one
//! facet per entity with its key templates as aliases, sample items), and
//! a model's items loaded into a table of either backend, for tests and
//! local runs.
//!
//! The format is the one of the models AWS publishes
//! (`aws-samples/amazon-dynamodb-design-patterns`) and Workbench exports:
//! `ModelName`, `ModelMetadata`, `DataModel` (one entry per table, with
//! `TableFacets`, `GlobalSecondaryIndexes` and `TableData`), items in
//! DynamoDB JSON (`{"PK": {"S": "USER#ana"}}`). Parsing tolerates unknown
//! fields and older versions (`"Version": "1.0"`, no `AWSService`);
//! exports are version `3.0`.
//!
//! ```
//! use singletable::{Entity, Table};
//! use singletable::workbench::Model;
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1, entities(User))]
//! pub struct App;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(table = App, rename_all = "camelCase")]
//! #[pk("USER#<user_id>")]
//! #[sk("PROFILE")]
//! #[gsi1(pk = "EMAIL#<email>", sk = "USER")]
//! pub struct User { pub user_id: String, pub email: String }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let ana = User { user_id: "ana".into(), email: "ana@example.com".into() };
//! let json = Model::builder("App").sample(&ana)?.build().to_json();
//! // … imported into Workbench, edited there, exported again; then:
//! let model = Model::from_json(&json)?;
//! let facet = model.table("App").unwrap().facet("User").unwrap();
//! assert_eq!(facet.key_attribute_alias.partition_key_alias, "USER#<userId>");
//!
//! let db = singletable::Db::<singletable::Embedded>::in_memory::<App>("App")?;
//! assert_eq!(model.load("App", &db).await?, 1);
//! assert_eq!(db.get::<User>(User::key("ana")?).await?, Some(ana));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

// The format's types are `format`, reading and loading a model `model`,
// exporting the declared design `builder`, and what fails `error`.
mod builder;
mod error;
mod format;
mod model;

pub use builder::ModelBuilder;
pub use error::Error;
pub use format::{
    Attribute, DataAccess, DataModel, Facet, Index, KeyAttributeAlias, KeyAttributes, Model,
    ModelMetadata, ProvisionedCapacitySettings,
};
