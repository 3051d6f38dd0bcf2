//! Unique values: one owner per value under concurrent creates, markers
//! moved and released with the values they guard.

use super::*;

fn member(id: &str, email: &str) -> Member {
    Member {
        id: id.into(),
        email: email.into(),
        handle: None,
        name: format!("member {id}"),
    }
}

fn marker(field: &str, value: &str) -> String {
    format!("UNIQUE#Member#{field}#{value}")
}

/// The owner of a marker, `None` when there is no marker.
async fn owner<E: Executor>(db: &Db<E>, field: &str, value: &str) -> Option<String> {
    let item = stored(db, &marker(field, value), "UNIQUE").await?;
    assert_eq!(s(&item, "entityType"), Some("singletable.unique"));
    assert_eq!(s(&item, "ownerSk"), Some("MEMBER"));
    s(&item, "ownerPk").map(str::to_owned)
}

async fn unique_values<E: Executor + 'static>(db: Arc<Db<E>>) {
    // 20 concurrent creates of one value: exactly one succeeds.
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                db.create(&member(&format!("m{i:02}"), "ana@example.com"))
                    .await
            })
        })
        .collect();
    let mut winners = Vec::new();
    for (i, t) in tasks.into_iter().enumerate() {
        match t.await.unwrap() {
            Ok(()) => winners.push(format!("m{i:02}")),
            Err(Error::UniqueViolation {
                entity: "Member",
                field: "email",
                ..
            }) => {}
            Err(e) => panic!("create {i}: {e:?}"),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let winner = &winners[0];
    let members = db.scan_all::<Member>().await.unwrap();
    assert_eq!(members.len(), 1, "losers wrote nothing: {members:?}");
    assert_eq!(
        owner(&*db, "email", "ana@example.com").await,
        Some(format!("MEMBER#{winner}"))
    );

    // Changing the value moves the marker: it needs the old value.
    let current = db
        .get_consistent::<Member>(Member::key(winner).unwrap())
        .await
        .unwrap()
        .unwrap();
    let f = Member::fields();
    let err = Member::update(winner)
        .set(f.email, "ana@new.example".to_owned())
        .execute(&*db)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::UpdateNeedsItem { writes: "email", needs: "email", message: m, .. } if m.contains(".knowing(&item)")),
        "{err}"
    );
    Member::update(winner)
        .set(f.email, "ana@new.example".to_owned())
        .knowing(&current)
        .execute(&*db)
        .await
        .unwrap();
    assert_eq!(
        owner(&*db, "email", "ana@example.com").await,
        None,
        "old marker gone"
    );
    assert_eq!(
        owner(&*db, "email", "ana@new.example").await,
        Some(format!("MEMBER#{winner}"))
    );

    // The old value is free again; the new one is taken.
    db.create(&member("bea", "ana@example.com")).await.unwrap();
    assert_eq!(
        owner(&*db, "email", "ana@example.com").await,
        Some("MEMBER#bea".into())
    );
    let err = db
        .create(&member("cid", "ana@new.example"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::UniqueViolation { field: "email", .. }),
        "{err:?}"
    );
    assert!(
        db.get_consistent::<Member>(Member::key("cid").unwrap())
            .await
            .unwrap()
            .is_none()
    );

    // A put moves markers too (it reads the stored item first), and an
    // optional value holds a marker only when set.
    db.put(&Member {
        handle: Some("bea".into()),
        ..member("bea", "bea@example.com")
    })
    .await
    .unwrap();
    assert_eq!(owner(&*db, "email", "ana@example.com").await, None);
    assert_eq!(
        owner(&*db, "email", "bea@example.com").await,
        Some("MEMBER#bea".into())
    );
    assert_eq!(
        owner(&*db, "handle", "bea").await,
        Some("MEMBER#bea".into())
    );
    let err = db.put(&member("bea", "ana@new.example")).await.unwrap_err();
    assert!(
        matches!(err, Error::UniqueViolation { field: "email", .. }),
        "{err:?}"
    );
    assert_eq!(
        owner(&*db, "email", "bea@example.com").await,
        Some("MEMBER#bea".into()),
        "nothing moved"
    );
    // Removing the optional value releases its marker.
    let bea = db
        .get_consistent::<Member>(Member::key("bea").unwrap())
        .await
        .unwrap()
        .unwrap();
    Member::update("bea")
        .remove(f.handle)
        .knowing(&bea)
        .execute(&*db)
        .await
        .unwrap();
    assert_eq!(owner(&*db, "handle", "bea").await, None);

    // Markers are no entity's items.
    assert_eq!(db.scan_all::<Member>().await.unwrap().len(), 2);

    // Batches cannot move markers; transactions create them.
    let err = singletable::BatchWriter::new()
        .put(&member("dan", "dan@example.com"))
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Refused(singletable::Refusal::UniqueMarker { field: "email", .. })
        ),
        "{err}"
    );
    let err = singletable::Transaction::new()
        .put(&member("dan", "dan@example.com"))
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Refused(singletable::Refusal::UniqueMarker { field: "email", .. })
        ),
        "{err}"
    );
    let err = singletable::Transaction::new()
        .create(&member("dan", "dan@example.com"))
        .create(&member("eve", "bea@example.com"))
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::UniqueViolation { field: "email", .. }),
        "{err:?}"
    );
    singletable::Transaction::new()
        .create(&member("dan", "dan@example.com"))
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        owner(&*db, "email", "dan@example.com").await,
        Some("MEMBER#dan".into())
    );

    // Deleting the item deletes its markers: the value can be reused.
    db.delete::<Member>(Member::key(winner).unwrap())
        .await
        .unwrap();
    assert_eq!(owner(&*db, "email", "ana@new.example").await, None);
    db.create(&member("fay", "ana@new.example")).await.unwrap();
    assert_eq!(
        owner(&*db, "email", "ana@new.example").await,
        Some("MEMBER#fay".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unique_value_is_enforced_under_concurrency() {
    unique_values(Arc::new(fresh_db::<SyncTable>("unique").await)).await;
    unique_values(Arc::new(
        Db::<singletable::Embedded>::in_memory::<SyncTable>("Sync").unwrap(),
    ))
    .await;
}
