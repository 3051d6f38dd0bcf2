//! What a response reports, recorded on the request span the handle
//! opened (OpenTelemetry's `aws.dynamodb.*` fields; the runtime's
//! `trace` module names them); outside any span it does nothing.

pub(crate) fn record_response(scanned: Option<i64>, consumed: Option<f64>) {
    let span = tracing::Span::current();
    if let Some(s) = scanned {
        span.record("aws.dynamodb.scanned_count", s);
    }
    if let Some(c) = consumed {
        span.record("aws.dynamodb.consumed_capacity", c);
    }
}
