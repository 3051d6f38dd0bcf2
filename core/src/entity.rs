//! The traits `#[derive(Table)]` and `#[derive(Entity)]` implement.
//!
//! Code generic over entities takes `T: Entity` and reads the table's
//! layout through `T::Table`:
//!
//! ```
//! use singletable::{Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! /// The attribute names every item of `T` is keyed by.
//! fn key_attributes<T: Entity>() -> (&'static str, Option<&'static str>) {
//!     (<T::Table as Table>::PK, <T::Table as Table>::SK)
//! }
//! assert_eq!(key_attributes::<User>(), ("PK", Some("SK")));
//! assert_eq!(User::ENTITY_TYPE, "User");
//! assert_eq!(User::PK_TEMPLATE, "USER#<id>");
//! ```

use crate::error::Error;
use crate::key::PrimaryKey;
use crate::reader::AttrReader;
use crate::reader::OtherTypes;
use crate::value::Item;

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

/// A DynamoDB table shared by several entity types (single-table design).
/// Implemented by `#[derive(Table)]`, whose documentation lists every
/// option; each constant below is one of them.
///
/// ```
/// use singletable::Table;
///
/// #[derive(Table)]
/// #[table(name = "AppTable", gsi1, ttl = "expiresAt")]
/// pub struct AppTable;
///
/// assert_eq!(AppTable::NAME, "AppTable");
/// assert_eq!(AppTable::TTL, Some("expiresAt"));
/// assert!(AppTable::RESERVED.contains(&"GSI1PK"));
/// assert!(AppTable::ENTITIES.is_empty() && AppTable::COLLECTIONS.is_empty());
/// ```
pub trait Table: 'static {
    /// Default table name; a client handle can override it.
    const NAME: &'static str;
    /// Partition key attribute name (`PK` by default).
    const PK: &'static str;
    /// Sort key attribute name (`SK` by default), `None` for a table
    /// without a sort key.
    const SK: Option<&'static str>;
    /// Attribute that stores each item's entity type (`entityType` by default).
    const ENTITY_TYPE: &'static str;
    /// Global secondary indexes.
    const GLOBAL_INDEXES: &'static [GlobalIndex];
    /// Local secondary indexes.
    const LOCAL_INDEXES: &'static [LocalIndex];
    /// Vector indexes (`vectorN(...)`), searched with `SearchVectors`
    /// (see [`crate::vector`]).
    const VECTOR_INDEXES: &'static [VectorIndex] = &[];
    /// The entities declared with `#[table(entities(...))]`: the design
    /// document describes them and the derive checks them against each
    /// other at compile time.
    const ENTITIES: &'static [crate::shape::EntityShape] = &[];
    /// The collections declared with `#[table(collections(...))]`: the
    /// design document lists them.
    const COLLECTIONS: &'static [crate::shape::CollectionShape] = &[];
    /// The TTL attribute (epoch seconds), if the table has one.
    const TTL: Option<&'static str> = None;
    /// The table's stream, if it has one: what each record carries
    /// (`#[table(stream = new_and_old_images)]`). CreateTable enables it
    /// with this view, and the embedded backend keeps a change feed of it.
    const STREAM: Option<StreamView> = None;
    /// The attribute that holds each item's schema version, for entities
    /// that declare one (`#[entity(version = N)]`); `schemaVersion` unless
    /// `#[table(schema_version = "...")]` names another.
    const SCHEMA_VERSION: &'static str = "schemaVersion";
    /// What queries do with items that are not of the type they read:
    /// items of another entity, and items no entity claims (written by
    /// other clients of the table, without an entity type the library
    /// knows). `Error` (the default) fails the query with a decode error;
    /// `Skip`, declared with `#[table(other_items = skip)]` for a table the
    /// library shares with other writers, leaves them out of every query,
    /// as `.skip_other_types()` does for one query (and
    /// `.fail_on_other_types()` undoes for one query).
    ///
    /// ```
    /// use singletable::{AttributeValue, Db, Embedded, Entity, Executor, Item, OtherTypes, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "Shared", other_items = skip)]
    /// pub struct Shared;
    ///
    /// #[derive(Entity, Debug, PartialEq)]
    /// #[entity(table = Shared)]
    /// #[pk("USER#<id>")]
    /// #[sk("ORDER#<n>")]
    /// #[access(orders)]
    /// pub struct Order { pub id: String, pub n: u32 }
    ///
    /// assert_eq!(Shared::OTHER_ITEMS, OtherTypes::Skip);
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shared>("Shared")?;
    /// db.put(&Order { id: "ana".into(), n: 1 }).await?;
    /// // Another client's item in the same partition: no entity type.
    /// let other: Item = [("PK", "USER#ana"), ("SK", "ORDER#legacy")]
    ///     .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
    ///     .into();
    /// db.executor().put_item(singletable::request::PutItem {
    ///     table: "Shared".into(), item: other, condition: None,
    ///     return_old: false, return_on_condition_failure: false,
    /// }).await?;
    /// assert_eq!(Order::orders("ana").all(&db).await?.len(), 1);
    /// assert!(Order::orders("ana").fail_on_other_types().all(&db).await.is_err());
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    const OTHER_ITEMS: crate::reader::OtherTypes = crate::reader::OtherTypes::Error;
    /// Every attribute name the table reserves: key attributes of the table
    /// and of its indexes, and the entity-type attribute. No entity field may
    /// be stored under one of these names.
    const RESERVED: &'static [&'static str];
}

