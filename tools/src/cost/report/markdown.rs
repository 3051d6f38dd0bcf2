//! The report as Markdown, the dominant costs first.

use super::*;

impl CostReport {
    /// The report as a Markdown section (`## Cost`), the dominant costs
    /// first, for the design document or a pull request.
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Prices, Rate, Workload};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("CONFIG")]
    /// # #[sk("CONFIG")]
    /// # pub struct Config { pub v: u32 }
    /// let md = Workload::<App>::new()
    ///     .entity::<Config>(EntityLoad::sized(1, 100).updates(Rate::new(1.0, 1500.0)))
    ///     .report(&Prices::us_east_1(), 0.7)?
    ///     .markdown();
    /// assert!(md.starts_with("## Cost"));
    /// assert!(md.contains("### Hot partitions"));
    /// # Ok::<(), singletable::cost::CostError>(())
    /// ```
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let p = &self.prices;
        let _ = writeln!(out, "## Cost\n");
        let _ = writeln!(
            out,
            "Prices: {} ({}), read {}, {}.\n",
            p.region, p.currency, p.date, p.source
        );
        if let Some(d) = &self.dominant_pattern {
            let _ = writeln!(out, "Dominant path: `{d}`.");
        }
        if let Some(d) = &self.dominant_index {
            let _ = writeln!(out, "Dominant index: `{d}`.\n");
        }
        let _ = writeln!(out, "### Money per month\n");
        let _ = writeln!(
            out,
            "| mode | class | reads | writes | storage | total |\n|---|---|---|---|---|---|"
        );
        for m in &self.monthly {
            let _ = writeln!(
                out,
                "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
                m.mode, m.class, m.reads, m.writes, m.storage, m.total
            );
        }
        let _ = writeln!(out, "\n### Read paths\n");
        let _ = writeln!(
            out,
            "| access pattern | entity | index | read | items × bytes | units per request | avg units/s | peak units/s | filter waste units/s | on demand per month |\n|---|---|---|---|---|---|---|---|---|---|"
        );
        let mut reads: Vec<&PatternCost> = self.patterns.iter().collect();
        reads.sort_by(|a, b| b.monthly_on_demand.total_cmp(&a.monthly_on_demand));
        for r in reads {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} × {} B{} | {} | {} | {} | {} | {:.2} |",
                r.pattern,
                r.entity,
                r.index,
                r.read,
                r.items,
                r.item_bytes,
                if r.pages > 1 {
                    format!(", {} pages", r.pages)
                } else {
                    String::new()
                },
                num(r.units_per_request),
                num(r.avg_per_second),
                num(r.peak_per_second),
                num(r.filter_waste_per_second),
                r.monthly_on_demand
            );
        }
        let _ = writeln!(out, "\n### Write paths\n");
        let _ = writeln!(
            out,
            "| entity | write | item units | index units | unique units | units per request | avg units/s | peak units/s | on demand per month |\n|---|---|---|---|---|---|---|---|---|"
        );
        let mut ws: Vec<&WritePathCost> = self.writes.iter().collect();
        ws.sort_by(|a, b| b.monthly_on_demand.total_cmp(&a.monthly_on_demand));
        for w in ws {
            let _ = writeln!(
                out,
                "| {} | {}{} | {} | {} | {} | {} | {} | {} | {:.2} |",
                w.entity,
                w.kind,
                if w.transactional {
                    " (transaction)"
                } else {
                    ""
                },
                num(w.table_units),
                index_list(w),
                num(w.unique_units),
                num(w.units_per_request),
                num(w.avg_per_second),
                num(w.peak_per_second),
                w.monthly_on_demand
            );
        }
        let _ = writeln!(out, "\n### Table and indexes\n");
        let _ = writeln!(
            out,
            "| index | read units/s (avg / peak) | write units/s (avg / peak) | stored bytes | provisioned RCU / WCU | on demand per month |\n|---|---|---|---|---|---|"
        );
        for i in &self.indexes {
            let _ = writeln!(
                out,
                "| {} | {} / {} | {} / {} | {} | {} / {} | {:.2} |",
                i.index,
                num(i.read_avg),
                num(i.read_peak),
                num(i.write_avg),
                num(i.write_peak),
                i.storage_bytes,
                i.provisioned_rcu,
                i.provisioned_wcu,
                i.monthly_on_demand
            );
        }
        if !self.hot_partitions.is_empty() {
            let _ = writeln!(out, "\n### Hot partitions\n");
            let _ = writeln!(
                out,
                "| index | partition | values × shards | read units/s per partition | write units/s per partition | shards needed | warning |\n|---|---|---|---|---|---|---|"
            );
            for h in &self.hot_partitions {
                let _ = writeln!(
                    out,
                    "| {} | `{}` | {} × {} | {:.0} | {:.0} | {} | {} |",
                    h.index,
                    h.partition,
                    h.values,
                    h.shards,
                    h.read_per_partition,
                    h.write_per_partition,
                    h.shards_needed,
                    h.warning.as_deref().unwrap_or("")
                );
            }
        }
        self.path_sections(&mut out);
        let _ = writeln!(out);
        for n in &self.notes {
            let _ = writeln!(out, "- {n}");
        }
        out
    }
}
