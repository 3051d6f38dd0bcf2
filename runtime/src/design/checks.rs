//! Compile-time checks across the entities of one table: const fns over
//! their shapes, called by the code `#[derive(Table)]` generates for
//! `entities(...)`. They are public so that a test can ask the same
//! questions about entities of different tables, or of a table not listing
//! them:
//!
//! ```
//! use singletable_runtime::design::{primary_keys_collide, table_queries_leak};
//! use singletable::{Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("ORDER#<order>")]
//! pub struct Order { pub id: String, pub order: String }
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("ORDER#<order>#ITEM#<item>")]
//! pub struct Line { pub id: String, pub order: String, pub item: String }
//!
//! // Different keys, but Order's query `begins_with(SK, "ORDER#")` reads lines too.
//! assert!(!primary_keys_collide(&Order::SHAPE, &Line::SHAPE));
//! assert!(table_queries_leak(&Order::SHAPE, &Line::SHAPE));
//! ```

use super::{EntityShape, KeySeg, KeyShape};
use singletable_core::__private::starts_with;

/// Whether a placeholder of encoded width `width` (any, when `None`) can
/// take `len` bytes.
const fn fits(width: Option<usize>, len: usize) -> bool {
    match width {
        Some(w) => w == len,
        None => true,
    }
}

/// Whether two segments can hold the same text. A placeholder holds at
/// least one character, and exactly its type's width when it has one.
const fn seg_overlap(a: KeySeg, b: KeySeg) -> bool {
    let (x, y) = (a.lit.as_bytes(), b.lit.as_bytes());
    match (a.field, b.field) {
        (false, false) => singletable_core::__private::str_eq(a.lit, b.lit),
        (false, true) => starts_with(x, y) && x.len() > y.len() && fits(b.width, x.len() - y.len()),
        (true, false) => starts_with(y, x) && y.len() > x.len() && fits(a.width, y.len() - x.len()),
        (true, true) => {
            let same_length = match (a.width, b.width) {
                (Some(wa), Some(wb)) => x.len() + wa == y.len() + wb,
                _ => true,
            };
            (starts_with(x, y) || starts_with(y, x)) && same_length
        }
    }
}

/// Whether two templates can produce the same key.
///
/// ```
/// use singletable_runtime::design::keys_overlap;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("A")]
/// # pub struct A { pub id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<name>")]
/// # #[sk("B")]
/// # pub struct B { pub name: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("TEAM#<id>")]
/// # #[sk("C")]
/// # pub struct C { pub id: String }
/// // USER#<id> and USER#<name> can be equal; TEAM#<id> never is.
/// assert!(keys_overlap(A::SHAPE.pk.segs, B::SHAPE.pk.segs));
/// assert!(!keys_overlap(A::SHAPE.pk.segs, C::SHAPE.pk.segs));
/// ```
pub const fn keys_overlap(a: &[KeySeg], b: &[KeySeg]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !seg_overlap(a[i], b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two optional sort templates can produce the same sort key.
const fn sort_overlap(a: Option<KeyShape>, b: Option<KeyShape>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => keys_overlap(a.segs, b.segs),
        (None, None) => true,
        _ => false,
    }
}

/// Whether a query scoped by `a`'s sort template (`begins_with` its literal
/// text up to the first placeholder) can return an item whose sort key
/// follows `b`.
///
/// ```
/// use singletable_runtime::design::scope_leaks;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("U#<id>")]
/// # #[sk("ORDER#<n>")]
/// # pub struct Order { pub id: String, pub n: u32 }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("U#<id>")]
/// # #[sk("ORDERS#<n>")]
/// # pub struct Orders { pub id: String, pub n: u32 }
/// let (order, orders) = (Order::SHAPE.sk.unwrap(), Orders::SHAPE.sk.unwrap());
/// // begins_with(SK, "ORDER#") never matches a key "ORDERS#...".
/// assert!(!scope_leaks(order.segs, orders.segs));
/// assert!(scope_leaks(order.segs, order.segs));
/// ```
pub const fn scope_leaks(a: &[KeySeg], b: &[KeySeg]) -> bool {
    // The scope: every leading literal segment, then the literal part of the
    // first segment with a placeholder.
    let mut k = 0;
    while k < a.len() && !a[k].field {
        k += 1;
    }
    if k == a.len() {
        // A constant sort key is queried with `=`: no scope to leak into.
        return false;
    }
    if b.len() <= k {
        return false;
    }
    let mut i = 0;
    while i < k {
        let lit = KeySeg {
            lit: a[i].lit,
            field: false,
            width: None,
        };
        if !seg_overlap(lit, b[i]) {
            return false;
        }
        i += 1;
    }
    let (scope, seg) = (a[k].lit.as_bytes(), b[k]);
    if seg.field {
        starts_with(seg.lit.as_bytes(), scope) || starts_with(scope, seg.lit.as_bytes())
    } else {
        starts_with(seg.lit.as_bytes(), scope)
    }
}

/// Whether entities `a` and `b` can produce the same primary key. On a table
/// without sort key, that is whether their partition keys can be equal.
///
/// ```
/// use singletable_runtime::design::primary_keys_collide;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("X#<id>")]
/// # #[sk("ITEM")]
/// # pub struct A { pub id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("X#<key>")]
/// # #[sk("ITEM")]
/// # pub struct B { pub key: String }
/// // One would overwrite the other: `#[table(entities(A, B))]` does not compile.
/// assert!(primary_keys_collide(&A::SHAPE, &B::SHAPE));
/// ```
///
/// A placeholder of a fixed-width type matches only text of its width:
/// `v<n: u32>` is `v` and ten digits, never `v0`; `v<n: String>` can be.
///
/// ```
/// use singletable_runtime::design::primary_keys_collide;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("DOC#<id>")]
/// #[sk("v0")]
/// pub struct Latest { pub id: String }
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("DOC#<id>")]
/// #[sk("v<n>")]
/// pub struct Version { pub id: String, pub n: u32 }
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("DOC#<id>")]
/// #[sk("v<n>")]
/// pub struct Named { pub id: String, pub n: String }
///
/// assert!(!primary_keys_collide(&Latest::SHAPE, &Version::SHAPE));
/// assert!(primary_keys_collide(&Latest::SHAPE, &Named::SHAPE));
/// ```
pub const fn primary_keys_collide(a: &EntityShape, b: &EntityShape) -> bool {
    keys_overlap(a.pk.segs, b.pk.segs) && sort_overlap(a.sk, b.sk)
}

