//! Key fields are stored as plain attributes too; an item whose key-field
//! attributes contradict the key it is stored under is refused on every
//! read path, so data can never redirect the application's next write.

use singletable::{AttributeValue, Db, DecodeErrorKind, Entity, Error, Executor, Item, Table};

use crate::support::{fresh_db, raw_put};

#[derive(Table)]
#[table(name = "Records")]
pub struct RecordTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = RecordTable, name = "Rec")]
#[pk("GROUP#<group>")]
#[sk("REC#<id>")]
#[access(recs_of_group)]
pub struct Rec {
    pub group: String,
    pub id: String,
    pub body: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn hostile<E: Executor>(db: &Db<E>, pk: &str, sk: &str, group: &str, id: &str) {
    let item = Item::from([
        ("PK".into(), s(pk)),
        ("SK".into(), s(sk)),
        ("entityType".into(), s("Rec")),
        ("group".into(), s(group)),
        ("id".into(), s(id)),
        ("body".into(), s("hostile")),
    ]);
    raw_put(db, item).await.unwrap();
}

fn assert_mismatch<T: std::fmt::Debug>(r: Result<T, Error>, attribute: &str, what: &str) {
    match r {
        Err(Error::Decode {
            entity: "Rec",
            source,
        }) => {
            assert_eq!(source.path(), attribute, "{what}");
            assert!(
                matches!(source.kind(), DecodeErrorKind::KeyMismatch { .. }),
                "{what}: {source}"
            );
        }
        other => panic!("{what}: expected a key mismatch at {attribute}, got {other:?}"),
    }
}

async fn refused_everywhere<E: Executor>(db: &Db<E>) {
    let good = Rec {
        group: "g".into(),
        id: "ok".into(),
        body: "fine".into(),
    };
    db.put(&good).await.unwrap();
    // The id attribute says `victim`, the key says `m1`.
    hostile(db, "GROUP#g", "REC#m1", "g", "victim").await;

    assert_mismatch(
        db.get::<Rec>(Rec::key("g", "m1").unwrap()).await,
        "SK",
        "get",
    );
    assert_mismatch(
        db.get_consistent::<Rec>(Rec::key("g", "m1").unwrap()).await,
        "SK",
        "consistent get",
    );
    assert_mismatch(Rec::recs_of_group("g").all(db).await, "SK", "query");
    assert_mismatch(
        singletable::BatchGetter::<Rec>::new(&[Rec::key("g", "m1").unwrap()])
            .execute(db)
            .await
            .and_then(|o| o.into_result()),
        "SK",
        "batch get",
    );
    let mut rt = singletable::ReadTransaction::new();
    let h = rt.get::<Rec>(Rec::key("g", "m1").unwrap());
    let read = rt.execute(db).await.and_then(|mut r| r.take(h));
    assert_mismatch(read, "SK", "read transaction");

    // The partition key contradicts the group field.
    hostile(db, "GROUP#h", "REC#m2", "g", "m2").await;
    assert_mismatch(
        db.get::<Rec>(Rec::key("h", "m2").unwrap()).await,
        "PK",
        "get by pk",
    );
    assert_mismatch(Rec::recs_of_group("h").all(db).await, "PK", "query by pk");

    // The item at the victim's key is untouched: nothing was redirected.
    assert_eq!(
        db.get::<Rec>(Rec::key("g", "victim").unwrap())
            .await
            .unwrap(),
        None
    );
    // Consistent items still read, and escaped values compare as built.
    let tricky = Rec {
        group: "a#b%c".into(),
        id: "x#1".into(),
        body: "b".into(),
    };
    db.put(&tricky).await.unwrap();
    assert_eq!(
        db.get::<Rec>(Rec::key("a#b%c", "x#1").unwrap())
            .await
            .unwrap(),
        Some(tricky.clone())
    );
    assert_eq!(Rec::recs_of_group("a#b%c").all(db).await.unwrap(), [tricky]);
    assert_eq!(
        db.get::<Rec>(Rec::key("g", "ok").unwrap()).await.unwrap(),
        Some(good)
    );
    // The typed codec refuses the same contradiction without a backend.
    let mut item = Rec {
        group: "g".into(),
        id: "m3".into(),
        body: "b".into(),
    }
    .to_item()
    .unwrap();
    item.insert("id".into(), s("other"));
    assert_mismatch(Rec::from_item(item), "SK", "from_item");
}

#[tokio::test]
async fn key_fields_disagreeing_with_the_key_are_refused() {
    refused_everywhere(&fresh_db::<RecordTable>("keys").await).await;
    refused_everywhere(&Db::<singletable::Embedded>::in_memory::<RecordTable>("Records").unwrap())
        .await;
}
