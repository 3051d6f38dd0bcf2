//! Every kind of refusal (`Error::Refused(Refusal)`) provoked once through
//! the public API, matched by its kind and its data, on DynamoDB Local and
//! on the embedded backend where a backend is involved; each refusal sends
//! nothing (a counting executor sees no request) and a refused write leaves
//! the stored item as it was (read back).
//!
//! Kinds not provoked here, and why:
//! - `BackendNotBuilt`: needs a build of the facade without its `embedded`
//!   or `client` feature; this test binary has both.
//! - `SdkBuild`: the SDK's builders refuse only a required member left
//!   unset, and the driver sets each from a value every request has; no
//!   input through the public API leaves one unset.
//! - `CursorKeyNotString`: needs a `LastEvaluatedKey` holding a key value
//!   that is neither `S`, `N` nor `B`, or a sharded query's position one
//!   that is not `S` (sharded indexes are template indexes, keyed on
//!   strings): DynamoDB never hands either out.
//! - `UnexpectedResponse`: needs a misbehaving DynamoDB (a DescribeTable
//!   without a table, fewer TransactGetItems responses than reads).
//! - `NoSortKey`, `NotMultiAttribute`, `MixedSortRange`,
//!   `BeginsWithNonString`: unreachable from the derive's code. A sort-key
//!   condition needs a pattern with a sort template, on a table or index
//!   with a sort key (a collection's `sk_prefix` needs its members' sort
//!   templates to start with it, checked at compile time); a query of a
//!   multi-attribute index always carries its attribute key condition;
//!   one pattern's bounds are all keys or all attribute values; and a
//!   `begins_with` prefix of a multi-attribute sort attribute is a `&str`
//!   on a string attribute only. Only a hand-written `#[doc(hidden)]`
//!   `SortKey`/`SortPrefix` implementation or a hidden `Query` builder
//!   would reach them.
//! - `HashComparison`: a comparison or range on a vector index's `HASH`
//!   attribute requires `HashAttribute: ComparableInSearch`, which nothing
//!   implements and no other crate may implement (both foreign): a compile
//!   error, never this refusal.

use singletable::backfill::Checkpoint;
use singletable::definition::Billing;
use singletable::{
    Backfill, BatchGetter, BatchWriter, Counting, Db, Embedded, Entity, Error, Executor, KeyOf,
    PrimaryKey, Refusal, ReturnValues, SdkDb, SdkExecutor, Table, Transaction,
};
use singletable_core::vector::SearchVectors;

use crate::support::{Layer, Layered, both, endpoint, unique_table};

#[derive(Table)]
#[table(
    name = "Refusals",
    gsi1,
    gsi2(pk(tenantId = S, region = N), sk(status = S, createdAt = N))
)]
pub struct Refusals;

fn is_featured(n: &Note) -> bool {
    n.rank > 10
}

/// In a sparse index whose condition is a function; it has a creation
/// timestamp, and a `region` field outside `gsi2` although `gsi2` keys on
/// an attribute of that name, a number.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Refusals, rename_all = "camelCase")]
#[pk("NOTE#<id>")]
#[sk("NOTE")]
#[gsi1(pk = "FEATURED#<owner>", sk = "RANK#<rank>", when = is_featured)]
pub struct Note {
    pub id: String,
    pub owner: String,
    pub rank: u32,
    pub text: Option<String>,
    pub region: Option<String>,
    #[attr(created_at)]
    pub written_at: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Refusals, rename_all = "camelCase")]
#[pk("MEMBER#<id>")]
#[sk("MEMBER")]
pub struct Member {
    pub id: String,
    #[attr(unique)]
    pub email: String,
    pub name: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Refusals, rename_all = "camelCase")]
#[pk("ACCOUNT#<id>")]
#[sk("ACCOUNT")]
pub struct Account {
    pub id: String,
    pub balance: i64,
    #[attr(version)]
    pub version: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Refusals, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi2(pk(tenant_id, region), sk(status, created_at))]
#[access(by_status, index = gsi2)]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub region: u32,
    pub status: String,
    pub created_at: i64,
}

