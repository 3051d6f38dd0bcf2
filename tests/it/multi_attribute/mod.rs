//! Multi-attribute index keys (DynamoDB, November 2025): a global index
//! keyed on the items' own typed attributes, queried with DynamoDB's
//! key-condition rules, on DynamoDB Local and on the embedded backend alike.

use singletable::{Db, Entity, Error, Table};

use crate::support::both;

#[derive(Table)]
#[table(
    name = "Tickets",
    gsi1,
    gsi2(pk(tenantId = S, region = N), sk(status = S, createdAt = N)),
    ttl = "expiresAt"
)]
pub struct Tickets;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("TICKET#<id>")]
#[sk("TICKET")]
#[gsi1(pk = "TENANT#<tenant_id>", sk = "AT#<created_at>")]
#[gsi2(pk(tenant_id, region), sk(status, created_at))]
#[access(by_status, index = gsi2)]
pub struct Ticket {
    pub id: String,
    pub tenant_id: String,
    pub region: u32,
    /// `None`: not in `gsi2`.
    pub status: Option<String>,
    pub created_at: i64,
    #[attr(ttl)]
    pub expires_at: Option<i64>,
}

fn ticket(id: &str, tenant: &str, region: u32, status: Option<&str>, at: i64) -> Ticket {
    Ticket {
        id: id.into(),
        tenant_id: tenant.into(),
        region,
        status: status.map(str::to_owned),
        created_at: at,
        expires_at: None,
    }
}

fn data() -> Vec<Ticket> {
    let mut out = Vec::new();
    let statuses = ["OPEN", "CLOSED", "OPENED", "ON_HOLD", "DONE"];
    for i in 0..40i64 {
        let status = statuses[((i / 2) % 5) as usize];
        // Negative, small and large numbers: they sort as numbers.
        let at = (i * 53 % 29 - 14) * 10i64.pow(((i / 3) % 4) as u32);
        out.push(ticket(
            &format!("t{i:02}"),
            "acme",
            1 + (i % 2) as u32,
            Some(status),
            at,
        ));
    }
    out.push(ticket("other-tenant", "globex", 1, Some("OPEN"), 5));
    out.push(ticket("other-region", "acme", 3, Some("OPEN"), 5));
    out.push(ticket("no-status", "acme", 1, None, 5));
    out
}

/// The items of partition (acme, 1) in DynamoDB's order: the tuple of
/// typed values (status by bytes, createdAt numerically), then the table key.
fn expected(keep: impl Fn(&Ticket) -> bool, forward: bool) -> Vec<String> {
    let mut v: Vec<Ticket> = data()
        .into_iter()
        .filter(|t| t.tenant_id == "acme" && t.region == 1 && t.status.is_some())
        .filter(|t| keep(t))
        .collect();
    // Equal index keys never occur in `data`, so the table key never decides.
    v.sort_by(|a, b| {
        (a.status.as_deref().map(str::as_bytes), a.created_at)
            .cmp(&(b.status.as_deref().map(str::as_bytes), b.created_at))
    });
    if !forward {
        v.reverse();
    }
    v.into_iter().map(|t| t.id).collect()
}

fn ids(v: Vec<Ticket>) -> Vec<String> {
    v.into_iter().map(|t| t.id).collect()
}

/// Every page of `q` at two items a page, following cursors.
async fn paged<P>(
    db: &Db,
    q: impl Fn() -> singletable::Query<Ticket, singletable::OnGlobalIndex, P>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = q().limit(2).page(db, cursor.as_ref()).await.unwrap();
        out.extend(ids(page.items));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return out,
        }
    }
}

/// A versioned entity on the same index (optimistic locking).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tickets, rename_all = "camelCase")]
#[pk("LOCKED#<id>")]
#[sk("LOCKED")]
#[gsi2(pk(tenant_id, region), sk(status, created_at))]
#[access(locked_by_status, index = gsi2)]
pub struct Locked {
    pub id: String,
    pub tenant_id: String,
    pub region: u32,
    pub status: String,
    pub created_at: i64,
    #[attr(version)]
    pub version: u64,
}

