//! `cargo run --example shop -- --backfill [--items N]`: the sharded
//! orders-by-date index (`gsi3`) is declared a year after launch, so every
//! order written before lacks its keys; a backfill writes them, with a
//! progress bar, and the new access pattern then finds every order.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::StreamExt;
use singletable::backfill::Progress;
use singletable::{Db, Entity, Executor, Result};
use singletable_runtime::request::{BatchOp, BatchWrite};

use crate::model::*;

/// An order as the code before `gsi3` wrote it: every attribute but the
/// sharded index's keys.
fn old_order(i: usize) -> Result<singletable::Item> {
    let order = Order {
        order_id: format!("o-{i:07}"),
        user_id: format!("u-{}", i % 997),
        status: [OrderStatus::Pending, OrderStatus::Shipped][i % 2],
        total: (i % 500) as f64 + 0.5,
        created_at: format!(
            "2023-{:02}-{:02}T{:02}:{:02}:00.000000000Z",
            1 + i % 12,
            1 + i % 28,
            i % 24,
            i % 60
        ),
    };
    let mut item = order.to_item()?;
    item.remove("GSI3PK");
    item.remove("GSI3SK");
    Ok(item)
}

/// Writes `n` old orders, 25 per BatchWriteItem, 8 requests at a time.
async fn seed<E: Executor>(db: &Db<E>, n: usize) -> Result<()> {
    let items = (0..n).map(old_order).collect::<Result<Vec<_>>>()?;
    let batches: Vec<BatchWrite> = items
        .chunks(25)
        .map(|chunk| BatchWrite {
            table: db.table_name().to_owned(),
            ops: chunk.iter().cloned().map(BatchOp::Put).collect(),
        })
        .collect();
    let mut sent = futures::stream::iter(batches)
        .map(|b| db.executor().batch_write(b))
        .buffer_unordered(8);
    while let Some(left) = sent.next().await {
        let left = left?;
        if !left.is_empty() {
            db.executor()
                .batch_write(BatchWrite {
                    table: db.table_name().to_owned(),
                    ops: left,
                })
                .await?;
        }
    }
    Ok(())
}

/// One line of progress: a bar, the counts, the rate and the time left.
fn bar(p: &Progress) -> String {
    const WIDTH: usize = 30;
    let fraction = p.fraction().unwrap_or(0.0);
    let filled = ((fraction * WIDTH as f64).round() as usize).min(WIDTH);
    let total = p
        .estimated_total
        .map_or_else(|| "?".to_owned(), |t| t.to_string());
    let eta = match p.eta {
        Some(eta) => format!("{:.1}s left", eta.as_secs_f64()),
        None => "time left unknown".to_owned(),
    };
    format!(
        "\r[{}{}] {:>3.0}%  {}/{} scanned, {} rewritten  {:.0} items/s  {eta}   ",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        fraction * 100.0,
        p.counts.scanned,
        total,
        p.counts.rewritten,
        p.rate,
    )
}

pub async fn run<E: Executor>(db: &Db<E>, items: usize) -> Result<()> {
    let started = Instant::now();
    seed(db, items).await?;
    println!(
        "wrote {items} orders without gsi3 keys in {:.2}s",
        started.elapsed().as_secs_f64()
    );
    let before = Order::orders_by_date_sharded()
        .sk_between("2023-01-01", "2024-01-01")
        .all(db)
        .await?;
    println!("orders found by the sharded index before: {}", before.len());

    let dry = singletable::Backfill::<Order>::new()
        .dry_run()
        .run(db)
        .await?;
    println!(
        "dry run: {} of {} orders would be rewritten ({:.0} items/s)",
        dry.counts.rewritten,
        dry.counts.matched,
        dry.rate()
    );

    // Redraw at most ten times a second.
    let drawn = Mutex::new(Instant::now() - Duration::from_secs(1));
    let report = singletable::Backfill::<Order>::new()
        .segments(4)
        .on_progress(|p| {
            let mut last = drawn.lock().unwrap_or_else(|e| e.into_inner());
            if p.done || last.elapsed() >= Duration::from_millis(100) {
                *last = Instant::now();
                print!("{}", bar(p));
                let _ = std::io::stdout().flush();
            }
        })
        .run(db)
        .await?;
    println!();
    println!(
        "backfilled {} orders in {:.2}s: {:.0} items/s ({} unchanged, {} conflicts, {} failures, {} throttled)",
        report.counts.rewritten,
        report.elapsed.as_secs_f64(),
        report.rate(),
        report.counts.unchanged,
        report.counts.conflicts,
        report.failures.len(),
        report.counts.throttled,
    );
    let after = Order::orders_by_date_sharded()
        .sk_between("2023-01-01", "2024-01-01")
        .all(db)
        .await?;
    println!("orders found by the sharded index after: {}", after.len());
    Ok(())
}
