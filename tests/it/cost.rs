//! What a design costs: the workload declared beside the design, priced by
//! the core's capacity rules and a price table; hot partitions and the
//! write shards that cool them. Every expected figure below is computed by
//! hand in the comments (docs/cost.md walks through the same arithmetic).

use singletable::capacity::Read;
use singletable::cost::{CostError, CostReport, EntityLoad, PatternLoad, Prices, Rate, Workload};
use singletable::{Entity, StrEnum, Table};

mod recorded;

mod priced {
    use super::*;

    #[derive(Table)]
    #[table(name = "CostShop", gsi1, gsi2(keys_only))]
    pub struct CostShop;

    #[derive(Entity)]
    #[entity(table = CostShop, rename_all = "camelCase")]
    #[pk("CUSTOMER#<customer_id>")]
    #[sk("ORDER#<order_id>")]
    #[gsi1(pk = "ORDER#<order_id>", sk = "ORDER")]
    #[gsi2(pk = "OPEN#<customer_id>", sk = "ORDER#<order_id>", when = open)]
    #[access(orders_of)]
    #[access(by_id, index = gsi1)]
    #[access(open_orders, index = gsi2, keys)]
    pub struct Order {
        pub customer_id: String,
        pub order_id: String,
        pub open: bool,
        pub note: String,
    }

    #[derive(Entity)]
    #[entity(table = CostShop, rename_all = "camelCase")]
    #[pk("CUSTOMER#<id>")]
    #[sk("PROFILE")]
    pub struct Customer {
        pub id: String,
        #[attr(unique)]
        pub email: String,
    }
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0),
        "{what}: {actual} != {expected}"
    );
}

fn monthly<'r>(r: &'r CostReport, mode: &str, class: &str) -> &'r singletable::cost::Monthly {
    r.monthly
        .iter()
        .find(|m| m.mode == mode && m.class == class)
        .unwrap_or_else(|| panic!("no {mode} {class} in {:?}", r.monthly))
}

