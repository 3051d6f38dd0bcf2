//! A store on a data directory ([`Embedded::open`](crate::Embedded::open)):
//! a write-ahead log of every commit, written and synced before the write
//! is answered, with group commit, compacted into snapshots in the
//! background.
//!
//! The directory holds `snapshot-<gen>.bin` (the store in the binary
//! snapshot form, `snapshot::to_binary`: the tables' settings as JSON and
//! every item as the bytes the table stores, checksummed, so a restart
//! copies them back without decoding them; a `snapshot-<gen>.json` that an
//! earlier version wrote, the form of
//! [`Embedded::save`](crate::Embedded::save), is still read) and
//! `wal-<gen>.log`, `<gen>` twenty decimal digits. The store is the newest
//! snapshot (none: empty) with the logs of its generation and later
//! replayed on it, in order.
//!
//! A log file starts with the 8 bytes `STWAL\0\0\x01`; then records, each
//! `len: u32 LE`, `crc: u32 LE`, `len` bytes of payload (the changes of one
//! commit, see `redo`), where `crc` is the CRC32 of the length's 4 bytes
//! and the payload. Recovery reads records until the end, or until one is
//! torn (shorter than its header or its length says), fails its checksum,
//! or does not decode; there it cuts the file (truncates it to the last
//! whole record), says so on stderr, and drops later logs: the store is a
//! prefix of the commits, never a wrong item.
//!
//! One writer thread owns the log file. A commit appends its record to a
//! buffer under the store's write lock (so records are in commit order)
//! and waits ([`Embedded::flushed`](crate::Embedded::flushed)); the writer
//! takes the whole buffer, writes it and syncs it once (`fdatasync`) for
//! every commit in it, then wakes their waiters: concurrent writers share
//! one sync.
//!
//! Once the log of the current generation passes [`COMPACT_AFTER`] bytes,
//! a compaction thread starts a new generation (the appends that follow go
//! to a new log) and writes the store as it was at that point as the new
//! generation's snapshot: to a temporary file, synced, renamed, the
//! directory synced; then it removes the older snapshots and logs. Writers
//! wait for it only while the snapshot is made in memory (under the
//! store's read lock), not while it is written.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock, Weak};

use futures_channel::oneshot;

use crate::crc::crc32;
use crate::error::{Fail, Res};
use crate::redo::{self, Change};
use crate::snapshot;
use crate::store::Store;
use crate::table::TableData;
use crate::value::item_size;
use singletable_core::exec::CapacityMeter;

/// The first bytes of every log file: format name and version.
pub(crate) const MAGIC: &[u8; 8] = b"STWAL\0\0\x01";

/// The size a generation's log reaches before it is compacted.
pub(crate) const COMPACT_AFTER: u64 = 64 << 20;

fn snapshot_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("snapshot-{generation:020}.bin"))
}

fn log_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("wal-{generation:020}.log"))
}

/// The generation a file name in the data directory is of, with whether
/// it is a snapshot.
fn generation_of(name: &str) -> Option<(u64, bool)> {
    // `.json`: a snapshot an earlier version wrote, read as such.
    if let Some(n) = name
        .strip_prefix("snapshot-")
        .and_then(|n| n.strip_suffix(".bin").or_else(|| n.strip_suffix(".json")))
    {
        return n.parse().ok().map(|g| (g, true));
    }
    name.strip_prefix("wal-")
        .and_then(|n| n.strip_suffix(".log"))
        .and_then(|n| n.parse().ok())
        .map(|g| (g, false))
}

/// One record as the log stores it.
pub(crate) fn frame(payload: &[u8], out: &mut Vec<u8>) {
    let len = (payload.len() as u32).to_le_bytes();
    let mut both = Vec::with_capacity(4 + payload.len());
    both.extend_from_slice(&len);
    both.extend_from_slice(payload);
    out.extend_from_slice(&len);
    out.extend_from_slice(&crc32(&both).to_le_bytes());
    out.extend_from_slice(payload);
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    // Directories cannot be opened for syncing everywhere; where they can,
    // a file's creation, rename or removal is durable once this returns.
    match File::open(dir) {
        Ok(d) => d.sync_all().or(Ok(())),
        Err(_) => Ok(()),
    }
}

/// A new, empty log file of `generation`, durable with its name.
fn create_log(dir: &Path, generation: u64) -> io::Result<File> {
    let path = log_path(dir, generation);
    let mut f = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)?;
    f.write_all(MAGIC)?;
    f.sync_all()?;
    sync_dir(dir)?;
    Ok(f)
}

/// The write-ahead log of a durable store.
pub(crate) struct Log {
    state: Mutex<State>,
    /// Wakes the writer (records appended, a new generation) and the
    /// compaction (the writer took the new generation).
    wake: Condvar,
    dir: PathBuf,
}

