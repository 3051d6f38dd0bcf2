//! The design document generated from a table's declarations: the layout
//! and access-pattern tables (markdown; a pattern on a vector index is a
//! SearchVectors), the vector indexes, the collections, and the design
//! warnings. The shapes and the compile-time checks it reads are the
//! runtime's (`singletable::design` re-exports both).
//!
//! ```
//! use singletable::{Entity, StrEnum, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1, entities(User, Order))]
//! pub struct App;
//!
//! #[derive(StrEnum, Debug, Clone, Copy, PartialEq)]
//! pub enum Status { New, Shipped }
//!
//! #[derive(Entity)]
//! #[entity(table = App, rename_all = "camelCase")]
//! #[pk("USER#<user_id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub user_id: String }
//!
//! #[derive(Entity)]
//! #[entity(table = App, rename_all = "camelCase")]
//! #[pk("USER#<user_id>")]
//! #[sk("ORDER#<order_id>")]
//! #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
//! #[access(by_status, index = gsi1)]
//! pub struct Order { pub user_id: String, pub order_id: String, pub status: Status }
//!
//! let doc = singletable::design::document::<App>();
//! assert!(doc.starts_with("# `App` single-table design"));
//! assert!(doc.contains("| Order | `USER#<userId>` | `ORDER#<orderId>` | `STATUS#<status>` | `ORDER#<orderId>` |"));
//! // Two statuses only: every write of an order lands in one of two GSI1 partitions.
//! assert!(doc.contains("## Design warnings"));
//! ```

use std::fmt::Write;

mod held;

use singletable_runtime::Table;
use singletable_runtime::design::*;
use singletable_runtime::vector::VectorIndex;

// ---- the design document ----

fn cell(k: Option<&KeyShape>, suffix: &str) -> String {
    match k {
        Some(k) => format!("`{}`{suffix}", k.template),
        None => String::new(),
    }
}

/// The layout table: one row per entity, one column per key attribute of
/// the table and its indexes: the table docs/examples.md shows.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, entities(User, Order))]
/// # pub struct App;
/// # #[derive(singletable::StrEnum, Debug, Clone, Copy, PartialEq)]
/// # pub enum Status { New, Shipped }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("PROFILE")]
/// # #[access(user)]
/// # pub struct User { pub user_id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("ORDER#<order_id>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
/// # #[access(orders_of_user)]
/// # #[access(by_status, index = gsi1)]
/// # pub struct Order { pub user_id: String, pub order_id: String, pub status: Status }
/// let layout = singletable_tools::design::layout_table::<App>();
/// assert_eq!(layout.lines().next(), Some("| entityType | PK | SK | GSI1PK | GSI1SK |"));
/// assert!(layout.contains("| User | `USER#<userId>` | `PROFILE` |  |  |"));
/// ```
pub fn layout_table<T: Table>() -> String {
    let mut columns: Vec<String> = vec![T::PK.to_owned()];
    columns.extend(T::SK.map(str::to_owned));
    for g in T::GLOBAL_INDEXES {
        match g.attributes {
            // A multi-attribute key: one column per attribute.
            Some(k) => columns.extend(k.all().map(|a| a.name.to_owned())),
            None => {
                columns.push(g.pk.to_owned());
                columns.extend(g.sk.map(str::to_owned));
            }
        }
    }
    for l in T::LOCAL_INDEXES {
        columns.push(l.sk.to_owned());
    }
    // An attribute two keys share (an index on the table's sort key) is
    // one column: the entities write one template into it.
    let first: Vec<bool> = (0..columns.len())
        .map(|i| !columns[..i].contains(&columns[i]))
        .collect();
    let once = |cells: Vec<String>| -> Vec<String> {
        cells
            .into_iter()
            .zip(&first)
            .filter_map(|(c, keep)| keep.then_some(c))
            .collect()
    };
    let columns = once(columns);
    let mut out = String::new();
    // The first column holds each entity's name: the value of the
    // entity-type attribute when the items store one, else only a name
    // (untyped items are told apart by their keys), so the column is not
    // named after an attribute they lack.
    let first_column = if T::ENTITIES.iter().all(|e| e.writes_type) {
        T::ENTITY_TYPE
    } else {
        "entity"
    };
    let _ = writeln!(out, "| {first_column} | {} |", columns.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(columns.len()));
    for e in T::ENTITIES {
        let mut cells = vec![cell(Some(&e.pk), "")];
        if T::SK.is_some() {
            cells.push(cell(e.sk.as_ref(), ""));
        }
        for g in T::GLOBAL_INDEXES {
            if let Some(k) = g.attributes {
                // The entity's own attributes, typed, when it maps them.
                let mapped = e.attribute_index(&format!("gsi{}", g.number)).is_some();
                cells.extend(k.all().map(|a| {
                    if mapped {
                        format!("`<{}>` ({})", a.name, a.kind.as_str())
                    } else {
                        String::new()
                    }
                }));
                continue;
            }
            let ix = e.index(&format!("gsi{}", g.number));
            let suffix = ix
                .and_then(|i| i.sparse)
                .map(|s| format!(" (only when {s})"))
                .unwrap_or_default();
            let shards = match ix {
                Some(i) if i.shards > 1 => format!(" + `#<shard 0..{}>`", i.shards - 1),
                _ => String::new(),
            };
            cells.push(cell(
                ix.and_then(|i| i.pk.as_ref()),
                &format!("{shards}{suffix}"),
            ));
            if g.sk.is_some() {
                cells.push(cell(ix.and_then(|i| i.sk.as_ref()), ""));
            }
        }
        for l in T::LOCAL_INDEXES {
            let ix = e.index(&format!("lsi{}", l.number));
            cells.push(cell(ix.and_then(|i| i.sk.as_ref()), ""));
        }
        let _ = writeln!(out, "| {} | {} |", e.name, once(cells).join(" | "));
    }
    out
}

