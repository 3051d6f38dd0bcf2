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

use std::any::TypeId;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use singletable_runtime::design::EntityShape;
use singletable_runtime::exec::Executor;
use singletable_runtime::request::PutItem;
use singletable_runtime::value::type_name;
use singletable_runtime::{Db, Entity, GlobalIndex, Item, LocalIndex, Table};

use crate::definition::{Billing, IndexDef, ProjectionDef, TableDefinition, Throughput};

/// What a model could not be read, built or loaded for.
///
/// ```
/// use singletable::workbench::{Error, Model};
///
/// let err = Model::from_json(r#"{"ModelName": "App"}"#).unwrap_err();
/// assert!(matches!(err, Error::Json(_)));
/// assert!(err.to_string().starts_with("not a NoSQL Workbench model"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The JSON is not a Workbench model (or an item not DynamoDB JSON).
    #[error("not a NoSQL Workbench model: {0}")]
    Json(#[from] serde_json::Error),
    /// The model has no table of that name.
    #[error("the model has no table `{0}`")]
    NoTable(String),
    /// An item of the model lacks one of the table's key attributes, or
    /// holds it with another type than the table declares. Nothing of the
    /// table was written.
    #[error("item {item} of table `{table}` {}", key_problem(attribute, expected, *found))]
    KeyAttribute {
        /// The model's table.
        table: String,
        /// The item's position in [`DataModel::items`].
        item: usize,
        /// The key attribute.
        attribute: String,
        /// Its type in the model's `KeyAttributes`.
        expected: String,
        /// The type the item holds, `None` when it has none.
        found: Option<&'static str>,
    },
    /// A sample entity could not be encoded (`Entity::to_item` failed).
    #[error("sample of `{entity}` does not encode: {source}")]
    Encode {
        /// The entity type.
        entity: &'static str,
        /// Why.
        source: Box<singletable_runtime::Error>,
    },
    /// DynamoDB (or the embedded backend) refused an item; the items before
    /// it were written.
    #[error("writing item {item} of table `{table}`: {source}")]
    Write {
        /// The model's table.
        table: String,
        /// The item's position in [`DataModel::items`].
        item: usize,
        /// What the backend answered.
        source: Box<singletable_runtime::Error>,
    },
}

fn key_problem(attribute: &str, expected: &str, found: Option<&str>) -> String {
    match found {
        None => format!("has no key attribute `{attribute}` of type {expected}"),
        Some(t) => format!("holds key attribute `{attribute}` as {t}, not {expected}"),
    }
}

/// A NoSQL Workbench data model: the document Workbench imports and
/// exports.
///
/// ```
/// use singletable::workbench::Model;
///
/// let model = Model::from_json(r#"{
///   "ModelName": "Counters",
///   "ModelMetadata": { "Author": "", "Description": "", "Version": "1.0" },
///   "DataModel": [{
///     "TableName": "Counters",
///     "KeyAttributes": { "PartitionKey": { "AttributeName": "id", "AttributeType": "S" } },
///     "TableData": [ { "id": { "S": "visits" }, "n": { "N": "41" } } ]
///   }]
/// }"#)?;
/// assert_eq!(model.model_name, "Counters");
/// let table = model.table("Counters").unwrap();
/// assert!(table.key_attributes.sort_key.is_none());
/// assert_eq!(table.table_data[0]["n"], singletable::AttributeValue::N("41".into()));
/// // Written back in the same format.
/// assert_eq!(Model::from_json(&model.to_json())?, model);
/// # Ok::<(), singletable::workbench::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Model {
    /// The model's name.
    pub model_name: String,
    /// Author, dates, description, format version.
    #[serde(default)]
    pub model_metadata: ModelMetadata,
    /// One entry per table.
    pub data_model: Vec<DataModel>,
}