struct State {
    /// Records appended and not yet taken by the writer.
    buf: Vec<u8>,
    /// Records of the previous generation, appended before a compaction
    /// started a new one and not yet written.
    old: Vec<u8>,
    /// The generation the writer opens once it has written `old`.
    rotate_to: Option<u64>,
    /// The generation appends go to.
    generation: u64,
    /// Records appended, and records written and synced.
    appended: u64,
    synced: u64,
    /// Commits waiting for their record to be synced.
    waiters: Vec<(u64, oneshot::Sender<Result<(), String>>)>,
    /// Why the log can no longer be written, once it cannot.
    failed: Option<String>,
    /// Bytes of the current generation's log.
    size: u64,
    compacting: bool,
}

impl Log {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends one commit's record (called under the store's write lock).
    pub(crate) fn append(&self, payload: &[u8]) {
        let mut st = self.lock();
        let before = st.buf.len();
        frame(payload, &mut st.buf);
        st.size += (st.buf.len() - before) as u64;
        st.appended += 1;
        drop(st);
        self.wake.notify_all();
    }

    /// Something that resolves once every record appended so far is
    /// synced (`None`: they are), or why the log cannot be written.
    pub(crate) fn waiter(&self) -> Result<Option<oneshot::Receiver<Result<(), String>>>, String> {
        let mut st = self.lock();
        if let Some(e) = &st.failed {
            return Err(e.clone());
        }
        if st.synced >= st.appended {
            return Ok(None);
        }
        let (tx, rx) = oneshot::channel();
        let upto = st.appended;
        st.waiters.push((upto, tx));
        Ok(Some(rx))
    }

    /// Starts a new generation (called under the store's read lock, so no
    /// record is appended meanwhile) and returns it.
    fn rotate(&self) -> u64 {
        let mut st = self.lock();
        // A generation the writer has not opened yet is waited for, so
        // that each generation's records are in its own log.
        while st.rotate_to.is_some() && st.failed.is_none() {
            st = self.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        let next = st.generation + 1;
        let buf = std::mem::take(&mut st.buf);
        st.old.extend_from_slice(&buf);
        st.rotate_to = Some(next);
        st.generation = next;
        st.size = MAGIC.len() as u64;
        drop(st);
        self.wake.notify_all();
        next
    }
}

/// A store recovered from `dir`, and its log, whose writer runs from now
/// on (`store` is the store's lock the compaction reads).
pub(crate) fn open(
    dir: &Path,
    meter: &Arc<CapacityMeter>,
) -> Result<(Store, Arc<Log>, File), String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("{}: {what}: {e}", dir.display());
    fs::create_dir_all(dir).map_err(|e| fail("cannot create", &e))?;
    let mut snapshots = Vec::new();
    let mut logs = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| fail("cannot read", &e))? {
        let entry = entry.map_err(|e| fail("cannot read", &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") {
            // A snapshot whose compaction did not finish.
            let _ = fs::remove_file(entry.path());
            continue;
        }
        match generation_of(&name) {
            Some((g, true)) => snapshots.push((g, entry.path())),
            Some((g, false)) => logs.push(g),
            None => {}
        }
    }
    snapshots.sort_unstable();
    logs.sort_unstable();
    let base = snapshots.last().map(|(g, _)| *g);
    let mut store = match snapshots.last() {
        Some((_, path)) => {
            let bytes = fs::read(path).map_err(|e| fail("cannot read snapshot", &e))?;
            let store = if bytes.starts_with(snapshot::BINARY_MAGIC) {
                snapshot::from_binary(&bytes, meter)
            } else {
                let doc: serde_json::Value = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                snapshot::from_json(&doc, meter)
            };
            store.map_err(|e| format!("{}: {e:?}", path.display()))?
        }
        None => Store::default(),
    };
    let base = base.unwrap_or(0);
    let mut generation = base;
    let mut size = MAGIC.len() as u64;
    let mut cut = false;
    for &g in logs.iter().filter(|&&g| g >= base) {
        let path = log_path(dir, g);
        if cut {
            eprintln!(
                "singletable: {}: removed: it follows a log that was cut",
                path.display()
            );
            fs::remove_file(&path).map_err(|e| fail("cannot remove", &e))?;
            continue;
        }
        let (kept, end) = replay(&path, &mut store, meter)?;
        generation = g;
        size = kept;
        cut = end.is_some();
        if let Some((records, len, why)) = end {
            eprintln!(
                "singletable: {}: cut at byte {kept} of {len} ({why}); the {records} whole records before it are kept",
                path.display()
            );
            let f = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| fail("cannot cut", &e))?;
            if kept < MAGIC.len() as u64 {
                drop(f);
                create_log(dir, g).map_err(|e| fail("cannot cut", &e))?;
                size = MAGIC.len() as u64;
            } else {
                f.set_len(kept).map_err(|e| fail("cannot cut", &e))?;
                f.sync_all().map_err(|e| fail("cannot cut", &e))?;
            }
        }
    }
    for (g, path) in &snapshots {
        if *g < base {
            let _ = fs::remove_file(path);
        }
    }
    for &g in &logs {
        if g < base {
            let _ = fs::remove_file(log_path(dir, g));
        }
    }
    let path = log_path(dir, generation);
    let file = if path.exists() {
        OpenOptions::new().append(true).open(&path)
    } else {
        create_log(dir, generation)
    }
    .map_err(|e| fail("cannot open the log", &e))?;
    store.make_durable();
    let log = Arc::new(Log {
        state: Mutex::new(State {
            buf: Vec::new(),
            old: Vec::new(),
            rotate_to: None,
            generation,
            appended: 0,
            synced: 0,
            waiters: Vec::new(),
            failed: None,
            size,
            compacting: false,
        }),
        wake: Condvar::new(),
        dir: dir.to_owned(),
    });
    Ok((store, log, file))
}

