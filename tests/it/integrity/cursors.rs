//! Cursors are scoped to the entity, pattern, partition and query shape
//! that made them, and opaque: encrypted, so a client learns no key value
//! from one (not even the key of an item a filter hid from it).

use base64::Engine;
use singletable::{Cond, Cursor, CursorError, Db, Error, Executor, Table};

use crate::support::fresh_db;

#[derive(Table)]
#[table(name = "Cursors")]
pub struct CursorTable;

/// Two entities of one partition, each with an access pattern `chunks`.
mod pages {
    use singletable::Entity;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = super::CursorTable, name = "Page")]
    #[pk("DOC#<doc>")]
    #[sk("PAGE#<seq>")]
    #[access(chunks)]
    pub struct Page {
        pub doc: String,
        pub seq: u32,
        pub visible: bool,
    }
}

mod notes {
    use singletable::Entity;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = super::CursorTable, name = "Note")]
    #[pk("DOC#<doc>")]
    #[sk("NOTE#<seq>")]
    #[access(chunks)]
    pub struct Note {
        pub doc: String,
        pub seq: u32,
    }
}

use notes::Note;
use pages::Page;

fn visible() -> Cond<Page> {
    Page::fields().visible.eq(&true)
}

fn refused<T: std::fmt::Debug>(r: Result<T, Error>, what: &str) -> CursorError {
    match r {
        Err(Error::Cursor(e)) => e,
        other => panic!("{what}: cursor accepted: {other:?}"),
    }
}

async fn scoped<E: Executor>(db: &Db<E>) {
    for seq in 0..6 {
        db.put(&Page {
            doc: "d".into(),
            seq,
            visible: true,
        })
        .await
        .unwrap();
        db.put(&Note {
            doc: "d".into(),
            seq,
        })
        .await
        .unwrap();
    }
    let first = Page::chunks("d").limit(2).page(db, None).await.unwrap();
    let c = first.cursor.expect("a second page");

    // Another entity's pattern of the same name, on the same partition.
    // (A compile error as typed: as text from a client, refused when opened.)
    let foreign = Cursor::from_client(c.as_str());
    let e = refused(
        Note::chunks("d").limit(2).page(db, Some(&foreign)).await,
        "note",
    );
    assert!(matches!(e, CursorError::Foreign { .. }), "{e:?}");
    // The same pattern, another shape.
    let shapes = [
        (
            "descending",
            Page::chunks("d")
                .newest_first()
                .limit(2)
                .page(db, Some(&c))
                .await,
        ),
        (
            "sort condition",
            Page::chunks("d")
                .sk_between(0, 9)
                .limit(2)
                .page(db, Some(&c))
                .await,
        ),
        (
            "filter",
            Page::chunks("d")
                .filter(visible())
                .limit(2)
                .page(db, Some(&c))
                .await,
        ),
    ];
    for (what, r) in shapes {
        assert_eq!(refused(r, what), CursorError::OtherShape, "{what}");
    }
    // Another partition.
    let e = refused(
        Page::chunks("e").limit(2).page(db, Some(&c)).await,
        "partition",
    );
    assert!(matches!(e, CursorError::Foreign { .. }), "{e:?}");

    // The same shape continues where the cursor stopped, also when the
    // shape is built again (a filter with equal values).
    let second = Page::chunks("d").limit(2).page(db, Some(&c)).await.unwrap();
    assert_eq!(
        second.items.iter().map(|p| p.seq).collect::<Vec<_>>(),
        [2, 3]
    );
    let f1 = Page::chunks("d")
        .filter(visible())
        .limit(2)
        .page(db, None)
        .await
        .unwrap();
    let fc = f1.cursor.expect("a second filtered page");
    let f2 = Page::chunks("d")
        .filter(visible())
        .limit(2)
        .page(db, Some(&fc))
        .await
        .unwrap();
    assert_eq!(f2.items.iter().map(|p| p.seq).collect::<Vec<_>>(), [2, 3]);
    // A Note cursor is refused by the Page pattern too.
    let nc = Note::chunks("d")
        .limit(2)
        .page(db, None)
        .await
        .unwrap()
        .cursor
        .unwrap();
    let nc = Cursor::from_client(nc.into_string());
    let e = refused(Page::chunks("d").limit(2).page(db, Some(&nc)).await, "page");
    assert!(matches!(e, CursorError::Foreign { .. }), "{e:?}");
}

