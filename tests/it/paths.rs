//! Typed paths below a field (map entries, fields of nested documents,
//! list elements) in updates, conditions and filters, and typed conditions
//! on every conditional write, on DynamoDB Local and on the embedded
//! backend alike.

use std::collections::{BTreeMap, HashMap};

use singletable::{Collection, Cond, Db, Document, Entity, Error, Executor, Table};

use crate::support::{fresh_db, raw_item};

#[derive(Table)]
#[table(name = "Paths")]
pub struct PathTable;

#[derive(Document, Debug, Clone, PartialEq)]
pub struct Verdict {
    pub approved: bool,
    pub note: Option<String>,
}

#[derive(Document, Debug, Clone, PartialEq)]
pub struct Address {
    pub city: String,
    #[attr(max_len = 5)]
    pub zip: Option<String>,
}

#[derive(Document, Debug, Clone, PartialEq)]
pub struct Line {
    pub sku: String,
    pub qty: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = PathTable, name = "Doc")]
#[pk("ORG#<org>")]
#[sk("DOC#<id>")]
#[access(docs_of_org)]
pub struct Doc {
    pub org: String,
    pub id: String,
    pub status: String,
    pub reviewers: BTreeMap<String, Verdict>,
    pub votes: HashMap<String, u32>,
    pub address: Address,
    pub lines: Vec<Line>,
    pub tags: Vec<String>,
    pub extra: Option<BTreeMap<String, u32>>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = PathTable, name = "Comment")]
#[pk("ORG#<org>")]
#[sk("COMMENT#<doc>#<n>")]
pub struct Comment {
    pub org: String,
    pub doc: String,
    pub n: u32,
    pub likes: u32,
}

// A test collection: the size of its variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrgItems {
    Doc(Doc),
    Comment(Comment),
}

fn doc(org: &str, id: &str, status: &str, city: &str) -> Doc {
    Doc {
        org: org.into(),
        id: id.into(),
        status: status.into(),
        reviewers: BTreeMap::new(),
        votes: HashMap::new(),
        address: Address {
            city: city.into(),
            zip: Some("69001".into()),
        },
        lines: vec![
            Line {
                sku: "a".into(),
                qty: 1,
            },
            Line {
                sku: "b".into(),
                qty: 2,
            },
        ],
        tags: vec!["x".into()],
        extra: None,
    }
}

fn yes() -> Verdict {
    Verdict {
        approved: true,
        note: None,
    }
}

async fn get<E: Executor>(db: &Db<E>, id: &str) -> Doc {
    db.get_consistent::<Doc>(Doc::key("o", id).unwrap())
        .await
        .unwrap()
        .expect("doc exists")
}

fn condition_failed<T: std::fmt::Debug>(r: Result<T, Error>) {
    assert!(
        matches!(r, Err(Error::ConditionFailed { .. })),
        "expected a failed condition, got {r:?}"
    );
}

