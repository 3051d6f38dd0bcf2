//! What the derives declare, as data: the key templates, index keys,
//! access patterns and collections that `Table` and `Entity` carry in
//! their constants. A floor below the traits, so that `entity` names no
//! module built on it; each type is re-exported where it is used
//! (`design`, `update`, `collection`).
//!
//! ```
//! use singletable_core::shape::template_matches;
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
//! assert_eq!(User::SHAPE.name, "User");
//! assert!(template_matches(&User::SHAPE.pk, "USER#ana"));
//! assert!(!template_matches(&User::SHAPE.pk, "ORDER#1"));
//! ```

use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};

/// One `#`-delimited segment of a key template: literal text, optionally
/// followed by a placeholder (placeholders always end a segment).
///
/// ```
/// use singletable_core::shape::KeySeg;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>#ORDER-<order>")]
/// # #[sk("DETAILS")]
/// # pub struct Order { pub user: String, pub order: String }
///
/// // #[pk("USER#<user>#ORDER-<order>")], split at `#`:
/// assert_eq!(
///     Order::SHAPE.pk.segs,
///     [
///         KeySeg { lit: "USER", field: false, width: None },
///         KeySeg { lit: "", field: true, width: None },
///         KeySeg { lit: "ORDER-", field: true, width: None },
///     ]
/// );
/// assert!(Order::SHAPE.pk.segs.iter().any(|s| s.field));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySeg {
    /// Literal text of the segment (before the placeholder, if any).
    pub lit: &'static str,
    /// Whether a placeholder ends the segment.
    pub field: bool,
    /// The placeholder's encoded length, when its type encodes every value
    /// to one length ([`KeyPart::WIDTH`](crate::KeyPart::WIDTH)).
    pub width: Option<usize>,
}

/// A key template as declared (with stored attribute names in placeholders).
///
/// ```
/// # use singletable::{Entity, StrEnum, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(StrEnum, Debug, Clone, Copy, PartialEq)]
/// # pub enum Status { New, Shipped }
/// #[derive(Entity)]
/// #[entity(table = App, rename_all = "camelCase")]
/// #[pk("USER#<user_id>")]
/// #[sk("PROFILE")]
/// #[gsi1(pk = "STATUS#<status>", sk = "USER#<user_id>")]
/// pub struct User { pub user_id: String, pub status: Status }
///
/// assert_eq!(User::SHAPE.pk.template, "USER#<userId>"); // stored names
/// assert_eq!((User::SHAPE.pk.cardinality)(), None);    // any string
/// let gsi1 = &User::SHAPE.indexes[0];
/// assert_eq!((gsi1.pk.unwrap().cardinality)(), Some(2)); // two statuses
/// ```
#[derive(Debug, Clone, Copy)]
pub struct KeyShape {
    /// `USER#<userId>`.
    pub template: &'static str,
    /// The template split at `#`.
    pub segs: &'static [KeySeg],
    /// How many distinct values the key can take, when that is small and
    /// known (constant templates, `bool`, `StrEnum` placeholders).
    pub cardinality: fn() -> Option<u64>,
    /// The placeholders written `#[attr(unpadded)]` (stored names): keys
    /// with them sort as text, not as numbers (`v10` before `v2`).
    pub unpadded: &'static [&'static str],
}

/// An index as one entity uses it.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("POST#<id>")]
/// #[sk("POST")]
/// #[gsi1(pk = "FEED", sk = "AT#<at>", when = public, shards = 8)]
/// #[lsi1(sk = "AT#<at>")]
/// pub struct Post { pub id: String, pub at: u64, pub public: bool }
///
/// let [gsi1, lsi1] = Post::SHAPE.indexes else { panic!() };
/// assert_eq!((gsi1.name, gsi1.global, gsi1.sparse, gsi1.shards), ("gsi1", true, Some("public"), 8));
/// assert_eq!(gsi1.sk.unwrap().template, "AT#<at>");
/// assert!(!lsi1.global && lsi1.pk.is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct IndexShape {
    /// `gsi1`, `lsi1`.
    pub name: &'static str,
    /// Global (true) or local index.
    pub global: bool,
    /// Partition key template (global indexes).
    pub pk: Option<KeyShape>,
    /// Sort key template.
    pub sk: Option<KeyShape>,
    /// The sparse condition, as written (`published`).
    pub sparse: Option<&'static str>,
    /// Write shards of the partition key (1: not sharded).
    pub shards: u16,
}

