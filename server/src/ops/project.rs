//! A projection applied to a whole item (GetItem, Scan, batch and
//! transaction reads, whose engine requests carry no projection): each
//! path's value is copied out, list elements keep their order and close
//! up, as DynamoDB returns them.

use std::collections::{BTreeMap, HashMap};

use singletable_embedded::Embedded;
use singletable_runtime::expr::{Path, PathStep};
use singletable_runtime::value::{AttributeValue, Item};

enum Node {
    Leaf(AttributeValue),
    Map(BTreeMap<String, Node>),
    List(BTreeMap<usize, Node>),
}

fn insert(node: &mut Node, steps: &[PathStep], value: &AttributeValue) {
    let Some((first, rest)) = steps.split_first() else {
        *node = Node::Leaf(value.clone());
        return;
    };
    let child = match (first, &mut *node) {
        (PathStep::Key(k), Node::Map(m)) => {
            m.entry(k.clone()).or_insert(Node::Map(BTreeMap::new()))
        }
        (PathStep::Index(i), Node::List(l)) => l.entry(*i).or_insert(Node::Map(BTreeMap::new())),
        // A whole value was already taken at a shorter path.
        (_, Node::Leaf(_)) => return,
        _ => return,
    };
    if rest.is_empty() {
        *child = Node::Leaf(value.clone());
        return;
    }
    if let Node::Map(m) = child
        && m.is_empty()
    {
        *child = match rest[0] {
            PathStep::Key(_) => Node::Map(BTreeMap::new()),
            PathStep::Index(_) => Node::List(BTreeMap::new()),
        };
    }
    insert(child, rest, value);
}

fn value_of(node: Node) -> AttributeValue {
    match node {
        Node::Leaf(v) => v,
        Node::Map(m) => AttributeValue::M(m.into_iter().map(|(k, v)| (k, value_of(v))).collect()),
        Node::List(l) => AttributeValue::L(l.into_values().map(value_of).collect()),
    }
}

fn at<'a>(item: &'a Item, path: &Path) -> Option<&'a AttributeValue> {
    let mut v = item.get(path.attribute())?;
    for step in path.steps() {
        v = match (step, v) {
            (PathStep::Key(k), AttributeValue::M(m)) => m.get(k)?,
            (PathStep::Index(i), AttributeValue::L(l)) => l.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The attributes of `item` that `paths` name.
/// Checks a projection the engine never sees (it checks a Query's
/// itself), after the engine has checked the rest of the request, in the
/// order DynamoDB Local reports errors.
pub(crate) fn checked(paths: Option<&[Path]>) -> Result<(), crate::error::ApiError> {
    match paths {
        Some(p) => Embedded::check_projection(p).map_err(super::engine),
        None => Ok(()),
    }
}

pub(crate) fn project(item: &Item, paths: &[Path]) -> Item {
    let mut roots: HashMap<String, Node> = HashMap::new();
    for p in paths {
        let Some(v) = at(item, p) else { continue };
        let root =
            roots
                .entry(p.attribute().to_owned())
                .or_insert_with(|| match p.steps().first() {
                    None => Node::Leaf(v.clone()),
                    Some(PathStep::Key(_)) => Node::Map(BTreeMap::new()),
                    Some(PathStep::Index(_)) => Node::List(BTreeMap::new()),
                });
        if p.steps().is_empty() {
            *root = Node::Leaf(v.clone());
        } else {
            insert(root, p.steps(), v);
        }
    }
    roots.into_iter().map(|(k, n)| (k, value_of(n))).collect()
}