async fn map_entries<E: Executor>(db: &Db<E>) {
    db.create(&doc("o", "d1", "OPEN", "Paris")).await.unwrap();
    let f = Doc::fields();

    // Ten writers of ten entries of one map, at once: each update writes its
    // entry only, so none is lost.
    let names: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    let writes = names.iter().map(|name| {
        Doc::update("o", "d1")
            .set(f.reviewers.entry(name.as_str()), yes())
            .add(f.votes.entry(name.as_str()), 1)
            .execute(db)
    });
    for r in futures::future::join_all(writes).await {
        r.unwrap();
    }
    let d = get(db, "d1").await;
    assert_eq!(d.reviewers.len(), 10);
    assert_eq!(d.votes.values().sum::<u32>(), 10);

    // A condition on an entry, and on a field of an entry's document.
    let r0 = f.reviewers.entry("r0");
    Doc::update("o", "d1")
        .set(r0.field(|v| v.note), Some("looks good".to_owned()))
        .only_if(r0.field(|v| v.approved).eq(&true))
        .execute(db)
        .await
        .unwrap();
    condition_failed(
        Doc::update("o", "d1")
            .set(f.status, "DONE".to_owned())
            .only_if(f.reviewers.entry("nobody").exists())
            .execute(db)
            .await,
    );
    // An entry removed; an absent entry's field compared is no match.
    Doc::update("o", "d1")
        .remove(f.reviewers.entry("r9"))
        .only_if(f.reviewers.entry("r9").exists())
        .execute(db)
        .await
        .unwrap();
    let d = get(db, "d1").await;
    assert_eq!(d.reviewers.len(), 9);
    assert!(!d.reviewers.contains_key("r9"));
    assert_eq!(d.reviewers["r0"].note.as_deref(), Some("looks good"));
    assert_eq!(d.votes["r9"], 1, "the other map is untouched");

    // A nested document's field: set under a condition on it, removed.
    let city = f.address.field(|a| a.city);
    Doc::update("o", "d1")
        .set(city.clone(), "Lyon".to_owned())
        .only_if(city.clone().eq("Paris"))
        .execute(db)
        .await
        .unwrap();
    condition_failed(
        Doc::update("o", "d1")
            .set(city.clone(), "Nice".to_owned())
            .only_if(city.eq("Paris"))
            .execute(db)
            .await,
    );
    Doc::update("o", "d1")
        .remove(f.address.field(|a| a.zip))
        .execute(db)
        .await
        .unwrap();
    let d = get(db, "d1").await;
    assert_eq!(
        d.address,
        Address {
            city: "Lyon".into(),
            zip: None
        }
    );
    // The document field's validations hold for values set below it.
    let long_zip = Doc::update("o", "d1")
        .set(f.address.field(|a| a.zip), Some("1234567".to_owned()))
        .execute(db)
        .await;
    assert!(
        matches!(long_zip, Err(Error::Validation { field: "zip", .. })),
        "{long_zip:?}"
    );

    // List elements: one set in place, a field of another, an index past
    // the end appends, one removed (the later ones move down).
    Doc::update("o", "d1")
        .set(f.tags.at(0), "first".to_owned())
        .set(f.tags.at(40), "appended".to_owned())
        .add(f.lines.at(1).field(|l| l.qty), 3)
        .only_if(f.lines.at(1).field(|l| l.sku).eq("b"))
        .execute(db)
        .await
        .unwrap();
    Doc::update("o", "d1")
        .remove(f.lines.at(0))
        .only_if(f.tags.at(1).eq("appended").and(f.tags.at(2).not_exists()))
        .execute(db)
        .await
        .unwrap();
    let d = get(db, "d1").await;
    assert_eq!(d.tags, ["first", "appended"]);
    assert_eq!(
        d.lines,
        [Line {
            sku: "b".into(),
            qty: 5
        }]
    );

    // Reserved words, dots, brackets and `#` inside map keys are names,
    // never path syntax: each is one entry.
    let keys = ["status", "a.b", "x[0]", "#n0", "size(a)", ":v0", "c d"];
    let mut update = Doc::update("o", "d1");
    for (i, k) in keys.iter().enumerate() {
        update = update.add(f.votes.entry(*k), i as u32 + 100);
    }
    update.execute(db).await.unwrap();
    Doc::update("o", "d1")
        .set(f.status, "REVIEWED".to_owned())
        .only_if(
            f.votes
                .entry("a.b")
                .eq(&101)
                .and(f.votes.entry("x[0]").exists())
                .and(f.votes.entry("a").not_exists()),
        )
        .execute(db)
        .await
        .unwrap();
    let raw = raw_item(db, "ORG#o", "DOC#d1").await;
    let votes = raw["votes"].as_m().unwrap();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(
            votes[*k].as_n().unwrap(),
            &(i + 100).to_string(),
            "entry {k:?}"
        );
    }
    assert!(!votes.contains_key("a"), "no nested map `a` was made");
    assert!(!raw.contains_key("x"), "no attribute `x` was made");

    // An entry of a map that is not there: DynamoDB refuses the path, and
    // the embedded backend says so the same way.
    let missing = Doc::update("o", "d1")
        .set(f.extra.entry("k"), 1)
        .execute(db)
        .await;
    match missing {
        Err(Error::Service { message, .. }) => assert!(
            message.contains(
                "The document path provided in the update expression is invalid for update"
            ),
            "{message}"
        ),
        other => panic!("expected a ValidationException, got {other:?}"),
    }
    Doc::update("o", "d1")
        .set(f.extra, Some(BTreeMap::new()))
        .execute(db)
        .await
        .unwrap();
    Doc::update("o", "d1")
        .set(f.extra.entry("k"), 1)
        .set_if_not_exists(f.extra.entry("j"), 7)
        .execute(db)
        .await
        .unwrap();
    let d = get(db, "d1").await;
    assert_eq!(d.extra, Some([("j".into(), 7), ("k".into(), 1)].into()));
}