/// One entity type stored in a [`Table`]. Implemented by
/// `#[derive(Entity)]`, whose documentation lists every option and what
/// else it generates.
///
/// The codec is direct: `to_item` writes each field into the item map the
/// SDK sends, with the key attributes, the index keys whose conditions
/// hold and the entity type; `from_item` reads it back, checking the
/// entity type and that the key-field attributes agree with the key.
///
/// ```
/// use singletable::{AttributeValue, DecodeErrorKind, Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User {
///     pub id: String,
///     #[attr(min_len = 1)]
///     pub name: String,
/// }
///
/// let user = User { id: "ana".into(), name: "Ana".into() };
/// assert_eq!(user.primary_key()?, User::key("ana")?);
/// user.validate()?;
/// let item = user.to_item()?;
/// assert_eq!(item.len(), 5); // PK, SK, entityType, id, name
/// assert_eq!(User::from_item(item.clone())?, user);
/// assert_eq!(user.clone().into_item()?, item);
///
/// // An item whose `id` contradicts its key is refused, so saving it
/// // back can never write another item.
/// let mut forged = item;
/// forged.insert("id".into(), AttributeValue::S("victim".into()));
/// match User::from_item(forged) {
///     Err(Error::Decode { source, .. }) => {
///         assert!(matches!(source.kind(), DecodeErrorKind::KeyMismatch { .. }))
///     }
///     other => panic!("{other:?}"),
/// }
/// assert!(User { id: "ana".into(), name: "".into() }.validate().is_err());
/// # Ok::<(), singletable::Error>(())
/// ```
pub trait Entity: Sized {
    /// The table the entity lives in.
    type Table: Table;
    /// Value of the entity-type attribute for this entity (the shape's
    /// name).
    const ENTITY_TYPE: &'static str = Self::SHAPE.name;
    /// The partition key template, as declared in `#[pk]` (the shape's).
    const PK_TEMPLATE: &'static str = Self::SHAPE.pk.template;

    /// The entity's design: templates, indexes, access patterns.
    const SHAPE: crate::shape::EntityShape;
    /// The key templates of the entity's secondary indexes, which updates use
    /// to rewrite index keys.
    const INDEX_KEYS: &'static [crate::shape::IndexKeys] = &[];
    /// The stored name of the `#[attr(version)]` field, if any.
    const VERSION: Option<&'static str> = None;
    /// The entity's schema version (`#[entity(version = 2)]`), written with
    /// every item; `None` for entities that declare none.
    const SCHEMA: Option<SchemaVersion> = None;

    /// The stored fields an upsert must set when it may create the item:
    /// every field without a default, automatic timestamp or version (each
    /// says whether its type reads an absent attribute anyway).
    const REQUIRED: &'static [Required] = &[];

    /// The `#[attr(created_at)]` and `#[attr(updated_at)]` fields, which
    /// updates and upserts stamp (see [`crate::clock`]).
    const TIMESTAMPS: &'static [crate::clock::AutoTime] = &[];

    /// The `#[attr(unique)]` fields, whose values keep marker items (see
    /// `crate::unique`).
    const UNIQUE: &'static [UniqueField] = &[];

    /// Whether items with no entity-type attribute (written by other
    /// clients of the table) are read as this entity when their primary
    /// key matches its key templates: `#[entity(adopt = keys)]`.
    ///
    /// ```
    /// use singletable::{AttributeValue, Entity, Item, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity, Debug, PartialEq)]
    /// #[entity(table = App, adopt = keys)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// pub struct User { pub id: String }
    ///
    /// assert!(User::ADOPTS);
    /// let item: Item = [("PK", "USER#ana"), ("SK", "PROFILE")]
    ///     .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
    ///     .into();
    /// assert_eq!(User::from_item(item)?, User { id: "ana".into() });
    /// # Ok::<(), singletable::Error>(())
    /// ```
    const ADOPTS: bool = false;

    /// Whether writes store the entity-type attribute. `false` for
    /// `#[entity(untyped)]`: the items of a published layout that other
    /// clients write without one, told apart by their key templates (an
    /// untyped entity also [adopts](Entity::ADOPTS)).
    ///
    /// ```
    /// use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity, Debug, PartialEq)]
    /// #[entity(table = App, untyped)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// pub struct User { #[attr(from_key)] pub id: String, pub name: String }
    ///
    /// assert!(!User::WRITES_TYPE && User::ADOPTS);
    /// let item = User { id: "ana".into(), name: "Ana".into() }.to_item()?;
    /// let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
    /// names.sort();
    /// assert_eq!(names, ["PK", "SK", "name"]); // no entityType, no copy of `id`
    /// assert_eq!(User::from_item(item)?.id, "ana");
    /// # Ok::<(), singletable::Error>(())
    /// ```
    const WRITES_TYPE: bool = true;

    /// Whether the entity's own key parsers (`parse_pk`, `parse_sk`) read
    /// this primary key: how a keys-only stream record, or an item without
    /// an entity type, is told to be this entity's. A key its templates
    /// match in shape but its parsers refuse (a malformed escape such as
    /// `%ZZ`) is not. The default compares with the templates; the derive
    /// generates the parsers' answer.
    ///
    /// ```
    /// use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// pub struct User { pub id: String }
    ///
    /// assert!(User::parses_key("USER#ana", Some("PROFILE")));
    /// assert!(!User::parses_key("USER#%ZZ", Some("PROFILE"))); // not an escape
    /// assert!(!User::parses_key("USER#ana", Some("ORDER#1")));
    /// ```
    fn parses_key(pk: &str, sk: Option<&str>) -> bool {
        let shape = &Self::SHAPE;
        crate::shape::template_matches(&shape.pk, pk)
            && match (&shape.sk, sk) {
                (Some(t), Some(sk)) => crate::shape::template_matches(t, sk),
                (None, None) => true,
                _ => false,
            }
    }

    /// Encodes the item as a write stamped with `stamp` stores it: the
    /// automatic timestamps are set first (see [`crate::clock::Created`]),
    /// then every key attribute is built from the stamped values. Entities
    /// without automatic timestamps encode as [`Entity::to_item`].
    fn to_item_stamped(&self, stamp: &crate::clock::Stamp) -> Result<Item, Error> {
        let _ = stamp;
        self.to_item()
    }

    /// Whether every `#[attr(created_at)]` field holds a time (none is
    /// empty, see [`crate::clock::Timestamp::is_unset`]); `true` for
    /// entities without one.
    fn created_at_set(&self) -> bool {
        true
    }

    /// The fields secondary-index keys and sparse conditions are built from
    /// (primary-key fields aside), with their key parts, for
    /// [`Update::knowing`](crate::Update::knowing). Used by generated code.
    #[doc(hidden)]
    fn held_fields(&self) -> Vec<HeldField> {
        Vec::new()
    }

