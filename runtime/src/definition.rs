//! Table definitions: core's (the [`TableDefinition`] a `Table`
//! declaration implies, in which every executor's admin trait creates
//! and describes tables; re-exported here), and how a table DynamoDB
//! describes differs from its declaration: the [`Drift`] found by
//! [`compare`] (what `Db::verify` reports), and how each difference reads.

pub use singletable_core::definition::*;

use singletable_core::entity::StreamView;

/// One difference between the declaration and the table DynamoDB describes
/// (see [`compare`] and `Db::verify`).
///
/// ```
/// use singletable::definition::{compare, Billing, Drift, TableDefinition};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct Deployed;
///
/// let declared = TableDefinition::of::<App>("App", Billing::OnDemand);
/// let actual = TableDefinition::of::<Deployed>("App", Billing::OnDemand);
/// let drift = compare(&declared, &actual);
/// assert_eq!(drift, [Drift::MissingIndex("GSI1".into())]);
/// assert_eq!(drift[0].to_string(), "index `GSI1` is declared but missing");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The table's key schema differs.
    KeySchema {
        /// Declared.
        declared: Vec<KeyElement>,
        /// Described.
        actual: Vec<KeyElement>,
    },
    /// A declared index does not exist.
    MissingIndex(String),
    /// An index exists that the declaration does not have.
    ExtraIndex(String),
    /// An index's key schema differs.
    IndexKeySchema {
        /// Index name.
        index: String,
        /// Declared.
        declared: Vec<KeyElement>,
        /// Described.
        actual: Vec<KeyElement>,
    },
    /// An index's projection differs.
    Projection {
        /// Index name.
        index: String,
        /// Declared.
        declared: ProjectionDef,
        /// Described.
        actual: ProjectionDef,
    },
    /// A key attribute has another type than declared (`S` for the
    /// synthetic keys, the declared one for a multi-attribute key).
    AttributeType {
        /// Attribute name.
        attribute: String,
        /// Described type.
        actual: String,
        /// Declared type.
        declared: String,
    },
    /// The table's stream is not the declared one: missing, extra, or of
    /// another view.
    Stream {
        /// Declared view.
        declared: Option<StreamView>,
        /// View of the stream enabled on the table.
        actual: Option<StreamView>,
    },
    /// A vector index exists under the declared name but with another
    /// attribute, dimensions, distance function or search schema (its
    /// projection is a [`Drift::Projection`]). DynamoDB changes none of
    /// these in place: the index is deleted and created again.
    VectorIndex {
        /// Index name.
        index: String,
        /// Declared.
        declared: Box<VectorIndexDef>,
        /// Described.
        actual: Box<VectorIndexDef>,
    },
    /// TTL is not enabled on the declared attribute.
    Ttl {
        /// Declared attribute.
        declared: Option<String>,
        /// Attribute enabled on the table.
        actual: Option<String>,
    },
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = |k: &[KeyElement]| {
            k.iter()
                .map(|e| format!("{} {}", e.attribute_name, e.key_type))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Drift::KeySchema { declared, actual } => write!(
                f,
                "table key schema is [{}], declared [{}]",
                keys(actual),
                keys(declared)
            ),
            Drift::MissingIndex(i) => write!(f, "index `{i}` is declared but missing"),
            Drift::ExtraIndex(i) => write!(f, "index `{i}` exists but is not declared"),
            Drift::IndexKeySchema {
                index,
                declared,
                actual,
            } => write!(
                f,
                "index `{index}` key schema is [{}], declared [{}]",
                keys(actual),
                keys(declared)
            ),
            Drift::Projection {
                index,
                declared,
                actual,
            } => write!(
                f,
                "index `{index}` projects {}, declared {}",
                actual.projection_type, declared.projection_type
            ),
            Drift::AttributeType {
                attribute,
                actual,
                declared,
            } => {
                write!(
                    f,
                    "key attribute `{attribute}` has type {actual}, declared {declared}"
                )
            }
            Drift::Stream { declared, actual } => {
                let name = |v: &Option<StreamView>| v.map_or("none", StreamView::as_str);
                write!(
                    f,
                    "table stream is {}, declared {}",
                    name(actual),
                    name(declared)
                )
            }
            Drift::VectorIndex {
                index,
                declared,
                actual,
            } => write!(
                f,
                "vector index `{index}` is {}, declared {}",
                actual.summary(),
                declared.summary()
            ),
            Drift::Ttl { declared, actual } => {
                write!(f, "TTL attribute is {actual:?}, declared {declared:?}")
            }
        }
    }
}

