//! Conditions, filters and key conditions as data, rendered into DynamoDB
//! expression text with placeholders only.
//!
//! Every attribute name becomes `#n<i>` and every value `:v<i>`, so reserved
//! words such as `name` or `status` just work and no value is ever parsed as
//! expression text.

use std::collections::HashMap;

use crate::value::AttributeValue;

/// Comparison operators of DynamoDB's condition language.
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
    fn symbol(self) -> &'static str {
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

/// An operand: an attribute path, a value, or the size of an attribute.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A top-level attribute name.
    Path(String),
    /// A literal value, always sent as a `:v` placeholder.
    Value(AttributeValue),
    /// `size(path)`.
    Size(String),
}

/// A condition expression as data.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `a <op> b`
    Compare(Operand, Cmp, Operand),
    /// `a BETWEEN lo AND hi`
    Between(Operand, Operand, Operand),
    /// `a IN (v1, v2, …)`
    In(Operand, Vec<Operand>),
    /// `begins_with(path, value)`
    BeginsWith(String, AttributeValue),
    /// `contains(path, value)`
    Contains(String, AttributeValue),
    /// `attribute_exists(path)`
    Exists(String),
    /// `attribute_not_exists(path)`
    NotExists(String),
    /// `attribute_type(path, type)` with a DynamoDB type name (`S`, `N`, …).
    AttributeType(String, &'static str),
    /// `(a AND b)`
    And(Box<Condition>, Box<Condition>),
    /// `(a OR b)`
    Or(Box<Condition>, Box<Condition>),
    /// `(NOT a)`
    Not(Box<Condition>),
}

impl Condition {
    /// `path = value`.
    pub fn eq(path: impl Into<String>, value: AttributeValue) -> Self {
        Self::Compare(Operand::Path(path.into()), Cmp::Eq, Operand::Value(value))
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

/// The sort-key part of a key condition.
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
/// condition, on the attribute names of the table or index queried.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCondition {
    /// Partition key attribute.
    pub pk_attr: String,
    /// Partition key value.
    pub pk: String,
    /// Sort key attribute and condition.
    pub sk: Option<(String, SortCondition)>,
}

/// Expression text plus its placeholder maps.
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

    fn operand(&mut self, op: &Operand) -> String {
        match op {
            Operand::Path(p) => self.name(p),
            Operand::Value(v) => self.value(v.clone()),
            Operand::Size(p) => format!("size({})", self.name(p)),
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
                let p = self.name(p);
                let v = self.value(v.clone());
                format!("begins_with({p}, {v})")
            }
            Condition::Contains(p, v) => {
                let p = self.name(p);
                let v = self.value(v.clone());
                format!("contains({p}, {v})")
            }
            Condition::Exists(p) => format!("attribute_exists({})", self.name(p)),
            Condition::NotExists(p) => format!("attribute_not_exists({})", self.name(p)),
            Condition::AttributeType(p, t) => {
                let p = self.name(p);
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
        let pk = self.name(&k.pk_attr);
        let pv = self.value(AttributeValue::S(k.pk.clone()));
        let mut out = format!("{pk} = {pv}");
        if let Some((attr, cond)) = &k.sk {
            let sk = self.name(attr);
            let s = |r: &mut Self, v: &String| r.value(AttributeValue::S(v.clone()));
            let part = match cond {
                SortCondition::Compare(op, v) => format!("{sk} {} {}", op.symbol(), s(self, v)),
                SortCondition::Between(lo, hi) => {
                    let lo = s(self, lo);
                    let hi = s(self, hi);
                    format!("{sk} BETWEEN {lo} AND {hi}")
                }
                SortCondition::BeginsWith(p) => format!("begins_with({sk}, {})", s(self, p)),
            };
            out.push_str(" AND ");
            out.push_str(&part);
        }
        out
    }

    /// Renders an update expression: `SET …, … REMOVE … ADD … DELETE …`.
    pub fn update(&mut self, actions: &[crate::request::UpdateAction]) -> String {
        use crate::request::{SetValue, UpdateAction};
        let (mut set, mut remove, mut add, mut delete) = (vec![], vec![], vec![], vec![]);
        for a in actions {
            match a {
                UpdateAction::Set(path, value) => {
                    let n = self.name(path);
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
                    };
                    set.push(text);
                }
                UpdateAction::Remove(path) => remove.push(self.name(path)),
                UpdateAction::Add(path, v) => {
                    let n = self.name(path);
                    add.push(format!("{n} {}", self.value(v.clone())));
                }
                UpdateAction::Delete(path, v) => {
                    let n = self.name(path);
                    delete.push(format!("{n} {}", self.value(v.clone())));
                }
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

    /// Renders a projection of attribute names.
    pub fn projection(&mut self, attrs: &[String]) -> String {
        attrs
            .iter()
            .map(|a| self.name(a))
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