/// The access patterns: name, index, key condition, entity type returned.
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, entities(User, Order))]
/// # pub struct App;
/// # #[derive(singletable::StrEnum, Debug, Clone, Copy, PartialEq)]
/// # pub enum Status { New, Shipped }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("PROFILE")]
/// # #[access(user)]
/// # pub struct User { pub user_id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("ORDER#<order_id>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
/// # #[access(orders_of_user)]
/// # #[access(by_status, index = gsi1)]
/// # pub struct Order { pub user_id: String, pub order_id: String, pub status: Status }
/// let patterns = singletable_tools::design::access_table::<App>();
/// assert!(patterns.contains("| by_status | GSI1 | `GSI1PK = STATUS#<status>` and `begins_with(GSI1SK, ORDER#)`, sort `ORDER#<orderId>` | Order |"));
/// assert!(patterns.contains("| user | table | `PK = USER#<userId>` and `SK = PROFILE` | User |"));
/// ```
pub fn access_table<T: Table>() -> String {
    let mut out =
        String::from("| access pattern | index | key condition | returns |\n|---|---|---|---|\n");
    for e in T::ENTITIES {
        for a in e.access {
            if let Some(v) = a.index.and_then(vector_index::<T>) {
                let _ = writeln!(
                    out,
                    "| {} | {} (vector) | {} | {} |",
                    a.name,
                    v.name,
                    search_condition(v),
                    e.name
                );
                continue;
            }
            if let Some(ix) = a.index.and_then(|n| e.attribute_index(n)) {
                let number: u8 = ix.name[3..].parse().unwrap_or(0);
                let g = T::GLOBAL_INDEXES.iter().find(|g| g.number == number);
                let mut eq: Vec<String> = ix
                    .partition
                    .iter()
                    .map(|p| format!("`{p} = :{p}`"))
                    .collect();
                // Sorted by entity type first: the pattern reads its own.
                if ix.by_type {
                    eq.push(format!("`{} = {}`", T::ENTITY_TYPE, e.name));
                }
                let mut cond = eq.join(" and ");
                if !ix.sort.is_empty() {
                    let _ = write!(
                        cond,
                        ", sort `{}` (equality on a prefix, then one range condition)",
                        ix.sort.join("`, `")
                    );
                }
                let _ = writeln!(
                    out,
                    "| {} | {} | {cond} | {} |",
                    a.name,
                    g.map_or(ix.name, |g| g.name),
                    e.name
                );
                continue;
            }
            let (index, pk_attr, sk_attr, pk, sk) =
                match a.index.and_then(|n| e.index(n).map(|i| (n, i))) {
                    Some((n, ix)) => {
                        let number: u8 = n[3..].parse().unwrap_or(0);
                        if ix.global {
                            let g = T::GLOBAL_INDEXES.iter().find(|g| g.number == number);
                            (
                                g.map_or(n, |g| g.name),
                                g.map_or("?", |g| g.pk),
                                g.and_then(|g| g.sk),
                                ix.pk.as_ref().map_or("", |k| k.template),
                                ix.sk,
                            )
                        } else {
                            let l = T::LOCAL_INDEXES.iter().find(|l| l.number == number);
                            (
                                l.map_or(n, |l| l.name),
                                T::PK,
                                l.map(|l| l.sk),
                                e.pk.template,
                                ix.sk,
                            )
                        }
                    }
                    None => ("table", T::PK, T::SK, e.pk.template, e.sk),
                };
            let shards = a.index.and_then(|n| e.index(n)).map_or(1, |ix| ix.shards);
            let mut cond = if shards > 1 {
                format!("`{pk_attr} = {pk}#<shard>` on each of {shards} shards, merged")
            } else {
                format!("`{pk_attr} = {pk}`")
            };
            if let (Some(attr), Some(sk)) = (sk_attr, sk) {
                let lit: String = sk.template.split('<').next().unwrap_or("").to_owned();
                if !sk.template.contains('<') {
                    let _ = write!(cond, " and `{attr} = {}`", sk.template);
                } else if !lit.is_empty() {
                    let _ = write!(
                        cond,
                        " and `begins_with({attr}, {lit})`, sort `{}`",
                        sk.template
                    );
                } else {
                    let _ = write!(cond, ", sort `{}`", sk.template);
                }
            }
            let _ = writeln!(out, "| {} | {index} | {cond} | {} |", a.name, e.name);
        }
    }
    out
}

