//! The cost report: the workload priced from the declarations.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use singletable_runtime::Table;
use singletable_runtime::capacity::Read;
use singletable_runtime::entity::Projection;
use singletable_runtime::shape::KeyShape;
use singletable_runtime::size::item_size;

use super::{CostError, DeclaredEntity, DeclaredPattern, Measured, Prices};
use crate::capacity::{read_units, write_units};
use crate::cost::ClassPrices;

mod markdown;
mod money;

use money::{hot_row, on_demand, provisioned, whole_up};
pub(super) use money::{index_list, per_month};

/// Hours in a billing month, as AWS's price examples count them.
pub(super) const HOURS_PER_MONTH: f64 = 730.0;
/// Seconds in that month.
pub(super) const SECONDS_PER_MONTH: f64 = HOURS_PER_MONTH * 3600.0;
/// Bytes of overhead DynamoDB bills per item stored, in the table and in
/// each index entry.
const ITEM_OVERHEAD: usize = 100;
/// The most one Query page reads.
const PAGE_BYTES: usize = 1024 * 1024;
/// What one partition serves per second.
const PARTITION_READ_UNITS: f64 = 3000.0;
/// What one partition serves per second.
const PARTITION_WRITE_UNITS: f64 = 1000.0;
const GIB: f64 = (1u64 << 30) as f64;

/// A workload's cost: every pattern and write path, every index, the money
/// per month under each capacity mode and table class, the dominant costs
/// and the hot partitions. Serializes to JSON; [`CostReport::markdown`]
/// renders it for the design document.
///
/// ```
/// use singletable::cost::{EntityLoad, PatternLoad, Prices, Rate, Workload};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("POST#<at>")]
/// #[access(posts)]
/// pub struct Post { pub id: String, pub at: u64 }
///
/// let report = Workload::<App>::new()
///     .pattern::<PostPostsQuery>(PatternLoad::new(Rate::new(10.0, 10.0), 4))
///     .entity::<Post>(EntityLoad::sized(1000, 1000))
///     .report(&Prices::us_east_1(), 1.0)?;
/// let json = serde_json::to_value(&report).unwrap();
/// assert_eq!(json["patterns"][0]["pattern"], "posts");
/// assert_eq!(report.dominant_pattern.as_deref(), Some("Post.posts"));
/// # Ok::<(), singletable::cost::CostError>(())
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct CostReport {
    /// The table's name.
    pub table: &'static str,
    /// The prices used (with their region, date and source).
    pub prices: Prices,
    /// The target utilisation of provisioned capacity.
    pub utilisation: f64,
    /// Read paths: every declared access pattern, and gets by key.
    pub patterns: Vec<PatternCost>,
    /// Write paths: creates, updates and deletes of every entity.
    pub writes: Vec<WritePathCost>,
    /// The table and each global index: capacity, storage and cost.
    pub indexes: Vec<IndexCost>,
    /// Money per month under each capacity mode and table class.
    pub monthly: Vec<Monthly>,
    /// The read or write path that costs most on demand (`Entity.pattern`,
    /// `Entity.create`, ...).
    pub dominant_pattern: Option<String>,
    /// The table or global index that costs most on demand.
    pub dominant_index: Option<String>,
    /// Partitions keyed on a constant or few-valued template.
    pub hot_partitions: Vec<HotPartition>,
    /// What the figures assume.
    pub notes: Vec<String>,
    /// Where the measurement departs from the declarations (a filter that
    /// drops most of what it reads, items larger than declared, a path
    /// measured but not declared); empty for a declared-only report.
    pub deviations: Vec<String>,
}