/// `ModelMetadata`: who wrote the model, when, and the format's version.
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// let model = Model::builder("App").author("Ana").dated("May 01, 2024, 12:00 PM").table::<App>().build();
/// let meta = &model.model_metadata;
/// assert_eq!((meta.aws_service.as_str(), meta.version.as_str()), ("Amazon DynamoDB", "3.0"));
/// assert_eq!((meta.author.as_str(), meta.date_created.as_str()), ("Ana", "May 01, 2024, 12:00 PM"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ModelMetadata {
    /// Author.
    pub author: String,
    /// `Jun 22, 2020, 11:55 PM`, as Workbench writes dates.
    pub date_created: String,
    /// Likewise.
    pub date_last_modified: String,
    /// Description.
    pub description: String,
    /// `Amazon DynamoDB` (absent from version 1.0 models).
    #[serde(rename = "AWSService")]
    pub aws_service: String,
    /// The format's version: `3.0` in exports.
    pub version: String,
}

/// One table of a model (an entry of `DataModel`).
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1(keys_only))]
/// # pub struct App;
///
/// let model = Model::builder("App").table::<App>().build();
/// let table = &model.data_model[0];
/// assert_eq!(table.table_name, "App");
/// assert_eq!(table.key_attributes.partition_key.attribute_name, "PK");
/// assert_eq!(table.global_secondary_indexes[0].projection.projection_type, "KEYS_ONLY");
/// assert_eq!(table.billing_mode.as_deref(), Some("PAY_PER_REQUEST"));
/// assert!(table.table_data.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DataModel {
    /// Table name.
    pub table_name: String,
    /// The table's partition and sort key.
    pub key_attributes: KeyAttributes,
    /// Every other attribute the table's items have, with its type.
    #[serde(default)]
    pub non_key_attributes: Vec<Attribute>,
    /// One facet per entity type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_facets: Vec<Facet>,
    /// Global secondary indexes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<Index>,
    /// Local secondary indexes, in the shape of the global ones (Workbench's
    /// format defines global indexes only; written only when the table
    /// declares local ones).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<Index>,
    /// Items, in DynamoDB JSON.
    #[serde(default, with = "dynamodb_json")]
    pub table_data: Vec<Item>,
    /// Workbench's data sources (`{"MySql": {}}`).
    #[serde(default)]
    pub data_access: DataAccess,
    /// `PAY_PER_REQUEST` or `PROVISIONED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_mode: Option<String>,
    /// Capacity of a provisioned table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_capacity_settings: Option<ProvisionedCapacitySettings>,
}

/// `KeyAttributes`: a table's or an index's partition and sort key.
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// let model = Model::builder("App").table::<App>().build();
/// let keys = &model.data_model[0].key_attributes;
/// assert_eq!(keys.sort_key.as_ref().unwrap().attribute_name, "SK");
/// assert_eq!(keys.partition_key.attribute_type, "S");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeyAttributes {
    /// Partition (HASH) key.
    pub partition_key: Attribute,
    /// Sort (RANGE) key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_key: Option<Attribute>,
}

/// An attribute and its type (`S`, `N`, `B`, `BOOL`, `M`, `L`, `SS`, …).
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, ttl = "expiresAt")]
/// # pub struct App;
///
/// let model = Model::builder("App").table::<App>().build();
/// let attrs: Vec<(&str, &str)> = model.data_model[0]
///     .non_key_attributes
///     .iter()
///     .map(|a| (a.attribute_name.as_str(), a.attribute_type.as_str()))
///     .collect();
/// assert_eq!(attrs, [("GSI1PK", "S"), ("GSI1SK", "S"), ("entityType", "S"), ("expiresAt", "N")]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Attribute {
    /// Attribute name.
    pub attribute_name: String,
    /// DynamoDB's name of its type.
    pub attribute_type: String,
}