    /// The optimistic-locking version, if the entity has one.
    fn version(&self) -> Option<u64> {
        None
    }

    /// Sets the optimistic-locking version.
    fn set_version(&mut self, version: u64) {
        let _ = version;
    }

    /// The item's primary key, built from its fields.
    fn primary_key(&self) -> Result<PrimaryKey, Error>;

    /// Whether the fields build exactly the stored key `pk` (and `sk`, the
    /// stored sort key, which an entity with a sort key needs), compared
    /// piece by piece against the key templates without building a key
    /// ([`KeyPart::strip_key_part`](crate::KeyPart::strip_key_part)):
    /// the decoders' key check on every item read. `false` sends the check
    /// to [`Entity::primary_key`], which says what differs; the default
    /// always does. Generated by the derive.
    #[doc(hidden)]
    #[inline]
    fn key_agrees(&self, pk: &str, sk: Option<&str>) -> bool {
        let _ = (pk, sk);
        false
    }

    /// The item's primary key as a key of this entity, for
    /// `Db::get`, deletes and batch gets.
    ///
    /// ```
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// let ana = User { id: "ana".into() };
    /// assert_eq!(ana.key_of()?, User::key("ana")?);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    fn key_of(&self) -> Result<crate::key::KeyOf<Self>, Error>
    where
        Self: Sized,
    {
        self.primary_key().map(crate::key::KeyOf::new)
    }

    /// Checks the declared field validations. Called by [`Entity::to_item`]
    /// (and so by [`Entity::into_item`]), so no write skips it. The default (an
    /// entity that declares none) accepts every value.
    fn validate(&self) -> Result<(), Error> {
        Ok(())
    }

    /// Encodes the item, with its key attributes, the index key attributes
    /// whose conditions hold, and the entity-type attribute.
    fn to_item(&self) -> Result<Item, Error>;

    /// Like [`Entity::to_item`], taking the entity by value.
    ///
    /// The derive does not override it: the default encodes through
    /// [`Entity::to_item`] and then drops the entity, which costs about a
    /// fifth more than moving the strings into the item did
    /// (`benches/codec.rs`). The library's own writes call `to_item`, and a
    /// second encoder per entity was about 7% of an entity crate's
    /// rebuild.
    fn into_item(self) -> Result<Item, Error> {
        self.to_item()
    }

    /// Decodes an item read from the table, checking its entity type.
    fn from_item(item: Item) -> Result<Self, Error>;

    /// Decodes an item read attribute by attribute (see
    /// [`crate::reader`]), checking its entity type: `Ok(None)` when it is
    /// another entity type and `other` says to skip those. The derive reads
    /// every attribute once, copying only the values the entity keeps; this
    /// default builds the item and calls [`Entity::from_item`].
    fn read_item<R: AttrReader + ?Sized>(
        reader: &mut R,
        other: OtherTypes,
    ) -> Result<Option<Self>, Error> {
        let item = crate::reader::collect_item(reader).map_err(|source| Error::Decode {
            entity: Self::ENTITY_TYPE,
            source,
        })?;
        if other == OtherTypes::Skip && !attributed_to::<Self>(&item) {
            return Ok(None);
        }
        Self::from_item(item).map(Some)
    }
}

/// Whether `T` reads `item`: its entity type is `T`'s, or it has none and
/// `T` adopts it by its key (see [`claims`]).
#[doc(hidden)]
pub fn attributed_to<T: Entity>(item: &Item) -> bool {
    let table = table_attrs::<T::Table>();
    match item.get(table.entity_type) {
        Some(crate::value::AttributeValue::S(t)) => t == T::ENTITY_TYPE,
        Some(_) => false,
        None => claims::<T>(item.get(table.pk), table.sk.and_then(|a| item.get(a))),
    }
}

/// Whether `T` claims an item that has no entity-type attribute, stored
/// under the key attributes `pk` and `sk`: `T` declares
/// `#[entity(adopt = keys)]` and the key matches its templates
/// ([`key_matches`]). The one rule every read path asks.
#[doc(hidden)]
pub fn claims<T: Entity>(
    pk: Option<&crate::value::AttributeValue>,
    sk: Option<&crate::value::AttributeValue>,
) -> bool {
    fn string(v: &crate::value::AttributeValue) -> Option<&str> {
        match v {
            crate::value::AttributeValue::S(s) => Some(s),
            _ => None,
        }
    }
    claims_strs::<T>(pk.map(string), sk.map(string))
}

/// [`claims`] on a key as the item holds it, borrowed.
#[doc(hidden)]
#[inline]
pub fn claims_key<T: Entity>(key: &crate::reader::TableKey<'_>) -> bool {
    use crate::reader::KeyRef;
    claims_strs::<T>(
        key.pk.as_ref().map(KeyRef::as_s),
        key.sk.as_ref().map(KeyRef::as_s),
    )
}

/// The rule of [`claims`], on each present key attribute's string (`None`
/// inside when it is not a string).
#[inline]
fn claims_strs<T: Entity>(pk: Option<Option<&str>>, sk: Option<Option<&str>>) -> bool {
    if !T::ADOPTS {
        return false;
    }
    let Some(Some(pk)) = pk else {
        return false;
    };
    match sk {
        None => key_matches::<T>(pk, None),
        Some(sk) => sk.is_some_and(|sk| key_matches::<T>(pk, Some(sk))),
    }
}

/// Whether a primary key is one of `T`'s: its key parsers read it
/// ([`Entity::parses_key`]).
#[doc(hidden)]
pub fn key_matches<T: Entity>(pk: &str, sk: Option<&str>) -> bool {
    T::parses_key(pk, sk)
}

/// Compares the key attributes an item was stored under with the key its
/// decoded fields build; a difference is a
/// [`DecodeErrorKind::KeyMismatch`](crate::DecodeErrorKind::KeyMismatch) at
/// the key attribute.
pub(crate) fn check_stored_key<T: Entity>(
    entity: &T,
    pk: Option<crate::value::AttributeValue>,
    sk: Option<crate::value::AttributeValue>,
) -> Result<(), Error> {
    use crate::reader::TableKey;
    use crate::reader::lend;
    use crate::value::AttributeValue;
    let out = check_table_key(
        entity,
        &TableKey {
            pk: pk.as_ref().map(lend),
            sk: sk.as_ref().map(lend),
        },
    );
    let string = |v: Option<AttributeValue>| match v {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    };
    crate::key::recycle_keys([string(pk), string(sk)]);
    out
}

