//! Published layouts, reproduced exactly: AWS's version-control sample
//! (`amazon-dynamodb-design-patterns`, number-based versions written in a
//! transaction). Its Python Lambda keeps, per piece of equipment, the
//! latest state in the `v0` item (with the number of the latest version
//! in `Latest`) and every version in `v1`, `v2`, … items; the partition key
//! is the equipment's ID as the caller gives it. No item carries an entity
//! type or copies of its key values.
//!
//! The library writes the same items, attribute for attribute, as the
//! published code's own requests (sent here with the plain SDK on DynamoDB
//! Local, and as the same raw requests on the embedded backend), and reads
//! the items that code wrote.

use std::num::NonZeroU32;

use singletable::{
    AttributeValue, Collection, Condition, Db, Entity, Error, Executor, Item, KeyError, SdkDb,
    Table,
};
use singletable_runtime::request::{
    GetItem, PutItem, SetValue, TransactWrite, TransactWriteOp, UpdateAction, UpdateItem,
};

use crate::support::{both, endpoint, scan_all, unique_table};

#[derive(Table)]
#[table(name = "VersionControl", other_items = skip)]
pub struct VersionControl;

/// The `v0` item: the latest version's state, and its number.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = VersionControl, untyped, rename_all = "PascalCase")]
#[pk("<id>")]
#[sk("v0")]
pub struct Latest {
    /// The equipment's ID as the caller gives it (`Equipment#7`): written
    /// verbatim, stored in the key only.
    #[attr(from_key, verbatim)]
    pub id: String,
    pub latest: u32,
    pub time: String,
    pub state: String,
}

