//! Tables the library did not write: items that other clients of the
//! table put there (a Python Lambda, the console, a Workbench import)
//! carry no entity type and no copies of the key fields. Queries that skip
//! other types skip them too, on the table, on an index and in a
//! collection, on both backends.

use singletable::{AttributeValue, Collection, Db, Entity, Error, Item, Table};

use crate::support::{both, raw_put};

#[derive(Table)]
#[table(name = "Existing", gsi1)]
pub struct ExistingTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ExistingTable, rename_all = "camelCase")]
#[pk("CUSTOMER#<customer_id>")]
#[sk("PROFILE")]
pub struct Customer {
    pub customer_id: String,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ExistingTable, rename_all = "camelCase")]
#[pk("CUSTOMER#<customer_id>")]
#[sk("ORDER#<order_id>")]
#[gsi1(pk = "ORDERS", sk = "ORDER#<order_id>")]
#[access(orders_of)]
#[access(all_orders, index = gsi1)]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub total: u32,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum CustomerPage {
    Customer(Customer),
    Order(Order),
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// Items another client wrote in the same partitions: no `entityType` and
/// no copies of the key fields (`ORDER#o-0` as a Lambda writes it), one
/// whose `entityType` is a number, and one on the index only.
async fn foreign_items(db: &Db) {
    let items: [Item; 3] = [
        [
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("ORDER#o-0")),
            ("GSI1PK", s("ORDERS")),
            ("GSI1SK", s("ORDER#o-0")),
            ("Total", AttributeValue::N("12".into())),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
        [
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("ORDER#o-5")),
            ("entityType", AttributeValue::N("7".into())),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
        [
            ("PK", s("IMPORT#1")),
            ("SK", s("ROW#1")),
            ("GSI1PK", s("ORDERS")),
            ("GSI1SK", s("ORDER#o-3")),
        ]
        .map(|(k, v)| (k.to_owned(), v))
        .into(),
    ];
    for item in items {
        raw_put(db, item).await.unwrap();
    }
}

/// Every item of a query read page by page, `page` reading the page after
/// a cursor.
async fn every_page<T, P, F, Fut>(mut page: F) -> Vec<T>
where
    F: FnMut(Option<singletable::Cursor<P>>) -> Fut,
    Fut: std::future::Future<Output = singletable::Result<singletable::query::Page<T, P>>>,
{
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = page(cursor.take()).await.unwrap();
        out.extend(page.items);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return out,
        }
    }
}

fn order(n: u32) -> Order {
    Order {
        customer_id: "c1".into(),
        order_id: format!("o-{n}"),
        total: n * 10,
    }
}

#[tokio::test]
async fn skip_other_types_skips_items_it_cannot_attribute() {
    for db in both::<ExistingTable>("existing-skip").await {
        let ana = Customer {
            customer_id: "c1".into(),
            name: "Ana".into(),
        };
        db.put(&ana).await.unwrap();
        for n in [1, 2, 4] {
            db.put(&order(n)).await.unwrap();
        }
        foreign_items(&db).await;
        let mine = vec![order(1), order(2), order(4)];

        // By default an item of no known type is a surprise, reported.
        let refused = Order::orders_of("c1").all(&db).await;
        assert!(
            matches!(
                &refused,
                Err(Error::Decode {
                    entity: "Order",
                    ..
                })
            ),
            "{refused:?}"
        );
        let refused = Order::all_orders().all(&db).await;
        assert!(matches!(&refused, Err(Error::Decode { .. })), "{refused:?}");

        // Skipped, on the table and on the index, whole and page by page.
        let on_table = Order::orders_of("c1").skip_other_types().all(&db).await;
        assert_eq!(on_table.unwrap(), mine);
        let on_index = Order::all_orders().skip_other_types().all(&db).await;
        assert_eq!(on_index.unwrap(), mine);
        let shared = &db;
        let paged = every_page(|cursor| async move {
            let query = Order::orders_of("c1").skip_other_types().limit(1);
            query.page(shared, cursor.as_ref()).await
        })
        .await;
        assert_eq!(paged, mine);
        let first = Order::orders_of("c1").skip_other_types().first(&db).await;
        assert_eq!(first.unwrap(), Some(order(1)));

        // A collection of the partition skips them as well.
        let page = CustomerPage::query(Customer::partition("c1").unwrap())
            .skip_other_types()
            .all(&db)
            .await
            .unwrap();
        let mut expected = vec![CustomerPage::Order(order(1))];
        expected.extend([
            CustomerPage::Order(order(2)),
            CustomerPage::Order(order(4)),
            CustomerPage::Customer(ana.clone()),
        ]);
        assert_eq!(page, expected);

        // Nothing was lost: the other client's items are still there.
        let raw = crate::support::raw_item(&db, "CUSTOMER#c1", "ORDER#o-0").await;
        assert_eq!(raw.get("Total"), Some(&AttributeValue::N("12".into())));
    }
}

