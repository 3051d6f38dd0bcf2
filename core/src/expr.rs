//! Conditions, filters and key conditions as data, rendered into DynamoDB
//! expression text with placeholders only.
//!
//! Every attribute name becomes `#n<i>` and every value `:v<i>`, so reserved
//! words such as `name` or `status` just work and no value is ever parsed as
//! expression text. A [`Path`] into a document renders a placeholder for
//! each name it holds (`#n0.#n1[3]`), so a map key holding `.`, `[` or `#`
//! is one name, never a path.
//!
//! Conditions are usually written through an entity's typed field handles
//! (`Order::fields().status.eq(..)`, see `FieldPath`),
//! which give a `Cond` and turn into a [`Condition`]; this
//! module is the data underneath, and what a filter on attributes no
//! field names (another client's) is written with.
//!
//! ```
//! use singletable_core::expr::{Cmp, Condition, Operand, Rendered};
//! use singletable::AttributeValue;
//!
//! let c = Condition::eq("status", AttributeValue::S("SHIPPED".into()))
//!     .and(Condition::Compare(
//!         Operand::Size("items".into()),
//!         Cmp::Gt,
//!         Operand::Value(AttributeValue::N("0".into())),
//!     ));
//! let mut r = Rendered::default();
//! assert_eq!(r.condition(&c), "(#n0 = :v0 AND size(#n1) > :v1)");
//! assert_eq!(r.names["#n0"], "status"); // a reserved word, safe as a placeholder
//! ```

use std::collections::HashMap;

use crate::value::AttributeValue;

/// Comparison operators of DynamoDB's condition language.
///
/// ```
/// use singletable::{AttributeValue, Cmp, Condition, Operand};
/// use singletable_core::{expr::Rendered};
///
/// let c = Condition::Compare(
///     Operand::Path("total".into()),
///     Cmp::Ge,
///     Operand::Value(AttributeValue::N("100".into())),
/// );
/// assert_eq!(Rendered::default().condition(&c), "#n0 >= :v0");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// The operator as DynamoDB's expressions write it.
    ///
    /// ```
    /// use singletable::Cmp;
    ///
    /// assert_eq!(Cmp::Ne.symbol(), "<>");
    /// assert_eq!(Cmp::Ge.symbol(), ">=");
    /// ```
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "=",
            Cmp::Ne => "<>",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}

/// One step below the top-level attribute of a [`Path`].
///
/// ```
/// use singletable_core::expr::{Path, PathStep};
///
/// let p = Path::new("lines").index(3).key("price");
/// assert_eq!(p.steps(), [PathStep::Index(3), PathStep::Key("price".into())]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathStep {
    /// `.name`: an entry of a map, or a field of a nested document.
    Key(String),
    /// `[i]`: an element of a list.
    Index(usize),
}

/// A document path: a top-level attribute, then map keys (or nested
/// document fields) and list indexes, as in `address.city` or `lines[3]`.
///
/// Every name is sent as its own `#n` placeholder, so a key such as `"a.b"`
/// or `"x[0]"` names one map entry and reserved words need no care. A
/// top-level attribute name converts into a path with `.into()`.
///
/// ```
/// use singletable_core::expr::{Path, Rendered};
///
/// let p = Path::new("reviewers").key("ana.b[0]").key("approved");
/// let mut r = Rendered::default();
/// assert_eq!(r.path(p.as_ref()), "#n0.#n1.#n2");
/// assert_eq!(r.names["#n1"], "ana.b[0]");
/// assert_eq!(r.path(Path::new("lines").index(3).as_ref()), "#n3[3]");
///
/// // A path without steps is a top-level attribute name.
/// assert_eq!(p.attribute(), "reviewers");
/// assert_eq!(p.steps().len(), 2);
/// assert!(p.into_attribute().is_err());
/// assert_eq!(Path::new("hits").into_attribute(), Ok("hits".to_string()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path {
    attribute: String,
    steps: Vec<PathStep>,
}

impl Path {
    /// The top-level attribute `attribute`.
    pub fn new(attribute: impl Into<String>) -> Self {
        Self {
            attribute: attribute.into(),
            steps: Vec::new(),
        }
    }

