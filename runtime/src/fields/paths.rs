//! The traits of typed paths: what a condition compares a path with
//! ([`ValueFor`]), and the condition methods of every path
//! ([`FieldPath`]), of string paths ([`StringPath`]) and of list and set
//! paths ([`CollectionPath`]).

use super::*;

/// A value a condition compares with a path of type `T`: a `&T`, and for
/// `String` paths a `&str` too (`f.status.eq("OPEN")`); for `Option<T>`
/// paths a `&T` (or a `&str`) compares with the value inside.
///
/// Values are borrowed, never moved: an impl for owned values would make
/// clippy's `needless_borrows_for_generic_args` flag every `f.x.eq(&v)` of
/// a `Copy` value.
///
/// ```
/// use singletable::fields::ValueFor;
///
/// fn compares_with_string<V: ValueFor<String>>(v: V) -> singletable::AttributeValue {
///     v.to_value().unwrap()
/// }
/// assert_eq!(compares_with_string("OPEN"), compares_with_string(&"OPEN".to_string()));
/// fn compares_with_u8<V: ValueFor<Option<u8>>>(_: V) {}
/// compares_with_u8(&3u8); // an `Option<u8>` field compares with the value inside
/// ```
pub trait ValueFor<T> {
    /// The value as DynamoDB receives it.
    fn to_value(self) -> Result<AttributeValue, EncodeError>;
}

impl<T: Attr> ValueFor<T> for &T {
    fn to_value(self) -> Result<AttributeValue, EncodeError> {
        self.to_attr()
    }
}

impl<T: Attr> ValueFor<Option<T>> for &T {
    fn to_value(self) -> Result<AttributeValue, EncodeError> {
        self.to_attr()
    }
}

impl ValueFor<String> for &str {
    fn to_value(self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::S(self.to_owned()))
    }
}

impl ValueFor<Option<String>> for &str {
    fn to_value(self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::S(self.to_owned()))
    }
}

/// What every field handle and typed path offers: where it points, and
/// typed conditions on the value there. The handles have these methods as
/// their own too, so calls need no import; generic code names the trait.
///
/// ```
/// use singletable::{Entity, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug, Clone)]
/// #[entity(table = App, name = "Ticket")]
/// #[pk("TICKET#<id>")]
/// #[sk("TICKET")]
/// pub struct Ticket {
///     pub id: String,
///     pub status: String,
///     pub priority: u8,
/// }
///
/// let f = Ticket::fields();
/// // `&str` for a `String` field; the condition is typed by the entity.
/// let c = f.status.eq("OPEN").and(f.priority.ge(&2)).or(f.id.begins_with("urgent-"));
/// assert!(c.into_condition().is_ok());
/// ```
pub trait FieldPath<E: Entity, T: Attr>: Sized {
    /// The stored top-level attribute the path starts at.
    fn attribute(&self) -> &'static str;
    /// The Rust name of the field the path names: the entity's field, or
    /// for a path into a nested document the document's field.
    fn field_name(&self) -> &'static str;
    /// The steps below the attribute (none for a field handle).
    fn steps(&self) -> &[PathStep] {
        &[]
    }
    /// The whole document path.
    fn path(&self) -> Path {
        let mut p = Path::new(self.attribute());
        for step in self.steps() {
            p = match step {
                PathStep::Key(k) => p.key(k.as_str()),
                PathStep::Index(i) => p.index(*i),
            };
        }
        p
    }

    /// `path = value`
    fn eq(self, value: impl ValueFor<T>) -> Cond<E> {
        compare(self, Cmp::Eq, value)
    }
    /// `path <> value`
    fn ne(self, value: impl ValueFor<T>) -> Cond<E> {
        compare(self, Cmp::Ne, value)
    }
    /// `path < value`
    fn lt(self, value: impl ValueFor<T>) -> Cond<E> {
        compare(self, Cmp::Lt, value)
    }
    /// `path <= value`
    fn le(self, value: impl ValueFor<T>) -> Cond<E> {
        compare(self, Cmp::Le, value)
    }
    /// `path > value`
    fn gt(self, value: impl ValueFor<T>) -> Cond<E> {
        compare(self, Cmp::Gt, value)
    }
    /// `path >= value`
    fn ge(self, value: impl ValueFor<T>) -> Cond<E> {
        compare(self, Cmp::Ge, value)
    }
    /// `path BETWEEN low AND high`
    fn between(self, low: impl ValueFor<T>, high: impl ValueFor<T>) -> Cond<E> {
        let attribute = self.attribute();
        let path = self.path();
        Cond::build(|| {
            Ok(Condition::Between(
                Operand::Path(path),
                Operand::Value(encode::<E, T>(attribute, low)?),
                Operand::Value(encode::<E, T>(attribute, high)?),
            ))
        })
    }
    /// `path IN (v1, v2, …)` (1 to 100 values)
    // Named after the operator; the handle is consumed like every builder.
    #[allow(clippy::wrong_self_convention)]
    fn is_in<V: ValueFor<T>>(self, values: impl IntoIterator<Item = V>) -> Cond<E> {
        let attribute = self.attribute();
        let path = self.path();
        Cond::build(|| {
            let list = values
                .into_iter()
                .map(|v| encode::<E, T>(attribute, v).map(Operand::Value))
                .collect::<Result<Vec<_>, _>>()?;
            if list.is_empty() || list.len() > 100 {
                return Err(Error::Refused(Refusal::InListSize { len: list.len() }));
            }
            Ok(Condition::In(Operand::Path(path), list))
        })
    }
    /// `attribute_exists(path)`
    fn exists(self) -> Cond<E> {
        Cond::ok(Condition::exists(self.path()))
    }
    /// `attribute_not_exists(path)`
    fn not_exists(self) -> Cond<E> {
        Cond::ok(Condition::not_exists(self.path()))
    }
    /// `attribute_type(path, type)` with a DynamoDB type name (`S`, `N`,
    /// `B`, `BOOL`, `NULL`, `L`, `M`, `SS`, `NS`, `BS`).
    fn has_type(self, dynamodb_type: &'static str) -> Cond<E> {
        Cond::ok(Condition::AttributeType(self.path(), dynamodb_type))
    }
    /// `size(path) <op> n`: string length, binary length, or number of
    /// elements.
    fn size(self, op: Cmp, n: u64) -> Cond<E> {
        Cond::ok(Condition::Compare(
            Operand::Size(self.path()),
            op,
            Operand::Value(AttributeValue::N(n.to_string())),
        ))
    }
}

