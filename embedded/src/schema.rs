//! Table layouts: key schema, secondary indexes and their projections, as
//! CreateTable would receive them.

use serde::{Deserialize, Serialize};

use super::error::{Fail, Res};
use singletable_core::entity::VectorIndex;
use singletable_core::entity::{Projection, StreamView, Table};
use singletable_core::vector::Distance;

/// Scalar type of a key attribute (`AttributeType` in CreateTable); the
/// same type the table declarations use.
///
/// ```
/// use singletable::embedded::{KeyAttr, KeyType};
///
/// let counter = KeyAttr { name: "n".into(), kind: KeyType::N }; // a number key
/// assert_eq!(KeyAttr::s("PK").kind, KeyType::S);
/// # let _ = counter;
/// ```
pub use singletable_core::entity::KeyType;

/// A key attribute: its name and scalar type.
///
/// ```
/// use singletable::embedded::{KeyAttr, KeyType};
///
/// assert_eq!(KeyAttr::s("PK"), KeyAttr { name: "PK".into(), kind: KeyType::S });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAttr {
    /// Attribute name.
    pub name: String,
    /// Scalar type.
    pub kind: KeyType,
}

impl KeyAttr {
    /// A string key attribute, the only kind singletable's tables declare.
    pub fn s(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: KeyType::S,
        }
    }
}

/// Which attributes an index holds besides the keys.
///
/// ```
/// use singletable::embedded::{IndexProjection, TableSchema};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1(include(title)), gsi2(keys_only))]
/// # pub struct App;
///
/// let schema = TableSchema::of::<App>();
/// assert_eq!(schema.indexes[0].projection, IndexProjection::Include(vec!["title".into()]));
/// assert_eq!(schema.indexes[1].projection, IndexProjection::KeysOnly);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexProjection {
    /// Every attribute.
    All,
    /// The table's and the index's key attributes only.
    KeysOnly,
    /// The keys plus these attributes.
    Include(Vec<String>),
}

/// A global or local secondary index.
///
/// ```
/// use singletable::embedded::{IndexSchema, TableSchema};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
///
/// let schema = TableSchema::of::<App>();
/// let gsi: &IndexSchema = &schema.indexes[0];
/// assert_eq!((gsi.name.as_str(), gsi.global, gsi.pk.name.as_str()), ("GSI1", true, "GSI1PK"));
/// let lsi = &schema.indexes[1];
/// assert_eq!((lsi.global, lsi.pk.name.as_str()), (false, "PK")); // the table's partition key
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexSchema {
    /// Index name.
    pub name: String,
    /// Global (own partition key) or local (the table's partition key).
    pub global: bool,
    /// Partition key of the index (the table's for a local index).
    pub pk: KeyAttr,
    /// Sort key of the index.
    pub sk: Option<KeyAttr>,
    /// The further partition key attributes of a multi-attribute key, after
    /// `pk` (empty for a single-attribute key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pk_rest: Vec<KeyAttr>,
    /// The further sort key attributes of a multi-attribute key, after `sk`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sk_rest: Vec<KeyAttr>,
    /// Projected attributes.
    pub projection: IndexProjection,
}

impl IndexSchema {
    /// The partition (HASH) attributes, in key-schema order.
    pub(crate) fn hash_keys(&self) -> impl Iterator<Item = &KeyAttr> {
        std::iter::once(&self.pk).chain(&self.pk_rest)
    }

    /// The sort (RANGE) attributes, in key-schema order.
    pub(crate) fn range_keys(&self) -> impl Iterator<Item = &KeyAttr> {
        self.sk.iter().chain(&self.sk_rest)
    }

    /// Every key attribute, partition attributes first.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &KeyAttr> {
        self.hash_keys().chain(self.range_keys())
    }
}

/// A table's key schema and secondary indexes, for
/// [`Embedded::create_table_with`](super::Embedded::create_table_with)
/// (tables with number or binary keys) and what
/// [`Embedded::schema`](super::Embedded::schema) reports.
///
/// ```
/// use singletable::embedded::{KeyAttr, KeyType, TableSchema};
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
///
/// let declared = TableSchema::of::<App>();
/// assert_eq!((declared.pk, declared.sk), (KeyAttr::s("PK"), Some(KeyAttr::s("SK"))));
/// let numeric = TableSchema { pk: KeyAttr { name: "id".into(), kind: KeyType::N }, sk: None, indexes: vec![], stream: None, vectors: vec![] };
/// singletable::Embedded::new().create_table_with("Numbers", numeric)?;
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSchema {
    /// Partition key.
    pub pk: KeyAttr,
    /// Sort key, if any.
    pub sk: Option<KeyAttr>,
    /// Global and local secondary indexes.
    pub indexes: Vec<IndexSchema>,
    /// The table's stream (`StreamSpecification`), if it has one: the
    /// backend keeps its records in a change feed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamView>,
    /// Vector indexes (`VectorIndexes`), searched with `SearchVectors`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vectors: Vec<VectorIndexSchema>,
}

