//! Unique values kept in another client's marker layout: The DynamoDB
//! Book's e-commerce table keeps a customer's email unique with a marker
//! item `PK = SK = CUSTOMEREMAIL#<email>` and nothing else. With
//! `#[attr(unique = "CUSTOMEREMAIL#<email>")]` the library writes exactly
//! that item, honours the book code's markers, and names the field whose
//! value is taken, on both backends.

use singletable::{AttributeValue, Db, Entity, Error, Item, Table};

use crate::support::{both, raw_item, raw_put};

#[derive(Table)]
#[table(name = "EcommerceTable", entities(Customer))]
pub struct EcommerceTable;

/// The book's customer: `PK = SK = CUSTOMER#<username>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = EcommerceTable, rename_all = "camelCase")]
#[pk("CUSTOMER#<username>")]
#[sk("CUSTOMER#<username>")]
pub struct Customer {
    pub username: String,
    pub name: String,
    #[attr(unique = "CUSTOMEREMAIL#<email>")]
    pub email: String,
}

fn customer(username: &str, email: &str) -> Customer {
    Customer {
        username: username.into(),
        name: format!("customer {username}"),
        email: email.into(),
    }
}

/// The marker item the book's `create_customer` puts (its second
/// TransactWriteItems operation), attribute for attribute.
fn book_marker(email: &str) -> Item {
    let key = format!("CUSTOMEREMAIL#{email}");
    Item::from([
        ("PK".to_owned(), AttributeValue::S(key.clone())),
        ("SK".to_owned(), AttributeValue::S(key)),
    ])
}

/// The marker of `email`, read raw, if there is one.
async fn marker(db: &Db, email: &str) -> Option<Item> {
    let key = format!("CUSTOMEREMAIL#{email}");
    db.executor()
        .get_item(singletable_runtime::request::GetItem {
            table: db.table_name().into(),
            key: Item::from([
                ("PK".to_owned(), AttributeValue::S(key.clone())),
                ("SK".to_owned(), AttributeValue::S(key)),
            ]),
            consistent: true,
        })
        .await
        .unwrap()
}

/// The marker of `from` is gone, the one of `to` is the book's.
async fn moved_marker(db: &Db, from: &str, to: &str) {
    assert_eq!(marker(db, from).await, None);
    assert_eq!(marker(db, to).await, Some(book_marker(to)));
}

fn taken(result: Result<(), Error>, email: &str) {
    match result {
        Err(Error::UniqueViolation {
            entity,
            field,
            marker,
        }) => {
            assert_eq!((entity, field), ("Customer", "email"));
            assert_eq!(marker, format!("CUSTOMEREMAIL#{email}"));
        }
        other => panic!("expected the email to be taken: {other:?}"),
    }
}

async fn stored(db: &Db, username: &str) -> Option<Customer> {
    db.get_consistent::<Customer>(Customer::key(username).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn unique_marker_uses_its_declared_key() {
    for db in both::<EcommerceTable>("declared-marker").await {
        // The library's marker is the book's, attribute for attribute.
        let alex = customer("alexdebrie", "alex@example.com");
        db.create(&alex).await.unwrap();
        let written = raw_item(
            &db,
            "CUSTOMEREMAIL#alex@example.com",
            "CUSTOMEREMAIL#alex@example.com",
        )
        .await;
        assert_eq!(written, book_marker("alex@example.com"));
        // And the book's raw put gives the same item.
        raw_put(&db, book_marker("sam@example.com")).await.unwrap();
        assert_eq!(
            marker(&db, "sam@example.com").await,
            Some(book_marker("sam@example.com"))
        );

        // A second customer with the same email is refused, the field
        // named, nothing written.
        let copy = customer("imposter", "alex@example.com");
        taken(db.create(&copy).await, "alex@example.com");
        taken(db.put(&copy).await, "alex@example.com");
        assert_eq!(stored(&db, "imposter").await, None);
        // The book code's marker blocks the library's write.
        taken(
            db.create(&customer("sam", "sam@example.com")).await,
            "sam@example.com",
        );
        assert_eq!(stored(&db, "sam").await, None);

        // A put that keeps the email leaves the marker as it is.
        let renamed = Customer {
            name: "Alex DeBrie".into(),
            ..alex.clone()
        };
        db.put(&renamed).await.unwrap();
        assert_eq!(stored(&db, "alexdebrie").await, Some(renamed.clone()));
        assert_eq!(
            marker(&db, "alex@example.com").await,
            Some(book_marker("alex@example.com"))
        );

        // An update to a taken email is refused, the field named.
        let f = Customer::fields();
        let update = Customer::update("alexdebrie")
            .set(f.email, "sam@example.com".to_owned())
            .knowing(&renamed)
            .execute(&db)
            .await;
        taken(update.map(drop), "sam@example.com");
        assert_eq!(stored(&db, "alexdebrie").await, Some(renamed.clone()));
        // An update to a free one moves the marker.
        Customer::update("alexdebrie")
            .set(f.email, "alex@new.example".to_owned())
            .knowing(&renamed)
            .execute(&db)
            .await
            .unwrap();
        moved_marker(&db, "alex@example.com", "alex@new.example").await;
        // The old email is free again.
        db.create(&copy).await.unwrap();
        // A put that changes the email moves the marker too, or is refused.
        let moved = customer("alexdebrie", "alex@third.example");
        taken(
            db.put(&customer("alexdebrie", "sam@example.com")).await,
            "sam@example.com",
        );
        db.put(&moved).await.unwrap();
        moved_marker(&db, "alex@new.example", "alex@third.example").await;
        // A delete deletes it.
        db.delete::<Customer>(Customer::key("alexdebrie").unwrap())
            .await
            .unwrap();
        assert_eq!(marker(&db, "alex@third.example").await, None);
        assert_eq!(
            marker(&db, "alex@example.com").await,
            Some(book_marker("alex@example.com"))
        );
    }
}

/// A table with a partition key only, whose markers are keyed by their
/// partition key alone.
#[derive(Table)]
#[table(name = "HandleTable", no_sk, entities(Handle))]
pub struct HandleTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = HandleTable, rename_all = "camelCase")]
#[pk("HANDLE#<id>")]
pub struct Handle {
    pub id: String,
    #[attr(unique = "HANDLENAME#<name>")]
    pub name: String,
}

