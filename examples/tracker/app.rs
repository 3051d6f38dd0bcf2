//! What the tracker does, shared by the example binary and the tests: the
//! sample data, and every access pattern of the design as one request.

use singletable::{Db, Error, Executor, Result};

use super::model::*;

/// The sample data.
pub struct Seeded {
    pub accounts: Vec<Account>,
    pub repos: Vec<Repo>,
    pub issues: Vec<Issue>,
    pub pulls: Vec<Pull>,
    pub comments: Vec<Comment>,
    pub subscriptions: Vec<Subscription>,
}

fn at(day: u32, hour: u32) -> String {
    format!("2026-11-{day:02}T{hour:02}:00:00.000000000Z")
}

fn issue(owner: &str, repo: &str, number: u32, author: &str, status: Status, day: u32) -> Issue {
    Issue {
        owner: owner.into(),
        repo: repo.into(),
        number,
        title: format!("issue {number} of {repo}"),
        author: author.into(),
        status,
        labels: ["bug".to_owned()].into(),
        created_at: at(day, 10),
    }
}

fn pull(owner: &str, repo: &str, number: u32, author: &str, status: Status, day: u32) -> Pull {
    Pull {
        owner: owner.into(),
        repo: repo.into(),
        number,
        title: format!("pull {number} of {repo}"),
        author: author.into(),
        status,
        reviewers: Default::default(),
        created_at: at(day, 11),
    }
}

/// Two accounts (`ana`, `bob`), three repositories, issues and pull
/// requests (some by the other account), comments and subscriptions.
pub fn sample() -> Seeded {
    let account = |name: &str, day| Account {
        name: name.into(),
        email: format!("{name}@example.com"),
        created_at: at(day, 9),
    };
    let repo = |owner: &str, name: &str, day| Repo {
        owner: owner.into(),
        name: name.into(),
        description: format!("{name} by {owner}"),
        topics: ["rust".to_owned()].into(),
        stars: day,
        settings: Settings {
            default_branch: "main".into(),
            private: false,
        },
        updated_at: at(day, 12),
    };
    let comment = |id: &str, repo: &str, number, author: &str, day| Comment {
        id: id.into(),
        owner: "ana".into(),
        repo: repo.into(),
        number,
        author: author.into(),
        body: format!("comment {id}"),
        created_at: at(day, 13),
    };
    Seeded {
        accounts: vec![account("ana", 1), account("bob", 2)],
        repos: vec![
            repo("ana", "db", 3),
            repo("ana", "web", 5),
            repo("bob", "cli", 4),
        ],
        issues: vec![
            issue("ana", "db", 1, "ana", Status::Open, 6),
            issue("ana", "db", 2, "bob", Status::Open, 8),
            issue("ana", "db", 3, "ana", Status::Closed, 7),
            issue("bob", "cli", 1, "ana", Status::Open, 9),
        ],
        pulls: vec![
            pull("ana", "db", 10, "bob", Status::Open, 10),
            pull("ana", "web", 11, "ana", Status::Closed, 11),
        ],
        comments: vec![
            comment("c1", "db", 1, "bob", 12),
            comment("c2", "db", 1, "ana", 13),
            comment("c3", "db", 10, "ana", 14),
        ],
        subscriptions: vec![
            Subscription {
                owner: "ana".into(),
                repo: "db".into(),
                subscriber: "bob".into(),
            },
            Subscription {
                owner: "bob".into(),
                repo: "cli".into(),
                subscriber: "ana".into(),
            },
        ],
    }
}

/// Writes the sample data (one batch per kind).
pub async fn seed<E: Executor>(db: &Db<E>, data: &Seeded) -> Result<()> {
    for a in &data.accounts {
        db.create(a).await?;
    }
    let mut batch = singletable::BatchWriter::new();
    for r in &data.repos {
        batch = batch.put(r);
    }
    for i in &data.issues {
        batch = batch.put(i);
    }
    for p in &data.pulls {
        batch = batch.put(p);
    }
    for c in &data.comments {
        batch = batch.put(c);
    }
    for s in &data.subscriptions {
        batch = batch.put(s);
    }
    batch.execute(db).await
}

/// What every access pattern of the design returns.
#[derive(Debug)]
pub struct Answers {
    pub account: Option<Account>,
    pub repo: Option<Repo>,
    pub repo_page: Vec<RepoPage>,
    pub owned: Vec<Owned>,
    pub tickets: Vec<Tickets>,
    pub open_issues_newest_first: Vec<Issue>,
    pub open_pulls: Vec<Pull>,
    pub thread: Vec<Thread>,
    pub subscribers: Vec<Subscription>,
    pub subscriptions: Vec<Subscription>,
    pub open_issue_count: u64,
    pub recently_updated: Vec<Repo>,
}