/// [`check_stored_key`] on a key as the item holds it, borrowed.
pub(crate) fn check_table_key<T: Entity>(
    entity: &T,
    key: &crate::reader::TableKey<'_>,
) -> Result<(), Error> {
    use crate::error::{DecodeError, DecodeErrorKind};
    use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
    use crate::reader::KeyRef;
    if key.pk.is_none() && key.sk.is_none() {
        return Ok(());
    }
    // The stored key compared piece by piece with the fields: no key is
    // built when they agree (and it is within DynamoDB's limits, as the
    // key builders would check), which is every item but a bad one.
    let stored_sk = match (&key.sk, <T::Table as Table>::SK) {
        (Some(v), Some(_)) => v.as_s().filter(|s| s.len() <= MAX_SORT_KEY_BYTES).map(Some),
        (_, None) | (None, _) => Some(None),
    };
    if let (Some(p), Some(stored_sk)) = (key.pk_str(), stored_sk)
        && p.len() <= MAX_PARTITION_KEY_BYTES
        && entity.key_agrees(p, stored_sk)
    {
        return Ok(());
    }
    let table = <T::Table as Table>::PK;
    let mismatch = |attribute: &str, stored: &KeyRef<'_>, expected: String| Error::Decode {
        entity: T::ENTITY_TYPE,
        source: DecodeError::new(DecodeErrorKind::KeyMismatch {
            stored: match stored.as_s() {
                Some(s) => s.to_owned(),
                None => format!("{:?}", stored.clone().into_owned()),
            },
            expected,
        })
        .at(attribute),
    };
    let built = match entity.primary_key() {
        Ok(key) => key,
        Err(e) => {
            let (attribute, stored) = match (&key.pk, &key.sk) {
                (Some(v), _) => (table, v),
                (None, Some(v)) => (<T::Table as Table>::SK.unwrap_or(table), v),
                (None, None) => return Ok(()),
            };
            return Err(mismatch(attribute, stored, format!("no key ({e})")));
        }
    };
    if let Some(stored) = &key.pk
        && stored.as_s() != Some(built.pk.as_str())
    {
        return Err(mismatch(table, stored, built.pk));
    }
    if let (Some(stored), Some(attribute)) = (&key.sk, <T::Table as Table>::SK) {
        let agrees = match (stored.as_s(), &built.sk) {
            (Some(s), Some(b)) => s == b,
            _ => false,
        };
        if !agrees {
            return Err(mismatch(attribute, stored, built.sk.unwrap_or_default()));
        }
    }
    // The built strings go back to the key builders, so that the check
    // allocates nothing once keys were read.
    crate::key::recycle_keys([Some(built.pk), built.sk]);
    Ok(())
}

/// An entity's schema version, as `#[entity(version = N)]` declares it:
/// every item is written with `attribute = N`; items stored under an older
/// version (or without the attribute: version 1) read as the current type,
/// through the migration declared for their version or the fields'
/// defaults. The keys and the entity type do not depend on the version.
///
/// ```
/// use singletable::{Document, Entity, SchemaVersion, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Document)]
/// # pub struct CustomerV1 { pub id: String, pub name: String }
/// # impl From<CustomerV1> for Customer {
/// #     fn from(v: CustomerV1) -> Self { Customer { id: v.id, name: v.name, email: None } }
/// # }
/// #[derive(Entity)]
/// #[entity(table = App, version = 2, migrate(v1 = CustomerV1))]
/// #[pk("CUSTOMER#<id>")]
/// #[sk("PROFILE")]
/// pub struct Customer { pub id: String, pub name: String, pub email: Option<String> }
///
/// let v: SchemaVersion = Customer::SCHEMA.unwrap();
/// assert_eq!((v.attribute, v.current, v.migrated), ("schemaVersion", 2, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaVersion {
    /// The attribute holding the version (`schemaVersion` unless the
    /// table's `#[table(schema_version = "...")]` names another).
    pub attribute: &'static str,
    /// The version this code writes.
    pub current: u32,
    /// The newest older version read through a migration (`0`: none).
    /// Items of that version or older have another shape, so updates
    /// (which write the current shape's fields into the stored item) apply
    /// only to items stored under a later version: rewrite older ones
    /// whole first (a put, or a backfill).
    pub migrated: u32,
}

/// A stored field of an entity, as upserts check it: whether its type
/// reads an absent attribute (as `Option`, sets and collections do).
///
/// ```
/// use singletable::{Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String, pub name: String, pub nick: Option<String> }
///
/// let fields: Vec<(&str, bool)> = User::REQUIRED.iter().map(|r| (r.field, (r.absent_ok)())).collect();
/// assert_eq!(fields, [("id", false), ("name", false), ("nick", true)]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Required {
    /// The Rust field name.
    pub field: &'static str,
    /// Whether the field decodes from an absent attribute.
    pub absent_ok: fn() -> bool,
}

/// A `#[attr(unique)]` field, as the derive describes it (see
/// `crate::unique`).
///
/// ```
/// use singletable::entity::UniqueField;
/// use singletable::{AttributeValue, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ACCOUNT#<id>")]
/// #[sk("ACCOUNT")]
/// pub struct Account { pub id: String, #[attr(unique)] pub email: String }
///
/// let email: &UniqueField = &Account::UNIQUE[0];
/// assert_eq!((email.field, email.attribute), ("email", "email"));
/// let part = (email.part)(&AttributeValue::S("a#b".into()))?;
/// assert_eq!(part.as_deref(), Some("a%23b")); // escaped like a key part
/// assert!(email.marker.is_none()); // `#[attr(unique)]`: the library's marker layout
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct UniqueField {
    /// The Rust field name.
    pub field: &'static str,
    /// The stored attribute name.
    pub attribute: &'static str,
    /// The key part of a stored value (`None` for a value that holds no
    /// marker, such as `None`).
    pub part: fn(&crate::value::AttributeValue) -> Result<Option<String>, Error>,
    /// The declared marker key of `#[attr(unique = "CUSTOMEREMAIL#<email>")]`;
    /// `None` for the library's layout (see `crate::unique`).
    pub marker: Option<MarkerKey>,
}

