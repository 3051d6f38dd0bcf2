//! Measured, not only declared: a recorder on the backend's capacity meter
//! attributes what each request consumed to its access pattern or write
//! path, on both backends; the report sets the measurement beside the
//! declaration. Expected units are computed by hand from DynamoDB's
//! rounding rules and checked against the meter's own deltas.

use singletable::cost::{EntityLoad, PatternLoad, Prices, Rate, Recorder, Workload};
use singletable::size::item_size;
use singletable::{AttributeValue, Cmp, Condition, Db, Entity, Operand, Table};

#[derive(Table)]
#[table(name = "CostRec", gsi1)]
pub struct CostRec;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = CostRec, rename_all = "camelCase")]
#[pk("SHELF#<shelf>")]
#[sk("BOOK#<id>")]
#[gsi1(pk = "AUTHOR#<author>", sk = "BOOK#<id>")]
#[access(on_shelf)]
#[access(by_author, index = gsi1)]
pub struct Book {
    pub shelf: String,
    pub id: String,
    pub author: String,
    pub status: String,
    pub text: String,
}

/// A book of exactly `bytes` bytes (DynamoDB's size, as stored).
fn book(shelf: &str, id: usize, author: &str, status: &str, bytes: usize) -> Book {
    let mut b = Book {
        shelf: shelf.into(),
        id: format!("{id:03}"),
        author: author.into(),
        status: status.into(),
        text: String::new(),
    };
    let bare = item_size(&b.to_item().unwrap());
    b.text = "x".repeat(bytes - bare);
    assert_eq!(item_size(&b.to_item().unwrap()), bytes);
    b
}

/// The units the handle's meter counted since the last call: the backend's
/// own figure (the embedded meter, DynamoDB's `ConsumedCapacity`).
fn taken(db: &Db) -> f64 {
    db.take_consumed_capacity().expect("both backends meter")
}