/// A facet: the items of one entity type, with the key templates as the
/// key columns' names (aliases) and the attributes it has.
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, entities(Order))]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App, rename_all = "camelCase")]
/// #[pk("USER#<user_id>")]
/// #[sk("ORDER#<order_id>")]
/// #[gsi1(pk = "ORDER#<order_id>", sk = "ORDER")]
/// pub struct Order { pub user_id: String, pub order_id: String, pub total: u32 }
///
/// let model = Model::builder("App").table::<App>().build();
/// let facet = model.table("App").unwrap().facet("Order").unwrap();
/// assert_eq!(facet.facet_name, "Order");
/// assert_eq!(facet.key_attribute_alias.sort_key_alias.as_deref(), Some("ORDER#<orderId>"));
/// assert_eq!(facet.non_key_attributes, ["entityType", "GSI1PK", "GSI1SK", "userId", "orderId", "total"]);
/// assert!(facet.table_data.is_empty()); // no sample given
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Facet {
    /// The entity type.
    pub facet_name: String,
    /// The names shown for the table's key attributes.
    pub key_attribute_alias: KeyAttributeAlias,
    /// The facet's items, in DynamoDB JSON.
    #[serde(default, with = "dynamodb_json")]
    pub table_data: Vec<Item>,
    /// The non-key attributes the facet's items have.
    #[serde(default)]
    pub non_key_attributes: Vec<String>,
    /// Workbench's data sources (`{"MySql": {}}`).
    #[serde(default)]
    pub data_access: DataAccess,
}

/// `KeyAttributeAlias`: what a facet calls the table's key attributes;
/// exports name them by the entity's key templates.
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", entities(User))]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
///
/// let model = Model::builder("App").table::<App>().build();
/// let alias = &model.data_model[0].table_facets[0].key_attribute_alias;
/// assert_eq!((alias.partition_key_alias.as_str(), alias.sort_key_alias.as_deref()), ("USER#<id>", Some("PROFILE")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeyAttributeAlias {
    /// The partition key's name in the facet.
    pub partition_key_alias: String,
    /// The sort key's name in the facet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_key_alias: Option<String>,
}

/// A secondary index: its name, key and projection.
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1(include(title)), lsi1)]
/// # pub struct App;
///
/// let model = Model::builder("App").table::<App>().build();
/// let gsi1 = &model.data_model[0].global_secondary_indexes[0];
/// assert_eq!((gsi1.index_name.as_str(), gsi1.key_attributes.partition_key.attribute_name.as_str()), ("GSI1", "GSI1PK"));
/// assert_eq!(gsi1.projection.non_key_attributes.as_deref(), Some(&["title".to_string()][..]));
/// let lsi1 = &model.data_model[0].local_secondary_indexes[0];
/// assert_eq!(lsi1.key_attributes.sort_key.as_ref().unwrap().attribute_name, "LSI1SK");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Index {
    /// Index name.
    pub index_name: String,
    /// The index's key. A multi-attribute key is written with its first
    /// partition and first sort attribute (the format has one of each).
    pub key_attributes: KeyAttributes,
    /// What the index projects (`ALL`, `KEYS_ONLY`, `INCLUDE`).
    pub projection: ProjectionDef,
}

/// `DataAccess`: Workbench's data sources; exports write `{"MySql": {}}`
/// as Workbench does.
///
/// ```
/// use singletable::workbench::DataAccess;
///
/// let json = serde_json::to_string(&DataAccess::default()).unwrap();
/// assert_eq!(json, r#"{"MySql":{}}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DataAccess {
    /// The MySQL data source's settings, as Workbench wrote them.
    #[serde(rename = "MySql", default)]
    pub my_sql: serde_json::Map<String, serde_json::Value>,
}