/// The declared marker key of `#[attr(unique = "CUSTOMEREMAIL#<email>")]`:
/// the marker of value `v` (as the key codec writes it) has the partition
/// key `before + v + after`, and the same sort key.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop")]
/// # struct Shop;
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("CUSTOMER#<username>")]
/// #[sk("CUSTOMER#<username>")]
/// struct Customer {
///     username: String,
///     #[attr(unique = "CUSTOMEREMAIL#<email>")]
///     email: String,
/// }
///
/// let marker = Customer::UNIQUE[0].marker.unwrap();
/// assert_eq!((marker.before, marker.after), ("CUSTOMEREMAIL#", ""));
/// assert_eq!(marker.shape.template, "CUSTOMEREMAIL#<email>");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MarkerKey {
    /// The template, as a key shape (for the cross-entity checks).
    pub shape: crate::shape::KeyShape,
    /// The literal text before the value.
    pub before: &'static str,
    /// The literal text after the value.
    pub after: &'static str,
}

/// A field of an item an update was given with
/// [`Update::knowing`](crate::Update::knowing): where it is stored and its
/// key part (`None` for a sparse condition field used in no template).
#[doc(hidden)]
#[derive(Debug)]
pub struct HeldField {
    /// The Rust field name.
    pub field: &'static str,
    /// The stored attribute name.
    pub attribute: &'static str,
    /// The field's key part.
    pub part: Option<Result<String, Error>>,
}

/// Where a [`Partition`] lies: the table (and its local indexes, which
/// share the table's partition key).
///
/// ```
/// use singletable::entity::OnTablePartition;
/// use singletable::{Entity, Partition, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// pub struct Order { pub id: String }
///
/// let p: Partition<Order, OnTablePartition> = Order::partition("o1")?;
/// assert_eq!(p.into_value(), "ORDER#o1");
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTablePartition {}

/// Where a [`Partition`] lies: global index `gsi<N>`, whose partition key
/// is its own attribute (`GSI<N>PK`).
///
/// ```
/// use singletable::entity::OnGsi;
/// use singletable::{Entity, Partition, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// pub struct Order { pub id: String, pub customer: String }
///
/// let p: Partition<Order, OnGsi<1>> = Order::gsi1_partition("c1")?;
/// assert_eq!(p.value(), "CUSTOMER#c1");
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnGsi<const N: u8> {}

/// A partition key value built by entity `E`'s generated `partition(...)`
/// (on the table; `P` is [`OnTablePartition`]) or `gsi<N>_partition(...)`
/// (on global index `gsi<N>`; `P` is [`OnGsi<N>`]) from typed field
/// values: the typed way to name a partition for a multi-entity query
/// (`#[derive(Collection)]`).
///
/// It is typed by the entity whose template built it and by where it
/// lies, so a collection accepts only its members' partitions of its own
/// index (see [`PartitionOf`]): another entity's partition, a table
/// partition for an index collection or one index's for another's is a
/// compile error on the argument.
///
/// ```
/// use singletable::{Entity, Partition, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App, name = "Repo")]
/// #[pk("REPO#<owner>#<name>")]
/// #[sk("REPO")]
/// #[gsi1(pk = "ACCOUNT#<owner>", sk = "REPO#<name>")]
/// pub struct Repo {
///     pub owner: String,
///     pub name: String,
/// }
///
/// let table = Repo::partition("ana", "db").unwrap();
/// assert_eq!(table.value(), "REPO#ana#db");
/// let index = Repo::gsi1_partition("ana").unwrap();
/// assert_eq!(index.value(), "ACCOUNT#ana");
/// assert_eq!(index.into_value(), "ACCOUNT#ana");
/// ```
pub struct Partition<E, P = OnTablePartition> {
    pk: String,
    _entity: std::marker::PhantomData<fn() -> (E, P)>,
}

impl<E, P> Partition<E, P> {
    #[doc(hidden)]
    pub fn new(pk: String) -> Self {
        Self {
            pk,
            _entity: std::marker::PhantomData,
        }
    }

    /// The partition key value.
    pub fn value(&self) -> &str {
        &self.pk
    }

    /// The partition key value, owned.
    pub fn into_value(self) -> String {
        self.pk
    }
}

impl<E, P> Clone for Partition<E, P> {
    fn clone(&self) -> Self {
        Self::new(self.pk.clone())
    }
}

impl<E, P> PartialEq for Partition<E, P> {
    fn eq(&self, other: &Self) -> bool {
        self.pk == other.pk
    }
}

impl<E, P> Eq for Partition<E, P> {}

impl<E, P> std::fmt::Debug for Partition<E, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partition")
            .field("entity", &std::any::type_name::<E>())
            .field("pk", &self.pk)
            .finish()
    }
}