pub(crate) fn projection(p: Projection) -> IndexProjection {
    match p {
        Projection::All => IndexProjection::All,
        Projection::KeysOnly => IndexProjection::KeysOnly,
        Projection::Include(attrs) => {
            IndexProjection::Include(attrs.iter().map(|a| (*a).to_owned()).collect())
        }
    }
}

impl TableSchema {
    /// The layout a [`Table`] declaration describes: string keys, every
    /// global and local index with its projection, the stream (what
    /// `create_table_if_missing` creates in DynamoDB).
    pub fn of<T: Table>() -> Self {
        let mut indexes = Vec::new();
        for g in T::GLOBAL_INDEXES {
            let attr = |(name, kind, _): (&str, KeyType, bool)| KeyAttr {
                name: name.to_owned(),
                kind,
            };
            let (mut hash, mut range): (Vec<_>, Vec<_>) =
                g.key_attributes().partition(|(_, _, partition)| *partition);
            let sk = (!range.is_empty()).then(|| attr(range.remove(0)));
            let pk = attr(hash.remove(0));
            indexes.push(IndexSchema {
                name: g.name.to_owned(),
                global: true,
                pk,
                sk,
                pk_rest: hash.into_iter().map(attr).collect(),
                sk_rest: range.into_iter().map(attr).collect(),
                projection: projection(g.projection),
            });
        }
        for l in T::LOCAL_INDEXES {
            indexes.push(IndexSchema {
                name: l.name.to_owned(),
                global: false,
                pk: KeyAttr::s(T::PK),
                sk: Some(KeyAttr::s(l.sk)),
                pk_rest: Vec::new(),
                sk_rest: Vec::new(),
                projection: projection(l.projection),
            });
        }
        Self {
            pk: KeyAttr::s(T::PK),
            sk: T::SK.map(KeyAttr::s),
            indexes,
            stream: T::STREAM,
            vectors: VectorIndexSchema::all_of::<T>(),
        }
    }

    /// The key attributes of the table, partition key first.
    pub(crate) fn table_keys(&self) -> impl Iterator<Item = &KeyAttr> {
        std::iter::once(&self.pk).chain(self.sk.as_ref())
    }

    /// Checks what CreateTable checks: at most 20 global and 5 local
    /// indexes, consistent attribute types, unique index names, local
    /// indexes on the table's partition key with a sort key.
    pub(crate) fn validate(&self) -> Res<()> {
        // DynamoDB's default quotas (Local words them so too).
        if self.indexes.iter().filter(|ix| ix.global).count() > MAX_GLOBAL_INDEXES {
            return Err(Fail::validation(
                "GlobalSecondaryIndex count exceeds the per-table limit",
            ));
        }
        if self.indexes.iter().filter(|ix| !ix.global).count() > MAX_LOCAL_INDEXES {
            return Err(Fail::validation(
                "Cannot have more than 5 local secondary indexes per table",
            ));
        }
        if self.sk.as_ref().is_some_and(|sk| sk.name == self.pk.name) {
            // DynamoDB's words for a table key naming one attribute twice.
            return Err(Fail::validation(
                "Invalid KeySchema: Some index key attribute have no definition",
            ));
        }
        let mut types: Vec<&KeyAttr> = self.table_keys().collect();
        let mut names: Vec<&str> = Vec::new();
        for ix in &self.indexes {
            if ix.name.len() < 3 || ix.name.len() > 255 || !valid_name(&ix.name) {
                return Err(Fail::validation(format!(
                    "Invalid table/index name: {}",
                    ix.name
                )));
            }
            if names.contains(&ix.name.as_str()) {
                return Err(Fail::validation(format!(
                    "One or more parameter values were invalid: Duplicate index name: {}",
                    ix.name
                )));
            }
            names.push(&ix.name);
            if !ix.global && self.sk.is_none() {
                return Err(Fail::validation(
                    "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
                ));
            }
            if !ix.global && (ix.pk != self.pk || ix.sk.is_none()) {
                return Err(Fail::validation(format!(
                    "Local secondary index {} must have the table's partition key and a sort key, on a table with a sort key",
                    ix.name
                )));
            }
            if !ix.global && (!ix.pk_rest.is_empty() || !ix.sk_rest.is_empty()) {
                return Err(Fail::validation(
                    "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table",
                ));
            }
            if ix.pk_rest.len() > 3 {
                return Err(Fail::validation(
                    "Too many partition keys. GSI can have at most 4 partition keys",
                ));
            }
            if ix.sk_rest.len() > 3 || (ix.sk.is_none() && !ix.sk_rest.is_empty()) {
                return Err(Fail::validation(
                    "Too many sort keys. GSI can have at most 4 sort keys",
                ));
            }
            let keys: Vec<&KeyAttr> = ix.keys().collect();
            if keys
                .iter()
                .enumerate()
                .any(|(i, a)| keys[..i].iter().any(|b| b.name == a.name))
            {
                return Err(Fail::validation("Two keys can not have the same name"));
            }
            types.extend(keys);
        }
        for v in &self.vectors {
            if v.name.len() < 3 || v.name.len() > 255 || !valid_name(&v.name) {
                return Err(Fail::validation(format!(
                    "Invalid table/index name: {}",
                    v.name
                )));
            }
            if names.contains(&v.name.as_str()) {
                return Err(Fail::validation(format!(
                    "One or more parameter values were invalid: Duplicate index name: {}",
                    v.name
                )));
            }
            names.push(&v.name);
            if v.dimensions == 0 {
                return Err(Fail::validation(
                    "One or more parameter values were invalid: Dimensions must be at least 1",
                ));
            }
            types.extend(v.hash.iter().chain(&v.filter));
        }
        for (i, a) in types.iter().enumerate() {
            if a.name.is_empty() {
                return Err(Fail::validation("Empty attribute name"));
            }
            if types[..i]
                .iter()
                .any(|b| b.name == a.name && b.kind != a.kind)
            {
                return Err(Fail::validation(format!(
                    "Attribute {} is declared with two types",
                    a.name
                )));
            }
        }
        Ok(())
    }
}

