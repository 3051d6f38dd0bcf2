//! Condition and filter expressions: checked the way DynamoDB checks an
//! expression before it reads an item (a ValidationException whatever the
//! item), then evaluated against an item.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::error::{Fail, Res};
use super::path;
use super::value::{Val, compare, compare_vals, expression_value, is_sortable, type_name};
use crate::value::{AttributeValue, Item};
use singletable_core::expr::{Cmp, Condition, Operand, PathRef, Rendered};

/// DynamoDB's limit on an expression's text.
const MAX_EXPRESSION: usize = 4096;

const TYPES: [&str; 10] = ["S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"];

struct Checker<'a> {
    /// `ConditionExpression`, `FilterExpression`.
    kind: &'a str,
}

impl Checker<'_> {
    fn fail(&self, message: String) -> Fail {
        Fail::validation(format!("Invalid {}: {message}", self.kind))
    }

    fn operand_type(&self, operator: &str, v: &AttributeValue) -> Fail {
        self.fail(format!(
            "Incorrect operand type for operator or function; operator or function: {operator}, operand type: {}",
            type_name(v)
        ))
    }

    fn distinct(&self, operator: &str, first: &Operand, rest: &[&Operand]) -> Res<()> {
        if let Operand::Path(p) = first
            && rest.iter().any(|o| matches!(o, Operand::Path(q) if q == p))
        {
            return Err(self.fail(format!(
                "The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: [{}]",
                path::describe(p.as_ref())
            )));
        }
        Ok(())
    }

    fn operand(&self, op: &Operand) -> Res<Operand> {
        Ok(match op {
            Operand::Value(v) => Operand::Value(expression_value(v)?),
            other => other.clone(),
        })
    }

    fn value(&self, v: &AttributeValue) -> Res<AttributeValue> {
        match self.operand(&Operand::Value(v.clone()))? {
            Operand::Value(v) => Ok(v),
            _ => Err(Fail::internal("operand changed kind")),
        }
    }

    fn sortable(&self, operator: &str, op: &Operand) -> Res<()> {
        match op {
            Operand::Value(v) if !is_sortable(v) => Err(self.operand_type(operator, v)),
            _ => Ok(()),
        }
    }

    fn check(&self, c: &Condition) -> Res<Condition> {
        Ok(match c {
            Condition::Compare(a, op, b) => {
                self.distinct(op.symbol(), a, &[b])?;
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                if !matches!(op, Cmp::Eq | Cmp::Ne) {
                    self.sortable(op.symbol(), &a)?;
                    self.sortable(op.symbol(), &b)?;
                }
                Condition::Compare(a, *op, b)
            }
            Condition::Between(a, lo, hi) => {
                self.distinct("BETWEEN", a, &[lo, hi])?;
                let (a, lo, hi) = (self.operand(a)?, self.operand(lo)?, self.operand(hi)?);
                for o in [&a, &lo, &hi] {
                    self.sortable("BETWEEN", o)?;
                }
                if let (Operand::Value(l), Operand::Value(h)) = (&lo, &hi) {
                    match compare(l, h) {
                        None => {
                            return Err(self.fail(format!(
                                "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {{{}}}, upper bound operand: AttributeValue: {{{}}}",
                                type_name(l),
                                type_name(h)
                            )));
                        }
                        Some(Ordering::Greater) => {
                            return Err(self.fail(bounds_out_of_order(l, h)));
                        }
                        _ => {}
                    }
                }
                Condition::Between(a, lo, hi)
            }
            Condition::In(a, list) => {
                if list.is_empty() || list.len() > 100 {
                    return Err(self.fail("The IN operator takes between 1 and 100 values".into()));
                }
                let rest: Vec<&Operand> = list.iter().collect();
                self.distinct("IN", a, &rest)?;
                Condition::In(
                    self.operand(a)?,
                    list.iter().map(|o| self.operand(o)).collect::<Res<_>>()?,
                )
            }
            Condition::BeginsWith(p, v) => {
                let v = self.value(v)?;
                if !matches!(v, AttributeValue::S(_) | AttributeValue::B(_)) {
                    return Err(self.operand_type("begins_with", &v));
                }
                Condition::BeginsWith(p.clone(), v)
            }
            Condition::Contains(p, v) => Condition::Contains(p.clone(), self.value(v)?),
            Condition::BeginsWithPath(p, q) | Condition::ContainsPath(p, q) => {
                let f = if matches!(c, Condition::BeginsWithPath(..)) {
                    "begins_with"
                } else {
                    "contains"
                };
                let q = Operand::Path(q.clone());
                self.distinct(f, &Operand::Path(p.clone()), &[&q])?;
                c.clone()
            }
            Condition::Exists(_)
            | Condition::NotExists(_)
            | Condition::ExistsAt(_)
            | Condition::NotExistsAt(_) => c.clone(),
            Condition::AttributeType(p, t) => {
                if !TYPES.contains(t) {
                    return Err(self.fail(format!(
                        "Invalid attribute type name found; type: {t}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                    )));
                }
                Condition::AttributeType(p.clone(), t)
            }
            Condition::And(a, b) => {
                Condition::And(Box::new(self.check(a)?), Box::new(self.check(b)?))
            }
            Condition::Or(a, b) => {
                Condition::Or(Box::new(self.check(a)?), Box::new(self.check(b)?))
            }
            Condition::Not(a) => Condition::Not(Box::new(self.check(a)?)),
        })
    }
}

/// The condition with its values normalised, or the ValidationException
/// DynamoDB answers it with before looking at any item. `kind` names the
/// expression in messages (`ConditionExpression`, `FilterExpression`).
pub(crate) fn prepare(c: &Condition, kind: &str) -> Res<Condition> {
    let mut r = Rendered::default();
    let text = r.condition(c);
    if text.len() > MAX_EXPRESSION {
        return Err(Fail::validation(format!(
            "Invalid {kind}: Expression size has exceeded the maximum allowed size"
        )));
    }
    path::names(&r)?;
    let mut bad = None;
    each_path(c, &mut |p| {
        if bad.is_none() {
            bad = path::syntax(p).err();
        }
    });
    if let Some(message) = bad {
        return Err(Fail::validation(format!("Invalid {kind}: {message}")));
    }
    Checker { kind }.check(c)
}

/// Every top-level attribute the condition reads.
pub(crate) fn paths<'a>(c: &'a Condition, out: &mut Vec<&'a str>) {
    each_path(c, &mut |p| out.push(p.attribute));
}

/// Every document path the condition reads, in order.
fn each_path<'a>(c: &'a Condition, out: &mut impl FnMut(PathRef<'a>)) {
    let op = |o: &'a Operand, out: &mut dyn FnMut(PathRef<'a>)| match o {
        Operand::Path(p) | Operand::Size(p) => out(p.as_ref()),
        Operand::Value(_) => {}
    };
    match c {
        Condition::Compare(a, _, b) => {
            op(a, out);
            op(b, out);
        }
        Condition::Between(a, lo, hi) => {
            op(a, out);
            op(lo, out);
            op(hi, out);
        }
        Condition::In(a, list) => {
            op(a, out);
            for o in list {
                op(o, out);
            }
        }
        Condition::BeginsWithPath(p, q) | Condition::ContainsPath(p, q) => {
            out(p.as_ref());
            out(q.as_ref());
        }
        Condition::BeginsWith(p, _)
        | Condition::Contains(p, _)
        | Condition::ExistsAt(p)
        | Condition::NotExistsAt(p)
        | Condition::AttributeType(p, _) => out(p.as_ref()),
        Condition::Exists(p) | Condition::NotExists(p) => out(PathRef::attribute(p)),
        Condition::And(a, b) | Condition::Or(a, b) => {
            each_path(a, out);
            each_path(b, out);
        }
        Condition::Not(a) => each_path(a, out),
    }
}