/// `ProvisionedCapacitySettings` of a provisioned table: the throughput,
/// and Workbench's auto-scaling settings as it wrote them.
///
/// ```
/// use singletable::workbench::Model;
///
/// let model = Model::from_json(r#"{
///   "ModelName": "M",
///   "DataModel": [{
///     "TableName": "T",
///     "KeyAttributes": { "PartitionKey": { "AttributeName": "id", "AttributeType": "S" } },
///     "BillingMode": "PROVISIONED",
///     "ProvisionedCapacitySettings": {
///       "ProvisionedThroughput": { "ReadCapacityUnits": 5, "WriteCapacityUnits": 5 },
///       "AutoScalingRead": { "ScalingPolicyConfiguration": { "TargetValue": 70 } }
///     }
///   }]
/// }"#)?;
/// let capacity = model.data_model[0].provisioned_capacity_settings.as_ref().unwrap();
/// assert_eq!(capacity.provisioned_throughput.read_capacity_units, 5);
/// assert!(capacity.auto_scaling_read.is_some() && capacity.auto_scaling_write.is_none());
/// # Ok::<(), singletable::workbench::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedCapacitySettings {
    /// Read and write capacity units.
    pub provisioned_throughput: Throughput,
    /// Auto scaling of reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_scaling_read: Option<serde_json::Value>,
    /// Auto scaling of writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_scaling_write: Option<serde_json::Value>,
}

/// Items as DynamoDB JSON, through serde_dynamo's `AttributeValue` (which
/// converts to and from the SDK's). Attributes are written in name order.
mod dynamodb_json {
    use super::*;