/// One read path: an access pattern (a Query) or gets by primary key.
///
/// ```
/// use singletable::cost::PatternCost;
/// fn waste(p: &PatternCost) -> f64 { p.filter_waste_per_second }
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct PatternCost {
    /// The entity.
    pub entity: &'static str,
    /// The pattern's name (`get` for gets by key).
    pub pattern: &'static str,
    /// `Query` or `GetItem`.
    pub operation: &'static str,
    /// Where it reads: `table`, or the index's DynamoDB name.
    pub index: String,
    /// `eventual`, `strong` or `transactional`.
    pub read: &'static str,
    /// Bytes of one item as the index holds it.
    pub item_bytes: usize,
    /// Items a page reads.
    pub items: u32,
    /// Items a page returns after the filter.
    pub returned: u32,
    /// Pages per request.
    pub pages: u32,
    /// Read units of one page (its items' sizes summed, rounded once).
    pub units_per_page: f64,
    /// Read units of one request.
    pub units_per_request: f64,
    /// Read units per second on average.
    pub avg_per_second: f64,
    /// Read units per second at peak.
    pub peak_per_second: f64,
    /// Read units per second (average) spent on items the filter drops.
    pub filter_waste_per_second: f64,
    /// Money per month on demand, Standard class.
    pub monthly_on_demand: f64,
    /// What a recorder measured on this pattern (`Workload::measured_report`):
    /// each page one request.
    pub measured: Option<Measured>,
    /// Money per month on demand at the declared rate with the measured
    /// units.
    pub measured_monthly_on_demand: Option<f64>,
    /// Read units per second (average, at the declared rate) that the
    /// measured filter spent on items it dropped.
    pub measured_filter_waste_per_second: Option<f64>,
}

/// One write path: creates, updates or deletes of an entity.
///
/// ```
/// use singletable::cost::WritePathCost;
/// fn amplification(w: &WritePathCost) -> f64 { w.units_per_request / w.table_units }
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct WritePathCost {
    /// The entity.
    pub entity: &'static str,
    /// `create`, `update` or `delete`.
    pub kind: &'static str,
    /// Whether it runs in a transaction (declared, or for unique markers).
    pub transactional: bool,
    /// Write units of the item itself (doubled in a transaction).
    pub table_units: f64,
    /// Write units of each index's entry, by the index's DynamoDB name
    /// (weighted by the share of items a sparse index holds).
    pub index_units: BTreeMap<String, f64>,
    /// Write units of unique markers.
    pub unique_units: f64,
    /// Read units spent before writing: deleting an item with unique
    /// values reads it first (strongly consistent GetItem) to find its
    /// markers.
    pub read_units: f64,
    /// All of them: the units of one request.
    pub units_per_request: f64,
    /// Write units per second on average.
    pub avg_per_second: f64,
    /// Write units per second at peak.
    pub peak_per_second: f64,
    /// Money per month on demand, Standard class.
    pub monthly_on_demand: f64,
    /// What a recorder measured on this path (`Workload::measured_report`).
    pub measured: Option<Measured>,
    /// Money per month on demand at the declared rate with the measured
    /// units.
    pub measured_monthly_on_demand: Option<f64>,
}

/// The table (with its local indexes) or one global index: what it serves,
/// stores and costs. Each global index has capacity of its own.
///
/// ```
/// use singletable::cost::IndexCost;
/// fn over(i: &IndexCost) -> bool { i.provisioned_wcu as f64 > 40_000.0 }
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct IndexCost {
    /// `table` or the index's DynamoDB name.
    pub index: String,
    /// Read units per second on average.
    pub read_avg: f64,
    /// Read units per second at peak.
    pub read_peak: f64,
    /// Write units per second on average.
    pub write_avg: f64,
    /// Write units per second at peak.
    pub write_peak: f64,
    /// Billed bytes stored (items plus 100 bytes each).
    pub storage_bytes: u64,
    /// Read capacity to provision: the peak at the target utilisation.
    pub provisioned_rcu: u64,
    /// Write capacity to provision.
    pub provisioned_wcu: u64,
    /// Money per month on demand, Standard class (reads, writes, storage).
    pub monthly_on_demand: f64,
}