#[tokio::test]
async fn multi_attribute_index_queries_against_dynamodb_local() {
    for db in both::<Tickets>("multi-query").await {
        for t in data() {
            db.put(&t).await.unwrap();
        }
        let status = |t: &Ticket| t.status.clone().unwrap_or_default();
        let q = || Ticket::by_status("acme", 1);
        // Each shape's query is typed by the stage its key condition
        // reached, so every shape is checked by the same code, expanded.
        macro_rules! shape {
            ($name:literal, $query:expr, $keep:expr) => {{
                let (name, keep) = ($name, $keep);
                for forward in [true, false] {
                    let dir = |forward: bool| {
                        let q = $query;
                        if forward { q } else { q.newest_first() }
                    };
                    let want = expected(&keep, forward);
                    let got = ids(dir(forward).all(&db).await.unwrap());
                    assert_eq!(got, want, "{name}, forward {forward}");
                    assert!(!want.is_empty(), "{name} selects items");
                    assert_eq!(
                        paged(&db, || dir(forward)).await,
                        want,
                        "{name} paged, forward {forward}"
                    );
                    assert_eq!(
                        dir(forward).count(&db).await.unwrap(),
                        want.len() as u64,
                        "{name} count"
                    );
                }
            }};
        }
        shape!("partition only", q(), |_: &Ticket| true);
        shape!("status =", q().sk_eq("OPEN"), |t: &Ticket| status(t)
            == "OPEN");
        shape!("status <", q().sk_lt("OPEN"), |t: &Ticket| status(t)
            .as_str()
            < "OPEN");
        shape!("status <=", q().sk_le("OPEN"), |t: &Ticket| status(t)
            .as_str()
            <= "OPEN");
        shape!("status >", q().sk_gt("OPEN"), |t: &Ticket| status(t)
            .as_str()
            > "OPEN");
        shape!("status >=", q().sk_ge("OPEN"), |t: &Ticket| status(t)
            .as_str()
            >= "OPEN");
        shape!(
            "status between",
            q().sk_between("CLOSED", "OPEN"),
            |t: &Ticket| ("CLOSED"..="OPEN").contains(&status(t).as_str())
        );
        shape!(
            "status begins_with",
            q().sk_begins_with("OP"),
            |t: &Ticket| status(t).starts_with("OP")
        );
        shape!(
            "status =, createdAt =",
            q().sk_eq("OPEN").sk_eq(-14),
            |t: &Ticket| status(t) == "OPEN" && t.created_at == -14
        );
        shape!(
            "status =, createdAt <",
            q().sk_eq("OPEN").sk_lt(5),
            |t: &Ticket| status(t) == "OPEN" && t.created_at < 5
        );
        shape!(
            "status =, createdAt <=",
            q().sk_eq("OPEN").sk_le(-14),
            |t: &Ticket| status(t) == "OPEN" && t.created_at <= -14
        );
        shape!(
            "status =, createdAt >",
            q().sk_eq("OPEN").sk_gt(-14),
            |t: &Ticket| status(t) == "OPEN" && t.created_at > -14
        );
        shape!(
            "status =, createdAt >=",
            q().sk_eq("OPEN").sk_ge(200),
            |t: &Ticket| status(t) == "OPEN" && t.created_at >= 200
        );
        shape!(
            "status =, createdAt between",
            q().sk_eq("OPEN").sk_between(-100, 500),
            |t: &Ticket| status(t) == "OPEN" && (-100..=500).contains(&t.created_at)
        );
        // Other tenants and regions are other partitions.
        assert_eq!(
            ids(Ticket::by_status("globex", 1).all(&db).await.unwrap()),
            ["other-tenant"]
        );
        assert_eq!(
            ids(Ticket::by_status("acme", 3).all(&db).await.unwrap()),
            ["other-region"]
        );
        // A cursor of one partition or condition is refused under another.
        let page = q().sk_eq("OPEN").limit(1).page(&db, None).await.unwrap();
        let cursor = page.cursor.unwrap();
        let foreign = Ticket::by_status("acme", 2)
            .sk_eq("OPEN")
            .page(&db, Some(&cursor))
            .await;
        assert!(matches!(foreign, Err(Error::Cursor(_))), "{foreign:?}");
        let other = q().sk_eq("DONE").page(&db, Some(&cursor)).await;
        assert!(matches!(other, Err(Error::Cursor(_))), "{other:?}");
        // A filter on a non-key attribute is fine; on a key attribute of
        // the index, DynamoDB refuses it, and so does singletable, first.
        let f = Ticket::fields();
        let filtered = q().filter(f.id.begins_with("t0")).all(&db).await.unwrap();
        assert_eq!(ids(filtered), expected(|t| t.id.starts_with("t0"), true));
        let refused = q().filter(f.created_at.gt(&0)).all(&db).await;
        assert!(
            matches!(&refused, Err(Error::Refused(singletable::Refusal::FilterOnKey { attribute, .. })) if attribute == "createdAt"),
            "{refused:?}"
        );
        // An empty string cannot be a key value: refused before sending.
        let empty = Ticket::by_status("", 1).all(&db).await;
        assert!(matches!(empty, Err(Error::KeyValue { .. })), "{empty:?}");
    }
}

