//! Measured capacity, attributed to the access pattern or write path that
//! spent it: the recorder `Db::record_costs` attaches (re-exported by the
//! tools' cost report as `singletable::cost::{Recorder, Measured}`).
//!
//! Both backends bill through core's [`CapacityMeter`]: the embedded
//! engine as it reads and writes, the SDK executor with each response's
//! `ConsumedCapacity`. A [`Recorder`] attached to a meter listens to every
//! unit the meter adds ([`CapacityMeter::listen`]). Which request spent
//! it is known one level up: the typed handle (`Db`) runs each request
//! inside [`attributed`], which names the request's entity and access
//! pattern while its future is polled (a thread-local set and restored around each poll, so requests
//! running concurrently on other tasks are told apart). When the request
//! ends, `Db` adds the items it read and returned. One place for both
//! backends: the meter and the request boundary, no copy per executor.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use singletable_core::exec::CapacityMeter;

/// Set once a recorder is attached anywhere: until then a request pays
/// one relaxed load for attribution, nothing else.
static RECORDING: AtomicBool = AtomicBool::new(false);

/// Whether a recorder was ever attached in this process (until then,
/// requests skip the attribution entirely).
pub(crate) fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

thread_local! {
    /// What the request being polled on this thread has spent so far.
    static CURRENT: Cell<Option<Spent>> = const { Cell::new(None) };
}

/// What one request spent while it ran, and the recorder its meter
/// reports to (if any).
#[derive(Default)]
struct Spent {
    units: f64,
    recorder: Option<Arc<Paths>>,
}

type Paths = Mutex<BTreeMap<(String, String, &'static str), Measured>>;

fn lock(paths: &Paths) -> MutexGuard<'_, BTreeMap<(String, String, &'static str), Measured>> {
    paths.lock().unwrap_or_else(|e| e.into_inner())
}

/// Consumption measured on one path: the requests of one access pattern
/// (`Query` of `Order.by_status`), or one operation of one entity
/// (`PutItem` of `Order`, `GetItem` of `User`), with the capacity they
/// consumed as the backend reported it and the items they read and
/// returned.
///
/// ```
/// use singletable_runtime::cost::Measured;
///
/// let m = Measured { entity: "Order".into(), pattern: "by_status".into(), operation: "Query",
///     requests: 2, read_units: 3.0, write_units: 0.0, items_read: 40, items_returned: 4 };
/// assert_eq!(m.units_per_request(), 1.5);
/// assert_eq!(m.items_read_per_request(), 20.0);
/// // A filter that keeps 4 of 40 items: 90% of the read units buy dropped items.
/// assert_eq!(m.filter_waste(), 0.9);
/// ```
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Measured {
    /// The entity (empty for a request of none: a transaction, a request
    /// sent to the executor by hand).
    pub entity: String,
    /// The access pattern of a query; the operation's path otherwise
    /// (`get`, `put`, `update`, `delete`, `scan`, `batch`, `transaction`).
    pub pattern: String,
    /// DynamoDB's operation (`Query`, `GetItem`, `PutItem`, …).
    pub operation: &'static str,
    /// Requests sent (a query's pages count one each).
    pub requests: u64,
    /// Read units consumed.
    pub read_units: f64,
    /// Write units consumed (the indexes' included).
    pub write_units: f64,
    /// Items read (`ScannedCount`: before the filter).
    pub items_read: u64,
    /// Items returned (after the filter).
    pub items_returned: u64,
}

impl Measured {
    /// Read and write units per request.
    ///
    /// ```
    /// # use singletable_runtime::cost::Measured;
    /// let m = Measured { requests: 4, write_units: 6.0, ..Measured::default() };
    /// assert_eq!(m.units_per_request(), 1.5);
    /// ```
    pub fn units_per_request(&self) -> f64 {
        per(self.read_units + self.write_units, self.requests)
    }

    /// Items read per request (before the filter).
    ///
    /// ```
    /// # use singletable_runtime::cost::Measured;
    /// let m = Measured { requests: 2, items_read: 5, ..Measured::default() };
    /// assert_eq!(m.items_read_per_request(), 2.5);
    /// ```
    pub fn items_read_per_request(&self) -> f64 {
        per(self.items_read as f64, self.requests)
    }

    /// Items returned per request (after the filter).
    ///
    /// ```
    /// # use singletable_runtime::cost::Measured;
    /// let m = Measured { requests: 2, items_returned: 1, ..Measured::default() };
    /// assert_eq!(m.items_returned_per_request(), 0.5);
    /// ```
    pub fn items_returned_per_request(&self) -> f64 {
        per(self.items_returned as f64, self.requests)
    }