#[tokio::test]
async fn cursor_of_another_entity_or_query_shape_is_refused() {
    scoped(&fresh_db::<CursorTable>("cursors").await).await;
    scoped(&Db::<singletable::Embedded>::in_memory::<CursorTable>("Cursors").unwrap()).await;
}

const HIDDEN_DOC: &str = "tenant-7f3a9c";

/// Every substring of at least 4 bytes of `needle` is absent from `hay`.
fn reveals(hay: &[u8], needle: &str) -> Option<String> {
    let n = needle.as_bytes();
    for len in 4..=n.len() {
        for w in n.windows(len) {
            if hay.windows(len).any(|h| h == w) {
                return Some(String::from_utf8_lossy(w).into_owned());
            }
        }
    }
    None
}

async fn opaque<E: Executor + Clone>(db: &Db<E>) {
    // Page 1 visible, page 2 hidden by the filter: a limit of 2 stops the
    // first page on the hidden item, whose key is LastEvaluatedKey.
    for seq in 1..=4u32 {
        let p = Page {
            doc: HIDDEN_DOC.into(),
            seq,
            visible: seq != 2,
        };
        db.put(&p).await.unwrap();
    }
    let first = Page::chunks(HIDDEN_DOC)
        .filter(visible())
        .limit(2)
        .page(db, None)
        .await
        .unwrap();
    assert_eq!(first.items.iter().map(|p| p.seq).collect::<Vec<_>>(), [1]);
    let cursor = first.cursor.expect("a cursor after the hidden item");
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.as_str())
        .expect("cursors are base64url");
    for secret in [
        HIDDEN_DOC,
        "DOC#",
        "PAGE#",
        "0000000002",
        "Page",
        "chunks",
        "\"PK\"",
        "SK",
    ] {
        assert_eq!(
            reveals(cursor.as_bytes(), secret),
            None,
            "cursor text reveals {secret:?}"
        );
        assert_eq!(
            reveals(&raw, secret),
            None,
            "cursor bytes reveal {secret:?}"
        );
    }
    assert!(serde_json::from_slice::<serde_json::Value>(&raw).is_err());
    assert!(serde_json::from_slice::<serde_json::Value>(&raw[1..]).is_err());
    // It still continues after the hidden item.
    let next = Page::chunks(HIDDEN_DOC)
        .filter(visible())
        .limit(2)
        .page(db, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(next.items.iter().map(|p| p.seq).collect::<Vec<_>>(), [3, 4]);
    // Another secret seals the same position differently and opens
    // nothing sealed with this one.
    let other = Db::with_executor(db.executor().clone(), db.table_name()).with_cursor_secret("s2");
    let theirs = Page::chunks(HIDDEN_DOC)
        .filter(visible())
        .limit(2)
        .page(&other, None)
        .await
        .unwrap();
    assert_ne!(theirs.cursor.as_deref(), Some(cursor.as_str()));
    let e = refused(
        Page::chunks(HIDDEN_DOC)
            .filter(visible())
            .limit(2)
            .page(&other, Some(&cursor))
            .await,
        "other secret",
    );
    assert_eq!(e, CursorError::Tampered);
    // Flipping any byte is refused, never a panic or another page.
    for at in 0..raw.len() {
        let mut bad = raw.clone();
        bad[at] ^= 0x01;
        let bad = Cursor::from_client(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bad));
        refused(
            Page::chunks(HIDDEN_DOC)
                .filter(visible())
                .limit(2)
                .page(db, Some(&bad))
                .await,
            "flipped",
        );
    }
}

#[tokio::test]
async fn cursors_reveal_no_key_values() {
    opaque(&fresh_db::<CursorTable>("opaque").await).await;
    opaque(&Db::<singletable::Embedded>::in_memory::<CursorTable>("Cursors").unwrap()).await;
}
