//! Every request is a `tracing` span by OpenTelemetry's conventions for
//! DynamoDB client spans, with singletable's own fields: captured here for
//! an access pattern, a transaction and a retried batch, on both backends.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Registry;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

use singletable::{Db, Error, Executor};

use crate::app;
use crate::batches::{Hostile, Plan, hostile};
use crate::model::*;
use crate::support::Layered;
use crate::support::fresh_db;

/// A closed span: its name and every field recorded on it.
#[derive(Debug, Clone)]
struct Captured {
    name: &'static str,
    fields: BTreeMap<String, String>,
}

impl Captured {
    fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }
}

#[derive(Default, Clone)]
struct Capture {
    open: Arc<Mutex<BTreeMap<u64, Captured>>>,
    closed: Arc<Mutex<Vec<Captured>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        // Only singletable's spans (the SDK has its own).
        if attrs.metadata().target() != "singletable" {
            return;
        }
        let mut span = Captured {
            name: attrs.metadata().name(),
            fields: BTreeMap::new(),
        };
        attrs.record(&mut Fields(&mut span.fields));
        self.open.lock().unwrap().insert(id.into_u64(), span);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(span) = self.open.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }
    fn on_close(&self, id: Id, _: Context<'_, S>) {
        if let Some(span) = self.open.lock().unwrap().remove(&id.into_u64()) {
            self.closed.lock().unwrap().push(span);
        }
    }
}

impl Capture {
    fn take(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.closed.lock().unwrap())
    }
}

fn conventions(s: &Captured, name: &str, operation: &str, table: &str) {
    assert_eq!(s.name, name, "{s:?}");
    assert_eq!(s.get("otel.kind"), Some("client"), "{s:?}");
    assert_eq!(s.get("db.system.name"), Some("aws.dynamodb"), "{s:?}");
    assert_eq!(s.get("db.operation.name"), Some(operation), "{s:?}");
    assert_eq!(s.get("aws.dynamodb.table_names"), Some(table), "{s:?}");
}

async fn spans<E: Executor>(db: &Db<Layered<E, Hostile>>, capture: &Capture, local: bool) {
    app::seed(db, &app::sample()).await.unwrap();
    capture.take();
    // Other tests run on other threads without a subscriber: a span
    // callsite they registered while this test's (thread-local) subscriber
    // was being set can keep tracing's cached "never" interest. Rebuilding
    // the cache makes every callsite ask the subscribers present now.
    tracing::callsite::rebuild_interest_cache();

    // An access pattern over several pages.
    let orders = OrderSummary::orders_of_user("u-ana")
        .limit(2)
        .all(db)
        .await
        .unwrap();
    let seen = capture.take();
    assert!(!seen.is_empty());
    for (i, s) in seen.iter().enumerate() {
        conventions(s, "DynamoDB.Query", "Query", db.table_name());
        assert_eq!(s.get("singletable.entity"), Some("OrderSummary"));
        assert_eq!(s.get("singletable.access_pattern"), Some("orders_of_user"));
        assert_eq!(
            s.get("singletable.page"),
            Some((i + 1).to_string().as_str())
        );
        assert_eq!(s.get("aws.dynamodb.consistent_read"), Some("false"));
        assert!(
            s.get("aws.dynamodb.index_name").is_none(),
            "the table: {s:?}"
        );
        assert!(s.get("aws.dynamodb.limit").is_some());
        assert!(s.get("error.type").is_none());
        if local {
            assert!(s.get("aws.dynamodb.scanned_count").is_some(), "{s:?}");
            assert!(s.get("aws.dynamodb.consumed_capacity").is_some(), "{s:?}");
        }
    }
    let counted: usize = seen
        .iter()
        .map(|s| {
            s.get("aws.dynamodb.count")
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, orders.len());
    // An index query names its index.
    Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await
        .unwrap();
    let seen = capture.take();
    assert_eq!(seen[0].get("aws.dynamodb.index_name"), Some("GSI1"));

    // A transaction, then a failed one.
    let data = app::sample();
    singletable::Transaction::new()
        .put(&data.users[0])
        .execute(db)
        .await
        .unwrap();
    let seen = capture.take();
    assert_eq!(seen.len(), 1);
    conventions(
        &seen[0],
        "DynamoDB.TransactWriteItems",
        "TransactWriteItems",
        db.table_name(),
    );
    assert!(seen[0].get("error.type").is_none());
    let failed = singletable::Transaction::new()
        .create(&data.users[0])
        .execute(db)
        .await;
    assert!(matches!(failed, Err(Error::TransactionCanceled { .. })));
    let seen = capture.take();
    assert_eq!(
        seen[0].get("error.type"),
        Some("TransactionCanceledException")
    );
    assert_eq!(seen[0].get("otel.status_code"), Some("ERROR"));

    // A batch throttled once: two attempts, the second a retry.
    tracing::callsite::rebuild_interest_cache();
    db.executor().layer.set(Plan {
        throttle: 1,
        ..Plan::default()
    });
    singletable::BatchWriter::new()
        .put(&data.users[1])
        .execute(db)
        .await
        .unwrap();
    let seen = capture.take();
    assert_eq!(seen.len(), 2, "{seen:?}");
    for (i, s) in seen.iter().enumerate() {
        conventions(
            s,
            "DynamoDB.BatchWriteItem",
            "BatchWriteItem",
            db.table_name(),
        );
        assert_eq!(
            s.get("singletable.batch.attempt"),
            Some((i + 1).to_string().as_str())
        );
        assert_eq!(s.get("singletable.retries"), Some(i.to_string().as_str()));
    }
    assert_eq!(seen[0].get("error.type"), Some("ThrottlingException"));
    assert!(seen[1].get("error.type").is_none());

    // A get and a put name their entity.
    db.get::<User>(User::key("u-ana").unwrap()).await.unwrap();
    let seen = capture.take();
    conventions(&seen[0], "DynamoDB.GetItem", "GetItem", db.table_name());
    assert_eq!(seen[0].get("singletable.entity"), Some("User"));
    assert_eq!(seen[0].get("aws.dynamodb.count"), Some("1"));
}

#[tokio::test]
async fn spans_follow_opentelemetry_conventions() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(Registry::default().with(capture.clone()));
    let embedded = Db::<singletable::Embedded>::in_memory::<AppTable>("AppTable").unwrap();
    let embedded = embedded.map_executor(hostile);
    spans(&embedded, &capture, false).await;
    let local = fresh_db::<AppTable>("spans").await.map_executor(hostile);
    spans(&local, &capture, true).await;
}
