//! Keys that follow what a write stamps and changes: automatic timestamps
//! in index keys, updates that rewrite only the key attributes whose fields
//! they set, and unique values kept by marker items. Each test runs on
//! DynamoDB Local and on the embedded backend.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use singletable::clock::Timestamp;
use singletable::{AttributeValue, Clock, Db, Entity, Error, Executor, Item, Table};
use singletable_runtime::exec::Counting;
use singletable_runtime::request::GetItem;

use crate::support::fresh_db;

mod unique;

#[derive(Table)]
#[table(name = "Sync", gsi1, gsi2, entities(Ticket, Task, Member))]
pub struct SyncTable;

/// An issue of a repository, listed by creation and by last activity: both
/// index sort keys are built from automatic timestamps.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = SyncTable, name = "Ticket", rename_all = "camelCase")]
#[pk("TICKET#<repo>#<number>")]
#[sk("TICKET")]
#[gsi1(pk = "TICKETS#<repo>", sk = "CREATED#<created_at>")]
#[gsi2(pk = "ACTIVE#<repo>", sk = "UPDATED#<updated_at>")]
#[access(tickets_by_creation, index = gsi1)]
#[access(tickets_by_activity, index = gsi2)]
pub struct Ticket {
    pub repo: String,
    pub number: u32,
    pub title: String,
    #[attr(created_at)]
    pub created_at: String,
    #[attr(updated_at)]
    pub updated_at: String,
}

/// A card on a board: its lane's index is keyed on two fields in the
/// partition key and one in the sort key; open cards are also in a sparse,
/// write-sharded index by due date.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = SyncTable, name = "Task", rename_all = "camelCase")]
#[pk("TASK#<id>")]
#[sk("TASK")]
#[gsi1(pk = "BOARD#<board>#<lane>", sk = "RANK#<rank>")]
#[gsi2(pk = "OPEN#<board>", sk = "DUE#<due>", shards = 4, when = open)]
#[access(lane, index = gsi1)]
#[access(open_by_due, index = gsi2)]
pub struct Task {
    pub id: String,
    pub board: String,
    pub lane: String,
    pub rank: u32,
    pub due: String,
    pub open: bool,
    pub title: String,
}

/// A member whose email and optional handle are unique.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = SyncTable, name = "Member", rename_all = "camelCase")]
#[pk("MEMBER#<id>")]
#[sk("MEMBER")]
pub struct Member {
    pub id: String,
    #[attr(unique)]
    pub email: String,
    #[attr(unique)]
    pub handle: Option<String>,
    pub name: String,
}

/// A clock the test moves: epoch seconds in shared state.
fn test_clock(start: u64) -> (Clock, Arc<AtomicU64>) {
    let secs = Arc::new(AtomicU64::new(start));
    let shared = secs.clone();
    let clock =
        Clock::from_fn(move || UNIX_EPOCH + Duration::from_secs(shared.load(Ordering::SeqCst)));
    (clock, secs)
}

fn at(secs: u64) -> String {
    String::at(UNIX_EPOCH + Duration::from_secs(secs))
}

fn key(pk: &str, sk: &str) -> Item {
    Item::from([
        ("PK".to_owned(), AttributeValue::S(pk.to_owned())),
        ("SK".to_owned(), AttributeValue::S(sk.to_owned())),
    ])
}

/// The stored item, if any, as any other client reads it.
async fn stored<E: Executor>(db: &Db<E>, pk: &str, sk: &str) -> Option<Item> {
    db.executor()
        .get_item(GetItem {
            table: db.table_name().into(),
            key: key(pk, sk),
            consistent: true,
        })
        .await
        .unwrap()
}

fn s<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// `db` over a counting executor, its clock set.
fn counted<E: Executor + Clone>(db: &Db<E>, clock: Clock) -> Db<Counting<E>> {
    Db::with_executor(Counting::new(db.executor().clone()), db.table_name()).with_clock(clock)
}

fn ticket(number: u32, title: &str) -> Ticket {
    Ticket {
        repo: "core".into(),
        number,
        title: title.into(),
        created_at: String::new(),
        updated_at: String::new(),
    }
}

/// The stored ticket's timestamps, and its index sort keys.
async fn ticket_times<E: Executor>(db: &Db<E>, number: u32) -> [String; 4] {
    let item = stored(db, &Ticket::pk("core", number).unwrap(), "TICKET")
        .await
        .expect("ticket exists");
    ["createdAt", "updatedAt", "GSI1SK", "GSI2SK"].map(|a| s(&item, a).unwrap_or("").to_owned())
}