/// Adoption: entities that declare `adopt = keys` read the items other
/// clients wrote, recognised by their key templates.
mod adopted {
    use singletable::{
        AttributeValue, Collection, Db, DecodeErrorKind, Entity, Error, Item, Table,
    };

    use super::s;
    use crate::support::{both, raw_item, raw_put};

    #[derive(Table)]
    #[table(name = "Adopted", gsi1)]
    pub struct AdoptedTable;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = AdoptedTable, rename_all = "camelCase", adopt = keys)]
    #[pk("ACCOUNT#<account_id>")]
    #[sk("PROFILE")]
    pub struct Account {
        pub account_id: String,
        pub name: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = AdoptedTable, rename_all = "camelCase", adopt = keys)]
    #[pk("ACCOUNT#<account_id>")]
    #[sk("INVOICE#<invoice_id>")]
    #[gsi1(pk = "INVOICES", sk = "INVOICE#<invoice_id>")]
    #[access(invoices_of)]
    #[access(all_invoices, index = gsi1)]
    pub struct Invoice {
        pub account_id: String,
        pub invoice_id: String,
        pub total: u32,
    }

    /// Does not adopt: items under its templates without a type stay
    /// another client's.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = AdoptedTable, rename_all = "camelCase")]
    #[pk("ACCOUNT#<account_id>")]
    #[sk("NOTE#<note_id>")]
    pub struct Note {
        pub account_id: String,
        pub note_id: String,
        pub text: String,
    }

    #[derive(Collection, Debug, Clone, PartialEq)]
    pub enum AccountPage {
        Account(Account),
        Invoice(Invoice),
        Note(Note),
    }

    pub(super) fn item<const N: usize>(attrs: [(&str, AttributeValue); N]) -> Item {
        attrs.map(|(k, v)| (k.to_owned(), v)).into()
    }

    pub(super) fn n(v: u32) -> AttributeValue {
        AttributeValue::N(v.to_string())
    }

    pub(super) fn invoice(account: &str, id: &str, total: u32) -> Invoice {
        Invoice {
            account_id: account.into(),
            invoice_id: id.into(),
            total,
        }
    }

    /// An item of partition `ACCOUNT#a1` with one data attribute.
    fn in_a1(sk: &str, data: (&str, AttributeValue)) -> Item {
        item([("PK", s("ACCOUNT#a1")), ("SK", s(sk)), data])
    }

    /// What a Python Lambda wrote before the library: keys and data, no
    /// entity type, no copies of the key fields.
    fn legacy_items() -> Vec<Item> {
        vec![
            item([
                ("PK", s("ACCOUNT#a1")),
                ("SK", s("INVOICE#i-0")),
                ("GSI1PK", s("INVOICES")),
                ("GSI1SK", s("INVOICE#i-0")),
                ("total", n(12)),
            ]),
            in_a1("PROFILE", ("name", s("Ana"))),
            // No template of the table's entities matches.
            in_a1("LEGACY#7", ("total", n(3))),
            // Note's template matches, but Note adopts nothing.
            in_a1("NOTE#n1", ("text", s("hi"))),
            // On the index, under a primary key no entity's templates build.
            item([
                ("PK", s("IMPORT#1")),
                ("SK", s("ROW#1")),
                ("GSI1PK", s("INVOICES")),
                ("GSI1SK", s("INVOICE#i-5")),
                ("total", n(5)),
            ]),
        ]
    }

    pub(super) async fn seed(db: &Db) -> (Account, Note) {
        for item in legacy_items() {
            raw_put(db, item).await.unwrap();
        }
        db.put(&invoice("a1", "i-1", 10)).await.unwrap();
        let note = Note {
            account_id: "a1".into(),
            note_id: "n2".into(),
            text: "mine".into(),
        };
        db.put(&note).await.unwrap();
        let ana = Account {
            account_id: "a1".into(),
            name: "Ana".into(),
        };
        (ana, note)
    }

    #[tokio::test]
    async fn items_without_entity_type_are_adopted_by_key_templates() {
        for db in both::<AdoptedTable>("existing-adopt").await {
            let (ana, note) = seed(&db).await;
            let mine = vec![invoice("a1", "i-0", 12), invoice("a1", "i-1", 10)];

            // Get: the key fields are read from the key.
            let got = db.get::<Invoice>(Invoice::key("a1", "i-0").unwrap()).await;
            assert_eq!(got.unwrap(), Some(invoice("a1", "i-0", 12)));
            let got = db.get::<Account>(Account::key("a1").unwrap()).await;
            assert_eq!(got.unwrap(), Some(ana.clone()));
            // Read as the wrong entity (a raw key: a typed one of another
            // entity does not compile), an adopted item is not claimed.
            let raw = Account::key("a1").unwrap().into_key();
            let wrong = db.get::<Invoice>(singletable::KeyOf::new(raw)).await;
            assert!(matches!(&wrong, Err(Error::Decode { .. })), "{wrong:?}");

            // Table query, whole and page by page.
            assert_eq!(Invoice::invoices_of("a1").all(&db).await.unwrap(), mine);
            // Counted as read: the adopted items too.
            let counted = Invoice::invoices_of("a1").count(&db).await.unwrap();
            assert_eq!(counted, mine.len() as u64);
            let shared = &db;
            let paged = super::every_page(|cursor| async move {
                let query = Invoice::invoices_of("a1").limit(1);
                query.page(shared, cursor.as_ref()).await
            })
            .await;
            assert_eq!(paged, mine);

            // Index query: the import row's key is no invoice's, so it is
            // not claimed: an error by default, skipped on request.
            let refused = Invoice::all_invoices().all(&db).await;
            assert!(matches!(&refused, Err(Error::Decode { .. })), "{refused:?}");
            let on_index = Invoice::all_invoices().skip_other_types().all(&db).await;
            assert_eq!(on_index.unwrap(), mine);

            // Collection: adopted members claim their items; the legacy
            // row and the untyped note (Note adopts nothing) are skipped.
            let partition = || Account::partition("a1").unwrap();
            let refused = AccountPage::query(partition()).all(&db).await;
            assert!(matches!(&refused, Err(Error::Decode { .. })), "{refused:?}");
            let page = AccountPage::query(partition())
                .skip_other_types()
                .all(&db)
                .await
                .unwrap();
            let counted = AccountPage::query(partition())
                .skip_other_types()
                .count(&db)
                .await
                .unwrap();
            assert_eq!(counted, page.len() as u64);
            assert_eq!(
                page,
                vec![
                    AccountPage::Invoice(invoice("a1", "i-0", 12)),
                    AccountPage::Invoice(invoice("a1", "i-1", 10)),
                    AccountPage::Note(note.clone()),
                    AccountPage::Account(ana.clone()),
                ]
            );
            // Decoded from a map, as streams and batches do.
            let raw = raw_item(&db, "ACCOUNT#a1", "INVOICE#i-0").await;
            let decoded = <AccountPage as singletable::Decode>::decode(
                raw.clone(),
                singletable::OtherTypes::Error,
            );
            assert_eq!(
                decoded.unwrap(),
                Some(AccountPage::Invoice(invoice("a1", "i-0", 12)))
            );
            assert_eq!(Invoice::from_item(raw).unwrap(), invoice("a1", "i-0", 12));
            let legacy = raw_item(&db, "ACCOUNT#a1", "LEGACY#7").await;
            let skipped =
                <Invoice as singletable::Decode>::decode(legacy, singletable::OtherTypes::Skip);
            assert_eq!(skipped.unwrap(), None);

            // An adopted item whose copy of a key field contradicts its
            // key is a typed error.
            raw_put(
                &db,
                item([
                    ("PK", s("ACCOUNT#a2")),
                    ("SK", s("INVOICE#i-9")),
                    ("accountId", s("a3")),
                    ("total", n(1)),
                ]),
            )
            .await
            .unwrap();
            let forged = db.get::<Invoice>(Invoice::key("a2", "i-9").unwrap()).await;
            match forged {
                Err(Error::Decode { source, .. }) => {
                    assert!(
                        matches!(source.kind(), DecodeErrorKind::KeyMismatch { .. }),
                        "{source:?}"
                    )
                }
                other => panic!("{other:?}"),
            }
            // Adopted but missing a data field: a typed error too.
            raw_put(
                &db,
                item([("PK", s("ACCOUNT#a2")), ("SK", s("INVOICE#i-8"))]),
            )
            .await
            .unwrap();
            let partial = db.get::<Invoice>(Invoice::key("a2", "i-8").unwrap()).await;
            assert!(matches!(&partial, Err(Error::Decode { .. })), "{partial:?}");

            // Nothing was written: the items are as the other client left them.
            let raw = raw_item(&db, "ACCOUNT#a1", "INVOICE#i-0").await;
            assert!(!raw.contains_key("entityType"), "{raw:?}");
            assert!(!raw.contains_key("invoiceId"), "{raw:?}");
        }
    }
}