/// What a condition reads its attributes from: an item map, no item (a
/// conditional write on a missing item), or a stored item's attributes
/// read in place ([`super::filter::Picked`]). One evaluator serves them
/// all, so filters, conditional writes and transaction checks agree.
pub(crate) trait Attrs {
    /// The top-level attribute `name`, if the item has it.
    fn attr(&self, name: &str) -> Option<Val<'_>>;
}

impl Attrs for Item {
    fn attr(&self, name: &str) -> Option<Val<'_>> {
        self.get(name).map(Val::of)
    }
}

/// The item a conditional write finds missing.
struct NoItem;

impl Attrs for NoItem {
    fn attr(&self, _: &str) -> Option<Val<'_>> {
        None
    }
}

/// The value at `p`; `None` when the path does not resolve.
fn get<'a, A: Attrs + ?Sized>(item: &'a A, p: PathRef<'_>) -> Option<Val<'a>> {
    let top = item.attr(p.attribute)?;
    if p.steps.is_empty() {
        return Some(top);
    }
    match top {
        Val::Other(v) => path::below(v, p.steps).map(Val::of),
        _ => None,
    }
}

fn operand<'a, A: Attrs + ?Sized>(op: &'a Operand, item: &'a A) -> Option<Val<'a>> {
    match op {
        Operand::Path(p) => get(item, p.as_ref()),
        Operand::Value(v) => Some(Val::of(v)),
        Operand::Size(p) => {
            let n = get(item, p.as_ref())?.size()?;
            Some(Val::N(Cow::Owned(n.to_string())))
        }
    }
}

fn equal(a: Option<&Val<'_>>, b: Option<&Val<'_>>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a == b)
}

/// Whether a prepared condition holds for `item` (`None`: no item).
pub(crate) fn eval(c: &Condition, item: Option<&Item>) -> bool {
    match item {
        Some(item) => holds(c, item),
        None => holds(c, &NoItem),
    }
}