/// A `vN` item, N from 1: `NonZeroU32` keeps `v0` the latest item's key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = VersionControl, untyped, rename_all = "PascalCase")]
#[pk("<id>")]
#[sk("v<version>")]
#[access(history)]
pub struct Version {
    #[attr(from_key, verbatim)]
    pub id: String,
    #[attr(from_key, unpadded)]
    pub version: NonZeroU32,
    pub time: String,
    pub state: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Equipment {
    Latest(Latest),
    Version(Version),
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: u32) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The events the sample's Lambda is called with: (ID, Time, State).
const EVENTS: [(&str, &str, &str); 4] = [
    ("Equipment#7", "2020-04-20T10:00:00", "NORMAL"),
    ("Equipment#7", "2020-04-20T10:05:00", "WARNING"),
    ("Equipment#7", "2020-04-20T10:10:00", "NORMAL"),
    ("Pump 50%", "2020-04-21T08:00:00", "NORMAL"),
];

/// The sample's `add_new_version` handler, written with the library:
/// read the latest version, then put the new `v0` and `vN` in one
/// transaction.
async fn add_new_version_with_the_library(db: &Db, id: &str, time: &str, state: &str) {
    let latest = db.get::<Latest>(Latest::key(id).unwrap()).await.unwrap();
    let next = latest.map_or(1, |l| l.latest + 1);
    singletable::Transaction::new()
        .put(&Latest {
            id: id.into(),
            latest: next,
            time: time.into(),
            state: state.into(),
        })
        .put(&Version {
            id: id.into(),
            version: NonZeroU32::new(next).unwrap(),
            time: time.into(),
            state: state.into(),
        })
        .execute(db)
        .await
        .unwrap();
}

/// The requests of the sample's `add_new_version` handler, as it sends
/// them: GetItem of `v0`, then a transaction of an UpdateItem of `v0`
/// (conditioned on `Latest`) and a PutItem of `v<higher_version>`.
fn published_requests(
    table: &str,
    latest: Option<u32>,
    id: &str,
    time: &str,
    state: &str,
) -> TransactWrite {
    let (latest, higher) = match latest {
        Some(l) => (l, l + 1),
        None => (0, 1),
    };
    let key: Item = [("PK".to_owned(), s(id)), ("SK".to_owned(), s("v0"))].into();
    let update = UpdateItem {
        table: table.into(),
        key,
        actions: vec![
            UpdateAction::Set("Time".into(), SetValue::Value(s(time))),
            UpdateAction::Set("State".into(), SetValue::Value(s(state))),
            UpdateAction::Set("Latest".into(), SetValue::Value(n(higher))),
        ],
        condition: Some(
            Condition::NotExists("Latest".into()).or(Condition::eq("Latest", n(latest))),
        ),
        return_values: Default::default(),
        return_on_condition_failure: false,
    };
    let item: Item = [
        ("PK".to_owned(), s(id)),
        ("SK".to_owned(), s(&format!("v{higher}"))),
        ("Time".to_owned(), s(time)),
        ("State".to_owned(), s(state)),
    ]
    .into();
    TransactWrite {
        ops: vec![
            TransactWriteOp::Update(update),
            TransactWriteOp::Put(PutItem {
                table: table.into(),
                item,
                condition: None,
                return_old: false,
                return_on_condition_failure: false,
            }),
        ],
        token: None,
    }
}

/// The latest version number the handler reads from `v0` (`Latest`).
fn latest_of(item: Option<Item>) -> Option<u32> {
    match item?.get("Latest")? {
        AttributeValue::N(n) => n.parse().ok(),
        _ => None,
    }
}

/// The published handler, sent as raw requests through a handle's executor
/// (the embedded backend speaks no HTTP).
async fn add_new_version_as_published(db: &Db, id: &str, time: &str, state: &str) {
    let key: Item = [("PK".to_owned(), s(id)), ("SK".to_owned(), s("v0"))].into();
    let current = db
        .executor()
        .get_item(GetItem {
            table: db.table_name().into(),
            key,
            consistent: false,
        })
        .await
        .unwrap();
    let req = published_requests(db.table_name(), latest_of(current), id, time, state);
    db.executor().transact_write(req).await.unwrap();
}

/// The published handler with the plain AWS SDK, call for call.
async fn add_new_version_with_the_sdk(
    client: &aws_sdk_dynamodb::Client,
    table: &str,
    id: &str,
    time: &str,
    state: &str,
) {
    use aws_sdk_dynamodb::types::{AttributeValue as A, Put, TransactWriteItem, Update};
    let current = client
        .get_item()
        .table_name(table)
        .key("PK", A::S(id.into()))
        .key("SK", A::S("v0".into()))
        .send()
        .await
        .unwrap();
    let latest_version = match current.item().and_then(|i| i.get("Latest")) {
        Some(A::N(n)) => n.parse::<u32>().unwrap(),
        _ => 0,
    };
    let higher_version = latest_version + 1;
    let update = Update::builder()
        .table_name(table)
        .key("PK", A::S(id.into()))
        .key("SK", A::S("v0".into()))
        .condition_expression("attribute_not_exists(#latest) OR #latest = :latest")
        .update_expression("SET #time = :time, #state = :state, #latest = :higher_version")
        .expression_attribute_names("#latest", "Latest")
        .expression_attribute_names("#time", "Time")
        .expression_attribute_names("#state", "State")
        .expression_attribute_values(":latest", A::N(latest_version.to_string()))
        .expression_attribute_values(":higher_version", A::N(higher_version.to_string()))
        .expression_attribute_values(":time", A::S(time.into()))
        .expression_attribute_values(":state", A::S(state.into()))
        .build()
        .unwrap();
    let put = Put::builder()
        .table_name(table)
        .item("PK", A::S(id.into()))
        .item("SK", A::S(format!("v{higher_version}")))
        .item("Time", A::S(time.into()))
        .item("State", A::S(state.into()))
        .build()
        .unwrap();
    client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(update).build())
        .transact_items(TransactWriteItem::builder().put(put).build())
        .send()
        .await
        .unwrap();
}

/// Every item of a handle's table, raw, sorted by key.
async fn every_item<E: Executor>(db: &Db<E>) -> Vec<Item> {
    let mut items = scan_all(db.executor(), db.table_name(), None, None, true).await;
    let key = |i: &Item| format!("{:?}/{:?}", i.get("PK"), i.get("SK"));
    items.sort_by_key(key);
    items
}

