//! Typed scans (`Entity::scan()`): filters, parallel segments, pages with
//! cursors, counts, the first item, keys and projections, indexes and
//! collections, on a single table holding other entities' items too; on
//! both backends.

use std::collections::BTreeSet;

use singletable::query::{Cursor, Scan};
use singletable::{
    AttributeValue, Collection, CursorError, Db, Document, Entity, Error, Item, KeyOf, Projected,
    Refusal, Table,
};

#[derive(Table)]
#[table(name = "Scans", gsi1(keys_only), gsi2)]
pub struct Scans;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Scans)]
#[pk("CUSTOMER#<customer>")]
#[sk("PROFILE")]
pub struct Customer {
    pub customer: String,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Scans)]
#[pk("CUSTOMER#<customer>")]
#[sk("COMPLAINT#<id>")]
#[gsi1(pk = "STATE#<state>", sk = "COMPLAINT#<id>")]
#[gsi2(pk = "SEV#<severity>", sk = "COMPLAINT#<id>")]
pub struct Complaint {
    pub customer: String,
    pub id: u32,
    pub state: String,
    pub severity: u8,
    pub text: String,
}

/// Another entity of the table, which no complaint scan returns.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Scans)]
#[pk("PRODUCT#<sku>")]
#[sk("PRODUCT")]
pub struct Product {
    pub sku: String,
}

/// A customer with their complaints.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum CustomerPage {
    Customer(Customer),
    Complaint(Complaint),
}

/// What a summary of a complaint shows.
#[derive(Document, Debug, Clone, PartialEq)]
pub struct Summary {
    pub state: String,
    pub severity: u8,
}

fn complaint(id: u32) -> Complaint {
    Complaint {
        customer: format!("c{}", id % 3),
        id,
        state: if id.is_multiple_of(2) {
            "OPEN"
        } else {
            "CLOSED"
        }
        .into(),
        severity: (id % 4) as u8,
        text: format!("complaint {id}"),
    }
}

fn ids(items: &[Complaint]) -> Vec<u32> {
    let mut ids: Vec<u32> = items.iter().map(|c| c.id).collect();
    ids.sort();
    ids
}

