//! The table's schema as the derives declare it: key attributes and
//! their types, global, local and vector indexes, projections, streams.

/// How a secondary index projects attributes (`Projection` of
/// CreateTable), declared with `keys_only` / `include(...)` on
/// `#[table(gsiN(..))]`.
///
/// ```
/// use singletable::{Projection, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1, gsi2(keys_only), gsi3(include(title)))]
/// pub struct App;
///
/// let projections: Vec<Projection> = App::GLOBAL_INDEXES.iter().map(|g| g.projection).collect();
/// assert_eq!(projections, [Projection::All, Projection::KeysOnly, Projection::Include(&["title"])]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projection {
    /// Every attribute of the item.
    All,
    /// Only the table's and the index's key attributes.
    KeysOnly,
    /// The keys plus the listed attributes.
    Include(&'static [&'static str]),
}

/// What each record of a table's stream carries (DynamoDB's
/// `StreamViewType`), declared with `#[table(stream = new_and_old_images)]`.
/// Every record carries the item's key attributes; the view adds the item
/// as it was before the write, after it, or both.
///
/// ```
/// use singletable::{StreamView, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", stream = new_and_old_images)]
/// pub struct App;
///
/// assert_eq!(App::STREAM, Some(StreamView::NewAndOldImages));
/// let view = StreamView::from_name("NEW_AND_OLD_IMAGES").unwrap();
/// assert_eq!(view.as_str(), "NEW_AND_OLD_IMAGES");
/// assert!(view.has_new_image() && view.has_old_image());
/// assert!(!StreamView::KeysOnly.has_new_image());
/// assert_eq!(StreamView::from_name("ALL"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum StreamView {
    /// `KEYS_ONLY`: the key attributes only.
    KeysOnly,
    /// `NEW_IMAGE`: the item after the write (inserts and modifications).
    NewImage,
    /// `OLD_IMAGE`: the item before the write (modifications and removals).
    OldImage,
    /// `NEW_AND_OLD_IMAGES`: both.
    NewAndOldImages,
}

impl StreamView {
    /// DynamoDB's name: `KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE`,
    /// `NEW_AND_OLD_IMAGES`.
    pub const fn as_str(self) -> &'static str {
        match self {
            StreamView::KeysOnly => "KEYS_ONLY",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// The view DynamoDB names `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "KEYS_ONLY" => StreamView::KeysOnly,
            "NEW_IMAGE" => StreamView::NewImage,
            "OLD_IMAGE" => StreamView::OldImage,
            "NEW_AND_OLD_IMAGES" => StreamView::NewAndOldImages,
            _ => return None,
        })
    }

    /// Whether records carry the item after the write.
    pub const fn has_new_image(self) -> bool {
        matches!(self, StreamView::NewImage | StreamView::NewAndOldImages)
    }

    /// Whether records carry the item before the write.
    pub const fn has_old_image(self) -> bool {
        matches!(self, StreamView::OldImage | StreamView::NewAndOldImages)
    }
}

/// Scalar type of a key attribute (`AttributeType` in CreateTable): what a
/// multi-attribute index declares for each of its attributes, and what the
/// embedded backend's schemas say of every key.
///
/// ```
/// use singletable::KeyType;
///
/// assert_eq!(KeyType::N.as_str(), "N");
/// assert_eq!(KeyType::from_name("B"), Some(KeyType::B));
/// assert_eq!(KeyType::from_name("BOOL"), None);
/// assert_eq!(KeyType::of(&singletable::AttributeValue::N("1".into())), Some(KeyType::N));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum KeyType {
    /// String.
    S,
    /// Number.
    N,
    /// Binary.
    B,
}

impl KeyType {
    /// DynamoDB's name: `S`, `N` or `B`.
    pub const fn as_str(self) -> &'static str {
        match self {
            KeyType::S => "S",
            KeyType::N => "N",
            KeyType::B => "B",
        }
    }

    /// The type DynamoDB names `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "S" => KeyType::S,
            "N" => KeyType::N,
            "B" => KeyType::B,
            _ => return None,
        })
    }

    /// The type of a value, `None` for a value no key can hold.
    pub fn of(value: &crate::value::AttributeValue) -> Option<Self> {
        use crate::value::AttributeValue;
        match value {
            AttributeValue::S(_) => Some(KeyType::S),
            AttributeValue::N(_) => Some(KeyType::N),
            AttributeValue::B(_) => Some(KeyType::B),
            _ => None,
        }
    }
}