    pub fn serialize<S: Serializer>(items: &[Item], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(items.iter().map(|item| {
            item.iter()
                .map(|(k, v)| (k, serde_dynamo::AttributeValue::from(v.clone())))
                .collect::<BTreeMap<_, _>>()
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Item>, D::Error> {
        let items = Vec::<serde_dynamo::Item>::deserialize(d)?;
        Ok(items.into_iter().map(Item::from).collect())
    }
}

impl Model {
    /// A builder of the model of the declared design: tables, facets,
    /// sample items.
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let model = Model::builder("Shop").table::<App>().build();
    /// assert_eq!((model.model_name.as_str(), model.data_model.len()), ("Shop", 1));
    /// ```
    pub fn builder(name: impl Into<String>) -> ModelBuilder {
        let now = workbench_date(&<String as singletable_runtime::clock::Timestamp>::now());
        ModelBuilder {
            name: name.into(),
            metadata: ModelMetadata {
                author: String::new(),
                date_created: now.clone(),
                date_last_modified: now,
                description: String::new(),
                aws_service: "Amazon DynamoDB".into(),
                version: "3.0".into(),
            },
            tables: Vec::new(),
        }
    }

    /// Parses a model from its JSON (a Workbench export, or AWS's sample
    /// models).
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    ///
    /// // An item that is not DynamoDB JSON is refused.
    /// let err = Model::from_json(r#"{
    ///   "ModelName": "M",
    ///   "DataModel": [{
    ///     "TableName": "T",
    ///     "KeyAttributes": { "PartitionKey": { "AttributeName": "id", "AttributeType": "S" } },
    ///     "TableData": [ { "id": "plain" } ]
    ///   }]
    /// }"#).unwrap_err();
    /// assert!(matches!(err, Error::Json(_)));
    /// ```
    pub fn from_json(json: &str) -> Result<Self, Error> {
        Ok(serde_json::from_str(json)?)
    }

    /// The model as the pretty-printed JSON Workbench imports.
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let json = Model::builder("App").table::<App>().build().to_json();
    /// let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    /// assert_eq!(value["DataModel"][0]["KeyAttributes"]["PartitionKey"]["AttributeName"], "PK");
    /// assert_eq!(value["DataModel"][0]["DataAccess"], serde_json::json!({ "MySql": {} }));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| unreachable!("plain data serializes"))
    }

    /// The table named `name`.
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let model = Model::builder("App").table::<App>().build();
    /// assert!(model.table("App").is_some() && model.table("Other").is_none());
    /// ```
    pub fn table(&self, name: &str) -> Option<&DataModel> {
        self.data_model.iter().find(|t| t.table_name == name)
    }

    /// Writes the items of the model's table `table` into `db`'s table
    /// (see [`DataModel::load`]); how many were written.
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    /// # use singletable::{Db, Embedded, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let model = Model::builder("App").table::<App>().build();
    /// assert_eq!(model.load("App", &db).await?, 0);
    /// assert!(matches!(model.load("Other", &db).await, Err(Error::NoTable(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn load<E: Executor>(&self, table: &str, db: &Db<E>) -> Result<usize, Error> {
        let model = self
            .table(table)
            .ok_or_else(|| Error::NoTable(table.to_owned()))?;
        model.load(db).await
    }
}

impl DataModel {
    /// The facet named `name` (an entity type, in exports).
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", entities(User))]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// let model = Model::builder("App").table::<App>().build();
    /// assert!(model.data_model[0].facet("User").is_some());
    /// ```
    pub fn facet(&self, name: &str) -> Option<&Facet> {
        self.table_facets.iter().find(|f| f.facet_name == name)
    }

    /// Every item of the table: its `TableData`, then the items of its
    /// facets whose key is not among them (models keep items in either
    /// place, or both).
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// let mut model = Model::builder("App").sample(&User { id: "ana".into() })?.build();
    /// let table = &mut model.data_model[0];
    /// assert_eq!(table.items().len(), 1); // in the table's data and the facet's
    /// table.table_data.clear();
    /// assert_eq!(table.items().len(), 1); // in the facet's only
    /// # Ok::<(), singletable::workbench::Error>(())
    /// ```
    pub fn items(&self) -> Vec<&Item> {
        let pk = self.key_attributes.partition_key.attribute_name.as_str();
        let sk = self
            .key_attributes
            .sort_key
            .as_ref()
            .map(|k| k.attribute_name.as_str());
        let key = |item: &Item| (item.get(pk).cloned(), sk.and_then(|s| item.get(s)).cloned());
        let mut keys: Vec<_> = self.table_data.iter().map(key).collect();
        let mut items: Vec<&Item> = self.table_data.iter().collect();
        for item in self.table_facets.iter().flat_map(|f| &f.table_data) {
            let k = key(item);
            if !keys.contains(&k) {
                keys.push(k);
                items.push(item);
            }
        }
        items
    }

    /// Writes [`Self::items`] into `db`'s table, one PutItem each (an item
    /// of the same key is replaced); how many were written. Every item is
    /// checked for the table's key attributes first: an item without one
    /// is an [`Error::KeyAttribute`] and nothing is written.
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug, PartialEq)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let mut model = Model::builder("App").sample(&User { id: "ana".into() })?.build();
    /// assert_eq!(model.data_model[0].load(&db).await?, 1);
    ///
    /// model.data_model[0].table_facets.clear();
    /// model.data_model[0].table_data[0].remove("SK");
    /// let err = model.data_model[0].load(&db).await.unwrap_err();
    /// assert!(matches!(&err, Error::KeyAttribute { attribute, found: None, .. } if attribute == "SK"));
    /// assert_eq!(err.to_string(), "item 0 of table `App` has no key attribute `SK` of type S");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn load<E: Executor>(&self, db: &Db<E>) -> Result<usize, Error> {
        let items = self.items();
        for (i, item) in items.iter().enumerate() {
            self.check_key(i, item)?;
        }
        for (i, item) in items.iter().enumerate() {
            db.executor()
                .put_item(PutItem {
                    table: db.table_name().to_owned(),
                    item: (*item).clone(),
                    condition: None,
                    return_old: false,
                    return_on_condition_failure: false,
                })
                .await
                .map_err(|e| Error::Write {
                    table: self.table_name.clone(),
                    item: i,
                    source: Box::new(e),
                })?;
        }
        Ok(items.len())
    }