/// Follows every page of `scan()` with its cursors; the ids collected, the
/// pages read and how many of them were empty but carried a cursor.
async fn paged(db: &Db, scan: impl Fn() -> Scan<Complaint>) -> (Vec<u32>, usize, usize) {
    let mut cursor: Option<Cursor<Scan<Complaint>>> = None;
    let (mut seen, mut pages, mut empty_with_cursor) = (Vec::new(), 0, 0);
    loop {
        let page = scan().page(db, cursor.as_ref()).await.unwrap();
        pages += 1;
        seen.extend(page.items.iter().map(|c| c.id));
        if page.items.is_empty() && page.cursor.is_some() {
            empty_with_cursor += 1;
        }
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    (seen, pages, empty_with_cursor)
}

/// `Entity::scan()` on a single table: filters select the right items,
/// segments partition the table (disjoint, together the whole), pages with
/// small limits reassemble the full result (empty filtered pages carry a
/// cursor and are followed), `count` and `first` agree with `all`, keys and
/// projections return what they say, indexes and collections scan, an
/// untyped entity's items are recognised by its key templates, and a
/// cursor of another scan is refused; on both backends.
#[tokio::test]
async fn typed_scan_filters_segments_and_pages() {
    for db in crate::support::both::<Scans>("scans").await {
        for id in 0..30 {
            db.put(&complaint(id)).await.unwrap();
        }
        for c in 0..3 {
            let customer = Customer {
                customer: format!("c{c}"),
                name: format!("Customer {c}"),
            };
            db.put(&customer).await.unwrap();
        }
        for sku in 0..5 {
            db.put(&Product {
                sku: format!("p{sku}"),
            })
            .await
            .unwrap();
        }
        // A complaint's key written by another client without an entity
        // type: not a (typed) complaint.
        let raw: Item = [
            ("PK", "CUSTOMER#c9"),
            ("SK", "COMPLAINT#99"),
            ("state", "OPEN"),
        ]
        .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
        .into();
        crate::support::raw_put(&db, raw).await.unwrap();
        let every: Vec<u32> = (0..30).collect();

        // Every complaint, and nothing else of the table.
        let all = Complaint::scan().all(&db).await.unwrap();
        assert_eq!(ids(&all), every);
        assert_eq!(all.iter().find(|c| c.id == 7), Some(&complaint(7)));
        assert_eq!(Complaint::scan().count(&db).await.unwrap(), 30);
        assert_eq!(Customer::scan().count(&db).await.unwrap(), 3);
        assert_eq!(Product::scan().count(&db).await.unwrap(), 5);

        // Typed filters: open complaints of severity 2 or more.
        let f = Complaint::fields();
        let urgent = || {
            Complaint::scan()
                .filter(f.severity.ge(&2))
                .filter(f.state.eq("OPEN"))
        };
        let expected: Vec<u32> = every
            .iter()
            .copied()
            .filter(|i| i.is_multiple_of(2) && i % 4 >= 2)
            .collect();
        assert_eq!(expected, [2, 6, 10, 14, 18, 22, 26]);
        assert_eq!(ids(&urgent().all(&db).await.unwrap()), expected);
        assert_eq!(urgent().count(&db).await.unwrap(), 7);
        assert_eq!(urgent().limit(3).all(&db).await.unwrap().len(), 3);
        let first = urgent().limit(2).first(&db).await.unwrap().unwrap();
        assert!(expected.contains(&first.id), "{first:?}");
        let none = || Complaint::scan().filter(f.severity.gt(&3));
        assert_eq!(none().first(&db).await.unwrap(), None);
        assert_eq!(none().count(&db).await.unwrap(), 0);

        // Segments: disjoint, together the whole table, and a real split.
        for total in [1u32, 3, 4] {
            let mut union = BTreeSet::new();
            let mut sum = 0;
            let mut non_empty = 0;
            for s in 0..total {
                let part = ids(&Complaint::scan().segment(s, total).all(&db).await.unwrap());
                sum += part.len();
                non_empty += usize::from(!part.is_empty());
                union.extend(part);
            }
            assert_eq!(sum, 30, "segments of {total} overlap");
            assert_eq!(union.into_iter().collect::<Vec<_>>(), every);
            if total > 1 {
                assert!(non_empty > 1, "{total} segments: all in one");
            }
        }
        let mut filtered = Vec::new();
        for s in 0..4 {
            let part = urgent().segment(s, 4).all(&db).await.unwrap();
            let counted = urgent().segment(s, 4).count(&db).await.unwrap();
            assert_eq!(counted, part.len() as u64);
            filtered.extend(ids(&part));
        }
        filtered.sort();
        assert_eq!(filtered, expected);

        // Pages with small limits reassemble the whole result; filtered
        // pages that hold nothing still carry a cursor, and are followed.
        let (seen, pages, _) = paged(&db, || Complaint::scan().limit(4)).await;
        let mut sorted = seen.clone();
        sorted.sort();
        assert_eq!(sorted, every, "pages repeat or lose items");
        assert!(pages >= 10, "{pages} pages of at most 4 of 39 items");
        let (seen, _, empty_with_cursor) = paged(&db, || urgent().limit(3)).await;
        let mut sorted = seen;
        sorted.sort();
        assert_eq!(sorted, expected);
        assert!(empty_with_cursor > 0, "39 items, 7 matches, pages of 3");
        let (seen, _, _) = paged(&db, || Complaint::scan().segment(1, 4).limit(2)).await;
        let mut sorted = seen;
        sorted.sort();
        assert_eq!(
            sorted,
            ids(&Complaint::scan().segment(1, 4).all(&db).await.unwrap())
        );

        // A cursor of another scan is refused.
        let of_segment = Complaint::scan()
            .segment(0, 4)
            .limit(1)
            .page(&db, None)
            .await
            .unwrap()
            .cursor
            .expect("more than one item in segment 0");
        let other_segment = Complaint::scan()
            .segment(1, 4)
            .page(&db, Some(&of_segment))
            .await;
        assert!(
            matches!(
                other_segment,
                Err(Error::Cursor(CursorError::Foreign { .. }))
            ),
            "{other_segment:?}"
        );
        let whole = Complaint::scan().page(&db, Some(&of_segment)).await;
        assert!(matches!(
            whole,
            Err(Error::Cursor(CursorError::Foreign { .. }))
        ));
        let plain = Complaint::scan().limit(1).page(&db, None).await.unwrap();
        let plain = plain.cursor.expect("39 items");
        let filtered = urgent().page(&db, Some(&plain)).await;
        assert!(
            matches!(filtered, Err(Error::Cursor(CursorError::OtherShape))),
            "{filtered:?}"
        );
        let on_index = Complaint::scan()
            .global_index("GSI2")
            .page(&db, Some(&Cursor::from_client(plain.as_str())))
            .await;
        assert!(matches!(
            on_index,
            Err(Error::Cursor(CursorError::OtherShape))
        ));
        let customers = Customer::scan()
            .page(&db, Some(&Cursor::from_client(plain.as_str())))
            .await;
        assert!(matches!(
            customers,
            Err(Error::Cursor(CursorError::Foreign { .. }))
        ));
        // The same cursor where it belongs still continues.
        let next = Complaint::scan().limit(1).page(&db, Some(&plain)).await;
        assert!(next.is_ok(), "{next:?}");

        // Keys only, and a projection.
        let keys: Vec<KeyOf<Complaint>> = Complaint::scan().keys().all(&db).await.unwrap();
        let keys: BTreeSet<String> = keys.iter().map(|k| format!("{k:?}")).collect();
        let want: BTreeSet<String> = (0..30)
            .map(|i| format!("{:?}", Complaint::key(&format!("c{}", i % 3), i).unwrap()))
            .collect();
        assert_eq!(keys, want);
        let urgent_keys = urgent().keys().count(&db).await.unwrap();
        assert_eq!(urgent_keys, 7);
        let summaries: Vec<Projected<Complaint, Summary>> =
            urgent().select::<Summary>().all(&db).await.unwrap();
        assert_eq!(summaries.len(), 7);
        for s in &summaries {
            let id: u32 = s.key.sk.as_deref().unwrap()["COMPLAINT#".len()..]
                .trim_start_matches('0')
                .parse()
                .unwrap_or(0);
            let c = complaint(id);
            assert_eq!(
                s.item,
                Summary {
                    state: c.state,
                    severity: c.severity
                }
            );
        }

        // Indexes: the keys-only index holds keys (whole complaints are
        // not there: refused, not an empty success); the full one holds
        // every complaint and nothing else (no other entity has its keys).
        let on_gsi1: Vec<KeyOf<Complaint>> = Complaint::scan()
            .global_index("GSI1")
            .keys()
            .all(&db)
            .await
            .unwrap();
        assert_eq!(on_gsi1.len(), 30);
        let whole_on_keys_only = Complaint::scan().global_index("GSI1").all(&db).await;
        assert!(
            matches!(
                whole_on_keys_only,
                Err(Error::Refused(Refusal::IndexProjection { .. }))
            ),
            "{whole_on_keys_only:?}"
        );
        let open_on_gsi2 = Complaint::scan()
            .global_index("GSI2")
            .filter(f.state.eq("OPEN"))
            .all(&db)
            .await
            .unwrap();
        assert_eq!(
            ids(&open_on_gsi2),
            every
                .iter()
                .copied()
                .filter(|i| i.is_multiple_of(2))
                .collect::<Vec<_>>()
        );
        let (mut union, mut sum) = (BTreeSet::new(), 0);
        for s in 0..3 {
            let part = Complaint::scan()
                .global_index("GSI2")
                .segment(s, 3)
                .all(&db)
                .await
                .unwrap();
            sum += part.len();
            union.extend(ids(&part));
        }
        assert_eq!((sum, union.len()), (30, 30));
        let unknown = Complaint::scan().global_index("GSI7").all(&db).await;
        assert!(matches!(
            unknown,
            Err(Error::Refused(Refusal::UnknownIndex { .. }))
        ));
        let bad_segment = Complaint::scan().segment(4, 4).all(&db).await;
        assert!(matches!(
            bad_segment,
            Err(Error::Refused(Refusal::SegmentOutOfRange {
                segment: 4,
                total: 4
            }))
        ));

        // A collection: the customers and their complaints, no product.
        let page = CustomerPage::scan().all(&db).await.unwrap();
        assert_eq!(page.len(), 33);
        let customers = page
            .iter()
            .filter(|m| matches!(m, CustomerPage::Customer(_)))
            .count();
        assert_eq!(customers, 3);
        assert_eq!(CustomerPage::scan().count(&db).await.unwrap(), 33);
    }

    // An untyped entity's items are recognised by its key templates, as
    // `scan_all` recognises them.
    use crate::backfill::{LegacyProfile, LegacyPurchase, UntypedLegacy};
    for db in crate::support::both::<UntypedLegacy>("scans-untyped").await {
        for pairs in [
            [("PK", "USER#u1"), ("SK", "PROFILE"), ("name", "Ana")],
            [("PK", "USER#u1"), ("SK", "PURCHASE#p1"), ("status", "NEW")],
            [("PK", "USER#u1"), ("SK", "PURCHASE#p2"), ("status", "NEW")],
            [("PK", "USER#u2"), ("SK", "PURCHASE#p3"), ("status", "DONE")],
            [("PK", "AUDIT#1"), ("SK", "ENTRY"), ("what", "login")],
        ] {
            let item: Item = pairs
                .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
                .into();
            crate::support::raw_put(&db, item).await.unwrap();
        }
        let mut purchases: Vec<String> = LegacyPurchase::scan()
            .all(&db)
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.purchase_id)
            .collect();
        purchases.sort();
        assert_eq!(purchases, ["p1", "p2", "p3"]);
        let scanned_all = db.scan_all::<LegacyPurchase>().await.unwrap();
        assert_eq!(scanned_all.len(), 3);
        let new = LegacyPurchase::scan().filter(LegacyPurchase::fields().status.eq("NEW"));
        assert_eq!(new.count(&db).await.unwrap(), 2);
        assert_eq!(LegacyProfile::scan().count(&db).await.unwrap(), 1);
        assert_eq!(LegacyPurchase::scan().keys().count(&db).await.unwrap(), 3);
        let mut sum = 0;
        for s in 0..2 {
            sum += LegacyPurchase::scan()
                .segment(s, 2)
                .count(&db)
                .await
                .unwrap();
        }
        assert_eq!(sum, 3);
    }
}