#[tokio::test]
async fn map_entry_update_and_condition() {
    map_entries(&fresh_db::<PathTable>("paths").await).await;
    map_entries(&Db::<singletable::Embedded>::in_memory::<PathTable>("Paths").unwrap()).await;
}

fn ids(docs: &[Doc]) -> Vec<&str> {
    docs.iter().map(|d| d.id.as_str()).collect()
}

async fn typed_conditions<E: Executor>(db: &Db<E>) {
    let f = Doc::fields();
    for (id, status, city) in [
        ("d1", "OPEN", "Lyon"),
        ("d2", "CLOSED", "Lyon"),
        ("d3", "OPEN", "Paris"),
        ("x4", "OPEN", "Lille"),
    ] {
        db.put(&doc("o", id, status, city)).await.unwrap();
    }
    for n in 0..3 {
        let c = Comment {
            org: "o".into(),
            doc: "d1".into(),
            n,
            likes: n,
        };
        db.put(&c).await.unwrap();
    }
    Doc::update("o", "d3")
        .set(f.reviewers.entry("ana"), yes())
        .execute(db)
        .await
        .unwrap();

    // Filters: `&str` comparisons, a nested path, an entry, combined.
    let open = Doc::docs_of_org("o")
        .filter(f.status.eq("OPEN"))
        .all(db)
        .await
        .unwrap();
    assert_eq!(ids(&open), ["d1", "d3", "x4"]);
    let lyon_or_reviewed = Doc::docs_of_org("o")
        .filter(
            f.address.field(|a| a.city).begins_with("Ly").or(f
                .reviewers
                .entry("ana")
                .field(|v| v.approved)
                .eq(&true)),
        )
        .filter(f.id.begins_with("d"))
        .all(db)
        .await
        .unwrap();
    assert_eq!(ids(&lyon_or_reviewed), ["d1", "d2", "d3"]);
    let some = Doc::docs_of_org("o")
        .filter(f.status.is_in(["CLOSED", "GONE"]))
        .all(db)
        .await
        .unwrap();
    assert_eq!(ids(&some), ["d2"]);

    // A collection's filter: each member's condition holds for its items.
    let items = OrgItems::query(Doc::partition("o").unwrap())
        .filter(
            f.status
                .eq("CLOSED")
                .in_collection::<OrgItems>()
                .and(Comment::fields().likes.ge(&1).in_collection()),
        )
        .all(db)
        .await
        .unwrap();
    let kept: Vec<String> = items
        .iter()
        .map(|i| match i {
            OrgItems::Doc(d) => d.id.clone(),
            OrgItems::Comment(c) => format!("c{}", c.n),
        })
        .collect();
    assert_eq!(kept, ["c1", "c2", "d2"]);

    // Conditional puts and deletes with typed conditions.
    let mut d1 = get(db, "d1").await;
    d1.status = "CLOSED".into();
    db.put_if(
        &d1,
        f.status
            .eq("OPEN")
            .and(f.address.field(|a| a.city).eq("Lyon")),
    )
    .await
    .unwrap();
    condition_failed(db.put_if(&d1, f.status.eq("OPEN")).await);
    let fresh = doc("o", "d9", "OPEN", "Nice");
    db.put_if(&fresh, f.id.not_exists()).await.unwrap();
    condition_failed(db.put_if(&fresh, f.id.not_exists()).await);
    condition_failed(
        db.delete_if::<Doc>(Doc::key("o", "d2").unwrap(), f.status.eq("OPEN"))
            .await,
    );
    db.delete_if::<Doc>(Doc::key("o", "d2").unwrap(), f.status.ne("OPEN"))
        .await
        .unwrap();
    assert_eq!(
        db.get::<Doc>(Doc::key("o", "d2").unwrap()).await.unwrap(),
        None
    );
    // What the failed condition saw comes back with the error.
    match db.put_if(&d1, f.reviewers.entry("ana").exists()).await {
        Err(Error::ConditionFailed { item: Some(item) }) => {
            assert_eq!(Doc::from_item(*item).unwrap(), d1);
        }
        other => panic!("expected a failed condition with the item, got {other:?}"),
    }

    // In a transaction: a typed put_if, check and delete_if; one failing
    // condition cancels them all.
    let mut d3 = get(db, "d3").await;
    d3.status = "ARCHIVED".into();
    let cancelled = singletable::Transaction::new()
        .put_if(&d3, f.status.eq("OPEN"))
        .check::<Doc>(Doc::key("o", "x4").unwrap(), f.status.eq("CLOSED"))
        .delete_if::<Doc>(Doc::key("o", "d9").unwrap(), f.status.eq("OPEN"))
        .execute(db)
        .await;
    match cancelled {
        Err(Error::TransactionCanceled { reasons }) => {
            let codes: Vec<&str> = reasons.iter().map(|r| r.code.as_str()).collect();
            assert_eq!(codes, ["None", "ConditionalCheckFailed", "None"]);
        }
        other => panic!("expected a cancelled transaction, got {other:?}"),
    }
    assert_eq!(get(db, "d3").await.status, "OPEN");
    singletable::Transaction::new()
        .put_if(&d3, f.status.eq("OPEN"))
        .check::<Doc>(Doc::key("o", "x4").unwrap(), f.status.eq("OPEN"))
        .delete_if::<Doc>(Doc::key("o", "d9").unwrap(), f.status.eq("OPEN"))
        .execute(db)
        .await
        .unwrap();
    assert_eq!(get(db, "d3").await.status, "ARCHIVED");
    assert_eq!(
        db.get::<Doc>(Doc::key("o", "d9").unwrap()).await.unwrap(),
        None
    );

    // A typed condition that cannot be built is an error before sending.
    let empty_in: Cond<Comment> = Comment::fields()
        .likes
        .eq(&1)
        .and(Comment::fields().likes.is_in(&[] as &[u32]));
    let refused = db
        .put_if(
            &Comment {
                org: "o".into(),
                doc: "d1".into(),
                n: 0,
                likes: 0,
            },
            empty_in,
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(Error::Refused(singletable::Refusal::InListSize { len: 0 }))
        ),
        "{refused:?}"
    );
}