    fn check_key(&self, i: usize, item: &Item) -> Result<(), Error> {
        let keys = &self.key_attributes;
        for key in std::iter::once(&keys.partition_key).chain(&keys.sort_key) {
            let found = item.get(&key.attribute_name).map(type_name);
            if found != Some(key.attribute_type.as_str()) {
                return Err(Error::KeyAttribute {
                    table: self.table_name.clone(),
                    item: i,
                    attribute: key.attribute_name.clone(),
                    expected: key.attribute_type.clone(),
                    found,
                });
            }
        }
        Ok(())
    }
}

/// Builds a [`Model`] of declared tables: [`Model::builder`], then
/// [`table`](Self::table) for each table, [`sample`](Self::sample) for each
/// sample item (which adds its entity's table and facet when missing), and
/// [`build`](Self::build).
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub age: u8 }
///
/// let model = Model::builder("App")
///     .description("Users and their profiles")
///     .sample(&User { id: "ana".into(), age: 41 })?
///     .build();
/// let table = &model.data_model[0];
/// assert_eq!(model.model_metadata.description, "Users and their profiles");
/// assert_eq!(table.table_facets[0].table_data, table.table_data);
/// // Types come from the samples: `age` is a number.
/// assert!(table.non_key_attributes.iter().any(|a| a.attribute_name == "age" && a.attribute_type == "N"));
/// # Ok::<(), singletable::workbench::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ModelBuilder {
    name: String,
    metadata: ModelMetadata,
    tables: Vec<Draft>,
}

/// A table as declared, with the facets and samples given so far.
#[derive(Debug, Clone)]
struct Draft {
    id: TypeId,
    definition: TableDefinition,
    entity_type: &'static str,
    ttl: Option<&'static str>,
    globals: &'static [GlobalIndex],
    locals: &'static [LocalIndex],
    entities: Vec<EntityShape>,
    /// (facet, item).
    samples: Vec<(&'static str, Item)>,
}

impl ModelBuilder {
    /// Sets the author.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// assert_eq!(Model::builder("App").author("Ana").build().model_metadata.author, "Ana");
    /// ```
    pub fn author(mut self, author: impl Into<String>) -> Self {
        self.metadata.author = author.into();
        self
    }

    /// Sets the description.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// let model = Model::builder("App").description("The shop").build();
    /// assert_eq!(model.model_metadata.description, "The shop");
    /// ```
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.metadata.description = description.into();
        self
    }

    /// Sets the dates created and last modified (now, by default), for an
    /// export that does not change from one run to the next.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// let model = Model::builder("App").dated("Jan 02, 2025, 09:30 AM").build();
    /// assert_eq!(model.model_metadata.date_last_modified, "Jan 02, 2025, 09:30 AM");
    /// ```
    pub fn dated(mut self, date: impl Into<String>) -> Self {
        self.metadata.date_created = date.into();
        self.metadata.date_last_modified = self.metadata.date_created.clone();
        self
    }

    /// Adds table `T` as declared (under its declared name), with a facet
    /// for each entity of `#[table(entities(...))]`; a second call for the
    /// same table changes nothing.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// let model = Model::builder("App").table::<App>().table::<App>().build();
    /// assert_eq!(model.data_model.len(), 1);
    /// ```
    pub fn table<T: Table>(mut self) -> Self {
        self.draft::<T>();
        self
    }

    fn draft<T: Table>(&mut self) -> &mut Draft {
        let id = TypeId::of::<T>();
        let at = match self.tables.iter().position(|t| t.id == id) {
            Some(at) => at,
            None => {
                self.tables.push(Draft {
                    id,
                    definition: TableDefinition::of::<T>(T::NAME, Billing::OnDemand),
                    entity_type: T::ENTITY_TYPE,
                    ttl: T::TTL,
                    globals: T::GLOBAL_INDEXES,
                    locals: T::LOCAL_INDEXES,
                    entities: T::ENTITIES.to_vec(),
                    samples: Vec::new(),
                });
                self.tables.len() - 1
            }
        };
        &mut self.tables[at]
    }

