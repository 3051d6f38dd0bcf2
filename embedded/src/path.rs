//! Document paths (`a.b[3]`) the way DynamoDB resolves them: reading one
//! in a condition (a path that does not resolve is an absent attribute) and
//! writing one in an update (its parent must exist; an index past the end
//! of a list appends).

use std::cmp::Ordering;

use super::error::{Fail, Res};
use crate::value::{AttributeValue, Item};
use singletable_core::expr::{PathRef, PathStep};

/// DynamoDB's limit on the nesting levels of a path.
const MAX_LEVELS: usize = 32;

/// The largest list index an expression may hold (a Java `int`).
const MAX_INDEX: usize = i32::MAX as usize;

/// The path as DynamoDB's messages print it: `[m, b, [0]]` without the
/// brackets around the whole.
pub(crate) fn describe(p: PathRef<'_>) -> String {
    let mut out = p.attribute.to_owned();
    for step in p.steps {
        out.push_str(", ");
        match step {
            PathStep::Key(k) => out.push_str(k),
            PathStep::Index(i) => {
                out.push('[');
                out.push_str(itoa::Buffer::new().format(*i));
                out.push(']');
            }
        }
    }
    out
}

/// What DynamoDB refuses in a path before reading any item, as the message
/// after `Invalid <expression>: `.
pub(crate) fn syntax(p: PathRef<'_>) -> Result<(), String> {
    if p.levels() > MAX_LEVELS {
        return Err(format!(
            "The document path has too many nesting levels; nesting levels: {}",
            p.levels()
        ));
    }
    for step in p.steps {
        if let PathStep::Index(i) = step
            && *i > MAX_INDEX
        {
            return Err(format!(
                "List index is not within the allowable range; index: [{i}]"
            ));
        }
    }
    Ok(())
}

/// Refuses names DynamoDB refuses in `ExpressionAttributeNames`.
pub(crate) fn names(r: &singletable_core::expr::Rendered) -> Res<()> {
    let mut empty: Vec<&String> = r
        .names
        .iter()
        .filter(|(_, v)| v.is_empty())
        .map(|(k, _)| k)
        .collect();
    empty.sort();
    match empty.first() {
        Some(k) => Err(Fail::validation(format!(
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key {k}"
        ))),
        None => Ok(()),
    }
}

/// How two paths of one update expression relate.
pub(crate) enum Clash {
    /// One is a prefix of the other (or they are equal).
    Overlap,
    /// They part where one reads a map key and the other a list index.
    Conflict,
}

/// Whether two paths of one update expression clash.
pub(crate) fn clash(a: PathRef<'_>, b: PathRef<'_>) -> Option<Clash> {
    if a.attribute != b.attribute {
        return None;
    }
    for (x, y) in a.steps.iter().zip(b.steps) {
        match (x, y) {
            (PathStep::Key(x), PathStep::Key(y)) if x == y => {}
            (PathStep::Index(x), PathStep::Index(y)) if x == y => {}
            (PathStep::Key(_), PathStep::Key(_)) | (PathStep::Index(_), PathStep::Index(_)) => {
                return None;
            }
            _ => return Some(Clash::Conflict),
        }
    }
    Some(Clash::Overlap)
}