#[tokio::test]
async fn multi_attribute_index_is_sparse() {
    for db in both::<Tickets>("multi-sparse").await {
        db.put(&ticket("a", "acme", 1, Some("OPEN"), 1))
            .await
            .unwrap();
        db.put(&ticket("b", "acme", 1, None, 2)).await.unwrap();
        // The item without `status` is stored, but not in `gsi2`.
        assert!(
            db.get::<Ticket>(Ticket::key("b").unwrap())
                .await
                .unwrap()
                .is_some()
        );
        assert_eq!(
            ids(Ticket::by_status("acme", 1).all(&db).await.unwrap()),
            ["a"]
        );
        let item = ticket("b", "acme", 1, None, 2).to_item().unwrap();
        assert!(!item.contains_key("status"));
        assert!(
            !item.keys().any(|k| k.starts_with("GSI2")),
            "no synthetic keys: {item:?}"
        );
        // An empty string is refused before sending (DynamoDB refuses it in
        // an index key attribute).
        let empty = db.put(&ticket("c", "acme", 1, Some(""), 3)).await;
        assert!(
            matches!(
                empty,
                Err(Error::KeyValue {
                    field: "status",
                    ..
                })
            ),
            "{empty:?}"
        );
        // Removing the attribute takes the item out of the index.
        Ticket::update("a")
            .set(Ticket::fields().status, None)
            .execute(&db)
            .await
            .unwrap();
        assert!(
            Ticket::by_status("acme", 1)
                .all(&db)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[tokio::test]
async fn multi_attribute_update_moves_item_in_index() {
    for db in both::<Tickets>("multi-update").await {
        let f = Ticket::fields();
        db.put(&ticket("a", "acme", 1, Some("OPEN"), 10))
            .await
            .unwrap();
        let open = || Ticket::by_status("acme", 1).sk_eq("OPEN");
        assert_eq!(ids(open().all(&db).await.unwrap()), ["a"]);
        // An update of a key attribute moves the item: no synthetic key to
        // rewrite, the attribute is the key.
        Ticket::update("a")
            .set(f.status, Some("CLOSED".to_string()))
            .execute(&db)
            .await
            .unwrap();
        assert!(open().all(&db).await.unwrap().is_empty());
        let closed = Ticket::by_status("acme", 1)
            .sk_eq("CLOSED")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(closed), ["a"]);
        // Optimistic locking on an entity of the same index.
        let mut l = Locked {
            id: "l".into(),
            tenant_id: "acme".into(),
            region: 1,
            status: "OPEN".into(),
            created_at: 1,
            version: 0,
        };
        db.put_versioned(&mut l).await.unwrap();
        let lf = Locked::fields();
        Locked::update("l")
            .set(lf.status, "CLOSED".to_string())
            .if_version(l.version)
            .execute(&db)
            .await
            .unwrap();
        let stale = Locked::update("l")
            .set(lf.status, "OPEN".to_string())
            .if_version(l.version)
            .execute(&db)
            .await;
        assert!(
            matches!(stale, Err(Error::VersionConflict { .. })),
            "{stale:?}"
        );
        let locked = Locked::locked_by_status("acme", 1)
            .sk_eq("CLOSED")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(
            locked
                .iter()
                .map(|l| (l.id.as_str(), l.version))
                .collect::<Vec<_>>(),
            [("l", 2)]
        );
        // The other entity's item is skipped by this entity's pattern.
        let closed = Ticket::by_status("acme", 1)
            .sk_eq("CLOSED")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(closed), ["a"]);
        // The partition attributes move it to another partition.
        Ticket::update("a")
            .set(f.region, 2)
            .execute(&db)
            .await
            .unwrap();
        assert!(
            Ticket::by_status("acme", 1)
                .all(&db)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            ids(Ticket::by_status("acme", 2).all(&db).await.unwrap()),
            ["a"]
        );
        // The sort order follows the new number.
        Ticket::update("a")
            .set(f.created_at, -5)
            .execute(&db)
            .await
            .unwrap();
        db.put(&ticket("b", "acme", 2, Some("CLOSED"), 0))
            .await
            .unwrap();
        let order = Ticket::by_status("acme", 2)
            .sk_eq("CLOSED")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(order), ["a", "b"]);
        // An update setting an empty string is refused before sending.
        let empty = Ticket::update("a")
            .set(f.status, Some(String::new()))
            .execute(&db)
            .await;
        assert!(matches!(empty, Err(Error::KeyValue { .. })), "{empty:?}");
        // Transactions and batches write the index the same way.
        singletable::Transaction::new()
            .put(&ticket("c", "acme", 2, Some("CLOSED"), 7))
            .update(Ticket::update("b").set(f.status, Some("OPEN".to_string())))
            .execute(&db)
            .await
            .unwrap();
        singletable::BatchWriter::new()
            .put(&ticket("d", "acme", 2, Some("CLOSED"), 8))
            .delete::<Ticket>(Ticket::key("a").unwrap())
            .execute(&db)
            .await
            .unwrap();
        let closed = Ticket::by_status("acme", 2)
            .sk_eq("CLOSED")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(closed), ["c", "d"]);
        let open = Ticket::by_status("acme", 2)
            .sk_eq("OPEN")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(open), ["b"]);
        // An expired item is hidden from the index's queries too.
        let mut expired = ticket("e", "acme", 2, Some("OPEN"), 9);
        expired.expires_at = Some(1);
        db.put(&expired).await.unwrap();
        let open = Ticket::by_status("acme", 2)
            .sk_eq("OPEN")
            .all(&db)
            .await
            .unwrap();
        assert_eq!(ids(open), ["b"]);
    }
}

