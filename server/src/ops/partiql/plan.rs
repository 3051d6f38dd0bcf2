//! Which request a `SELECT` runs as: its `WHERE` split into conjuncts, the
//! partition key's equality (or `IN`) and the sort key's range found among
//! them, and the rest left as the filter (a Query), or all of it a filter (a
//! Scan); and the whole key a write's `WHERE` must give.

use super::*;

pub(super) fn conjuncts(c: Condition, out: &mut Vec<Condition>) {
    match c {
        Condition::And(a, b) => {
            conjuncts(*a, out);
            conjuncts(*b, out);
        }
        other => out.push(other),
    }
}

pub(super) fn all(parts: Vec<Condition>) -> Option<Condition> {
    parts.into_iter().reduce(Condition::and)
}

/// `attr = value` (either way round) on a top-level attribute.
pub(super) fn equality(c: &Condition) -> Option<(&str, &AttributeValue)> {
    match c {
        Condition::Compare(Operand::Path(p), Cmp::Eq, Operand::Value(v))
        | Condition::Compare(Operand::Value(v), Cmp::Eq, Operand::Path(p))
            if p.steps().is_empty() =>
        {
            Some((p.attribute(), v))
        }
        _ => None,
    }
}

/// Splits a write's `WHERE` into the item's key (an equality on every key
/// attribute) and the rest, the write's condition.
pub(super) fn full_key(
    filter: Condition,
    keys: &Keys,
) -> Result<(Item, Option<Condition>), ApiError> {
    let mut parts = Vec::new();
    conjuncts(filter, &mut parts);
    let mut key = Item::new();
    let mut rest = Vec::new();
    for part in parts {
        match equality(&part) {
            Some((a, v))
                if keys.hash.iter().chain(&keys.range).any(|k| k == a) && !key.contains_key(a) =>
            {
                key.insert(a.to_owned(), v.clone());
            }
            _ => rest.push(part),
        }
    }
    if key.len() != keys.hash.len() + keys.range.len() {
        return Err(ApiError::validation(
            "Where clause does not contain a mandatory equality on all key attributes",
        ));
    }
    Ok((key, all(rest)))
}

/// Every top-level attribute a condition reads.
pub(super) fn attributes<'a>(c: &'a Condition, out: &mut Vec<&'a str>) {
    let operand = |o: &'a Operand, out: &mut Vec<&'a str>| match o {
        Operand::Path(p) | Operand::Size(p) => out.push(p.attribute()),
        Operand::Value(_) => {}
    };
    match c {
        Condition::Compare(a, _, b) => {
            operand(a, out);
            operand(b, out);
        }
        Condition::Between(a, b, d) => {
            operand(a, out);
            operand(b, out);
            operand(d, out);
        }
        Condition::In(a, list) => {
            operand(a, out);
            for x in list {
                operand(x, out);
            }
        }
        Condition::BeginsWith(p, _) | Condition::Contains(p, _) => out.push(p.attribute()),
        Condition::BeginsWithPath(p, q) | Condition::ContainsPath(p, q) => {
            out.push(p.attribute());
            out.push(q.attribute());
        }
        Condition::Exists(a) | Condition::NotExists(a) => out.push(a),
        Condition::ExistsAt(p) | Condition::NotExistsAt(p) | Condition::AttributeType(p, _) => {
            out.push(p.attribute())
        }
        Condition::And(a, b) | Condition::Or(a, b) => {
            attributes(a, out);
            attributes(b, out);
        }
        Condition::Not(a) => attributes(a, out),
    }
}

/// How a `SELECT` runs: a Query per partition key value (one, or one per
/// `IN` value), or a Scan.
pub(super) enum Plan {
    Query {
        /// The key condition of each partition, in order.
        keys: Vec<AttrKeyCondition>,
        filter: Option<Condition>,
    },
    Scan {
        filter: Option<Condition>,
    },
}