/// The vector index an access pattern names (`vector1`), if it names one.
fn vector_index<T: Table>(index: &str) -> Option<&'static VectorIndex> {
    let n: u8 = index.strip_prefix("vector")?.parse().ok()?;
    T::VECTOR_INDEXES.iter().find(|v| v.number == n)
}

/// What a SearchVectors on `v` gives: equality on every `HASH` attribute,
/// the nearest vectors, optional comparisons on `INLINE_FILTER` ones.
fn search_condition(v: &VectorIndex) -> String {
    let mut out = String::from("SearchVectors: ");
    for a in v.hash {
        let _ = write!(out, "`{0} = :{0}`, ", a.name);
    }
    let _ = write!(
        out,
        "top k nearest `{}` ({}, {} dimensions)",
        v.attribute,
        v.distance.name(),
        v.dimensions
    );
    if !v.filter.is_empty() {
        let names: Vec<String> = v.filter.iter().map(|a| format!("`{}`", a.name)).collect();
        let _ = write!(out, ", inline filters on {}", names.join(", "));
    }
    out
}

/// The vector indexes: attribute, dimensions, distance function, search
/// schema, projection, and the entities that write the vector attribute
/// (DynamoDB indexes every item holding it, whatever its type). Empty when
/// the table declares none.
///
/// ```
/// use singletable::{Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop", entities(Product), vector1(name = "ProductSearch", dimensions = 2, distance = cosine, hash(category = S), filter(price = N)))]
/// pub struct Shop;
///
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("DETAILS")]
/// #[vector1(vector = embedding, hash(category), filter(price))]
/// #[access(similar, index = vector1)]
/// pub struct Product { pub id: String, pub category: String, pub price: u32, pub embedding: Vec<f32> }
///
/// let table = singletable_tools::design::vector_table::<Shop>();
/// assert!(table.contains("| ProductSearch | `embedding` | 2 | COSINE | `category` (S) | `price` (N) | ALL | Product |"));
/// let patterns = singletable_tools::design::access_table::<Shop>();
/// assert!(patterns.contains("| similar | ProductSearch (vector) | SearchVectors: `category = :category`, top k nearest `embedding` (COSINE, 2 dimensions), inline filters on `price` | Product |"));
/// ```
pub fn vector_table<T: Table>() -> String {
    if T::VECTOR_INDEXES.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "| vector index | vector attribute | dimensions | distance | HASH | INLINE_FILTER | projection | written by |\n|---|---|---|---|---|---|---|---|\n",
    );
    let attrs = |list: &[singletable_runtime::KeyAttribute]| {
        list.iter()
            .map(|a| format!("`{}` ({})", a.name, a.kind.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for v in T::VECTOR_INDEXES {
        let projection = match v.projection {
            singletable_runtime::Projection::All => "ALL".to_owned(),
            singletable_runtime::Projection::KeysOnly => "KEYS_ONLY".to_owned(),
            singletable_runtime::Projection::Include(a) => format!("INCLUDE {}", a.join(", ")),
        };
        let writers: Vec<&str> = T::ENTITIES
            .iter()
            .filter(|e| e.attributes.contains(&v.attribute))
            .map(|e| e.name)
            .collect();
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} | {projection} | {} |",
            v.name,
            v.attribute,
            v.dimensions,
            v.distance.name(),
            attrs(v.hash),
            attrs(v.filter),
            writers.join(", ")
        );
    }
    out
}