mod design;

/// The shop's orders of a status in a date range, on its multi-attribute
/// index `GSI4` (`status`, `createdAt`): the same orders as the reference
/// layout's GSI1 query filtered by date, in date order, on both backends.
#[tokio::test]
async fn shop_orders_by_status_and_date() {
    use crate::model::{AppTable, Order, OrderStatus};
    for db in both::<AppTable>("shop-multi").await {
        crate::app::seed(&db, &crate::app::sample()).await.unwrap();
        for status in [
            OrderStatus::Pending,
            OrderStatus::Shipped,
            OrderStatus::Delivered,
        ] {
            let (from, to) = ("2024-05-08", "2024-05-21");
            let mut want = Order::orders_by_status(&status).all(&db).await.unwrap();
            want.retain(|o| (from..=to).contains(&o.created_at.as_str()));
            want.sort_by(|a, b| (&a.created_at, &a.order_id).cmp(&(&b.created_at, &b.order_id)));
            let got = Order::orders_by_status_and_date(&status)
                .sk_between(from, to)
                .all(&db)
                .await
                .unwrap();
            let dates = |v: &[Order]| v.iter().map(|o| o.created_at.clone()).collect::<Vec<_>>();
            assert_eq!(dates(&got), dates(&want), "{status:?}");
            let mut got_ids: Vec<_> = got.iter().map(|o| o.order_id.clone()).collect();
            let mut want_ids: Vec<_> = want.iter().map(|o| o.order_id.clone()).collect();
            got_ids.sort();
            want_ids.sort();
            assert_eq!(got_ids, want_ids, "{status:?}");
        }
        // No synthetic key is written for it.
        let order = &crate::app::sample().orders[0].0;
        assert!(!order.to_item().unwrap().contains_key("GSI4PK"));

        // The order's collection (its partition on the table, with its
        // items) reads it as the multi-attribute index does, before and
        // after a transaction moves it in that index.
        let (order, items) = crate::app::sample()
            .orders
            .into_iter()
            .find(|(o, items)| o.status == OrderStatus::Pending && !items.is_empty())
            .unwrap();
        let read = |db: &Db, id: String| {
            let db = db.clone();
            async move {
                crate::model::OrderWithItems::query(Order::partition(&id).unwrap())
                    .all(&db)
                    .await
                    .unwrap()
            }
        };
        let members = read(&db, order.order_id.clone()).await;
        assert_eq!(members.len(), 1 + items.len());
        assert!(members.contains(&crate::model::OrderWithItems::Order(order.clone())));
        let moved =
            crate::app::change_status(&db, &order, OrderStatus::Pending, OrderStatus::Shipped)
                .await
                .unwrap();
        let members = read(&db, order.order_id.clone()).await;
        assert!(members.contains(&crate::model::OrderWithItems::Order(moved.clone())));
        let shipped = Order::orders_by_status_and_date(&OrderStatus::Shipped)
            .sk_eq(&moved.created_at)
            .all(&db)
            .await
            .unwrap();
        assert!(shipped.contains(&moved), "{shipped:?}");
        let pending = Order::orders_by_status_and_date(&OrderStatus::Pending)
            .sk_eq(&moved.created_at)
            .all(&db)
            .await
            .unwrap();
        assert!(pending.iter().all(|o| o.order_id != moved.order_id));
    }
}

/// Two entities on one multi-attribute index, told apart by its sort key's
/// first attribute, the entity type (`sk(entityType = S, createdAt = N)`):
/// the table lists both (its cross-entity checks pass), a collection reads
/// a tenant's partition with both kinds typed, in the index's order, and
/// each entity's own access pattern keeps to its items by key condition.
mod shared_index;

/// An index keyed on the items' own attributes that holds only their keys
/// (`gsi1`), or their keys and a title (`gsi2`): its patterns return what
/// they declare, typed keys or the projected document, as on an index of
/// synthetic keys; a pattern returning whole items does not compile (see
/// `tests/ui/query/full_items_on_keys_only_multi_attribute_index.rs`).
mod keys_only;