#[test]
fn cost_report_prices_on_demand_provisioned_and_standard_ia() {
    use priced::*;

    let customer = EntityLoad::sample(
        100_000,
        &Customer {
            id: "c1".into(),
            email: "a@x.io".into(),
        },
    )
    .unwrap()
    .creates(Rate::new(1.0, 5.0))
    .gets(Rate::new(4.0, 8.0), Read::Transactional);
    // PK "CUSTOMER#c1" 2+11, SK "PROFILE" 2+7, entityType "Customer" 10+8,
    // id "c1" 2+2, email "a@x.io" 5+6: 55 bytes.
    assert_eq!(customer.item_bytes(), 13 + 9 + 18 + 4 + 11);

    let workload = Workload::<CostShop>::new()
        .pattern::<OrderOrdersOfQuery>(PatternLoad::new(Rate::new(100.0, 400.0), 25))
        .pattern::<OrderByIdQuery>(PatternLoad::new(Rate::new(200.0, 1000.0), 1))
        .pattern::<OrderOpenOrdersQuery>(PatternLoad::new(Rate::new(10.0, 20.0), 10).returning(2))
        .entity::<Order>(
            EntityLoad::sized(1_000_000, 1500)
                .creates(Rate::new(10.0, 50.0))
                .updates(Rate::new(20.0, 100.0))
                .in_index("gsi2", 0.1),
        )
        .entity::<Customer>(customer);
    let prices = Prices::us_east_1();
    let r = workload.report(&prices, 0.8).unwrap();

    // --- read paths ---
    let read = |name: &str| r.patterns.iter().find(|p| p.pattern == name).unwrap();
    // orders_of: 25 items x 1,500 B = 37,500 B, rounded once: ceil(37,500 / 4,096) = 10
    // blocks; eventually consistent: 10 / 2 = 5 units. 100/s: 500 units/s; 400/s: 2,000.
    let orders_of = read("orders_of");
    assert_eq!(
        (orders_of.index.as_str(), orders_of.units_per_request),
        ("table", 5.0)
    );
    assert_eq!(
        (orders_of.avg_per_second, orders_of.peak_per_second),
        (500.0, 2000.0)
    );
    // by_id on GSI1 (ALL): one 1,500 B entry, 1 block, 0.5 units; 200/s: 100; 1,000/s: 500.
    let order = read("by_id");
    assert_eq!(
        (order.index.as_str(), order.units_per_request),
        ("GSI1", 0.5)
    );
    assert_eq!(
        (order.avg_per_second, order.peak_per_second),
        (100.0, 500.0)
    );
    // open_orders on GSI2: 10 x 1,500 B = 15,000 B (declared by size: the
    // KEYS_ONLY entry counted at the item's size, an upper bound), 4 blocks, 2 units.
    // The filter keeps 2 of 10: 8/10 of 2 units x 10/s = 16 units/s wasted.
    let open = read("open_orders");
    assert_eq!((open.index.as_str(), open.units_per_request), ("GSI2", 2.0));
    close(open.filter_waste_per_second, 16.0, "filter waste");
    // Customer gets in TransactGetItems: 55 B, 1 block, x4 halves = 2 units.
    let get = read("get");
    assert_eq!((get.operation, get.units_per_request), ("GetItem", 2.0));
    assert_eq!((get.avg_per_second, get.peak_per_second), (8.0, 16.0));

    // --- write paths ---
    let write = |e: &str, k: &str| {
        r.writes
            .iter()
            .find(|w| w.entity == e && w.kind == k)
            .unwrap()
    };
    // Order create: the item ceil(1,500 / 1,024) = 2; GSI1 (ALL, every item) 2;
    // GSI2 (sparse, 10% of items) 0.1 x 2 = 0.2. 4.2 units; 10/s: 42; 50/s: 210.
    let create = write("Order", "create");
    assert_eq!(create.table_units, 2.0);
    close(create.index_units["GSI1"], 2.0, "GSI1 create");
    close(create.index_units["GSI2"], 0.2, "GSI2 create");
    close(create.units_per_request, 4.2, "order create");
    close(create.peak_per_second, 210.0, "order create peak");
    // Order update: item 2; GSI1 (ALL) rewrites its entry 2; GSI2 (KEYS_ONLY,
    // no key change) 0. 4 units; 20/s: 80; 100/s: 400.
    let update = write("Order", "update");
    close(update.units_per_request, 4.0, "order update");
    close(update.index_units["GSI2"], 0.0, "GSI2 update");
    // Customer create: unique email, so a transaction of the item (1 block)
    // and its marker (1 block), doubled: 4 units.
    let c = write("Customer", "create");
    assert!(c.transactional);
    assert_eq!(
        (c.table_units, c.unique_units, c.units_per_request),
        (2.0, 2.0, 4.0)
    );

    // --- the table and each index ---
    let ix = |n: &str| r.indexes.iter().find(|i| i.index == n).unwrap();
    let (table, gsi1, gsi2) = (ix("table"), ix("GSI1"), ix("GSI2"));
    // Table reads: orders_of 500 + gets 8 = 508 avg; 2,000 + 16 = 2,016 peak.
    assert_eq!((table.read_avg, table.read_peak), (508.0, 2016.0));
    // Table writes: order create 2 x 10 + update 2 x 20 + customer create 4 x 1 = 64 avg;
    // 2 x 50 + 2 x 100 + 4 x 5 = 320 peak.
    close(table.write_avg, 64.0, "table write avg");
    close(table.write_peak, 320.0, "table write peak");
    // GSI1 writes: 2 x 10 + 2 x 20 = 60 avg, 2 x 50 + 2 x 100 = 300 peak.
    close(gsi1.write_peak, 300.0, "gsi1 write peak");
    // GSI2 writes: 0.2 x 10 = 2 avg, 0.2 x 50 = 10 peak; reads 2 x 10 = 20, 2 x 20 = 40.
    close(gsi2.write_peak, 10.0, "gsi2 write peak");
    assert_eq!((gsi2.read_avg, gsi2.read_peak), (20.0, 40.0));
    // Storage: items plus 100 B each. Table 1,000,000 x 1,600 + 100,000 x 155
    // = 1,615,500,000; GSI1 1,000,000 x 1,600; GSI2 100,000 x 1,600.
    assert_eq!(table.storage_bytes, 1_615_500_000);
    assert_eq!(gsi1.storage_bytes, 1_600_000_000);
    assert_eq!(gsi2.storage_bytes, 160_000_000);
    // Provisioned at 80%: table ceil(2,016 / 0.8) = 2,520 RCU, ceil(320 / 0.8) = 400 WCU;
    // GSI1 ceil(500 / 0.8) = 625, ceil(300 / 0.8) = 375; GSI2 ceil(40 / 0.8) = 50,
    // ceil(10 / 0.8) = 13.
    assert_eq!((table.provisioned_rcu, table.provisioned_wcu), (2520, 400));
    assert_eq!((gsi1.provisioned_rcu, gsi1.provisioned_wcu), (625, 375));
    assert_eq!((gsi2.provisioned_rcu, gsi2.provisioned_wcu), (50, 13));

    // --- money per month (730 hours, 2,628,000 seconds) ---
    // Reads on average: 508 + 100 + 20 = 628 units/s; writes 64 + 60 + 2 = 126.
    let seconds = 730.0 * 3600.0;
    let gb = (1_615_500_000.0 + 1_600_000_000.0 + 160_000_000.0) / 1_073_741_824.0;
    // On demand, Standard: 628 x 2,628,000 = 1,650,384,000 read units x $0.125 / M
    // = $206.298; 126 x 2,628,000 = 331,128,000 write units x $0.625 / M = $206.955;
    // 3,375,500,000 B = 3.1437 GB x $0.25.
    let od = monthly(&r, "on-demand", "Standard");
    close(od.reads, 628.0 * seconds * 0.125 / 1e6, "on-demand reads");
    close(od.reads, 206.298, "on-demand reads, by hand");
    close(od.writes, 206.955, "on-demand writes, by hand");
    close(od.storage, gb * 0.25, "standard storage");
    close(od.total, 206.298 + 206.955 + gb * 0.25, "on-demand total");
    // Provisioned, Standard: (2,520 + 625 + 50) = 3,195 RCU x 730 h x $0.00013 = $303.2055;
    // (400 + 375 + 13) = 788 WCU x 730 h x $0.00065 = $373.906.
    let prov = monthly(&r, "provisioned", "Standard");
    close(prov.reads, 303.2055, "provisioned reads");
    close(prov.writes, 373.906, "provisioned writes");
    // Standard-IA on demand: 1,650,384,000 x $0.155 / M = $255.80952;
    // 331,128,000 x $0.78 / M = $258.27984; storage at $0.10 per GB.
    let ia = monthly(&r, "on-demand", "Standard-IA");
    close(ia.reads, 255.80952, "IA reads");
    close(ia.writes, 258.27984, "IA writes");
    close(ia.storage, gb * 0.10, "IA storage");
    // Standard-IA provisioned: 3,195 x 730 x $0.00016 = $373.176; 788 x 730 x $0.00081 = $465.9444.
    let ia_prov = monthly(&r, "provisioned", "Standard-IA");
    close(ia_prov.reads, 373.176, "IA provisioned reads");
    close(ia_prov.writes, 465.9444, "IA provisioned writes");

    // The dominant path: orders_of's 500 units/s = $164.25 a month; the
    // order updates' 80 units/s = $131.40. The dominant index: the table.
    assert_eq!(r.dominant_pattern.as_deref(), Some("Order.orders_of"));
    assert_eq!(r.dominant_index.as_deref(), Some("table"));

    // A price table is data: overridden, it changes the money, not the units.
    let mut cheaper = prices.clone();
    cheaper.standard.read_per_million = 0.0625;
    cheaper.source = "negotiated".into();
    let r2 = workload.report(&cheaper, 0.8).unwrap();
    close(
        monthly(&r2, "on-demand", "Standard").reads,
        206.298 / 2.0,
        "halved reads",
    );
    assert_eq!(r2.patterns[0].units_per_request, 5.0);

    // JSON for CI, Markdown for people, both stating where the prices come from.
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["prices"]["region"], "us-east-1");
    assert_eq!(json["writes"][0]["index_units"]["GSI1"], 2.0);
    let md = r.markdown();
    assert!(
        md.contains("| orders_of | Order | table | eventual | 25 × 1500 B | 5 | 500 | 2000 |"),
        "{md}"
    );
    assert!(md.contains("aws.amazon.com/dynamodb/pricing"), "{md}");
    assert!(
        md.find("| orders_of |") < md.find("| by_id |"),
        "dominant first: {md}"
    );

    // A sparse index without a declared share counts every item, and says so.
    let undeclared = Workload::<CostShop>::new()
        .entity::<Order>(EntityLoad::sized(1, 1500).creates(Rate::new(1.0, 1.0)))
        .report(&prices, 0.8)
        .unwrap();
    assert_eq!(undeclared.writes[0].index_units["GSI2"], 2.0);
    assert!(
        undeclared
            .notes
            .iter()
            .any(|n| n.contains("`Order` in sparse `gsi2`")),
        "{:?}",
        undeclared.notes
    );

    // Bad input is a typed error.
    let strong_gsi = Workload::<CostShop>::new()
        .pattern::<OrderByIdQuery>(PatternLoad::new(Rate::new(1.0, 1.0), 1).strong())
        .entity::<Order>(EntityLoad::sized(1, 100));
    assert!(matches!(
        strong_gsi.report(&prices, 0.8),
        Err(CostError::StrongReadOnGlobalIndex {
            pattern: "by_id",
            ..
        })
    ));
    let missing = Workload::<CostShop>::new()
        .pattern::<OrderByIdQuery>(PatternLoad::new(Rate::new(1.0, 1.0), 1));
    assert!(matches!(
        missing.report(&prices, 0.8),
        Err(CostError::MissingEntity {
            entity: "Order",
            ..
        })
    ));
    let unknown = Workload::<CostShop>::new()
        .entity::<Customer>(EntityLoad::sized(1, 100).in_index("gsi1", 0.5));
    assert!(matches!(
        unknown.report(&prices, 0.8),
        Err(CostError::UnknownIndex {
            entity: "Customer",
            ..
        })
    ));
}