/// DynamoDB's rule for table and index names (their length is checked apart).
pub(crate) fn valid_name(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// A vector index as CreateTable receives it (`VectorIndexes`).
///
/// ```
/// use singletable::embedded::{TableSchema, VectorIndexSchema};
/// use singletable::vector::Distance;
/// # use singletable::Table;
/// # #[derive(Table)]
/// # #[table(name = "App", vector1(name = "Similar", dimensions = 4, distance = dot_product, hash(tenant = S)))]
/// # pub struct App;
///
/// let ix: &VectorIndexSchema = &TableSchema::of::<App>().vectors[0];
/// assert_eq!((ix.name.as_str(), ix.attribute.as_str(), ix.dimensions), ("Similar", "embedding", 4));
/// assert_eq!((ix.distance, ix.hash[0].name.as_str()), (Distance::DotProduct, "tenant"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorIndexSchema {
    /// Index name.
    pub name: String,
    /// The attribute holding each item's vector.
    pub attribute: String,
    /// The number of dimensions.
    pub dimensions: u32,
    /// The distance function.
    pub distance: Distance,
    /// `HASH` attributes of the search schema.
    pub hash: Vec<KeyAttr>,
    /// `INLINE_FILTER` attributes of the search schema.
    pub filter: Vec<KeyAttr>,
    /// Projected attributes.
    pub projection: IndexProjection,
}

impl VectorIndexSchema {
    /// The schema of a declared index.
    ///
    /// ```
    /// use singletable::embedded::VectorIndexSchema;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 2, distance = cosine))]
    /// # pub struct App;
    /// assert_eq!(VectorIndexSchema::of(&App::VECTOR_INDEXES[0]).name, "VECTOR1");
    /// ```
    pub fn of(v: &VectorIndex) -> Self {
        let attrs = |list: &[singletable_core::entity::KeyAttribute]| {
            list.iter()
                .map(|a| KeyAttr {
                    name: a.name.to_owned(),
                    kind: a.kind,
                })
                .collect()
        };
        Self {
            name: v.name.to_owned(),
            attribute: v.attribute.to_owned(),
            dimensions: v.dimensions,
            distance: v.distance,
            hash: attrs(v.hash),
            filter: attrs(v.filter),
            projection: projection(v.projection),
        }
    }

    /// Every vector index of a table declaration.
    pub(crate) fn all_of<T: Table>() -> Vec<Self> {
        T::VECTOR_INDEXES.iter().map(Self::of).collect()
    }

    pub(crate) fn search_schema(&self) -> impl Iterator<Item = &KeyAttr> {
        self.hash.iter().chain(&self.filter)
    }
}

/// Global secondary indexes a table may have (DynamoDB's default quota).
pub(crate) const MAX_GLOBAL_INDEXES: usize = 20;

/// Local secondary indexes a table may have (a fixed limit).
pub(crate) const MAX_LOCAL_INDEXES: usize = 5;