/// Refuses the first two paths of one expression (in the order it lists
/// them) that overlap or conflict, with DynamoDB's message after
/// `Invalid <expression>: `.
pub(crate) fn no_clash(paths: &[PathRef<'_>]) -> Result<(), String> {
    for (i, &p) in paths.iter().enumerate() {
        for &q in &paths[..i] {
            let what = match clash(q, p) {
                None => continue,
                Some(Clash::Overlap) => "overlap",
                Some(Clash::Conflict) => "conflict",
            };
            return Err(format!(
                "Two document paths {what} with each other; must remove or rewrite one of these paths; path one: [{}], path two: [{}]",
                describe(q),
                describe(p)
            ));
        }
    }
    Ok(())
}

/// The value at `p`, if every step resolves (a key in a map, an index
/// inside a list).
pub(crate) fn get<'a>(item: &'a Item, p: PathRef<'_>) -> Option<&'a AttributeValue> {
    below(item.get(p.attribute)?, p.steps)
}

/// The value `steps` below `v`, if every step resolves.
pub(crate) fn below<'a>(
    mut v: &'a AttributeValue,
    steps: &[PathStep],
) -> Option<&'a AttributeValue> {
    for step in steps {
        v = match (step, v) {
            (PathStep::Key(k), AttributeValue::M(m)) => m.get(k)?,
            (PathStep::Index(i), AttributeValue::L(l)) => l.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn invalid_for_update() -> Fail {
    Fail::validation("The document path provided in the update expression is invalid for update")
}

/// The container holding the last step of `p` (the item for a top-level
/// attribute), or the error DynamoDB gives when it does not exist.
fn parent<'a>(item: &'a mut Item, p: PathRef<'_>) -> Res<Parent<'a>> {
    let Some((_, above)) = p.steps.split_last() else {
        return Ok(Parent::Item(item));
    };
    let mut v = item.get_mut(p.attribute).ok_or_else(invalid_for_update)?;
    for step in above {
        v = match (step, v) {
            (PathStep::Key(k), AttributeValue::M(m)) => m.get_mut(k),
            (PathStep::Index(i), AttributeValue::L(l)) => l.get_mut(*i),
            _ => None,
        }
        .ok_or_else(invalid_for_update)?;
    }
    Ok(Parent::Value(v))
}

enum Parent<'a> {
    Item(&'a mut Item),
    Value(&'a mut AttributeValue),
}

/// Writes `value` at `p`: a map entry is inserted or replaced, a list
/// element replaced, or appended when the index is past the end.
pub(crate) fn set(item: &mut Item, p: PathRef<'_>, value: AttributeValue) -> Res<()> {
    match (parent(item, p)?, p.steps.last()) {
        (Parent::Item(item), _) => {
            item.insert(p.attribute.to_owned(), value);
        }
        (Parent::Value(AttributeValue::M(m)), Some(PathStep::Key(k))) => {
            m.insert(k.clone(), value);
        }
        (Parent::Value(AttributeValue::L(l)), Some(PathStep::Index(i))) => match l.get_mut(*i) {
            Some(slot) => *slot = value,
            None => l.push(value),
        },
        _ => return Err(invalid_for_update()),
    }
    Ok(())
}

/// Checks that `p` could be written, without writing it (a `DELETE` of
/// elements from a set that is not there).
pub(crate) fn writable(item: &mut Item, p: PathRef<'_>) -> Res<()> {
    match (parent(item, p)?, p.steps.last()) {
        (Parent::Item(_), _)
        | (Parent::Value(AttributeValue::M(_)), Some(PathStep::Key(_)))
        | (Parent::Value(AttributeValue::L(_)), Some(PathStep::Index(_))) => Ok(()),
        _ => Err(invalid_for_update()),
    }
}

/// Removes what `p` names: a missing map entry or an index past the end
/// is no error, a missing or mistyped parent is.
pub(crate) fn remove(item: &mut Item, p: PathRef<'_>) -> Res<()> {
    match (parent(item, p)?, p.steps.last()) {
        (Parent::Item(item), _) => {
            item.remove(p.attribute);
        }
        (Parent::Value(AttributeValue::M(m)), Some(PathStep::Key(k))) => {
            m.remove(k);
        }
        (Parent::Value(AttributeValue::L(l)), Some(PathStep::Index(i))) => {
            if *i < l.len() {
                l.remove(*i);
            }
        }
        _ => return Err(invalid_for_update()),
    }
    Ok(())
}

/// Paths in document order: attribute, then steps, indexes by number. An
/// update writes in this order (so indexes past the end of a list append
/// in index order) and removes in the reverse one (so list indexes keep
/// naming the elements they named before the update).
pub(crate) fn order(a: PathRef<'_>, b: PathRef<'_>) -> Ordering {
    a.attribute
        .cmp(b.attribute)
        .then_with(|| a.steps.cmp(b.steps))
}

/// The item holding only the top-level attributes of `paths` that resolve
/// in `from`: what DynamoDB Local returns for `UPDATED_OLD`/`UPDATED_NEW`
/// (the whole attribute, even when the update wrote below it).
pub(crate) fn pick<'p>(from: &Item, paths: impl Iterator<Item = PathRef<'p>>) -> Item {
    let mut out = Item::new();
    for p in paths {
        if get(from, p).is_some()
            && let Some(v) = from.get(p.attribute)
        {
            out.insert(p.attribute.to_owned(), v.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use singletable_core::expr::Path;

    fn n(x: i64) -> AttributeValue {
        AttributeValue::N(x.to_string())
    }

    #[test]
    fn reads_and_writes_nested_paths() {
        let mut item = Item::new();
        item.insert("m".into(), AttributeValue::M(Item::new()));
        item.insert("l".into(), AttributeValue::L(vec![n(0), n(1)]));
        set(&mut item, Path::new("m").key("a.b").as_ref(), n(1)).unwrap();
        set(&mut item, Path::new("l").index(9).as_ref(), n(2)).unwrap();
        assert_eq!(get(&item, Path::new("m").key("a.b").as_ref()), Some(&n(1)));
        assert_eq!(get(&item, Path::new("l").index(2).as_ref()), Some(&n(2)));
        assert!(set(&mut item, Path::new("x").key("a").as_ref(), n(1)).is_err());
        assert!(set(&mut item, Path::new("m").index(0).as_ref(), n(1)).is_err());
        remove(&mut item, Path::new("l").index(0).as_ref()).unwrap();
        remove(&mut item, Path::new("l").index(7).as_ref()).unwrap();
        assert_eq!(item["l"], AttributeValue::L(vec![n(1), n(2)]));
        assert!(remove(&mut item, Path::new("x").key("a").as_ref()).is_err());
        assert_eq!(
            describe(Path::new("m").key("b").index(0).as_ref()),
            "m, b, [0]"
        );
    }
}