async fn attributes_units_to_patterns(db: &Db, backend: &str) {
    let recorder = Recorder::new();
    db.record_costs(&recorder).unwrap();
    let prefix = format!("{backend}-{}", std::process::id());
    let shelf = format!("{prefix}-s");
    let (ann, bob) = (format!("{prefix}-ann"), format!("{prefix}-bob"));
    taken(db);

    // Six books of 1,500 bytes: each put writes 2 units for the item
    // (1,500 / 1,024 rounded up) and 2 for its GSI1 entry (ALL projection).
    for id in 0..6 {
        let author = if id < 3 { &ann } else { &bob };
        db.put(&book(&shelf, id, author, "open", 1500))
            .await
            .unwrap();
    }
    let puts = taken(db);
    assert_eq!(puts, 24.0, "{backend}: six puts");

    // The shelf and one author's books, polled concurrently on one task:
    // each request's units go to its own pattern.
    let (all, anns) = futures::join!(
        Book::on_shelf(&shelf).all(db),
        Book::by_author(&ann).all(db)
    );
    assert_eq!((all.unwrap().len(), anns.unwrap().len()), (6, 3));
    // 6 × 1,500 = 9,000 bytes: 3 blocks of 4 KB, halved (eventual): 1.5.
    // 3 × 1,500 = 4,500 bytes: 2 blocks, halved: 1.0.
    assert_eq!(taken(db), 2.5, "{backend}: the two queries");

    // A get of each consistency: 1 block, 0.5 eventual and 1 strong.
    let key = || Book::key(&shelf, "000").unwrap();
    db.get::<Book>(key()).await.unwrap().unwrap();
    db.get_consistent::<Book>(key()).await.unwrap().unwrap();
    assert_eq!(taken(db), 1.5, "{backend}: the gets");

    // A delete: the item (2) and its GSI1 entry (2).
    db.delete::<Book>(Book::key(&shelf, "005").unwrap())
        .await
        .unwrap();
    assert_eq!(taken(db), 4.0, "{backend}: the delete");

    // What the recorder attributed, path by path.
    let path = |p: &str| {
        recorder
            .path("Book", p)
            .unwrap_or_else(|| panic!("{backend}: no `{p}` in {:?}", recorder.measured()))
    };
    let shelf_q = path("on_shelf");
    assert_eq!(
        (shelf_q.operation, shelf_q.requests, shelf_q.read_units),
        ("Query", 1, 1.5),
        "{backend}: on_shelf"
    );
    assert_eq!((shelf_q.items_read, shelf_q.items_returned), (6, 6));
    let author_q = path("by_author");
    assert_eq!(
        (author_q.requests, author_q.read_units, author_q.items_read),
        (1, 1.0, 3),
        "{backend}: by_author"
    );
    let puts_m = path("put");
    assert_eq!(
        (puts_m.requests, puts_m.write_units, puts_m.read_units),
        (6, puts, 0.0),
        "{backend}: put"
    );
    let gets = path("get");
    assert_eq!(
        (gets.requests, gets.read_units, gets.items_returned),
        (2, 1.5, 2)
    );
    let delete = path("delete");
    assert_eq!((delete.requests, delete.write_units), (1, 4.0));
    // Everything the meter counted is attributed, nothing twice.
    let recorded: f64 = recorder
        .measured()
        .iter()
        .map(|m| m.read_units + m.write_units)
        .sum();
    assert_eq!(recorded, 24.0 + 2.5 + 1.5 + 4.0, "{backend}: the total");
    assert!(recorder.path("", "unattributed").is_none());

    // The declared workload of the same requests: the measurement lands
    // beside each path and agrees with the declaration.
    let sample = book("s", 0, "a", "open", 1500);
    let workload = Workload::<CostRec>::new()
        .pattern::<BookOnShelfQuery>(PatternLoad::new(Rate::new(10.0, 30.0), 6))
        .pattern::<BookByAuthorQuery>(PatternLoad::new(Rate::new(5.0, 10.0), 3))
        .entity::<Book>(
            EntityLoad::sample(1000, &sample)
                .unwrap()
                .creates(Rate::new(2.0, 4.0))
                .deletes(Rate::new(1.0, 1.0))
                .gets(Rate::new(3.0, 6.0), singletable::capacity::Read::Eventual),
        );
    let report = workload
        .measured_report(&recorder.measured(), &Prices::us_east_1(), 0.7)
        .unwrap();
    for p in &report.patterns {
        let m = p.measured.as_ref().unwrap_or_else(|| {
            panic!("{backend}: `{}` has no measurement", p.pattern);
        });
        if p.operation == "Query" {
            assert_eq!(
                m.units_per_request(),
                p.units_per_page,
                "{backend}: {}",
                p.pattern
            );
            assert_eq!(m.items_read_per_request(), p.items as f64);
            assert_eq!(p.measured_monthly_on_demand, Some(p.monthly_on_demand));
        }
    }
    let create = report.writes.iter().find(|w| w.kind == "create").unwrap();
    assert_eq!(create.units_per_request, 4.0);
    assert_eq!(create.measured.as_ref().unwrap().units_per_request(), 4.0);
    assert_eq!(
        create.measured_monthly_on_demand,
        Some(create.monthly_on_demand)
    );
    // The gets mix both consistencies: 0.75 a request against 0.5 declared.
    assert!(
        report
            .deviations
            .iter()
            .all(|d| d.starts_with("`Book.get`")),
        "{backend}: {:?}",
        report.deviations
    );
    let md = report.markdown();
    assert!(md.contains("#### `Book.on_shelf`"), "{md}");
    assert!(
        md.contains("- Measured: 1 requests (pages), 1.5 read units a page against 1.5 declared")
    );

    // The same measurement against a workload that says books are 300
    // bytes: the report shows the items are larger than declared.
    let wrong = Workload::<CostRec>::new()
        .pattern::<BookOnShelfQuery>(PatternLoad::new(Rate::new(10.0, 30.0), 6))
        .entity::<Book>(EntityLoad::sized(1000, 300).creates(Rate::new(2.0, 4.0)))
        .measured_report(&recorder.measured(), &Prices::us_east_1(), 0.7)
        .unwrap();
    let shelf_row = &wrong.patterns[0];
    // Declared: 6 × 300 = 1,800 bytes, one block, 0.5; measured 1.5.
    assert_eq!(shelf_row.units_per_page, 0.5);
    let says = |start: &str| {
        assert!(
            wrong.deviations.iter().any(|d| d.starts_with(start)),
            "{backend}: no {start:?} in {:?}",
            wrong.deviations
        );
    };
    says(
        "`Book.on_shelf`: 1.5 read units a page measured against 0.5 declared: the same 6 items a page, so the items are larger than the declared 300 bytes",
    );
    // Declared 1 + 1 units a put (300 bytes); measured 4.
    says("`Book.create`: 4 write units a request measured against 2 declared");
    // Paths measured and not declared are listed, not lost.
    says("`Book.by_author` (Query): measured but not declared");
}

