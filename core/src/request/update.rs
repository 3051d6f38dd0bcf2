//! UpdateItem as data: the actions (`SET`, `REMOVE`, `ADD`, `DELETE`),
//! their values and operands, the request, and the rendering of an update
//! expression from its actions.

use super::*;

/// The value side of a `SET` action.
///
/// ```
/// use singletable_core::expr::Rendered;
/// use singletable_core::request::{SetValue, UpdateAction};
/// use singletable::AttributeValue;
///
/// let one = AttributeValue::N("1".into());
/// let mut r = Rendered::default();
/// let text = r.update(&[
///     UpdateAction::Set("a".into(), SetValue::Value(one.clone())),
///     UpdateAction::Set("b".into(), SetValue::IfNotExists(one.clone())),
///     UpdateAction::Set("c".into(), SetValue::Append(AttributeValue::L(vec![]))),
///     UpdateAction::Set("d".into(), SetValue::Prepend(AttributeValue::L(vec![]))),
///     UpdateAction::Set("e".into(), SetValue::Increment(one)),
/// ]);
/// assert_eq!(
///     text,
///     "SET #n0 = :v0, #n1 = if_not_exists(#n1, :v1), #n2 = list_append(#n2, :v2), \
///      #n3 = list_append(:v3, #n3), #n4 = #n4 + :v4"
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    /// `SET a = :v`
    Value(crate::value::AttributeValue),
    /// `SET a = if_not_exists(a, :v)`
    IfNotExists(crate::value::AttributeValue),
    /// `SET a = list_append(a, :v)`
    Append(crate::value::AttributeValue),
    /// `SET a = list_append(:v, a)`
    Prepend(crate::value::AttributeValue),
    /// `SET a = a + :v` (atomic increment, the attribute must exist)
    Increment(crate::value::AttributeValue),
    /// Any other right-hand side DynamoDB accepts: other attributes as
    /// operands, arithmetic between two operands, nested functions
    /// (`SET a = b`, `SET a = b + :v`, `SET a = :v - b`,
    /// `SET l = list_append(:v, if_not_exists(l, :empty))`).
    Expr(SetOperand),
}

/// A `SET` right-hand side in DynamoDB's general form
/// ([`SetValue::Expr`]): every operand a path, a value or a function of
/// them. Paths are read from the item as it was before the update.
///
/// ```
/// use singletable_core::expr::Rendered;
/// use singletable_core::request::{SetOperand, SetValue, UpdateAction};
/// use singletable::AttributeValue;
///
/// let total = SetOperand::Plus(
///     Box::new(SetOperand::Path("price".into())),
///     Box::new(SetOperand::IfNotExists("tax".into(), Box::new(SetOperand::Value(AttributeValue::N("0".into()))))),
/// );
/// let mut r = Rendered::default();
/// let text = r.update(&[UpdateAction::Set("total".into(), SetValue::Expr(total))]);
/// assert_eq!(text, "SET #n0 = #n1 + if_not_exists(#n2, :v0)");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum SetOperand {
    /// `:v`
    Value(crate::value::AttributeValue),
    /// An attribute of the item (the target itself or another).
    Path(crate::expr::Path),
    /// `if_not_exists(path, operand)`: the attribute if it exists, else the
    /// operand.
    IfNotExists(crate::expr::Path, Box<SetOperand>),
    /// `list_append(first, second)`: two lists, one after the other.
    ListAppend(Box<SetOperand>, Box<SetOperand>),
    /// `first + second`: two numbers.
    Plus(Box<SetOperand>, Box<SetOperand>),
    /// `first - second`: two numbers.
    Minus(Box<SetOperand>, Box<SetOperand>),
}

