use singletable::{
    AttributeValue, DecodeErrorKind, Document, Entity, Error, Item, KeyOf, Projected, Table,
};

use crate::support::{both, raw_put};

#[derive(Table)]
#[table(
    name = "Issues",
    gsi1(pk(tenantId = S), sk(createdAt = N), keys_only),
    gsi2(pk(tenantId = S), sk(priority = N), include(title))
)]
pub struct Issues;

/// What `gsi2` holds of an issue besides its keys.
#[derive(Document, Debug, Clone, PartialEq)]
pub struct Title {
    pub title: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Issues, rename_all = "camelCase")]
#[pk("ISSUE#<id>")]
#[sk("ISSUE")]
#[gsi1(pk(tenant_id), sk(created_at))]
#[gsi2(pk(tenant_id), sk(priority))]
#[access(issues_of, index = gsi1, keys)]
#[access(titles_of, index = gsi2, select = Title)]
pub struct Issue {
    pub id: String,
    pub tenant_id: String,
    pub created_at: i64,
    pub priority: u8,
    pub title: String,
    pub body: String,
}

fn issue(id: &str, tenant: &str, at: i64, priority: u8) -> Issue {
    Issue {
        id: id.into(),
        tenant_id: tenant.into(),
        created_at: at,
        priority,
        title: format!("title of {id}"),
        body: "long text".into(),
    }
}

fn ids(keys: &[KeyOf<Issue>]) -> Vec<String> {
    keys.iter()
        .map(|k| Issue::parse_pk(&k.key().pk).unwrap())
        .collect()
}

#[tokio::test]
async fn keys_only_multi_attribute_index_patterns_return_keys() {
    for db in both::<Issues>("multi-keys-only").await {
        for (id, tenant, at, priority) in [
            ("i3", "acme", 30, 1),
            ("i1", "acme", 10, 3),
            ("i2", "acme", 20, 2),
            ("i9", "globex", 15, 1),
        ] {
            db.put(&issue(id, tenant, at, priority)).await.unwrap();
        }

        // The keys of the tenant's issues, in `createdAt` order, and in
        // a range of it: what the index holds, never `Ok([])`.
        let keys = Issue::issues_of("acme").all(&db).await.unwrap();
        assert_eq!(ids(&keys), ["i1", "i2", "i3"]);
        assert_eq!(keys[0], Issue::key("i1").unwrap());
        let later = Issue::issues_of("acme").sk_ge(20).all(&db).await.unwrap();
        assert_eq!(ids(&later), ["i2", "i3"]);
        assert_eq!(Issue::issues_of("acme").count(&db).await.unwrap(), 3);
        let first = Issue::issues_of("acme")
            .limit(2)
            .page(&db, None)
            .await
            .unwrap();
        assert_eq!(ids(&first.items), ["i1", "i2"]);
        let rest = Issue::issues_of("acme")
            .limit(2)
            .page(&db, first.cursor.as_ref())
            .await
            .unwrap();
        assert_eq!(ids(&rest.items), ["i3"]);

        // A key reads the whole item.
        let full = db.get::<Issue>(keys[1].clone()).await.unwrap();
        assert_eq!(full, Some(issue("i2", "acme", 20, 2)));

        // The include index returns the projected title, by priority.
        let titles: Vec<Projected<Issue, Title>> = Issue::titles_of("acme").all(&db).await.unwrap();
        let shown: Vec<(String, String)> = titles
            .iter()
            .map(|t| (Issue::parse_pk(&t.key.pk).unwrap(), t.item.title.clone()))
            .collect();
        assert_eq!(
            shown,
            [
                ("i3".to_owned(), "title of i3".to_owned()),
                ("i2".to_owned(), "title of i2".to_owned()),
                ("i1".to_owned(), "title of i1".to_owned()),
            ]
        );

        // Another client's item under the same index attributes, whose
        // table key is no issue's: skipped (a multi-attribute index is
        // shared by attribute name), or refused with a typed error when
        // asked, as on an index of synthetic keys.
        let mut other: Item = [("PK", "LEGACY#7"), ("SK", "ISSUE"), ("tenantId", "acme")]
            .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
            .into();
        other.insert("createdAt".into(), AttributeValue::N("5".into()));
        raw_put(&db, other).await.unwrap();
        let skipped = Issue::issues_of("acme").all(&db).await.unwrap();
        assert_eq!(ids(&skipped), ["i1", "i2", "i3"]);
        let err = Issue::issues_of("acme")
            .fail_on_other_types()
            .all(&db)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Decode { entity: "Issue", source } if matches!(source.kind(), DecodeErrorKind::KeyMismatch { stored, .. } if stored == "LEGACY#7")),
            "{err:?}"
        );
    }
}
