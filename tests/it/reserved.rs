//! DynamoDB reserved words as attribute names: every name goes through a
//! placeholder, so they just work.

use singletable::{Entity, Error, StrEnum, Table};

use crate::support::fresh_db;

#[derive(Table)]
#[table(name = "Reserved")]
pub struct ReservedTable;

#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Open,
    Closed,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = ReservedTable, name = "Thing")]
#[pk("THING#<name>")]
#[sk("SIZE#<size>")]
#[access(things)]
pub struct Thing {
    pub name: String,
    pub size: u32,
    pub status: State,
    pub data: String,
    pub count: i64,
    pub date: String,
    #[attr(rename = "order")]
    pub ordering: u8,
}

fn thing(size: u32, status: State) -> Thing {
    Thing {
        name: "box".into(),
        size,
        status,
        data: "x".into(),
        count: -3,
        date: "2024-01-01".into(),
        ordering: 1,
    }
}

#[tokio::test]
async fn reserved_word_attributes_work() {
    let db = fresh_db::<ReservedTable>("reserved").await;
    for size in 1..=4 {
        let status = if size % 2 == 0 {
            State::Open
        } else {
            State::Closed
        };
        db.create(&thing(size, status)).await.unwrap();
    }
    let got = db
        .get::<Thing>(Thing::key("box", 2).unwrap())
        .await
        .unwrap();
    assert_eq!(got, Some(thing(2, State::Open)));

    // A filter and a condition on reserved names.
    let f = Thing::fields();
    let open = Thing::things("box")
        .filter(f.status.eq(&State::Open))
        .all(&db)
        .await
        .unwrap();
    assert_eq!(open.iter().map(|t| t.size).collect::<Vec<_>>(), [2, 4]);
    let between = Thing::things("box")
        .sk_between(2, 3)
        .all(&db)
        .await
        .unwrap();
    assert_eq!(between.iter().map(|t| t.size).collect::<Vec<_>>(), [2, 3]);

    let mut changed = thing(1, State::Open);
    changed.data = "y".into();
    db.put_if(&changed, f.name.eq("box").and(f.ordering.eq(&1)))
        .await
        .unwrap();
    let err = db
        .put_if(&changed, f.date.eq("1999-01-01"))
        .await
        .unwrap_err();
    match err {
        Error::ConditionFailed {
            item: Some(current),
        } => {
            assert_eq!(Thing::from_item(*current).unwrap(), changed);
        }
        other => panic!("expected a failed condition with the current item, got {other:?}"),
    }
    // create() refuses an existing item.
    assert!(matches!(
        db.create(&thing(1, State::Open)).await,
        Err(Error::ConditionFailed { .. })
    ));
}
