//! ProjectionExpressions of document paths, applied the way DynamoDB
//! applies them: an attribute named whole is returned whole; one named
//! below holds only what the paths name (a map only the entries named, a
//! list only the elements named, in list order); a path that does not
//! resolve returns nothing, and an attribute of which nothing resolves is
//! left out.

use crate::value::{AttributeValue, Item};
use singletable_core::expr::{Path, PathStep};

/// What a projection keeps below one attribute.
#[derive(Debug, Default)]
pub(crate) struct Node {
    whole: bool,
    keys: Vec<(String, Node)>,
    /// In index order.
    indexes: Vec<(usize, Node)>,
}

impl Node {
    fn add(&mut self, steps: &[PathStep]) {
        let Some((first, rest)) = steps.split_first() else {
            self.whole = true;
            return;
        };
        let child = match first {
            PathStep::Key(k) => match self.keys.iter().position(|(x, _)| x == k) {
                Some(i) => &mut self.keys[i].1,
                None => {
                    self.keys.push((k.clone(), Node::default()));
                    let last = self.keys.len() - 1;
                    &mut self.keys[last].1
                }
            },
            PathStep::Index(n) => match self.indexes.binary_search_by_key(n, |(x, _)| *x) {
                Ok(i) => &mut self.indexes[i].1,
                Err(i) => {
                    self.indexes.insert(i, (*n, Node::default()));
                    &mut self.indexes[i].1
                }
            },
        };
        child.add(rest);
    }

    /// Whether the attribute is kept whole.
    pub(crate) fn is_whole(&self) -> bool {
        self.whole
    }

    /// What the projection keeps of `v`, `None` when nothing resolves.
    pub(crate) fn apply(&self, v: AttributeValue) -> Option<AttributeValue> {
        if self.whole {
            return Some(v);
        }
        match v {
            AttributeValue::M(mut m) if !self.keys.is_empty() => {
                let out: Item = self
                    .keys
                    .iter()
                    .filter_map(|(k, n)| {
                        let v = n.apply(m.remove(k)?)?;
                        Some((k.clone(), v))
                    })
                    .collect();
                (!out.is_empty()).then_some(AttributeValue::M(out))
            }
            AttributeValue::L(mut l) if !self.indexes.is_empty() => {
                let out: Vec<AttributeValue> = self
                    .indexes
                    .iter()
                    .filter_map(|(i, n)| {
                        let v = std::mem::replace(l.get_mut(*i)?, AttributeValue::Null(true));
                        n.apply(v)
                    })
                    .collect();
                (!out.is_empty()).then_some(AttributeValue::L(out))
            }
            _ => None,
        }
    }
}

/// A ProjectionExpression's paths, grouped by top-level attribute.
#[derive(Debug, Default)]
pub(crate) struct Projection {
    tops: Vec<(String, Node)>,
}

impl Projection {
    pub(crate) fn new<'p>(paths: impl IntoIterator<Item = &'p Path>) -> Self {
        let mut out = Self::default();
        for p in paths {
            let node = match out.tops.iter().position(|(a, _)| a == p.attribute()) {
                Some(i) => &mut out.tops[i].1,
                None => {
                    out.tops.push((p.attribute().to_owned(), Node::default()));
                    let last = out.tops.len() - 1;
                    &mut out.tops[last].1
                }
            };
            node.add(p.steps());
        }
        out
    }

    /// What the projection keeps of the attribute `name`, `None` when it
    /// keeps none of it.
    pub(crate) fn attribute(&self, name: &str) -> Option<&Node> {
        self.tops.iter().find(|(a, _)| a == name).map(|(_, n)| n)
    }

    /// The item holding what the projection keeps of `item`.
    pub(crate) fn apply(&self, mut item: Item) -> Item {
        self.tops
            .iter()
            .filter_map(|(a, n)| Some((a.clone(), n.apply(item.remove(a)?)?)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> AttributeValue {
        AttributeValue::S(x.into())
    }

    #[test]
    fn keeps_what_the_paths_name() {
        let mut addr = Item::new();
        addr.insert("city".into(), s("Lyon"));
        addr.insert("zip".into(), s("69001"));
        let mut item = Item::new();
        item.insert("address".into(), AttributeValue::M(addr));
        item.insert("l".into(), AttributeValue::L(vec![s("a"), s("b"), s("c")]));
        item.insert("x".into(), s("y"));
        let paths = [
            Path::new("l").index(2),
            Path::new("address").key("city"),
            Path::new("l").index(0),
            Path::new("l").index(9),
            Path::new("x").key("nope"),
            Path::new("gone"),
        ];
        let out = Projection::new(&paths).apply(item);
        assert_eq!(out.len(), 2);
        assert_eq!(out["l"], AttributeValue::L(vec![s("a"), s("c")]));
        let AttributeValue::M(m) = &out["address"] else {
            panic!("a map")
        };
        assert_eq!(m.len(), 1);
        assert_eq!(m["city"], s("Lyon"));
    }
}
