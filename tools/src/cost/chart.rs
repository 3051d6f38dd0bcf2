//! The report where people look: a section per path in the design
//! document, dominant first, and an SVG chart of the money per path, on
//! demand against provisioned.

use std::fmt::Write;

use singletable_runtime::Table;

use super::CostReport;
use super::report::{HOURS_PER_MONTH, index_list, num};

/// One path's money per month, Standard class.
pub(super) struct PathMoney {
    /// `Entity.pattern` or `Entity.create`, ….
    pub(super) name: String,
    pub(super) on_demand: f64,
    /// Its peak at the target utilisation, provisioned by the hour (not
    /// rounded up per table: the table's rounding is in `monthly`).
    pub(super) provisioned: f64,
    /// Index into `patterns` (reads) or `writes`.
    pub(super) row: Row,
}

#[derive(Clone, Copy)]
pub(super) enum Row {
    Read(usize),
    Write(usize),
}

impl CostReport {
    /// Every read and write path with its money per month, the dominant
    /// first (on demand).
    pub(super) fn paths(&self) -> Vec<PathMoney> {
        let std = &self.prices.standard;
        let hours = HOURS_PER_MONTH / self.utilisation;
        let mut out: Vec<PathMoney> = self
            .patterns
            .iter()
            .enumerate()
            .map(|(i, p)| PathMoney {
                name: format!("{}.{}", p.entity, p.pattern),
                on_demand: p.monthly_on_demand,
                provisioned: p.peak_per_second * hours * std.rcu_hour,
                row: Row::Read(i),
            })
            .chain(self.writes.iter().enumerate().map(|(i, w)| PathMoney {
                name: format!("{}.{}", w.entity, w.kind),
                on_demand: w.monthly_on_demand,
                provisioned: w.peak_per_second * hours * std.wcu_hour
                    + w.read_units * w.peak_per_second / w.units_per_request.max(f64::EPSILON)
                        * hours
                        * std.rcu_hour,
                row: Row::Write(i),
            }))
            .collect();
        out.sort_by(|a, b| {
            b.on_demand
                .total_cmp(&a.on_demand)
                .then_with(|| a.name.cmp(&b.name))
        });
        out
    }

