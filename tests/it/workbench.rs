//! `workbench_model_round_trips`: the declared design exported as a NoSQL
//! Workbench model with sample items, parsed back, checked for its
//! structure and loaded into a table on DynamoDB Local and the embedded
//! backend, where the typed API reads the samples back; and a model
//! written by hand in the format of AWS's sample models
//! (`workbench/library.json`) loaded the same way.

use std::collections::BTreeSet;

use singletable::workbench::{Error, Model};
use singletable::{AttributeValue, Blob, Db, Entity, Item, StrEnum, Table};

use crate::support::{both, raw_item};

#[derive(Table)]
#[table(name = "Library", gsi1, entities(Author, Book))]
pub struct Library;

#[derive(StrEnum, Debug, Clone, Copy, PartialEq)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Genre {
    Novel,
    Poetry,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Library, rename_all = "camelCase")]
#[pk("AUTHOR#<author_id>")]
#[sk("PROFILE")]
pub struct Author {
    pub author_id: String,
    pub name: String,
    pub born: u16,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Library, rename_all = "camelCase")]
#[pk("AUTHOR#<author_id>")]
#[sk("BOOK#<isbn>")]
#[gsi1(pk = "GENRE#<genre>", sk = "BOOK#<isbn>")]
#[access(by_genre, index = gsi1)]
pub struct Book {
    pub author_id: String,
    pub isbn: String,
    pub title: String,
    pub genre: Genre,
    pub price: f64,
    pub in_print: bool,
    pub tags: BTreeSet<String>,
    pub cover: Option<Blob>,
}

/// An author and two books: a novel in print (tagged, with a cover) and a
/// book of poetry out of print.
fn shelf(
    (author_id, name, born): (&str, &str, u16),
    (isbn, title): (&str, &str),
    (poems_isbn, poems_title, poems_price, poems_tags): (&str, &str, f64, &[&str]),
) -> (Author, [Book; 2]) {
    let author = Author {
        author_id: author_id.into(),
        name: name.into(),
        born,
    };
    let novel = Book {
        author_id: author_id.into(),
        isbn: isbn.into(),
        title: title.into(),
        genre: Genre::Novel,
        price: 12.5,
        in_print: true,
        tags: ["sea".to_string(), "travel".to_string()].into(),
        cover: Some(Blob::new(vec![0x89, b'P', b'N', b'G'])),
    };
    let poems = Book {
        author_id: author_id.into(),
        isbn: poems_isbn.into(),
        title: poems_title.into(),
        genre: Genre::Poetry,
        price: poems_price,
        in_print: false,
        tags: poems_tags.iter().map(|t| t.to_string()).collect(),
        cover: None,
    };
    (author, [novel, poems])
}

/// The samples the export carries.
fn samples() -> (Author, [Book; 2]) {
    shelf(
        ("a-1", "Ana Lind", 1974),
        ("111", "Harbour Lights"),
        ("222", "Small Verses", 7.0, &[]),
    )
}

/// What `workbench/library.json` holds, typed.
fn fixture_entities() -> (Author, [Book; 2]) {
    shelf(
        ("a-7", "Mira Okafor", 1961),
        ("978-0-00-000001-1", "Salt Roads"),
        ("978-0-00-000002-8", "Small Hours", 9.0, &["night"]),
    )
}