/// Known anti-patterns the declarations show (from the reference documents):
/// hot partitions from low-cardinality index keys, local indexes' 10 GB
/// partition limit, sort keys of unpadded integers (which order as text).
///
/// ```
/// use singletable::{Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Docs", entities(Revision))]
/// pub struct Docs;
///
/// #[derive(Entity)]
/// #[entity(table = Docs)]
/// #[pk("DOC#<doc>")]
/// #[sk("v<number>")]
/// pub struct Revision { pub doc: String, #[attr(unpadded)] pub number: u32 }
///
/// let warnings = singletable::design::warnings::<Docs>();
/// assert_eq!(warnings.len(), 1);
/// assert!(warnings[0].starts_with("`Revision` in the table: sort key `v<number>` writes `<number>` unpadded"));
/// ```
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, entities(User, Order))]
/// # pub struct App;
/// # #[derive(singletable::StrEnum, Debug, Clone, Copy, PartialEq)]
/// # pub enum Status { New, Shipped }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("PROFILE")]
/// # #[access(user)]
/// # pub struct User { pub user_id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("ORDER#<order_id>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
/// # #[access(orders_of_user)]
/// # #[access(by_status, index = gsi1)]
/// # pub struct Order { pub user_id: String, pub order_id: String, pub status: Status }
/// let warnings = singletable::design::warnings::<App>();
/// assert_eq!(warnings.len(), 1);
/// assert!(warnings[0].contains("partition key `STATUS#<status>` takes at most 2 values"));
/// ```
pub fn warnings<T: Table>() -> Vec<String> {
    let mut out = Vec::new();
    for l in T::LOCAL_INDEXES {
        out.push(format!(
            "local index `{}`: every partition key value is limited to 10 GB (table items plus index entries), and local indexes can only be created with the table",
            l.name
        ));
    }
    for e in T::ENTITIES {
        // Sort keys with unpadded integers order as text.
        let sorts = e.sk.iter().map(|k| ("the table", k)).chain(
            e.indexes
                .iter()
                .filter_map(|i| i.sk.as_ref().map(|k| (i.name, k))),
        );
        for (place, sk) in sorts {
            if let Some(field) = sk.unpadded.first() {
                out.push(format!(
                    "`{}` in {}: sort key `{}` writes `<{field}>` unpadded, so its keys sort as text (`10` before `9`): ranges, `newest_first` and pages follow text order, not numeric order",
                    e.name,
                    if place == "the table" { place.to_owned() } else { format!("`{place}`") },
                    sk.template,
                ));
            }
        }
        for ix in e.indexes.iter().filter(|i| i.global) {
            let Some(pk) = &ix.pk else { continue };
            if ix.shards > 1 {
                continue;
            }
            if let Some(n) = (pk.cardinality)()
                && n <= 10
            {
                {
                    out.push(format!(
                        "`{}` in `{}`: partition key `{}` takes at most {n} value{}; every write of these items lands in {} partition{} (a hot partition, about 1,000 writes/s each). Shard it (`shards = N`) or add a high-cardinality field",
                        e.name,
                        ix.name,
                        pk.template,
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "one" } else { "so few" },
                        if n == 1 { "" } else { "s" },
                    ));
                }
            }
        }
    }
    out
}