impl SetOperand {
    /// Every path the operand reads, in the order it names them.
    ///
    /// ```
    /// use singletable_core::request::SetOperand;
    ///
    /// let sum = SetOperand::Minus(Box::new(SetOperand::Path("a".into())), Box::new(SetOperand::Path("b".into())));
    /// assert_eq!(sum.paths().iter().map(|p| p.attribute()).collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn paths(&self) -> Vec<&crate::expr::Path> {
        fn walk<'a>(o: &'a SetOperand, out: &mut Vec<&'a crate::expr::Path>) {
            match o {
                SetOperand::Value(_) => {}
                SetOperand::Path(p) => out.push(p),
                SetOperand::IfNotExists(p, x) => {
                    out.push(p);
                    walk(x, out);
                }
                SetOperand::ListAppend(a, b) | SetOperand::Plus(a, b) | SetOperand::Minus(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

/// One action of an update expression.
///
/// `Set`, `Remove`, `Add` and `Delete` name a top-level attribute (the
/// form key maintenance writes); the `…At` variants take any document path
/// (`address.city`, `reviewers.ana`, `lines[3]`). [`UpdateAction::set`] and
/// the other constructors pick the right one.
///
/// ```
/// use singletable_core::expr::Rendered;
/// use singletable_core::request::UpdateAction;
/// use singletable::AttributeValue;
///
/// let mut r = Rendered::default();
/// let text = r.update(&[
///     UpdateAction::Remove("draft".into()),
///     UpdateAction::Add("hits".into(), AttributeValue::N("1".into())),
///     UpdateAction::Delete("tags".into(), AttributeValue::Ss(vec!["old".into()])),
/// ]);
/// assert_eq!(text, "REMOVE #n0 ADD #n1 :v0 DELETE #n2 :v1");
///
/// // The constructors pick the variant that fits the path.
/// use singletable::expr::Path;
/// use singletable_core::request::ActionKind;
/// let remove = UpdateAction::remove(Path::new("draft"));
/// assert_eq!(remove, UpdateAction::Remove("draft".into()));
/// let add = UpdateAction::add(Path::new("counts").key("2024"), AttributeValue::N("1".into()));
/// assert_eq!(add.path().levels(), 2);
/// assert!(matches!(add.kind(), ActionKind::Add(_)));
/// let delete = UpdateAction::delete(Path::new("tags"), AttributeValue::Ss(vec!["old".into()]));
/// assert!(matches!(delete, UpdateAction::Delete(..)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateAction {
    /// `SET name = …`
    Set(String, SetValue),
    /// `REMOVE name`
    Remove(String),
    /// `ADD name :v`: adds to a number (creating it at 0) or to a set.
    Add(String, crate::value::AttributeValue),
    /// `DELETE name :v`: removes elements from a set.
    Delete(String, crate::value::AttributeValue),
    /// `SET path = …`: the parent of `path` must exist (a map for a key, a
    /// list for an index); an index past the end of a list appends.
    SetAt(Path, SetValue),
    /// `REMOVE path`: removes a map entry, or a list element (the later
    /// elements move down).
    RemoveAt(Path),
    /// `ADD path :v`, below a top-level attribute.
    AddAt(Path, crate::value::AttributeValue),
    /// `DELETE path :v`, below a top-level attribute.
    DeleteAt(Path, crate::value::AttributeValue),
}

/// What an [`UpdateAction`] does, whatever form its path has.
///
/// ```
/// use singletable_core::request::{ActionKind, UpdateAction};
///
/// let a = UpdateAction::Remove("draft".into());
/// assert!(matches!(a.kind(), ActionKind::Remove));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ActionKind<'a> {
    /// `SET`
    Set(&'a SetValue),
    /// `REMOVE`
    Remove,
    /// `ADD`
    Add(&'a crate::value::AttributeValue),
    /// `DELETE`
    Delete(&'a crate::value::AttributeValue),
}

impl UpdateAction {
    /// `SET path = …`, in the form that fits the path.
    ///
    /// ```
    /// use singletable::expr::Path;
    /// use singletable_core::request::{SetValue, UpdateAction};
    /// use singletable::AttributeValue;
    ///
    /// let one = || SetValue::Value(AttributeValue::N("1".into()));
    /// let top = UpdateAction::set(Path::new("hits"), one());
    /// assert_eq!(top, UpdateAction::Set("hits".into(), one()));
    /// let below = UpdateAction::set(Path::new("hits").key("2024-05"), one());
    /// assert_eq!(below.path().steps.len(), 1);
    /// ```
    pub fn set(path: Path, value: SetValue) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Set(a, value),
            Err(p) => Self::SetAt(p, value),
        }
    }

    /// `REMOVE path`, in the form that fits the path.
    pub fn remove(path: Path) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Remove(a),
            Err(p) => Self::RemoveAt(p),
        }
    }

    /// `ADD path :v`, in the form that fits the path.
    pub fn add(path: Path, value: crate::value::AttributeValue) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Add(a, value),
            Err(p) => Self::AddAt(p, value),
        }
    }

    /// `DELETE path :v`, in the form that fits the path.
    pub fn delete(path: Path, value: crate::value::AttributeValue) -> Self {
        match path.into_attribute() {
            Ok(a) => Self::Delete(a, value),
            Err(p) => Self::DeleteAt(p, value),
        }
    }

    /// The path the action writes.
    pub fn path(&self) -> PathRef<'_> {
        match self {
            Self::Set(a, _) | Self::Remove(a) | Self::Add(a, _) | Self::Delete(a, _) => {
                PathRef::attribute(a)
            }
            Self::SetAt(p, _) | Self::RemoveAt(p) | Self::AddAt(p, _) | Self::DeleteAt(p, _) => {
                p.as_ref()
            }
        }
    }

    /// What the action does.
    pub fn kind(&self) -> ActionKind<'_> {
        match self {
            Self::Set(_, v) | Self::SetAt(_, v) => ActionKind::Set(v),
            Self::Remove(_) | Self::RemoveAt(_) => ActionKind::Remove,
            Self::Add(_, v) | Self::AddAt(_, v) => ActionKind::Add(v),
            Self::Delete(_, v) | Self::DeleteAt(_, v) => ActionKind::Delete(v),
        }
    }
}

