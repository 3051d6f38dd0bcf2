//! One connection's clock: what it is doing (waiting for a request's
//! headers, inside a request, idle between requests) since when, read by a
//! watchdog that closes it once it has waited longer than its
//! [`Limits`](super::Limits) allow.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

use super::Limits;

/// Waiting for a request's headers (from the connection's opening, or from
/// the first byte of a later request).
const HEAD: u8 = 0;
/// Inside a request: its body and the engine's answer (the body has its own
/// timeout; the engine's work has none).
const REQUEST: u8 = 1;
/// Between requests: the last response answered, no byte of the next one.
const IDLE: u8 = 2;

/// What one connection is doing, since when.
#[derive(Debug)]
pub(crate) struct Activity {
    start: Instant,
    phase: AtomicU8,
    /// Milliseconds after `start` the phase began.
    since: AtomicU64,
    /// Milliseconds after `start` a response's bytes last moved.
    written: AtomicU64,
    changed: Notify,
}

impl Activity {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            start: Instant::now(),
            phase: AtomicU8::new(HEAD),
            since: AtomicU64::new(0),
            written: AtomicU64::new(0),
            changed: Notify::new(),
        })
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn enter(&self, phase: u8) {
        self.since.store(self.now(), Ordering::Release);
        self.phase.store(phase, Ordering::Release);
        self.changed.notify_one();
    }

    /// A request's headers are complete: the service has it. The returned
    /// guard makes the connection idle again when the answer is made.
    pub(crate) fn request(self: &Arc<Self>) -> InRequest {
        self.enter(REQUEST);
        InRequest(self.clone())
    }

    /// Bytes arrived: an idle connection starts a request's headers.
    fn read(&self) {
        if self
            .phase
            .compare_exchange(IDLE, HEAD, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            self.since.store(self.now(), Ordering::Release);
            self.changed.notify_one();
        }
    }

    fn wrote(&self) {
        self.written.store(self.now(), Ordering::Release);
    }

    /// When the connection's current wait runs out, if it can.
    fn deadline(&self, limits: &Limits) -> Option<Instant> {
        let since = Duration::from_millis(self.since.load(Ordering::Acquire));
        let written = Duration::from_millis(self.written.load(Ordering::Acquire));
        match self.phase.load(Ordering::Acquire) {
            HEAD => Some(self.start + since + limits.header_read_timeout),
            IDLE => Some(self.start + since.max(written) + limits.idle_timeout),
            _ => None,
        }
    }

    /// Serves `conn` (a connection's future, over a [`Watched`] stream of
    /// this activity) until it ends or its wait runs out; then drops it,
    /// which closes the socket.
    pub(crate) async fn watch<F: Future>(&self, limits: &Limits, conn: F) {
        tokio::pin!(conn);
        loop {
            let changed = self.changed.notified();
            let deadline = self.deadline(limits);
            let expired = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d.into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = conn.as_mut() => return,
                () = changed => {}
                () = expired => {
                    if self.deadline(limits).is_some_and(|d| d <= Instant::now()) {
                        return;
                    }
                }
            }
        }
    }
}

/// Held while a request is inside the service.
pub(crate) struct InRequest(Arc<Activity>);

impl Drop for InRequest {
    fn drop(&mut self) {
        self.0.enter(IDLE);
    }
}

/// A stream that tells its [`Activity`] when bytes move.
pub(crate) struct Watched<S> {
    pub(crate) inner: S,
    pub(crate) activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read();
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_has_its_own_deadline() {
        let limits = Limits::default()
            .with_header_read_timeout(Duration::from_secs(1))
            .with_idle_timeout(Duration::from_secs(7));
        let a = Activity::new();
        let head = a.deadline(&limits).unwrap();
        assert!(head <= Instant::now() + Duration::from_secs(1));
        let inside = a.request();
        assert_eq!(a.deadline(&limits), None);
        drop(inside);
        let idle = a.deadline(&limits).unwrap();
        assert!(idle > Instant::now() + Duration::from_secs(6));
        a.read();
        let head = a.deadline(&limits).unwrap();
        assert!(head < Instant::now() + Duration::from_millis(1001));
    }
}
