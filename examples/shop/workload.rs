//! The store's workload, declared beside its design: how often each access
//! pattern runs and how much it reads, how many items each entity has and
//! how often they are written. `cargo run --example shop -- --cost` prints
//! what a month of it costs (docs/cost.md explains the report).

use singletable::capacity::Read;
use singletable::cost::{CostError, EntityLoad, PatternLoad, Rate, Workload};

use crate::model::*;

/// The store on a busy month: a sale's peak is thirty times the average.
pub fn workload() -> Result<Workload<AppTable>, CostError> {
    let user = User {
        user_id: "u-000123".into(),
        name: "Ana García".into(),
        email: "ana.garcia@example.com".into(),
        created_at: "2026-03-01T10:00:00Z".into(),
    };
    let summary = OrderSummary {
        order_id: "o-0000012345".into(),
        user_id: "u-000123".into(),
        status: OrderStatus::Pending,
        total: 129.9,
        created_at: "2026-03-01T10:00:00Z".into(),
    };
    let order = Order {
        order_id: "o-0000012345".into(),
        user_id: "u-000123".into(),
        status: OrderStatus::Pending,
        total: 129.9,
        created_at: "2026-03-01T10:00:00Z".into(),
    };
    let line = OrderItem {
        item_id: "i-01".into(),
        order_id: "o-0000012345".into(),
        product_id: "p-000042".into(),
        quantity: 2,
        price: 19.95,
    };
    let product = Product {
        product_id: "p-000042".into(),
        category: "kitchen".into(),
        name: "Cast-iron pan, 28 cm".into(),
        price: 39.9,
        published: true,
    };
    Ok(Workload::new()
        .pattern::<UserUserByEmailQuery>(PatternLoad::new(Rate::new(5.0, 60.0), 1))
        .pattern::<OrderSummaryOrdersOfUserQuery>(PatternLoad::new(Rate::new(40.0, 900.0), 20))
        .pattern::<OrderOrdersByStatusQuery>(PatternLoad::new(Rate::new(1.0, 10.0), 100))
        .pattern::<OrderOrdersByDateQuery>(PatternLoad::new(Rate::new(0.5, 5.0), 100))
        .pattern::<OrderOrdersByDateShardedQuery>(PatternLoad::new(Rate::new(0.5, 5.0), 100))
        .pattern::<OrderOrdersByStatusAndDateQuery>(PatternLoad::new(Rate::new(1.0, 10.0), 100))
        .pattern::<OrderItemItemsOfOrderQuery>(PatternLoad::new(Rate::new(30.0, 600.0), 5))
        .pattern::<ProductProductsByCategoryQuery>(PatternLoad::new(Rate::new(150.0, 3000.0), 24))
        // Published products on sale: the filter keeps one in four.
        .pattern::<ProductPublishedProductsQuery>(
            PatternLoad::new(Rate::new(10.0, 200.0), 40).returning(10),
        )
        .entity::<User>(
            EntityLoad::sample(500_000, &user)?
                .creates(Rate::new(0.5, 20.0))
                .updates(Rate::new(0.2, 5.0))
                .gets(Rate::new(50.0, 1000.0), Read::Eventual),
        )
        .entity::<OrderSummary>(
            EntityLoad::sample(20_000_000, &summary)?
                .creates(Rate::new(20.0, 800.0))
                .updates(Rate::new(30.0, 1200.0)),
        )
        .entity::<Order>(
            EntityLoad::sample(20_000_000, &order)?
                .creates(Rate::new(20.0, 800.0))
                // Status changes: each moves the GSI1 and GSI4 keys.
                .updates(Rate::new(30.0, 1200.0))
                .key_changes("gsi1", 1.0)
                .key_changes("gsi4", 1.0)
                .gets(Rate::new(60.0, 1500.0), Read::Eventual),
        )
        .entity::<OrderItem>(
            EntityLoad::sample(60_000_000, &line)?.creates(Rate::new(60.0, 2400.0)),
        )
        .entity::<Product>(
            EntityLoad::sample(50_000, &product)?
                .updates(Rate::new(1.0, 10.0))
                .in_index("gsi2", 0.8),
        ))
}
