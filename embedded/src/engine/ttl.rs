//! TTL on the engine: the sweep that deletes expired items, run on
//! demand ([`Embedded::expire_items`]) or in the background
//! ([`Embedded::sweep_expired_every`]).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use crate::error::Error;
use crate::write;

use super::Embedded;

/// How many expired items one hold of the write lock deletes: a sweep of
/// a large table lets other writes in between.
const CHUNK: usize = 100;

impl Embedded {
    /// Deletes every expired item now, as DynamoDB's TTL process does, and
    /// returns how many it deleted: in every table with TTL enabled
    /// ([`Embedded::set_time_to_live`]), each item whose TTL attribute is
    /// a Number of epoch seconds before now, but not more than five years
    /// before (DynamoDB ignores older values and any other type).
    ///
    /// Each deletion is the engine's own delete: the item leaves the
    /// table's indexes, a stream gets a `REMOVE` record whose
    /// [`by_ttl`](singletable_core::stream::StreamRecord::by_ttl) is set
    /// (the endpoint reports it with the `userIdentity` of DynamoDB's TTL
    /// service, `dynamodb.amazonaws.com`), a durable store logs it; no
    /// capacity is charged. What a background sweep
    /// ([`Embedded::sweep_expired_every`]) runs each time; tests call it to
    /// see expiry happen at once.
    ///
    /// ```
    /// use singletable::embedded::{Embedded, KeyAttr, TableSchema};
    /// use singletable_core::entity::StreamView;
    /// use singletable_core::request::PutItem;
    /// use singletable::{AttributeValue, Executor, Item};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Embedded::new();
    /// let schema = TableSchema { pk: KeyAttr::s("PK"), sk: None, indexes: vec![], stream: Some(StreamView::OldImage), vectors: vec![] };
    /// db.create_table_with("Sessions", schema)?;
    /// db.set_time_to_live("Sessions", Some("expires"))?;
    /// let mut feed = db.subscribe("Sessions")?;
    /// let session = |id: &str, expires: &str| Item::from([
    ///     ("PK".into(), AttributeValue::S(id.into())),
    ///     ("expires".into(), AttributeValue::N(expires.into())),
    /// ]);
    /// let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    /// let (past, future) = ((now - 60).to_string(), (now + 3600).to_string());
    /// for item in [session("old", &past), session("new", &future)] {
    ///     db.put_item(PutItem { table: "Sessions".into(), item, condition: None, return_old: false, return_on_condition_failure: false }).await?;
    /// }
    /// assert_eq!(feed.drain().len(), 2); // the two puts
    /// assert_eq!(db.expire_items()?, 1);
    /// assert_eq!(db.item_count("Sessions"), Some(1));
    /// let records = feed.drain();
    /// assert!(records.len() == 1 && records[0].by_ttl);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn expire_items(&self) -> Result<usize, Error> {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let found: Vec<(String, Vec<Vec<u8>>)> = self
            .read()
            .tables
            .iter()
            .filter(|(_, t)| t.time_to_live.is_some())
            .map(|(name, t)| (name.clone(), t.expired_positions(now)))
            .filter(|(_, positions)| !positions.is_empty())
            .collect();
        let mut deleted = 0;
        for (table, positions) in found {
            for chunk in positions.chunks(CHUNK) {
                deleted += write::expire(&mut self.write(), &table, chunk, now)
                    .map_err(|e| e.into_error("ExpireItems"))?;
            }
        }
        Ok(deleted)
    }

    /// Runs [`Embedded::expire_items`] every `interval` on a background
    /// thread, until the store is dropped (every handle on it) or this is
    /// called again: a later call replaces the interval, and
    /// `Duration::ZERO` stops the sweep. No sweep runs until this is
    /// called (DynamoDB deletes expired items within a few days, and reads
    /// through `Db` already hide them); the endpoint's server starts one
    /// (`--ttl-sweep-interval`).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let db = singletable::Embedded::new();
    /// db.sweep_expired_every(Duration::from_secs(10));
    /// db.sweep_expired_every(Duration::ZERO); // stopped
    /// ```
    pub fn sweep_expired_every(&self, interval: Duration) {
        let generation = self.sweeper.fetch_add(1, Ordering::SeqCst) + 1;
        if interval.is_zero() {
            return;
        }
        let store = Arc::downgrade(&self.store);
        let (meter, log, sweeper) = (self.meter.clone(), self.log.clone(), self.sweeper.clone());
        let spawned = std::thread::Builder::new()
            .name("singletable-ttl".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(interval);
                    if sweeper.load(Ordering::SeqCst) != generation {
                        return;
                    }
                    let Some(store) = store.upgrade() else { return };
                    let db = Embedded {
                        store,
                        meter: meter.clone(),
                        log: log.clone(),
                        sweeper: sweeper.clone(),
                    };
                    if let Err(e) = db.expire_items() {
                        eprintln!("singletable: the TTL sweep failed: {e}");
                    }
                }
            });
        if let Err(e) = spawned {
            eprintln!("singletable: cannot start the TTL sweep: {e}");
        }
    }
}