/// The fixture's item of no entity, with a value of every type.
fn fixture_note() -> Item {
    let s = |v: &str| AttributeValue::S(v.into());
    let n = |v: &str| AttributeValue::N(v.into());
    let meta: Item = [
        ("by".to_string(), s("desk")),
        (
            "flags".to_string(),
            AttributeValue::L(vec![AttributeValue::Bool(true)]),
        ),
    ]
    .into();
    [
        ("PK", s("NOTE#1")),
        ("SK", s("NOTE")),
        ("text", s("returned late")),
        ("pages", n("3")),
        ("done", AttributeValue::Bool(false)),
        ("nothing", AttributeValue::Null(true)),
        ("parts", AttributeValue::L(vec![s("one"), n("2")])),
        ("meta", AttributeValue::M(meta)),
        ("codes", AttributeValue::Ns(vec!["7".into()])),
        ("raw", AttributeValue::B(Blob::new(vec![0, 1, 2]))),
        ("blobs", AttributeValue::Bs(vec![Blob::new(vec![1])])),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// `author` and `books` read back through the typed API, as they are.
async fn reads_back(db: &Db, author: &Author, books: &[Book]) {
    let key = Author::key(&author.author_id).unwrap();
    assert_eq!(db.get::<Author>(key).await.unwrap().as_ref(), Some(author));
    for b in books {
        let key = Book::key(&b.author_id, &b.isbn).unwrap();
        assert_eq!(db.get::<Book>(key).await.unwrap().as_ref(), Some(b));
    }
}

#[tokio::test]
async fn workbench_model_round_trips() {
    let (author, books) = samples();
    let json = Model::builder("Library")
        .author("singletable tests")
        .dated("May 01, 2024, 12:00 PM")
        .table::<Library>()
        .sample(&author)
        .unwrap()
        .sample(&books[0])
        .unwrap()
        .sample(&books[1])
        .unwrap()
        .build()
        .to_json();

    // The JSON is Workbench's format, items in DynamoDB JSON.
    let raw: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(raw["ModelName"], "Library");
    assert_eq!(raw["ModelMetadata"]["AWSService"], "Amazon DynamoDB");
    assert_eq!(raw["ModelMetadata"]["Version"], "3.0");
    let table = &raw["DataModel"][0];
    assert_eq!(table["DataAccess"], serde_json::json!({ "MySql": {} }));
    assert_eq!(table["BillingMode"], "PAY_PER_REQUEST");
    let first = &table["TableFacets"][1]["TableData"][0];
    assert_eq!(first["GSI1PK"], serde_json::json!({ "S": "GENRE#NOVEL" }));
    assert_eq!(first["price"], serde_json::json!({ "N": "12.5" }));
    assert_eq!(first["inPrint"], serde_json::json!({ "BOOL": true }));
    assert_eq!(
        first["tags"],
        serde_json::json!({ "SS": ["sea", "travel"] })
    );
    assert_eq!(first["cover"], serde_json::json!({ "B": "iVBORw==" }));

    // Parsed back: the table, its index, one facet per entity.
    let model = Model::from_json(&json).unwrap();
    assert_eq!(model.to_json(), json);
    let table = model.table("Library").unwrap();
    let keys = &table.key_attributes;
    assert_eq!(
        (
            keys.partition_key.attribute_name.as_str(),
            keys.partition_key.attribute_type.as_str()
        ),
        ("PK", "S")
    );
    assert_eq!(keys.sort_key.as_ref().unwrap().attribute_name, "SK");
    let [gsi1] = &table.global_secondary_indexes[..] else {
        panic!("{:?}", table.global_secondary_indexes)
    };
    assert_eq!(gsi1.index_name, "GSI1");
    assert_eq!(gsi1.key_attributes.partition_key.attribute_name, "GSI1PK");
    assert_eq!(
        gsi1.key_attributes
            .sort_key
            .as_ref()
            .unwrap()
            .attribute_name,
        "GSI1SK"
    );
    assert_eq!(gsi1.projection.projection_type, "ALL");
    let facets: Vec<&str> = table
        .table_facets
        .iter()
        .map(|f| f.facet_name.as_str())
        .collect();
    assert_eq!(facets, ["Author", "Book"]);
    let book_facet = table.facet("Book").unwrap();
    assert_eq!(
        book_facet.key_attribute_alias.partition_key_alias,
        "AUTHOR#<authorId>"
    );
    assert_eq!(
        book_facet.key_attribute_alias.sort_key_alias.as_deref(),
        Some("BOOK#<isbn>")
    );
    for name in [
        "entityType",
        "GSI1PK",
        "GSI1SK",
        "title",
        "inPrint",
        "cover",
    ] {
        assert!(
            book_facet.non_key_attributes.iter().any(|n| n == name),
            "{name}: {:?}",
            book_facet.non_key_attributes
        );
    }
    let author_facet = table.facet("Author").unwrap();
    assert_eq!(
        author_facet.key_attribute_alias.sort_key_alias.as_deref(),
        Some("PROFILE")
    );
    assert_eq!(
        author_facet.non_key_attributes,
        ["entityType", "authorId", "name", "born"]
    );
    assert_eq!(author_facet.table_data.len(), 1);
    assert_eq!(book_facet.table_data.len(), 2);
    assert_eq!(table.table_data.len(), 3);
    assert_eq!(table.items().len(), 3); // the facets repeat the table's items
    let type_of = |name: &str| {
        table
            .non_key_attributes
            .iter()
            .find(|a| a.attribute_name == name)
            .map(|a| a.attribute_type.as_str())
    };
    for (name, kind) in [
        ("GSI1PK", "S"),
        ("entityType", "S"),
        ("born", "N"),
        ("price", "N"),
        ("inPrint", "BOOL"),
        ("tags", "SS"),
        ("cover", "B"),
    ] {
        assert_eq!(type_of(name), Some(kind), "{name}");
    }
    assert_eq!(type_of("PK"), None); // a key attribute, not a non-key one

    // The hand-written model in the format of AWS's samples.
    let fixture = Model::from_json(include_str!("workbench/library.json")).unwrap();
    assert_eq!(fixture.model_metadata.version, "1.0");
    assert_eq!(fixture.model_metadata.aws_service, "");
    let fixture_table = fixture.table("Library").unwrap();
    // Four items: the author is in its facet and in the table's data.
    assert_eq!(fixture_table.items().len(), 4);

    // A model item without the table's sort key is refused before
    // anything is written.
    let mut broken = model.clone();
    broken.data_model[0].table_facets.clear();
    broken.data_model[0].table_data[2].remove("SK");

    let (fixture_author, fixture_books) = fixture_entities();
    for db in both::<Library>("workbench").await {
        match broken.load("Library", &db).await {
            Err(Error::KeyAttribute {
                item: 2,
                attribute,
                found: None,
                ..
            }) if attribute == "SK" => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(
            db.get::<Author>(Author::key("a-1").unwrap()).await.unwrap(),
            None
        );

        // The export, loaded: every sample reads back as it was.
        assert_eq!(model.load("Library", &db).await.unwrap(), 3);
        reads_back(&db, &author, &books).await;
        // Their index keys landed too.
        assert_eq!(
            Book::by_genre(&Genre::Poetry).all(&db).await.unwrap(),
            [books[1].clone()]
        );

        // The fixture, loaded: its entities read back typed, its other
        // item attribute by attribute.
        assert_eq!(fixture.load("Library", &db).await.unwrap(), 4);
        reads_back(&db, &fixture_author, &fixture_books).await;
        assert_eq!(
            Book::by_genre(&Genre::Novel).all(&db).await.unwrap(),
            [books[0].clone(), fixture_books[0].clone()]
        );
        assert_eq!(raw_item(&db, "NOTE#1", "NOTE").await, fixture_note());
    }
}

/// A nested document: stored as a map.
#[derive(singletable::Document, Debug, Clone, PartialEq)]
pub struct Dimensions {
    pub width: u32,
    pub height: u32,
}

#[derive(Table)]
#[table(name = "Archive", entities(Record))]
pub struct Archive;

/// A typed entity whose fields are of every stored kind, and whose `id`
/// is read back from its key (stored nowhere else).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Archive, rename_all = "camelCase")]
#[pk("RECORD#<id>")]
#[sk("RECORD")]
pub struct Record {
    #[attr(from_key)]
    pub id: String,
    pub title: String,
    pub pages: u32,
    pub public: bool,
    pub size: Dimensions,
    pub authors: Vec<String>,
    pub tags: BTreeSet<String>,
    pub years: BTreeSet<u16>,
    pub scan: Option<Blob>,
    pub previous: Option<Dimensions>,
}

#[derive(Table)]
#[table(name = "Legacy", entities(LegacyUser))]
pub struct Legacy;

/// Items another client writes: no entity type, the id only in the key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Legacy, untyped, rename_all = "camelCase")]
#[pk("USER#<user_id>")]
#[sk("PROFILE")]
pub struct LegacyUser {
    #[attr(from_key)]
    pub user_id: String,
    pub email: String,
    pub logins: u64,
}

/// `(name, type)` of a table's `NonKeyAttributes` in the exported JSON.
fn described(table: &serde_json::Value) -> Vec<(String, String)> {
    table["NonKeyAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["AttributeName"].as_str().unwrap().to_owned(),
                a["AttributeType"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The names a facet of the exported JSON lists.
fn facet_names(table: &serde_json::Value) -> BTreeSet<String> {
    table["TableFacets"][0]["NonKeyAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

/// The non-key attribute names of an item as the entity stores it.
fn stored_names(item: &Item) -> BTreeSet<String> {
    item.keys()
        .filter(|k| *k != "PK" && *k != "SK")
        .cloned()
        .collect()
}

/// The exported model and design document describe what items store, and
/// only that: types from the declaration without any sample (a
/// `#[derive(Document)]` field is `M`, a list `L`, sets `SS` / `NS`, a
/// blob `B`), no `from_key` field (no item holds one), and no entity-type
/// attribute or column for an untyped entity's table.
#[test]
fn workbench_export_describes_stored_attributes_only() {
    let json = Model::builder("Stored")
        .table::<Archive>()
        .table::<Legacy>()
        .build()
        .to_json();
    let raw: serde_json::Value = serde_json::from_str(&json).unwrap();
    let archive = &raw["DataModel"][0];
    let legacy = &raw["DataModel"][1];
    assert_eq!(archive["TableName"], "Archive");
    assert_eq!(legacy["TableName"], "Legacy");

    // Types from the declaration alone: no sample was given.
    assert!(archive["TableData"].as_array().unwrap().is_empty());
    let types: Vec<(String, String)> = described(archive);
    let expect = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
            .collect()
    };
    assert_eq!(
        types,
        expect(&[
            ("entityType", "S"),
            ("title", "S"),
            ("pages", "N"),
            ("public", "BOOL"),
            ("size", "M"),
            ("authors", "L"),
            ("tags", "SS"),
            ("years", "NS"),
            ("scan", "B"),
            ("previous", "M"),
        ])
    );
    assert_eq!(
        described(legacy),
        expect(&[("email", "S"), ("logins", "N")])
    );

    // What the facets list is exactly what an item stores.
    let record = Record {
        id: "r1".into(),
        title: "Atlas".into(),
        pages: 12,
        public: true,
        size: Dimensions {
            width: 3,
            height: 4,
        },
        authors: vec!["Ana".into()],
        tags: ["maps".to_owned()].into(),
        years: [1990].into(),
        scan: Some(Blob::new(vec![1, 2])),
        previous: Some(Dimensions {
            width: 1,
            height: 2,
        }),
    };
    let user = LegacyUser {
        user_id: "u1".into(),
        email: "u1@example.com".into(),
        logins: 3,
    };
    let record_item = record.to_item().unwrap();
    let user_item = user.to_item().unwrap();
    assert_eq!(facet_names(archive), stored_names(&record_item));
    assert_eq!(facet_names(legacy), stored_names(&user_item));
    // And the types described are those the stored values have.
    for (name, kind) in types {
        assert_eq!(
            singletable_core::value::type_name(&record_item[&name]),
            kind,
            "{name}"
        );
    }

    // With samples, the same description: samples add nothing undeclared.
    let sampled = Model::builder("Stored")
        .sample(&record)
        .unwrap()
        .sample(&user)
        .unwrap()
        .build()
        .to_json();
    let sampled: serde_json::Value = serde_json::from_str(&sampled).unwrap();
    assert_eq!(described(&sampled["DataModel"][0]), described(archive));
    assert_eq!(described(&sampled["DataModel"][1]), described(legacy));
    // Every attribute of the exported items is a key or described.
    for table in sampled["DataModel"].as_array().unwrap() {
        let names: BTreeSet<String> = described(table).into_iter().map(|(n, _)| n).collect();
        for item in table["TableData"].as_array().unwrap() {
            for name in item.as_object().unwrap().keys() {
                assert!(
                    name == "PK" || name == "SK" || names.contains(name),
                    "{name}"
                );
            }
        }
    }

    // The design document: the untyped table's first column is no
    // attribute of its items; the typed one's is the entity type.
    let untyped = singletable::design::document::<Legacy>();
    assert!(untyped.contains("| entity | PK | SK |"), "{untyped}");
    assert!(!untyped.contains("entityType"), "{untyped}");
    let typed = singletable::design::document::<Archive>();
    assert!(typed.contains("| entityType | PK | SK |"), "{typed}");
}