/// Every access pattern of the design, each one request (the sharded
/// `recently_updated` one request per shard, concurrently).
pub async fn access_patterns<E: Executor>(db: &Db<E>) -> Result<Answers> {
    Ok(Answers {
        // GetItem ACCOUNT#ana / ACCOUNT.
        account: db.get::<Account>(Account::key("ana")?).await?,
        // GetItem REPO#ana#db / REPO.
        repo: db.get::<Repo>(Repo::key("ana", "db")?).await?,
        // Query REPO#ana#db: the repository, its tickets, its subscribers.
        repo_page: RepoPage::query(Repo::partition("ana", "db")?)
            .all(db)
            .await?,
        // Query GSI1 ACCOUNT#ana, begins_with(GSI1SK, OWNED#).
        owned: Owned::query(Account::gsi1_partition("ana")?)
            .all(db)
            .await?,
        // Query GSI1 ACCOUNT#ana, begins_with(GSI1SK, OWNED#TICKET#).
        tickets: Tickets::query(Account::gsi1_partition("ana")?)
            .all(db)
            .await?,
        // Query GSI2 TICKETS#ana#db#OPEN, begins_with(GSI2SK, ISSUE#), descending.
        open_issues_newest_first: Issue::issues_by_status("ana", "db", &Status::Open)
            .newest_first()
            .all(db)
            .await?,
        // Query GSI2 TICKETS#ana#db#OPEN, begins_with(GSI2SK, PULL#).
        open_pulls: Pull::pulls_by_status("ana", "db", &Status::Open)
            .all(db)
            .await?,
        // Query GSI3 THREAD#ana#db#1: the issue, then its comments by time.
        thread: Thread::query(Issue::gsi3_partition("ana", "db", 1)?)
            .all(db)
            .await?,
        // Query REPO#ana#db, begins_with(SK, SUB#).
        subscribers: Subscription::subscribers("ana", "db").all(db).await?,
        // Query GSI1 ACCOUNT#ana, begins_with(GSI1SK, SUBSCRIBED#).
        subscriptions: Subscription::subscriptions("ana").all(db).await?,
        // Query GSI2 with Select=COUNT.
        open_issue_count: Issue::issues_by_status("ana", "db", &Status::Open)
            .count(db)
            .await?,
        // 4 concurrent Queries on GSI2 REPOS#0..3, merged by update time.
        recently_updated: Repo::recently_updated().newest_first().all(db).await?,
    })
}

/// The tour the example binary prints.
pub async fn tour<E: Executor>(db: &Db<E>) -> Result<()> {
    let data = sample();
    seed(db, &data).await?;
    workflow(db).await?;
    println!(
        "opened ana/db#4, closed ana/db#1, ana approved ana/db#10; a second account for ana@example.com was refused\n"
    );
    let a = access_patterns(db).await?;
    println!("account ana: {:?}", a.account.map(|a| a.email));
    println!("repository ana/db: {:?}", a.repo.map(|r| r.description));
    println!("ana/db page: {} items", a.repo_page.len());
    println!("everything ana owns: {} items", a.owned.len());
    println!("tickets ana opened: {}", a.tickets.len());
    for i in &a.open_issues_newest_first {
        println!("  open issue #{} {} ({})", i.number, i.title, i.created_at);
    }
    println!("open pull requests of ana/db: {}", a.open_pulls.len());
    println!("thread of ana/db#1: {} items", a.thread.len());
    println!("subscribers of ana/db: {}", a.subscribers.len());
    println!("ana's subscriptions: {}", a.subscriptions.len());
    println!("open issues of ana/db: {}", a.open_issue_count);
    for r in &a.recently_updated {
        println!(
            "  recently updated: {}/{} ({})",
            r.owner, r.name, r.updated_at
        );
    }
    Ok(())
}

/// The design's writes, each one request: a new issue stamped (and keyed
/// on GSI2) by the clock; closing an issue only if it is open, which
/// rewrites its GSI2 partition key and nothing else; a reviewer's verdict
/// set as one entry of a pull request's map; a second account refused for
/// an address another holds.
pub async fn workflow<E: Executor>(db: &Db<E>) -> Result<()> {
    let mut fresh = issue("ana", "db", 4, "bob", Status::Open, 1);
    fresh.created_at = String::new();
    db.create(&fresh).await?;

    let f = Issue::fields();
    Issue::update("ana", "db", 1)
        .set(f.status, Status::Closed)
        .only_if(f.status.eq(&Status::Open))
        .execute(db)
        .await?;

    let p = Pull::fields();
    Pull::update("ana", "db", 10)
        .set(p.reviewers.entry("ana"), Verdict::Approved)
        .execute(db)
        .await?;

    let taken = Account {
        name: "ana2".into(),
        email: "ana@example.com".into(),
        created_at: String::new(),
    };
    match db.create(&taken).await {
        Err(Error::UniqueViolation { .. }) => Ok(()),
        Ok(()) => Err(Error::Validation {
            entity: "Account",
            field: "email",
            message: "a taken address was accepted".into(),
        }),
        Err(e) => Err(e),
    }
}
