//! The store of the reference documents, on the exact single-table layout
//! their boto3 code uses: table `AppTable`, keys `PK`/`SK`, indexes `GSI1`
//! and `GSI2`, entity type in `entityType`, attributes in camelCase.

use singletable::{Collection, Entity, StrEnum, Table};

/// The one table every entity of the store lives in.
#[derive(Table)]
#[table(
    name = "AppTable",
    gsi1,
    gsi2,
    gsi3,
    // Keyed on the orders' own attributes (a multi-attribute key): no
    // synthetic GSI4PK/GSI4SK, dates compared as dates within a status.
    gsi4(pk(status = S), sk(createdAt = S)),
    entities(User, OrderSummary, Order, OrderItem, Product),
    collections(OrderWithItems)
)]
pub struct AppTable;

/// Where an order is in its life.
#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    Pending,
    Shipped,
    Delivered,
    Cancelled,
}

/// A customer. Found by id (GetItem) or by email (GSI1).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = AppTable, name = "User", rename_all = "camelCase")]
#[pk("USER#<user_id>")]
#[sk("PROFILE")]
#[gsi1(pk = "USEREMAIL#<email>", sk = "USER#<user_id>")]
#[access(user_by_email, index = gsi1)]
pub struct User {
    pub user_id: String,
    pub name: String,
    #[attr(min_len = 3)]
    pub email: String,
    pub created_at: String,
}

/// An order as listed in its customer's partition, newest first.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = AppTable, name = "OrderSummary", rename_all = "camelCase")]
#[pk("USER#<user_id>")]
#[sk("ORDER#<order_id>")]
#[access(orders_of_user)]
pub struct OrderSummary {
    pub order_id: String,
    pub user_id: String,
    pub status: OrderStatus,
    pub total: f64,
    pub created_at: String,
}

/// An order's header, in the order's own partition beside its items.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = AppTable, name = "Order", rename_all = "camelCase")]
#[pk("ORDER#<order_id>")]
#[sk("DETAILS")]
#[gsi1(pk = "ORDERSTATUS#<status>", sk = "ORDER#<order_id>")]
#[gsi2(pk = "ORDERBYDATE", sk = "DATE#<created_at>")]
// The same pattern without the single hot `ORDERBYDATE` partition: writes
// spread over 4 shards, queries read the 4 concurrently and merge by date.
#[gsi3(pk = "ORDERBYDATE", sk = "DATE#<created_at>", shards = 4)]
// Orders of a status in a date range, on the orders' own `status` and
// `createdAt` attributes.
#[gsi4(pk(status), sk(created_at))]
#[access(orders_by_status, index = gsi1)]
#[access(orders_by_date, index = gsi2)]
#[access(orders_by_date_sharded, index = gsi3)]
#[access(orders_by_status_and_date, index = gsi4)]
pub struct Order {
    pub order_id: String,
    pub user_id: String,
    pub status: OrderStatus,
    pub total: f64,
    pub created_at: String,
}

/// One line of an order.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = AppTable, name = "OrderItem", rename_all = "camelCase")]
#[pk("ORDER#<order_id>")]
#[sk("ITEM#<item_id>")]
#[access(items_of_order)]
pub struct OrderItem {
    pub item_id: String,
    pub order_id: String,
    pub product_id: String,
    #[attr(min = 1)]
    pub quantity: u32,
    pub price: f64,
}

/// A product; only published ones are in the sparse GSI2.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = AppTable, name = "Product", rename_all = "camelCase")]
#[pk("PRODUCT#<product_id>")]
#[sk("DETAILS")]
#[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<product_id>")]
#[gsi2(pk = "PUBLISHED", sk = "PRODUCT#<product_id>", when = published)]
#[access(products_by_category, index = gsi1)]
#[access(published_products, index = gsi2)]
pub struct Product {
    pub product_id: String,
    pub category: String,
    pub name: String,
    pub price: f64,
    pub published: bool,
}

/// An order with all its items: one Query on `ORDER#<orderId>`.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderWithItems {
    Order(Order),
    Item(OrderItem),
}
