//! Access patterns as the derive generates them.

use singletable::{Db, Entity, Executor, Table};

use crate::support::{fresh_db, unique_table};

#[derive(Table)]
#[table(name = "Docs", entities(Report, Scan))]
pub struct Docs;

// Two entities of one module with a pattern of the same name, in one
// partition: the query types are `ReportChunksQuery` and `ScanChunksQuery`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Docs, name = "Report")]
#[pk("DOC#<doc>")]
#[sk("REPORT#<n>")]
#[access(chunks)]
pub struct Report {
    pub doc: String,
    pub n: u32,
    pub text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Docs, name = "Scan")]
#[pk("DOC#<doc>")]
#[sk("SCAN#<n>")]
#[access(chunks)]
pub struct Scan {
    pub doc: String,
    pub n: u32,
    pub dpi: u32,
}

#[tokio::test]
async fn access_patterns_of_the_same_name_in_one_module() {
    let local = fresh_db::<Docs>("chunks").await;
    check_chunks(&local).await;
    let embedded = Db::<singletable::Embedded>::in_memory::<Docs>(unique_table("chunks")).unwrap();
    check_chunks(&embedded).await;
}

async fn check_chunks<E: Executor>(db: &Db<E>) {
    let report = |doc: &str, n: u32| Report {
        doc: doc.into(),
        n,
        text: format!("part {n}"),
    };
    let scan = |n: u32| Scan {
        doc: "d1".into(),
        n,
        dpi: 300 * n,
    };
    let reports = [report("d1", 1), report("d1", 2)];
    let scans = [scan(1), scan(2), scan(3)];
    for r in reports.iter().chain([&report("d2", 1)]) {
        db.put(r).await.unwrap();
    }
    for s in &scans {
        db.put(s).await.unwrap();
    }

    let query: singletable::Query<Report, singletable::OnTable, ReportChunksQuery> =
        Report::chunks("d1");
    assert_eq!(query.all(db).await.unwrap(), reports);
    let query: singletable::Query<Scan, singletable::OnTable, ScanChunksQuery> = Scan::chunks("d1");
    assert_eq!(query.all(db).await.unwrap(), scans);
    // Each type has its own sort-key conditions, typed from its template.
    assert_eq!(
        Report::chunks("d1").sk_ge(2).all(db).await.unwrap(),
        reports[1..]
    );
    assert_eq!(
        Scan::chunks("d1")
            .sk_lt(3)
            .newest_first()
            .all(db)
            .await
            .unwrap(),
        [scans[1].clone(), scans[0].clone()]
    );
    assert_eq!(
        Report::chunks("d2").first(db).await.unwrap(),
        Some(report("d2", 1))
    );
    assert_eq!(Scan::chunks("d2").first(db).await.unwrap(), None);
}
