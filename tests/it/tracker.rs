//! The tracker example's access patterns, on DynamoDB Local and on the
//! embedded backend: each one request (the sharded one a request per
//! shard), each returning exactly the expected items.

use std::time::{Duration, UNIX_EPOCH};

use singletable::{Clock, Db};
use singletable_runtime::exec::Counting;

use crate::support::fresh_db;
use crate::tracker_example::app;
use crate::tracker_example::model::*;

fn key_of_owned(o: &Owned) -> String {
    match o {
        Owned::Repo(r) => format!("repo {}/{}", r.owner, r.name),
        Owned::Issue(i) => format!("issue {}/{}#{}", i.owner, i.repo, i.number),
        Owned::Pull(p) => format!("pull {}/{}#{}", p.owner, p.repo, p.number),
        Owned::Comment(c) => format!("comment {}", c.id),
    }
}

async fn patterns(db: &Db) {
    // 2026-12-01T00:00:00Z, after every sample date.
    let now = UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    let counted = Db::with_executor(Counting::new(db.executor().clone()), db.table_name())
        .with_clock(Clock::fixed(now));
    let data = app::sample();
    app::seed(&counted, &data).await.unwrap();

    // The writes: one request each (the unique create one transaction).
    counted.executor().reset();
    app::workflow(&counted).await.unwrap();
    assert_eq!(counted.executor().count(), 4, "one request per write");
    let pull = db
        .get::<Pull>(Pull::key("ana", "db", 10).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pull.reviewers.get("ana"), Some(&Verdict::Approved));
    let closed: Vec<u32> = Issue::issues_by_status("ana", "db", &Status::Closed)
        .all(db)
        .await
        .unwrap()
        .iter()
        .map(|i| i.number)
        .collect();
    assert_eq!(
        closed,
        [1, 3],
        "closing moved #1 in GSI2, still keyed by its creation time"
    );

    counted.executor().reset();
    let a = app::access_patterns(&counted).await.unwrap();
    // Eleven patterns of one request, and one sharded four ways.
    assert_eq!(
        counted.executor().count(),
        11 + 4,
        "one request per pattern"
    );

    let ana = a.account.clone().expect("account ana");
    assert_eq!(ana.email, "ana@example.com");
    assert!(
        ana.created_at.starts_with("2026-12-01T00:00:00"),
        "stamped by the clock: {ana:?}"
    );
    assert_eq!(a.repo.as_ref(), Some(&data.repos[0]));
    assert_eq!(
        a.repo_page.len(),
        7,
        "the repository, 4 issues, a pull request, a subscriber"
    );
    assert!(
        matches!(&a.repo_page[0], RepoPage::Issue(i) if i.number == 1),
        "ISSUE# < PULL# < REPO < SUB#"
    );
    assert!(matches!(a.repo_page.last(), Some(RepoPage::Subscription(s)) if s.subscriber == "bob"));
    let owned: Vec<String> = a.owned.iter().map(key_of_owned).collect();
    assert_eq!(
        owned,
        [
            "comment c2",
            "comment c3",
            "repo ana/db",
            "repo ana/web",
            "issue ana/db#1",
            "issue ana/db#3",
            "issue bob/cli#1",
            "pull ana/web#11",
        ]
    );
    assert_eq!(a.tickets.len(), 4);
    assert!(a.tickets.iter().all(|t| match t {
        Tickets::Issue(i) => i.author == "ana",
        Tickets::Pull(p) => p.author == "ana",
    }));
    let open: Vec<u32> = a
        .open_issues_newest_first
        .iter()
        .map(|i| i.number)
        .collect();
    assert_eq!(
        open,
        [4, 2],
        "open issues of ana/db, newest first (#4 stamped by the clock)"
    );
    assert!(
        a.open_issues_newest_first[0]
            .created_at
            .starts_with("2026-12-01T00:00:00")
    );
    assert_eq!(a.open_issue_count, 2);
    assert_eq!(
        a.open_pulls.iter().map(|p| p.number).collect::<Vec<_>>(),
        [10]
    );
    assert!(matches!(&a.thread[0], Thread::Issue(i) if i.number == 1));
    let replies: Vec<&str> = a
        .thread
        .iter()
        .filter_map(|t| match t {
            Thread::Comment(c) => Some(c.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(replies, ["c1", "c2"], "the thread's comments, oldest first");
    assert_eq!(a.subscribers, [data.subscriptions[0].clone()]);
    assert_eq!(a.subscriptions, [data.subscriptions[1].clone()]);
    let updated: Vec<&str> = a.recently_updated.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        updated,
        ["web", "cli", "db"],
        "newest update first, across shards"
    );
}

#[tokio::test]
async fn tracker_example_access_patterns() {
    patterns(
        &Db::<singletable::Embedded>::in_memory::<Tracker>("Tracker")
            .unwrap()
            .into_shared(),
    )
    .await;
    patterns(&fresh_db::<Tracker>("tracker").await.into_shared()).await;
}

#[test]
fn tracker_design_document_lists_its_collections() {
    let doc = singletable::design::document::<Tracker>();
    assert!(
        doc.contains(
            "| Owned | GSI1 | `GSI1PK = ACCOUNT#<owner>` and `begins_with(GSI1SK, OWNED#)` |"
        ),
        "{doc}"
    );
    assert!(doc.contains("| Thread | GSI3 |"), "{doc}");
}

#[test]
fn readme_tracker_layout_is_current() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples.md")).unwrap();
    let begin = readme
        .find("<!-- tracker-layout:begin")
        .expect("docs/examples.md has the tracker-layout:begin marker");
    let body_start = begin + readme[begin..].find("-->\n").expect("marker closes") + 4;
    let end = readme
        .find("<!-- tracker-layout:end -->")
        .expect("docs/examples.md has the tracker-layout:end marker");
    assert_eq!(
        &readme[body_start..end],
        singletable_tools::design::layout_table::<Tracker>(),
        "docs/examples.md's tracker layout is stale; regenerate it with `cargo run --example tracker -- --design`"
    );
}