/// The range condition a conjunct puts on `attr`, if it is one.
pub(super) fn range_on(c: &Condition, attr: &str) -> Option<AttrRange> {
    let top = |p: &Path| p.steps().is_empty() && p.attribute() == attr;
    match c {
        Condition::Compare(Operand::Path(p), op, Operand::Value(v)) if top(p) && *op != Cmp::Ne => {
            Some(AttrRange::Compare(*op, v.clone()))
        }
        Condition::Compare(Operand::Value(v), op, Operand::Path(p)) if top(p) && *op != Cmp::Ne => {
            let flipped = match op {
                Cmp::Lt => Cmp::Gt,
                Cmp::Le => Cmp::Ge,
                Cmp::Gt => Cmp::Lt,
                Cmp::Ge => Cmp::Le,
                o => *o,
            };
            Some(AttrRange::Compare(flipped, v.clone()))
        }
        Condition::Between(Operand::Path(p), Operand::Value(lo), Operand::Value(hi)) if top(p) => {
            Some(AttrRange::Between(lo.clone(), hi.clone()))
        }
        Condition::BeginsWith(p, v @ (AttributeValue::S(_) | AttributeValue::B(_))) if top(p) => {
            Some(AttrRange::BeginsWith(v.clone()))
        }
        _ => None,
    }
}

/// DynamoDB's plan for a `SELECT`: a Query when the `WHERE` holds an
/// equality (or an `IN` of values) on every partition key attribute, the
/// sort key's condition as the key condition's range, the rest as the
/// filter; a Scan otherwise (or when the rest still reads a key attribute,
/// which a Query's filter may not).
pub(super) fn plan(filter: Option<Condition>, keys: &Keys) -> Plan {
    let Some(filter) = filter else {
        return Plan::Scan { filter: None };
    };
    let mut parts = Vec::new();
    conjuncts(filter.clone(), &mut parts);
    let mut used = vec![false; parts.len()];
    let mut partitions: Vec<Vec<(String, AttributeValue)>> = vec![Vec::new()];
    for attr in &keys.hash {
        let eq = parts
            .iter()
            .enumerate()
            .find(|(i, c)| !used[*i] && equality(c).is_some_and(|(a, _)| a == attr));
        if let Some((i, c)) = eq {
            used[i] = true;
            let (_, v) = equality(c).unwrap_or((attr, &AttributeValue::Null(true)));
            for p in &mut partitions {
                p.push((attr.clone(), v.clone()));
            }
            continue;
        }
        let within = parts.iter().enumerate().find(|(i, c)| {
            !used[*i]
                && matches!(c, Condition::In(Operand::Path(p), list)
                    if p.steps().is_empty() && p.attribute() == attr
                        && list.iter().all(|o| matches!(o, Operand::Value(_))))
        });
        let Some((i, Condition::In(_, list))) = within else {
            return Plan::Scan {
                filter: Some(filter),
            };
        };
        used[i] = true;
        let mut values: Vec<&AttributeValue> = Vec::new();
        for o in list {
            if let Operand::Value(v) = o
                && !values.contains(&v)
            {
                values.push(v);
            }
        }
        partitions = partitions
            .iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut p = p.clone();
                    p.push((attr.clone(), (*v).clone()));
                    p
                })
            })
            .collect();
    }
    let mut sort_equal = Vec::new();
    let mut range = None;
    for attr in &keys.range {
        if let Some((i, c)) = parts
            .iter()
            .enumerate()
            .find(|(i, c)| !used[*i] && equality(c).is_some_and(|(a, _)| a == attr))
        {
            used[i] = true;
            if let Some((_, v)) = equality(c) {
                sort_equal.push((attr.clone(), v.clone()));
            }
            continue;
        }
        if let Some((i, r)) = parts
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .find_map(|(i, c)| range_on(c, attr).map(|r| (i, r)))
        {
            used[i] = true;
            range = Some((attr.clone(), r));
        }
        break;
    }
    let rest: Vec<Condition> = parts
        .into_iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(c, _)| c)
        .collect();
    let mut read = Vec::new();
    for c in &rest {
        attributes(c, &mut read);
    }
    if read
        .iter()
        .any(|a| keys.hash.iter().chain(&keys.range).any(|k| k == a))
    {
        return Plan::Scan {
            filter: Some(filter),
        };
    }
    Plan::Query {
        keys: partitions
            .into_iter()
            .map(|mut equal| {
                equal.extend(sort_equal.iter().cloned());
                AttrKeyCondition {
                    equal,
                    range: range.clone(),
                }
            })
            .collect(),
        filter: all(rest),
    }
}