fn in_sync(created: u64, updated: u64) -> [String; 4] {
    [
        at(created),
        at(updated),
        format!("CREATED#{}", at(created)),
        format!("UPDATED#{}", at(updated)),
    ]
}

async fn timestamps<E: Executor + Clone>(base: &Db<E>) {
    let (clock, now) = test_clock(1_800_000_000);
    let db = counted(base, clock);

    // Create with empty timestamps: both stamped with one reading, keys too.
    db.create(&ticket(1, "crash")).await.unwrap();
    assert_eq!(db.executor().count(), 1);
    assert_eq!(
        ticket_times(&db, 1).await,
        in_sync(1_800_000_000, 1_800_000_000)
    );
    let found = Ticket::tickets_by_creation("core")
        .sk_eq(&at(1_800_000_000))
        .all(&db)
        .await
        .unwrap();
    assert_eq!(found.len(), 1, "found by its stored creation time");
    let read = found.into_iter().next().unwrap();
    assert_eq!(read.created_at, at(1_800_000_000));

    // A put of the item read keeps its creation time; updatedAt and the
    // key built from it move.
    now.store(1_800_000_100, Ordering::SeqCst);
    db.executor().reset();
    db.put(&Ticket {
        title: "crash on start".into(),
        ..read.clone()
    })
    .await
    .unwrap();
    assert_eq!(db.executor().count(), 1, "one PutItem");
    assert_eq!(
        ticket_times(&db, 1).await,
        in_sync(1_800_000_000, 1_800_000_100)
    );

    // A put that does not know the creation time (empty) keeps the stored
    // one: the first PutItem is refused with the stored item, the second
    // carries its creation time.
    now.store(1_800_000_200, Ordering::SeqCst);
    db.executor().reset();
    db.put(&ticket(1, "rebuilt from a form")).await.unwrap();
    assert_eq!(db.executor().count(), 2, "PutItem, refused, then PutItem");
    assert_eq!(
        ticket_times(&db, 1).await,
        in_sync(1_800_000_000, 1_800_000_200)
    );
    // A put of a new item with an empty creation time: stamped, one request.
    db.executor().reset();
    db.put(&ticket(2, "new")).await.unwrap();
    assert_eq!(db.executor().count(), 1);
    assert_eq!(
        ticket_times(&db, 2).await,
        in_sync(1_800_000_200, 1_800_000_200)
    );

    // An update stamps updatedAt and rewrites GSI2SK in the same request;
    // GSI1SK (creation) stays.
    now.store(1_800_000_300, Ordering::SeqCst);
    db.executor().reset();
    Ticket::update("core", 1)
        .set(Ticket::fields().title, "fixed".to_owned())
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(db.executor().count(), 1, "one UpdateItem");
    assert_eq!(
        ticket_times(&db, 1).await,
        in_sync(1_800_000_000, 1_800_000_300)
    );
    let active = Ticket::tickets_by_activity("core")
        .sk_eq(&at(1_800_000_300))
        .all(&db)
        .await
        .unwrap();
    assert_eq!(active.len(), 1, "found by its stored update time");
    assert_eq!(active[0].title, "fixed");
    assert_eq!(active[0].updated_at, at(1_800_000_300));

    // Transactions: one reading for every operation; a put with an empty
    // creation time requires that the stored item has none.
    now.store(1_800_000_400, Ordering::SeqCst);
    let err = singletable::Transaction::new()
        .put(&ticket(1, "overwrite"))
        .create(&ticket(3, "third"))
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::TransactionCanceled { reasons } if reasons[0].code == "ConditionalCheckFailed"),
        "{err:?}"
    );
    let current = db
        .get_consistent::<Ticket>(Ticket::key("core", 1).unwrap())
        .await
        .unwrap()
        .unwrap();
    singletable::Transaction::new()
        .put(&Ticket {
            title: "overwritten".into(),
            ..current
        })
        .create(&ticket(3, "third"))
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        ticket_times(&db, 1).await,
        in_sync(1_800_000_000, 1_800_000_400)
    );
    assert_eq!(
        ticket_times(&db, 3).await,
        in_sync(1_800_000_400, 1_800_000_400)
    );

    // Batch puts cannot condition: an empty creation time is refused, a
    // known one kept.
    now.store(1_800_000_500, Ordering::SeqCst);
    db.executor().reset();
    let err = singletable::BatchWriter::new()
        .put(&ticket(2, "lost?"))
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Refused(singletable::Refusal::BatchPutWithoutCreated {
                field: "created_at",
                ..
            })
        ),
        "{err:?}"
    );
    assert_eq!(db.executor().count(), 0, "nothing sent");
    let two = db
        .get_consistent::<Ticket>(Ticket::key("core", 2).unwrap())
        .await
        .unwrap()
        .unwrap();
    singletable::BatchWriter::new()
        .put(&Ticket {
            title: "batched".into(),
            ..two
        })
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        ticket_times(&db, 2).await,
        in_sync(1_800_000_200, 1_800_000_500)
    );

    // Upserts: createdAt and the key built from it only when new.
    now.store(1_800_000_600, Ordering::SeqCst);
    let f = Ticket::fields();
    Ticket::update("core", 4)
        .set(f.title, "upserted".to_owned())
        .upsert()
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        ticket_times(&db, 4).await,
        in_sync(1_800_000_600, 1_800_000_600)
    );
    now.store(1_800_000_700, Ordering::SeqCst);
    Ticket::update("core", 4)
        .set(f.title, "upserted again".to_owned())
        .upsert()
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(
        ticket_times(&db, 4).await,
        in_sync(1_800_000_600, 1_800_000_700)
    );

    // Every ticket is found in both indexes by its stored times.
    for n in 1..=4 {
        let t = db
            .get_consistent::<Ticket>(Ticket::key("core", n).unwrap())
            .await
            .unwrap()
            .unwrap();
        let by_creation = Ticket::tickets_by_creation("core")
            .sk_eq(&t.created_at)
            .all(&db)
            .await
            .unwrap();
        assert!(by_creation.contains(&t), "ticket {n} by creation");
        let by_activity = Ticket::tickets_by_activity("core")
            .sk_eq(&t.updated_at)
            .all(&db)
            .await
            .unwrap();
        assert!(by_activity.contains(&t), "ticket {n} by activity");
    }
}