#[tokio::test]
async fn typed_filter_and_conditional_put() {
    typed_conditions(&fresh_db::<PathTable>("typed").await).await;
    typed_conditions(&Db::<singletable::Embedded>::in_memory::<PathTable>("Paths").unwrap()).await;
}

async fn nested_projections<E: Executor>(db: &Db<E>) {
    let f = Doc::fields();
    let mut d = doc("p", "d1", "OPEN", "Lyon");
    // Map keys with a dot and brackets, and a reserved word.
    d.reviewers.insert("a.b[0]".into(), yes());
    let no = Verdict {
        approved: false,
        note: Some("later".into()),
    };
    d.reviewers.insert("name".into(), no);
    d.reviewers.insert("zed".into(), yes());
    db.put(&d).await.unwrap();
    let base =
        || Doc::docs_of_org("p").project(&["entityType", "org", "id", "status", "votes", "tags"]);
    let got = base()
        .project_path(f.address.field(|a| a.city))
        .project_path(f.lines.at(1))
        .project_path(f.reviewers.entry("a.b[0]"))
        .project_path(f.reviewers.entry("name").field(|v| v.approved))
        .project_path(f.reviewers.entry("nobody"))
        .all(db)
        .await
        .unwrap();
    let mut want = d.clone();
    want.address.zip = None;
    want.lines.remove(0);
    want.reviewers.remove("zed");
    want.reviewers.insert(
        "name".into(),
        Verdict {
            approved: false,
            note: None,
        },
    );
    assert_eq!(got, [want]);

    // List elements come back in list order, whatever the order named.
    let raw = OrgItems::query(Doc::partition("p").unwrap())
        .project(&[
            "entityType",
            "org",
            "id",
            "status",
            "votes",
            "tags",
            "reviewers",
            "address",
        ])
        .project_raw([
            singletable::expr::Path::new("lines").index(1),
            singletable::expr::Path::new("lines").index(0),
        ])
        .all(db)
        .await
        .unwrap();
    assert_eq!(raw, [OrgItems::Doc(d.clone())]);

    // Overlapping paths are refused before reading, as DynamoDB refuses them.
    let err = base()
        .project(&["entityType", "org", "id", "address"])
        .project_path(f.address.field(|a| a.city))
        .all(db)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Service { message, .. } if message.contains("overlap")),
        "{err:?}"
    );
}

