//! The table definition a [`Table`] declaration implies: key schema, every
//! index with its projection, the vector indexes, billing, TTL. One value,
//! three outputs: the
//! CreateTable request (`Db::create_table_if_missing`), a JSON
//! document for `aws dynamodb create-table --cli-input-json`, and a
//! CloudFormation resource. `Db::verify` compares it with
//! DescribeTable and reports drift (the runtime's `Drift`).
//!
//! ```
//! use singletable::definition::{Billing, TableDefinition};
//! use singletable::Table;
//!
//! #[derive(Table)]
//! #[table(name = "AppTable", gsi1(keys_only), lsi1, ttl = "expiresAt")]
//! pub struct AppTable;
//!
//! let def = TableDefinition::of::<AppTable>("AppTable", Billing::OnDemand);
//! assert_eq!(def.billing_mode, "PAY_PER_REQUEST");
//! // Only key attributes are defined, all strings.
//! let attrs: Vec<_> = def.attribute_definitions.iter().map(|a| a.attribute_name.as_str()).collect();
//! assert_eq!(attrs, ["GSI1PK", "GSI1SK", "LSI1SK", "PK", "SK"]);
//! assert!(def.cli_json().contains(r#""TableName": "AppTable""#));
//! assert!(def.cloudformation("Table").contains("AWS::DynamoDB::Table"));
//! assert_eq!(def.ttl_attribute.as_deref(), Some("expiresAt")); // UpdateTimeToLive, not CreateTable
//! ```

use serde::{Deserialize, Serialize};

use crate::entity::{KeyType, Projection, StreamView, Table};

mod vector;

pub use vector::{SearchSchemaElementDef, VectorAttributeDef, VectorIndexDef};

/// How the table is billed.
///
/// ```
/// use singletable::definition::{Billing, TableDefinition};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
///
/// let def = TableDefinition::of::<App>("App", Billing::Provisioned { read: 5, write: 2 });
/// assert_eq!(def.billing_mode, "PROVISIONED");
/// assert_eq!(def.provisioned_throughput.as_ref().unwrap().read_capacity_units, 5);
/// // Applied to every global index too.
/// assert!(def.global_secondary_indexes[0].provisioned_throughput.is_some());
/// assert_eq!(Billing::default(), Billing::OnDemand);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Billing {
    /// On-demand (`PAY_PER_REQUEST`), the default.
    #[default]
    OnDemand,
    /// Provisioned capacity, applied to the table and every global index.
    /// DynamoDB supports vector indexes only on on-demand tables: a
    /// provisioned definition with vector indexes is refused before
    /// CreateTable is sent ([`TableDefinition::problem`]).
    Provisioned {
        /// Read capacity units.
        read: i64,
        /// Write capacity units.
        write: i64,
    },
}

/// `KeySchema` entry.
///
/// ```
/// # use singletable::Table;
/// # use singletable::definition::{Billing, TableDefinition};
/// # #[derive(Table)]
/// # #[table(name = "AppTable", gsi1(keys_only), lsi1, ttl = "expiresAt")]
/// # pub struct AppTable;
/// # let def = TableDefinition::of::<AppTable>("AppTable", Billing::OnDemand);
/// let hash = &def.key_schema[0];
/// assert_eq!((hash.attribute_name.as_str(), hash.key_type.as_str()), ("PK", "HASH"));
/// assert_eq!(def.key_schema[1].key_type, "RANGE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeyElement {
    /// Attribute name.
    pub attribute_name: String,
    /// `HASH` or `RANGE`.
    pub key_type: String,
}

/// `AttributeDefinitions` entry: only key attributes and the attributes of
/// vector indexes' search schemas; strings, but for the declared types of
/// multi-attribute index keys and search-schema attributes.
///
/// ```
/// # use singletable::Table;
/// # use singletable::definition::{Billing, TableDefinition};
/// # #[derive(Table)]
/// # #[table(name = "AppTable", gsi1(keys_only), lsi1, ttl = "expiresAt")]
/// # pub struct AppTable;
/// # let def = TableDefinition::of::<AppTable>("AppTable", Billing::OnDemand);
/// assert!(def.attribute_definitions.iter().all(|a| a.attribute_type == "S"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinition {
    /// Attribute name.
    pub attribute_name: String,
    /// `S` for the synthetic keys; `S`, `N` or `B` as a multi-attribute
    /// index declares its attributes.
    pub attribute_type: String,
}

