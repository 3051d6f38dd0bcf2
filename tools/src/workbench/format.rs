//! The format of Workbench's models: the document, its tables, key
//! attributes, facets and indexes, items in DynamoDB JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use singletable_runtime::Item;

use crate::definition::{ProjectionDef, Throughput};

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