    /// The entry `key` of the map at this path (or the field `key` of the
    /// document stored there).
    #[must_use]
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.steps.push(PathStep::Key(key.into()));
        self
    }

    /// The element `index` of the list at this path.
    #[must_use]
    pub fn index(mut self, index: usize) -> Self {
        self.steps.push(PathStep::Index(index));
        self
    }

    /// The top-level attribute the path starts at.
    pub fn attribute(&self) -> &str {
        &self.attribute
    }

    /// The steps below the top-level attribute.
    pub fn steps(&self) -> &[PathStep] {
        &self.steps
    }

    /// A borrowed view of the path.
    pub fn as_ref(&self) -> PathRef<'_> {
        PathRef {
            attribute: &self.attribute,
            steps: &self.steps,
        }
    }

    /// The top-level attribute name when the path has no steps.
    pub fn into_attribute(self) -> Result<String, Self> {
        if self.steps.is_empty() {
            Ok(self.attribute)
        } else {
            Err(self)
        }
    }
}

impl From<&str> for Path {
    fn from(attribute: &str) -> Self {
        Self::new(attribute)
    }
}

impl From<String> for Path {
    fn from(attribute: String) -> Self {
        Self::new(attribute)
    }
}

impl From<&String> for Path {
    fn from(attribute: &String) -> Self {
        Self::new(attribute.as_str())
    }
}

/// A borrowed [`Path`]: what renderers and evaluators read, for paths and
/// top-level attribute names alike.
///
/// ```
/// use singletable_core::expr::{Path, PathRef};
///
/// let top = PathRef::attribute("status");
/// assert_eq!(top.levels(), 1);
/// let deep = Path::new("address").key("city");
/// assert_eq!(deep.as_ref().levels(), 2); // DynamoDB allows 32
/// assert_eq!(deep.as_ref().to_path(), deep);
/// assert_eq!(top.to_path(), Path::new("status"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathRef<'a> {
    /// The top-level attribute.
    pub attribute: &'a str,
    /// The steps below it.
    pub steps: &'a [PathStep],
}

impl<'a> PathRef<'a> {
    /// The top-level attribute `attribute` as a path.
    pub fn attribute(attribute: &'a str) -> Self {
        Self {
            attribute,
            steps: &[],
        }
    }

    /// The owned path.
    pub fn to_path(self) -> Path {
        Path {
            attribute: self.attribute.to_owned(),
            steps: self.steps.to_vec(),
        }
    }

    /// Nesting levels as DynamoDB counts them: the attribute and each step
    /// (at most 32 in a request).
    pub fn levels(self) -> usize {
        1 + self.steps.len()
    }
}

/// An operand: an attribute path, a value, or the size of an attribute.
///
/// ```
/// use singletable::{AttributeValue, Cmp, Condition, Operand};
/// use singletable_core::{expr::Rendered};
///
/// // Two attributes compared with each other.
/// let c = Condition::Compare(Operand::Path("spent".into()), Cmp::Le, Operand::Path("budget".into()));
/// assert_eq!(Rendered::default().condition(&c), "#n0 <= #n1");
/// let c = Condition::Between(
///     Operand::Size("name".into()),
///     Operand::Value(AttributeValue::N("1".into())),
///     Operand::Value(AttributeValue::N("64".into())),
/// );
/// assert_eq!(Rendered::default().condition(&c), "size(#n0) BETWEEN :v0 AND :v1");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A document path (a top-level attribute converts with `.into()`).
    Path(Path),
    /// A literal value, always sent as a `:v` placeholder.
    Value(AttributeValue),
    /// `size(path)`.
    Size(Path),
}