/// A partition of the multi-attribute global index `gsi<N>`, built by
/// entity `E`'s generated `gsi<N>_partition(...)` from typed field values:
/// the values of the index's partition attributes, for the collections
/// read from that index (see [`PartitionOf`]).
///
/// ```
/// use singletable::{AttributeValue, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Desk", gsi2(pk(tenantId = S), sk(entityType = S, createdAt = N)))]
/// pub struct Desk;
///
/// #[derive(Entity)]
/// #[entity(table = Desk, rename_all = "camelCase")]
/// #[pk("CASE#<id>")]
/// #[sk("CASE")]
/// #[gsi2(pk(tenant_id), sk(created_at))]
/// pub struct Case { pub id: String, pub tenant_id: String, pub created_at: i64 }
///
/// let p = Case::gsi2_partition("acme")?;
/// assert_eq!(p.values(), [("tenantId", AttributeValue::S("acme".into()))]);
/// # Ok::<(), singletable::Error>(())
/// ```
pub struct AttrPartition<E, const N: u8> {
    values: Vec<(&'static str, crate::value::AttributeValue)>,
    _entity: std::marker::PhantomData<fn() -> E>,
}

impl<E, const N: u8> AttrPartition<E, N> {
    #[doc(hidden)]
    pub fn new(values: Vec<(&'static str, crate::value::AttributeValue)>) -> Self {
        Self {
            values,
            _entity: std::marker::PhantomData,
        }
    }

    /// The partition attributes and their values, in key-schema order.
    pub fn values(&self) -> &[(&'static str, crate::value::AttributeValue)] {
        &self.values
    }

    /// The partition attributes and their values, owned.
    ///
    /// ```
    /// # use singletable::{AttributeValue, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Desk", gsi2(pk(tenantId = S), sk(entityType = S, createdAt = N)))]
    /// # pub struct Desk;
    /// # #[derive(Entity)]
    /// # #[entity(table = Desk, rename_all = "camelCase")]
    /// # #[pk("CASE#<id>")]
    /// # #[sk("CASE")]
    /// # #[gsi2(pk(tenant_id), sk(created_at))]
    /// # pub struct Case { pub id: String, pub tenant_id: String, pub created_at: i64 }
    /// let values = Case::gsi2_partition("acme")?.into_values();
    /// assert_eq!(values, vec![("tenantId", AttributeValue::S("acme".into()))]);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn into_values(self) -> Vec<(&'static str, crate::value::AttributeValue)> {
        self.values
    }
}

impl<E, const N: u8> Clone for AttrPartition<E, N> {
    fn clone(&self) -> Self {
        Self::new(self.values.clone())
    }
}

impl<E, const N: u8> PartialEq for AttrPartition<E, N> {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl<E, const N: u8> std::fmt::Debug for AttrPartition<E, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttrPartition")
            .field("entity", &std::any::type_name::<E>())
            .field("values", &self.values)
            .finish()
    }
}

/// What collection `C` reads: a [`Partition`] or [`AttrPartition`] built
/// by one of its members, on the collection's own index.
/// `#[derive(Collection)]` implements it for each member; a partition of
/// an entity that is not a member, or of another index, does not compile.
///
/// ```
/// use singletable::entity::{PartitionKey, PartitionOf};
/// use singletable::{Collection, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug)]
/// # #[entity(table = App)]
/// # #[pk("ORDER#<id>")]
/// # #[sk("ORDER")]
/// # pub struct Order { pub id: String }
/// # #[derive(Entity, Debug)]
/// # #[entity(table = App)]
/// # #[pk("ORDER#<id>")]
/// # #[sk("LINE#<n>")]
/// # pub struct Line { pub id: String, pub n: u32 }
/// #[derive(Collection, Debug)]
/// pub enum OrderWithLines { Order(Order), Line(Line) }
///
/// let p = PartitionOf::<OrderWithLines>::into_partition_key(Line::partition("o1")?);
/// assert_eq!(p, PartitionKey::Text("ORDER#o1".into()));
/// # Ok::<(), singletable::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a partition that collection `{C}` reads",
    label = "not a partition of `{C}`",
    note = "pass the `partition(..)` (or, on an index, the `gsiN_partition(..)`) of one of `{C}`'s members"
)]
pub trait PartitionOf<C> {
    /// The partition as a query names it.
    fn into_partition_key(self) -> PartitionKey;
}

/// A partition as a query names it: a key value, or the values of a
/// multi-attribute key's partition attributes ([`PartitionOf`]).
///
/// ```
/// use singletable::entity::PartitionKey;
/// assert_ne!(PartitionKey::Text("A".into()), PartitionKey::Attributes(Vec::new()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum PartitionKey {
    /// The partition key value of a template index.
    Text(String),
    /// The partition attributes of a multi-attribute index, in order.
    Attributes(Vec<(&'static str, crate::value::AttributeValue)>),
}

/// The projection of `T`'s index named `index` (its DynamoDB name); `All`
/// when `T` declares no such index.
#[doc(hidden)]
pub fn index_projection<T: Table>(index: &str) -> Projection {
    T::GLOBAL_INDEXES
        .iter()
        .find(|g| g.name == index)
        .map(|g| g.projection)
        .or_else(|| {
            T::LOCAL_INDEXES
                .iter()
                .find(|l| l.name == index)
                .map(|l| l.projection)
        })
        .or_else(|| {
            T::VECTOR_INDEXES
                .iter()
                .find(|v| v.name == index)
                .map(|v| v.projection)
        })
        .unwrap_or(Projection::All)
}

/// Checks a value for attribute `attribute` of a multi-attribute index
/// key: DynamoDB refuses empty strings and binaries there, and a value of
/// another type than the index declares.
fn check_key_attribute(
    entity: &'static str,
    attribute: &'static KeyAttribute,
    value: &crate::value::AttributeValue,
) -> Result<(), Error> {
    use crate::value::AttributeValue;
    let empty = match value {
        AttributeValue::S(s) => s.is_empty(),
        AttributeValue::B(b) => b.as_ref().is_empty(),
        _ => false,
    };
    if empty {
        return Err(Error::KeyValue {
            entity,
            field: attribute.name,
            reason: crate::error::KeyError::Empty,
        });
    }
    if KeyType::of(value) != Some(attribute.kind) {
        return Err(Error::Refused(crate::error::Refusal::KeyAttributeType {
            entity,
            attribute: attribute.name,
            found: crate::value::type_name(value),
            expected: attribute.kind.as_str(),
        }));
    }
    Ok(())
}

/// The multi-attribute index key attribute named `name`, if any.
fn key_attribute<T: Table>(name: &str) -> Option<&'static KeyAttribute> {
    T::GLOBAL_INDEXES
        .iter()
        .filter_map(|g| g.attributes)
        .flat_map(|k| k.partition.iter().chain(k.sort))
        .find(|a| a.name == name)
}

/// Checks what an item gives the attributes of the table's multi-attribute
/// index keys (see [`check_key_attribute`]); called by every encoded item,
/// so no put, batch or transaction sends one DynamoDB refuses.
#[doc(hidden)]
pub fn check_attribute_keys<T: Table>(entity: &'static str, item: &Item) -> Result<(), Error> {
    for g in T::GLOBAL_INDEXES {
        let Some(k) = g.attributes else { continue };
        for a in k.partition.iter().chain(k.sort) {
            if let Some(v) = item.get(a.name) {
                check_key_attribute(entity, a, v)?;
            }
        }
        check_key_bytes(entity, g.name, item, k)?;
    }
    Ok(())
}

