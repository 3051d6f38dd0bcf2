//! Collections on a global index ("everything a user owns") and a
//! sub-collection selected by a sort-key prefix; counts of every access
//! pattern and collection equal to what `all()` reads. Each test runs on
//! DynamoDB Local and on the embedded backend.

use singletable::expr::Condition;
use singletable::{AttributeValue, Collection, Db, Entity, Executor, Table};
use singletable_runtime::exec::Counting;

use crate::app;
use crate::model::*;
use crate::support::fresh_db;

#[derive(Table)]
#[table(
    name = "Owned",
    gsi1,
    entities(Account, Repo, Issue, Pull),
    collections(Owned, Tickets, RepoPage)
)]
pub struct OwnedTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OwnedTable, name = "Account")]
#[pk("ACCOUNT#<name>")]
#[sk("PROFILE")]
#[gsi1(pk = "OWNER#<name>", sk = "OWNER")]
pub struct Account {
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OwnedTable, name = "Repo")]
#[pk("REPO#<owner>#<repo>")]
#[sk("REPO")]
#[gsi1(pk = "OWNER#<owner>", sk = "OWNED#REPO#<repo>")]
pub struct Repo {
    pub owner: String,
    pub repo: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OwnedTable, name = "Issue")]
#[pk("REPO#<owner>#<repo>")]
#[sk("ISSUE#<number>")]
#[gsi1(pk = "OWNER#<author>", sk = "OWNED#TICKET#ISSUE#<repo>#<number>")]
pub struct Issue {
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub author: String,
    pub open: bool,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OwnedTable, name = "Pull")]
#[pk("REPO#<owner>#<repo>")]
#[sk("PULL#<number>")]
#[gsi1(pk = "OWNER#<author>", sk = "OWNED#TICKET#PULL#<repo>#<number>")]
pub struct Pull {
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub author: String,
    pub open: bool,
}

/// Everything an account owns: its profile, repositories, issues and pull
/// requests, on GSI1.
#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(index = gsi1)]
pub enum Owned {
    Account(Account),
    Repo(Repo),
    Issue(Issue),
    Pull(Pull),
}

/// Only the tickets (issues and pull requests) an account opened.
#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(index = gsi1, sk_prefix = "OWNED#TICKET#", partition_from = Account)]
pub enum Tickets {
    Issue(Issue),
    Pull(Pull),
}

/// A repository with its issues and pull requests, on the table.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RepoPage {
    Repo(Repo),
    Issue(Issue),
    Pull(Pull),
}

fn issue(owner: &str, repo: &str, number: u32, author: &str) -> Issue {
    Issue {
        owner: owner.into(),
        repo: repo.into(),
        number,
        author: author.into(),
        open: number.is_multiple_of(2),
    }
}

fn pull(owner: &str, repo: &str, number: u32, author: &str) -> Pull {
    Pull {
        owner: owner.into(),
        repo: repo.into(),
        number,
        author: author.into(),
        open: number.is_multiple_of(3),
    }
}

/// Ana owns 3 repositories and opened 4 issues and 3 pull requests, some
/// in Bob's repository; Bob owns one and opened one issue.
async fn seed<E: Executor>(db: &Db<E>) {
    for name in ["ana", "bob"] {
        db.put(&Account { name: name.into() }).await.unwrap();
    }
    for repo in ["alpha", "beta", "gamma"] {
        db.put(&Repo {
            owner: "ana".into(),
            repo: repo.into(),
        })
        .await
        .unwrap();
    }
    db.put(&Repo {
        owner: "bob".into(),
        repo: "tools".into(),
    })
    .await
    .unwrap();
    for n in 1..=3 {
        db.put(&issue("ana", "alpha", n, "ana")).await.unwrap();
        db.put(&pull("ana", "beta", n, "ana")).await.unwrap();
    }
    db.put(&issue("bob", "tools", 7, "ana")).await.unwrap();
    db.put(&issue("ana", "alpha", 9, "bob")).await.unwrap();
}

fn label(o: &Owned) -> String {
    match o {
        Owned::Account(a) => format!("account {}", a.name),
        Owned::Repo(r) => format!("repo {}", r.repo),
        Owned::Issue(i) => format!("issue {}#{}", i.repo, i.number),
        Owned::Pull(p) => format!("pull {}#{}", p.repo, p.number),
    }
}