/// Whether a prepared condition holds for the attributes `item` holds.
pub(crate) fn holds<A: Attrs + ?Sized>(c: &Condition, item: &A) -> bool {
    match c {
        Condition::Compare(a, op, b) => {
            let (a, b) = (operand(a, item), operand(b, item));
            let (a, b) = (a.as_ref(), b.as_ref());
            match op {
                Cmp::Eq => equal(a, b),
                Cmp::Ne => !equal(a, b),
                _ => {
                    let Some(ord) = a.zip(b).and_then(|(a, b)| compare_vals(a, b)) else {
                        return false;
                    };
                    match op {
                        Cmp::Lt => ord.is_lt(),
                        Cmp::Le => ord.is_le(),
                        Cmp::Gt => ord.is_gt(),
                        _ => ord.is_ge(),
                    }
                }
            }
        }
        Condition::Between(a, lo, hi) => {
            let (a, lo, hi) = (operand(a, item), operand(lo, item), operand(hi, item));
            match (a, lo, hi) {
                (Some(a), Some(lo), Some(hi)) => {
                    compare_vals(&a, &lo).is_some_and(Ordering::is_ge)
                        && compare_vals(&a, &hi).is_some_and(Ordering::is_le)
                }
                _ => false,
            }
        }
        Condition::In(a, list) => {
            let a = operand(a, item);
            list.iter()
                .any(|o| equal(a.as_ref(), operand(o, item).as_ref()))
        }
        Condition::BeginsWith(p, v) => begins_with(get(item, p.as_ref()), v),
        Condition::Contains(p, v) => contains(get(item, p.as_ref()), v),
        Condition::BeginsWithPath(p, q) | Condition::ContainsPath(p, q) => {
            let Some(other) = get(item, q.as_ref()).map(owned) else {
                return false;
            };
            let found = get(item, p.as_ref());
            if matches!(c, Condition::BeginsWithPath(..)) {
                begins_with(found, &other)
            } else {
                contains(found, &other)
            }
        }
        Condition::Exists(p) => item.attr(p).is_some(),
        Condition::NotExists(p) => item.attr(p).is_none(),
        Condition::ExistsAt(p) => get(item, p.as_ref()).is_some(),
        Condition::NotExistsAt(p) => get(item, p.as_ref()).is_none(),
        Condition::AttributeType(p, t) => {
            get(item, p.as_ref()).is_some_and(|v| v.type_name() == *t)
        }
        Condition::And(a, b) => holds(a, item) && holds(b, item),
        Condition::Or(a, b) => holds(a, item) || holds(b, item),
        Condition::Not(a) => !holds(a, item),
    }
}

/// DynamoDB's words for a `BETWEEN` whose lower bound is above its upper
/// bound, in conditions and key conditions alike.
pub(crate) fn bounds_out_of_order(lo: &AttributeValue, hi: &AttributeValue) -> String {
    let shown = |v: &AttributeValue| match v {
        AttributeValue::S(x) | AttributeValue::N(x) => format!("{{{}:{x}}}", type_name(v)),
        other => format!("{other:?}"),
    };
    format!(
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {}, upper bound operand: AttributeValue: {}",
        shown(lo),
        shown(hi)
    )
}

/// `begins_with` of what a path found and a prefix: strings and binaries.
fn begins_with(found: Option<Val<'_>>, prefix: &AttributeValue) -> bool {
    match (found, prefix) {
        (Some(Val::S(s)), AttributeValue::S(prefix)) => s.starts_with(prefix.as_str()),
        (Some(Val::Other(AttributeValue::B(b))), AttributeValue::B(prefix)) => {
            b.as_ref().starts_with(prefix.as_ref())
        }
        _ => false,
    }
}

/// `contains` of what a path found and an operand: a substring, a
/// sub-binary, a set member or a list element.
fn contains(found: Option<Val<'_>>, e: &AttributeValue) -> bool {
    match (found, e) {
        (Some(Val::S(s)), AttributeValue::S(part)) => s.contains(part.as_str()),
        (Some(Val::Other(found)), e) => match (found, e) {
            (AttributeValue::B(b), AttributeValue::B(part)) => {
                let (b, part) = (b.as_ref(), part.as_ref());
                part.is_empty() || b.windows(part.len()).any(|w| w == part)
            }
            (AttributeValue::Ss(set), AttributeValue::S(e)) => set.contains(e),
            (AttributeValue::Ns(set), AttributeValue::N(e)) => set.contains(e),
            (AttributeValue::Bs(set), AttributeValue::B(e)) => set.contains(e),
            (AttributeValue::L(list), e) => list.contains(e),
            _ => false,
        },
        _ => false,
    }
}

/// The value a path found, owned (the operand a path stands for).
fn owned(v: Val<'_>) -> AttributeValue {
    match v {
        Val::S(s) => AttributeValue::S(s.to_owned()),
        Val::N(n) => AttributeValue::N(n.into_owned()),
        Val::Other(v) => v.clone(),
    }
}
