//! What the HTTP server allows a client: how long it may take to send a
//! request's headers and body, how long a kept-alive connection may sit
//! idle, how many connections may be open, how large a body may be and how
//! many body bytes all requests together may hold.

use std::time::Duration;

/// The limits under which [`Endpoint::serve_with`](crate::Endpoint::serve_with)
/// serves, so that no client, idle, slow or large, can starve the others.
/// [`Limits::default()`] holds the defaults the server binary uses; each
/// has a command-line flag of the same name (`--max-connections 1000`,
/// `--header-read-timeout 10`, durations in seconds, fractions allowed).
///
/// | field | default | flag |
/// |---|---|---|
/// | [`max_connections`](Limits::max_connections) | 1000 | `--max-connections` |
/// | [`header_read_timeout`](Limits::header_read_timeout) | 10 s | `--header-read-timeout` |
/// | [`idle_timeout`](Limits::idle_timeout) | 60 s | `--idle-timeout` |
/// | [`body_read_timeout`](Limits::body_read_timeout) | 30 s | `--body-read-timeout` |
/// | [`max_body_bytes`](Limits::max_body_bytes) | 16 MiB | `--max-body-bytes` |
/// | [`max_body_bytes_in_flight`](Limits::max_body_bytes_in_flight) | 256 MiB | `--max-body-bytes-in-flight` |
/// | [`accept_backoff_max`](Limits::accept_backoff_max) | 1 s | `--accept-backoff-max` |
///
/// ```
/// use std::time::Duration;
/// use singletable_server::Limits;
///
/// let limits = Limits::default()
///     .with_max_connections(64)
///     .with_idle_timeout(Duration::from_secs(5));
/// assert_eq!(limits.max_connections, 64);
/// assert_eq!(limits.header_read_timeout, Duration::from_secs(10));
/// assert_eq!(limits.max_body_bytes, 16 * 1024 * 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once. A connection beyond them is accepted,
    /// its request read (within 1 s) and answered HTTP 503 with a
    /// DynamoDB-shaped `ServiceUnavailable` error body and `Connection:
    /// close`, which every AWS SDK retries with backoff; then it is closed.
    /// At most 64 such refusals are under way at once; beyond them a
    /// connection is closed as soon as it is accepted.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers, counted
    /// from the connection's opening for its first request and from the
    /// request's first byte for the later ones. A client that has not
    /// sent them all by then (a slow-loris) is disconnected.
    pub header_read_timeout: Duration,
    /// How long a kept-alive connection may stay without a request (and
    /// without the response's bytes moving) before it is closed.
    pub idle_timeout: Duration,
    /// How long a client may take to send a request's body, counted from
    /// the end of its headers; a client that has not sent it all by then is
    /// disconnected. Waiting for room under
    /// [`max_body_bytes_in_flight`](Limits::max_body_bytes_in_flight) counts
    /// towards it too, and ends in a 503 `ServiceUnavailable`.
    pub body_read_timeout: Duration,
    /// The largest request body. A larger one is answered as DynamoDB
    /// answers it: HTTP 413, `RequestEntityTooLargeException`, "Request
    /// must be smaller than N bytes for the X operation". Refused on its
    /// `Content-Length` before any of it is read. Capped at
    /// [`max_body_bytes_in_flight`](Limits::max_body_bytes_in_flight) and
    /// at 4 GiB.
    pub max_body_bytes: usize,
    /// The body bytes all requests together may hold while they are read
    /// and answered: the server's memory for request bodies is bounded by
    /// this, whatever the number of connections (without it, the bound
    /// would be `max_body_bytes × max_connections`, 16 GiB with the
    /// defaults). A request reserves its `Content-Length` before reading
    /// its body (a chunked one, each chunk as it comes) and waits, within
    /// its body read timeout, for room.
    pub max_body_bytes_in_flight: usize,
    /// When accepting a connection fails for want of resources (`EMFILE`,
    /// `ENFILE`, `ENOBUFS`, `ENOMEM`), the server waits before it tries
    /// again: 5 ms, doubled at each failure up to this, back to 5 ms after
    /// a success. It never spins.
    pub accept_backoff_max: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: 1000,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_read_timeout: Duration::from_secs(30),
            max_body_bytes: 16 * 1024 * 1024,
            max_body_bytes_in_flight: 256 * 1024 * 1024,
            accept_backoff_max: Duration::from_secs(1),
        }
    }
}