/// A declared access pattern.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// #[gsi1(pk = "EMAIL#<email>", sk = "USER")]
/// #[access(by_email, index = gsi1)]
/// pub struct User { pub id: String, pub email: String }
///
/// let a = User::SHAPE.access[0];
/// assert_eq!((a.name, a.index), ("by_email", Some("gsi1")));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct AccessShape {
    /// Pattern name.
    pub name: &'static str,
    /// Index read, `None` for the table.
    pub index: Option<&'static str>,
}

/// An entity's fields on a multi-attribute index (`#[gsi2(pk(tenant_id),
/// sk(created_at))]`): the stored attribute names, in key-schema order.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi2(pk(tenantId = S), sk(createdAt = N)))]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App, rename_all = "camelCase")]
/// #[pk("TICKET#<id>")]
/// #[sk("TICKET")]
/// #[gsi2(pk(tenant_id), sk(created_at))]
/// pub struct Ticket { pub id: String, pub tenant_id: String, pub created_at: i64 }
///
/// let ix = Ticket::SHAPE.attribute_indexes[0];
/// assert_eq!((ix.name, ix.partition, ix.sort), ("gsi2", &["tenantId"][..], &["createdAt"][..]));
/// assert!(!ix.by_type); // `sk(createdAt = N)` does not start with `entityType`
/// ```
#[derive(Debug, Clone, Copy)]
pub struct AttrIndexShape {
    /// `gsi2`.
    pub name: &'static str,
    /// Partition attributes.
    pub partition: &'static [&'static str],
    /// Sort attributes the entity's fields map onto.
    pub sort: &'static [&'static str],
    /// Whether the index's sort key starts with the table's entity-type
    /// attribute (before the attributes of `sort`): the entity's queries
    /// start with `entityType = <name>`, so several entities share the
    /// index.
    pub by_type: bool,
}

/// Everything the design document and the cross-entity checks need to know
/// about one entity: `Entity::SHAPE`, generated by `#[derive(Entity)]`.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", ttl = "exp")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App, name = "Session")]
/// #[pk("SESSION#<id>")]
/// #[sk("SESSION")]
/// pub struct Sess { pub id: String, #[attr(ttl, rename = "exp")] pub expires: i64 }
///
/// let shape = Sess::SHAPE;
/// assert_eq!(shape.name, "Session");
/// assert_eq!(shape.sk.unwrap().template, "SESSION");
/// assert_eq!(shape.attributes, ["id", "exp"]);
/// assert_eq!(shape.attribute_types, [Some("S"), Some("N")]);
/// assert!(shape.writes_type);
/// assert_eq!(shape.ttl, Some("exp"));
/// assert!(shape.indexes.is_empty() && shape.access.is_empty());
/// assert!(shape.attribute_indexes.is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct EntityShape {
    /// Entity type name (the `entityType` value).
    pub name: &'static str,
    /// Partition key template.
    pub pk: KeyShape,
    /// Sort key template.
    pub sk: Option<KeyShape>,
    /// Secondary indexes keyed on templates.
    pub indexes: &'static [IndexShape],
    /// Multi-attribute indexes the entity maps its fields onto.
    pub attribute_indexes: &'static [AttrIndexShape],
    /// Access patterns.
    pub access: &'static [AccessShape],
    /// Stored attribute names, in declaration order: the fields' own
    /// attributes (not `skip`, nor `from_key`, which the primary key
    /// holds).
    pub attributes: &'static [&'static str],
    /// DynamoDB's type of each of [`attributes`](Self::attributes), in the
    /// same order, as the field's type declares it
    /// ([`Attr::DYNAMODB_TYPE`](crate::value::Attr::DYNAMODB_TYPE));
    /// `None` where the type does not say (`#[attr(serde)]`).
    pub attribute_types: &'static [Option<&'static str>],
    /// Whether its items store the table's entity-type attribute (`false`
    /// for `#[entity(untyped)]`).
    pub writes_type: bool,
    /// The TTL attribute, if any.
    pub ttl: Option<&'static str>,
    /// The stored names of the `#[attr(updated_at)]` fields, which every
    /// update stamps.
    pub stamped: &'static [&'static str],
}