/// A table with a vector index partitioned by a `HASH` attribute.
#[derive(Table)]
#[table(
    name = "Shelf",
    vector1(name = "Similar", dimensions = 2, distance = euclidean, hash(shelf = S))
)]
pub struct Shelf;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Shelf)]
#[pk("BOOK#<id>")]
#[sk("BOOK")]
#[vector1(vector = embedding, hash(shelf))]
#[access(similar, index = vector1)]
pub struct Book {
    pub id: String,
    pub shelf: String,
    pub embedding: Vec<f32>,
}

/// A layer that changes nothing: `Layered` over it is an executor that
/// implements everything but `search_vectors`.
struct Untouched;
impl Layer for Untouched {}

fn note(id: &str, rank: u32) -> Note {
    Note {
        id: id.into(),
        owner: "ana".into(),
        rank,
        text: Some("seed".into()),
        region: None,
        written_at: String::new(),
    }
}

fn member(id: &str, email: &str) -> Member {
    Member {
        id: id.into(),
        email: email.into(),
        name: None,
    }
}

fn key(pk: &str, sk: &str) -> (String, Option<String>) {
    (pk.to_owned(), Some(sk.to_owned()))
}

/// The refusal `$call` gives, after checking that it sent no request
/// through `$c`, a `Db<Counting<_>>`.
macro_rules! refused {
    ($backend:expr, $c:expr, $call:expr) => {{
        $c.executor().reset();
        let got = $call;
        let sent = $c.executor().count();
        let got = got.map(drop);
        assert_eq!(
            sent,
            0,
            "{}: `{}` sent requests ({got:?})",
            $backend,
            stringify!($call)
        );
        match got {
            Err(Error::Refused(r)) => r,
            Err(e) => panic!(
                "{}: `{}`: expected a refusal, got {e:?}",
                $backend,
                stringify!($call)
            ),
            Ok(_) => panic!(
                "{}: `{}`: expected a refusal, it succeeded",
                $backend,
                stringify!($call)
            ),
        }
    }};
}

