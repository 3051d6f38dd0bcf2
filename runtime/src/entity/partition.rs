//! Partitions: a partition key value typed by the entity that built it
//! and by where it lies (the table or a global index).

/// Where a [`Partition`] lies: the table (and its local indexes, which
/// share the table's partition key).
///
/// ```
/// use singletable::entity::OnTablePartition;
/// use singletable::{Entity, Partition, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// pub struct Order { pub id: String }
///
/// let p: Partition<Order, OnTablePartition> = Order::partition("o1")?;
/// assert_eq!(p.into_value(), "ORDER#o1");
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTablePartition {}

/// Where a [`Partition`] lies: global index `gsi<N>`, whose partition key
/// is its own attribute (`GSI<N>PK`).
///
/// ```
/// use singletable::entity::OnGsi;
/// use singletable::{Entity, Partition, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// pub struct Order { pub id: String, pub customer: String }
///
/// let p: Partition<Order, OnGsi<1>> = Order::gsi1_partition("c1")?;
/// assert_eq!(p.value(), "CUSTOMER#c1");
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnGsi<const N: u8> {}

/// A partition key value built by entity `E`'s generated `partition(...)`
/// (on the table; `P` is [`OnTablePartition`]) or `gsi<N>_partition(...)`
/// (on global index `gsi<N>`; `P` is [`OnGsi<N>`]) from typed field
/// values: the typed way to name a partition for a multi-entity query
/// (`#[derive(Collection)]`).
///
/// It is typed by the entity whose template built it and by where it
/// lies, so a collection accepts only its members' partitions of its own
/// index (see [`PartitionOf`]): another entity's partition, a table
/// partition for an index collection or one index's for another's is a
/// compile error on the argument.
///
/// ```
/// use singletable::{Entity, Partition, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App, name = "Repo")]
/// #[pk("REPO#<owner>#<name>")]
/// #[sk("REPO")]
/// #[gsi1(pk = "ACCOUNT#<owner>", sk = "REPO#<name>")]
/// pub struct Repo {
///     pub owner: String,
///     pub name: String,
/// }
///
/// let table = Repo::partition("ana", "db").unwrap();
/// assert_eq!(table.value(), "REPO#ana#db");
/// let index = Repo::gsi1_partition("ana").unwrap();
/// assert_eq!(index.value(), "ACCOUNT#ana");
/// assert_eq!(index.into_value(), "ACCOUNT#ana");
/// ```
pub struct Partition<E, P = OnTablePartition> {
    pk: String,
    _entity: std::marker::PhantomData<fn() -> (E, P)>,
}

impl<E, P> Partition<E, P> {
    /// The partition `pk` (generated builders reach it through
    /// `__private::partition`).
    pub(crate) fn new(pk: String) -> Self {
        Self {
            pk,
            _entity: std::marker::PhantomData,
        }
    }

    /// The partition key value.
    pub fn value(&self) -> &str {
        &self.pk
    }

    /// The partition key value, owned.
    pub fn into_value(self) -> String {
        self.pk
    }
}

impl<E, P> Clone for Partition<E, P> {
    fn clone(&self) -> Self {
        Self::new(self.pk.clone())
    }
}

impl<E, P> PartialEq for Partition<E, P> {
    fn eq(&self, other: &Self) -> bool {
        self.pk == other.pk
    }
}

impl<E, P> Eq for Partition<E, P> {}

impl<E, P> std::fmt::Debug for Partition<E, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partition")
            .field("entity", &std::any::type_name::<E>())
            .field("pk", &self.pk)
            .finish()
    }
}