/// The error every oversized key gets, naming the attribute and limit.
fn too_long<T: std::fmt::Debug>(result: Result<T, Error>, attribute: &str, max: usize) {
    match result {
        Err(Error::KeyTooLong {
            entity,
            attribute: a,
            len,
            max: m,
        }) => {
            assert_eq!((a, m), (attribute, max), "{entity}: {len} bytes");
            assert!(len > max);
        }
        other => panic!("expected KeyTooLong on {attribute} (max {max}): {other:?}"),
    }
}

/// A declared marker's text is its sort key too: past DynamoDB's
/// 1024-byte sort key limit (or the 2048-byte partition key limit, on a
/// table without a sort key) the write is refused before sending, with
/// `KeyTooLong` as every long key is, and nothing is written; on both
/// backends.
#[tokio::test]
async fn unique_marker_keys_are_checked_before_sending() {
    // 15 bytes of template, so 1010 bytes of email make a 1025-byte key.
    let long = format!("{}@example.com", "a".repeat(1010 - "@example.com".len()));
    assert_eq!(format!("CUSTOMEREMAIL#{long}").len(), 1024);
    let longer = format!("b{long}");
    for db in both::<EcommerceTable>("marker-key-size").await {
        // At the limit: written.
        db.create(&customer("at-limit", &long)).await.unwrap();
        assert!(marker(&db, &long).await.is_some());
        // One byte over: refused by create, put and an update, nothing sent.
        let before = crate::support::scan_all(db.executor(), db.table_name(), None, None, true)
            .await
            .len();
        too_long(db.create(&customer("over", &longer)).await, "SK", 1024);
        too_long(db.put(&customer("over", &longer)).await, "SK", 1024);
        assert_eq!(stored(&db, "over").await, None);
        let current = customer("short", "short@example.com");
        db.create(&current).await.unwrap();
        let moved = Customer::update("short")
            .set(Customer::fields().email, longer.clone())
            .knowing(&current)
            .execute(&db)
            .await;
        too_long(moved, "SK", 1024);
        assert_eq!(stored(&db, "short").await, Some(current));
        let after = crate::support::scan_all(db.executor(), db.table_name(), None, None, true)
            .await
            .len();
        assert_eq!(
            after,
            before + 2,
            "only `short` and its marker were written"
        );
    }

    // Without a sort key the partition key's 2048 bytes are the limit.
    let name = "n".repeat(2048 - "HANDLENAME#".len());
    let over = format!("{name}n");
    for db in both::<HandleTable>("marker-pk-size").await {
        db.create(&Handle {
            id: "fits".into(),
            name: name.clone(),
        })
        .await
        .unwrap();
        let refused = db
            .create(&Handle {
                id: "over".into(),
                name: over.clone(),
            })
            .await;
        too_long(refused, "PK", 2048);
        let items =
            crate::support::scan_all(db.executor(), db.table_name(), None, None, true).await;
        assert_eq!(
            items.len(),
            2,
            "`fits` and its marker only: {}",
            items.len()
        );
    }
}
