//! A table that evolves through the library: a global index added to a
//! table that already holds items (built from them, as DynamoDB backfills
//! it), an index the declaration no longer has kept or deleted, on
//! DynamoDB Local and on the embedded backend.

use singletable::backend::{ExtraIndexes, TableUpdate};
use singletable::{Db, Embedded, Entity, Error, SdkDb, SdkExecutor, Table};
use singletable_runtime::exec::Executor;

use crate::support::{fresh_db, unique_table};

/// The table as first deployed: no index.
#[derive(Table)]
#[table(name = "Evolve")]
pub struct V1;

/// The same table once the team needs users by e-mail.
#[derive(Table)]
#[table(name = "Evolve", gsi1)]
pub struct V2;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = V2, rename_all = "camelCase")]
#[pk("USER#<user_id>")]
#[sk("PROFILE")]
#[gsi1(pk = "EMAIL#<email>", sk = "USER")]
#[access(by_email, index = gsi1)]
pub struct User {
    pub user_id: String,
    pub email: String,
}

/// The handle's UpdateTable, by backend: the two methods have one name
/// and one signature.
trait Evolve {
    async fn update<T: Table>(&self, extra: ExtraIndexes) -> singletable::Result<TableUpdate>;
    async fn plan<T: Table>(&self, extra: ExtraIndexes) -> singletable::Result<TableUpdate>;
}

impl Evolve for Db<SdkExecutor> {
    async fn update<T: Table>(&self, extra: ExtraIndexes) -> singletable::Result<TableUpdate> {
        self.update_table::<T>(extra).await
    }
    async fn plan<T: Table>(&self, extra: ExtraIndexes) -> singletable::Result<TableUpdate> {
        self.plan_table_update::<T>(extra).await
    }
}

impl Evolve for Db<Embedded> {
    async fn update<T: Table>(&self, extra: ExtraIndexes) -> singletable::Result<TableUpdate> {
        self.update_table::<T>(extra).await
    }
    async fn plan<T: Table>(&self, extra: ExtraIndexes) -> singletable::Result<TableUpdate> {
        self.plan_table_update::<T>(extra).await
    }
}

fn user(n: u32) -> User {
    User {
        user_id: format!("u{n}"),
        email: format!("u{n}@example.com"),
    }
}

fn gsi1(created: bool) -> TableUpdate {
    let name = vec!["GSI1".to_owned()];
    if created {
        TableUpdate {
            created: name,
            ..TableUpdate::default()
        }
    } else {
        TableUpdate {
            deleted: name,
            ..TableUpdate::default()
        }
    }
}

async fn evolve<E: Executor>(db: &Db<E>) -> Vec<Option<String>>
where
    Db<E>: Evolve,
{
    // Items written before the index exists (they carry its keys: the
    // entity declares it already).
    for n in 0..3 {
        db.put(&user(n)).await.unwrap();
    }
    let before = User::by_email("u1@example.com").all(db).await;
    let no_index = before
        .as_ref()
        .err()
        .and_then(Error::code)
        .map(str::to_owned);
    assert!(before.is_err(), "{before:?}");

    // The plan first, then the same change applied.
    let plan = db.plan::<V2>(ExtraIndexes::Keep).await.unwrap();
    assert_eq!(plan, gsi1(true));
    assert_eq!(db.update::<V2>(ExtraIndexes::Keep).await.unwrap(), plan);
    // Built from the items already stored.
    assert_eq!(
        User::by_email("u1@example.com").all(db).await.unwrap(),
        vec![user(1)]
    );
    // Kept up on writes after it.
    db.put(&User {
        email: "new@example.com".into(),
        ..user(2)
    })
    .await
    .unwrap();
    assert_eq!(User::by_email("u2@example.com").all(db).await.unwrap(), []);
    assert_eq!(
        User::by_email("new@example.com")
            .all(db)
            .await
            .unwrap()
            .len(),
        1
    );
    // Nothing left to do.
    assert!(
        db.plan::<V2>(ExtraIndexes::Delete)
            .await
            .unwrap()
            .is_empty()
    );

    // The first declaration again: the index is extra, kept unless told.
    let kept = db.update::<V1>(ExtraIndexes::Keep).await.unwrap();
    assert_eq!(
        kept,
        TableUpdate {
            extra: vec!["GSI1".into()],
            ..TableUpdate::default()
        }
    );
    assert!(kept.is_empty());
    assert_eq!(
        User::by_email("u0@example.com").all(db).await.unwrap(),
        vec![user(0)]
    );
    assert_eq!(
        db.update::<V1>(ExtraIndexes::Delete).await.unwrap(),
        gsi1(false)
    );
    let gone = User::by_email("u0@example.com").all(db).await;
    assert!(gone.is_err(), "{gone:?}");
    // The items are untouched, and the index can come back.
    assert_eq!(
        db.get::<User>(User::key("u0").unwrap()).await.unwrap(),
        Some(user(0))
    );
    assert_eq!(
        db.update::<V2>(ExtraIndexes::Keep).await.unwrap(),
        gsi1(true)
    );
    assert_eq!(
        User::by_email("u0@example.com").all(db).await.unwrap(),
        vec![user(0)]
    );
    vec![
        no_index,
        gone.err().and_then(|e| e.code().map(str::to_owned)),
    ]
}

#[tokio::test]
async fn update_table_adds_and_removes_an_index() {
    let local = fresh_db::<V1>("evolve").await;
    let on_local = evolve(&local).await;
    // DynamoDB Local agrees with the declaration after the change.
    assert!(local.verify::<V2>().await.unwrap().is_empty());

    let embedded = Db::<Embedded>::in_memory::<V1>(unique_table("evolve")).unwrap();
    let on_embedded = evolve(&embedded).await;
    // The same refusal of a query on an index the table lacks.
    assert_eq!(on_local, on_embedded);
    assert_eq!(on_local[0].as_deref(), Some("ValidationException"));

    // An index that is not there cannot be updated into a table that is
    // not there either: a typed refusal, on both.
    let missing = Db::<Embedded>::with_executor(Embedded::new(), "Nowhere");
    let err = missing
        .update_table::<V2>(ExtraIndexes::Keep)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ResourceNotFoundException"));
    let missing = Db::local(&crate::support::endpoint(), unique_table("nowhere"));
    let err = missing
        .update_table::<V2>(ExtraIndexes::Keep)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ResourceNotFoundException"));
}