mod adoption {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use singletable::backfill::Checkpoint;
    use singletable::{AttributeValue, Db, Error, Item};
    use singletable_runtime::exec::BoxFuture;

    use super::adopted::{AdoptedTable, Invoice, Note, invoice, item, n, seed};
    use super::s;
    use crate::backfill::{crashed, hooked};
    use crate::support::{both, raw_item, raw_put};

    /// Items no adoption of `Invoice` may touch: another type's, one
    /// Invoice does not claim, one it claims but cannot read, the library's.
    const UNTOUCHED: [(&str, &str); 7] = [
        ("ACCOUNT#a1", "LEGACY#7"),
        ("ACCOUNT#a1", "NOTE#n1"),
        ("ACCOUNT#a1", "PROFILE"),
        ("IMPORT#1", "ROW#1"),
        ("ACCOUNT#a1", "INVOICE#i-1"),
        ("ACCOUNT#a1", "NOTE#n2"),
        ("ACCOUNT#a2", "INVOICE#i-9"),
    ];

    async fn snapshot(db: &Db) -> Vec<Item> {
        let mut out = Vec::new();
        for (pk, sk) in UNTOUCHED {
            out.push(raw_item(db, pk, sk).await);
        }
        out
    }

    #[tokio::test]
    async fn adopt_stamps_existing_items_and_resumes() {
        for db in both::<AdoptedTable>("existing-adopt-run").await {
            seed(&db).await;
            // Twelve more invoices another client wrote, without index keys.
            for k in 0..12u32 {
                let row = item([
                    ("PK", s(&format!("ACCOUNT#b{}", k % 3))),
                    ("SK", s(&format!("INVOICE#j-{k:02}"))),
                    ("total", n(k)),
                ]);
                raw_put(&db, row).await.unwrap();
            }
            // Claimed by its key, but its copy of `accountId` contradicts it.
            let forged = item([
                ("PK", s("ACCOUNT#a2")),
                ("SK", s("INVOICE#i-9")),
                ("accountId", s("a3")),
                ("total", n(1)),
            ]);
            raw_put(&db, forged).await.unwrap();
            const ADOPTABLE: u64 = 13; // i-0 and the twelve
            let untouched = snapshot(&db).await;

            // A dry run counts and writes nothing.
            let dry = singletable::Backfill::<Invoice>::adopt()
                .dry_run()
                .run(&db)
                .await
                .unwrap();
            assert_eq!(dry.counts.rewritten, ADOPTABLE, "{dry:?}");
            assert_eq!(dry.failures.len(), 1, "{dry:?}");
            let raw = raw_item(&db, "ACCOUNT#b0", "INVOICE#j-00").await;
            assert!(!raw.contains_key("entityType"), "{raw:?}");
            // An entity that adopts nothing cannot be adopted.
            let refused = singletable::Backfill::<Note>::adopt().run(&db).await;
            assert!(
                matches!(
                    refused,
                    Err(Error::Refused(singletable::Refusal::NotAdopting { .. }))
                ),
                "{refused:?}"
            );

            // The first run crashes at its fifth write.
            let updates = Arc::new(AtomicUsize::new(0));
            let flaky = hooked(db.executor().clone(), {
                let updates = updates.clone();
                move |op, _: Option<&Item>| -> BoxFuture<'static, Option<Error>> {
                    let crash = op == "UpdateItem" && updates.fetch_add(1, Ordering::SeqCst) >= 4;
                    Box::pin(async move { crash.then(crashed) })
                }
            });
            let saved: Mutex<Option<String>> = Mutex::new(None);
            let flaky = Db::with_executor(flaky, db.table_name());
            let err = singletable::Backfill::<Invoice>::adopt()
                .segments(1)
                .page_size(4)
                .on_progress(|p| *saved.lock().unwrap() = Some(p.checkpoint.to_json()))
                .run(&flaky)
                .await
                .unwrap_err();
            assert!(matches!(err, Error::Service { .. }), "{err:?}");
            let saved = saved.into_inner().unwrap().expect("progress was reported");
            let checkpoint = Checkpoint::from_json(&saved).unwrap();
            assert!(!checkpoint.is_done());
            // An adoption's checkpoint resumes adoptions only.
            let wrong = singletable::Backfill::<Invoice>::new()
                .resume_from(checkpoint.clone())
                .run(&db)
                .await;
            assert!(
                matches!(
                    wrong,
                    Err(Error::Refused(
                        singletable::Refusal::CheckpointOfAnother { .. }
                    ))
                ),
                "{wrong:?}"
            );

            // Resumed: the rest is stamped, each item once in all.
            let writes = Arc::new(AtomicUsize::new(0));
            let counted = hooked(db.executor().clone(), {
                let writes = writes.clone();
                move |op, _: Option<&Item>| -> BoxFuture<'static, Option<Error>> {
                    if op == "UpdateItem" {
                        writes.fetch_add(1, Ordering::SeqCst);
                    }
                    Box::pin(async { None })
                }
            });
            let counted = Db::with_executor(counted, db.table_name());
            let report = singletable::Backfill::<Invoice>::adopt()
                .resume_from(checkpoint)
                .page_size(4)
                .run(&counted)
                .await
                .unwrap();
            assert_eq!(
                4 + writes.load(Ordering::SeqCst) as u64,
                ADOPTABLE,
                "{report:?}"
            );
            assert_eq!(report.counts.failed, 1, "{report:?}");
            assert!(report.checkpoint.is_done());