/// Money per month under one capacity mode and table class.
///
/// ```
/// use singletable::cost::Monthly;
/// fn cheapest(m: &[Monthly]) -> Option<&Monthly> {
///     m.iter().min_by(|a, b| a.total.total_cmp(&b.total))
/// }
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct Monthly {
    /// `on-demand` or `provisioned`.
    pub mode: &'static str,
    /// `Standard` or `Standard-IA`.
    pub class: &'static str,
    /// Reads.
    pub reads: f64,
    /// Writes.
    pub writes: f64,
    /// Storage.
    pub storage: f64,
    /// The sum.
    pub total: f64,
}

/// A partition keyed on a constant or few-valued template, and its load at
/// peak against DynamoDB's per-partition limits (3,000 read units, 1,000
/// write units a second), assuming the load spreads evenly over the key's
/// values and write shards.
///
/// ```
/// use singletable::cost::HotPartition;
/// fn throttles(h: &HotPartition) -> bool { h.over }
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct HotPartition {
    /// `table` or the index's DynamoDB name.
    pub index: String,
    /// The partition key template (`FEED`, `STATUS#<status>`).
    pub partition: &'static str,
    /// The entities writing or reading it.
    pub entities: Vec<&'static str>,
    /// How many values the key takes.
    pub values: u64,
    /// Its declared write shards (1: none).
    pub shards: u16,
    /// Read units per second on one partition at peak.
    pub read_per_partition: f64,
    /// Write units per second on one partition at peak.
    pub write_per_partition: f64,
    /// Whether a partition is over a limit.
    pub over: bool,
    /// The write shards that keep every partition under the write limit
    /// (shards do not spread reads: a query reads every shard).
    pub shards_needed: u32,
    /// What to do, when something is over.
    pub warning: Option<String>,
}

/// A figure for people: at most four decimals, no trailing zeros.
pub(super) fn num(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

fn read_name(r: Read) -> &'static str {
    match r {
        Read::Eventual => "eventual",
        Read::Strong => "strong",
        Read::Transactional => "transactional",
    }
}

/// Where an index of the table is, by the entity-facing name (`gsi1`).
enum Place {
    Global(&'static singletable_runtime::GlobalIndex),
    Local(&'static singletable_runtime::LocalIndex),
}

fn place<T: Table>(name: &str) -> Option<Place> {
    let number: u8 = name.get(3..)?.parse().ok()?;
    match name.get(..3)? {
        "gsi" => T::GLOBAL_INDEXES
            .iter()
            .find(|g| g.number == number)
            .map(Place::Global),
        "lsi" => T::LOCAL_INDEXES
            .iter()
            .find(|l| l.number == number)
            .map(Place::Local),
        _ => None,
    }
}

impl Place {
    fn dynamo_name(&self) -> &'static str {
        match self {
            Place::Global(g) => g.name,
            Place::Local(l) => l.name,
        }
    }
    /// Whose capacity its entries use: a global index's own, or the table's.
    fn holder(&self) -> &'static str {
        match self {
            Place::Global(g) => g.name,
            Place::Local(_) => "table",
        }
    }
    fn projection(&self) -> Projection {
        match self {
            Place::Global(g) => g.projection,
            Place::Local(l) => l.projection,
        }
    }
}

/// The indexes entity `e` is written to (entity-facing names), with the
/// share of its items each holds; a note for each sparse one whose share
/// is not declared.
fn indexes_of<T: Table>(
    e: &DeclaredEntity,
    notes: &mut Vec<String>,
) -> Result<Vec<(&'static str, Place, f64)>, CostError> {
    let mut out = Vec::new();
    let names = e
        .shape
        .indexes
        .iter()
        .map(|i| (i.name, i.sparse.is_some()))
        .chain(e.shape.attribute_indexes.iter().map(|i| (i.name, false)));
    for (name, sparse) in names {
        let Some(p) = place::<T>(name) else { continue };
        let declared = e.load.present.iter().find(|(i, _)| i == name);
        if sparse && declared.is_none() {
            notes.push(format!(
                "`{}` in sparse `{name}`: no share declared, every item counted (an upper bound; `.in_index(\"{name}\", share)`).",
                e.shape.name
            ));
        }
        out.push((name, p, declared.map_or(1.0, |(_, s)| *s)));
    }
    let declared = (e.load.present.iter().map(|d| (d, "share in")))
        .chain(e.load.key_changes.iter().map(|d| (d, "key changes of")));
    for ((i, share), what) in declared {
        if !out.iter().any(|(n, _, _)| n == i) {
            return Err(CostError::UnknownIndex {
                entity: e.shape.name,
                index: i.clone(),
            });
        }
        share_ok(e.shape.name, &format!("{what} `{i}`"), *share)?;
    }
    Ok(out)
}