/// Refuses an item whose multi-attribute key attributes of one index hold
/// more bytes together than DynamoDB allows (counted by
/// [`crate::size::key_bytes`], as the embedded backend counts them).
fn check_key_bytes(
    entity: &'static str,
    index: &'static str,
    item: &Item,
    key: AttributeKey,
) -> Result<(), Error> {
    use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
    for (attrs, part, max) in [
        (key.partition, "partition", MAX_PARTITION_KEY_BYTES),
        (key.sort, "sort", MAX_SORT_KEY_BYTES),
    ] {
        let len = crate::size::key_bytes(item, attrs.iter().map(|a| a.name));
        if len > max {
            return Err(Error::IndexKeyTooLong {
                entity,
                index,
                part,
                len,
                max,
            });
        }
    }
    Ok(())
}

/// Checks what an update's `SET` actions give the attributes of the
/// table's multi-attribute index keys.
pub(crate) fn check_attribute_key_actions<T: Table>(
    entity: &'static str,
    actions: &[crate::request::UpdateAction],
) -> Result<(), Error> {
    use crate::request::{SetValue, UpdateAction};
    let mut set = Item::new();
    for action in actions {
        if let UpdateAction::Set(name, SetValue::Value(v) | SetValue::IfNotExists(v)) = action
            && let Some(a) = key_attribute::<T>(name)
        {
            check_key_attribute(entity, a, v)?;
            set.insert(name.clone(), v.clone());
        }
    }
    // What the update sets is part of each key: already over the limit,
    // the stored item cannot make it fit.
    for g in T::GLOBAL_INDEXES {
        if let Some(k) = g.attributes {
            check_key_bytes(entity, g.name, &set, k)?;
        }
    }
    Ok(())
}

/// A field's value as a query's key condition compares it, for attribute
/// `attribute` of a multi-attribute index key: DynamoDB refuses empty
/// strings and binaries there.
#[doc(hidden)]
pub fn key_attribute_value<V: crate::value::Attr>(
    entity: &'static str,
    field: &'static str,
    value: &V,
) -> Result<crate::value::AttributeValue, Error> {
    use crate::value::AttributeValue;
    let v = value
        .to_attr()
        .map_err(|source| Error::Encode { entity, source })?;
    match &v {
        AttributeValue::S(s) if s.is_empty() => Err(Error::KeyValue {
            entity,
            field,
            reason: crate::error::KeyError::Empty,
        }),
        AttributeValue::B(b) if b.as_ref().is_empty() => Err(Error::KeyValue {
            entity,
            field,
            reason: crate::error::KeyError::Empty,
        }),
        _ => Ok(v),
    }
}

/// The scalar type a Rust type is stored as, for the derive's check that
/// a field fits the multi-attribute index attribute it is mapped to.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an attribute of a multi-attribute index key",
    label = "this field is mapped to a key attribute",
    note = "key attributes are strings (`String`, string enums), numbers (integers) or binaries (`Vec<u8>`)"
)]
pub trait KeyScalar {
    /// `S`, `N` or `B`.
    const KIND: KeyType;
}

