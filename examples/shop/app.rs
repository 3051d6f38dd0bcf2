//! What the shop does, shared by the example binary and the tests.

use singletable::{Db, Executor, Result};

use crate::model::*;

/// A user with orders, for printing.
pub struct Seeded {
    pub users: Vec<User>,
    pub products: Vec<Product>,
    pub orders: Vec<(Order, Vec<OrderItem>)>,
}

fn user(id: &str, name: &str, email: &str, day: u32) -> User {
    User {
        user_id: id.into(),
        name: name.into(),
        email: email.into(),
        created_at: format!("2024-04-{day:02}T09:00:00.000000Z"),
    }
}

fn product(id: &str, category: &str, name: &str, price: f64, published: bool) -> Product {
    Product {
        product_id: id.into(),
        category: category.into(),
        name: name.into(),
        price,
        published,
    }
}

/// The store's fixed sample data.
pub fn sample() -> Seeded {
    let users = vec![
        user("u-ana", "Ana", "ana@example.com", 1),
        user("u-bruno", "Bruno", "bruno@example.com", 2),
        user("u-carla", "Carla", "carla@example.com", 3),
    ];
    let products = vec![
        product("p-kbd", "electronics", "Keyboard", 49.9, true),
        product("p-mouse", "electronics", "Mouse", 19.5, true),
        product("p-cable", "electronics", "USB cable", 4.0, false),
        product("p-mug", "kitchen", "Mug", 8.25, true),
        product("p-pan", "kitchen", "Pan", 31.0, false),
    ];
    let mut orders = Vec::new();
    type Line = (&'static str, u32);
    let plan: [(&str, &str, u32, &[Line]); 6] = [
        ("o-1001", "u-ana", 5, &[("p-kbd", 1), ("p-mouse", 2)]),
        ("o-1002", "u-ana", 9, &[("p-mug", 4)]),
        ("o-1003", "u-bruno", 12, &[("p-kbd", 1)]),
        (
            "o-1004",
            "u-ana",
            15,
            &[("p-mouse", 1), ("p-mug", 1), ("p-kbd", 1)],
        ),
        ("o-1005", "u-carla", 20, &[("p-mug", 2)]),
        ("o-1006", "u-bruno", 25, &[("p-mouse", 3)]),
    ];
    for (order_id, user_id, day, lines) in plan {
        let items: Vec<OrderItem> = lines
            .iter()
            .enumerate()
            .map(|(i, (product_id, quantity))| OrderItem {
                item_id: format!("{:03}", i + 1),
                order_id: order_id.into(),
                product_id: (*product_id).into(),
                quantity: *quantity,
                price: products
                    .iter()
                    .find(|p| p.product_id == *product_id)
                    .map_or(0.0, |p| p.price),
            })
            .collect();
        let total = items
            .iter()
            .map(|i| i.price * f64::from(i.quantity))
            .sum::<f64>();
        let order = Order {
            order_id: order_id.into(),
            user_id: user_id.into(),
            status: OrderStatus::Pending,
            total: (total * 100.0).round() / 100.0,
            created_at: format!("2024-05-{day:02}T10:30:00.000000Z"),
        };
        orders.push((order, items));
    }
    Seeded {
        users,
        products,
        orders,
    }
}

impl Order {
    /// The summary stored in the customer's partition.
    pub fn summary(&self) -> OrderSummary {
        OrderSummary {
            order_id: self.order_id.clone(),
            user_id: self.user_id.clone(),
            status: self.status,
            total: self.total,
            created_at: self.created_at.clone(),
        }
    }
}

/// Creates an order: summary, header and items in one transaction; the
/// header only if the order does not exist yet.
pub async fn place_order<E: Executor>(
    db: &Db<E>,
    order: &Order,
    items: &[OrderItem],
) -> Result<()> {
    let summary = order.summary();
    let mut tx = singletable::Transaction::new().put(&summary).create(order);
    for item in items {
        tx = tx.put(item);
    }
    tx.execute(db).await
}

/// Moves an order to `to`, only if its header is still `from`: the summary
/// and the header are updated in one transaction. The header's update
/// rewrites `GSI1PK`, so it leaves the `ORDERSTATUS#<from>` partition of
/// GSI1 in the same request.
pub async fn change_status<E: Executor>(
    db: &Db<E>,
    order: &Order,
    from: OrderStatus,
    to: OrderStatus,
) -> Result<Order> {
    let summary = OrderSummary::fields();
    let header = Order::fields();
    singletable::Transaction::new()
        .update(OrderSummary::update(&order.user_id, &order.order_id).set(summary.status, to))
        .update(
            Order::update(&order.order_id)
                .set(header.status, to)
                .only_if(header.status.eq(&from)),
        )
        .execute(db)
        .await?;
    let mut updated = order.clone();
    updated.status = to;
    Ok(updated)
}

/// Writes the sample data.
pub async fn seed<E: Executor>(db: &Db<E>, data: &Seeded) -> Result<()> {
    for u in &data.users {
        db.put(u).await?;
    }
    for p in &data.products {
        db.put(p).await?;
    }
    for (order, items) in &data.orders {
        place_order(db, order, items).await?;
    }
    Ok(())
}

/// Writes the sample data, runs every access pattern and prints the results,
/// moves an order from PENDING to SHIPPED, and pages through a cursor.
pub async fn tour<E: Executor>(db: &Db<E>) -> Result<()> {
    let data = sample();
    seed(db, &data).await?;
    println!(
        "wrote {} users, {} products, {} orders (summary + header + items, one transaction each)\n",
        data.users.len(),
        data.products.len(),
        data.orders.len()
    );

    // 1. User by id: GetItem.
    let ana: Option<User> = db.get::<User>(User::key("u-ana")?).await?;
    println!("user by id u-ana: {ana:?}");

    // 2. User by email: Query on GSI1.
    let by_email = User::user_by_email("bruno@example.com").first(db).await?;
    println!("user by email bruno@example.com: {by_email:?}");

    // 3. A user's orders, newest first: Query PK=USER#u-ana, SK begins_with ORDER#.
    let orders = OrderSummary::orders_of_user("u-ana")
        .newest_first()
        .all(db)
        .await?;
    println!("orders of u-ana, newest first:");
    for o in &orders {
        println!(
            "  {} {} {:.2} {}",
            o.order_id, o.status, o.total, o.created_at
        );
    }

    // 4. An order with all its items: one Query on PK=ORDER#o-1004.
    let details = OrderWithItems::query(Order::partition("o-1004")?)
        .all(db)
        .await?;
    println!(
        "order o-1004 with its items ({} items in one query):",
        details.len()
    );
    for d in &details {
        match d {
            OrderWithItems::Order(o) => {
                println!("  header: {} {} {:.2}", o.order_id, o.status, o.total)
            }
            OrderWithItems::Item(i) => println!(
                "  item {}: {} x{} at {:.2}",
                i.item_id, i.product_id, i.quantity, i.price
            ),
        }
    }

    // 5. Orders by status: Query GSI1 ORDERSTATUS#PENDING.
    let pending = Order::orders_by_status(&OrderStatus::Pending)
        .all(db)
        .await?;
    println!(
        "pending orders: {:?}",
        pending.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // 6. Orders in a date range: Query GSI2 ORDERBYDATE, SK between two dates.
    let may = Order::orders_by_date()
        .sk_between("2024-05-08", "2024-05-21")
        .all(db)
        .await?;
    println!(
        "orders 2024-05-08..2024-05-21: {:?}",
        may.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // 6b. The same range on the sharded copy of the index: 4 concurrent
    //     queries merged in date order.
    let sharded = Order::orders_by_date_sharded()
        .sk_between("2024-05-08", "2024-05-21")
        .all(db)
        .await?;
    println!(
        "orders 2024-05-08..2024-05-21 (sharded index): {:?}",
        sharded.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // 7. Product by id: GetItem.
    let kbd = db.get::<Product>(Product::key("p-kbd")?).await?;
    println!("product p-kbd: {kbd:?}");

    // 8. Products by category: Query GSI1 CATEGORY#kitchen.
    let kitchen = Product::products_by_category("kitchen").all(db).await?;
    println!(
        "kitchen products: {:?}",
        kitchen.iter().map(|p| &p.name).collect::<Vec<_>>()
    );

    // 9. Published products: Query the sparse GSI2 (unpublished ones are not in it).
    let published = Product::published_products().all(db).await?;
    println!(
        "published products: {:?}",
        published.iter().map(|p| &p.name).collect::<Vec<_>>()
    );

    // Status change, only if still PENDING: summary and header in one transaction.
    let (order, _) = &data.orders[0];
    let shipped = change_status(db, order, OrderStatus::Pending, OrderStatus::Shipped).await?;
    println!("\n{} moved PENDING -> SHIPPED", shipped.order_id);
    let again = change_status(db, order, OrderStatus::Pending, OrderStatus::Shipped).await;
    println!(
        "moving it again from PENDING fails: {}",
        again.err().map(|e| e.to_string()).unwrap_or_default()
    );
    let shipped_now = Order::orders_by_status(&OrderStatus::Shipped)
        .all(db)
        .await?;
    println!(
        "shipped orders: {:?}",
        shipped_now.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // Pagination: two orders per page, the second page through the cursor.
    let first = Order::orders_by_date().limit(2).page(db, None).await?;
    println!(
        "\norders by date, page 1: {:?}",
        first.items.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );
    if let Some(cursor) = &first.cursor {
        println!("cursor: {cursor}");
        let second = Order::orders_by_date()
            .limit(2)
            .page(db, Some(cursor))
            .await?;
        println!(
            "orders by date, page 2: {:?}",
            second.items.iter().map(|o| &o.order_id).collect::<Vec<_>>()
        );
    }
    Ok(())
}