fn share_ok(entity: &'static str, what: &str, share: f64) -> Result<(), CostError> {
    if (0.0..=1.0).contains(&share) {
        Ok(())
    } else {
        Err(CostError::InvalidShare {
            entity,
            what: what.to_owned(),
            share,
        })
    }
}

/// Bytes of entity `e`'s entry in index `p`: the sample item projected,
/// or the whole item's size without a sample.
fn entry_bytes<T: Table>(e: &DeclaredEntity, p: &Place) -> usize {
    let Some(item) = &e.load.sample else {
        return e.load.bytes;
    };
    let projection = p.projection();
    if matches!(projection, Projection::All) {
        return item_size(item);
    }
    let mut keep: Vec<&str> = vec![T::PK];
    keep.extend(T::SK);
    match p {
        Place::Global(g) => keep.extend(g.key_attributes().map(|(n, _, _)| n)),
        Place::Local(l) => keep.push(l.sk),
    }
    if let Projection::Include(attrs) = projection {
        keep.extend(attrs.iter().copied());
    }
    item.iter()
        .filter(|(k, _)| keep.contains(&k.as_str()))
        .map(|(k, v)| {
            let mut one = singletable_runtime::Item::new();
            one.insert(k.clone(), v.clone());
            item_size(&one)
        })
        .sum()
}

/// Read units of a page of `items` items of `bytes` each: the sum rounded
/// once (the core's rule, through `query_units`' `read_units`), split into
/// pages of at most 1 MB as DynamoDB does.
fn page_units(items: u32, bytes: usize, read: Read) -> f64 {
    let items = items as usize;
    let per_page = (PAGE_BYTES / bytes.max(1)).max(1);
    if items <= per_page {
        return read_units(items * bytes, read);
    }
    let full = items / per_page;
    let rest = items % per_page;
    let mut units = full as f64 * read_units(per_page * bytes, read);
    if rest > 0 {
        units += read_units(rest * bytes, read);
    }
    units
}

#[derive(Default)]
struct Load {
    read_avg: f64,
    read_peak: f64,
    write_avg: f64,
    write_peak: f64,
    storage: u64,
}

#[derive(Default)]
struct Hot {
    entities: Vec<&'static str>,
    values: u64,
    shards: u16,
    read_peak: f64,
    write_peak: f64,
}

/// The entry of partition `key` on `index`, when the key takes few values.
fn hot_key<'h>(
    hot: &'h mut BTreeMap<(String, &'static str), Hot>,
    index: &str,
    key: &KeyShape,
    shards: u16,
    entity: &'static str,
) -> Option<&'h mut Hot> {
    let values = (key.cardinality)()?;
    let h = hot.entry((index.to_owned(), key.template)).or_default();
    if !h.entities.contains(&entity) {
        h.entities.push(entity);
    }
    h.values = values.max(1);
    h.shards = h.shards.max(shards.max(1));
    Some(h)
}