/// Applies the records of the log at `path` to `store`: the bytes of
/// whole records (with the header), and where it stopped early (whole
/// records read, file length, why) when the rest is torn or corrupt.
#[allow(clippy::type_complexity)]
fn replay(
    path: &Path,
    store: &mut Store,
    meter: &Arc<CapacityMeter>,
) -> Result<(u64, Option<(u64, u64, String)>), String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = bytes.len() as u64;
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        let why = if bytes.len() < MAGIC.len() && MAGIC.starts_with(&bytes) {
            "torn header".to_owned()
        } else {
            "not a singletable log".to_owned()
        };
        return Ok((0, Some((0, len, why))));
    }
    let mut at = MAGIC.len();
    let mut records = 0u64;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.len() < 8 {
            return Ok((at as u64, Some((records, len, "torn record header".into()))));
        }
        let n = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let crc = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        if rest.len() - 8 < n {
            let why = format!("torn record: {} of its {n} bytes", rest.len() - 8);
            return Ok((at as u64, Some((records, len, why))));
        }
        let mut both = Vec::with_capacity(4 + n);
        both.extend_from_slice(&rest[..4]);
        both.extend_from_slice(&rest[8..8 + n]);
        if crc32(&both) != crc {
            return Ok((at as u64, Some((records, len, "checksum mismatch".into()))));
        }
        let changes = match redo::decode(&rest[8..8 + n]) {
            Ok(c) => c,
            Err(e) => {
                let why = format!("record does not decode: {e:?}");
                return Ok((at as u64, Some((records, len, why))));
            }
        };
        if let Err(e) = apply(store, changes, meter) {
            // A whole record that does not apply was written by another
            // version or another store: the store is not what it was.
            return Err(format!(
                "{}: record {} at byte {at} does not apply: {e:?}",
                path.display(),
                records + 1
            ));
        }
        records += 1;
        at += 8 + n;
    }
    Ok((at as u64, None))
}

/// Runs the log's writer on its own thread: `file` is the current
/// generation's log, `store` what a compaction snapshots.
pub(crate) fn start(log: Arc<Log>, file: File, store: Weak<RwLock<Store>>) {
    let spawned = std::thread::Builder::new()
        .name("singletable-wal".into())
        .spawn(move || writer(&log, file, &store));
    if let Err(e) = spawned {
        eprintln!("singletable: cannot start the log writer: {e}");
    }
}