/// Whether `key` is a value `template` can build: as many `#`-separated
/// segments, each with the template's literal text (and, where a
/// placeholder ends the segment, a non-empty value after it). Values are
/// escaped (`#` as `%23`), so the split is exact.
///
/// ```
/// use singletable_core::shape::template_matches;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
/// let pk = User::SHAPE.pk;
/// assert!(template_matches(&pk, "USER#ana"));
/// assert!(!template_matches(&pk, "USER#ana#extra"));
/// assert!(!template_matches(&pk, "USER#"));
/// ```
pub fn template_matches(template: &KeyShape, key: &str) -> bool {
    let mut parts = key.split('#');
    for seg in template.segs {
        let Some(part) = parts.next() else {
            return false;
        };
        let fits = if seg.field {
            part.len() > seg.lit.len() && part.starts_with(seg.lit)
        } else {
            part == seg.lit
        };
        if !fits {
            return false;
        }
    }
    parts.next().is_none()
}

impl EntityShape {
    /// The entity's keys on the index named `name` (`gsi1`, `lsi1`), if it
    /// declares them.
    ///
    /// ```
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// #[gsi1(pk = "EMAIL#<email>", sk = "USER")]
    /// pub struct User { pub id: String, pub email: String }
    ///
    /// assert_eq!(User::SHAPE.index("gsi1").unwrap().pk.as_ref().unwrap().template, "EMAIL#<email>");
    /// assert!(User::SHAPE.index("gsi2").is_none());
    /// assert!(User::SHAPE.attribute_index("gsi1").is_none()); // synthetic keys, not attributes
    /// ```
    pub fn index(&self, name: &str) -> Option<&IndexShape> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The entity's multi-attribute keys on the index named `name`, if it
    /// maps that index's keys to its own attributes (see [`Self::index`]).
    ///
    /// ```
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1(pk(status = S), sk(createdAt = S)))]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App, rename_all = "camelCase")]
    /// #[pk("ORDER#<id>")]
    /// #[sk("ORDER")]
    /// #[gsi1(pk(status), sk(created_at))]
    /// pub struct Order { pub id: String, pub status: String, pub created_at: String }
    ///
    /// assert!(Order::SHAPE.attribute_index("gsi1").is_some());
    /// assert!(Order::SHAPE.index("gsi1").is_none()); // no synthetic keys
    /// ```
    pub const fn attribute_index(&self, name: &str) -> Option<&AttrIndexShape> {
        let mut i = 0;
        while i < self.attribute_indexes.len() {
            let ix = &self.attribute_indexes[i];
            if str_eq(ix.name, name) {
                return Some(ix);
            }
            i += 1;
        }
        None
    }
}

/// One segment of a key template, as the derive describes it.
///
/// ```
/// use singletable_core::shape::Seg;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>", when = published)]
/// pub struct Product { pub id: String, pub category: String, pub published: bool }
///
/// let gsi1 = &Product::INDEX_KEYS[0];
/// assert_eq!(gsi1.pk.unwrap().segments, [Seg::Lit("CATEGORY#"), Seg::Field("category")]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// Literal text.
    Lit(&'static str),
    /// A placeholder: the Rust field name.
    Field(&'static str),
}

/// A key attribute and the template it is built from.
///
/// ```
/// use singletable_core::shape::KeyTemplate;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>", when = published)]
/// pub struct Product { pub id: String, pub category: String, pub published: bool }
///
/// let sk: KeyTemplate = Product::INDEX_KEYS[0].sk.unwrap();
/// assert_eq!(sk.attr, "GSI1SK");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyTemplate {
    /// The attribute (`GSI1PK`, …).
    pub attr: &'static str,
    /// The template.
    pub segments: &'static [Seg],
}