    /// The share (0 to 1) of what the path read that a filter dropped:
    /// the share of its read units spent on items nobody received.
    ///
    /// ```
    /// # use singletable_runtime::cost::Measured;
    /// let m = Measured { items_read: 10, items_returned: 10, ..Measured::default() };
    /// assert_eq!(m.filter_waste(), 0.0);
    /// ```
    pub fn filter_waste(&self) -> f64 {
        if self.items_read == 0 {
            return 0.0;
        }
        self.items_read.saturating_sub(self.items_returned) as f64 / self.items_read as f64
    }
}

/// Adds another path's requests, units and items (the entity, pattern
/// and operation stay).
///
/// ```
/// # use singletable_runtime::cost::Measured;
/// let mut a = Measured { requests: 1, read_units: 0.5, ..Measured::default() };
/// a += &Measured { requests: 2, read_units: 1.0, ..Measured::default() };
/// assert_eq!((a.requests, a.read_units), (3, 1.5));
/// ```
impl std::ops::AddAssign<&Measured> for Measured {
    fn add_assign(&mut self, m: &Measured) {
        self.requests += m.requests;
        self.read_units += m.read_units;
        self.write_units += m.write_units;
        self.items_read += m.items_read;
        self.items_returned += m.items_returned;
    }
}

fn per(x: f64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { x / n as f64 }
}

/// Records what requests consume, by access pattern and write path, while
/// a test suite or a load runs: attach it to a backend's meter (the typed
/// handle's `Db::record_costs`), run, then read [`Recorder::measured`].
/// Clones share their records.
///
/// ```
/// use singletable::{Db, Embedded, Entity, Table};
/// use singletable::cost::Recorder;
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("ORDER#<n>")]
/// #[access(orders)]
/// pub struct Order { pub id: String, pub n: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let recorder = Recorder::new();
/// db.record_costs(&recorder)?;
/// for n in 0..3 {
///     db.put(&Order { id: "ana".into(), n }).await?;
/// }
/// Order::orders("ana").all(&db).await?;
/// let query = recorder.path("Order", "orders").unwrap();
/// // Three small items, summed and rounded once: one 4 KB block, eventually consistent.
/// assert_eq!((query.requests, query.read_units, query.items_read), (1, 0.5, 3));
/// assert_eq!(recorder.path("Order", "put").unwrap().write_units, 3.0);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    paths: Arc<Paths>,
}

impl Recorder {
    /// A recorder with nothing recorded.
    ///
    /// ```
    /// # use singletable_runtime::cost::Recorder;
    /// assert!(Recorder::new().measured().is_empty());
    /// ```
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// Reports every unit `meter` adds from now on to this recorder (in
    /// place of any recorder attached before).
    ///
    /// ```
    /// use singletable_core::exec::CapacityMeter;
    /// use singletable_runtime::cost::Recorder;
    ///
    /// let (meter, recorder) = (CapacityMeter::default(), Recorder::new());
    /// recorder.attach(&meter);
    /// meter.add(1.0); // outside any request `Db` sent: unattributed
    /// assert_eq!(recorder.path("", "unattributed").unwrap().write_units, 1.0);
    /// ```
    pub fn attach(&self, meter: &CapacityMeter) {
        RECORDING.store(true, Ordering::Relaxed);
        let paths = self.paths.clone();
        meter.listen(move |units| attribute(&paths, units));
    }

    /// What was recorded, path by path (by entity, then pattern).
    ///
    /// ```
    /// # use singletable_runtime::cost::Recorder;
    /// let r = Recorder::new();
    /// assert_eq!(r.measured(), Vec::new());
    /// ```
    pub fn measured(&self) -> Vec<Measured> {
        lock(&self.paths).values().cloned().collect()
    }

    /// The path of `entity` named `pattern` (an access pattern's name, or
    /// `get`, `put`, `update`, `delete`, …), its operations summed.
    ///
    /// ```
    /// # use singletable_runtime::cost::Recorder;
    /// assert_eq!(Recorder::new().path("Order", "by_status"), None);
    /// ```
    pub fn path(&self, entity: &str, pattern: &str) -> Option<Measured> {
        let paths = lock(&self.paths);
        let mut found = paths
            .values()
            .filter(|m| m.entity == entity && m.pattern == pattern);
        let mut sum = found.next()?.clone();
        for m in found {
            sum += m;
        }
        Some(sum)
    }

    /// Forgets what was recorded (the meter stays attached).
    ///
    /// ```
    /// # use singletable_core::exec::CapacityMeter;
    /// # use singletable_runtime::cost::Recorder;
    /// let (meter, r) = (CapacityMeter::default(), Recorder::new());
    /// r.attach(&meter);
    /// meter.add(1.0);
    /// r.clear();
    /// assert!(r.measured().is_empty());
    /// ```
    pub fn clear(&self) {
        lock(&self.paths).clear();
    }
}