/// Compares a declared and a described definition.
///
/// ```
/// use singletable::definition::{compare, Billing, Drift, TableDefinition};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", ttl = "exp")]
/// # pub struct App;
///
/// let declared = TableDefinition::of::<App>("App", Billing::OnDemand);
/// assert!(compare(&declared, &declared).is_empty());
/// let mut actual = declared.clone();
/// actual.ttl_attribute = None; // TTL never enabled on the table
/// assert!(matches!(compare(&declared, &actual)[..], [Drift::Ttl { .. }]));
/// ```
pub fn compare(declared: &TableDefinition, actual: &TableDefinition) -> Vec<Drift> {
    let mut out = Vec::new();
    if declared.key_schema != actual.key_schema {
        out.push(Drift::KeySchema {
            declared: declared.key_schema.clone(),
            actual: actual.key_schema.clone(),
        });
    }
    for a in &actual.attribute_definitions {
        // An attribute the declaration does not key on is reported through
        // the key schemas; singletable's own keys are strings.
        let declared = declared
            .attribute_definitions
            .iter()
            .find(|d| d.attribute_name == a.attribute_name)
            .map_or("S", |d| d.attribute_type.as_str());
        if a.attribute_type != declared {
            out.push(Drift::AttributeType {
                attribute: a.attribute_name.clone(),
                actual: a.attribute_type.clone(),
                declared: declared.to_owned(),
            });
        }
    }
    for (decl, act) in [
        (
            &declared.global_secondary_indexes,
            &actual.global_secondary_indexes,
        ),
        (
            &declared.local_secondary_indexes,
            &actual.local_secondary_indexes,
        ),
    ] {
        for d in decl {
            match act.iter().find(|a| a.index_name == d.index_name) {
                None => out.push(Drift::MissingIndex(d.index_name.clone())),
                Some(a) => {
                    if a.key_schema != d.key_schema {
                        out.push(Drift::IndexKeySchema {
                            index: d.index_name.clone(),
                            declared: d.key_schema.clone(),
                            actual: a.key_schema.clone(),
                        });
                    }
                    projection_drift(&d.index_name, &d.projection, &a.projection, &mut out);
                }
            }
        }
        for a in act {
            if !decl.iter().any(|d| d.index_name == a.index_name) {
                out.push(Drift::ExtraIndex(a.index_name.clone()));
            }
        }
    }
    let (decl, act) = (&declared.vector_indexes, &actual.vector_indexes);
    for d in decl {
        match act.iter().find(|a| a.index_name == d.index_name) {
            None => out.push(Drift::MissingIndex(d.index_name.clone())),
            Some(a) => {
                let shape = |v: &VectorIndexDef| VectorIndexDef {
                    projection: ProjectionDef {
                        projection_type: String::new(),
                        non_key_attributes: None,
                    },
                    ..v.clone()
                };
                if shape(d) != shape(a) {
                    out.push(Drift::VectorIndex {
                        index: d.index_name.clone(),
                        declared: Box::new(d.clone()),
                        actual: Box::new(a.clone()),
                    });
                }
                projection_drift(&d.index_name, &d.projection, &a.projection, &mut out);
            }
        }
    }
    for a in act {
        if !decl.iter().any(|d| d.index_name == a.index_name) {
            out.push(Drift::ExtraIndex(a.index_name.clone()));
        }
    }
    if declared.stream_view() != actual.stream_view() {
        out.push(Drift::Stream {
            declared: declared.stream_view(),
            actual: actual.stream_view(),
        });
    }
    if declared.ttl_attribute != actual.ttl_attribute {
        out.push(Drift::Ttl {
            declared: declared.ttl_attribute.clone(),
            actual: actual.ttl_attribute.clone(),
        });
    }
    out
}