/// One attribute of a multi-attribute index key: a stored attribute of the
/// items themselves, with its scalar type.
///
/// ```
/// use singletable::{KeyAttribute, KeyType, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1(pk(tenantId = S), sk(status = S, createdAt = N)))]
/// pub struct App;
///
/// let key = App::GLOBAL_INDEXES[0].attributes.unwrap();
/// assert_eq!(key.sort[1], KeyAttribute { name: "createdAt", kind: KeyType::N });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyAttribute {
    /// Attribute name.
    pub name: &'static str,
    /// Scalar type.
    pub kind: KeyType,
}

/// The key of a global index keyed on the items' own attributes (DynamoDB's
/// multi-attribute keys): one to four partition attributes, up to four sort
/// attributes, in key-schema order. No synthetic key attribute is written
/// for such an index; an item lacking one of them is not in it.
///
/// ```
/// use singletable::{AttributeKey, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1(pk(tenantId = S, region = S), sk(createdAt = N)))]
/// pub struct App;
///
/// let key: AttributeKey = App::GLOBAL_INDEXES[0].attributes.unwrap();
/// let names: Vec<&str> = key.all().map(|a| a.name).collect();
/// assert_eq!(names, ["tenantId", "region", "createdAt"]);
/// assert!(key.holds("region") && !key.holds("status"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeKey {
    /// Partition (HASH) attributes.
    pub partition: &'static [KeyAttribute],
    /// Sort (RANGE) attributes.
    pub sort: &'static [KeyAttribute],
}

impl AttributeKey {
    /// Every key attribute, partition attributes first.
    pub fn all(&self) -> impl Iterator<Item = &'static KeyAttribute> + use<> {
        self.partition.iter().chain(self.sort.iter())
    }

    /// Whether `name` is one of the key's attributes.
    pub fn holds(&self, name: &str) -> bool {
        self.all().any(|a| a.name == name)
    }
}

/// A global secondary index as declared on a table.
///
/// ```
/// use singletable::{GlobalIndex, Projection, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1(name = "ByEmail", no_sk))]
/// pub struct App;
///
/// assert_eq!(
///     App::GLOBAL_INDEXES[0],
///     GlobalIndex { number: 1, name: "ByEmail", pk: "GSI1PK", sk: None, projection: Projection::All, attributes: None },
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalIndex {
    /// Index number, `1` for `gsi1`.
    pub number: u8,
    /// Index name in DynamoDB (`GSI1` by default).
    pub name: &'static str,
    /// Partition key attribute (`GSI1PK` by default).
    pub pk: &'static str,
    /// Sort key attribute (`GSI1SK` by default), if the index has one.
    pub sk: Option<&'static str>,
    /// Projected attributes.
    pub projection: Projection,
    /// The attributes of a multi-attribute key (`gsi1(pk(a = S), sk(b = N))`);
    /// `None` for an index keyed on synthetic attributes built from
    /// templates. For a multi-attribute key, `pk` and `sk` name its first
    /// partition and sort attributes.
    pub attributes: Option<AttributeKey>,
}