/// Whether `operation` consumes read units (otherwise write units).
fn reads(operation: &str) -> bool {
    matches!(
        operation,
        "GetItem" | "Query" | "Scan" | "BatchGetItem" | "TransactGetItems" | "SearchVectors"
    )
}

/// Hands `units` a meter added to the recorder of `paths`: to the
/// request being polled on this thread, or unattributed outside any.
fn attribute(paths: &Arc<Paths>, units: f64) {
    let outside = CURRENT.with(|c| match c.take() {
        Some(mut spent) => {
            spent.units += units;
            spent.recorder = Some(paths.clone());
            c.set(Some(spent));
            false
        }
        None => true,
    });
    if outside {
        let mut all = lock(paths);
        let m = all
            .entry((String::new(), "unattributed".into(), "unattributed"))
            .or_insert_with(|| Measured {
                pattern: "unattributed".into(),
                operation: "unattributed",
                ..Measured::default()
            });
        m.write_units += units;
    }
}

/// Who sent a request, for [`attributed`]: its operation, entity and path.
#[derive(Debug, Clone, Copy)]
pub struct Sender<'a> {
    /// DynamoDB's operation (`Query`, `PutItem`, …).
    pub operation: &'static str,
    /// The entity, if the request has one.
    pub entity: Option<&'a str>,
    /// The access pattern of a query; `None` names the path by the
    /// operation (`get`, `put`, …).
    pub pattern: Option<&'a str>,
}

/// What a response held: the items read (before the filter) and returned.
///
/// ```
/// use singletable_runtime::cost::Tally;
/// let c = Tally { read: 10, returned: 1 };
/// assert_eq!(c.read - c.returned, 9);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    /// Items read.
    pub read: u64,
    /// Items returned.
    pub returned: u64,
}

fn path_of(operation: &'static str) -> &'static str {
    match operation {
        "GetItem" => "get",
        "PutItem" => "put",
        "UpdateItem" => "update",
        "DeleteItem" => "delete",
        "Query" => "query",
        "Scan" => "scan",
        "BatchGetItem" | "BatchWriteItem" => "batch",
        "TransactGetItems" | "TransactWriteItems" => "transaction",
        other => other,
    }
}

/// Runs `request`, attributing the capacity its meter adds while it runs
/// to `sender` in the meter's recorder, with the items `counts` finds in
/// its response. With no recorder attached anywhere, it only runs it.
///
/// ```
/// use singletable_core::exec::CapacityMeter;
/// use singletable_runtime::cost::{attributed, Tally, Recorder, Sender};
///
/// let (meter, recorder) = (CapacityMeter::default(), Recorder::new());
/// recorder.attach(&meter);
/// let sender = Sender { operation: "Query", entity: Some("Order"), pattern: Some("by_status") };
/// let run = attributed(sender, async { meter.add(1.5); Ok::<_, ()>(7) }, |_| Tally { read: 30, returned: 3 });
/// assert_eq!(futures_util::FutureExt::now_or_never(run), Some(Ok(7)));
/// let m = recorder.path("Order", "by_status").unwrap();
/// assert_eq!((m.read_units, m.items_read, m.items_returned), (1.5, 30, 3));
/// ```
pub async fn attributed<T, E>(
    sender: Sender<'_>,
    request: impl Future<Output = Result<T, E>>,
    counts: impl FnOnce(&T) -> Tally,
) -> Result<T, E> {
    if !recording() {
        return request.await;
    }
    let mut request = std::pin::pin!(request);
    let mut spent = Some(Spent::default());
    let out = std::future::poll_fn(|cx| {
        let before = CURRENT.with(|c| c.replace(spent.take()));
        let poll = request.as_mut().poll(cx);
        spent = CURRENT.with(|c| c.replace(before));
        poll
    })
    .await;
    let Some(Spent {
        units,
        recorder: Some(paths),
    }) = spent
    else {
        return out;
    };
    let c = out.as_ref().map(counts).unwrap_or_default();
    // Items are counted on reads only: a write's returned values are not read.
    let entity = sender.entity.unwrap_or_default().to_owned();
    let pattern = sender
        .pattern
        .unwrap_or_else(|| path_of(sender.operation))
        .to_owned();
    let mut all = lock(&paths);
    let m = all
        .entry((entity.clone(), pattern.clone(), sender.operation))
        .or_insert_with(|| Measured {
            entity,
            pattern,
            operation: sender.operation,
            ..Measured::default()
        });
    m.requests += 1;
    if reads(sender.operation) {
        m.read_units += units;
        m.items_read += c.read;
        m.items_returned += c.returned;
    } else {
        m.write_units += units;
    }
    out
}
