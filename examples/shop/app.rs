//! What the shop does, shared by the example binary and the tests.

use singletable::{Db, Executor, FieldPath, Result};

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
    let mut tx = db.transaction().put(&order.summary()).create(order);
    for item in items {
        tx = tx.put(item);
    }
    tx.execute().await
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
    db.transaction()
        .update(OrderSummary::update(&order.user_id, &order.order_id).set(summary.status, to))
        .update(
            Order::update(&order.order_id)
                .set(header.status, to)
                .only_if(header.status.eq(&from)),
        )
        .execute()
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