async fn index_collections<E: Executor>(db: &Db<Counting<E>>) {
    seed(db).await;
    let ana = || Account::gsi1_partition("ana").unwrap();

    // Everything Ana owns: one request, every member type, in GSI1SK order.
    db.executor().reset();
    let owned = Owned::query(ana()).all(db).await.unwrap();
    assert_eq!(db.executor().count(), 1, "one Query");
    let labels: Vec<String> = owned.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "repo alpha",
            "repo beta",
            "repo gamma",
            "issue alpha#1",
            "issue alpha#2",
            "issue alpha#3",
            "issue tools#7",
            "pull beta#1",
            "pull beta#2",
            "pull beta#3",
            "account ana",
        ],
        "OWNED#REPO# < OWNED#TICKET#ISSUE# < OWNED#TICKET#PULL# < OWNER"
    );
    // Descending: the same items reversed.
    let newest = Owned::query(ana()).newest_first().all(db).await.unwrap();
    assert_eq!(newest.iter().rev().cloned().collect::<Vec<_>>(), owned);

    // The sub-collection: tickets only, one request.
    db.executor().reset();
    let tickets = Tickets::query(ana()).all(db).await.unwrap();
    assert_eq!(db.executor().count(), 1);
    assert_eq!(tickets.len(), 7);
    assert!(tickets.iter().all(|t| match t {
        Tickets::Issue(i) => i.author == "ana",
        Tickets::Pull(p) => p.author == "ana",
    }));
    // Another member's partition: Bob's collection holds his repo, his
    // issue in Ana's repository, and his profile.
    let bob = Owned::query(Repo::gsi1_partition("bob").unwrap())
        .all(db)
        .await
        .unwrap();
    assert_eq!(bob.len(), 3);

    // Pages of 3 with cursors: every item once, one request per page.
    db.executor().reset();
    let (mut seen, mut cursor, mut pages) = (Vec::new(), None, 0);
    loop {
        let page = Owned::query(ana())
            .limit(3)
            .page(db, cursor.as_ref())
            .await
            .unwrap();
        pages += 1;
        seen.extend(page.items);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, owned);
    assert_eq!(db.executor().count(), pages);
    assert!(pages >= 4, "{pages} pages");
    // A sub-collection's cursor is not the whole collection's (a compile
    // error as typed; here as text from a client).
    let t = Tickets::query(ana()).limit(2).page(db, None).await.unwrap();
    let c = t.cursor.unwrap();
    assert!(
        Owned::query(ana())
            .limit(2)
            .page(db, Some(&singletable::Cursor::from_client(c.as_str())))
            .await
            .is_err()
    );
    let rest = Tickets::query(ana()).page(db, Some(&c)).await.unwrap();
    assert_eq!(rest.items.len(), 5);

    // Stream and counts agree with `all`.
    let streamed: Vec<Owned> = futures::TryStreamExt::try_collect(Owned::query(ana()).stream(db))
        .await
        .unwrap();
    assert_eq!(streamed, owned);
    assert_eq!(Owned::query(ana()).count(db).await.unwrap(), 11);
    assert_eq!(Tickets::query(ana()).count(db).await.unwrap(), 7);

    // The table collection of a repository, as before.
    let alpha = RepoPage::query(Repo::partition("ana", "alpha").unwrap())
        .all(db)
        .await
        .unwrap();
    assert_eq!(alpha.len(), 1 + 4);
}

#[test]
fn design_document_lists_index_collections() {
    let doc = singletable::design::document::<OwnedTable>();
    for row in [
        "| Owned | GSI1 | `GSI1PK = OWNER#<name>` | Account, Repo, Issue, Pull |",
        "| Tickets | GSI1 | `GSI1PK = OWNER#<author>` and `begins_with(GSI1SK, OWNED#TICKET#)` | Issue, Pull |",
        "| RepoPage | table | `PK = REPO#<owner>#<repo>` | Repo, Issue, Pull |",
    ] {
        assert!(doc.contains(row), "{row} missing from:\n{doc}");
    }
}

#[tokio::test]
async fn index_collection_reads_every_member_in_one_request() {
    let local = fresh_db::<OwnedTable>("owned").await;
    let local = Db::with_executor(Counting::new(local.executor().clone()), local.table_name());
    index_collections(&local).await;
    let embedded = Db::<singletable::Embedded>::in_memory::<OwnedTable>("Owned").unwrap();
    let embedded = Db::with_executor(Counting::new(embedded.executor().clone()), "Owned");
    index_collections(&embedded).await;
}

fn open() -> Condition {
    Condition::eq("open", AttributeValue::Bool(true))
}

async fn counts<E: Executor>(db: &Db<E>) {
    let data = app::sample();
    app::seed(db, &data).await.unwrap();
    seed(db).await;
    macro_rules! same {
        ($q:expr) => {{
            let all = $q.all(db).await.unwrap().len() as u64;
            let counted = $q.count(db).await.unwrap();
            assert_eq!(counted, all, "{}", stringify!($q));
            all
        }};
    }
    assert!(same!(OrderSummary::orders_of_user("u-ana")) > 0);
    same!(
        OrderSummary::orders_of_user("u-ana")
            .newest_first()
            .limit(1)
    );
    assert!(same!(Order::orders_by_status(&OrderStatus::Pending)) > 0);
    same!(Order::orders_by_date().sk_between("2024-01-01", "2024-12-31"));
    same!(Order::orders_by_date_sharded());
    same!(Order::orders_by_date_sharded().limit(2));
    same!(Product::published_products());
    same!(User::user_by_email("ana@example.com"));
    same!(OrderWithItems::query(Order::partition("o-1004").unwrap()));
    // Filters count what they keep; sub-collections and index collections.
    let ana = || Account::gsi1_partition("ana").unwrap();
    let open_tickets = same!(Tickets::query(ana()).filter_raw(open()));
    assert!(open_tickets > 0 && open_tickets < 7, "{open_tickets}");
    same!(Owned::query(ana()).filter_raw(open()));
    same!(Owned::query(ana()).limit(4));
    same!(Tickets::query(Account::gsi1_partition("nobody").unwrap()));
}

#[tokio::test]
async fn count_matches_all() {
    counts(&fresh_db::<AppTable>("counts").await).await;
    counts(&Db::<singletable::Embedded>::in_memory::<AppTable>("AppTable").unwrap()).await;
}