/// Units, items read and items returned attributed to the pattern or write
/// path that spent them, on the embedded backend and on DynamoDB Local (one
/// body), and the report built from the measurement.
#[tokio::test]
async fn measured_report_attributes_units_to_patterns() {
    let [local, embedded] = crate::support::both::<CostRec>("costrec").await;
    attributes_units_to_patterns(&embedded, "embedded").await;
    attributes_units_to_patterns(&local, "dynamodb-local").await;
}

async fn filter_waste(db: &Db, backend: &str) {
    let recorder = Recorder::new();
    db.record_costs(&recorder).unwrap();
    let shelf = format!("{backend}-{}-f", std::process::id());
    // Twenty books of 400 bytes; two are open.
    for id in 0..20 {
        let status = if id % 10 == 0 { "open" } else { "closed" };
        db.put(&book(&shelf, id, "a", status, 400)).await.unwrap();
    }
    taken(db);
    let open = Condition::Compare(
        Operand::Path("status".into()),
        Cmp::Eq,
        Operand::Value(AttributeValue::S("open".into())),
    );
    let got = Book::on_shelf(&shelf)
        .filter_raw(open)
        .all(db)
        .await
        .unwrap();
    assert_eq!(got.len(), 2);
    // The filter does not make the query cheaper: 20 × 400 = 8,000 bytes
    // read, 2 blocks of 4 KB, halved.
    assert_eq!(taken(db), 1.0, "{backend}: the filtered query");
    let m = recorder.path("Book", "on_shelf").unwrap();
    assert_eq!(
        (m.read_units, m.items_read, m.items_returned),
        (1.0, 20, 2),
        "{backend}"
    );
    assert_eq!(m.filter_waste(), 0.9);

    // Declared without a filter, at 10 requests a second.
    let report = Workload::<CostRec>::new()
        .pattern::<BookOnShelfQuery>(PatternLoad::new(Rate::new(10.0, 20.0), 20))
        .entity::<Book>(EntityLoad::sized(20, 400))
        .measured_report(&recorder.measured(), &Prices::us_east_1(), 0.7)
        .unwrap();
    let row = &report.patterns[0];
    assert_eq!(
        (row.units_per_page, row.filter_waste_per_second),
        (1.0, 0.0)
    );
    // Measured: 90% of 1 unit a request, 10 requests a second.
    let waste = row.measured_filter_waste_per_second.unwrap();
    assert!((waste - 9.0).abs() < 1e-9, "{backend}: {waste}");
    assert!(
        report.deviations.iter().any(|d| d
            == "`Book.on_shelf`: its filter drops 90% of what it reads (2 of 20 items a page returned): 0.9 of its 1 read units a request buy items nobody receives (declared without a filter)"),
        "{backend}: {:?}",
        report.deviations
    );
    assert!(report.markdown().contains("### Declared against measured"));

    // Declared with the filter it has: the waste is the declared one too.
    let declared = Workload::<CostRec>::new()
        .pattern::<BookOnShelfQuery>(PatternLoad::new(Rate::new(10.0, 20.0), 20).returning(2))
        .entity::<Book>(EntityLoad::sized(20, 400))
        .measured_report(&recorder.measured(), &Prices::us_east_1(), 0.7)
        .unwrap();
    let row = &declared.patterns[0];
    assert!((row.filter_waste_per_second - 9.0).abs() < 1e-9);
    assert_eq!(
        row.measured_filter_waste_per_second,
        Some(row.filter_waste_per_second)
    );
}