/// A [`Drift::Projection`] when two projections differ (the order of
/// `INCLUDE`'s attributes aside).
fn projection_drift(
    index: &str,
    declared: &ProjectionDef,
    actual: &ProjectionDef,
    out: &mut Vec<Drift>,
) {
    let sorted = |p: &ProjectionDef| {
        let mut p = p.clone();
        if let Some(v) = p.non_key_attributes.as_mut() {
            v.sort();
        }
        p
    };
    if sorted(declared) != sorted(actual) {
        out.push(Drift::Projection {
            index: index.to_owned(),
            declared: declared.clone(),
            actual: actual.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use singletable_core::entity::{
        GlobalIndex, KeyAttribute, KeyType, LocalIndex, Projection, Table, VectorIndex,
    };
    use singletable_core::vector::Distance;

    struct Streamed;
    impl Table for Streamed {
        const NAME: &'static str = "Streamed";
        const PK: &'static str = "PK";
        const SK: Option<&'static str> = Some("SK");
        const ENTITY_TYPE: &'static str = "entityType";
        const GLOBAL_INDEXES: &'static [GlobalIndex] = &[];
        const LOCAL_INDEXES: &'static [LocalIndex] = &[];
        const RESERVED: &'static [&'static str] = &["PK", "SK", "entityType"];
        const STREAM: Option<StreamView> = Some(StreamView::NewAndOldImages);
    }

    #[test]
    fn the_stream_is_in_every_output_and_compared() {
        let def = TableDefinition::of::<Streamed>("Streamed", Billing::OnDemand);
        let cli: serde_json::Value = serde_json::from_str(&def.cli_json()).unwrap();
        assert_eq!(
            cli["StreamSpecification"],
            serde_json::json!({ "StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES" })
        );
        let cfn: serde_json::Value = serde_json::from_str(&def.cloudformation("T")).unwrap();
        assert_eq!(
            cfn["T"]["Properties"]["StreamSpecification"],
            serde_json::json!({ "StreamViewType": "NEW_AND_OLD_IMAGES" })
        );
        let mut actual = def.clone();
        actual.stream_specification = None;
        assert_eq!(
            compare(&def, &actual),
            [Drift::Stream {
                declared: Some(StreamView::NewAndOldImages),
                actual: None,
            }]
        );
        actual.stream_specification = Some(StreamSpecification::enabled(StreamView::KeysOnly));
        assert_eq!(
            compare(&def, &actual)[0].to_string(),
            "table stream is KEYS_ONLY, declared NEW_AND_OLD_IMAGES"
        );
        assert!(compare(&def, &def).is_empty());
    }

    struct Searched;
    impl Table for Searched {
        const NAME: &'static str = "Searched";
        const PK: &'static str = "PK";
        const SK: Option<&'static str> = Some("SK");
        const ENTITY_TYPE: &'static str = "entityType";
        const GLOBAL_INDEXES: &'static [GlobalIndex] = &[];
        const LOCAL_INDEXES: &'static [LocalIndex] = &[];
        const VECTOR_INDEXES: &'static [VectorIndex] = &[VectorIndex {
            number: 1,
            name: "Similar",
            attribute: "emb",
            dimensions: 4,
            distance: Distance::Euclidean,
            hash: &[KeyAttribute {
                name: "tenant",
                kind: KeyType::S,
            }],
            filter: &[KeyAttribute {
                name: "price",
                kind: KeyType::N,
            }],
            projection: Projection::KeysOnly,
        }];
        const RESERVED: &'static [&'static str] = &["PK", "SK", "entityType"];
    }

    #[test]
    fn vector_indexes_are_in_every_output_and_compared() {
        let def = TableDefinition::of::<Searched>("Searched", Billing::OnDemand);
        let types: Vec<(&str, &str)> = def
            .attribute_definitions
            .iter()
            .map(|a| (a.attribute_name.as_str(), a.attribute_type.as_str()))
            .collect();
        assert_eq!(
            types,
            [("PK", "S"), ("SK", "S"), ("price", "N"), ("tenant", "S")]
        );
        let expected = serde_json::json!([{
            "IndexName": "Similar",
            "VectorAttribute": { "AttributeName": "emb" },
            "Dimensions": 4,
            "DistanceFunction": "EUCLIDEAN",
            "SearchSchema": [
                { "AttributeName": "tenant", "SearchSchemaElementType": "HASH" },
                { "AttributeName": "price", "SearchSchemaElementType": "INLINE_FILTER" },
            ],
            "Projection": { "ProjectionType": "KEYS_ONLY" },
        }]);
        let cli: serde_json::Value = serde_json::from_str(&def.cli_json()).unwrap();
        assert_eq!(cli["VectorIndexes"], expected);
        let cfn: serde_json::Value = serde_json::from_str(&def.cloudformation("T")).unwrap();
        assert_eq!(cfn["T"]["Properties"]["VectorIndexes"], expected);
        assert!(compare(&def, &def).is_empty());

        let mut missing = def.clone();
        missing.vector_indexes.clear();
        assert_eq!(
            compare(&def, &missing),
            [Drift::MissingIndex("Similar".into())]
        );
        assert_eq!(
            compare(&missing, &def),
            [Drift::ExtraIndex("Similar".into())]
        );
        let mut other = def.clone();
        other.vector_indexes[0].dimensions = 8;
        other.vector_indexes[0].projection.projection_type = "ALL".into();
        let drift = compare(&def, &other);
        assert!(
            matches!(&drift[..], [Drift::VectorIndex { index, .. }, Drift::Projection { .. }] if index == "Similar")
        );
        assert_eq!(
            drift[0].to_string(),
            "vector index `Similar` is `emb`, 8 dimensions, EUCLIDEAN, search schema [tenant HASH, price INLINE_FILTER], declared `emb`, 4 dimensions, EUCLIDEAN, search schema [tenant HASH, price INLINE_FILTER]"
        );
        let provisioned =
            TableDefinition::of::<Searched>("Searched", Billing::Provisioned { read: 1, write: 1 });
        assert!(provisioned.problem().is_some());
    }
}