/// A condition expression as data.
///
/// `Exists` and `NotExists` name a top-level attribute (the form the key
/// checks of every write use); `ExistsAt` and `NotExistsAt` take any
/// document path. [`Condition::exists`] and [`Condition::not_exists`] pick
/// the right one.
///
/// ```
/// use singletable::{AttributeValue, Condition, Db, Embedded, Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String, pub plan: String }
///
/// let free = Condition::eq("plan", AttributeValue::S("free".into()));
/// let trial = Condition::eq("plan", AttributeValue::S("trial".into()));
/// let either = free.clone().or(trial.clone());
/// assert!(matches!(either, Condition::Or(..)));
/// assert!(matches!(free.clone().and(trial.clone()), Condition::And(..)));
/// assert!(matches!(free.clone().not(), Condition::Not(..)));
/// assert_eq!(free.clone().and_maybe(None), free);
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "u1".into(), plan: "pro".into() }).await?;
/// // PutItem with ConditionExpression: refused, nothing written.
/// let r = db.put_if_raw(&User { id: "u1".into(), plan: "free".into() }, either).await;
/// assert!(matches!(r, Err(Error::ConditionFailed { .. })));
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `a <op> b`
    Compare(Operand, Cmp, Operand),
    /// `a BETWEEN lo AND hi`
    Between(Operand, Operand, Operand),
    /// `a IN (v1, v2, …)`
    In(Operand, Vec<Operand>),
    /// `begins_with(path, value)`
    BeginsWith(Path, AttributeValue),
    /// `contains(path, value)`
    Contains(Path, AttributeValue),
    /// `begins_with(path, other)`: the prefix is another attribute of the
    /// item (false when either is missing).
    BeginsWithPath(Path, Path),
    /// `contains(path, other)`: the element or substring is another
    /// attribute of the item (false when either is missing).
    ContainsPath(Path, Path),
    /// `attribute_exists(attribute)` on a top-level attribute.
    Exists(String),
    /// `attribute_not_exists(attribute)` on a top-level attribute.
    NotExists(String),
    /// `attribute_exists(path)` on a document path.
    ExistsAt(Path),
    /// `attribute_not_exists(path)` on a document path.
    NotExistsAt(Path),
    /// `attribute_type(path, type)` with a DynamoDB type name (`S`, `N`, …).
    AttributeType(Path, &'static str),
    /// `(a AND b)`
    And(Box<Condition>, Box<Condition>),
    /// `(a OR b)`
    Or(Box<Condition>, Box<Condition>),
    /// `(NOT a)`
    Not(Box<Condition>),
}

impl Condition {
    /// `path = value`.
    pub fn eq(path: impl Into<Path>, value: AttributeValue) -> Self {
        Self::Compare(Operand::Path(path.into()), Cmp::Eq, Operand::Value(value))
    }

    /// `attribute_exists(path)`: [`Condition::Exists`] for a top-level
    /// attribute, [`Condition::ExistsAt`] for a deeper path.
    ///
    /// ```
    /// use singletable_core::expr::{Condition, Path, Rendered};
    ///
    /// assert_eq!(Condition::exists("PK"), Condition::Exists("PK".into()));
    /// let c = Condition::exists(Path::new("tags").key("a.b"));
    /// let mut r = Rendered::default();
    /// assert_eq!(r.condition(&c), "attribute_exists(#n0.#n1)");
    /// ```
    pub fn exists(path: impl Into<Path>) -> Self {
        match path.into().into_attribute() {
            Ok(attribute) => Self::Exists(attribute),
            Err(path) => Self::ExistsAt(path),
        }
    }

    /// `attribute_not_exists(path)`: [`Condition::NotExists`] for a
    /// top-level attribute, [`Condition::NotExistsAt`] for a deeper path.
    ///
    /// ```
    /// use singletable_core::expr::{Condition, Path, Rendered};
    ///
    /// assert_eq!(Condition::not_exists("PK"), Condition::NotExists("PK".into()));
    /// let deep = Condition::not_exists(Path::new("reviewers").key("ana"));
    /// assert_eq!(Rendered::default().condition(&deep), "attribute_not_exists(#n0.#n1)");
    /// ```
    pub fn not_exists(path: impl Into<Path>) -> Self {
        match path.into().into_attribute() {
            Ok(attribute) => Self::NotExists(attribute),
            Err(path) => Self::NotExistsAt(path),
        }
    }

    /// Both conditions.
    #[must_use]
    pub fn and(self, other: Condition) -> Self {
        Self::And(Box::new(self), Box::new(other))
    }

    /// Either condition.
    #[must_use]
    pub fn or(self, other: Condition) -> Self {
        Self::Or(Box::new(self), Box::new(other))
    }

    /// Both conditions, or this one alone when `other` is `None`.
    #[must_use]
    pub fn and_maybe(self, other: Option<Condition>) -> Self {
        match other {
            Some(o) => o.and(self),
            None => self,
        }
    }

    /// The negation.
    #[allow(clippy::should_implement_trait)]
    #[must_use]
    pub fn not(self) -> Self {
        Self::Not(Box::new(self))
    }
}