    /// Adds `item` as a sample: encoded as the table stores it, in its
    /// entity's facet and in the table's data. The entity's table and
    /// facet are added when missing.
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, #[attr(min_len = 1)] pub name: String }
    ///
    /// let model = Model::builder("App").sample(&User { id: "ana".into(), name: "Ana".into() })?.build();
    /// assert_eq!(model.data_model[0].table_data[0]["PK"].as_s().unwrap(), "USER#ana");
    /// // A sample the entity refuses to store is refused here too.
    /// let empty = User { id: "bo".into(), name: String::new() };
    /// assert!(matches!(Model::builder("App").sample(&empty), Err(Error::Encode { entity: "User", .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn sample<E: Entity>(mut self, item: &E) -> Result<Self, Error> {
        let encoded = item
            .validate()
            .and_then(|()| item.to_item())
            .map_err(|e| Error::Encode {
                entity: E::ENTITY_TYPE,
                source: Box::new(e),
            })?;
        let draft = self.draft::<E::Table>();
        if !draft.entities.iter().any(|e| e.name == E::SHAPE.name) {
            draft.entities.push(E::SHAPE);
        }
        draft.samples.push((E::SHAPE.name, encoded));
        Ok(self)
    }

    /// The model.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// let model = Model::builder("Empty").build();
    /// assert!(model.data_model.is_empty());
    /// ```
    pub fn build(self) -> Model {
        Model {
            model_name: self.name,
            model_metadata: self.metadata,
            data_model: self.tables.iter().map(Draft::build).collect(),
        }
    }
}

fn attribute(name: &str, kind: &str) -> Attribute {
    Attribute {
        attribute_name: name.to_owned(),
        attribute_type: kind.to_owned(),
    }
}

fn push_new(names: &mut Vec<String>, name: &str) {
    if !names.iter().any(|n| n == name) {
        names.push(name.to_owned());
    }
}

impl Draft {
    fn is_key(&self, name: &str) -> bool {
        self.definition
            .key_schema
            .iter()
            .any(|k| k.attribute_name == name)
    }

    /// The declared type of an attribute the table keys on (or `N` for
    /// its TTL attribute).
    fn declared_type(&self, name: &str) -> Option<&str> {
        if Some(name) == self.ttl {
            return Some("N");
        }
        if name == self.entity_type {
            return Some("S");
        }
        self.definition
            .attribute_definitions
            .iter()
            .find(|a| a.attribute_name == name)
            .map(|a| a.attribute_type.as_str())
    }

    fn facet(&self, shape: &EntityShape) -> Facet {
        let mut names = vec![self.entity_type.to_owned()];
        for g in self.globals {
            if let Some(ix) = shape.index(&format!("gsi{}", g.number)) {
                if ix.pk.is_some() {
                    push_new(&mut names, g.pk);
                }
                if let (Some(_), Some(sk)) = (ix.sk, g.sk) {
                    push_new(&mut names, sk);
                }
            }
        }
        for l in self.locals {
            if shape.index(&format!("lsi{}", l.number)).is_some() {
                push_new(&mut names, l.sk);
            }
        }
        for a in shape.attributes {
            push_new(&mut names, a);
        }
        let samples: Vec<Item> = self
            .samples
            .iter()
            .filter(|(facet, _)| *facet == shape.name)
            .map(|(_, item)| item.clone())
            .collect();
        // What the samples hold beyond the declaration (schema versions,
        // timestamps), in name order.
        for item in &samples {
            let mut extra: Vec<&String> = item.keys().filter(|k| !self.is_key(k)).collect();
            extra.sort();
            for a in extra {
                push_new(&mut names, a);
            }
        }
        names.retain(|n| !self.is_key(n));
        Facet {
            facet_name: shape.name.to_owned(),
            key_attribute_alias: KeyAttributeAlias {
                partition_key_alias: shape.pk.template.to_owned(),
                sort_key_alias: shape
                    .sk
                    .filter(|_| self.definition.key_schema.len() > 1)
                    .map(|k| k.template.to_owned()),
            },
            table_data: samples,
            non_key_attributes: names,
            data_access: DataAccess::default(),
        }
    }