impl Limits {
    /// Sets [`max_connections`](Limits::max_connections) (at least 1).
    ///
    /// ```
    /// assert_eq!(singletable_server::Limits::default().with_max_connections(0).max_connections, 1);
    /// ```
    pub fn with_max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Sets [`header_read_timeout`](Limits::header_read_timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// let l = singletable_server::Limits::default().with_header_read_timeout(Duration::from_secs(2));
    /// assert_eq!(l.header_read_timeout, Duration::from_secs(2));
    /// ```
    pub fn with_header_read_timeout(mut self, d: Duration) -> Self {
        self.header_read_timeout = d;
        self
    }

    /// Sets [`idle_timeout`](Limits::idle_timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// let l = singletable_server::Limits::default().with_idle_timeout(Duration::from_secs(5));
    /// assert_eq!(l.idle_timeout, Duration::from_secs(5));
    /// ```
    pub fn with_idle_timeout(mut self, d: Duration) -> Self {
        self.idle_timeout = d;
        self
    }

    /// Sets [`body_read_timeout`](Limits::body_read_timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// let l = singletable_server::Limits::default().with_body_read_timeout(Duration::from_secs(5));
    /// assert_eq!(l.body_read_timeout, Duration::from_secs(5));
    /// ```
    pub fn with_body_read_timeout(mut self, d: Duration) -> Self {
        self.body_read_timeout = d;
        self
    }

    /// Sets [`max_body_bytes`](Limits::max_body_bytes).
    ///
    /// ```
    /// let l = singletable_server::Limits::default().with_max_body_bytes(1 << 20);
    /// assert_eq!(l.max_body_bytes, 1 << 20);
    /// ```
    pub fn with_max_body_bytes(mut self, n: usize) -> Self {
        self.max_body_bytes = n;
        self
    }

    /// Sets [`max_body_bytes_in_flight`](Limits::max_body_bytes_in_flight).
    ///
    /// ```
    /// let l = singletable_server::Limits::default().with_max_body_bytes_in_flight(64 << 20);
    /// assert_eq!(l.max_body_bytes_in_flight, 64 << 20);
    /// ```
    pub fn with_max_body_bytes_in_flight(mut self, n: usize) -> Self {
        self.max_body_bytes_in_flight = n;
        self
    }

    /// Sets [`accept_backoff_max`](Limits::accept_backoff_max).
    ///
    /// ```
    /// use std::time::Duration;
    /// let l = singletable_server::Limits::default().with_accept_backoff_max(Duration::from_millis(200));
    /// assert_eq!(l.accept_backoff_max, Duration::from_millis(200));
    /// ```
    pub fn with_accept_backoff_max(mut self, d: Duration) -> Self {
        self.accept_backoff_max = d;
        self
    }

    /// The body limit actually applied: at most the bytes in flight, at
    /// most `u32::MAX` (a reservation's unit), at least 1.
    pub(crate) fn body_limit(&self) -> usize {
        self.max_body_bytes
            .min(self.in_flight_limit())
            .min(u32::MAX as usize)
            .max(1)
    }

    /// The bytes in flight actually applied (a semaphore's size).
    pub(crate) fn in_flight_limit(&self) -> usize {
        self.max_body_bytes_in_flight
            .clamp(1, tokio::sync::Semaphore::MAX_PERMITS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_limit_fits_the_bytes_in_flight() {
        let l = Limits::default()
            .with_max_body_bytes(100)
            .with_max_body_bytes_in_flight(10);
        assert_eq!(l.body_limit(), 10);
        assert_eq!(Limits::default().body_limit(), 16 * 1024 * 1024);
        assert_eq!(Limits::default().with_max_body_bytes(0).body_limit(), 1);
    }
}