/// The sort-key part of a key condition. The generated query methods
/// (`sk_eq`, `sk_between`, `sk_begins_with`) build it from typed values.
///
/// ```
/// use singletable_core::expr::{KeyCondition, Rendered, SortCondition};
///
/// let k = KeyCondition {
///     pk_attr: "PK".into(),
///     pk: "USER#ana".into(),
///     sk: Some(("SK".into(), SortCondition::BeginsWith("ORDER#".into()))),
///     attrs: None,
/// };
/// let mut r = Rendered::default();
/// assert_eq!(r.key_condition(&k), "#n0 = :v0 AND begins_with(#n1, :v1)");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum SortCondition {
    /// `sk <op> value` (`<>` is not allowed in key conditions).
    Compare(Cmp, String),
    /// `sk BETWEEN lo AND hi`
    Between(String, String),
    /// `begins_with(sk, prefix)`
    BeginsWith(String),
}

/// A Query's key condition: partition key equality and an optional sort-key
/// condition, on the attribute names of the table or index queried (the
/// `KeyConditionExpression` of a Query).
///
/// ```
/// use singletable_core::expr::{KeyCondition, Rendered, SortCondition};
/// use singletable::Cmp;
///
/// let k = KeyCondition {
///     pk_attr: "GSI1PK".into(),
///     pk: "STATUS#NEW".into(),
///     sk: Some(("GSI1SK".into(), SortCondition::Compare(Cmp::Lt, "ORDER#5".into()))),
///     attrs: None,
/// };
/// assert_eq!(Rendered::default().key_condition(&k), "#n0 = :v0 AND #n1 < :v1");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCondition {
    /// Partition key attribute.
    pub pk_attr: String,
    /// Partition key value.
    pub pk: String,
    /// Sort key attribute and condition.
    pub sk: Option<(String, SortCondition)>,
    /// The key condition of a multi-attribute index, on typed values; when
    /// set, it is the whole condition and the fields above are unused.
    pub attrs: Option<AttrKeyCondition>,
}

impl KeyCondition {
    /// The condition as equalities and at most one range condition on
    /// typed values: what every key condition is, whatever its key.
    ///
    /// ```
    /// use singletable_core::expr::{AttrRange, KeyCondition, SortCondition};
    /// use singletable::AttributeValue;
    ///
    /// let k = KeyCondition { pk_attr: "PK".into(), pk: "USER#ana".into(), sk: Some(("SK".into(), SortCondition::BeginsWith("O#".into()))), attrs: None };
    /// let t = k.typed();
    /// assert_eq!(t.equal, [("PK".to_string(), AttributeValue::S("USER#ana".into()))]);
    /// assert_eq!(t.range, Some(("SK".to_string(), AttrRange::BeginsWith(AttributeValue::S("O#".into())))));
    /// ```
    pub fn typed(&self) -> AttrKeyCondition {
        if let Some(a) = &self.attrs {
            return a.clone();
        }
        let s = |v: &String| AttributeValue::S(v.clone());
        AttrKeyCondition {
            equal: vec![(self.pk_attr.clone(), s(&self.pk))],
            range: self.sk.as_ref().map(|(attr, c)| {
                let r = match c {
                    SortCondition::Compare(op, v) => AttrRange::Compare(*op, s(v)),
                    SortCondition::Between(lo, hi) => AttrRange::Between(s(lo), s(hi)),
                    SortCondition::BeginsWith(p) => {
                        AttrRange::BeginsWith(AttributeValue::S(p.clone()))
                    }
                };
                (attr.clone(), r)
            }),
        }
    }
}

/// A condition on one typed key attribute: the last condition of a key
/// condition, on the sort attribute after those compared for equality.
///
/// ```
/// use singletable_core::expr::AttrRange;
/// use singletable::{AttributeValue, Cmp};
///
/// let after = AttrRange::Compare(Cmp::Gt, AttributeValue::N("1700000000".into()));
/// assert_eq!(after.values().len(), 1);
/// let prefix = AttrRange::BeginsWith(AttributeValue::S("2024-".into()));
/// assert_eq!(prefix.values(), [AttributeValue::S("2024-".into())]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum AttrRange {
    /// `attr <op> value` (`<>` is not allowed in key conditions).
    Compare(Cmp, AttributeValue),
    /// `attr BETWEEN lo AND hi`, both included.
    Between(AttributeValue, AttributeValue),
    /// `begins_with(attr, prefix)`, on a string (`S` prefix) or binary
    /// (`B` prefix) attribute.
    BeginsWith(AttributeValue),
}

