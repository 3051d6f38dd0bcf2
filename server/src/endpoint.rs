//! The endpoint's state: one embedded store, shared by every clone, and
//! what DynamoDB reports about its tables beyond their schemas. The
//! operations (`ops`) read and change it; the service above them answers
//! requests with it.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use singletable_embedded::Embedded;

/// The endpoint: one [`Embedded`] store and what DynamoDB reports about
/// its tables beyond their schemas (creation times, billing mode, TTL).
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
    pub(crate) meta: Arc<Mutex<HashMap<String, Meta>>>,
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

    pub(crate) fn meta(&self) -> MutexGuard<'_, HashMap<String, Meta>> {
        self.meta.lock().unwrap_or_else(PoisonError::into_inner)
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
        }
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