/// A filter that discards 90% of what it reads, measured on both backends
/// and reported on its pattern.
#[tokio::test]
async fn filter_waste_is_reported_per_pattern() {
    let [local, embedded] = crate::support::both::<CostRec>("costwaste").await;
    filter_waste(&embedded, "embedded").await;
    filter_waste(&local, "dynamodb-local").await;
}

/// Checks that `svg` is well-formed XML as the chart writes it: every tag
/// closed in order, attribute values quoted, `&` only in entities.
fn well_formed(svg: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        if text.contains('>') {
            return Err(format!("stray `>` in text {text:?}"));
        }
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..];
            if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| entity.starts_with(e))
            {
                return Err(format!("bare `&` in {text:?}"));
            }
        }
        let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
        let tag = &rest[start + 1..end];
        if !tag.matches('"').count().is_multiple_of(2) || tag.contains('<') {
            return Err(format!("bad attributes in <{tag}>"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            let top = open.pop().ok_or(format!("</{name}> closes nothing"))?;
            if top != name.trim() {
                return Err(format!("</{name}> closes <{top}>"));
            }
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().ok_or("empty tag")?);
        }
        rest = &rest[end + 1..];
    }
    match (open.as_slice(), rest.trim()) {
        ([], "") => Ok(()),
        (left, tail) => Err(format!("unclosed {left:?}, trailing {tail:?}")),
    }
}

/// The chart of the shop's declared workload: well-formed SVG, one pair of
/// bars per path with the report's own money on it, dominant first.
#[test]
fn cost_chart_is_well_formed_svg_with_the_report_numbers() {
    let r = crate::shop_workload::workload()
        .unwrap()
        .report(&Prices::us_east_1(), 0.7)
        .unwrap();
    let svg = r.svg();
    well_formed(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let bar = |path: &str, mode: &str| -> f64 {
        let marker = format!("data-path=\"{path}\" data-mode=\"{mode}\" data-value=\"");
        let at = svg
            .find(&marker)
            .unwrap_or_else(|| panic!("no {mode} bar for {path}"));
        let v = &svg[at + marker.len()..];
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    // The bars carry cents.
    let cents = |bar: f64, money: f64, what: &str| {
        assert!(
            (bar - money).abs() <= 0.005 + 1e-9,
            "{what}: {bar} != {money}"
        );
    };
    for p in &r.patterns {
        let name = format!("{}.{}", p.entity, p.pattern);
        cents(bar(&name, "on-demand"), p.monthly_on_demand, &name);
        // Provisioned: the peak at 70%, by the hour, Standard class.
        let provisioned = p.peak_per_second / 0.7 * 730.0 * r.prices.standard.rcu_hour;
        cents(bar(&name, "provisioned"), provisioned, &name);
    }
    for w in &r.writes {
        let name = format!("{}.{}", w.entity, w.kind);
        cents(bar(&name, "on-demand"), w.monthly_on_demand, &name);
    }
    // Order updates: 7 units at 30 a second on average, 1,200 at peak.
    // On demand: 7 × 30 × 2,628,000 s = 551.88 M write units, at 0.625 a
    // million: 344.925. Provisioned: 7 × 1,200 / 0.7 = 12,000 WCU × 730 h
    // × 0.00065 = 5,694.
    cents(
        bar("Order.update", "on-demand"),
        344.925,
        "update on demand",
    );
    cents(
        bar("Order.update", "provisioned"),
        5694.0,
        "update provisioned",
    );
    // The dominant path comes first.
    let first = svg.find("data-path=\"").unwrap() + "data-path=\"".len();
    assert!(svg[first..].starts_with("Order.update\""));
    assert_eq!(
        svg.matches("<rect ").count(),
        2 + 2 * (r.patterns.len() + r.writes.len())
    );
    // The design document ends with the report, a section per path.
    let doc = r.document::<crate::model::AppTable>();
    let cost = doc.find("\n## Cost\n").expect("a cost section");
    assert!(doc[..cost].contains("## Access patterns"));
    let update = doc.find("#### `Order.update`").unwrap();
    assert!(
        doc[cost..update].matches("#### ").count() == 0,
        "dominant first"
    );
}