mod hot {
    use super::*;

    #[derive(Table)]
    #[table(name = "HotApp", gsi1, gsi2, gsi3)]
    pub struct HotApp;

    #[derive(StrEnum, Debug, Clone, Copy, PartialEq)]
    pub enum State {
        Open,
        Closed,
    }

    #[derive(Entity)]
    #[entity(table = HotApp, rename_all = "camelCase")]
    #[pk("EVENT#<id>")]
    #[sk("EVENT")]
    #[gsi1(pk = "FEED", sk = "AT#<at>", shards = 2)]
    #[gsi2(pk = "TODAY", sk = "AT#<at>")]
    #[gsi3(pk = "STATE#<state>", sk = "AT#<at>")]
    #[access(feed, index = gsi1)]
    pub struct Event {
        pub id: String,
        pub at: u64,
        pub state: State,
    }

    #[derive(Entity)]
    #[entity(table = HotApp, rename_all = "camelCase")]
    #[pk("CONFIG")]
    #[sk("CONFIG#<name>")]
    #[access(settings)]
    pub struct Config {
        pub name: String,
    }
}

#[test]
fn hot_partition_report_recommends_enough_shards() {
    use hot::*;

    let r = Workload::<HotApp>::new()
        // 800 B events: every write is one unit per item and per index entry.
        .entity::<Event>(EntityLoad::sized(10_000_000, 800).creates(Rate::new(500.0, 3000.0)))
        .pattern::<EventFeedQuery>(PatternLoad::new(Rate::new(100.0, 2000.0), 10))
        .entity::<Config>(EntityLoad::sized(50, 400).updates(Rate::new(10.0, 500.0)))
        .pattern::<ConfigSettingsQuery>(PatternLoad::new(Rate::new(10.0, 2000.0), 50).strong())
        .report(&Prices::us_east_1(), 0.7)
        .unwrap();
    let hot = |index: &str| {
        r.hot_partitions
            .iter()
            .find(|h| h.index == index)
            .unwrap_or_else(|| panic!("no hot partition on {index}: {:?}", r.hot_partitions))
    };

    // Every shard count the report recommends keeps each partition under
    // the write limit, and one fewer would not (when there is more than one).
    for h in &r.hot_partitions {
        let write_total = h.write_per_partition * (h.values * h.shards as u64) as f64;
        let under = |s: u32| write_total / (h.values * s as u64) as f64 <= 1000.0;
        assert!(under(h.shards_needed), "{h:?}");
        if h.shards_needed > 1 {
            assert!(!under(h.shards_needed - 1), "{h:?}");
        }
        let over = h.write_per_partition > 1000.0 || h.read_per_partition > 3000.0;
        assert_eq!(h.over, over, "{h:?}");
    }

    // FEED, sharded 2 ways: 3,000 creates/s x 1 unit = 3,000 units/s,
    // 1,500 per shard: still over. Needed: ceil(3,000 / 1,000) = 3.
    // Reads: a page of 10 x 800 B = 8,000 B, 2 blocks, 1 unit eventual, on
    // each of the 2 shards the query fans out to: 2 units a request; at
    // 2,000/s, 4,000 units/s, 2,000 on each shard.
    let feed_pattern = r.patterns.iter().find(|p| p.pattern == "feed").unwrap();
    assert_eq!(feed_pattern.units_per_request, 2.0);
    let feed = hot("GSI1");
    assert_eq!((feed.partition, feed.values, feed.shards), ("FEED", 1, 2));
    assert_eq!(
        (feed.write_per_partition, feed.read_per_partition),
        (1500.0, 2000.0)
    );
    assert!(feed.over);
    assert_eq!(feed.shards_needed, 3);
    let warning = feed.warning.as_deref().unwrap();
    assert!(warning.contains("still over with shards = 2"), "{warning}");
    assert!(warning.contains("shards = 3"), "{warning}");

    // TODAY, not sharded: 3,000 units/s on one partition; 3 shards needed.
    let today = hot("GSI2");
    assert_eq!(
        (today.partition, today.shards, today.write_per_partition),
        ("TODAY", 1, 3000.0)
    );
    assert_eq!(today.shards_needed, 3);
    assert!(
        today
            .warning
            .as_deref()
            .unwrap()
            .contains("declare shards = 3 on `GSI2`")
    );

    // STATE#<state>: two values share 3,000 units/s, 1,500 each; shards
    // needed ceil(3,000 / 1,000 / 2) = 2.
    let state = hot("GSI3");
    assert_eq!((state.values, state.write_per_partition), (2, 1500.0));
    assert_eq!(state.shards_needed, 2);

    // The table's CONFIG partition: 500 updates/s x 1 unit, 500 units/s, under
    // (no shards needed for writes); reads 50 x 400 B = 20,000 B, 5 blocks,
    // 5 units strong x 2,000/s = 10,000: over 3,000, and the table's key
    // cannot be sharded.
    let config = r
        .hot_partitions
        .iter()
        .find(|h| h.partition == "CONFIG")
        .unwrap();
    assert_eq!(
        (config.index.as_str(), config.write_per_partition),
        ("table", 500.0)
    );
    assert_eq!(config.read_per_partition, 10_000.0);
    assert!(config.over);
    assert_eq!(config.shards_needed, 1);
    assert!(
        config
            .warning
            .as_deref()
            .unwrap()
            .contains("cannot be sharded")
    );

    // Keys with many values are not listed.
    assert!(
        r.hot_partitions
            .iter()
            .all(|h| !h.partition.starts_with("EVENT#"))
    );
    assert!(
        r.markdown()
            .contains("| GSI1 | `FEED` | 1 × 2 | 2000 | 1500 | 3 |")
    );
}