            // Afterwards they are ordinary invoices: stamped, with copies of
            // the key fields and index keys, the other client's data kept.
            let raw = raw_item(&db, "ACCOUNT#b0", "INVOICE#j-00").await;
            assert_eq!(raw.get("entityType"), Some(&s("Invoice")), "{raw:?}");
            assert_eq!(raw.get("accountId"), Some(&s("b0")), "{raw:?}");
            assert_eq!(raw.get("invoiceId"), Some(&s("j-00")), "{raw:?}");
            assert_eq!(raw.get("GSI1SK"), Some(&s("INVOICE#j-00")), "{raw:?}");
            assert_eq!(raw.get("total"), Some(&AttributeValue::N("0".into())));
            let of_b0 = Invoice::invoices_of("b0").all(&db).await.unwrap();
            let expected: Vec<Invoice> = (0..12u32)
                .filter(|k| k % 3 == 0)
                .map(|k| invoice("b0", &format!("j-{k:02}"), k))
                .collect();
            assert_eq!(of_b0, expected);
            let indexed = Invoice::all_invoices().skip_other_types().all(&db).await;
            assert_eq!(indexed.unwrap().len(), 14); // the twelve, i-0, i-1
            assert_eq!(snapshot(&db).await, untouched);

            // A second run changes nothing.
            let again = singletable::Backfill::<Invoice>::adopt()
                .run(&db)
                .await
                .unwrap();
            assert_eq!(again.counts.rewritten, 0, "{again:?}");
            assert_eq!(again.counts.matched, 1, "{again:?}"); // the forged one
            assert_eq!(snapshot(&db).await, untouched);
        }
    }
}