impl AttrRange {
    /// The values the condition compares with.
    pub fn values(&self) -> Vec<AttributeValue> {
        match self {
            AttrRange::Compare(_, v) => vec![v.clone()],
            AttrRange::Between(lo, hi) => vec![lo.clone(), hi.clone()],
            AttrRange::BeginsWith(p) => vec![p.clone()],
        }
    }
}

/// A key condition on typed attributes (DynamoDB's rules for a
/// multi-attribute key): equality on every partition attribute and on a
/// left-to-right prefix of the sort attributes, then at most one range
/// condition on the next sort attribute.
///
/// ```
/// use singletable_core::expr::{AttrKeyCondition, AttrRange, KeyCondition, Rendered};
/// use singletable::{AttributeValue, Cmp};
///
/// let attrs = AttrKeyCondition {
///     equal: vec![
///         ("tenantId".into(), AttributeValue::S("t1".into())),
///         ("status".into(), AttributeValue::S("OPEN".into())),
///     ],
///     range: Some(("createdAt".into(), AttrRange::Compare(Cmp::Ge, AttributeValue::N("5".into())))),
/// };
/// let k = KeyCondition { pk_attr: String::new(), pk: String::new(), sk: None, attrs: Some(attrs) };
/// assert_eq!(Rendered::default().key_condition(&k), "#n0 = :v0 AND #n1 = :v1 AND #n2 >= :v2");
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AttrKeyCondition {
    /// Attributes compared for equality, in key-schema order.
    pub equal: Vec<(String, AttributeValue)>,
    /// The range condition, on the sort attribute after the last one
    /// compared for equality.
    pub range: Option<(String, AttrRange)>,
}

/// Expression text plus its placeholder maps: what becomes a request's
/// `ExpressionAttributeNames` and `ExpressionAttributeValues`. One
/// `Rendered` serves every expression of a request, so names are shared.
///
/// ```
/// use singletable_core::expr::{Condition, Rendered};
/// use singletable_core::request::{SetValue, UpdateAction};
/// use singletable::AttributeValue;
///
/// let mut r = Rendered::default();
/// let update = r.update(&[
///     UpdateAction::Set("hits".into(), SetValue::Increment(AttributeValue::N("1".into()))),
///     UpdateAction::Remove("draft".into()),
/// ]);
/// assert_eq!(update, "SET #n0 = #n0 + :v0 REMOVE #n1");
/// let condition = r.condition(&Condition::Exists("hits".into()));
/// assert_eq!(condition, "attribute_exists(#n0)"); // the same name, the same placeholder
/// assert_eq!(r.projection(&["hits".into(), "title".into()]), "#n0, #n2");
/// assert_eq!(r.name("title"), "#n2");
/// assert_eq!(r.value(AttributeValue::Bool(true)), ":v1");
/// assert_eq!(r.names.len(), 3);
///
/// use singletable_core::expr::KeyCondition;
/// let key = KeyCondition { pk_attr: "PK".into(), pk: "USER#ana".into(), sk: None, attrs: None };
/// assert_eq!(r.key_condition(&key), "#n3 = :v2");
/// use singletable_core::expr::PathRef;
/// assert_eq!(r.path(PathRef::attribute("hits")), "#n0");
/// ```
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Rendered {
    /// `#n<i>` to attribute name.
    pub names: HashMap<String, String>,
    /// `:v<i>` to value.
    pub values: HashMap<String, AttributeValue>,
}

impl Rendered {
    /// The placeholder for an attribute name, reusing an existing one.
    pub fn name(&mut self, name: &str) -> String {
        if let Some((k, _)) = self.names.iter().find(|(_, v)| v.as_str() == name) {
            return k.clone();
        }
        let k = format!("#n{}", self.names.len());
        self.names.insert(k.clone(), name.to_owned());
        k
    }