/// A partition of the multi-attribute global index `gsi<N>`, built by
/// entity `E`'s generated `gsi<N>_partition(...)` from typed field values:
/// the values of the index's partition attributes, for the collections
/// read from that index (see [`PartitionOf`]).
///
/// ```
/// use singletable::{AttributeValue, Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "Desk", gsi2(pk(tenantId = S), sk(entityType = S, createdAt = N)))]
/// pub struct Desk;
///
/// #[derive(Entity)]
/// #[entity(table = Desk, rename_all = "camelCase")]
/// #[pk("CASE#<id>")]
/// #[sk("CASE")]
/// #[gsi2(pk(tenant_id), sk(created_at))]
/// pub struct Case { pub id: String, pub tenant_id: String, pub created_at: i64 }
///
/// let p = Case::gsi2_partition("acme")?;
/// assert_eq!(p.values(), [("tenantId", AttributeValue::S("acme".into()))]);
/// # Ok::<(), singletable::Error>(())
/// ```
pub struct AttrPartition<E, const N: u8> {
    values: Vec<(&'static str, singletable_core::value::AttributeValue)>,
    _entity: std::marker::PhantomData<fn() -> E>,
}

impl<E, const N: u8> AttrPartition<E, N> {
    /// The partition of these attribute values (generated builders reach
    /// it through `__private::attr_partition`).
    pub(crate) fn new(
        values: Vec<(&'static str, singletable_core::value::AttributeValue)>,
    ) -> Self {
        Self {
            values,
            _entity: std::marker::PhantomData,
        }
    }

    /// The partition attributes and their values, in key-schema order.
    pub fn values(&self) -> &[(&'static str, singletable_core::value::AttributeValue)] {
        &self.values
    }

    /// The partition attributes and their values, owned.
    ///
    /// ```
    /// # use singletable::{AttributeValue, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Desk", gsi2(pk(tenantId = S), sk(entityType = S, createdAt = N)))]
    /// # pub struct Desk;
    /// # #[derive(Entity)]
    /// # #[entity(table = Desk, rename_all = "camelCase")]
    /// # #[pk("CASE#<id>")]
    /// # #[sk("CASE")]
    /// # #[gsi2(pk(tenant_id), sk(created_at))]
    /// # pub struct Case { pub id: String, pub tenant_id: String, pub created_at: i64 }
    /// let values = Case::gsi2_partition("acme")?.into_values();
    /// assert_eq!(values, vec![("tenantId", AttributeValue::S("acme".into()))]);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn into_values(self) -> Vec<(&'static str, singletable_core::value::AttributeValue)> {
        self.values
    }
}

impl<E, const N: u8> Clone for AttrPartition<E, N> {
    fn clone(&self) -> Self {
        Self::new(self.values.clone())
    }
}

impl<E, const N: u8> PartialEq for AttrPartition<E, N> {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl<E, const N: u8> std::fmt::Debug for AttrPartition<E, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttrPartition")
            .field("entity", &std::any::type_name::<E>())
            .field("values", &self.values)
            .finish()
    }
}

/// What collection `C` reads: a [`Partition`] or [`AttrPartition`] built
/// by one of its members, on the collection's own index.
/// `#[derive(Collection)]` implements it for each member; a partition of
/// an entity that is not a member, or of another index, does not compile.
///
/// ```
/// use singletable_runtime::entity::{PartitionKey, PartitionOf};
/// use singletable::{Collection, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug)]
/// # #[entity(table = App)]
/// # #[pk("ORDER#<id>")]
/// # #[sk("ORDER")]
/// # pub struct Order { pub id: String }
/// # #[derive(Entity, Debug)]
/// # #[entity(table = App)]
/// # #[pk("ORDER#<id>")]
/// # #[sk("LINE#<n>")]
/// # pub struct Line { pub id: String, pub n: u32 }
/// #[derive(Collection, Debug)]
/// pub enum OrderWithLines { Order(Order), Line(Line) }
///
/// let p = PartitionOf::<OrderWithLines>::into_partition_key(Line::partition("o1")?);
/// assert_eq!(p, PartitionKey::Text("ORDER#o1".into()));
/// # Ok::<(), singletable::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a partition that collection `{C}` reads",
    label = "not a partition of `{C}`",
    note = "pass the `partition(..)` (or, on an index, the `gsiN_partition(..)`) of one of `{C}`'s members"
)]
pub trait PartitionOf<C> {
    /// The partition as a query names it.
    fn into_partition_key(self) -> PartitionKey;
}

/// A partition as a query names it: a key value, or the values of a
/// multi-attribute key's partition attributes ([`PartitionOf`]).
///
/// ```
/// use singletable_runtime::entity::PartitionKey;
/// assert_ne!(PartitionKey::Text("A".into()), PartitionKey::Attributes(Vec::new()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum PartitionKey {
    /// The partition key value of a template index.
    Text(String),
    /// The partition attributes of a multi-attribute index, in order.
    Attributes(Vec<(&'static str, singletable_core::value::AttributeValue)>),
}
