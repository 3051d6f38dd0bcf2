use singletable::{Collection, Entity, Table};

use crate::support::both;

#[derive(Table)]
#[table(
    name = "Helpdesk",
    gsi2(pk(tenantId = S), sk(entityType = S, createdAt = N)),
    entities(Case, Note)
)]
pub struct Helpdesk;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Helpdesk, rename_all = "camelCase")]
#[pk("CASE#<id>")]
#[sk("CASE")]
#[gsi2(pk(tenant_id), sk(created_at))]
#[access(cases_of_tenant, index = gsi2)]
pub struct Case {
    pub id: String,
    pub tenant_id: String,
    pub created_at: i64,
    pub title: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Helpdesk, rename_all = "camelCase")]
#[pk("NOTE#<id>")]
#[sk("NOTE")]
#[gsi2(pk(tenant_id), sk(created_at))]
#[access(notes_of_tenant, index = gsi2)]
pub struct Note {
    pub id: String,
    pub tenant_id: String,
    pub created_at: i64,
    pub text: String,
}

/// A tenant's cases and notes, on `gsi2`.
#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(index = gsi2)]
pub enum TenantActivity {
    Case(Case),
    Note(Note),
}

fn case(id: &str, tenant: &str, at: i64) -> Case {
    Case {
        id: id.into(),
        tenant_id: tenant.into(),
        created_at: at,
        title: format!("case {id}"),
    }
}

fn note(id: &str, tenant: &str, at: i64) -> Note {
    Note {
        id: id.into(),
        tenant_id: tenant.into(),
        created_at: at,
        text: format!("note {id}"),
    }
}

#[tokio::test]
async fn multi_attribute_index_serves_a_collection_of_two_entities() {
    assert!(Case::SHAPE.attribute_indexes[0].by_type);
    let access = singletable_tools::design::access_table::<Helpdesk>();
    assert!(
        access.contains("| notes_of_tenant | GSI2 | `tenantId = :tenantId` and `entityType = Note`, sort `createdAt` (equality on a prefix, then one range condition) | Note |"),
        "{access}"
    );
    for db in both::<Helpdesk>("multi-collection").await {
        // Interleaved in time, one partition (acme), and another tenant.
        let cases = [case("c1", "acme", 30), case("c2", "acme", -10)];
        let notes = [note("n1", "acme", 20), note("n2", "acme", 5)];
        for c in &cases {
            db.put(c).await.unwrap();
        }
        for n in &notes {
            db.put(n).await.unwrap();
        }
        db.put(&case("c3", "globex", 1)).await.unwrap();
        db.put(&note("n3", "globex", 2)).await.unwrap();

        // The index's order: entity type, then createdAt as a number.
        let want = vec![
            TenantActivity::Case(cases[1].clone()),
            TenantActivity::Case(cases[0].clone()),
            TenantActivity::Note(notes[1].clone()),
            TenantActivity::Note(notes[0].clone()),
        ];
        let acme = || TenantActivity::query(Case::gsi2_partition("acme").unwrap());
        assert_eq!(acme().all(&db).await.unwrap(), want);
        // Either member names the partition.
        let by_note = TenantActivity::query(Note::gsi2_partition("acme").unwrap());
        assert_eq!(by_note.all(&db).await.unwrap(), want);
        let mut reversed = want.clone();
        reversed.reverse();
        assert_eq!(acme().newest_first().all(&db).await.unwrap(), reversed);
        // Page by page, one item a page.
        let mut paged = Vec::new();
        let mut cursor = None;
        loop {
            let page = acme().limit(1).page(&db, cursor.as_ref()).await.unwrap();
            paged.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(paged, want);

        // Each entity's pattern reads its own items only, by key
        // condition: a one-item page of notes is a note, not a case
        // skipped.
        assert_eq!(
            Case::cases_of_tenant("acme").all(&db).await.unwrap(),
            [cases[1].clone(), cases[0].clone()]
        );
        assert_eq!(
            Note::notes_of_tenant("acme").all(&db).await.unwrap(),
            [notes[1].clone(), notes[0].clone()]
        );
        let first = Note::notes_of_tenant("acme")
            .limit(1)
            .page(&db, None)
            .await
            .unwrap();
        assert_eq!(first.items, [notes[1].clone()]);
        assert_eq!(
            Case::cases_of_tenant("acme")
                .sk_gt(0)
                .all(&db)
                .await
                .unwrap(),
            [cases[0].clone()]
        );
        assert_eq!(Note::notes_of_tenant("acme").count(&db).await.unwrap(), 2);
        assert_eq!(
            Note::notes_of_tenant("globex").all(&db).await.unwrap(),
            [note("n3", "globex", 2)]
        );
    }
}