/// An index's projection.
///
/// ```
/// # use singletable::Table;
/// # use singletable::definition::{Billing, TableDefinition};
/// # #[derive(Table)]
/// # #[table(name = "AppTable", gsi1(keys_only), lsi1, ttl = "expiresAt")]
/// # pub struct AppTable;
/// # let def = TableDefinition::of::<AppTable>("AppTable", Billing::OnDemand);
/// assert_eq!(def.global_secondary_indexes[0].projection.projection_type, "KEYS_ONLY");
/// assert_eq!(def.local_secondary_indexes[0].projection.projection_type, "ALL");
/// assert!(def.local_secondary_indexes[0].projection.non_key_attributes.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProjectionDef {
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection_type: String,
    /// Attributes of an `INCLUDE` projection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}

/// Provisioned throughput.
///
/// ```
/// use singletable::definition::{Billing, Throughput, TableDefinition};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// let def = TableDefinition::of::<App>("App", Billing::Provisioned { read: 10, write: 5 });
/// assert_eq!(
///     def.provisioned_throughput,
///     Some(Throughput { read_capacity_units: 10, write_capacity_units: 5 }),
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Throughput {
    /// Read capacity units.
    pub read_capacity_units: i64,
    /// Write capacity units.
    pub write_capacity_units: i64,
}

/// The table's stream (`StreamSpecification`).
///
/// ```
/// use singletable::definition::{Billing, StreamSpecification, TableDefinition};
/// use singletable::{StreamView, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", stream = new_image)]
/// pub struct App;
///
/// let def = TableDefinition::of::<App>("App", Billing::OnDemand);
/// assert_eq!(def.stream_view(), Some(StreamView::NewImage));
/// let spec = StreamSpecification::enabled(StreamView::NewImage);
/// assert_eq!((spec.stream_enabled, spec.stream_view_type.as_str()), (true, "NEW_IMAGE"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSpecification {
    /// Always true in a definition: a table without a stream has none.
    pub stream_enabled: bool,
    /// `KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE` or `NEW_AND_OLD_IMAGES`.
    pub stream_view_type: String,
}

/// A secondary index.
///
/// ```
/// # use singletable::Table;
/// # use singletable::definition::{Billing, TableDefinition};
/// # #[derive(Table)]
/// # #[table(name = "AppTable", gsi1(keys_only), lsi1, ttl = "expiresAt")]
/// # pub struct AppTable;
/// # let def = TableDefinition::of::<AppTable>("AppTable", Billing::OnDemand);
/// let gsi1 = &def.global_secondary_indexes[0];
/// assert_eq!(gsi1.index_name, "GSI1");
/// assert_eq!(gsi1.key_schema[0].attribute_name, "GSI1PK");
/// let lsi1 = &def.local_secondary_indexes[0];
/// assert_eq!(lsi1.key_schema[0].attribute_name, "PK"); // a local index shares the table's partition key
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexDef {
    /// Index name.
    pub index_name: String,
    /// Key schema.
    pub key_schema: Vec<KeyElement>,
    /// Projection.
    pub projection: ProjectionDef,
    /// Throughput (global indexes of provisioned tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
}

/// The whole definition, in CreateTable's shape.
///
/// ```
/// use singletable::definition::{Billing, TableDefinition};
/// use singletable::Table;
///
/// #[derive(Table)]
/// #[table(name = "AppTable", gsi1)]
/// pub struct AppTable;
///
/// // The same declaration under a stage-specific name.
/// let def = TableDefinition::of::<AppTable>("AppTable-staging", Billing::OnDemand);
/// assert_eq!(def.table_name, "AppTable-staging");
///
/// // For `aws dynamodb create-table --cli-input-json file://table.json`:
/// let json: serde_json::Value = serde_json::from_str(&def.cli_json()).unwrap();
/// assert_eq!(json["KeySchema"][0]["AttributeName"], "PK");
/// assert_eq!(json["GlobalSecondaryIndexes"][0]["IndexName"], "GSI1");
///
/// // A CloudFormation resource named `Table`:
/// let cfn: serde_json::Value = serde_json::from_str(&def.cloudformation("Table")).unwrap();
/// assert_eq!(cfn["Table"]["Type"], "AWS::DynamoDB::Table");
/// assert_eq!(cfn["Table"]["Properties"]["BillingMode"], "PAY_PER_REQUEST");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableDefinition {
    /// Table name.
    pub table_name: String,
    /// Key attributes.
    pub attribute_definitions: Vec<AttributeDefinition>,
    /// Table key schema.
    pub key_schema: Vec<KeyElement>,
    /// Global secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<IndexDef>,
    /// Local secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<IndexDef>,
    /// Vector indexes (`VectorIndexes`; on-demand tables only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vector_indexes: Vec<VectorIndexDef>,
    /// `PAY_PER_REQUEST` or `PROVISIONED`.
    pub billing_mode: String,
    /// Throughput of a provisioned table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
    /// The stream, when the table declares one (`#[table(stream = ...)]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<StreamSpecification>,
    /// TTL attribute (not part of CreateTable: set with UpdateTimeToLive).
    #[serde(skip)]
    pub ttl_attribute: Option<String>,
}