/// The collections of `#[table(collections(...))]`: where each reads
/// (table or index, partition key, sort-key prefix) and its members.
///
/// ```
/// use singletable::{Collection, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop", collections(OrderDetails))]
/// pub struct Shop;
///
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// pub struct Order { pub id: String }
///
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("ORDER#<id>")]
/// #[sk("ITEM#<n>")]
/// pub struct Item { pub id: String, pub n: u8 }
///
/// #[derive(Collection)]
/// pub enum OrderDetails { Order(Order), Item(Item) }
///
/// let table = singletable_tools::design::collection_table::<Shop>();
/// assert!(table.contains("| OrderDetails | table | `PK = ORDER#<id>` | Order, Item |"));
/// ```
pub fn collection_table<T: Table>() -> String {
    let mut out =
        String::from("| collection | index | key condition | members |\n|---|---|---|---|\n");
    for c in T::COLLECTIONS {
        let (index, pk_attr, sk_attr) = match c.index {
            None => ("table", T::PK, T::SK),
            Some(n) => {
                let number: u8 = n.get(3..).and_then(|d| d.parse().ok()).unwrap_or(0);
                if n.starts_with("gsi") {
                    let g = T::GLOBAL_INDEXES.iter().find(|g| g.number == number);
                    (
                        g.map_or(n, |g| g.name),
                        g.map_or("?", |g| g.pk),
                        g.and_then(|g| g.sk),
                    )
                } else {
                    let l = T::LOCAL_INDEXES.iter().find(|l| l.number == number);
                    (l.map_or(n, |l| l.name), T::PK, l.map(|l| l.sk))
                }
            }
        };
        let mut cond = format!("`{pk_attr} = {}`", c.partition);
        if let (Some(prefix), Some(attr)) = (c.sk_prefix, sk_attr) {
            let _ = write!(cond, " and `begins_with({attr}, {prefix})`");
        }
        let _ = writeln!(
            out,
            "| {} | {index} | {cond} | {} |",
            c.name,
            c.members.join(", ")
        );
    }
    out
}