    /// A fresh placeholder for a value.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let k = format!(":v{}", self.values.len());
        self.values.insert(k.clone(), value);
        k
    }

    /// A document path: a placeholder for each name, `[i]` for each index.
    pub fn path(&mut self, p: PathRef<'_>) -> String {
        let mut out = self.name(p.attribute);
        for step in p.steps {
            match step {
                PathStep::Key(k) => {
                    out.push('.');
                    out.push_str(&self.name(k));
                }
                PathStep::Index(i) => {
                    out.push('[');
                    out.push_str(itoa::Buffer::new().format(*i));
                    out.push(']');
                }
            }
        }
        out
    }

    fn operand(&mut self, op: &Operand) -> String {
        match op {
            Operand::Path(p) => self.path(p.as_ref()),
            Operand::Value(v) => self.value(v.clone()),
            Operand::Size(p) => format!("size({})", self.path(p.as_ref())),
        }
    }

    /// Renders a condition, adding its placeholders.
    pub fn condition(&mut self, c: &Condition) -> String {
        match c {
            Condition::Compare(a, op, b) => {
                let a = self.operand(a);
                let b = self.operand(b);
                format!("{a} {} {b}", op.symbol())
            }
            Condition::Between(a, lo, hi) => {
                let a = self.operand(a);
                let lo = self.operand(lo);
                let hi = self.operand(hi);
                format!("{a} BETWEEN {lo} AND {hi}")
            }
            Condition::In(a, list) => {
                let a = self.operand(a);
                let list: Vec<String> = list.iter().map(|o| self.operand(o)).collect();
                format!("{a} IN ({})", list.join(", "))
            }
            Condition::BeginsWith(p, v) => {
                let p = self.path(p.as_ref());
                let v = self.value(v.clone());
                format!("begins_with({p}, {v})")
            }
            Condition::Contains(p, v) => {
                let p = self.path(p.as_ref());
                let v = self.value(v.clone());
                format!("contains({p}, {v})")
            }
            Condition::BeginsWithPath(p, q) | Condition::ContainsPath(p, q) => {
                let f = if matches!(c, Condition::BeginsWithPath(..)) {
                    "begins_with"
                } else {
                    "contains"
                };
                let p = self.path(p.as_ref());
                let q = self.path(q.as_ref());
                format!("{f}({p}, {q})")
            }
            Condition::Exists(p) => format!("attribute_exists({})", self.name(p)),
            Condition::NotExists(p) => format!("attribute_not_exists({})", self.name(p)),
            Condition::ExistsAt(p) => format!("attribute_exists({})", self.path(p.as_ref())),
            Condition::NotExistsAt(p) => {
                format!("attribute_not_exists({})", self.path(p.as_ref()))
            }
            Condition::AttributeType(p, t) => {
                let p = self.path(p.as_ref());
                let t = self.value(AttributeValue::S((*t).to_owned()));
                format!("attribute_type({p}, {t})")
            }
            Condition::And(a, b) => {
                let a = self.condition(a);
                let b = self.condition(b);
                format!("({a} AND {b})")
            }
            Condition::Or(a, b) => {
                let a = self.condition(a);
                let b = self.condition(b);
                format!("({a} OR {b})")
            }
            Condition::Not(a) => format!("(NOT {})", self.condition(a)),
        }
    }

    /// Renders a key condition.
    pub fn key_condition(&mut self, k: &KeyCondition) -> String {
        let k = k.typed();
        let mut parts = Vec::with_capacity(k.equal.len() + 1);
        for (attr, v) in k.equal {
            let n = self.name(&attr);
            let v = self.value(v);
            parts.push(format!("{n} = {v}"));
        }
        if let Some((attr, cond)) = k.range {
            let n = self.name(&attr);
            parts.push(match cond {
                AttrRange::Compare(op, v) => format!("{n} {} {}", op.symbol(), self.value(v)),
                AttrRange::Between(lo, hi) => {
                    let lo = self.value(lo);
                    let hi = self.value(hi);
                    format!("{n} BETWEEN {lo} AND {hi}")
                }
                AttrRange::BeginsWith(p) => format!("begins_with({n}, {})", self.value(p)),
            });
        }
        parts.join(" AND ")
    }

    /// Renders a projection of document paths, every name a placeholder.
    pub fn projection(&mut self, paths: &[Path]) -> String {
        paths
            .iter()
            .map(|p| self.path(p.as_ref()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_and_values_are_placeholders() {
        let mut r = Rendered::default();
        let c = Condition::eq("status", AttributeValue::S("x) OR (1=1".into()))
            .and(Condition::NotExists("name".into()));
        let text = r.condition(&c);
        assert_eq!(text, "(#n0 = :v0 AND attribute_not_exists(#n1))");
        assert_eq!(r.names["#n0"], "status");
        assert_eq!(r.values[":v0"], AttributeValue::S("x) OR (1=1".into()));
    }
}