    fn index(&self, def: &IndexDef) -> Index {
        let key = |kind: &str| {
            def.key_schema.iter().find(|k| k.key_type == kind).map(|k| {
                let t = self.declared_type(&k.attribute_name).unwrap_or("S");
                attribute(&k.attribute_name, t)
            })
        };
        Index {
            index_name: def.index_name.clone(),
            key_attributes: KeyAttributes {
                partition_key: key("HASH")
                    .unwrap_or_else(|| unreachable!("an index has a partition key")),
                sort_key: key("RANGE"),
            },
            projection: def.projection.clone(),
        }
    }

    fn build(&self) -> DataModel {
        let def = &self.definition;
        let facets: Vec<Facet> = self.entities.iter().map(|e| self.facet(e)).collect();
        // Index keys, the entity type and TTL attributes, then what the
        // facets list; typed as declared, else as the first sample holding
        // the attribute stores it, else as a string.
        let mut names: Vec<String> = Vec::new();
        for a in &def.attribute_definitions {
            push_new(&mut names, &a.attribute_name);
        }
        push_new(&mut names, self.entity_type);
        if let Some(ttl) = self.ttl {
            push_new(&mut names, ttl);
        }
        for f in &facets {
            for n in &f.non_key_attributes {
                push_new(&mut names, n);
            }
        }
        let non_key_attributes = names
            .iter()
            .filter(|n| !self.is_key(n))
            .map(|n| {
                let sampled = || {
                    self.samples
                        .iter()
                        .find_map(|(_, item)| item.get(n.as_str()).map(type_name))
                };
                attribute(n, self.declared_type(n).or_else(sampled).unwrap_or("S"))
            })
            .collect();
        let key = |k: &str| attribute(k, self.declared_type(k).unwrap_or("S"));
        DataModel {
            table_name: def.table_name.clone(),
            key_attributes: KeyAttributes {
                partition_key: key(&def.key_schema[0].attribute_name),
                sort_key: def.key_schema.get(1).map(|k| key(&k.attribute_name)),
            },
            non_key_attributes,
            table_facets: facets,
            global_secondary_indexes: def
                .global_secondary_indexes
                .iter()
                .map(|i| self.index(i))
                .collect(),
            local_secondary_indexes: def
                .local_secondary_indexes
                .iter()
                .map(|i| self.index(i))
                .collect(),
            table_data: self.samples.iter().map(|(_, item)| item.clone()).collect(),
            data_access: DataAccess::default(),
            billing_mode: Some(def.billing_mode.clone()),
            provisioned_capacity_settings: None,
        }
    }
}

/// `2024-05-01T13:05:00Z` as Workbench writes dates: `May 01, 2024, 01:05 PM`.
fn workbench_date(rfc3339: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let part = |from: usize, to: usize| rfc3339.get(from..to).and_then(|s| s.parse::<usize>().ok());
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute)) = (
        part(0, 4),
        part(5, 7),
        part(8, 10),
        part(11, 13),
        part(14, 16),
    ) else {
        return rfc3339.to_owned();
    };
    let month = MONTHS.get(month.wrapping_sub(1)).copied().unwrap_or("Jan");
    let (hour, half) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    format!("{month} {day:02}, {year}, {hour:02}:{minute:02} {half}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_as_workbench_writes_them() {
        assert_eq!(
            workbench_date("2020-06-22T23:55:00Z"),
            "Jun 22, 2020, 11:55 PM"
        );
        assert_eq!(
            workbench_date("2024-01-02T00:05:09Z"),
            "Jan 02, 2024, 12:05 AM"
        );
        assert_eq!(
            workbench_date("2024-12-31T12:00:00Z"),
            "Dec 31, 2024, 12:00 PM"
        );
        assert_eq!(workbench_date("garbage"), "garbage");
    }
}