pub(super) fn build<T: Table>(
    patterns: &[DeclaredPattern],
    entities: &[DeclaredEntity],
    prices: &Prices,
    utilisation: f64,
) -> Result<CostReport, CostError> {
    if !(utilisation > 0.0 && utilisation <= 1.0) {
        return Err(CostError::InvalidUtilisation(utilisation));
    }
    let std = &prices.standard;
    let od_read = |units: f64| per_month(units, std.read_per_million);
    let od_write = |units: f64| per_month(units, std.write_per_million);
    let mut loads: BTreeMap<String, Load> = BTreeMap::new();
    loads.insert("table".into(), Load::default());
    for g in T::GLOBAL_INDEXES {
        loads.insert(g.name.into(), Load::default());
    }
    let mut hot: BTreeMap<(String, &'static str), Hot> = BTreeMap::new();
    let mut notes = vec![
        format!("A month is {HOURS_PER_MONTH} hours; on demand bills the average rate, provisioned capacity serves the peak at {:.0}% utilisation (at least 1 unit per table and global index).", utilisation * 100.0),
        "Storage counts 100 bytes of overhead per item and index entry; unique markers, the free tier, backups and streams are not counted.".into(),
    ];

    // Entities: their writes, gets and storage.
    let mut writes = Vec::new();
    let mut read_rows = Vec::new();
    for e in entities {
        let name = e.shape.name;
        let l = &e.load;
        for (what, r) in [
            ("creates", l.creates),
            ("updates", l.updates),
            ("deletes", l.deletes),
            ("gets", l.gets),
        ] {
            r.check(|| format!("entity `{name}`: {what}"))?;
        }
        let ixs = indexes_of::<T>(e, &mut notes)?;
        if l.sample.is_none()
            && ixs
                .iter()
                .any(|(_, p, _)| !matches!(p.projection(), Projection::All))
        {
            notes.push(format!("`{name}` is declared by size, not by a sample item: its entries in indexes that project less than ALL are counted at the whole item's size (an upper bound)."));
        }
        let table = loads.get_mut("table").expect("inserted");
        table.storage += l.count * (l.bytes + ITEM_OVERHEAD) as u64;
        for (_, p, share) in &ixs {
            let bytes = entry_bytes::<T>(e, p) + ITEM_OVERHEAD;
            loads.get_mut(p.holder()).expect("inserted").storage +=
                (l.count as f64 * share * bytes as f64).round() as u64;
        }
        // Create, update, delete: the item, each index's entries, markers.
        for (kind, rate) in [
            ("create", l.creates),
            ("update", l.updates),
            ("delete", l.deletes),
        ] {
            let markers = if kind == "update" { 0 } else { e.unique };
            let transactional = l.transactional || markers > 0;
            let factor = if transactional { 2.0 } else { 1.0 };
            let table_units = write_units(l.bytes, transactional, &[]);
            let mut index_units = BTreeMap::new();
            let mut by_holder: BTreeMap<&'static str, f64> = BTreeMap::new();
            for (ix, p, share) in &ixs {
                let entries = match kind {
                    "update" => {
                        let plain = if matches!(p.projection(), Projection::KeysOnly) {
                            0.0
                        } else {
                            1.0
                        };
                        let moved = l
                            .key_changes
                            .iter()
                            .find(|(i, _)| i == ix)
                            .map_or(0.0, |(_, s)| *s);
                        (1.0 - moved) * plain + moved * 2.0
                    }
                    _ => 1.0,
                };
                let units =
                    share * entries * write_units(entry_bytes::<T>(e, p), transactional, &[]);
                index_units.insert(p.dynamo_name().to_owned(), units);
                *by_holder.entry(p.holder()).or_default() += units;
                if let (Place::Global(_), Some(shape)) = (p, e.shape.index(ix))
                    && let Some(k) = shape.pk.as_ref()
                    && let Some(h) = hot_key(&mut hot, p.dynamo_name(), k, shape.shards, name)
                {
                    h.write_peak += rate.peak * units;
                }
            }
            let unique_units = markers as f64 * factor * write_units(0, false, &[]);
            let read_first = if kind == "delete" && markers > 0 {
                read_units(l.bytes, Read::Strong)
            } else {
                0.0
            };
            if read_first > 0.0 {
                let table = loads.get_mut("table").expect("inserted");
                table.read_avg += rate.avg * read_first;
                table.read_peak += rate.peak * read_first;
                if let Some(h) = hot_key(&mut hot, "table", &e.shape.pk, 1, name) {
                    h.read_peak += rate.peak * read_first;
                }
            }
            let units = table_units + index_units.values().sum::<f64>() + unique_units;
            *by_holder.entry("table").or_default() += table_units + unique_units;
            for (holder, u) in by_holder {
                let load = loads.get_mut(holder).expect("inserted");
                load.write_avg += rate.avg * u;
                load.write_peak += rate.peak * u;
            }
            if let Some(h) = hot_key(&mut hot, "table", &e.shape.pk, 1, name) {
                h.write_peak += rate.peak * table_units;
            }
            if rate.peak == 0.0 {
                continue;
            }
            writes.push(WritePathCost {
                entity: name,
                kind,
                transactional,
                table_units,
                index_units,
                unique_units,
                read_units: read_first,
                units_per_request: units,
                avg_per_second: rate.avg * units,
                peak_per_second: rate.peak * units,
                monthly_on_demand: od_write(rate.avg * units) + od_read(rate.avg * read_first),
                measured: None,
                measured_monthly_on_demand: None,
            });
        }
        if l.gets.peak > 0.0 {
            let units = read_units(l.bytes, l.get_read);
            let load = loads.get_mut("table").expect("inserted");
            load.read_avg += l.gets.avg * units;
            load.read_peak += l.gets.peak * units;
            if let Some(h) = hot_key(&mut hot, "table", &e.shape.pk, 1, name) {
                h.read_peak += l.gets.peak * units;
            }
            read_rows.push(PatternCost {
                entity: name,
                pattern: "get",
                operation: "GetItem",
                index: "table".into(),
                read: read_name(l.get_read),
                item_bytes: l.bytes,
                items: 1,
                returned: 1,
                pages: 1,
                units_per_page: units,
                units_per_request: units,
                avg_per_second: l.gets.avg * units,
                peak_per_second: l.gets.peak * units,
                filter_waste_per_second: 0.0,
                monthly_on_demand: od_read(l.gets.avg * units),
                measured: None,
                measured_monthly_on_demand: None,
                measured_filter_waste_per_second: None,
            });
        }
    }

    // Access patterns: Queries.
    for p in patterns {
        let pattern = p.name;
        let l = &p.load;
        l.rate.check(|| format!("access pattern `{pattern}`"))?;
        if l.pages == 0 || l.returned.is_some_and(|r| r > l.items) {
            return Err(CostError::InvalidPage { pattern });
        }
        let e = entities
            .iter()
            .find(|e| e.shape.name == p.entity.name)
            .ok_or(CostError::MissingEntity {
                pattern,
                entity: p.entity.name,
            })?;
        if l.read == Read::Transactional {
            return Err(CostError::TransactionalQuery { pattern });
        }
        let access = p.entity.access.iter().find(|a| a.name == pattern);
        let ix = access.and_then(|a| a.index);
        let placed = ix.and_then(place::<T>);
        let (index, holder, bytes) = match &placed {
            None => ("table".to_owned(), "table".to_owned(), e.load.bytes),
            Some(pl @ Place::Global(g)) => {
                if l.read == Read::Strong {
                    return Err(CostError::StrongReadOnGlobalIndex {
                        pattern,
                        index: g.name.to_owned(),
                    });
                }
                (
                    g.name.to_owned(),
                    g.name.to_owned(),
                    entry_bytes::<T>(e, pl),
                )
            }
            Some(pl @ Place::Local(lsi)) => (
                lsi.name.to_owned(),
                "table".to_owned(),
                entry_bytes::<T>(e, pl),
            ),
        };
        // The partition it reads: the table's, or the index's.
        let (key, shards) = match (ix, &placed) {
            (Some(n), Some(Place::Global(_))) => {
                let shape = p.entity.index(n);
                (shape.and_then(|s| s.pk), shape.map_or(1, |s| s.shards))
            }
            _ => (Some(p.entity.pk), 1),
        };
        // A sharded index's query fans out: one Query per shard, each with
        // the page's limit, so each may read a whole page.
        let per_page = shards as f64 * page_units(l.items, bytes, l.read);
        let units = per_page * l.pages as f64;
        let returned = l.returned.unwrap_or(l.items);
        let waste = if l.items == 0 {
            0.0
        } else {
            units * (l.items - returned) as f64 / l.items as f64
        };
        let load = loads.get_mut(&holder).expect("inserted");
        load.read_avg += l.rate.avg * units;
        load.read_peak += l.rate.peak * units;
        if let Some(k) = key
            && let Some(h) = hot_key(&mut hot, &holder, &k, shards, p.entity.name)
        {
            h.read_peak += l.rate.peak * units;
        }
        read_rows.push(PatternCost {
            entity: p.entity.name,
            pattern,
            operation: "Query",
            index,
            read: read_name(l.read),
            item_bytes: bytes,
            items: l.items,
            returned,
            pages: l.pages,
            units_per_page: per_page,
            units_per_request: units,
            avg_per_second: l.rate.avg * units,
            peak_per_second: l.rate.peak * units,
            filter_waste_per_second: l.rate.avg * waste,
            monthly_on_demand: od_read(l.rate.avg * units),
            measured: None,
            measured_monthly_on_demand: None,
            measured_filter_waste_per_second: None,
        });
    }
    // Patterns first as declared, gets after.
    read_rows.sort_by_key(|r| r.operation == "GetItem");

    // Capacity holders and money.
    let provision = |peak: f64| (whole_up(peak / utilisation) as u64).max(1);
    let mut indexes = Vec::new();
    for (name, l) in &loads {
        let storage = l.storage as f64 / GIB * std.storage_gb_month;
        indexes.push(IndexCost {
            index: name.clone(),
            read_avg: l.read_avg,
            read_peak: l.read_peak,
            write_avg: l.write_avg,
            write_peak: l.write_peak,
            storage_bytes: l.storage,
            provisioned_rcu: provision(l.read_peak),
            provisioned_wcu: provision(l.write_peak),
            monthly_on_demand: od_read(l.read_avg) + od_write(l.write_avg) + storage,
        });
    }
    // The table first, then the global indexes in declaration order.
    indexes.sort_by_key(|i| {
        T::GLOBAL_INDEXES
            .iter()
            .position(|g| g.name == i.index)
            .map_or(0, |p| p + 1)
    });
    let monthly = [
        ("Standard", &prices.standard),
        ("Standard-IA", &prices.standard_ia),
    ]
    .into_iter()
    .flat_map(|(class, c)| {
        [
            on_demand(&indexes, class, c),
            provisioned(&indexes, class, c),
        ]
    })
    .collect();

    let dominant_pattern = read_rows
        .iter()
        .map(|r| (format!("{}.{}", r.entity, r.pattern), r.monthly_on_demand))
        .chain(
            writes
                .iter()
                .map(|w| (format!("{}.{}", w.entity, w.kind), w.monthly_on_demand)),
        )
        .filter(|(_, m)| *m > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(n, _)| n);
    let dominant_index = indexes
        .iter()
        .filter(|i| i.monthly_on_demand > 0.0)
        .max_by(|a, b| a.monthly_on_demand.total_cmp(&b.monthly_on_demand))
        .map(|i| i.index.clone());

    let hot_partitions = hot
        .into_iter()
        .map(|((index, partition), h)| hot_row(index, partition, h))
        .collect();

    Ok(CostReport {
        table: T::NAME,
        prices: prices.clone(),
        utilisation,
        patterns: read_rows,
        writes,
        indexes,
        monthly,
        dominant_pattern,
        dominant_index,
        hot_partitions,
        notes,
        deviations: Vec::new(),
    })
}
