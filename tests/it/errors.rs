//! Errors callers can match: DynamoDB's error codes through `Error::code`
//! (the same on DynamoDB Local and embedded), typed refusals, a `Db` whose
//! `Debug` keeps the cursor secret, and a `put_versioned` that a cancelled
//! future leaves as it found it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use base64::Engine;
use singletable::{AttributeValue, Db, Embedded, Entity, Error, Item, Table};
use singletable_runtime::exec::BoxFuture;

use crate::support::{Layer, Layered, both, raw_item, raw_put};

#[derive(Table)]
#[table(name = "Errors")]
pub struct ErrorsTable;

#[derive(Entity, Debug, Clone)]
#[entity(table = ErrorsTable)]
#[pk("DOC#<id>")]
#[sk("DOC")]
pub struct Doc {
    pub id: String,
    #[attr(version)]
    pub version: u64,
}

#[derive(Entity, Debug, Clone)]
#[entity(table = ErrorsTable)]
#[pk("NOTE#<id>")]
#[sk("NOTE")]
pub struct Note {
    pub id: String,
}

/// The codes of the same failures on one backend.
async fn codes(db: &Db) -> Vec<Option<String>> {
    let code = |e: Error| e.code().map(str::to_owned);
    let ana = Note { id: "ana".into() };
    db.create(&ana).await.unwrap();
    let condition = db.create(&ana).await.unwrap_err();
    assert!(
        matches!(condition, Error::ConditionFailed { .. }),
        "{condition:?}"
    );
    let canceled = singletable::Transaction::new()
        .create(&Note { id: "bo".into() })
        .create(&ana)
        .execute(db)
        .await
        .unwrap_err();
    assert!(
        matches!(canceled, Error::TransactionCanceled { .. }),
        "{canceled:?}"
    );
    let missing = Db::with_executor(db.executor().clone(), "NoSuchTable-errors");
    let not_found = missing
        .get::<Note>(Note::key("ana").unwrap())
        .await
        .unwrap_err();
    // An item without its sort key.
    let keyless: Item = [("PK".to_string(), AttributeValue::S("NOTE#x".into()))].into();
    let validation = raw_put(db, keyless).await.unwrap_err();
    vec![
        code(condition),
        code(canceled),
        code(not_found),
        code(validation),
    ]
}

#[tokio::test]
async fn service_errors_keep_their_code() {
    let [local, embedded] = both::<ErrorsTable>("errors-codes").await;
    let expected: Vec<Option<String>> = [
        "ConditionalCheckFailedException",
        "TransactionCanceledException",
        "ResourceNotFoundException",
        "ValidationException",
    ]
    .iter()
    .map(|c| Some(c.to_string()))
    .collect();
    assert_eq!(codes(&local).await, expected, "DynamoDB Local");
    assert_eq!(codes(&embedded).await, expected, "embedded");
}

#[tokio::test]
async fn empty_transactions_are_refused() {
    let db = Db::<Embedded>::in_memory::<ErrorsTable>("Errors").unwrap();
    let write = singletable::Transaction::new().execute(&db).await;
    assert!(
        matches!(
            write,
            Err(Error::EmptyTransaction {
                operation: "TransactWriteItems"
            })
        ),
        "{write:?}"
    );
    let read = singletable::ReadTransaction::new().execute(&db).await;
    assert!(
        matches!(
            read,
            Err(Error::EmptyTransaction {
                operation: "TransactGetItems"
            })
        ),
        "{read:?}"
    );
    let unversioned = db.put_versioned(&mut Note { id: "n".into() }).await;
    assert!(
        matches!(unversioned, Err(Error::NotVersioned { entity: "Note" })),
        "{unversioned:?}"
    );
}

#[test]
fn db_debug_shows_no_secret() {
    let secret = b"cursor-secret-0123456789abcdef".to_vec();
    let db = Db::<Embedded>::in_memory::<ErrorsTable>("Errors")
        .unwrap()
        .with_cursor_secret(secret.clone());
    let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    let forms = [
        String::from_utf8(secret.clone()).unwrap(),
        format!("{secret:?}"),
        format!("{:?}", &secret[..4])
            .trim_end_matches(']')
            .to_owned(),
        hex,
        base64::engine::general_purpose::STANDARD.encode(&secret),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&secret),
    ];
    for shown in [format!("{db:?}"), format!("{db:#?}")] {
        for form in &forms {
            assert!(!shown.contains(form.as_str()), "{form} in {shown}");
        }
        assert!(
            shown.contains("\"Errors\"") && shown.contains("Embedded"),
            "{shown}"
        );
        assert!(shown.contains("<redacted>"), "{shown}");
    }
}

/// Holds every PutItem back while set.
struct Stall(Arc<AtomicBool>);

impl Layer for Stall {
    fn before(&self, op: &'static str, _: Option<&Item>) -> BoxFuture<'static, Option<Error>> {
        let stall = op == "PutItem" && self.0.load(Ordering::SeqCst);
        Box::pin(async move {
            if stall {
                std::future::pending::<()>().await;
            }
            None
        })
    }
}

#[tokio::test]
async fn versioned_put_is_cancel_safe() {
    for plain in both::<ErrorsTable>("errors-cancel").await {
        let stalled = Arc::new(AtomicBool::new(false));
        let db = Db::with_executor(
            Layered {
                inner: plain.executor().clone(),
                layer: Stall(stalled.clone()),
            },
            plain.table_name(),
        );
        let mut doc = Doc {
            id: "d".into(),
            version: 0,
        };
        for expected in 1..=2 {
            stalled.store(true, Ordering::SeqCst);
            let cancelled =
                tokio::time::timeout(Duration::from_millis(50), db.put_versioned(&mut doc)).await;
            assert!(cancelled.is_err(), "the stalled put finished");
            assert_eq!(
                doc.version,
                expected - 1,
                "a cancelled put changed the version"
            );
            stalled.store(false, Ordering::SeqCst);
            db.put_versioned(&mut doc).await.unwrap();
            assert_eq!(doc.version, expected);
            let stored = raw_item(&plain, "DOC#d", "DOC").await;
            assert_eq!(
                stored.get("version"),
                Some(&AttributeValue::N(expected.to_string()))
            );
        }
    }
}