#[tokio::test]
async fn timestamps_in_keys_stay_in_sync() {
    timestamps(&fresh_db::<SyncTable>("stamped-keys").await).await;
    timestamps(&Db::<singletable::Embedded>::in_memory::<SyncTable>("Sync").unwrap()).await;
}

/// A clock before 1970 or past the year 9999 (a board without a battery, a
/// test that sets any instant) stamps values and keys that read back:
/// before the epoch in RFC 3339, rounded down; past 9999 the last
/// microsecond RFC 3339 spells.
async fn far_clocks<E: Executor + Clone>(base: &Db<E>) {
    let cases = [
        (
            UNIX_EPOCH - Duration::from_millis(1500),
            "1969-12-31T23:59:58.500000Z",
        ),
        (
            UNIX_EPOCH + Duration::from_secs(400_000_000_000),
            "9999-12-31T23:59:59.999999Z",
        ),
    ];
    for (n, (now, text)) in (10..).zip(cases) {
        let db = counted(base, Clock::fixed(now));
        db.create(&ticket(n, "far")).await.unwrap();
        let stored = ticket_times(&db, n).await;
        assert_eq!(
            stored,
            [
                text.to_owned(),
                text.to_owned(),
                format!("CREATED#{text}"),
                format!("UPDATED#{text}")
            ]
        );
        let found = Ticket::tickets_by_creation("core")
            .sk_eq(text)
            .all(&db)
            .await
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].created_at, text);
    }
}

#[tokio::test]
async fn clocks_before_1970_or_after_9999_stamp_readable_times() {
    far_clocks(&fresh_db::<SyncTable>("far-clocks").await).await;
    far_clocks(&Db::<singletable::Embedded>::in_memory::<SyncTable>("Sync").unwrap()).await;
}

fn task(id: &str, lane: &str, rank: u32, due: &str, open: bool) -> Task {
    Task {
        id: id.into(),
        board: "b".into(),
        lane: lane.into(),
        rank,
        due: due.into(),
        open,
        title: format!("task {id}"),
    }
}

