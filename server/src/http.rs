//! The HTTP/1.1 server (hyper on tokio): every `POST` is one request of
//! DynamoDB's JSON protocol, served under [`Limits`]: a connection limit
//! with a 503 refusal, header, body and idle timeouts, a body limit
//! answered as DynamoDB answers it, and a bound on the body bytes all
//! requests hold together.

mod limits;
mod watch;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::timeout_at;

pub use limits::Limits;
use watch::{Activity, Watched};

use crate::endpoint::{Endpoint, request_id};
use crate::error::ApiError;

/// Refused connections answered at once; beyond them, a refused connection
/// is closed without an answer (it costs a socket while it is answered).
const REFUSALS: usize = 64;
/// How long a refused connection is kept to read its request and answer
/// it.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);
/// What is still read (and dropped) of an oversized body before its 413,
/// or of a refused connection's body before its 503, so that closing the
/// connection does not reset the answer before the client reads it.
const DRAIN: usize = 1024 * 1024;
/// The first wait after a failed accept.
const BACKOFF_START: Duration = Duration::from_millis(5);

/// What every connection of one server shares.
struct Shared {
    ep: Endpoint,
    limits: Limits,
    /// Body bytes in flight.
    bytes: Arc<Semaphore>,
}

/// Why a connection is closed without an answer to its request.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request's body did not arrive in time")
    }
}

impl std::error::Error for Closed {}

/// An HTTP response from one of the endpoint's answers: status, body,
/// request id, the body's CRC32, and whether the connection ends with it.
fn http_response(
    status: u16,
    body: Vec<u8>,
    request_id: &str,
    crc32: u32,
    close: bool,
) -> Response<Full<Bytes>> {
    let mut out = Response::new(Full::new(Bytes::from(body)));
    *out.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_REQUEST);
    let h = out.headers_mut();
    h.insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/x-amz-json-1.0"),
    );
    if let Ok(v) = request_id.parse() {
        h.insert("x-amzn-requestid", v);
    }
    h.insert("x-amz-crc32", crc32.into());
    if close {
        h.insert(
            "connection",
            hyper::header::HeaderValue::from_static("close"),
        );
    }
    out
}

/// A refusal made by the HTTP layer, with its status; the connection ends
/// with it.
fn refusal(ep: &Endpoint, status: u16, error: &ApiError) -> Response<Full<Bytes>> {
    let n = ep
        .requests
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let body = serde_json::to_vec(&error.body()).unwrap_or_else(|_| b"{}".to_vec());
    let crc = crate::crc32(&body);
    http_response(status, body, &request_id(n), crc, true)
}

/// DynamoDB's answer to a body over the limit: 413,
/// `RequestEntityTooLargeException`.
fn too_large(ep: &Endpoint, limit: usize, target: Option<&str>) -> Response<Full<Bytes>> {
    let op = target
        .and_then(|t| t.rsplit_once('.'))
        .map(|(_, op)| op)
        .filter(|op| !op.is_empty() && op.bytes().all(|b| b.is_ascii_alphanumeric()));
    let message = match op {
        Some(op) => format!("Request must be smaller than {limit} bytes for the {op} operation"),
        None => format!("Request must be smaller than {limit} bytes"),
    };
    refusal(
        ep,
        413,
        &ApiError::new(
            "com.amazon.coral.service#RequestEntityTooLargeException",
            message,
        ),
    )
}

/// The 503 of a server that has no room: too many connections, or too many
/// body bytes in flight. Every AWS SDK retries a 503 with backoff.
fn unavailable(ep: &Endpoint, message: String) -> Response<Full<Bytes>> {
    refusal(ep, 503, &ApiError::dynamodb("ServiceUnavailable", message))
}

/// A body read whole, or why not.
enum Read {
    Whole(Vec<u8>, Option<OwnedSemaphorePermit>),
    TooLarge,
}

/// Reads a body of unknown length frame by frame, reserving each frame's
/// bytes as it comes, up to `limit`.
async fn read_body(
    mut body: Incoming,
    limit: usize,
    bytes: &Arc<Semaphore>,
) -> Result<Read, hyper::Error> {
    let mut out = BytesMut::new();
    let mut held: Option<OwnedSemaphorePermit> = None;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        if out.len() + data.len() > limit {
            drop(held);
            drain(body, DRAIN).await;
            return Ok(Read::TooLarge);
        }
        // Fits in u32: `limit` does.
        let n = data.len() as u32;
        if n > 0 {
            let Ok(p) = bytes.clone().acquire_many_owned(n).await else {
                break;
            };
            match &mut held {
                Some(h) => h.merge(p),
                None => held = Some(p),
            }
        }
        out.extend_from_slice(&data);
    }
    Ok(Read::Whole(out.to_vec(), held))
}

/// Reads and drops up to `cap` more bytes of a refused body.
async fn drain(mut body: Incoming, cap: usize) {
    let until = tokio::time::Instant::now() + REFUSAL_LINGER;
    let mut seen = 0;
    while seen < cap {
        match timeout_at(until, body.frame()).await {
            Ok(Some(Ok(f))) => seen += f.data_ref().map_or(0, Bytes::len),
            _ => return,
        }
    }
}