/// The updates of each entity that need the held item
/// (`.knowing(&item)`) or more fields set, and why: one row per index key
/// built from several fields outside the primary key
/// (read from each entity's [`EntityShape`]).
/// Empty when no entity has one.
///
/// ```
/// use singletable::{Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Tracker", gsi1, entities(Pull))]
/// pub struct Tracker;
///
/// #[derive(Entity)]
/// #[entity(table = Tracker, rename_all = "camelCase")]
/// #[pk("PR#<number>")]
/// #[sk("PR")]
/// #[gsi1(pk = "REPO#<repo>", sk = "PR#<status>#<created_at>")]
/// pub struct Pull { pub number: u32, pub repo: String, pub status: String, pub created_at: i64 }
///
/// let table = singletable_tools::design::held_item_table::<Tracker>();
/// assert!(table.contains("| `Pull` | `gsi1` | `PR#<status>#<createdAt>` |"));
/// assert!(table.contains("an update that sets `status` or `createdAt` but not both"));
/// ```
pub fn held_item_table<T: Table>() -> String {
    let mut rows = String::new();
    for e in T::ENTITIES {
        for need in held::held_item_needs(e) {
            let fields = need
                .fields
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>();
            let which = if need.every_update() {
                let others: Vec<String> = need
                    .fields
                    .iter()
                    .filter(|f| !need.stamped.contains(f))
                    .map(|f| format!("`{f}`"))
                    .collect();
                format!(
                    "every update: it stamps {} (`updated_at`), so the key is rebuilt and needs {} set in the update or the held item",
                    need.stamped
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    others.join(", ")
                )
            } else {
                let both = if fields.len() == 2 {
                    "both"
                } else {
                    "all of them"
                };
                let (last, first) = fields
                    .split_last()
                    .map_or((String::new(), &[][..]), |(l, f)| (l.clone(), f));
                format!(
                    "an update that sets {} or {last} but not {both}: the key is rebuilt from all of them",
                    first.join(", ")
                )
            };
            let _ = writeln!(
                rows,
                "| `{}` | `{}` | `{}` | {which} |",
                e.name, need.index, need.template
            );
        }
    }
    if rows.is_empty() {
        return rows;
    }
    format!(
        "| Entity | Index | Key template | Which updates (`.knowing(&item)` or set the rest) |\n|---|---|---|---|\n{rows}"
    )
}

/// The whole design document: layout, access patterns, vector indexes
/// ([`vector_table`]), collections, the
/// updates that need the held item ([`held_item_table`]),
/// warnings, in markdown (`cargo run --example shop -- --design` prints
/// the shop's).
///
/// ```
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, entities(User, Order))]
/// # pub struct App;
/// # #[derive(singletable::StrEnum, Debug, Clone, Copy, PartialEq)]
/// # pub enum Status { New, Shipped }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("PROFILE")]
/// # #[access(user)]
/// # pub struct User { pub user_id: String }
/// # #[derive(Entity)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("USER#<user_id>")]
/// # #[sk("ORDER#<order_id>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
/// # #[access(orders_of_user)]
/// # #[access(by_status, index = gsi1)]
/// # pub struct Order { pub user_id: String, pub order_id: String, pub status: Status }
/// let doc = singletable::design::document::<App>();
/// for section in ["## Layout", "## Access patterns", "## Design warnings"] {
///     assert!(doc.contains(section));
/// }
/// ```
pub fn document<T: Table>() -> String {
    let mut out = format!("# `{}` single-table design\n\n## Layout\n\n", T::NAME);
    out.push_str(&layout_table::<T>());
    out.push_str("\n## Access patterns\n\n");
    out.push_str(&access_table::<T>());
    let vectors = vector_table::<T>();
    if !vectors.is_empty() {
        out.push_str("\n## Vector indexes\n\n");
        out.push_str(&vectors);
    }
    if !T::COLLECTIONS.is_empty() {
        out.push_str("\n## Collections\n\n");
        out.push_str(&collection_table::<T>());
    }
    let held = held_item_table::<T>();
    if !held.is_empty() {
        out.push_str("\n## Updates that need the held item\n\n");
        out.push_str(&held);
    }
    let warnings = warnings::<T>();
    if !warnings.is_empty() {
        out.push_str("\n## Design warnings\n\n");
        for w in warnings {
            let _ = writeln!(out, "- {w}");
        }
    }
    out
}