fn key(name: &str, kind: &str) -> KeyElement {
    KeyElement {
        attribute_name: name.to_owned(),
        key_type: kind.to_owned(),
    }
}

impl StreamSpecification {
    /// The specification enabling a stream of `view`.
    ///
    /// ```
    /// use singletable::{definition::StreamSpecification, StreamView};
    ///
    /// assert_eq!(StreamSpecification::enabled(StreamView::KeysOnly).stream_view_type, "KEYS_ONLY");
    /// ```
    pub fn enabled(view: StreamView) -> Self {
        StreamSpecification {
            stream_enabled: true,
            stream_view_type: view.as_str().to_owned(),
        }
    }
}

fn projection(p: Projection) -> ProjectionDef {
    match p {
        Projection::All => ProjectionDef {
            projection_type: "ALL".into(),
            non_key_attributes: None,
        },
        Projection::KeysOnly => ProjectionDef {
            projection_type: "KEYS_ONLY".into(),
            non_key_attributes: None,
        },
        Projection::Include(attrs) => ProjectionDef {
            projection_type: "INCLUDE".into(),
            non_key_attributes: Some(attrs.iter().map(|a| (*a).to_owned()).collect()),
        },
    }
}

impl TableDefinition {
    /// The definition of table `T` under `name`.
    ///
    /// ```
    /// # use singletable::Table;
    /// # use singletable::definition::{Billing, TableDefinition};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// let def = TableDefinition::of::<App>(App::NAME, Billing::OnDemand);
    /// assert_eq!(def.table_name, "App");
    /// ```
    pub fn of<T: Table>(name: &str, billing: Billing) -> Self {
        let throughput = match billing {
            Billing::OnDemand => None,
            Billing::Provisioned { read, write } => Some(Throughput {
                read_capacity_units: read,
                write_capacity_units: write,
            }),
        };
        let mut attrs: Vec<(&str, KeyType)> = vec![(T::PK, KeyType::S)];
        let mut key_schema = vec![key(T::PK, "HASH")];
        if let Some(sk) = T::SK {
            attrs.push((sk, KeyType::S));
            key_schema.push(key(sk, "RANGE"));
        }
        let global = T::GLOBAL_INDEXES
            .iter()
            .map(|g| {
                // Every HASH attribute, then every RANGE attribute: a
                // multi-attribute key lists several of each, in order.
                let ks = g
                    .key_attributes()
                    .map(|(name, kind, partition)| {
                        attrs.push((name, kind));
                        key(name, if partition { "HASH" } else { "RANGE" })
                    })
                    .collect();
                IndexDef {
                    index_name: g.name.to_owned(),
                    key_schema: ks,
                    projection: projection(g.projection),
                    provisioned_throughput: throughput.clone(),
                }
            })
            .collect();
        let local = T::LOCAL_INDEXES
            .iter()
            .map(|l| {
                attrs.push((l.sk, KeyType::S));
                IndexDef {
                    index_name: l.name.to_owned(),
                    key_schema: vec![key(T::PK, "HASH"), key(l.sk, "RANGE")],
                    projection: projection(l.projection),
                    provisioned_throughput: None,
                }
            })
            .collect();
        // DynamoDB requires every search-schema attribute in
        // AttributeDefinitions, with its type.
        for v in T::VECTOR_INDEXES {
            attrs.extend(v.search_schema().map(|(a, _)| (a.name, a.kind)));
        }
        let vector = T::VECTOR_INDEXES.iter().map(VectorIndexDef::of).collect();
        attrs.sort_unstable_by_key(|(a, _)| *a);
        attrs.dedup_by_key(|(a, _)| *a);
        Self {
            table_name: name.to_owned(),
            attribute_definitions: attrs
                .into_iter()
                .map(|(a, kind)| AttributeDefinition {
                    attribute_name: a.to_owned(),
                    attribute_type: kind.as_str().into(),
                })
                .collect(),
            key_schema,
            global_secondary_indexes: global,
            local_secondary_indexes: local,
            vector_indexes: vector,
            billing_mode: if throughput.is_some() {
                "PROVISIONED"
            } else {
                "PAY_PER_REQUEST"
            }
            .into(),
            provisioned_throughput: throughput,
            stream_specification: T::STREAM.map(StreamSpecification::enabled),
            ttl_attribute: T::TTL.map(str::to_owned),
        }
    }