#[tokio::test]
async fn published_layout_matches_its_own_client_code() {
    // Two tables per backend: one the library writes, one the published
    // code writes.
    let [lib_local, lib_embedded] = both::<VersionControl>("published-lib").await;
    let [code_local, code_embedded] = both::<VersionControl>("published-code").await;
    let sdk_table = unique_table("published-sdk");
    let sdk_db = Db::local(&endpoint(), sdk_table.clone());
    sdk_db
        .create_table_if_missing::<VersionControl>()
        .await
        .unwrap();
    for (id, time, state) in EVENTS {
        for db in [&lib_local, &lib_embedded] {
            add_new_version_with_the_library(db, id, time, state).await;
        }
        for db in [&code_local, &code_embedded] {
            add_new_version_as_published(db, id, time, state).await;
        }
        add_new_version_with_the_sdk(sdk_db.sdk(), &sdk_table, id, time, state).await;
    }
    let sdk_items = every_item(&sdk_db).await;
    // Six items: two `v0`, three versions of one piece, one of the other.
    assert_eq!(sdk_items.len(), 6, "{sdk_items:#?}");
    let v0 = sdk_items
        .iter()
        .find(|i| i.get("PK") == Some(&s("Equipment#7")) && i.get("SK") == Some(&s("v0")))
        .expect("the published code's v0 item");
    assert_eq!(v0.get("Latest"), Some(&n(3)));
    for db in [&lib_local, &lib_embedded, &code_local, &code_embedded] {
        assert_eq!(every_item(db).await, sdk_items, "{}", db.table_name());
    }

    // The library reads what the published code wrote.
    for db in [&code_local, &code_embedded] {
        let latest = db
            .get::<Latest>(Latest::key("Equipment#7").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            latest,
            Latest {
                id: "Equipment#7".into(),
                latest: 3,
                time: "2020-04-20T10:10:00".into(),
                state: "NORMAL".into(),
            }
        );
        // The partition holds `v0` too: the history leaves it out (no
        // version reads `v0`, and the table skips other items), and the
        // collection tells the two apart by key.
        let history = Version::history("Equipment#7").all(db).await.unwrap();
        let strict = Version::history("Equipment#7").fail_on_other_types();
        assert!(matches!(strict.all(db).await, Err(Error::Decode { .. })));
        let versions: Vec<u32> = history.iter().map(|v| v.version.get()).collect();
        assert_eq!(versions, [1, 2, 3]);
        assert_eq!(history[1].state, "WARNING");
        let all = Equipment::query(Version::partition("Equipment#7").unwrap())
            .all(db)
            .await
            .unwrap();
        assert_eq!(all.len(), 4);
        assert!(matches!(&all[0], Equipment::Latest(l) if l.latest == 3));
        let pump = db
            .get::<Version>(Version::key("Pump 50%", NonZeroU32::MIN).unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(pump.id, "Pump 50%"); // `%` is not escaped: the key is the ID
    }
}

#[test]
fn verbatim_and_unpadded_key_parts_are_refused_not_escaped() {
    // `v0` is no version's key: NonZeroU32 cannot be zero, and `v01` is
    // not how one is written.
    assert!(Version::parse_sk("v0").is_err());
    assert!(Version::parse_sk("v01").is_err());
    assert_eq!(Version::parse_sk("v12").unwrap().get(), 12);
    assert_eq!(Version::sk(NonZeroU32::new(10).unwrap()).unwrap(), "v10");
    // A verbatim value that ends its template may hold `#`; an empty one
    // is refused as DynamoDB refuses empty keys.
    assert_eq!(Latest::pk("a#b%c").unwrap(), "a#b%c");
    assert!(matches!(
        Latest::pk(""),
        Err(Error::KeyValue {
            field: "id",
            reason: KeyError::Empty,
            ..
        })
    ));
}

/// The adjacency-list pattern of DynamoDB's developer guide: an inverted
/// index keyed on the table's own sort and partition keys (`gsi1`: PK =
/// `SK`, SK = `PK`), and an index sorted by the table's sort key (`gsi2`:
/// SK = `SK`). No index attribute is written twice; updates rewrite only
/// the index attributes that are not the item's own key.
mod shared_keys {
    use singletable::{AttributeValue, Db, Entity, Table};

    use crate::support::{both, raw_item};

    #[derive(Table)]
    #[table(
        name = "Adjacency",
        gsi1(pk = "SK", sk = "PK"),
        gsi2(sk = "SK"),
        entities(Membership)
    )]
    pub struct Adjacency;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Adjacency, rename_all = "camelCase")]
    #[pk("EMP#<emp_id>")]
    #[sk("PROJECT#<project_id>")]
    #[gsi1(pk = "PROJECT#<project_id>", sk = "EMP#<emp_id>")]
    #[gsi2(pk = "ROLE#<role>", sk = "PROJECT#<project_id>", when = active)]
    #[access(projects_of)]
    #[access(members_of, index = gsi1)]
    #[access(by_role, index = gsi2)]
    pub struct Membership {
        pub emp_id: String,
        pub project_id: String,
        pub role: String,
        pub active: bool,
    }

    fn member(emp: &str, project: &str, role: &str) -> Membership {
        Membership {
            emp_id: emp.into(),
            project_id: project.into(),
            role: role.into(),
            active: true,
        }
    }

    fn pairs(items: &[Membership]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|m| (m.emp_id.clone(), m.project_id.clone()))
            .collect()
    }

    async fn by_role(db: &Db, role: &str) -> Vec<(String, String)> {
        pairs(&Membership::by_role(role).all(db).await.unwrap())
    }

    fn pair(emp: &str, project: &str) -> (String, String) {
        (emp.into(), project.into())
    }

    #[tokio::test]
    async fn index_key_reuses_a_table_key_attribute() {
        // The design document shows each shared attribute once.
        let layout = singletable_tools::design::layout_table::<Adjacency>();
        let lines: Vec<&str> = layout.lines().collect();
        assert_eq!(lines[0], "| entityType | PK | SK | GSI2PK |", "{layout}");
        assert!(
            lines[2].starts_with(
                "| Membership | `EMP#<empId>` | `PROJECT#<projectId>` | `ROLE#<role>`"
            ),
            "{layout}"
        );
        for db in both::<Adjacency>("shared-keys").await {
            for m in [
                member("e2", "p1", "dev"),
                member("e1", "p1", "lead"),
                member("e1", "p2", "dev"),
                member("e3", "p3", "dev"),
            ] {
                db.put(&m).await.unwrap();
            }
            // The item holds its key once: no GSI1PK/GSI1SK copies, no GSI2SK.
            let raw = raw_item(&db, "EMP#e1", "PROJECT#p2").await;
            let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
            names.sort_unstable();
            assert_eq!(
                names,
                [
                    "GSI2PK",
                    "PK",
                    "SK",
                    "active",
                    "empId",
                    "entityType",
                    "projectId",
                    "role"
                ]
            );
            assert_eq!(
                raw.get("GSI2PK"),
                Some(&AttributeValue::S("ROLE#dev".into()))
            );

            // The table: an employee's projects. The inverted index: a
            // project's members, by employee.
            let projects = Membership::projects_of("e1").all(&db).await.unwrap();
            assert_eq!(pairs(&projects), [pair("e1", "p1"), pair("e1", "p2")]);
            let members = Membership::members_of("p1").all(&db).await.unwrap();
            assert_eq!(pairs(&members), [pair("e1", "p1"), pair("e2", "p1")]);
            // gsi2, sorted by the table's sort key.
            let devs = [pair("e2", "p1"), pair("e1", "p2"), pair("e3", "p3")];
            assert_eq!(by_role(&db, "dev").await, devs);

            // An update of the index's own key rewrites GSI2PK, never SK
            // (DynamoDB refuses an update of a key attribute).
            let f = Membership::fields();
            Membership::update("e3", "p3")
                .set(f.role, "lead".to_owned())
                .set(f.active, true)
                .execute(&db)
                .await
                .unwrap();
            assert_eq!(
                by_role(&db, "lead").await,
                [pair("e1", "p1"), pair("e3", "p3")]
            );
            // Leaving the sparse index removes GSI2PK only; the item keeps
            // its key and stays in the inverted index.
            Membership::update("e1", "p2")
                .set(f.active, false)
                .execute(&db)
                .await
                .unwrap();
            assert_eq!(by_role(&db, "dev").await, [pair("e2", "p1")]);
            let raw = raw_item(&db, "EMP#e1", "PROJECT#p2").await;
            assert!(!raw.contains_key("GSI2PK") && raw.contains_key("SK"));
            let members = Membership::members_of("p2").all(&db).await.unwrap();
            assert_eq!(pairs(&members), [pair("e1", "p2")]);
            // Entering it again writes GSI2PK, with the role it has now.
            Membership::update("e1", "p2")
                .set(f.active, true)
                .set(f.role, "dev".to_owned())
                .execute(&db)
                .await
                .unwrap();
            assert_eq!(
                by_role(&db, "dev").await,
                [pair("e2", "p1"), pair("e1", "p2")]
            );
        }
    }
}