    /// The money per month of every path as an SVG bar chart: on demand
    /// against provisioned (at the report's target utilisation, Standard
    /// class), the dominant path first. Each bar carries its path, mode
    /// and value as `data-` attributes.
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, PatternLoad, Prices, Rate, Workload};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("POST#<at>")]
    /// # #[access(posts)]
    /// # pub struct Post { pub id: String, pub at: u64 }
    /// let report = Workload::<App>::new()
    ///     .pattern::<PostPostsQuery>(PatternLoad::new(Rate::new(10.0, 40.0), 4))
    ///     .entity::<Post>(EntityLoad::sized(1000, 1000))
    ///     .report(&Prices::us_east_1(), 0.5)?;
    /// let svg = report.svg();
    /// assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    /// assert!(svg.contains(r#"data-path="Post.posts" data-mode="on-demand""#));
    /// # Ok::<(), singletable::cost::CostError>(())
    /// ```
    pub fn svg(&self) -> String {
        const WIDTH: f64 = 880.0;
        const LABEL: f64 = 260.0;
        const BARS: f64 = 480.0;
        const ROW: f64 = 46.0;
        const TOP: f64 = 64.0;
        let paths = self.paths();
        let max = paths
            .iter()
            .flat_map(|p| [p.on_demand, p.provisioned])
            .fold(0.0f64, f64::max);
        let scale = if max > 0.0 { BARS / max } else { 0.0 };
        let height = TOP + ROW * paths.len() as f64 + 16.0;
        let currency = escape(&self.prices.currency);
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(
            out,
            r#"<title>Money per month by path: {} ({}, {currency})</title>"#,
            escape(self.table),
            escape(&self.prices.region)
        );
        let _ = writeln!(
            out,
            r#"<text x="8" y="20" font-size="15" font-weight="bold">{}: money per month by path ({currency}, {})</text>"#,
            escape(self.table),
            escape(&self.prices.region)
        );
        let _ = writeln!(
            out,
            r##"<rect x="8" y="32" width="12" height="12" fill="#4e79a7"/><text x="26" y="42">on demand</text><rect x="110" y="32" width="12" height="12" fill="#f28e2b"/><text x="128" y="42">provisioned at {:.0}% utilisation</text>"##,
            self.utilisation * 100.0
        );
        for (i, p) in paths.iter().enumerate() {
            let y = TOP + ROW * i as f64;
            let name = escape(&p.name);
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" text-anchor="end">{name}</text>"#,
                LABEL - 8.0,
                y + 20.0
            );
            for (j, (mode, value, colour)) in [
                ("on-demand", p.on_demand, "#4e79a7"),
                ("provisioned", p.provisioned, "#f28e2b"),
            ]
            .into_iter()
            .enumerate()
            {
                let by = y + 4.0 + 18.0 * j as f64;
                let w = value * scale;
                let _ = writeln!(
                    out,
                    r#"<rect x="{LABEL}" y="{by}" width="{w:.2}" height="16" fill="{colour}" data-path="{name}" data-mode="{mode}" data-value="{value:.2}"/><text x="{:.2}" y="{}">{value:.2}</text>"#,
                    LABEL + w + 4.0,
                    by + 12.0
                );
            }
        }
        out.push_str("</svg>\n");
        out
    }

    /// The design document of `T` (`singletable::design::document`) with
    /// this report as its last section.
    ///
    /// ```
    /// use singletable::cost::{EntityLoad, Prices, Workload};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// let doc = Workload::<App>::new()
    ///     .entity::<User>(EntityLoad::sized(10, 100))
    ///     .report(&Prices::us_east_1(), 0.7)?
    ///     .document::<App>();
    /// assert!(doc.starts_with("# `App` single-table design"));
    /// assert!(doc.contains("\n## Cost\n"));
    /// # Ok::<(), singletable::cost::CostError>(())
    /// ```
    pub fn document<T: Table>(&self) -> String {
        let mut doc = crate::design::document::<T>();
        if !doc.ends_with('\n') {
            doc.push('\n');
        }
        doc.push('\n');
        doc.push_str(&self.markdown());
        doc
    }

    /// A `####` section per path, the dominant first.
    pub(super) fn path_sections(&self, out: &mut String) {
        let _ = writeln!(out, "\n### Paths, dominant first\n");
        for p in self.paths() {
            let _ = writeln!(
                out,
                "#### `{}`: {:.2} a month on demand, {:.2} provisioned\n",
                p.name, p.on_demand, p.provisioned
            );
            match p.row {
                Row::Read(i) => {
                    let r = &self.patterns[i];
                    let _ = writeln!(
                        out,
                        "- {} on `{}`, {}: {} items of {} bytes a page, {} returned; {} read units a request, {} a second on average, {} at peak.",
                        r.operation,
                        r.index,
                        r.read,
                        r.items,
                        r.item_bytes,
                        r.returned,
                        num(r.units_per_request),
                        num(r.avg_per_second),
                        num(r.peak_per_second)
                    );
                    if r.filter_waste_per_second > 0.0 {
                        let _ = writeln!(
                            out,
                            "- The filter drops {} of every {} items it pays for: {} read units a second buy nothing.",
                            r.items - r.returned,
                            r.items,
                            num(r.filter_waste_per_second)
                        );
                    }
                    if let Some(m) = &r.measured {
                        let _ = writeln!(
                            out,
                            "- Measured: {} requests (pages), {} read units a page against {} declared; {} items read and {} returned a page; {:.2} a month on demand at the declared rate.",
                            m.requests,
                            num(m.units_per_request()),
                            num(r.units_per_page),
                            num(m.items_read_per_request()),
                            num(m.items_returned_per_request()),
                            r.measured_monthly_on_demand.unwrap_or(0.0)
                        );
                    }
                }
                Row::Write(i) => {
                    let w = &self.writes[i];
                    let ix = index_list(w);
                    let _ = writeln!(
                        out,
                        "- {} units a request{}: the item {}, index entries {}, unique markers {}; {} a second on average, {} at peak.",
                        num(w.units_per_request),
                        if w.transactional {
                            " (a transaction)"
                        } else {
                            ""
                        },
                        num(w.table_units),
                        if ix.is_empty() { "none" } else { &ix },
                        num(w.unique_units),
                        num(w.avg_per_second),
                        num(w.peak_per_second)
                    );
                    if let Some(m) = &w.measured {
                        let _ = writeln!(
                            out,
                            "- Measured: {} requests, {} write units a request; {:.2} a month on demand at the declared rate.",
                            m.requests,
                            num(m.units_per_request()),
                            w.measured_monthly_on_demand.unwrap_or(0.0)
                        );
                    }
                }
            }
            let _ = writeln!(out);
        }
        if !self.deviations.is_empty() {
            let _ = writeln!(out, "### Declared against measured\n");
            for d in &self.deviations {
                let _ = writeln!(out, "- {d}");
            }
            let _ = writeln!(out);
        }
    }
}

/// Text for XML: `&`, `<`, `>` and quotes escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}