#[tokio::test]
async fn nested_path_projections() {
    nested_projections(&fresh_db::<PathTable>("projections").await).await;
    nested_projections(&Db::<singletable::Embedded>::in_memory::<PathTable>("Paths").unwrap())
        .await;
}

/// Typed conditions are methods of the field handles: a module that imports
/// no `FieldPath`, `StringPath` or `CollectionPath` filters, conditions
/// writes and reads nested paths, on both backends.
mod without_trait_imports {
    use singletable::{Db, Entity, Error, Table};

    use crate::support::both;

    #[derive(Table)]
    #[table(name = "Plain")]
    pub struct Plain;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Plain, rename_all = "camelCase")]
    #[pk("BOARD#<board>")]
    #[sk("CARD#<id>")]
    #[access(cards)]
    pub struct Card {
        pub board: String,
        pub id: String,
        pub title: String,
        pub points: u32,
        pub tags: Vec<String>,
    }

    fn card(id: &str, title: &str, points: u32, tags: &[&str]) -> Card {
        Card {
            board: "b".into(),
            id: id.into(),
            title: title.into(),
            points,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    async fn ids(db: &Db, q: singletable::Cond<Card>) -> Vec<String> {
        let cards = Card::cards("b").filter(q).all(db).await.unwrap();
        cards.into_iter().map(|c| c.id).collect()
    }

    #[tokio::test]
    async fn typed_conditions_need_no_trait_import() {
        for db in both::<Plain>("no-import").await {
            for c in [
                card("c1", "fix login", 3, &["bug"]),
                card("c2", "fix logout", 8, &["bug", "urgent"]),
                card("c3", "new theme", 5, &[]),
            ] {
                db.put(&c).await.unwrap();
            }
            let f = Card::fields();
            assert_eq!(ids(&db, f.points.gt(&4)).await, ["c2", "c3"]);
            assert_eq!(ids(&db, f.title.begins_with("fix")).await, ["c1", "c2"]);
            assert_eq!(ids(&db, f.title.contains("out")).await, ["c2"]);
            assert_eq!(
                ids(&db, f.tags.contains_element(&"urgent".to_owned())).await,
                ["c2"]
            );
            assert_eq!(
                ids(&db, f.points.between(&3, &5).and(f.id.ne("c3"))).await,
                ["c1"]
            );
            assert_eq!(ids(&db, f.points.is_in([&3u32, &8])).await, ["c1", "c2"]);
            // A conditional write, refused by its typed condition.
            let refused = Card::update("b", "c1")
                .set(f.points, 13)
                .only_if(f.points.eq(&99))
                .execute(&db)
                .await;
            assert!(
                matches!(refused, Err(Error::ConditionFailed { .. })),
                "{refused:?}"
            );
            assert_eq!(f.title.attribute(), "title");
        }
    }
}