/// `begins_with` and `contains` on string fields and paths.
///
/// ```
/// use singletable::{StringPath};
/// use singletable_runtime::{expr::Rendered};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("ORDER#<order_id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
/// # pub struct Order {
/// #     pub order_id: String,
/// #     pub status: String,
/// #     pub total_cents: u64,
/// #     pub tags: Vec<String>,
/// # }
///
/// let c = Order::fields().status.contains("SHIP").into_condition()?;
/// assert_eq!(Rendered::default().condition(&c), "contains(#n0, :v0)");
/// # Ok::<(), singletable::Error>(())
/// ```
pub trait StringPath<E: Entity>: FieldPath<E, String> {
    /// `begins_with(path, prefix)`
    fn begins_with(self, prefix: &str) -> Cond<E> {
        Cond::ok(Condition::BeginsWith(
            self.path(),
            AttributeValue::S(prefix.to_owned()),
        ))
    }
    /// `contains(path, text)`: substring.
    fn contains(self, text: &str) -> Cond<E> {
        Cond::ok(Condition::Contains(
            self.path(),
            AttributeValue::S(text.to_owned()),
        ))
    }
}

impl<E: Entity, F: FieldPath<E, String>> StringPath<E> for F {}

/// `contains` on list and set fields and paths.
///
/// ```
/// use singletable::{CollectionPath};
/// use singletable_runtime::{expr::Rendered};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App, rename_all = "camelCase")]
/// # #[pk("ORDER#<order_id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>")]
/// # pub struct Order {
/// #     pub order_id: String,
/// #     pub status: String,
/// #     pub total_cents: u64,
/// #     pub tags: Vec<String>,
/// # }
///
/// let c = Order::fields().tags.contains_element(&"gift".to_string()).into_condition()?;
/// assert_eq!(Rendered::default().condition(&c), "contains(#n0, :v0)");
/// # Ok::<(), singletable::Error>(())
/// ```
pub trait CollectionPath<E: Entity, T: Attr, V: Attr>: FieldPath<E, T> {
    /// `contains(path, element)`
    fn contains_element(self, element: impl ValueFor<V>) -> Cond<E> {
        let attribute = self.attribute();
        let path = self.path();
        Cond::build(|| {
            Ok(Condition::Contains(
                path,
                encode::<E, V>(attribute, element)?,
            ))
        })
    }
}

impl<E: Entity, V: Attr, F: FieldPath<E, Vec<V>>> CollectionPath<E, Vec<V>, V> for F {}
impl<E: Entity, V: Attr + Ord, F: FieldPath<E, std::collections::BTreeSet<V>>>
    CollectionPath<E, std::collections::BTreeSet<V>, V> for F
where
    std::collections::BTreeSet<V>: Attr,
{
}

fn encode<E: Entity, T>(attribute: &str, value: impl ValueFor<T>) -> Result<AttributeValue, Error> {
    value.to_value().map_err(|e| Error::Encode {
        entity: E::ENTITY_TYPE,
        source: e.at(attribute),
    })
}

fn compare<E: Entity, T: Attr, F: FieldPath<E, T>>(
    f: F,
    op: Cmp,
    value: impl ValueFor<T>,
) -> Cond<E> {
    let attribute = f.attribute();
    let path = f.path();
    Cond::build(|| {
        Ok(Condition::Compare(
            Operand::Path(path),
            op,
            Operand::Value(encode::<E, T>(attribute, value)?),
        ))
    })
}