/// Whether an entity's partition key can be the partition key of a
/// unique-value marker, `UNIQUE#<entity>#<attribute>#<value>` (see
/// [`crate::unique`]): then a query of its partition could read markers.
///
/// ```
/// use singletable_runtime::design::partition_holds_markers;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("<kind>#<a>#<b>#<c>")]
/// # #[sk("ANY")]
/// # pub struct Any { pub kind: String, pub a: String, pub b: String, pub c: String }
/// assert!(!partition_holds_markers(&User::SHAPE)); // "USER#..." is never "UNIQUE#..."
/// // "<kind>#<a>#<b>#<c>" can be "UNIQUE#<entity>#<attribute>#<value>".
/// assert!(partition_holds_markers(&Any::SHAPE));
/// ```
pub const fn partition_holds_markers(e: &EntityShape) -> bool {
    const ANY: KeySeg = KeySeg {
        lit: "",
        field: true,
        width: None,
    };
    const MARKER: &[KeySeg] = &[
        KeySeg {
            lit: crate::unique::MarkerKey::PREFIX,
            field: false,
            width: None,
        },
        ANY,
        ANY,
        ANY,
    ];
    keys_overlap(e.pk.segs, MARKER)
}

/// Whether the partition key of `e` can be the key of a declared marker of
/// `unique` (`#[attr(unique = "CUSTOMEREMAIL#<email>")]`, see
/// [`crate::unique`]): `#[table(entities(...))]` refuses it.
///
/// ```
/// use singletable_runtime::design::partition_holds_declared_markers;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop")]
/// # pub struct Shop;
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("CUSTOMER#<username>")]
/// #[sk("CUSTOMER#<username>")]
/// pub struct Customer {
///     pub username: String,
///     #[attr(unique = "CUSTOMEREMAIL#<email>")]
///     pub email: String,
/// }
/// # #[derive(Entity)]
/// # #[entity(table = Shop)]
/// # #[pk("<kind>#<id>")]
/// # #[sk("ANY")]
/// # pub struct Any { pub kind: String, pub id: String }
/// assert!(!partition_holds_declared_markers(&Customer::SHAPE, Customer::UNIQUE));
/// // "<kind>#<id>" can be "CUSTOMEREMAIL#<email>".
/// assert!(partition_holds_declared_markers(&Any::SHAPE, Customer::UNIQUE));
/// ```
pub const fn partition_holds_declared_markers(
    e: &EntityShape,
    unique: &[crate::entity::UniqueField],
) -> bool {
    let mut i = 0;
    while i < unique.len() {
        if let Some(m) = &unique[i].marker
            && keys_overlap(e.pk.segs, m.shape.segs)
        {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether a scoped table query of one entity can return items of the other.
///
/// ```
/// use singletable_runtime::design::table_queries_leak;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("ORDER#<n>")]
/// # pub struct Order { pub id: String, pub n: u32 }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
/// assert!(!table_queries_leak(&Order::SHAPE, &User::SHAPE));
/// ```
pub const fn table_queries_leak(a: &EntityShape, b: &EntityShape) -> bool {
    if !keys_overlap(a.pk.segs, b.pk.segs) {
        return false;
    }
    match (a.sk, b.sk) {
        (Some(x), Some(y)) => scope_leaks(x.segs, y.segs) || scope_leaks(y.segs, x.segs),
        _ => false,
    }
}

/// One segment of a stored index partition key: a template segment, or the
/// `#<shard>` suffix of a sharded key (`0` to `shards - 1`, in decimal).
#[derive(Clone, Copy)]
enum Part {
    Seg(KeySeg),
    Shard(u16),
}

/// Segment `i` of a key stored from `segs` with `shards` write shards.
const fn part(segs: &[KeySeg], shards: u16, i: usize) -> Part {
    if i < segs.len() {
        Part::Seg(segs[i])
    } else {
        Part::Shard(shards)
    }
}

/// The decimal value of `digits`, if it is a shard number as
/// `with_shard` writes it (digits, no leading zero) below
/// 100,000.
const fn shard_number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 5 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    let mut n = 0u32;
    let mut i = 0;
    while i < digits.len() {
        if !digits[i].is_ascii_digit() {
            return None;
        }
        n = n * 10 + (digits[i] - b'0') as u32;
        i += 1;
    }
    Some(n)
}

/// Whether a template segment can hold the text of one of `shards` shard
/// numbers.
const fn seg_holds_shard(seg: KeySeg, shards: u16) -> bool {
    let lit = seg.lit.as_bytes();
    if !seg.field {
        return match shard_number(lit) {
            Some(n) => n < shards as u32,
            None => false,
        };
    }
    // The placeholder adds at least one character: the smallest shard
    // number that starts with the literal text and is longer is `lit0`.
    if lit.is_empty() {
        return true;
    }
    match shard_number(lit) {
        Some(0) | None => false,
        Some(n) => n * 10 < shards as u32,
    }
}

const fn part_overlap(a: Part, b: Part) -> bool {
    match (a, b) {
        (Part::Seg(x), Part::Seg(y)) => seg_overlap(x, y),
        // Both hold shard `0`.
        (Part::Shard(_), Part::Shard(_)) => true,
        (Part::Seg(x), Part::Shard(n)) | (Part::Shard(n), Part::Seg(x)) => seg_holds_shard(x, n),
    }
}

/// Whether two index partition templates, with `a_shards` and `b_shards`
/// write shards (1: not sharded), can produce the same stored key. A sharded
/// key ends with one more segment, `#0` to `#<shards - 1>`.
///
/// ```
/// use singletable_runtime::design::sharded_keys_overlap;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("O#<id>")]
/// # #[sk("O")]
/// # #[gsi1(pk = "BYDATE", sk = "D#<id>", shards = 4)]
/// # pub struct Order { pub id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("R#<id>")]
/// # #[sk("R")]
/// # #[gsi1(pk = "BYDATE#<region>", sk = "D#<id>")]
/// # pub struct Report { pub id: String, pub region: String }
/// let order = Order::SHAPE.indexes[0].pk.unwrap();
/// let report = Report::SHAPE.indexes[0].pk.unwrap();
/// // BYDATE with 4 shards is stored as BYDATE#0..BYDATE#3, which
/// // BYDATE#<region> also produces for region "2".
/// assert!(sharded_keys_overlap(order.segs, 4, report.segs, 1));
/// assert!(!sharded_keys_overlap(order.segs, 1, report.segs, 1));
/// ```
pub const fn sharded_keys_overlap(
    a: &[KeySeg],
    a_shards: u16,
    b: &[KeySeg],
    b_shards: u16,
) -> bool {
    let a_len = a.len() + (a_shards > 1) as usize;
    let b_len = b.len() + (b_shards > 1) as usize;
    if a_len != b_len {
        return false;
    }
    let mut i = 0;
    while i < a_len {
        if !part_overlap(part(a, a_shards, i), part(b, b_shards, i)) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether the sort-key condition a query of the sort template `a` starts
/// with (`begins_with` its literal prefix, `=` a constant) can match a sort
/// key of template `b`.
const fn sort_reads(a: &[KeySeg], b: &[KeySeg]) -> bool {
    let mut constant = true;
    let mut i = 0;
    while i < a.len() {
        if a[i].field {
            constant = false;
        }
        i += 1;
    }
    if constant {
        keys_overlap(a, b)
    } else {
        scope_leaks(a, b)
    }
}

/// How queries of two entities on one index can read each other's items
/// ([`index_collision`]).
///
/// ```
/// use singletable_runtime::design::{index_collision, IndexCollision};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1(no_sk))]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("A#<id>")]
/// # #[sk("A")]
/// # #[gsi1(pk = "EMAIL#<email>")]
/// # pub struct A { pub id: String, pub email: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("B#<id>")]
/// # #[sk("B")]
/// # #[gsi1(pk = "EMAIL#<email>")]
/// # pub struct B { pub id: String, pub email: String }
/// // No sort key in GSI1: a query reads the whole EMAIL#... partition.
/// assert_eq!(index_collision(&A::SHAPE, &B::SHAPE, "gsi1"), IndexCollision::NoSortKey);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexCollision {
    /// They cannot: the partition keys differ, or the sort-key conditions
    /// the queries start with keep each to its own items.
    None,
    /// The partition keys can be equal and the sort-key condition one query
    /// starts with can match the other's sort keys.
    SortKeys,
    /// The index has no sort key, so a query reads the whole partition, and
    /// the partition keys can be equal.
    NoSortKey,
    /// Both map their fields onto the multi-attribute index: its keys are
    /// the items' own attributes, with nothing to tell the entities apart
    /// (its sort key does not start with the entity-type attribute).
    Attributes,
    /// One partition key is sharded (stored with a `#<shard>` suffix), and
    /// the other, unsharded, can produce the same keys; `first` tells
    /// whether the first entity is the sharded one.
    Shards {
        /// The first entity's key is the sharded one.
        first: bool,
    },
}

/// Whether queries of entities `a` and `b` on index `index` (`gsi1`) can
/// return each other's items, and why. Unlike the table's, an index's keys
/// need not be unique: two entities in one index partition are told apart
/// by the sort-key condition their queries start with, or not at all.
///
/// ```
/// use singletable_runtime::design::{index_collision, IndexCollision};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("O#<id>")]
/// # #[sk("O")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub status: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("R#<id>")]
/// # #[sk("R")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "RETURN#<id>")]
/// # pub struct Return { pub id: String, pub status: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("X#<id>")]
/// # #[sk("X")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>#X")]
/// # pub struct Extra { pub id: String, pub status: String }
/// assert_eq!(index_collision(&Order::SHAPE, &Return::SHAPE, "gsi1"), IndexCollision::None);
/// assert_eq!(index_collision(&Order::SHAPE, &Extra::SHAPE, "gsi1"), IndexCollision::SortKeys);
/// ```
pub const fn index_collision(a: &EntityShape, b: &EntityShape, index: &str) -> IndexCollision {
    if let (Some(x), Some(y)) = (a.attribute_index(index), b.attribute_index(index)) {
        // Sorted by entity type first, each one's queries keep to its own
        // items (entity names differ, a check of their own).
        return if x.by_type && y.by_type {
            IndexCollision::None
        } else {
            IndexCollision::Attributes
        };
    }
    let mut i = 0;
    while i < a.indexes.len() {
        let x = a.indexes[i];
        let mut j = 0;
        while j < b.indexes.len() {
            let y = b.indexes[j];
            if singletable_core::__private::str_eq(x.name, index)
                && singletable_core::__private::str_eq(y.name, index)
            {
                let pk_overlap = match (x.pk, y.pk) {
                    (Some(p), Some(q)) => sharded_keys_overlap(p.segs, x.shards, q.segs, y.shards),
                    // Local indexes share the table's partition key.
                    (None, None) => keys_overlap(a.pk.segs, b.pk.segs),
                    _ => false,
                };
                let reads = match (x.sk, y.sk) {
                    (Some(p), Some(q)) => sort_reads(p.segs, q.segs) || sort_reads(q.segs, p.segs),
                    (None, None) => true,
                    // Not one index's declarations: the entity derive
                    // reports that.
                    _ => false,
                };
                if pk_overlap && reads {
                    return if (x.shards > 1) != (y.shards > 1) {
                        IndexCollision::Shards {
                            first: x.shards > 1,
                        }
                    } else if x.sk.is_none() || y.sk.is_none() {
                        IndexCollision::NoSortKey
                    } else {
                        IndexCollision::SortKeys
                    };
                }
            }
            j += 1;
        }
        i += 1;
    }
    IndexCollision::None
}

/// Whether queries of one entity on index `index` (`gsi1`) can return items
/// of the other ([`index_collision`] is not [`IndexCollision::None`]).
///
/// ```
/// use singletable_runtime::design::index_queries_leak;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("O#<id>")]
/// # #[sk("O")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub status: String }
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("R#<id>")]
/// # #[sk("R")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "RETURN#<id>")]
/// # pub struct Return { pub id: String, pub status: String }
/// assert!(!index_queries_leak(&Order::SHAPE, &Return::SHAPE, "gsi1"));
/// ```
pub const fn index_queries_leak(a: &EntityShape, b: &EntityShape, index: &str) -> bool {
    !matches!(index_collision(a, b, index), IndexCollision::None)
}

#[cfg(test)]
mod tests;