mod measured {
    use super::*;

    #[derive(Table)]
    #[table(name = "CostLocal", gsi1, gsi2(keys_only), gsi3(include(tag)))]
    pub struct CostLocal;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = CostLocal, rename_all = "camelCase")]
    #[pk("GROUP#<group>")]
    #[sk("DOC#<id>")]
    #[gsi1(pk = "G1#<group>", sk = "DOC#<id>")]
    #[gsi2(pk = "G2#<group>", sk = "DOC#<id>")]
    #[gsi3(pk = "G3#<group>", sk = "DOC#<id>", when = listed)]
    #[access(in_group)]
    #[access(in_group_g1, index = gsi1)]
    #[access(in_group_g2, index = gsi2, keys)]
    pub struct Doc {
        pub group: String,
        pub id: String,
        pub tag: String,
        pub listed: bool,
        pub data: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = CostLocal, rename_all = "camelCase")]
    #[pk("MEMBER#<id>")]
    #[sk("MEMBER")]
    pub struct Member {
        pub id: String,
        #[attr(unique)]
        pub email: String,
        pub bio: String,
    }
}

/// The units a write consumed, as DynamoDB reports them with
/// `ReturnConsumedCapacity=INDEXES`: the table's, and each global index's.
fn consumed(
    c: Option<&aws_sdk_dynamodb::types::ConsumedCapacity>,
) -> (f64, std::collections::BTreeMap<String, f64>) {
    let c = c.expect("consumed capacity asked for");
    let table = c.table().and_then(|t| t.capacity_units()).unwrap_or(0.0);
    let indexes = c
        .global_secondary_indexes()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.capacity_units().unwrap_or(0.0)))
                .collect()
        })
        .unwrap_or_default();
    (table, indexes)
}