async fn answer(
    shared: Arc<Shared>,
    activity: Arc<Activity>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Closed> {
    let _inside = activity.request();
    let ep = &shared.ep;
    let target = req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let limit = shared.limits.body_limit();
    let deadline = tokio::time::Instant::now() + shared.limits.body_read_timeout;
    let declared = req.body().size_hint().exact();
    if declared.is_some_and(|n| n > limit as u64) {
        return Ok(too_large(ep, limit, target.as_deref()));
    }
    let body = req.into_body();
    let read = match declared {
        Some(n) => {
            // Fits in u32: `limit` does.
            let permit = if n == 0 {
                None
            } else {
                match timeout_at(deadline, shared.bytes.clone().acquire_many_owned(n as u32)).await
                {
                    Ok(Ok(p)) => Some(p),
                    _ => {
                        let m = format!(
                            "The endpoint holds {} bytes of request bodies at most (--max-body-bytes-in-flight) and had no room for this one in time; try again.",
                            shared.limits.in_flight_limit()
                        );
                        return Ok(unavailable(ep, m));
                    }
                }
            };
            match timeout_at(deadline, body.collect()).await {
                Ok(Ok(b)) => Read::Whole(b.to_bytes().to_vec(), permit),
                _ => return Err(Closed),
            }
        }
        None => match timeout_at(deadline, read_body(body, limit, &shared.bytes)).await {
            Ok(Ok(r)) => r,
            _ => return Err(Closed),
        },
    };
    let (body, _permit) = match read {
        Read::Whole(b, p) => (b, p),
        Read::TooLarge => {
            return Ok(too_large(ep, limit, target.as_deref()));
        }
    };
    let r = ep.handle(target.as_deref(), &body).await;
    Ok(http_response(
        r.status,
        r.body,
        &r.request_id,
        r.crc32,
        false,
    ))
}

/// Whether an accept error is the failed connection's own (the listener
/// goes on at once) rather than the process's want of resources (it waits).
fn connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

/// Answers a connection over the limit: its request read (the body
/// dropped), the 503, then its end; all within [`REFUSAL_LINGER`], after
/// which a client that has not sent a whole request is closed unanswered.
/// (Answering before the request is read would make an HTTP client that
/// has not written it yet see an unexpected message, not the 503.)
async fn refuse(shared: Arc<Shared>, stream: TcpStream) {
    let service = service_fn(move |req: Request<Incoming>| {
        let shared = shared.clone();
        async move {
            let body = req.into_body();
            if body.size_hint().lower() <= DRAIN as u64 {
                drain(body, DRAIN).await;
            }
            let message = format!(
                "Too many connections: the endpoint serves {} at once (--max-connections); try again.",
                shared.limits.max_connections
            );
            Ok::<_, Closed>(unavailable(&shared.ep, message))
        }
    });
    let conn = http1::Builder::new()
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(REFUSAL_LINGER, conn).await;
}

pub(crate) async fn serve(
    ep: Endpoint,
    listener: TcpListener,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    tokio::pin!(shutdown);
    let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let refusals = Arc::new(Semaphore::new(REFUSALS));
    let shared = Arc::new(Shared {
        bytes: Arc::new(Semaphore::new(limits.in_flight_limit())),
        ep,
        limits,
    });
    let mut backoff = BACKOFF_START;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((s, _)) => {
                    backoff = BACKOFF_START;
                    s
                }
                Err(e) if connection_error(&e) => continue,
                // Out of file descriptors or memory: wait for connections
                // to close rather than spin on the error.
                Err(_) => {
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = &mut shutdown => return Ok(()),
                    }
                    backoff = (backoff * 2).min(shared.limits.accept_backoff_max.max(BACKOFF_START));
                    continue;
                }
            },
            () = &mut shutdown => return Ok(()),
        };
        let Ok(slot) = connections.clone().try_acquire_owned() else {
            if let Ok(r) = refusals.clone().try_acquire_owned() {
                let shared = shared.clone();
                tokio::spawn(async move {
                    refuse(shared, stream).await;
                    drop(r);
                });
            }
            continue;
        };
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        tokio::spawn(async move {
            let activity = Activity::new();
            let io = TokioIo::new(Watched {
                inner: stream,
                activity: activity.clone(),
            });
            let service = {
                let (shared, activity) = (shared.clone(), activity.clone());
                service_fn(move |req| answer(shared.clone(), activity.clone(), req))
            };
            let conn = http1::Builder::new().serve_connection(io, service);
            activity.watch(&shared.limits, conn).await;
            drop(slot);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_resource_errors_wait() {
        let emfile = io::Error::from_raw_os_error(24);
        assert!(!connection_error(&emfile));
        assert!(connection_error(&io::Error::from(
            io::ErrorKind::ConnectionAborted
        )));
    }

    #[tokio::test]
    async fn an_oversized_body_is_refused_as_dynamodb_refuses_it() {
        let ep = Endpoint::new();
        let message = |r: Response<Full<Bytes>>| async move {
            assert_eq!(r.status(), 413);
            assert_eq!(r.headers()["connection"], "close");
            let body = r.into_body().collect().await.unwrap().to_bytes();
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(
                v["__type"],
                "com.amazon.coral.service#RequestEntityTooLargeException"
            );
            v["message"].as_str().unwrap().to_owned()
        };
        assert_eq!(
            message(too_large(&ep, 10, Some("DynamoDB_20120810.PutItem"))).await,
            "Request must be smaller than 10 bytes for the PutItem operation"
        );
        assert_eq!(
            message(too_large(&ep, 10, Some("x. y"))).await,
            "Request must be smaller than 10 bytes"
        );
    }
}
