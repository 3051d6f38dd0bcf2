//! The HTTP/1.1 server (hyper on tokio): every `POST` is one request of
//! DynamoDB's JSON protocol.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::endpoint::Endpoint;

/// Request bodies above this are refused (DynamoDB's largest requests,
/// transactions and batches, stay far below it).
const MAX_BODY: usize = 32 * 1024 * 1024;

async fn answer(ep: Endpoint, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let target = req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => Bytes::from_static(b"\xff"),
    };
    let r = ep.handle(target.as_deref(), &body).await;
    let mut out = Response::new(Full::new(Bytes::from(r.body)));
    *out.status_mut() =
        hyper::StatusCode::from_u16(r.status).unwrap_or(hyper::StatusCode::BAD_REQUEST);
    let h = out.headers_mut();
    h.insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/x-amz-json-1.0"),
    );
    if let Ok(v) = r.request_id.parse() {
        h.insert("x-amzn-requestid", v);
    }
    h.insert("x-amz-crc32", r.crc32.into());
    Ok(out)
}

pub(crate) async fn serve(
    ep: Endpoint,
    listener: TcpListener,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(s) => s,
                // A connection that failed before it was accepted (reset,
                // too many files): the listener itself goes on.
                Err(_) => continue,
            },
            () = &mut shutdown => return Ok(()),
        };
        let _ = stream.set_nodelay(true);
        let ep = ep.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| answer(ep.clone(), req));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