/// The DynamoDB Book's session store: a keys-only index of sessions by
/// user, read for the keys of a user's sessions (to end them all); an
/// access pattern on it returns typed keys, never a decode failure.
mod keys_only {
    use singletable::{
        AttributeValue, Db, DecodeErrorKind, Document, Entity, Error, Item, KeyOf, Projected, Table,
    };

    use crate::support::{both, raw_put};

    #[derive(Table)]
    #[table(name = "Sessions", gsi1(keys_only), gsi2(include(agent)))]
    pub struct Sessions;

    /// What the `gsi2` index holds of a session besides its keys.
    #[derive(Document, Debug, Clone, PartialEq)]
    pub struct SessionAgent {
        pub agent: Option<String>,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Sessions, rename_all = "camelCase")]
    #[pk("SESSION#<token>")]
    #[sk("SESSION")]
    #[gsi1(pk = "USER#<username>", sk = "SESSION#<token>")]
    #[gsi2(pk = "AGENTS#<username>", sk = "SESSION#<token>")]
    #[access(sessions_of, index = gsi1, keys)]
    #[access(agents_of, index = gsi2, select = SessionAgent)]
    pub struct Session {
        pub token: String,
        pub username: String,
        pub created_at: u64,
        pub agent: Option<String>,
    }

    fn session(token: &str, user: &str) -> Session {
        Session {
            token: token.into(),
            username: user.into(),
            created_at: 1_700_000_000,
            agent: Some("curl".into()),
        }
    }

    fn tokens(keys: &[KeyOf<Session>]) -> Vec<String> {
        keys.iter()
            .map(|k| Session::parse_pk(&k.key().pk).unwrap())
            .collect()
    }

    async fn sessions_of(db: &Db, user: &str) -> Vec<String> {
        let keys = Session::sessions_of(user).skip_other_types().all(db).await;
        tokens(&keys.unwrap())
    }

    #[tokio::test]
    async fn keys_only_index_pattern_returns_keys() {
        for db in both::<Sessions>("keys-only").await {
            for (t, u) in [("t3", "ana"), ("t1", "ana"), ("t2", "ana"), ("t9", "bob")] {
                db.put(&session(t, u)).await.unwrap();
            }
            // Another client's item under the same index keys, whose table
            // key is no session's.
            let other: Item = [
                ("PK", "LEGACY#7"),
                ("SK", "SESSION"),
                ("GSI1PK", "USER#ana"),
                ("GSI1SK", "SESSION#t7"),
            ]
            .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
            .into();
            raw_put(&db, other).await.unwrap();

            // The user's session keys, in index order; the other item is
            // skipped, or refused with a typed error.
            assert_eq!(sessions_of(&db, "ana").await, ["t1", "t2", "t3"]);
            let err = Session::sessions_of("ana").all(&db).await.unwrap_err();
            assert!(
                matches!(&err, Error::Decode { entity: "Session", source } if matches!(source.kind(), DecodeErrorKind::KeyMismatch { stored, .. } if stored == "LEGACY#7")),
                "{err:?}"
            );
            // Pages and counts agree with `all`.
            let shared = &db;
            let first = Session::sessions_of("ana")
                .skip_other_types()
                .limit(2)
                .page(shared, None)
                .await
                .unwrap();
            assert_eq!(tokens(&first.items), ["t1", "t2"]);
            let rest = Session::sessions_of("ana")
                .skip_other_types()
                .limit(2)
                .page(shared, first.cursor.as_ref())
                .await
                .unwrap();
            assert_eq!(tokens(&rest.items), ["t3"]);
            let count = Session::sessions_of("ana")
                .skip_other_types()
                .count(&db)
                .await;
            assert_eq!(count.unwrap(), 3);

            // The include index returns the projected attributes, typed.
            let agents: Vec<Projected<Session, SessionAgent>> =
                Session::agents_of("ana").all(&db).await.unwrap();
            assert_eq!(agents.len(), 3);
            assert_eq!(agents[0].key, Session::key("t1").unwrap());
            assert!(
                agents
                    .iter()
                    .all(|a| a.item.agent.as_deref() == Some("curl"))
            );

            // A key gets the whole item, and ends the session.
            let keys = Session::sessions_of("ana")
                .skip_other_types()
                .all(&db)
                .await
                .unwrap();
            let full = db.get::<Session>(keys[0].clone()).await.unwrap();
            assert_eq!(full, Some(session("t1", "ana")));
            for k in keys {
                db.delete::<Session>(k).await.unwrap();
            }
            assert!(sessions_of(&db, "ana").await.is_empty());
            assert_eq!(sessions_of(&db, "bob").await, ["t9"]);
        }
    }
}