macro_rules! key_scalar {
    ($kind:ident: $($t:ty),*) => { $(impl KeyScalar for $t { const KIND: KeyType = KeyType::$kind; })* };
}
key_scalar!(S: String, &str, char);
key_scalar!(N: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
key_scalar!(B: Vec<u8>, crate::value::Blob);

impl<T: KeyScalar> KeyScalar for Option<T> {
    const KIND: KeyType = T::KIND;
}

/// Whether two key types are the same, in const context.
#[doc(hidden)]
pub const fn key_type_eq(a: KeyType, b: KeyType) -> bool {
    a as u8 == b as u8
}

/// Const-evaluable string equality, used by the derive's compile-time checks.
#[doc(hidden)]
pub const fn str_eq(a: &str, b: &str) -> bool {
    crate::shape::str_eq(a, b)
}

/// A table's key attribute names, read in const context by the derive's
/// compile-time checks. One value per table, so a wrong `table = ...` is
/// reported once.
/// The projection of `T`'s index named `index`, at compile time (`All`
/// when `T` declares no such index), for the derive's checks.
#[doc(hidden)]
pub const fn index_projection_of<T: Table>(index: &str) -> Projection {
    let mut i = 0;
    while i < T::GLOBAL_INDEXES.len() {
        if str_eq(T::GLOBAL_INDEXES[i].name, index) {
            return T::GLOBAL_INDEXES[i].projection;
        }
        i += 1;
    }
    let mut i = 0;
    while i < T::LOCAL_INDEXES.len() {
        if str_eq(T::LOCAL_INDEXES[i].name, index) {
            return T::LOCAL_INDEXES[i].projection;
        }
        i += 1;
    }
    let mut i = 0;
    while i < T::VECTOR_INDEXES.len() {
        if str_eq(T::VECTOR_INDEXES[i].name, index) {
            return T::VECTOR_INDEXES[i].projection;
        }
        i += 1;
    }
    Projection::All
}

/// Whether an index of projection `p` holds `attributes` and, when given,
/// the entity-type attribute: what decoding whole items from it reads.
#[doc(hidden)]
pub const fn projects_all(p: Projection, attributes: &[&str], entity_type: Option<&str>) -> bool {
    let listed = match p {
        Projection::All => return true,
        Projection::KeysOnly => &[] as &[&str],
        Projection::Include(list) => list,
    };
    if let Some(t) = entity_type
        && !contains(listed, t)
    {
        return false;
    }
    let mut i = 0;
    while i < attributes.len() {
        if !contains(listed, attributes[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two key attributes are one attribute: both present and equal.
#[doc(hidden)]
pub const fn same_attr(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => str_eq(a, b),
        _ => false,
    }
}

#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct TableAttrs {
    pub pk: &'static str,
    pub sk: Option<&'static str>,
    pub entity_type: &'static str,
    pub reserved: &'static [&'static str],
    pub schema_version: &'static str,
}

#[doc(hidden)]
pub const fn table_attrs<T: Table>() -> TableAttrs {
    TableAttrs {
        pk: T::PK,
        sk: T::SK,
        entity_type: T::ENTITY_TYPE,
        reserved: T::RESERVED,
        schema_version: T::SCHEMA_VERSION,
    }
}

/// [`table_attrs`] of `T` as one `'static` value per table type, which
/// the derive's code for every entity of the table refers to.
#[doc(hidden)]
pub struct TableOf<T>(core::marker::PhantomData<T>);

impl<T: Table> TableOf<T> {
    #[doc(hidden)]
    pub const ATTRS: &'static TableAttrs = &table_attrs::<T>();
}

#[doc(hidden)]
pub const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if str_eq(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

/// The position of the first of `names` that is one of `reserved`
/// (`usize::MAX` when none is), for the derive's compile-time check that
/// no field is stored under a key attribute's name.
#[doc(hidden)]
pub const fn first_reserved(reserved: &[&str], names: &[&str]) -> usize {
    let mut i = 0;
    while i < names.len() {
        if contains(reserved, names[i]) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// A global index's key attribute names, for the derive.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct GsiAttrs {
    pub name: &'static str,
    pub pk: &'static str,
    pub sk: Option<&'static str>,
}

#[doc(hidden)]
pub const fn gsi_attrs<T: markers::Gsi<N>, const N: u8>() -> GsiAttrs {
    GsiAttrs {
        name: <T as markers::Gsi<N>>::NAME,
        pk: T::PK_ATTR,
        sk: T::SK_ATTR,
    }
}

/// The attributes of a multi-attribute global index key, for the derive
/// (`None` for a template index).
#[doc(hidden)]
pub const fn gsi_attributes<T: markers::Gsi<N>, const N: u8>() -> Option<AttributeKey> {
    <T as markers::Gsi<N>>::ATTRIBUTES
}

/// Whether multi-attribute index key `key` sorts by entity type first: its
/// first sort attribute is the table's entity-type attribute
/// `entity_type`, which every typed entity writes. Several entities share
/// such an index, each one's queries starting with `entityType = <its
/// name>`.
#[doc(hidden)]
pub const fn sorts_by_type(key: Option<AttributeKey>, entity_type: &str) -> bool {
    match key {
        Some(k) => !k.sort.is_empty() && str_eq(k.sort[0].name, entity_type),
        None => false,
    }
}

/// A local index's name and sort key attribute, for the derive.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct LsiAttrs {
    pub name: &'static str,
    pub sk: &'static str,
}

#[doc(hidden)]
pub const fn lsi_attrs<T: markers::Lsi<N>, const N: u8>() -> LsiAttrs {
    LsiAttrs {
        name: <T as markers::Lsi<N>>::NAME,
        sk: T::SK_ATTR,
    }
}

/// Marker traits through which the derive checks, at compile time, that an
/// entity only uses indexes its table declares.
#[doc(hidden)]
pub mod markers {
    use super::Table;

    /// Implemented by tables that declare global index `gsi<N>`.
    #[diagnostic::on_unimplemented(
        message = "table `{Self}` does not declare global index `gsi{N}`",
        label = "the entity uses `gsi{N}` here",
        note = "add `gsi{N}` to the table's `#[table(...)]` attribute"
    )]
    pub trait Gsi<const N: u8>: Table {
        /// Index name.
        const NAME: &'static str;
        /// Partition key attribute.
        const PK_ATTR: &'static str;
        /// Sort key attribute, if the index has one.
        const SK_ATTR: Option<&'static str>;
        /// The attributes of a multi-attribute key, `None` for a template
        /// index.
        const ATTRIBUTES: Option<super::AttributeKey> = None;
    }

    /// Implemented by tables that declare vector index `vector<N>`.
    #[diagnostic::on_unimplemented(
        message = "table `{Self}` does not declare vector index `vector{N}`",
        label = "the entity uses `vector{N}` here",
        note = "add `vector{N}(dimensions = .., distance = ..)` to the table's `#[table(...)]` attribute"
    )]
    pub trait Vector<const N: u8>: Table {
        /// The index.
        const INDEX: super::VectorIndex;
    }

    /// Implemented by tables that declare local index `lsi<N>`.
    #[diagnostic::on_unimplemented(
        message = "table `{Self}` does not declare local index `lsi{N}`",
        label = "the entity uses `lsi{N}` here",
        note = "add `lsi{N}` to the table's `#[table(...)]` attribute"
    )]
    pub trait Lsi<const N: u8>: Table {
        /// Index name.
        const NAME: &'static str;
        /// Sort key attribute.
        const SK_ATTR: &'static str;
    }
}

/// The scalar type a field of a vector index's search schema is stored as
/// (`S`, `N` or `B`): what the derive checks against the table's
/// declaration. Key scalars, and floats, which an `INLINE_FILTER` number
/// may be.
///
/// ```
/// use singletable::KeyType;
/// use singletable::vector::SearchScalar;
///
/// assert_eq!(<String as SearchScalar>::KIND, KeyType::S);
/// assert_eq!(<f32 as SearchScalar>::KIND, KeyType::N);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an attribute of a vector index's search schema",
    label = "this field is mapped to a `HASH` or `INLINE_FILTER` attribute",
    note = "search-schema attributes are strings (`String`, string enums), numbers or binaries (`Vec<u8>`)"
)]
pub trait SearchScalar {
    /// `S`, `N` or `B`.
    const KIND: crate::entity::KeyType;
}

impl<T: crate::entity::KeyScalar> SearchScalar for T {
    const KIND: crate::entity::KeyType = T::KIND;
}

macro_rules! float_scalar {
    ($($t:ty),*) => {
        $(
            impl SearchScalar for $t {
                const KIND: crate::entity::KeyType = crate::entity::KeyType::N;
            }
            impl SearchScalar for Option<$t> {
                const KIND: crate::entity::KeyType = crate::entity::KeyType::N;
            }
        )*
    };
}
float_scalar!(f32, f64);
