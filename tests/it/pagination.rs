//! Pagination against DynamoDB Local: 1 MB pages, cursors, streams.

use futures::TryStreamExt;
use singletable::SdkDb;
use singletable::{Cursor, CursorError, Db, Entity, Error, SdkExecutor, Table};
use singletable_runtime::exec::Counting;

use crate::support::fresh_db;

#[derive(Table)]
#[table(name = "Paging")]
pub struct PagingTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = PagingTable, name = "Chunk", rename_all = "camelCase")]
#[pk("DOC#<doc_id>")]
#[sk("CHUNK#<seq>")]
#[access(chunks)]
pub struct Chunk {
    pub doc_id: String,
    pub seq: u32,
    pub data: String,
}

fn chunk(doc: &str, seq: u32, size: usize) -> Chunk {
    let fill = char::from(b'a' + (seq % 26) as u8);
    Chunk {
        doc_id: doc.into(),
        seq,
        data: std::iter::repeat_n(fill, size).collect(),
    }
}

#[tokio::test]
async fn pagination_never_truncates() {
    let plain = fresh_db::<PagingTable>("paging").await;
    // 30 items of 100 KB: 3 MB in one partition, more than three 1 MB pages.
    let n = 30u32;
    for seq in 0..n {
        plain.put(&chunk("big", seq, 100_000)).await.unwrap();
    }
    let db = Db::with_executor(
        Counting::new(SdkExecutor::new(plain.sdk().clone())),
        plain.table_name(),
    );

    // page() by page(): every item once, in order, over at least three pages.
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = Chunk::chunks("big")
            .page(&db, cursor.as_ref())
            .await
            .unwrap();
        pages += 1;
        seen.extend(page.items.iter().map(|c| c.seq));
        for c in &page.items {
            assert_eq!(
                c,
                &chunk("big", c.seq, 100_000),
                "item {} came back whole",
                c.seq
            );
        }
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
        assert!(pages < 100, "pagination does not end");
    }
    assert!(
        pages >= 3,
        "3 MB should take at least 3 pages, took {pages}"
    );
    assert_eq!(seen, (0..n).collect::<Vec<_>>());

    // all() follows every page: as many requests as pages.
    db.executor().reset();
    let all = Chunk::chunks("big").all(&db).await.unwrap();
    assert_eq!(all.iter().map(|c| c.seq).collect::<Vec<_>>(), seen);
    assert!(db.executor().count() >= 3);

    // stream() yields the same items lazily; newest_first reverses them.
    let streamed: Vec<Chunk> = Chunk::chunks("big")
        .newest_first()
        .stream(&db)
        .try_collect()
        .await
        .unwrap();
    let mut reversed = seen.clone();
    reversed.reverse();
    assert_eq!(streamed.iter().map(|c| c.seq).collect::<Vec<_>>(), reversed);

    // A limit caps the total across pages, exactly.
    let limited = Chunk::chunks("big").limit(7).all(&db).await.unwrap();
    assert_eq!(limited.len(), 7);
    let limited_stream: Vec<Chunk> = Chunk::chunks("big")
        .limit(12)
        .stream(&db)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(limited_stream.len(), 12);
}

fn flip(cursor: &str, at: usize) -> String {
    let mut bytes = cursor.as_bytes().to_vec();
    let i = at % bytes.len();
    bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

#[tokio::test]
async fn tampered_cursor_is_rejected() {
    let db = fresh_db::<PagingTable>("cursor").await;
    for seq in 0..6 {
        db.put(&chunk("a", seq, 10)).await.unwrap();
        db.put(&chunk("b", seq, 10)).await.unwrap();
    }
    let first = Chunk::chunks("a").limit(2).page(&db, None).await.unwrap();
    let cursor = first.cursor.expect("a second page");
    assert!(
        cursor
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "URL-safe: {cursor}"
    );

    // The genuine cursor works.
    let second = Chunk::chunks("a")
        .limit(2)
        .page(&db, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(
        second.items.iter().map(|c| c.seq).collect::<Vec<_>>(),
        [2, 3]
    );

    // Every single-character change is refused, never a panic or a wrong page.
    for at in 0..cursor.len() {
        let bad = flip(&cursor, at);
        if bad == cursor.as_str() {
            continue;
        }
        // A client sends text back: typed for the pattern it is given to.
        let bad = Cursor::from_client(bad);
        match Chunk::chunks("a").limit(2).page(&db, Some(&bad)).await {
            Err(Error::Cursor(_)) => {}
            other => panic!("tampered cursor at {at} accepted: {other:?}"),
        }
    }
    // Truncated, empty, garbage.
    for bad in [&cursor[..cursor.len() / 2], "", "not a cursor!", "AAAA"] {
        assert!(matches!(
            Chunk::chunks("a")
                .page(&db, Some(&Cursor::from_client(bad)))
                .await,
            Err(Error::Cursor(_))
        ));
    }
    // Another partition's query refuses it.
    match Chunk::chunks("b").limit(2).page(&db, Some(&cursor)).await {
        Err(Error::Cursor(CursorError::Foreign { .. })) => {}
        other => panic!("foreign cursor accepted: {other:?}"),
    }
    // A handle with another secret refuses it.
    let other = Db::local(&crate::support::endpoint(), db.table_name())
        .with_cursor_secret("another secret");
    match Chunk::chunks("a")
        .limit(2)
        .page(&other, Some(&cursor))
        .await
    {
        Err(Error::Cursor(CursorError::Tampered)) => {}
        other => panic!("cursor with a wrong signature accepted: {other:?}"),
    }
}
