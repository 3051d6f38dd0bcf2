//! The endpoint's state: one embedded store, shared by every clone, and
//! what DynamoDB reports about its tables beyond their schemas. The
//! operations (`ops`) read and change it; the service above them answers
//! requests with it.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use singletable_embedded::Embedded;

/// The endpoint: one [`Embedded`] store and what DynamoDB reports about
/// its tables beyond their schemas (creation times, billing mode, TTL,
/// tags), which it keeps with each table in the store
/// ([`Embedded::annotate`]).
/// Cheap to clone; clones share the store.
///
/// ```
/// use singletable_server::{Embedded, Endpoint};
///
/// let store = Embedded::new();
/// let endpoint = Endpoint::with_store(store.clone());
/// assert!(endpoint.store().table_names().is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Endpoint {
    pub(crate) db: Embedded,
    /// Held while a table's [`Meta`] is read, changed and written back.
    pub(crate) meta: Arc<Mutex<()>>,
    pub(crate) requests: Arc<AtomicU64>,
    /// Requests that report consumed capacity run alone, the others
    /// together: their capacity is the difference of the engine's meters
    /// before and after, to which concurrent requests would add.
    pub(crate) metering: Arc<tokio::sync::RwLock<()>>,
}

impl Endpoint {
    /// An endpoint on an empty store.
    ///
    /// ```
    /// let endpoint = singletable_server::Endpoint::new();
    /// assert!(endpoint.store().table_names().is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// An endpoint on an existing store (one loaded from a snapshot, or
    /// shared with code that uses it through singletable's `Db`). See
    /// [`Endpoint`].
    pub fn with_store(db: Embedded) -> Self {
        Self {
            db,
            ..Self::default()
        }
    }

    /// The store the endpoint serves (to save a snapshot of it, say).
    ///
    /// ```
    /// let endpoint = singletable_server::Endpoint::new();
    /// let path = std::env::temp_dir().join("singletable-endpoint-doc.json");
    /// endpoint.store().save(&path)?;
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), singletable_core::Error>(())
    /// ```
    pub fn store(&self) -> &Embedded {
        &self.db
    }

    pub(crate) fn meta_lock(&self) -> MutexGuard<'_, ()> {
        self.meta.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the endpoint knows of `table` beyond its schema, kept with the
    /// table in the engine ([`Embedded::annotate`]), so snapshots and a
    /// data directory's log keep it. A table the store had before the
    /// endpoint saw it gets its entry now, so its creation time (and its
    /// stream's label) stays the same from one request to the next.
    pub(crate) fn meta_of(&self, table: &str) -> Meta {
        let _held = self.meta_lock();
        self.meta_held(table)
    }

    /// [`Endpoint::meta_of`] with the meta lock held.
    fn meta_held(&self, table: &str) -> Meta {
        if let Some(m) = self.db.annotation(table).as_deref().and_then(Meta::parse) {
            return m;
        }
        let m = Meta::now();
        // A table that is gone keeps nothing: the error is the answer's.
        let _ = self.db.annotate(table, m.text());
        m
    }

    /// Changes `table`'s [`Meta`] with `change`, read and written back
    /// under the meta lock.
    pub(crate) fn update_meta(&self, table: &str, change: impl FnOnce(&mut Meta)) {
        let _held = self.meta_lock();
        let mut m = self.meta_held(table);
        change(&mut m);
        let _ = self.db.annotate(table, m.text());
    }
}

/// What DescribeTable reports beyond the engine's schema.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    pub(crate) created: f64,
    pub(crate) billing: String,
    /// When the table last became PAY_PER_REQUEST
    /// (`BillingModeSummary.LastUpdateToPayPerRequestDateTime`).
    pub(crate) pay_per_request_since: f64,
    pub(crate) throughput: (i64, i64),
    /// When the table's current stream was enabled, if not with the table.
    pub(crate) stream_since: Option<f64>,
    /// `DeletionProtectionEnabled`: DeleteTable refuses while it is set.
    pub(crate) deletion_protection: bool,
    /// The table's tags (TagResource).
    pub(crate) tags: BTreeMap<String, String>,
}

/// Seconds since the epoch, as DynamoDB writes its timestamps.
pub(crate) fn now_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64 / 1000.0)
}

impl Meta {
    pub(crate) fn now() -> Self {
        let created = now_seconds();
        Self {
            created,
            billing: "PROVISIONED".into(),
            pay_per_request_since: created,
            throughput: (0, 0),
            stream_since: None,
            deletion_protection: false,
            tags: BTreeMap::new(),
        }
    }

    /// The annotation text the engine keeps: a JSON object.
    pub(crate) fn text(&self) -> String {
        serde_json::json!({
            "created": self.created,
            "billing": self.billing,
            "pay_per_request_since": self.pay_per_request_since,
            "throughput": [self.throughput.0, self.throughput.1],
            "stream_since": self.stream_since,
            "deletion_protection": self.deletion_protection,
            "tags": self.tags,
        })
        .to_string()
    }

    /// A meta from [`Meta::text`]'s text; `None` when it is not one.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let tp = v.get("throughput")?.as_array()?;
        Some(Self {
            created: v.get("created")?.as_f64()?,
            billing: v.get("billing")?.as_str()?.to_owned(),
            pay_per_request_since: v.get("pay_per_request_since")?.as_f64()?,
            throughput: (tp.first()?.as_i64()?, tp.get(1)?.as_i64()?),
            stream_since: v.get("stream_since").and_then(serde_json::Value::as_f64),
            deletion_protection: v.get("deletion_protection")?.as_bool()?,
            tags: v
                .get("tags")?
                .as_object()?
                .iter()
                .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect::<Option<_>>()?,
        })
    }
}

/// A request id in the UUID shape DynamoDB uses.
pub(crate) fn request_id(n: u64) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (t >> 32) as u32,
        (t >> 16) as u16,
        (t & 0xfff) as u16,
        (n >> 48) as u16 & 0xfff,
        n & 0xffff_ffff_ffff
    )
}
