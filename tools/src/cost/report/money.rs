//! Money and partitions: monthly prices of a report's units, and the
//! load per partition of a hot key with the shards it needs.

use super::*;

/// `GSI1 2, GSI2 0.2`: the write units of each index's entry.
pub(in crate::cost) fn index_list(w: &WritePathCost) -> String {
    let ix: Vec<String> = w
        .index_units
        .iter()
        .map(|(k, v)| format!("{k} {}", num(*v)))
        .collect();
    ix.join(", ")
}

/// Money per month on demand for `units` a second on average, at
/// `per_million` units.
pub(in crate::cost) fn per_month(units: f64, per_million: f64) -> f64 {
    units * SECONDS_PER_MONTH * per_million / 1e6
}

/// `x` rounded up to a whole number, a float's error aside: 2,016 / 0.8 is
/// 2,520 even when the division lands a hair above it.
pub(in crate::cost) fn whole_up(x: f64) -> f64 {
    let near = x.round();
    if (x - near).abs() <= 1e-9 * near.abs().max(1.0) {
        near
    } else {
        x.ceil()
    }
}

pub(in crate::cost) fn hot_row(index: String, partition: &'static str, h: Hot) -> HotPartition {
    let spread = (h.values * h.shards as u64) as f64;
    let read = h.read_peak / spread;
    let write = h.write_peak / spread;
    let (reads_over, writes_over) = (read > PARTITION_READ_UNITS, write > PARTITION_WRITE_UNITS);
    // Write shards spread writes; a query reads every shard, so they do
    // not spread reads.
    let shards_needed =
        (whole_up(h.write_peak / PARTITION_WRITE_UNITS / h.values as f64) as u32).max(1);
    let mut warnings = Vec::new();
    if index == "table" && (reads_over || writes_over) {
        warnings.push(format!(
            "the table's partition `{partition}` takes {write:.0} write and {read:.0} read units a second at peak; the table's key cannot be sharded with `shards = N`: put a many-valued part in the key"
        ));
    } else {
        if writes_over && h.shards > 1 {
            warnings.push(format!(
                "still over with shards = {}: each shard takes {write:.0} write units a second at peak; declare shards = {shards_needed}",
                h.shards
            ));
        } else if writes_over {
            warnings.push(format!(
                "{write:.0} write units a second at peak on one partition; declare shards = {shards_needed} on `{index}`"
            ));
        }
        if reads_over {
            warnings.push(format!(
                "{read:.0} read units a second at peak on each partition: write shards do not spread reads (a query reads every shard); cache them, or key them on more values"
            ));
        }
    }
    HotPartition {
        index,
        partition,
        entities: h.entities,
        values: h.values,
        shards: h.shards,
        read_per_partition: read,
        write_per_partition: write,
        over: reads_over || writes_over,
        shards_needed,
        warning: (!warnings.is_empty()).then(|| warnings.join("; ")),
    }
}

pub(in crate::cost) fn storage_cost(indexes: &[IndexCost], c: &ClassPrices) -> f64 {
    indexes.iter().map(|i| i.storage_bytes as f64).sum::<f64>() / GIB * c.storage_gb_month
}

pub(in crate::cost) fn on_demand(
    indexes: &[IndexCost],
    class: &'static str,
    c: &ClassPrices,
) -> Monthly {
    let reads: f64 =
        indexes.iter().map(|i| i.read_avg).sum::<f64>() * SECONDS_PER_MONTH * c.read_per_million
            / 1e6;
    let writes: f64 =
        indexes.iter().map(|i| i.write_avg).sum::<f64>() * SECONDS_PER_MONTH * c.write_per_million
            / 1e6;
    let storage = storage_cost(indexes, c);
    Monthly {
        mode: "on-demand",
        class,
        reads,
        writes,
        storage,
        total: reads + writes + storage,
    }
}

pub(in crate::cost) fn provisioned(
    indexes: &[IndexCost],
    class: &'static str,
    c: &ClassPrices,
) -> Monthly {
    let reads: f64 = indexes
        .iter()
        .map(|i| i.provisioned_rcu as f64)
        .sum::<f64>()
        * HOURS_PER_MONTH
        * c.rcu_hour;
    let writes: f64 = indexes
        .iter()
        .map(|i| i.provisioned_wcu as f64)
        .sum::<f64>()
        * HOURS_PER_MONTH
        * c.wcu_hour;
    let storage = storage_cost(indexes, c);
    Monthly {
        mode: "provisioned",
        class,
        reads,
        writes,
        storage,
        total: reads + writes + storage,
    }
}