/// When a secondary index holds the entity.
///
/// ```
/// use singletable_core::shape::When;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>", when = published)]
/// pub struct Product { pub id: String, pub category: String, pub published: bool }
///
/// assert_eq!(Product::INDEX_KEYS[0].when, When::Field("published"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Always.
    Always,
    /// While this `bool` field (Rust name) is true.
    Field(&'static str),
    /// While a function of the whole item returns true.
    Function,
}

/// The key templates of one secondary index of an entity: what an update
/// rebuilds index keys from (`Entity::INDEX_KEYS`).
///
/// ```
/// use singletable_core::shape::IndexKeys;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>", when = published)]
/// pub struct Product { pub id: String, pub category: String, pub published: bool }
///
/// let gsi1: &IndexKeys = &Product::INDEX_KEYS[0];
/// assert_eq!((gsi1.index, gsi1.shards), ("gsi1", 1));
/// assert_eq!(gsi1.pk.unwrap().attr, "GSI1PK");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexKeys {
    /// `gsi1`, `lsi2`.
    pub index: &'static str,
    /// Partition key template (global indexes only).
    pub pk: Option<KeyTemplate>,
    /// Sort key template.
    pub sk: Option<KeyTemplate>,
    /// Sparse condition.
    pub when: When,
    /// Write shards of the partition key (1: not sharded).
    pub shards: u16,
}

impl IndexKeys {
    /// The key templates (partition key first), each with its length
    /// limit in bytes.
    ///
    /// ```
    /// use singletable::{Entity, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App", gsi1)]
    /// pub struct App;
    ///
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("ORDER#<id>")]
    /// #[sk("DETAILS")]
    /// #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>")]
    /// pub struct Order { pub id: String, pub status: String }
    ///
    /// let gsi1 = &Order::INDEX_KEYS[0];
    /// assert_eq!(gsi1.templates().map(|(_, max)| max).collect::<Vec<_>>(), [2048, 1024]);
    /// assert_eq!(gsi1.fields().collect::<Vec<_>>(), ["status", "id"]);
    /// ```
    pub fn templates(&self) -> impl Iterator<Item = (&KeyTemplate, usize)> {
        self.pk
            .iter()
            .map(|t| (t, MAX_PARTITION_KEY_BYTES))
            .chain(self.sk.iter().map(|t| (t, MAX_SORT_KEY_BYTES)))
    }

    /// The fields the key templates name, in order.
    ///
    /// ```
    /// use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("ORDER#<id>")]
    /// #[sk("DETAILS")]
    /// #[gsi1(pk = "STATUS#<status>", sk = "DAY#<day>#<id>")]
    /// pub struct Order { pub id: String, pub status: String, pub day: String }
    ///
    /// assert_eq!(Order::INDEX_KEYS[0].fields().collect::<Vec<_>>(), ["status", "day", "id"]);
    /// ```
    pub fn fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.templates().flat_map(|(t, _)| {
            t.segments.iter().filter_map(|s| match s {
                Seg::Field(f) => Some(*f),
                Seg::Lit(_) => None,
            })
        })
    }
}

/// A collection as the design document lists it: generated by
/// `#[derive(Collection)]`, listed with `#[table(collections(...))]`.
///
/// ```
/// use singletable_core::shape::CollectionShape;
///
/// let page = CollectionShape {
///     name: "UserPage",
///     index: None,
///     sk_prefix: None,
///     partition: "USER#<id>",
///     members: &["User", "Order"],
/// };
/// assert_eq!((page.name, page.members.len()), ("UserPage", 2));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CollectionShape {
    /// The enum's name.
    pub name: &'static str,
    /// The index read (`gsi1`), `None` for the table.
    pub index: Option<&'static str>,
    /// The sort-key prefix of a sub-collection.
    pub sk_prefix: Option<&'static str>,
    /// The partition key template of the first member on that index.
    pub partition: &'static str,
    /// The members' entity types.
    pub members: &'static [&'static str],
}

/// Whether `s` starts with `prefix`, in const context.
pub(crate) const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    if prefix.len() > s.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// String equality, in const context.
pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && starts_with(a.as_bytes(), b.as_bytes())
}