/// UpdateItem: changes attributes of one item in place (creating it if
/// absent, unless a condition forbids it). The generated
/// `Entity::update(..)` builds it (`Update`), with a
/// condition that the item exists unless `.upsert()`.
///
/// ```
/// use singletable_core::exec::Executor;
/// use singletable_core::request::{ReturnValues, SetValue, UpdateAction, UpdateItem};
/// use singletable::AttributeValue;
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub visits: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into(), visits: 1 }).await?;
/// let update = UpdateItem {
///     table: "App".into(),
///     key: User::key("ana")?.key().to_item::<App>(),
///     actions: vec![UpdateAction::Set(
///         "visits".into(),
///         SetValue::Increment(AttributeValue::N("1".into())),
///     )],
///     condition: None,
///     return_values: ReturnValues::UpdatedNew,
///     return_on_condition_failure: false,
/// };
/// let new = db.executor().update_item(update).await?.unwrap();
/// assert_eq!(new["visits"].as_n().unwrap(), "2");
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateItem {
    /// Table name.
    pub table: String,
    /// Key attributes.
    pub key: Item,
    /// The actions, applied atomically.
    pub actions: Vec<UpdateAction>,
    /// Applied only if this holds.
    pub condition: Option<Condition>,
    /// What to return.
    pub return_values: ReturnValues,
    /// Return the current item when the condition fails.
    pub return_on_condition_failure: bool,
}

// Rendering an update lives beside the actions it renders, so that the
// expressions (`expr`) never name the requests built from them.
impl Rendered {
    fn set_operand(&mut self, o: &SetOperand) -> String {
        match o {
            SetOperand::Value(v) => self.value(v.clone()),
            SetOperand::Path(p) => self.path(p.as_ref()),
            SetOperand::IfNotExists(p, x) => {
                let p = self.path(p.as_ref());
                format!("if_not_exists({p}, {})", self.set_operand(x))
            }
            SetOperand::ListAppend(a, b) => {
                let a = self.set_operand(a);
                format!("list_append({a}, {})", self.set_operand(b))
            }
            SetOperand::Plus(a, b) => {
                let a = self.set_operand(a);
                format!("{a} + {}", self.set_operand(b))
            }
            SetOperand::Minus(a, b) => {
                let a = self.set_operand(a);
                format!("{a} - {}", self.set_operand(b))
            }
        }
    }

    /// Renders an update expression: `SET …, … REMOVE … ADD … DELETE …`.
    pub fn update(&mut self, actions: &[UpdateAction]) -> String {
        let (mut set, mut remove, mut add, mut delete) = (vec![], vec![], vec![], vec![]);
        for a in actions {
            let n = self.path(a.path());
            match a.kind() {
                ActionKind::Set(value) => {
                    let text = match value {
                        SetValue::Value(v) => format!("{n} = {}", self.value(v.clone())),
                        SetValue::IfNotExists(v) => {
                            format!("{n} = if_not_exists({n}, {})", self.value(v.clone()))
                        }
                        SetValue::Append(v) => {
                            format!("{n} = list_append({n}, {})", self.value(v.clone()))
                        }
                        SetValue::Prepend(v) => {
                            format!("{n} = list_append({}, {n})", self.value(v.clone()))
                        }
                        SetValue::Increment(v) => format!("{n} = {n} + {}", self.value(v.clone())),
                        SetValue::Expr(o) => format!("{n} = {}", self.set_operand(o)),
                    };
                    set.push(text);
                }
                ActionKind::Remove => remove.push(n),
                ActionKind::Add(v) => add.push(format!("{n} {}", self.value(v.clone()))),
                ActionKind::Delete(v) => delete.push(format!("{n} {}", self.value(v.clone()))),
            }
        }
        let mut parts = Vec::new();
        for (kw, list) in [
            ("SET", set),
            ("REMOVE", remove),
            ("ADD", add),
            ("DELETE", delete),
        ] {
            if !list.is_empty() {
                parts.push(format!("{kw} {}", list.join(", ")));
            }
        }
        parts.join(" ")
    }
}
