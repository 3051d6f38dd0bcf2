//! Vector indexes in a table definition: CreateTable's `VectorIndexes`
//! entries, as the AWS CLI and CloudFormation take them, and how two of
//! them differ.

use serde::{Deserialize, Serialize};

use crate::entity::VectorIndex;

use super::{ProjectionDef, projection};

/// `VectorAttribute`: the attribute holding each item's vector (a list of
/// numbers; it is not an `AttributeDefinitions` entry, which only types
/// `S`, `N` and `B`).
///
/// ```
/// use singletable::definition::VectorAttributeDef;
/// let a = VectorAttributeDef { attribute_name: "embedding".into() };
/// assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::json!({ "AttributeName": "embedding" }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorAttributeDef {
    /// Attribute name.
    pub attribute_name: String,
}

/// A `SearchSchema` element: an attribute a search names in its
/// `SearchConditionExpression`, `HASH` (given by equality, every search)
/// or `INLINE_FILTER` (compared, optionally). Each is also in the table's
/// `AttributeDefinitions`, with its type.
///
/// ```
/// use singletable::definition::SearchSchemaElementDef;
/// let e = SearchSchemaElementDef { attribute_name: "tenant".into(), search_schema_element_type: "HASH".into() };
/// assert_eq!(
///     serde_json::to_value(&e).unwrap(),
///     serde_json::json!({ "AttributeName": "tenant", "SearchSchemaElementType": "HASH" }),
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchSchemaElementDef {
    /// Attribute name.
    pub attribute_name: String,
    /// `HASH` or `INLINE_FILTER`.
    pub search_schema_element_type: String,
}

/// A vector index (CreateTable's `VectorIndexes` entry, UpdateTable's
/// `CreateVectorIndexAction`, CloudFormation's `VectorIndex`: the same
/// property names in all three).
///
/// ```
/// use singletable::definition::{Billing, TableDefinition};
/// use singletable::Table;
///
/// #[derive(Table)]
/// #[table(name = "Shop", vector1(name = "ProductSearch", dimensions = 3, distance = cosine, hash(category = S), filter(price = N), include(title)))]
/// pub struct Shop;
///
/// let def = TableDefinition::of::<Shop>("Shop", Billing::OnDemand);
/// let v = &def.vector_indexes[0];
/// assert_eq!((v.index_name.as_str(), v.dimensions, v.distance_function.as_str()), ("ProductSearch", 3, "COSINE"));
/// assert_eq!(v.vector_attribute.attribute_name, "embedding");
/// let schema: Vec<_> = v.search_schema.iter().map(|e| (e.attribute_name.as_str(), e.search_schema_element_type.as_str())).collect();
/// assert_eq!(schema, [("category", "HASH"), ("price", "INLINE_FILTER")]);
/// assert_eq!(v.projection.non_key_attributes.as_deref(), Some(&["title".to_owned()][..]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorIndexDef {
    /// Index name.
    pub index_name: String,
    /// The vector attribute.
    pub vector_attribute: VectorAttributeDef,
    /// Dimensions of every vector.
    pub dimensions: u32,
    /// `COSINE`, `EUCLIDEAN` or `DOT_PRODUCT`.
    pub distance_function: String,
    /// `HASH` elements, then `INLINE_FILTER` ones; absent when empty (the
    /// API takes at least one element when it is given).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search_schema: Vec<SearchSchemaElementDef>,
    /// Projection.
    pub projection: ProjectionDef,
}

impl VectorIndexDef {
    /// The definition of a declared vector index.
    ///
    /// ```
    /// use singletable::definition::VectorIndexDef;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(attribute = "emb", dimensions = 2, distance = dot_product, keys_only))]
    /// # pub struct App;
    /// let v = VectorIndexDef::of(&App::VECTOR_INDEXES[0]);
    /// assert_eq!((v.index_name.as_str(), v.distance_function.as_str()), ("VECTOR1", "DOT_PRODUCT"));
    /// assert!(v.search_schema.is_empty());
    /// assert_eq!(v.projection.projection_type, "KEYS_ONLY");
    /// ```
    pub fn of(v: &VectorIndex) -> Self {
        Self {
            index_name: v.name.to_owned(),
            vector_attribute: VectorAttributeDef {
                attribute_name: v.attribute.to_owned(),
            },
            dimensions: v.dimensions,
            distance_function: v.distance.name().to_owned(),
            search_schema: v
                .search_schema()
                .map(|(a, hash)| SearchSchemaElementDef {
                    attribute_name: a.name.to_owned(),
                    search_schema_element_type: if hash { "HASH" } else { "INLINE_FILTER" }
                        .to_owned(),
                })
                .collect(),
            projection: projection(v.projection),
        }
    }

    /// Everything but the projection (compared apart, as for other
    /// indexes), as one line: attribute, dimensions, distance function,
    /// search schema.
    ///
    /// ```
    /// use singletable::definition::VectorIndexDef;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 2, distance = euclidean, hash(tenant = S)))]
    /// # pub struct App;
    /// assert_eq!(
    ///     VectorIndexDef::of(&App::VECTOR_INDEXES[0]).summary(),
    ///     "`embedding`, 2 dimensions, EUCLIDEAN, search schema [tenant HASH]",
    /// );
    /// ```
    pub fn summary(&self) -> String {
        let schema: Vec<String> = self
            .search_schema
            .iter()
            .map(|e| format!("{} {}", e.attribute_name, e.search_schema_element_type))
            .collect();
        format!(
            "`{}`, {} dimensions, {}, search schema [{}]",
            self.vector_attribute.attribute_name,
            self.dimensions,
            self.distance_function,
            schema.join(", ")
        )
    }
}
