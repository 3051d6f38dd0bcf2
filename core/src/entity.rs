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

pub(crate) mod generated;
mod marker;
mod schema;

pub(crate) use generated::*;
pub use schema::{
    AttributeKey, GlobalIndex, KeyAttribute, KeyType, LocalIndex, Projection, StreamView,
    VectorIndex,
};

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
    /// db.executor().put_item(singletable_core::request::PutItem {
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
    /// [`Update::knowing`](crate::Update::knowing). Generated by the
    /// derive; the default (no secondary-index fields) suits an entity
    /// without secondary indexes.
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
/// use singletable_core::entity::UniqueField;
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

/// How the marker items of unique values are keyed. A value is the
/// declared marker key of `#[attr(unique = "CUSTOMEREMAIL#<email>")]`:
/// the marker of value `v` (as the key codec writes it) has the partition
/// key `before + v + after`, and the same sort key. The associated
/// constants name the library's own layout (`#[attr(unique)]`), and
/// [`MarkerKey::of`] gives the key of one value's marker in either.
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

/// The scalar type a field of a vector index's search schema is stored as
/// (`S`, `N` or `B`): what the derive checks against the table's
/// declaration. Key scalars, and floats, which an `INLINE_FILTER` number
/// may be.
///
/// ```
/// use singletable::KeyType;
/// use singletable::__private::entity::SearchScalar;
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

impl<T: generated::KeyScalar> SearchScalar for T {
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

// A key's item needs the table's attribute names: the method lives with
// the declarations, a floor above the key codec.
impl PrimaryKey {
    /// The key as the item DynamoDB's `Key` parameters take, with table
    /// `T`'s key attribute names (the sort key left out on a table without
    /// one).
    ///
    /// ```
    /// use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// let key = User::key("ana")?.into_key().to_item::<App>();
    /// assert_eq!(key.len(), 2);
    /// assert_eq!(key["SK"].as_s().unwrap(), "PROFILE");
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn to_item<T: Table>(&self) -> crate::value::Item {
        use crate::value::AttributeValue;
        let mut item = crate::value::Item::with_capacity(2);
        item.insert(T::PK.to_owned(), AttributeValue::S(self.pk.clone()));
        if let (Some(attr), Some(sk)) = (T::SK, &self.sk) {
            item.insert(attr.to_owned(), AttributeValue::S(sk.clone()));
        }
        item
    }
}