    /// The declared stream view, if any.
    ///
    /// ```
    /// use singletable::definition::{Billing, TableDefinition};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// assert_eq!(TableDefinition::of::<App>("App", Billing::OnDemand).stream_view(), None);
    /// ```
    pub fn stream_view(&self) -> Option<StreamView> {
        self.stream_specification
            .as_ref()
            .filter(|s| s.stream_enabled)
            .and_then(|s| StreamView::from_name(&s.stream_view_type))
    }

    /// What DynamoDB would refuse in this definition, said before anything
    /// is sent: vector indexes on a provisioned table ("Vector indexes are
    /// supported only on tables that use on-demand capacity mode", the
    /// developer guide's requirements). `Db::create_table_if_missing`
    /// returns it as an error; the CLI and CloudFormation outputs still
    /// render the definition as it is.
    ///
    /// ```
    /// use singletable::definition::{Billing, TableDefinition};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 2, distance = cosine))]
    /// # pub struct App;
    /// assert!(TableDefinition::of::<App>("App", Billing::OnDemand).problem().is_none());
    /// let provisioned = TableDefinition::of::<App>("App", Billing::Provisioned { read: 1, write: 1 });
    /// assert!(provisioned.problem().unwrap().contains("on-demand"));
    /// ```
    pub fn problem(&self) -> Option<String> {
        (self.billing_mode == "PROVISIONED" && !self.vector_indexes.is_empty()).then(|| {
            format!(
                "table `{}` declares vector indexes ({}), which DynamoDB supports only on tables that use on-demand capacity mode (PAY_PER_REQUEST)",
                self.table_name,
                self.vector_indexes
                    .iter()
                    .map(|v| v.index_name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }

    /// JSON for `aws dynamodb create-table --cli-input-json file://…`.
    /// (TTL is enabled separately: `aws dynamodb update-time-to-live`.)
    pub fn cli_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| unreachable!("plain data serializes"))
    }

    /// An `AWS::DynamoDB::Table` CloudFormation resource, under `logical_id`,
    /// as a JSON template fragment `{ "<logical_id>": { "Type": …, "Properties": … } }`.
    /// Vector indexes are its `VectorIndexes` property, each a
    /// CloudFormation `VectorIndex` (`IndexName`, `VectorAttribute`,
    /// `Dimensions`, `DistanceFunction`, `SearchSchema`, `Projection`: the
    /// API's names, which the resource's property type uses too).
    ///
    /// ```
    /// use singletable::definition::{Billing, TableDefinition};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 2, distance = cosine, filter(price = N)))]
    /// # pub struct App;
    /// let def = TableDefinition::of::<App>("App", Billing::OnDemand);
    /// let cfn: serde_json::Value = serde_json::from_str(&def.cloudformation("T")).unwrap();
    /// let v = &cfn["T"]["Properties"]["VectorIndexes"][0];
    /// assert_eq!((v["IndexName"].as_str(), v["Dimensions"].as_u64()), (Some("VECTOR1"), Some(2)));
    /// assert_eq!(v["VectorAttribute"]["AttributeName"], "embedding");
    /// ```
    pub fn cloudformation(&self, logical_id: &str) -> String {
        let mut props =
            serde_json::to_value(self).unwrap_or_else(|_| unreachable!("plain data serializes"));
        if let Some(obj) = props.as_object_mut() {
            if let Some(ttl) = &self.ttl_attribute {
                obj.insert(
                    "TimeToLiveSpecification".into(),
                    serde_json::json!({ "AttributeName": ttl, "Enabled": true }),
                );
            }
            // CloudFormation's StreamSpecification has the view only.
            if let Some(stream) = &self.stream_specification {
                obj.insert(
                    "StreamSpecification".into(),
                    serde_json::json!({ "StreamViewType": stream.stream_view_type }),
                );
            }
        }
        let resource = serde_json::json!({
            logical_id: { "Type": "AWS::DynamoDB::Table", "Properties": props }
        });
        serde_json::to_string_pretty(&resource)
            .unwrap_or_else(|_| unreachable!("plain data serializes"))
    }
}
