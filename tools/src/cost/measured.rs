//! Declared against measured: a recorder's measurement set beside each
//! path of the declared report, priced at the declared rates.

use super::report::{num, per_month};
use super::{CostReport, DeclaredEntity, DeclaredPattern, Measured};

/// A measurement departs from a declaration when they differ by more
/// than this share.
const TOLERANCE: f64 = 0.05;
/// A filter that drops at least this share of what it reads is reported.
const WASTEFUL: f64 = 0.5;

fn find(measured: &[Measured], entity: &str, pattern: &str) -> Option<Measured> {
    let mut found = measured
        .iter()
        .filter(|m| m.entity == entity && m.pattern == pattern);
    let mut sum: Measured = found.next()?.clone();
    for m in found {
        sum += m;
    }
    Some(sum)
}

fn differs(declared: f64, measured: f64) -> bool {
    (measured - declared).abs() > TOLERANCE * declared.max(f64::EPSILON)
}

/// Sets the measurement beside every path of `report` (built from
/// `patterns` and `entities`), and lists where they depart.
pub(super) fn compare(
    report: &mut CostReport,
    patterns: &[DeclaredPattern],
    entities: &[DeclaredEntity],
    measured: &[Measured],
) {
    let read_price = report.prices.standard.read_per_million;
    let write_price = report.prices.standard.write_per_million;
    let mut used: Vec<(String, String)> = Vec::new();
    let type_of = |shape: &'static str| -> &'static str {
        entities
            .iter()
            .find(|e| e.shape.name == shape)
            .map_or(shape, |e| e.entity_type)
    };
    for row in &mut report.patterns {
        let (entity_type, rate) = if row.operation == "GetItem" {
            let e = entities.iter().find(|e| e.shape.name == row.entity);
            (type_of(row.entity), e.map_or(0.0, |e| e.load.gets.avg))
        } else {
            let p = patterns
                .iter()
                .find(|p| p.entity.name == row.entity && p.name == row.pattern);
            (
                p.map_or(type_of(row.entity), |p| p.entity_type),
                p.map_or(0.0, |p| p.load.rate.avg),
            )
        };
        let path = if row.operation == "GetItem" {
            "get"
        } else {
            row.pattern
        };
        let Some(m) = find(measured, entity_type, path) else {
            continue;
        };
        used.push((m.entity.clone(), m.pattern.clone()));
        let name = format!("{}.{}", row.entity, row.pattern);
        // Each measured request is one page.
        let per_page = m.units_per_request();
        let per_request = per_page * row.pages as f64;
        let read = m.items_read_per_request();
        let returned = m.items_returned_per_request();
        let waste = m.filter_waste();
        row.measured_monthly_on_demand = Some(per_month(rate * per_request, read_price));
        row.measured_filter_waste_per_second = Some(rate * per_request * waste);
        if waste >= WASTEFUL {
            report.deviations.push(format!(
                "`{name}`: its filter drops {:.0}% of what it reads ({} of {} items a page returned): {} of its {} read units a request buy items nobody receives{}",
                waste * 100.0,
                num(returned),
                num(read),
                num(per_request * waste),
                num(per_request),
                if row.returned < row.items && differs(row.returned as f64 / row.items as f64, 1.0 - waste) {
                    format!(" (declared: {} of {})", row.returned, row.items)
                } else if row.returned == row.items {
                    " (declared without a filter)".to_owned()
                } else {
                    String::new()
                }
            ));
        }
        if differs(row.units_per_page, per_page) {
            let why = if !differs(row.items as f64, read) {
                let bigger = per_page > row.units_per_page;
                format!(
                    "the same {} items a page, so the items are {} than the declared {} bytes",
                    num(read),
                    if bigger { "larger" } else { "smaller" },
                    row.item_bytes
                )
            } else {
                format!(
                    "{} items read a page against {} declared",
                    num(read),
                    row.items
                )
            };
            report.deviations.push(format!(
                "`{name}`: {} read units a page measured against {} declared: {why}",
                num(per_page),
                num(row.units_per_page)
            ));
        }
        row.measured = Some(m);
    }
    for row in &mut report.writes {
        let path = match row.kind {
            "create" => "put",
            other => other,
        };
        let entity_type = type_of(row.entity);
        let Some(m) = find(measured, entity_type, path) else {
            if row.transactional {
                report.notes.push(format!(
                    "`{}.{}` runs in a transaction, which names no entity: its measurement is under `transaction`.",
                    row.entity, row.kind
                ));
            }
            continue;
        };
        used.push((m.entity.clone(), m.pattern.clone()));
        let rate = entities
            .iter()
            .find(|e| e.shape.name == row.entity)
            .map_or(0.0, |e| match row.kind {
                "create" => e.load.creates.avg,
                "update" => e.load.updates.avg,
                _ => e.load.deletes.avg,
            });
        let per_request = m.units_per_request();
        row.measured_monthly_on_demand = Some(per_month(rate * per_request, write_price));
        let declared = row.units_per_request - row.read_units;
        if differs(declared, per_request) {
            report.deviations.push(format!(
                "`{}.{}`: {} write units a request measured against {} declared: the items (or their index entries) are {} than declared",
                row.entity,
                row.kind,
                num(per_request),
                num(declared),
                if per_request > declared { "larger" } else { "smaller" }
            ));
        }
        row.measured = Some(m);
    }
    for m in measured {
        if used.iter().any(|(e, p)| *e == m.entity && *p == m.pattern) {
            continue;
        }
        let name = if m.entity.is_empty() {
            m.pattern.clone()
        } else {
            format!("{}.{}", m.entity, m.pattern)
        };
        report.deviations.push(format!(
            "`{name}` ({}): measured but not declared in the workload: {} requests, {} read and {} write units",
            m.operation,
            m.requests,
            num(m.read_units),
            num(m.write_units)
        ));
    }
}