#[tokio::test]
async fn declared_units_match_consumed_capacity_on_dynamodb_local() {
    use aws_sdk_dynamodb::types::{AttributeValue as Av, ReturnConsumedCapacity};
    use measured::*;
    use singletable::SdkDb;
    use singletable::size::item_size;

    let db = crate::support::fresh_db::<CostLocal>("cost").await;
    let sdk = db.sdk().clone();
    let table = db.table_name().to_owned();
    let doc = |group: &str, id: usize, listed: bool, data: String| Doc {
        group: group.into(),
        id: format!("{id:03}"),
        tag: "t".into(),
        listed,
        data,
    };
    // The item's size without `data`: every size below is `data` on top.
    let bare =
        |group: &str, listed| item_size(&doc(group, 0, listed, String::new()).to_item().unwrap());
    let mut checked = 0;
    // Items across the 1 KB and 4 KB boundaries, in and out of the sparse GSI3.
    for (n, (target, listed)) in [
        (300, true),
        (1024, false),
        (1025, true),
        (2100, false),
        (4096, true),
        (4097, false),
        (9000, true),
    ]
    .into_iter()
    .enumerate()
    {
        let group = format!("g{n}");
        let data = "x".repeat(target - bare(&group, listed));
        let sample = doc(&group, 0, listed, data.clone());
        let item = sample.to_item().unwrap();
        assert_eq!(item_size(&item), target);
        const PAGE: u32 = 5;
        let report = Workload::<CostLocal>::new()
            .entity::<Doc>(
                EntityLoad::sample(1, &sample)
                    .unwrap()
                    .creates(Rate::new(1.0, 1.0))
                    .updates(Rate::new(1.0, 1.0))
                    .deletes(Rate::new(1.0, 1.0))
                    .in_index("gsi3", if listed { 1.0 } else { 0.0 }),
            )
            .pattern::<DocInGroupQuery>(PatternLoad::new(Rate::new(1.0, 1.0), PAGE))
            .pattern::<DocInGroupG1Query>(PatternLoad::new(Rate::new(1.0, 1.0), PAGE))
            .pattern::<DocInGroupG2Query>(PatternLoad::new(Rate::new(1.0, 1.0), PAGE))
            .report(&Prices::us_east_1(), 1.0)
            .unwrap();
        let declared = |kind: &str| report.writes.iter().find(|w| w.kind == kind).unwrap();
        let compare = |kind: &str, measured: (f64, std::collections::BTreeMap<String, f64>)| {
            let d = declared(kind);
            assert_eq!(measured.0, d.table_units, "{kind} of {target} B: the item");
            for index in ["GSI1", "GSI2", "GSI3"] {
                let m = measured.1.get(index).copied().unwrap_or(0.0);
                assert_eq!(
                    m, d.index_units[index],
                    "{kind} of {target} B (listed: {listed}): {index}'s entry"
                );
            }
        };

        let key: singletable::Item = [("PK", format!("GROUP#{group}")), ("SK", "DOC#000".into())]
            .map(|(k, v)| (k.to_owned(), Av::S(v)))
            .into();

        // Create: PutItem of a new item.
        let out = sdk
            .put_item()
            .table_name(&table)
            .set_item(Some(item.clone()))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .unwrap();
        compare("create", consumed(out.consumed_capacity()));

        // Update: new `data` (same size) and `tag`; no index key moves.
        let out = sdk
            .update_item()
            .table_name(&table)
            .set_key(Some(key.clone()))
            .update_expression("SET #d = :d, #t = :t")
            .expression_attribute_names("#d", "data")
            .expression_attribute_names("#t", "tag")
            .expression_attribute_values(":d", Av::S("y".repeat(data.len())))
            .expression_attribute_values(":t", Av::S("u".into()))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .unwrap();
        compare("update", consumed(out.consumed_capacity()));

        // Delete.
        let out = sdk
            .delete_item()
            .table_name(&table)
            .set_key(Some(key.clone()))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .unwrap();
        compare("delete", consumed(out.consumed_capacity()));

        // Queries: a page of PAGE items, on the table and on two indexes.
        for id in 0..PAGE as usize {
            db.put(&doc(&group, id, listed, data.clone()))
                .await
                .unwrap();
        }
        let read = |pattern: &str| {
            report
                .patterns
                .iter()
                .find(|p| p.pattern == pattern)
                .unwrap()
                .units_per_request
        };
        db.take_consumed_capacity();
        assert_eq!(
            Doc::in_group(&group).all(&db).await.unwrap().len(),
            PAGE as usize
        );
        let measured = db.take_consumed_capacity().unwrap();
        assert_eq!(measured, read("in_group"), "in_group, {PAGE} x {target} B");
        assert_eq!(
            Doc::in_group_g1(&group).all(&db).await.unwrap().len(),
            PAGE as usize
        );
        let measured = db.take_consumed_capacity().unwrap();
        assert_eq!(
            measured,
            read("in_group_g1"),
            "in_group_g1, {PAGE} x {target} B"
        );
        assert_eq!(
            Doc::in_group_g2(&group).all(&db).await.unwrap().len(),
            PAGE as usize
        );
        let measured = db.take_consumed_capacity().unwrap();
        assert_eq!(
            measured,
            read("in_group_g2"),
            "in_group_g2 (keys only), {PAGE} x {target} B"
        );
        checked += 1;
    }
    assert_eq!(checked, 7);

    // A transactional write of one item: the item and its index entries,
    // doubled, across the 1 KB boundary.
    for (n, target) in [(0usize, 1000usize), (1, 1100)] {
        let group = format!("tx{n}");
        let sample = doc(&group, 0, true, String::new());
        let sample = doc(
            &group,
            0,
            true,
            "x".repeat(target - item_size(&sample.to_item().unwrap())),
        );
        let report = Workload::<CostLocal>::new()
            .entity::<Doc>(
                EntityLoad::sample(1, &sample)
                    .unwrap()
                    .transactional()
                    .creates(Rate::new(1.0, 1.0)),
            )
            .report(&Prices::us_east_1(), 1.0)
            .unwrap();
        let declared = &report.writes[0];
        db.take_consumed_capacity();
        singletable::Transaction::new()
            .put(&sample)
            .execute(&db)
            .await
            .unwrap();
        let measured = db.take_consumed_capacity().unwrap();
        assert_eq!(
            measured, declared.units_per_request,
            "transactional put of {target} B"
        );
    }

    // Unique values: the create and the delete are transactions with the
    // marker, doubled; the delete reads the item first (strongly
    // consistent). DynamoDB bills each item of a transaction on its own
    // size; DynamoDB Local departs from that when two items of a
    // transaction round to the same number of units (it reports 2 units for
    // two 10-byte puts, 4 for two 1,500-byte ones), so the items here are
    // larger than their 1-unit marker.
    for bio in [1500usize, 5000] {
        let member = Member {
            id: format!("m{bio}"),
            email: format!("m{bio}@example.com"),
            bio: "b".repeat(bio),
        };
        let report = Workload::<CostLocal>::new()
            .entity::<Member>(
                EntityLoad::sample(1, &member)
                    .unwrap()
                    .creates(Rate::new(1.0, 1.0))
                    .deletes(Rate::new(1.0, 1.0))
                    .gets(Rate::new(1.0, 1.0), Read::Strong),
            )
            .report(&Prices::us_east_1(), 1.0)
            .unwrap();
        let declared = |kind: &str| report.writes.iter().find(|w| w.kind == kind).unwrap();
        db.take_consumed_capacity();
        db.create(&member).await.unwrap();
        let measured = db.take_consumed_capacity().unwrap();
        assert!(declared("create").transactional);
        assert_eq!(
            measured,
            declared("create").units_per_request,
            "create, bio {bio}"
        );
        db.get_consistent::<Member>(member.key_of().unwrap())
            .await
            .unwrap()
            .unwrap();
        let measured = db.take_consumed_capacity().unwrap();
        assert_eq!(
            measured, report.patterns[0].units_per_request,
            "get, bio {bio}"
        );
        db.delete::<Member>(member.key_of().unwrap()).await.unwrap();
        let measured = db.take_consumed_capacity().unwrap();
        let d = declared("delete");
        assert_eq!(
            measured,
            d.units_per_request + d.read_units,
            "delete, bio {bio}"
        );
    }
}