async fn partial_updates<E: Executor + Clone>(base: &Db<E>) {
    let db = counted(base, Clock::system());
    let f = Task::fields();
    for t in [
        task("t1", "todo", 3, "2026-03-01", true),
        task("t2", "todo", 1, "2026-02-01", true),
        task("t3", "todo", 2, "2026-01-01", false),
    ] {
        db.put(&t).await.unwrap();
    }
    let ids = |v: Vec<Task>| v.into_iter().map(|t| t.id).collect::<Vec<_>>();
    assert_eq!(
        ids(Task::lane("b", "todo").all(&db).await.unwrap()),
        ["t2", "t3", "t1"]
    );

    // Only GSI1SK depends on `rank`: no field of GSI1PK is needed.
    db.executor().reset();
    Task::update("t1")
        .set(f.rank, 0)
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(db.executor().count(), 1, "one UpdateItem");
    let raw = stored(&db, "TASK#t1", "TASK").await.unwrap();
    assert_eq!(
        s(&raw, "GSI1PK"),
        Some("BOARD#b#todo"),
        "partition key untouched"
    );
    assert_eq!(s(&raw, "GSI1SK"), Some("RANK#0000000000"));
    assert_eq!(
        ids(Task::lane("b", "todo").all(&db).await.unwrap()),
        ["t1", "t2", "t3"]
    );

    // GSI1PK needs `board` beside `lane`: refused before sending...
    db.executor().reset();
    let err = Task::update("t1")
        .check_at_run_time()
        .set(f.lane, "done".to_owned())
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::UpdateNeedsItem { writes: "GSI1PK", needs: "board", message: m, .. } if m.contains("`GSI1PK` also needs `board`") && m.contains(".knowing(&item)")),
        "{err}"
    );
    assert_eq!(db.executor().count(), 0);
    // ...unless the item held supplies it, without sending it as a change.
    let t1 = db
        .get_consistent::<Task>(Task::key("t1").unwrap())
        .await
        .unwrap()
        .unwrap();
    db.executor().reset();
    Task::update("t1")
        .set(f.lane, "done".to_owned())
        .knowing(&t1)
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(db.executor().count(), 1, "one UpdateItem");
    assert_eq!(ids(Task::lane("b", "done").all(&db).await.unwrap()), ["t1"]);
    // A stale held item fails instead of writing a wrong key.
    let err = Task::update("t1")
        .set(f.lane, "todo".to_owned())
        .knowing(&Task {
            board: "other".into(),
            ..t1.clone()
        })
        .execute(&db)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    assert_eq!(ids(Task::lane("b", "done").all(&db).await.unwrap()), ["t1"]);

    // The sparse, sharded index: changing its sort key needs to know
    // whether the item is in it.
    let err = Task::update("t2")
        .set(f.due, "2025-12-01".to_owned())
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::UpdateNeedsItem { needs: "open", message: m, .. } if m.contains("without setting `open`")),
        "{err}"
    );
    let t2 = db
        .get_consistent::<Task>(Task::key("t2").unwrap())
        .await
        .unwrap()
        .unwrap();
    let shard_key = s(&stored(&db, "TASK#t2", "TASK").await.unwrap(), "GSI2PK").map(str::to_owned);
    db.executor().reset();
    Task::update("t2")
        .set(f.due, "2025-12-01".to_owned())
        .knowing(&t2)
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(db.executor().count(), 1, "one UpdateItem");
    let raw = stored(&db, "TASK#t2", "TASK").await.unwrap();
    assert_eq!(s(&raw, "GSI2SK"), Some("DUE#2025-12-01"));
    assert_eq!(
        s(&raw, "GSI2PK").map(str::to_owned),
        shard_key,
        "same shard"
    );
    let open = |v: Vec<Task>| v.into_iter().map(|t| (t.id, t.due)).collect::<Vec<_>>();
    assert_eq!(
        open(Task::open_by_due("b").all(&db).await.unwrap()),
        [
            ("t2".into(), "2025-12-01".into()),
            ("t1".into(), "2026-03-01".into())
        ]
    );
    // A closed item is not in the index: a change of its sort key field
    // writes nothing there.
    let t3 = db
        .get_consistent::<Task>(Task::key("t3").unwrap())
        .await
        .unwrap()
        .unwrap();
    Task::update("t3")
        .set(f.due, "2025-01-01".to_owned())
        .knowing(&t3)
        .execute(&db)
        .await
        .unwrap();
    let raw = stored(&db, "TASK#t3", "TASK").await.unwrap();
    assert!(
        !raw.contains_key("GSI2PK") && !raw.contains_key("GSI2SK"),
        "{raw:?}"
    );
    // Opening it writes both attributes, the shard from its primary key.
    Task::update("t3")
        .set(f.open, true)
        .knowing(&Task {
            due: "2025-01-01".into(),
            ..t3
        })
        .execute(&db)
        .await
        .unwrap();
    let encoded = task("t3", "todo", 2, "2025-01-01", true).to_item().unwrap();
    let raw = stored(&db, "TASK#t3", "TASK").await.unwrap();
    assert_eq!(raw.get("GSI2PK"), encoded.get("GSI2PK"));
    assert_eq!(raw.get("GSI2SK"), encoded.get("GSI2SK"));
    assert_eq!(
        open(Task::open_by_due("b").all(&db).await.unwrap()),
        [
            ("t3".into(), "2025-01-01".into()),
            ("t2".into(), "2025-12-01".into()),
            ("t1".into(), "2026-03-01".into())
        ]
    );
}