/// Every refusal that goes through a table handle, on `db`.
async fn provoke(db: &Db, backend: &str) {
    let c = Db::with_executor(Counting::new(db.executor().clone()), db.table_name());
    let nf = Note::fields();
    let mf = Member::fields();
    let af = Account::fields();
    let tf = Ticket::fields();

    db.put(&note("n1", 1)).await.unwrap();
    let n1 = db
        .get_consistent::<Note>(Note::key("n1").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(!n1.written_at.is_empty(), "{backend}: stamped");
    let m1 = member("m1", "m1@example.com");
    db.create(&m1).await.unwrap();
    let mut a1 = Account {
        id: "a1".into(),
        balance: 10,
        version: 0,
    };
    db.put_versioned(&mut a1).await.unwrap();
    assert_eq!(a1.version, 1);
    let t1 = Ticket {
        id: "t1".into(),
        tenant_id: "acme".into(),
        region: 1,
        status: "OPEN".into(),
        created_at: 5,
    };
    db.put(&t1).await.unwrap();

    // What is stored stays as seeded after every refused write.
    let note_of = |id: &'static str| async move {
        db.get_consistent::<Note>(Note::key(id).unwrap())
            .await
            .unwrap()
    };
    let member_of = |id: &'static str| async move {
        db.get_consistent::<Member>(Member::key(id).unwrap())
            .await
            .unwrap()
    };
    let account_of = |id: &'static str| async move {
        db.get_consistent::<Account>(Account::key(id).unwrap())
            .await
            .unwrap()
    };

    // KeyAttributeType: `region` is a number key attribute of gsi2, by an
    // update and by a put (a put of an entity with automatic timestamps
    // is checked as every other put is).
    let key_attribute_type = Refusal::KeyAttributeType {
        entity: "Note",
        attribute: "region",
        found: "S",
        expected: "N",
    };
    assert_eq!(
        refused!(
            backend,
            c,
            Note::update("n1")
                .set(nf.region, Some("north".to_owned()))
                .execute(&c)
                .await
        ),
        key_attribute_type
    );
    let northern = Note {
        region: Some("north".into()),
        ..n1.clone()
    };
    assert_eq!(
        refused!(backend, c, c.put(&northern).await),
        key_attribute_type
    );
    assert_eq!(note_of("n1").await.as_ref(), Some(&n1), "{backend}");

    // DuplicateBatchKey: a batch write of one item twice...
    let n3 = Note {
        written_at: "2026-01-01T00:00:00.000000Z".into(),
        ..note("n3", 1)
    };
    assert_eq!(
        refused!(
            backend,
            c,
            BatchWriter::new().put(&n3).put(&n3).execute(&c).await
        ),
        Refusal::DuplicateBatchKey {
            first: 0,
            second: 1,
            pk: "NOTE#n3".into(),
            sk: Some("NOTE".into()),
        }
    );
    assert_eq!(note_of("n3").await, None, "{backend}");
    // ...and a batch get of one key twice.
    let twice = [Note::key("n1").unwrap(), Note::key("n1").unwrap()];
    assert_eq!(
        refused!(backend, c, BatchGetter::new(&twice).execute(&c).await),
        Refusal::DuplicateBatchKey {
            first: 0,
            second: 1,
            pk: "NOTE#n1".into(),
            sk: Some("NOTE".into()),
        }
    );

    // MissingSortKey: a raw key without the table's sort key.
    let no_sk = [
        Note::key("n1").unwrap(),
        KeyOf::<Note>::new(PrimaryKey {
            pk: "NOTE#n1".into(),
            sk: None,
        }),
    ];
    assert_eq!(
        refused!(backend, c, BatchGetter::new(&no_sk).execute(&c).await),
        Refusal::MissingSortKey {
            index: 1,
            pk: "NOTE#n1".into(),
            table: db.table_name().to_owned(),
        }
    );

    // BatchPutWithoutCreated: `written_at` is empty.
    assert_eq!(
        refused!(
            backend,
            c,
            BatchWriter::new().put(&note("n4", 1)).execute(&c).await
        ),
        Refusal::BatchPutWithoutCreated {
            entity: "Note",
            field: "written_at",
        }
    );
    assert_eq!(note_of("n4").await, None, "{backend}");

    // UniqueMarker: a batch put, a batch delete, a transaction's put and
    // delete, an upsert setting the unique field.
    let m2 = member("m2", "m2@example.com");
    let unique_marker = |operation, instead| Refusal::UniqueMarker {
        entity: "Member",
        field: "email",
        operation,
        instead,
    };
    assert_eq!(
        refused!(backend, c, BatchWriter::new().put(&m2).execute(&c).await),
        unique_marker(
            "a batch put",
            "batch writes are not transactional; use `db.put` (or a transaction) instead"
        )
    );
    assert_eq!(
        refused!(
            backend,
            c,
            BatchWriter::new()
                .delete(Member::key("m1").unwrap())
                .execute(&c)
                .await
        ),
        unique_marker(
            "a batch delete",
            "batch writes are not transactional; use `db.delete` (or a transaction) instead"
        )
    );
    assert_eq!(
        refused!(backend, c, Transaction::new().put(&m2).execute(&c).await),
        unique_marker(
            "a transaction's put",
            "its old marker needs the stored item; use `db.put` outside a transaction, or `update(...).knowing(&item)` here"
        )
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Transaction::new()
                .delete(Member::key("m1").unwrap())
                .execute(&c)
                .await
        ),
        unique_marker(
            "a transaction's delete",
            "its old marker needs the stored item; use `db.delete` outside a transaction, or `update(...).knowing(&item)` here"
        )
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Member::update("m2")
                .set(mf.email, "m2@example.com".to_owned())
                .upsert()
                .execute(&c)
                .await
        ),
        unique_marker(
            "an upsert",
            "create the item with `create`, or update it with `.knowing(&item)`"
        )
    );
    assert_eq!(member_of("m1").await.as_ref(), Some(&m1), "{backend}");
    assert_eq!(member_of("m2").await, None, "{backend}");

    // NoReturnValues: a put returning the old item, an update moving the
    // marker returning the new one.
    let renamed = Member {
        name: Some("Em".into()),
        ..m1.clone()
    };
    assert_eq!(
        refused!(backend, c, c.put_returning_old(&renamed).await),
        Refusal::NoReturnValues {
            entity: "Member",
            operation: "`put_returning_old`",
        }
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Member::update("m1")
                .set(mf.email, "m1@new.example".to_owned())
                .knowing(&m1)
                .execute_returning(&c, ReturnValues::AllNew)
                .await
        ),
        Refusal::NoReturnValues {
            entity: "Member",
            operation: "an update returning values",
        }
    );
    assert_eq!(member_of("m1").await.as_ref(), Some(&m1), "{backend}");

    // Versioned: a plain put, an update without `if_version`, an upsert.
    let versioned = |instead| Refusal::Versioned {
        entity: "Account",
        instead,
    };
    let richer = Account {
        balance: 99,
        ..a1.clone()
    };
    assert_eq!(
        refused!(backend, c, c.put(&richer).await),
        versioned("write it with `put_versioned` or an update with `if_version`")
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Account::update("a1").set(af.balance, 99).execute(&c).await
        ),
        versioned("call `.if_version(v)` with the version that was read")
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Account::update("a2")
                .set(af.balance, 1)
                .upsert()
                .execute(&c)
                .await
        ),
        versioned(
            "create it with `put_versioned`; an upsert cannot both create an item and check its version"
        )
    );
    assert_eq!(account_of("a1").await.as_ref(), Some(&a1), "{backend}");
    assert_eq!(account_of("a2").await, None, "{backend}");

    // EmptyUpdate: no action (and nothing stamped: Note has no `updated_at`).
    assert_eq!(
        refused!(backend, c, Note::update("n1").execute(&c).await),
        Refusal::EmptyUpdate
    );

    // KnowingAnotherItem and KnowingAndUpsert.
    let changed = || Some("changed".to_owned());
    assert_eq!(
        refused!(
            backend,
            c,
            Note::update("n1")
                .set(nf.text, changed())
                .knowing(&note("n5", 1))
                .execute(&c)
                .await
        ),
        Refusal::KnowingAnotherItem {
            entity: "Note",
            given: key("NOTE#n5", "NOTE"),
            updated: key("NOTE#n1", "NOTE"),
        }
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Note::update("n1")
                .set(nf.text, changed())
                .knowing(&n1)
                .upsert()
                .execute(&c)
                .await
        ),
        Refusal::KnowingAndUpsert { entity: "Note" }
    );

    // SparseByFunction: `rank` keys gsi1, whose condition is `is_featured`.
    assert_eq!(
        refused!(
            backend,
            c,
            Note::update("n1").set(nf.rank, 20).execute(&c).await
        ),
        Refusal::SparseByFunction {
            entity: "Note",
            index: "GSI1",
            what: "this update".into(),
        }
    );

    // InListSize: 101 values.
    let owners: Vec<String> = (0..101).map(|i| format!("o{i}")).collect();
    let rewritten = Note {
        text: changed(),
        ..n1.clone()
    };
    assert_eq!(
        refused!(
            backend,
            c,
            c.put_if(&rewritten, nf.owner.is_in(owners.iter())).await
        ),
        Refusal::InListSize { len: 101 }
    );
    assert_eq!(note_of("n1").await.as_ref(), Some(&n1), "{backend}");

    // UniqueNeedsValue: `if_not_exists` leaves the new value unknown.
    assert_eq!(
        refused!(
            backend,
            c,
            Member::update("m1")
                .set_if_not_exists(mf.email, "m1@other.example".to_owned())
                .execute(&c)
                .await
        ),
        Refusal::UniqueNeedsValue {
            entity: "Member",
            field: "email",
        }
    );
    assert_eq!(member_of("m1").await.as_ref(), Some(&m1), "{backend}");

    // FilterOnKey: `createdAt` is a sort attribute of gsi2.
    assert_eq!(
        refused!(
            backend,
            c,
            Ticket::by_status("acme", 1)
                .filter(tf.created_at.gt(&0))
                .all(&c)
                .await
        ),
        Refusal::FilterOnKey {
            attribute: "createdAt".into(),
            index: "GSI2",
        }
    );

    // Backfills: no segment, a checkpoint of 2 segments resumed with 3 or
    // by another entity's backfill, a damaged checkpoint, an adoption of
    // an entity that adopts nothing.
    assert_eq!(
        refused!(
            backend,
            c,
            Backfill::<Note>::new().segments(0).run(&c).await
        ),
        Refusal::SegmentCount { segments: 0 }
    );
    let checkpoint = Backfill::<Note>::new()
        .segments(2)
        .run(db)
        .await
        .unwrap()
        .checkpoint;
    assert_eq!(
        (checkpoint.entity(), checkpoint.total_segments()),
        ("Note", 2)
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Backfill::<Note>::new()
                .segments(3)
                .resume_from(checkpoint.clone())
                .run(&c)
                .await
        ),
        Refusal::CheckpointSegments {
            checkpoint: 2,
            requested: 3,
        }
    );
    assert_eq!(
        refused!(
            backend,
            c,
            Backfill::<Ticket>::new()
                .resume_from(checkpoint.clone())
                .run(&c)
                .await
        ),
        Refusal::CheckpointOfAnother {
            checkpoint: "Note".into(),
            backfill: "Ticket".into(),
        }
    );
    let json = checkpoint.to_json();
    assert!(json.contains(r#""total_segments":2"#), "{json}");
    let damaged = json.replace(r#""total_segments":2"#, r#""total_segments":3"#);
    assert_eq!(
        refused!(backend, c, Checkpoint::from_json(&damaged)),
        Refusal::BadCheckpoint {
            problem: "segment count does not match its segments".into(),
        }
    );
    assert_eq!(
        refused!(backend, c, Backfill::<Note>::adopt().run(&c).await),
        Refusal::NotAdopting { entity: "Note" }
    );

    // Still as seeded after all of it.
    assert_eq!(note_of("n1").await.as_ref(), Some(&n1), "{backend}");
    assert_eq!(member_of("m1").await.as_ref(), Some(&m1), "{backend}");
    assert_eq!(account_of("a1").await.as_ref(), Some(&a1), "{backend}");
}

#[tokio::test]
async fn refusals_are_typed() {
    let [local, embedded] = both::<Refusals>("refusals").await;
    for (db, backend) in [(&local, "DynamoDB Local"), (&embedded, "embedded")] {
        provoke(db, backend).await;
    }

    // SearchVectorNotFinite: the typed search refuses a NaN itself
    // (`Error::InvalidVector`); a raw SearchVectors request through the
    // SDK executor is refused by the driver before sending.
    let nan = SearchVectors {
        table: local.table_name().to_owned(),
        index: "Similar".into(),
        vector: vec![f32::NAN, 0.0],
        condition: None,
        top_k: 1,
        projection: None,
    };
    match local.executor().search_vectors(nan).await {
        Err(Error::Refused(r)) => assert_eq!(r, Refusal::SearchVectorNotFinite),
        other => panic!("expected a refusal, got {other:?}"),
    }

    // Unsupported: a typed vector search through an executor without
    // `search_vectors` (DynamoDB Local has no vector indexes: embedded).
    let shelf = Db::<Embedded>::in_memory::<Shelf>("Shelf").unwrap();
    let book = Book {
        id: "b1".into(),
        shelf: "s1".into(),
        embedding: vec![1.0, 0.0],
    };
    shelf.put(&book).await.unwrap();
    let found = Book::similar("s1", &[1.0, 0.0])
        .top_k(1)
        .all(&shelf)
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].item, book);
    let layered = Db::with_executor(
        Layered {
            inner: shelf.executor().clone(),
            layer: Untouched,
        },
        "Shelf",
    );
    let got = Book::similar("s1", &[1.0, 0.0])
        .top_k(1)
        .all(&layered)
        .await;
    match got {
        Err(Error::Refused(r)) => assert_eq!(
            r,
            Refusal::Unsupported {
                operation: "SearchVectors"
            }
        ),
        Err(e) => panic!("expected a refusal, got {e:?}"),
        Ok(v) => panic!("expected a refusal, found {}", v.len()),
    }

    // TableDefinition: a provisioned table with a vector index, refused
    // before CreateTable; no table is created.
    let name = unique_table("refusals-provisioned");
    let provisioned: Db<SdkExecutor> = Db::local(&endpoint(), name.clone());
    match provisioned
        .create_table_with::<Shelf>(Billing::Provisioned { read: 1, write: 1 })
        .await
    {
        Err(Error::Refused(r)) => assert_eq!(
            r,
            Refusal::TableDefinition {
                problem: format!(
                    "table `{name}` declares vector indexes (Similar), which DynamoDB supports only on tables that use on-demand capacity mode (PAY_PER_REQUEST)"
                ),
            }
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
    match provisioned.describe().await {
        Err(e) => assert_eq!(e.code(), Some("ResourceNotFoundException"), "{e:?}"),
        Ok(d) => panic!("the table was created: {d:?}"),
    }
}
