//! `upsert()` creates complete items: entity type, key fields, index keys,
//! stamps; an upsert that could create an unreadable item is refused
//! before sending, and one never takes over another entity's item.

use singletable::{AttributeValue, Db, Entity, Error, Executor, Item, Table};
use singletable_runtime::exec::Counting;

use crate::support::{fresh_db, raw_item, raw_put};

#[derive(Table)]
#[table(name = "Upserts", gsi1)]
pub struct UpsertTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = UpsertTable, name = "Member", rename_all = "camelCase")]
#[pk("MEMBER#<member_id>")]
#[sk("PROFILE")]
#[gsi1(pk = "TEAM#<team>", sk = "MEMBER#<member_id>")]
#[access(members_of_team, index = gsi1)]
pub struct Member {
    #[attr(min_len = 2)]
    pub member_id: String,
    pub team: String,
    #[attr(max = 150)]
    pub age: u32,
    pub nickname: Option<String>,
    #[attr(default)]
    pub logins: u64,
    #[attr(created_at)]
    pub created_at: String,
    #[attr(updated_at)]
    pub updated_at: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn upserts<E: Executor>(db: &Db<E>) {
    let f = Member::fields();
    Member::update("m1")
        .set(f.team, "blue".to_owned())
        .set(f.age, 30)
        .upsert()
        .execute(db)
        .await
        .unwrap();
    let m = db
        .get::<Member>(Member::key("m1").unwrap())
        .await
        .unwrap()
        .expect("the upserted item reads as a Member");
    assert_eq!(
        (m.member_id.as_str(), m.team.as_str(), m.age),
        ("m1", "blue", 30)
    );
    assert_eq!((m.nickname, m.logins), (None, 0));
    assert!(!m.created_at.is_empty() && !m.updated_at.is_empty());
    let raw = raw_item(db, "MEMBER#m1", "PROFILE").await;
    assert_eq!(raw.get("entityType"), Some(&s("Member")));
    assert_eq!(raw.get("memberId"), Some(&s("m1")));
    assert_eq!(raw.get("GSI1PK"), Some(&s("TEAM#blue")));
    assert_eq!(raw.get("GSI1SK"), Some(&s("MEMBER#m1")));
    let team = Member::members_of_team("blue").all(db).await.unwrap();
    assert_eq!(team.len(), 1);

    // A second upsert updates the item and keeps its creation time.
    Member::update("m1")
        .set(f.team, "red".to_owned())
        .set(f.age, 31)
        .upsert()
        .execute(db)
        .await
        .unwrap();
    let again = db
        .get::<Member>(Member::key("m1").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.team.as_str(), again.age), ("red", 31));
    assert_eq!(again.created_at, m.created_at, "creation time kept");
    assert!(
        Member::members_of_team("blue")
            .all(db)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        Member::members_of_team("red").all(db).await.unwrap().len(),
        1
    );

    // Never over another entity's item at the same key.
    let other = Item::from([
        ("PK".into(), s("MEMBER#m9")),
        ("SK".into(), s("PROFILE")),
        ("entityType".into(), s("Robot")),
    ]);
    raw_put(db, other.clone()).await.unwrap();
    let r = Member::update("m9")
        .set(f.team, "x".to_owned())
        .set(f.age, 1)
        .upsert()
        .execute(db)
        .await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    assert_eq!(raw_item(db, "MEMBER#m9", "PROFILE").await, other);
}

/// Upserts that could create an unreadable item, or break a validation,
/// are refused before any request.
async fn refusals<E: Executor>(db: &Db<Counting<E>>) {
    let f = Member::fields();
    let before = db.executor().count();
    let missing = Member::update("m2")
        .set(f.team, "blue".to_owned())
        .upsert()
        .execute(db)
        .await;
    match missing {
        Err(Error::UpsertIncomplete {
            entity: "Member",
            fields,
            message,
        }) => {
            assert_eq!(fields, ["age"]);
            assert!(message.contains("`age`"), "{message}");
        }
        other => panic!("an upsert without `age` was not refused: {other:?}"),
    }
    let invalid = Member::update("m2")
        .set(f.team, "b".to_owned())
        .set(f.age, 200)
        .upsert()
        .execute(db)
        .await;
    assert!(
        matches!(invalid, Err(Error::Validation { field: "age", .. })),
        "{invalid:?}"
    );
    let short_key = Member::update("m")
        .set(f.team, "b".to_owned())
        .set(f.age, 2)
        .upsert()
        .execute(db)
        .await;
    assert!(
        matches!(
            short_key,
            Err(Error::Validation {
                field: "member_id",
                ..
            })
        ),
        "{short_key:?}"
    );
    assert_eq!(db.executor().count(), before, "nothing was sent");
    assert_eq!(
        db.get::<Member>(Member::key("m2").unwrap()).await.unwrap(),
        None
    );
    // Without upsert, a missing item is still NotFound.
    let plain = Member::update("m2").set(f.age, 5).execute(db).await;
    assert!(matches!(plain, Err(Error::NotFound { .. })), "{plain:?}");
}

#[tokio::test]
async fn upsert_creates_a_readable_item() {
    let local = fresh_db::<UpsertTable>("upsert").await;
    upserts(&local).await;
    let counted = Db::with_executor(Counting::new(local.executor().clone()), local.table_name());
    refusals(&counted).await;
    let embedded = Db::<singletable::Embedded>::in_memory::<UpsertTable>("Upserts").unwrap();
    upserts(&embedded).await;
    let counted = Db::with_executor(Counting::new(embedded.executor().clone()), "Upserts");
    refusals(&counted).await;
}