/// The shop example's declared workload (`cargo run --example shop -- --cost`)
/// on the reference documents' design: the single `ORDERBYDATE` partition
/// throttles at the sale's peak, its 4-shard twin does not.
#[test]
fn shop_workload_prices_the_reference_design() {
    let r = crate::shop_workload::workload()
        .unwrap()
        .report(&Prices::us_east_1(), 0.7)
        .unwrap();
    let hot = |index: &str, partition: &str| {
        r.hot_partitions
            .iter()
            .find(|h| h.index == index && h.partition == partition)
            .unwrap_or_else(|| panic!("{index} {partition}: {:?}", r.hot_partitions))
    };
    // Orders are under 1 KB: every item and entry write is one unit.
    // ORDERBYDATE on GSI2: 800 creates + 1,200 updates a second at peak,
    // one entry each (ALL projection): 2,000 units/s on one partition.
    let by_date = hot("GSI2", "ORDERBYDATE");
    assert_eq!(
        (by_date.write_per_partition, by_date.shards_needed),
        (2000.0, 2)
    );
    assert!(
        by_date
            .warning
            .as_deref()
            .unwrap()
            .contains("declare shards = 2 on `GSI2`")
    );
    // The same load over GSI3's 4 shards: 500 each, under.
    let sharded = hot("GSI3", "ORDERBYDATE");
    assert_eq!((sharded.shards, sharded.write_per_partition), (4, 500.0));
    assert!(!sharded.over && sharded.warning.is_none());
    // Four statuses on GSI1: 800 creates + 1,200 updates that move the key
    // (2 entries each) = 3,200 units/s, 800 a partition.
    assert_eq!(
        hot("GSI1", "ORDERSTATUS#<status>").write_per_partition,
        800.0
    );

    // An order update writes the item (1), GSI1's and GSI4's moved entries
    // (2 each) and GSI2's and GSI3's rewritten ones (1 each): 7 units, at
    // 30/s 210 units/s, the largest spend of the month.
    let update = r
        .writes
        .iter()
        .find(|w| w.entity == "Order" && w.kind == "update")
        .unwrap();
    assert_eq!(update.units_per_request, 7.0);
    assert_eq!(r.dominant_pattern.as_deref(), Some("Order.update"));
    // The published-products filter drops 30 of every 40 items it pays for.
    let published = r
        .patterns
        .iter()
        .find(|p| p.pattern == "published_products")
        .unwrap();
    close(
        published.filter_waste_per_second,
        published.avg_per_second * 0.75,
        "filter waste",
    );
}
