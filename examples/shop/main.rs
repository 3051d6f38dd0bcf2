//! The store of the reference documents on singletable.
//!
//! Run it against DynamoDB Local with `scripts/dynamodb-local.sh cargo run
//! --example shop`, or against any endpoint with `DYNAMODB_ENDPOINT` set.
//! `TABLE_NAME` picks the table (default `AppTable`). It creates the table
//! when missing, writes the sample data, runs every access pattern and
//! leaves the data in the table. `cargo run --example shop -- --design`
//! prints the design document generated from the declarations.

mod app;
mod model;

use model::*;
use singletable::{Db, Result};

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<()> {
    if std::env::args().any(|a| a == "--design") {
        // The single-table design document, generated from the declarations.
        print!("{}", singletable::design::document::<AppTable>());
        return Ok(());
    }
    let table = std::env::var("TABLE_NAME").unwrap_or_else(|_| "AppTable".to_owned());
    let db = Db::from_env(table).await;
    if db.create_table_if_missing::<AppTable>().await? {
        println!("created table {}", db.table_name());
    }
    let data = app::sample();
    app::seed(&db, &data).await?;
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
    let by_email = User::user_by_email("bruno@example.com").first(&db).await?;
    println!("user by email bruno@example.com: {by_email:?}");

    // 3. A user's orders, newest first: Query PK=USER#u-ana, SK begins_with ORDER#.
    let orders = OrderSummary::orders_of_user("u-ana")
        .newest_first()
        .all(&db)
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
        .all(&db)
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
        .all(&db)
        .await?;
    println!(
        "pending orders: {:?}",
        pending.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // 6. Orders in a date range: Query GSI2 ORDERBYDATE, SK between two dates.
    let may = Order::orders_by_date()
        .sk_between("2024-05-08", "2024-05-21")
        .all(&db)
        .await?;
    println!(
        "orders 2024-05-08..2024-05-21: {:?}",
        may.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // 6b. The same range on the sharded copy of the index: 4 concurrent
    //     queries merged in date order.
    let sharded = Order::orders_by_date_sharded()
        .sk_between("2024-05-08", "2024-05-21")
        .all(&db)
        .await?;
    println!(
        "orders 2024-05-08..2024-05-21 (sharded index): {:?}",
        sharded.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // 7. Product by id: GetItem.
    let kbd = db.get::<Product>(Product::key("p-kbd")?).await?;
    println!("product p-kbd: {kbd:?}");

    // 8. Products by category: Query GSI1 CATEGORY#kitchen.
    let kitchen = Product::products_by_category("kitchen").all(&db).await?;
    println!(
        "kitchen products: {:?}",
        kitchen.iter().map(|p| &p.name).collect::<Vec<_>>()
    );

    // 9. Published products: Query the sparse GSI2 (unpublished ones are not in it).
    let published = Product::published_products().all(&db).await?;
    println!(
        "published products: {:?}",
        published.iter().map(|p| &p.name).collect::<Vec<_>>()
    );

    // Status change, only if still PENDING: summary and header in one transaction.
    let (order, _) = &data.orders[0];
    let shipped =
        app::change_status(&db, order, OrderStatus::Pending, OrderStatus::Shipped).await?;
    println!("\n{} moved PENDING -> SHIPPED", shipped.order_id);
    let again = app::change_status(&db, order, OrderStatus::Pending, OrderStatus::Shipped).await;
    println!(
        "moving it again from PENDING fails: {}",
        again.err().map(|e| e.to_string()).unwrap_or_default()
    );
    let shipped_now = Order::orders_by_status(&OrderStatus::Shipped)
        .all(&db)
        .await?;
    println!(
        "shipped orders: {:?}",
        shipped_now.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );

    // Pagination: two orders per page, the second page through the cursor.
    let first = Order::orders_by_date().limit(2).page(&db, None).await?;
    println!(
        "\norders by date, page 1: {:?}",
        first.items.iter().map(|o| &o.order_id).collect::<Vec<_>>()
    );
    if let Some(cursor) = &first.cursor {
        println!("cursor: {cursor}");
        let second = Order::orders_by_date()
            .limit(2)
            .page(&db, Some(cursor))
            .await?;
        println!(
            "orders by date, page 2: {:?}",
            second.items.iter().map(|o| &o.order_id).collect::<Vec<_>>()
        );
    }
    Ok(())
}