impl GlobalIndex {
    /// Every key attribute with its type, partition attributes first:
    /// the synthetic string attributes of a template index, the declared
    /// ones of a multi-attribute index.
    ///
    /// ```
    /// use singletable::{KeyType, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1, gsi2(pk(tenantId = S), sk(at = N)))]
    /// # pub struct App;
    /// let keys = |i: usize| App::GLOBAL_INDEXES[i].key_attributes().map(|(n, t, _)| (n, t)).collect::<Vec<_>>();
    /// assert_eq!(keys(0), [("GSI1PK", KeyType::S), ("GSI1SK", KeyType::S)]);
    /// assert_eq!(keys(1), [("tenantId", KeyType::S), ("at", KeyType::N)]);
    /// ```
    pub fn key_attributes(&self) -> impl Iterator<Item = (&'static str, KeyType, bool)> + use<> {
        let (partition, sort): (Vec<_>, Vec<_>) = match self.attributes {
            Some(k) => (
                k.partition.iter().map(|a| (a.name, a.kind)).collect(),
                k.sort.iter().map(|a| (a.name, a.kind)).collect(),
            ),
            None => (
                vec![(self.pk, KeyType::S)],
                self.sk.map(|s| (s, KeyType::S)).into_iter().collect(),
            ),
        };
        partition
            .into_iter()
            .map(|(n, t)| (n, t, true))
            .chain(sort.into_iter().map(|(n, t)| (n, t, false)))
    }
}

/// A local secondary index as declared on a table: same partition key as the
/// table, another sort key attribute. Local indexes can only be created with
/// the table and limit each partition key value to 10 GB.
///
/// ```
/// use singletable::{LocalIndex, Projection, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", lsi1)]
/// pub struct App;
///
/// assert_eq!(
///     App::LOCAL_INDEXES[0],
///     LocalIndex { number: 1, name: "LSI1", sk: "LSI1SK", projection: Projection::All },
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalIndex {
    /// Index number, `1` for `lsi1`.
    pub number: u8,
    /// Index name in DynamoDB (`LSI1` by default).
    pub name: &'static str,
    /// Sort key attribute (`LSI1SK` by default).
    pub sk: &'static str,
    /// Projected attributes.
    pub projection: Projection,
}

/// A vector index as declared on a table (`#[table(vector1(...))]`).
///
/// ```
/// use singletable::vector::{Distance, VectorIndex};
/// use singletable::{KeyAttribute, KeyType, Projection, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", vector1(attribute = "emb", dimensions = 3, distance = euclidean, hash(tenant = S), keys_only))]
/// pub struct App;
///
/// let ix: &VectorIndex = &App::VECTOR_INDEXES[0];
/// assert_eq!((ix.name, ix.attribute, ix.dimensions, ix.distance), ("VECTOR1", "emb", 3, Distance::Euclidean));
/// assert_eq!(ix.hash, &[KeyAttribute { name: "tenant", kind: KeyType::S }]);
/// assert!(ix.filter.is_empty());
/// assert_eq!(ix.projection, Projection::KeysOnly);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorIndex {
    /// Index number, `1` for `vector1`.
    pub number: u8,
    /// Index name in DynamoDB (`VECTOR1` by default).
    pub name: &'static str,
    /// The attribute holding each item's vector (`embedding` by default).
    pub attribute: &'static str,
    /// The number of dimensions of every vector.
    pub dimensions: u32,
    /// The distance function.
    pub distance: crate::vector::Distance,
    /// The search schema's `HASH` attributes: a search gives each by
    /// equality.
    pub hash: &'static [KeyAttribute],
    /// The search schema's `INLINE_FILTER` attributes: a search may
    /// compare them.
    pub filter: &'static [KeyAttribute],
    /// The attributes the index projects.
    pub projection: Projection,
}

impl VectorIndex {
    /// The search schema: every `HASH` attribute, then every
    /// `INLINE_FILTER` one, each with whether it is a `HASH` one.
    ///
    /// ```
    /// use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", vector1(dimensions = 3, distance = cosine, hash(tenant = S), filter(price = N)))]
    /// # pub struct App;
    /// let schema: Vec<_> = App::VECTOR_INDEXES[0].search_schema().map(|(a, hash)| (a.name, hash)).collect();
    /// assert_eq!(schema, [("tenant", true), ("price", false)]);
    /// ```
    pub fn search_schema(&self) -> impl Iterator<Item = (&'static KeyAttribute, bool)> + use<> {
        let (hash, filter) = (self.hash, self.filter);
        hash.iter()
            .map(|a| (a, true))
            .chain(filter.iter().map(|a| (a, false)))
    }
}