#[tokio::test]
async fn sort_key_only_update_needs_no_partition_fields() {
    partial_updates(&fresh_db::<SyncTable>("partial-keys").await).await;
    partial_updates(&Db::<singletable::Embedded>::in_memory::<SyncTable>("Sync").unwrap()).await;
}

#[derive(Table)]
#[table(name = "Needs", gsi1)]
pub struct NeedsTable;

/// A reply listed by last activity and status: its index sort key mixes an
/// automatic timestamp, which every update stamps, with a plain field, so
/// every update must set `status` or be given the held item (a compile
/// error otherwise, see `tests/ui/typed/update_that_cannot_rebuild_a_key_needs_the_item.rs`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = NeedsTable, name = "Reply", rename_all = "camelCase")]
#[pk("THREAD#<thread>")]
#[sk("REPLY#<id>")]
#[gsi1(pk = "THREAD#<thread>", sk = "REPLY#<updated_at>#<status>")]
#[access(replies_by_activity, index = gsi1)]
pub struct Reply {
    pub thread: String,
    pub id: String,
    pub body: String,
    pub status: String,
    #[attr(updated_at)]
    pub updated_at: String,
}

async fn reply_keys<E: Executor>(db: &Db<E>) -> [String; 3] {
    let item = stored(db, "THREAD#t", "REPLY#r")
        .await
        .expect("reply exists");
    ["body", "status", "GSI1SK"].map(|a| s(&item, a).unwrap_or("").to_owned())
}

async fn held_item_needs<E: Executor + Clone>(base: &Db<E>) {
    let (clock, secs) = test_clock(100);
    let db = counted(base, clock);
    let f = Reply::fields();
    db.put(&Reply {
        thread: "t".into(),
        id: "r".into(),
        body: "v1".into(),
        status: "new".into(),
        updated_at: String::new(),
    })
    .await
    .unwrap();
    let gsi1sk = |t: u64, status: &str| format!("REPLY#{}#{status}", at(t));
    assert_eq!(reply_keys(&db).await, ["v1", "new", &gsi1sk(100, "new")]);

    // Way one: the update sets the other field of the key it stamps.
    secs.store(200, Ordering::SeqCst);
    db.executor().reset();
    Reply::update("t", "r")
        .set(f.body, "v2".to_owned())
        .set(f.status, "seen".to_owned())
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(db.executor().count(), 1, "one UpdateItem");
    assert_eq!(reply_keys(&db).await, ["v2", "seen", &gsi1sk(200, "seen")]);

    // Way two: the held item gives `status`, which is not sent as a change.
    let held = db
        .get_consistent::<Reply>(Reply::key("t", "r").unwrap())
        .await
        .unwrap()
        .unwrap();
    secs.store(300, Ordering::SeqCst);
    db.executor().reset();
    Reply::update("t", "r")
        .set(f.body, "v3".to_owned())
        .knowing(&held)
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(db.executor().count(), 1, "one UpdateItem");
    assert_eq!(reply_keys(&db).await, ["v3", "seen", &gsi1sk(300, "seen")]);
    let listed = Reply::replies_by_activity("t").all(&db).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].body, "v3");

    // A held item gone stale fails on its condition and writes nothing.
    secs.store(400, Ordering::SeqCst);
    Reply::update("t", "r")
        .set(f.status, "done".to_owned())
        .execute(&db)
        .await
        .unwrap();
    secs.store(500, Ordering::SeqCst);
    let stale = Reply::update("t", "r")
        .set(f.body, "v4".to_owned())
        .knowing(&held)
        .execute(&db)
        .await;
    assert!(
        matches!(stale, Err(Error::ConditionFailed { .. })),
        "{stale:?}"
    );
    assert_eq!(reply_keys(&db).await, ["v3", "done", &gsi1sk(400, "done")]);

    // Neither, checked when sent: refused before anything is sent.
    db.executor().reset();
    let err = Reply::update("t", "r")
        .check_at_run_time()
        .set(f.body, "v5".to_owned())
        .execute(&db)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::UpdateNeedsItem { writes: "GSI1SK", needs: "status", message, .. } if message.contains("stamps `updated_at`")),
        "{err:?}"
    );
    assert_eq!(db.executor().count(), 0, "nothing was sent");
    assert_eq!(reply_keys(&db).await, ["v3", "done", &gsi1sk(400, "done")]);
}

#[tokio::test]
async fn update_that_cannot_rebuild_a_key_needs_the_item() {
    held_item_needs(&fresh_db::<NeedsTable>("held-needs").await).await;
    held_item_needs(&Db::<singletable::Embedded>::in_memory::<NeedsTable>("Needs").unwrap()).await;
}