/// AWS's device state log sample, as its data model and AWS CLI queries
/// lay it out: `DeviceID` (values such as `d#12345`, unescaped) and the
/// composite sort key `State#Date`, next to `State` and `Date`; `GSI1` on
/// the items' own `Operator` and `Date` (a multi-attribute key). No entity
/// type, no other attributes.
mod device_log {
    use singletable::{AttributeValue, Entity, Error, Item, KeyError, Table};

    use super::every_item;
    use crate::support::{both, raw_put};

    #[derive(Table)]
    #[table(
        name = "DeviceStateLog",
        pk = "DeviceID",
        sk = "State#Date",
        gsi1(pk("Operator" = S), sk("Date" = S)),
        other_items = skip
    )]
    pub struct DeviceStateLog;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = DeviceStateLog, untyped, rename_all = "PascalCase")]
    #[pk("<device_id>")]
    #[sk("<state>#<date>")]
    #[gsi1(pk(operator), sk(date))]
    #[access(logs_of)]
    #[access(by_operator, index = gsi1)]
    pub struct DeviceLog {
        #[attr(from_key, verbatim, rename = "DeviceID")]
        pub device_id: String,
        /// Refused with a `#` inside: it would end the segment early.
        #[attr(verbatim)]
        pub state: String,
        #[attr(verbatim)]
        pub date: String,
        pub operator: String,
    }

    const LOGS: [(&str, &str, &str, &str); 7] = [
        ("d#12345", "WARNING1", "2020-04-24T14:40:00", "Liz"),
        ("d#12345", "WARNING1", "2020-04-24T14:45:00", "Liz"),
        ("d#12345", "WARNING1", "2020-04-24T14:50:00", "Liz"),
        ("d#12345", "NORMAL", "2020-04-24T14:55:00", "Liz"),
        ("d#54321", "WARNING2", "2020-04-11T09:25:00", "Charlie"),
        ("d#54321", "NORMAL", "2020-04-11T09:30:00", "Liz"),
        ("d#11223", "WARNING4", "2020-04-27T16:10:00", "Sue"),
    ];

    fn log((device, state, date, operator): (&str, &str, &str, &str)) -> DeviceLog {
        DeviceLog {
            device_id: device.into(),
            state: state.into(),
            date: date.into(),
            operator: operator.into(),
        }
    }

    /// The item as the sample's data model (and a `put-item` of it) has it.
    fn published((device, state, date, operator): (&str, &str, &str, &str)) -> Item {
        [
            ("DeviceID", device.to_owned()),
            ("State#Date", format!("{state}#{date}")),
            ("State", state.to_owned()),
            ("Date", date.to_owned()),
            ("Operator", operator.to_owned()),
        ]
        .map(|(k, v)| (k.to_owned(), AttributeValue::S(v)))
        .into()
    }

    fn dates(logs: &[DeviceLog]) -> Vec<&str> {
        logs.iter().map(|l| l.date.as_str()).collect()
    }

    #[tokio::test]
    async fn device_state_log_layout_is_reproduced() {
        let [lib_local, lib_embedded] = both::<DeviceStateLog>("device-lib").await;
        let [raw_local, raw_embedded] = both::<DeviceStateLog>("device-raw").await;
        for (lib, raw) in [(&lib_local, &raw_local), (&lib_embedded, &raw_embedded)] {
            for l in LOGS {
                lib.put(&log(l)).await.unwrap();
                raw_put(raw, published(l)).await.unwrap();
            }
            let key = |i: &Item| format!("{:?}/{:?}", i.get("DeviceID"), i.get("State#Date"));
            let mut written = every_item(lib).await;
            let mut expected = every_item(raw).await;
            written.sort_by_key(key);
            expected.sort_by_key(key);
            assert_eq!(written.len(), LOGS.len());
            assert_eq!(written, expected);

            for db in [lib, raw] {
                // "All logs of a device state, most recent first": a
                // begins_with on `State#Date`, as the sample's CLI query.
                let warnings = DeviceLog::logs_of("d#12345")
                    .sk_begins_with("WARNING1")
                    .newest_first()
                    .all(db)
                    .await
                    .unwrap();
                assert_eq!(
                    dates(&warnings),
                    [
                        "2020-04-24T14:50:00",
                        "2020-04-24T14:45:00",
                        "2020-04-24T14:40:00"
                    ]
                );
                assert_eq!(warnings[0].device_id, "d#12345");
                // "Logs of an operator between two dates", on GSI1.
                let liz = DeviceLog::by_operator("Liz")
                    .sk_between("2020-04-20", "2020-04-25")
                    .all(db)
                    .await
                    .unwrap();
                assert_eq!(liz.len(), 4);
                assert!(liz.iter().all(|l| l.device_id == "d#12345"));
            }
            // A state holding `#` would read back as another key: refused.
            let mut bad = log(LOGS[0]);
            bad.state = "WARN#1".into();
            let err = lib.put(&bad).await.unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::KeyValue {
                        field: "state",
                        reason: KeyError::Delimiter,
                        ..
                    }
                ),
                "{err:?}"
            );
        }
    }
}