fn writer(log: &Arc<Log>, mut file: File, store: &Weak<RwLock<Store>>) {
    let mut st = log.lock();
    loop {
        if st.size > COMPACT_AFTER
            && !st.compacting
            && let Some(store) = store.upgrade()
        {
            {
                st.compacting = true;
                let log = log.clone();
                let spawned = std::thread::Builder::new()
                    .name("singletable-compact".into())
                    .spawn(move || {
                        if let Err(e) = compact(&log, &store) {
                            eprintln!("singletable: compaction failed (the log is kept): {e}");
                        }
                        log.lock().compacting = false;
                    });
                if spawned.is_err() {
                    st.compacting = false;
                }
            }
        }
        while st.buf.is_empty() && st.old.is_empty() && st.rotate_to.is_none() {
            if store.strong_count() == 0 {
                return;
            }
            st = log
                .wake
                .wait_timeout(st, std::time::Duration::from_secs(1))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let old = std::mem::take(&mut st.old);
        let rotate = st.rotate_to;
        let buf = std::mem::take(&mut st.buf);
        let upto = st.appended;
        drop(st);
        let written = (|| -> io::Result<()> {
            if !old.is_empty() {
                file.write_all(&old)?;
            }
            if let Some(g) = rotate {
                file.sync_data()?;
                file = create_log(&log.dir, g)?;
            }
            if !buf.is_empty() {
                file.write_all(&buf)?;
                file.sync_data()?;
            }
            Ok(())
        })();
        st = log.lock();
        if rotate.is_some() {
            st.rotate_to = None;
        }
        match written {
            Ok(()) => st.synced = upto,
            Err(e) => {
                let why = format!("the log cannot be written: {e}");
                eprintln!("singletable: {}: {why}", log.dir.display());
                st.failed = Some(why);
                st.rotate_to = None;
            }
        }
        let synced = st.synced;
        let failed = st.failed.clone();
        let waiters = std::mem::take(&mut st.waiters);
        for (upto, tx) in waiters {
            match &failed {
                Some(e) => {
                    let _ = tx.send(Err(e.clone()));
                }
                None if upto <= synced => {
                    let _ = tx.send(Ok(()));
                }
                None => st.waiters.push((upto, tx)),
            }
        }
        log.wake.notify_all();
        if st.failed.is_some() {
            return;
        }
    }
}

/// Writes the store as a new generation's snapshot and removes what it
/// replaces.
fn compact(log: &Log, store: &RwLock<Store>) -> Result<(), String> {
    let (generation, doc) = {
        let store = store.read().unwrap_or_else(PoisonError::into_inner);
        let generation = log.rotate();
        (generation, snapshot::to_binary(&store))
    };
    let text = doc.map_err(|e| format!("{e:?}"))?;
    let dir = &log.dir;
    let path = snapshot_path(dir, generation);
    let tmp = path.with_extension("bin.tmp");
    let written = (|| -> io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(&text)?;
        f.sync_all()?;
        fs::rename(&tmp, &path)?;
        sync_dir(dir)
    })();
    written.map_err(|e| format!("{}: {e}", path.display()))?;
    for entry in fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if generation_of(&name).is_some_and(|(g, _)| g < generation) {
            let _ = fs::remove_file(entry.path());
        }
    }
    sync_dir(dir).map_err(|e| e.to_string())
}

/// Compacts now (for [`Embedded::compact`](crate::Embedded::compact)).
pub(crate) fn compact_now(log: &Log, store: &RwLock<Store>) -> Result<(), String> {
    {
        let mut st = log.lock();
        while st.compacting {
            st = log
                .wake
                .wait_timeout(st, std::time::Duration::from_millis(10))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        st.compacting = true;
    }
    let out = compact(log, store);
    log.lock().compacting = false;
    out
}

/// Applies a record's changes to `store` (which keeps no changes while it
/// is being replayed).
fn apply(store: &mut Store, changes: Vec<(String, Change)>, meter: &Arc<CapacityMeter>) -> Res<()> {
    for (table, change) in changes {
        if let Change::Create(schema) = change {
            if store.tables.contains_key(&table) {
                return Err(redo::bad("a table created twice"));
            }
            schema.validate()?;
            store.insert_table(&table, TableData::new(schema, meter.clone()));
            continue;
        }
        if change == Change::Drop {
            store.remove_table(&table).ok_or_else(Fail::no_table)?;
            continue;
        }
        let t = store.table_mut(&table)?;
        match change {
            Change::Create(_) | Change::Drop => {}
            Change::Put(item, at) => {
                let item = crate::check::item(&t.schema, item)?;
                let pos = t.position(&item);
                t.replay_at = Some(at);
                let written = t.write_over(pos, &item, item_size(&item));
                t.replay_at = None;
                written?;
            }
            Change::Delete(key, at, by_ttl) => {
                let pos = t.position(&key);
                let old = t.item(&pos)?;
                if old.is_some() {
                    t.replay_at = Some(at);
                    t.by_ttl = by_ttl;
                    t.write(pos, None, old.as_ref());
                    t.replay_at = None;
                    t.by_ttl = false;
                }
            }
            Change::AddIndex(ix) => t.add_index(ix, crate::check::fits_index)?,
            Change::RemoveIndex(name) => {
                t.remove_index(&name);
            }
            Change::AddVector(ix) => t.add_vector_index(ix)?,
            Change::RemoveVector(name) => {
                t.remove_vector_index(&name);
            }
            Change::Stream(view) => t.enable_stream(view),
            Change::TimeToLive(attr) => t.set_time_to_live(attr),
            Change::Annotate(text) => t.annotate(text),
        }
    }
    Ok(())
}
