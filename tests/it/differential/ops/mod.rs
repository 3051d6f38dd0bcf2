//! The operations the differential test generates: abstract over a small
//! key space (so conditions hold and fail, keys collide, index keys tie),
//! made concrete for one case by prefixing every partition value, so cases
//! share a table without seeing each other's items.

use proptest::prelude::*;
use proptest::sample::select;
use singletable::{AttributeValue, Blob, Item};
use singletable_runtime::expr::{
    AttrKeyCondition, AttrRange, Cmp, Condition, KeyCondition, Operand, Path, SortCondition,
};
use singletable_runtime::request::{
    BatchGet, BatchOp, BatchWrite, ConditionCheck, DeleteItem, GetItem, PutItem, QueryRequest,
    ReturnValues, ScanRequest, ScanSegment, SetValue, TransactGet, TransactWrite, TransactWriteOp,
    UpdateAction, UpdateItem,
};

/// Sort keys: byte order differs from code-point order between the last two.
const SORT_KEYS: [&str; 7] = ["a", "ab", "b", "b\u{0}", "c", "\u{ffff}", "\u{10000}"];
/// Index sort keys: few, so entries tie on them.
const INDEX_SORT_KEYS: [&str; 3] = ["k1", "k2", "k3"];
const NUMS: [&str; 10] = [
    "0",
    "1",
    "-1",
    "2.5",
    "10",
    "1e2",
    "0.10",
    "-0.5",
    "12345678901234567890123456789012345678",
    "1e-130",
];
const STRS: [&str; 7] = ["", "x", "xy", "y", "é", "x\u{0}", "k2"];
const TYPES: [&str; 11] = [
    "S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS", "X",
];
/// Attributes items carry besides keys.
const ATTRS: [&str; 7] = ["a", "s", "n", "l", "ss", "ns", "b"];
/// Index key attributes of the test table: the synthetic ones, then the
/// attributes of the multi-attribute index `GSI3` (`mt` S, `mr` N
/// partition; `ms` S, `mn` N sort).
const INDEX_ATTRS: [&str; 8] = [
    "GSI1PK", "GSI1SK", "GSI2PK", "LSI1SK", "mt", "mr", "ms", "mn",
];
/// Index key attributes updates write (see `update_attr`).
const UPDATE_INDEX_ATTRS: [&str; 7] = ["GSI1PK", "GSI1SK", "GSI2PK", "mt", "mr", "ms", "mn"];
/// Numbers of `GSI3`'s sort attribute `mn`: negative, fractions, exponents.
const INDEX_NUMS: [&str; 7] = ["-1", "0", "1", "2.5", "10", "1e2", "-0.5"];

/// A value, concrete once a case's prefix is known.
#[derive(Debug, Clone)]
pub enum Val {
    N(&'static str),
    S(&'static str),
    /// A partition value of a global index: prefixed per case.
    Part(u8),
    B(Vec<u8>),
    Bool(bool),
    Null,
    L(Vec<Val>),
    M(Vec<(&'static str, Val)>),
    Ss(Vec<&'static str>),
    Ns(Vec<&'static str>),
}

impl Val {
    pub fn make(&self, prefix: &str) -> AttributeValue {
        match self {
            Val::N(n) => AttributeValue::N((*n).to_owned()),
            Val::S(s) => AttributeValue::S((*s).to_owned()),
            Val::Part(p) => AttributeValue::S(format!("{prefix}g{p}")),
            Val::B(b) => AttributeValue::B(Blob::new(b.clone())),
            Val::Bool(b) => AttributeValue::Bool(*b),
            Val::Null => AttributeValue::Null(true),
            Val::L(l) => AttributeValue::L(l.iter().map(|v| v.make(prefix)).collect()),
            Val::M(m) => AttributeValue::M(
                m.iter()
                    .map(|(k, v)| ((*k).to_owned(), v.make(prefix)))
                    .collect(),
            ),
            Val::Ss(s) => AttributeValue::Ss(s.iter().map(|s| (*s).to_owned()).collect()),
            Val::Ns(s) => AttributeValue::Ns(s.iter().map(|s| (*s).to_owned()).collect()),
        }
    }
}

/// A primary key of the test table, usually valid.
#[derive(Debug, Clone)]
pub enum Key {
    Valid { p: u8, s: u8 },
    EmptySort { p: u8 },
    NumberSort { p: u8 },
    MissingSort { p: u8 },
}

impl Key {
    pub fn make(&self, prefix: &str) -> Item {
        let mut k = Item::new();
        let (p, sk) = match self {
            Key::Valid { p, s } => (p, Some(AttributeValue::S(SORT_KEYS[*s as usize].into()))),
            Key::EmptySort { p } => (p, Some(AttributeValue::S(String::new()))),
            Key::NumberSort { p } => (p, Some(AttributeValue::N("1".into()))),
            Key::MissingSort { p } => (p, None),
        };
        k.insert("PK".into(), AttributeValue::S(format!("{prefix}P{p}")));
        if let Some(sk) = sk {
            k.insert("SK".into(), sk);
        }
        k
    }
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        60 => (0u8..2, 0u8..SORT_KEYS.len() as u8).prop_map(|(p, s)| Key::Valid { p, s }),
        1 => (0u8..2).prop_map(|p| Key::EmptySort { p }),
        1 => (0u8..2).prop_map(|p| Key::NumberSort { p }),
        1 => (0u8..2).prop_map(|p| Key::MissingSort { p }),
    ]
}

fn scalar() -> impl Strategy<Value = Val> {
    prop_oneof![
        4 => select(&NUMS[..]).prop_map(Val::N),
        4 => select(&STRS[..]).prop_map(Val::S),
        1 => prop::collection::vec(0u8..3, 0..3).prop_map(Val::B),
        1 => any::<bool>().prop_map(Val::Bool),
        1 => Just(Val::Null),
    ]
}

fn string_set() -> impl Strategy<Value = Val> {
    prop_oneof![
        8 => prop::sample::subsequence(&STRS[1..5], 1..3).prop_map(Val::Ss),
        1 => prop::collection::vec(select(&STRS[..]), 0..3).prop_map(Val::Ss),
    ]
}

fn number_set() -> impl Strategy<Value = Val> {
    prop_oneof![
        8 => prop::sample::subsequence(&NUMS[..8], 1..3).prop_map(Val::Ns),
        1 => prop::collection::vec(select(&NUMS[..]), 0..3).prop_map(Val::Ns),
    ]
}

/// Map keys of generated maps, and the keys paths read.
const MAP_KEYS: [&str; 3] = ["x", "y", "x.y"];

fn value() -> impl Strategy<Value = Val> {
    let leaf = prop_oneof![
        8 => scalar(),
        2 => string_set(),
        2 => number_set(),
    ];
    // Lists and maps of anything, two levels deep at most, so that
    // document paths (`a.x[1]`) find something to read and write.
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            2 => prop::collection::vec(inner.clone(), 0..3).prop_map(Val::L),
            1 => prop::collection::vec((select(&MAP_KEYS[..]), inner), 0..3).prop_map(Val::M),
        ]
    })
}

/// A value for an index key attribute: mostly of the index's type.
fn index_value(attr: &'static str) -> BoxedStrategy<Val> {
    let good = match attr {
        "GSI1PK" | "GSI2PK" | "mt" => (0u8..2).prop_map(Val::Part).boxed(),
        "mr" => select(&["1", "2"][..]).prop_map(Val::N).boxed(),
        "mn" => select(&INDEX_NUMS[..]).prop_map(Val::N).boxed(),
        _ => select(&INDEX_SORT_KEYS[..]).prop_map(Val::S).boxed(),
    };
    if matches!(attr, "mr" | "mn") {
        return prop_oneof![30 => good, 1 => Just(Val::S("x"))].boxed();
    }
    prop_oneof![
        30 => good,
        1 => Just(Val::N("1")),
        1 => Just(Val::S("")),
    ]
    .boxed()
}

/// A map attribute `a` and a list attribute `l`, for paths to read and write.
fn document() -> impl Strategy<Value = (&'static str, Val)> {
    prop_oneof![
        (
            Just("a"),
            prop::collection::vec((select(&MAP_KEYS[..]), value()), 0..3).prop_map(Val::M)
        ),
        (
            Just("l"),
            prop::collection::vec(value(), 0..4).prop_map(Val::L)
        ),
    ]
}

/// Non-key attributes of an item.
fn attrs() -> impl Strategy<Value = Vec<(&'static str, Val)>> {
    let plain = prop::collection::vec(
        prop_oneof![3 => (select(&ATTRS[..]), value()), 2 => document()],
        0..4,
    );
    let index = prop::collection::vec(
        select(&INDEX_ATTRS[..]).prop_flat_map(|a| index_value(a).prop_map(move |v| (a, v))),
        0..4,
    );
    // Half the items carry every key attribute of GSI3, so its queries
    // find some.
    let multi = prop_oneof![
        1 => Just(Vec::new()),
        1 => (
            index_value("mt"),
            index_value("mr"),
            index_value("ms"),
            index_value("mn")
        )
            .prop_map(|(t, r, s, n)| vec![("mt", t), ("mr", r), ("ms", s), ("mn", n)]),
    ];
    (plain, index, multi).prop_map(|(mut a, i, m)| {
        a.extend(m);
        a.extend(i);
        a
    })
}

fn attr_name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        8 => select(&ATTRS[..]),
        1 => select(&["PK", "SK", "GSI1PK", "GSI1SK", "LSI1SK", "zz"][..]),
    ]
}

/// A path below an attribute: map keys and list indexes, in range or not.
fn steps(attr: &'static str) -> impl Strategy<Value = Path> {
    let step = prop_oneof![
        1 => select(&MAP_KEYS[..]).prop_map(|k| (Some(k), 0usize)),
        1 => select(&[0usize, 1, 2, 5][..]).prop_map(|i| (None, i)),
    ];
    prop::collection::vec(step, 1..3).prop_map(move |steps| {
        steps.into_iter().fold(Path::new(attr), |p, s| match s {
            (Some(k), _) => p.key(k),
            (None, i) => p.index(i),
        })
    })
}

/// An attribute paths start at: mostly the map `a` and the list `l`.
fn doc_attr() -> impl Strategy<Value = &'static str> {
    prop_oneof![3 => Just("a"), 3 => Just("l"), 1 => select(&ATTRS[..])]
}

/// A document path conditions read: mostly a top-level attribute.
fn doc_path() -> impl Strategy<Value = Path> {
    prop_oneof![
        4 => attr_name().prop_map(Path::new),
        3 => doc_attr().prop_flat_map(steps),
    ]
}

fn cmp() -> impl Strategy<Value = Cmp> {
    select(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge][..])
}

fn plain(v: Val) -> AttributeValue {
    v.make("")
}

fn leaf_condition() -> impl Strategy<Value = Condition> {
    prop_oneof![
        3 => doc_path().prop_map(Condition::exists),
        3 => doc_path().prop_map(Condition::not_exists),
        6 => (doc_path(), cmp(), value())
            .prop_map(move |(p, op, v)| Condition::Compare(Operand::Path(p), op, Operand::Value(plain(v)))),
        2 => (doc_path(), cmp(), 0usize..4).prop_map(move |(p, op, n)| {
            Condition::Compare(
                Operand::Size(p),
                op,
                Operand::Value(AttributeValue::N(n.to_string())),
            )
        }),
        1 => (doc_path(), cmp(), doc_path())
            .prop_map(move |(a, op, b)| Condition::Compare(Operand::Path(a), op, Operand::Path(b))),
        2 => (doc_path(), scalar(), scalar()).prop_map(move |(p, lo, hi)| {
            Condition::Between(Operand::Path(p), Operand::Value(plain(lo)), Operand::Value(plain(hi)))
        }),
        2 => (doc_path(), prop::collection::vec(scalar(), 1..3)).prop_map(move |(p, l)| {
            Condition::In(Operand::Path(p), l.into_iter().map(|v| Operand::Value(plain(v))).collect())
        }),
        2 => (doc_path(), scalar()).prop_map(|(p, v)| Condition::BeginsWith(p, plain(v))),
        2 => (doc_path(), value()).prop_map(|(p, v)| Condition::Contains(p, plain(v))),
        1 => (doc_path(), select(&TYPES[..])).prop_map(|(p, t)| Condition::AttributeType(p, t)),
    ]
}

pub fn condition() -> impl Strategy<Value = Condition> {
    leaf_condition().prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.and(b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.or(b)),
            inner.prop_map(Condition::not),
        ]
    })
}

fn maybe_condition() -> impl Strategy<Value = Option<Condition>> {
    prop_oneof![1 => Just(None), 2 => condition().prop_map(Some)]
}

/// One action of an update expression.
#[derive(Debug, Clone)]
pub enum Act {
    Set(Path, u8, Val),
    Remove(Path),
    Add(Path, Val),
    Delete(Path, Val),
}

impl Act {
    fn make(&self, prefix: &str) -> UpdateAction {
        match self {
            Act::Set(p, how, v) => {
                let v = v.make(prefix);
                UpdateAction::set(
                    p.clone(),
                    match how {
                        0 => SetValue::IfNotExists(v),
                        1 => SetValue::Append(v),
                        2 => SetValue::Prepend(v),
                        3 => SetValue::Increment(v),
                        _ => SetValue::Value(v),
                    },
                )
            }
            Act::Remove(p) => UpdateAction::remove(p.clone()),
            Act::Add(p, v) => UpdateAction::add(p.clone(), v.make(prefix)),
            Act::Delete(p, v) => UpdateAction::delete(p.clone(), v.make(prefix)),
        }
    }
}

/// Attributes updates write. DynamoDB Local lets UpdateItem store a local
/// index's sort key with the wrong type (and lists the item in the index);
/// DynamoDB and the embedded backend refuse it, so updates give `LSI1SK`
/// strings only (see `action`).
fn update_attr() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        12 => select(&ATTRS[..]),
        3 => select(&UPDATE_INDEX_ATTRS[..]),
        1 => select(&["PK", "SK"][..]),
    ]
}

/// A path updates write: an attribute, or a path below a plain attribute
/// (or, rarely, below a key attribute).
fn update_path() -> impl Strategy<Value = Path> {
    prop_oneof![
        6 => update_attr().prop_map(Path::new),
        4 => doc_attr().prop_flat_map(steps),
        1 => select(&["PK", "GSI1SK"][..]).prop_flat_map(steps),
    ]
}

fn action() -> impl Strategy<Value = Act> {
    let set_value = prop_oneof![
        8 => update_attr(),
        1 => Just("LSI1SK"),
    ]
    .prop_flat_map(|a| {
        let v = match a {
            "LSI1SK" => select(&["k1", "k2", "k3", ""][..]).prop_map(Val::S).boxed(),
            a if INDEX_ATTRS.contains(&a) => index_value(a),
            _ => value().boxed(),
        };
        (Just(a), 4u8..8, v).prop_map(|(a, how, v)| Act::Set(Path::new(a), how, v))
    });
    let list = prop::collection::vec(scalar(), 0..3).prop_map(Val::L);
    prop_oneof![
        6 => set_value,
        3 => (doc_attr().prop_flat_map(steps), 4u8..8, value())
            .prop_map(|(p, how, v)| Act::Set(p, how, v)),
        1 => (update_path(), Just(0u8), value()).prop_map(|(a, h, v)| Act::Set(a, h, v)),
        1 => (update_path(), 1u8..3, prop_oneof![4 => list, 1 => scalar()])
            .prop_map(|(a, h, v)| Act::Set(a, h, v)),
        2 => (update_path(), Just(3u8), prop_oneof![4 => select(&NUMS[..]).prop_map(Val::N), 1 => scalar()])
            .prop_map(|(a, h, v)| Act::Set(a, h, v)),
        3 => update_path().prop_map(Act::Remove),
        2 => (update_path(), prop_oneof![2 => select(&NUMS[..]).prop_map(Val::N), 2 => string_set(), 2 => number_set(), 1 => scalar()])
            .prop_map(|(a, v)| Act::Add(a, v)),
        2 => (update_path(), prop_oneof![2 => string_set(), 2 => number_set(), 1 => scalar()])
            .prop_map(|(a, v)| Act::Delete(a, v)),
    ]
}

fn return_values() -> impl Strategy<Value = ReturnValues> {
    select(
        &[
            ReturnValues::None,
            ReturnValues::AllOld,
            ReturnValues::AllNew,
            ReturnValues::UpdatedOld,
            ReturnValues::UpdatedNew,
        ][..],
    )
}

/// A query: target 0 table, 1 GSI1, 2 GSI2 (no sort key, keys only), 3 LSI1,
/// 4 GSI3 (multi-attribute key: partition `mt`, `mr`; sort `ms`, `mn`).
#[derive(Debug, Clone)]
pub struct Q {
    pub target: u8,
    pub p: u8,
    /// Sort condition: kind 0..7 (=, <, <=, >, >=, BETWEEN, begins_with) and values.
    pub sort: Option<(u8, &'static str, &'static str)>,
    pub forward: bool,
    pub limit: Option<i32>,
    pub filter: Option<Condition>,
    pub projection: Option<Vec<Path>>,
    pub consistent: bool,
    /// Pages to follow through LastEvaluatedKey.
    pub pages: u8,
    /// On GSI3: the value of `mr`, and the shape of the sort conditions: 0
    /// none, 1 a condition on `ms` (`sort`), 2 `ms = sort.1` and a condition
    /// on `mn` (`nums`), 3 a condition on `mn` alone (refused: `ms` is
    /// skipped), 4 `begins_with` on `mn` (refused: a number).
    pub multi: (u8, u8, (u8, &'static str, &'static str)),
}

impl Q {
    pub fn request(&self, table: &str, prefix: &str, start: Option<Item>) -> QueryRequest {
        let (index, pk_attr, sk_attr, pk) = match self.target {
            0 => (None, "PK", Some("SK"), format!("{prefix}P{}", self.p)),
            1 => (
                Some("GSI1"),
                "GSI1PK",
                Some("GSI1SK"),
                format!("{prefix}g{}", self.p),
            ),
            2 => (Some("GSI2"), "GSI2PK", None, format!("{prefix}g{}", self.p)),
            _ => (
                Some("LSI1"),
                "PK",
                Some("LSI1SK"),
                format!("{prefix}P{}", self.p),
            ),
        };
        if self.target == 4 {
            return self.multi_request(table, prefix, start);
        }
        let sk = self.sort.map(|(kind, a, b)| {
            let (a, b) = (a.to_owned(), b.to_owned());
            let cond = match kind {
                0 => SortCondition::Compare(Cmp::Eq, a),
                1 => SortCondition::Compare(Cmp::Lt, a),
                2 => SortCondition::Compare(Cmp::Le, a),
                3 => SortCondition::Compare(Cmp::Gt, a),
                4 => SortCondition::Compare(Cmp::Ge, a),
                5 => SortCondition::Between(a, b),
                _ => SortCondition::BeginsWith(a),
            };
            (sk_attr.unwrap_or("SK").to_owned(), cond)
        });
        QueryRequest {
            table: table.to_owned(),
            index: index.map(str::to_owned),
            key: KeyCondition {
                pk_attr: pk_attr.to_owned(),
                pk,
                sk,
                attrs: None,
            },
            filter: self.filter.clone(),
            limit: self.limit,
            forward: self.forward,
            consistent: self.consistent,
            projection: self
                .projection
                .as_ref()
                .map(|p| p.iter().map(|a| (*a).to_owned()).collect()),
            start,
        }
    }
}

impl Q {
    fn multi_request(&self, table: &str, prefix: &str, start: Option<Item>) -> QueryRequest {
        let (mr, shape, (nkind, n1, n2)) = self.multi;
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let n = |v: &str| AttributeValue::N(v.to_owned());
        let range = |kind: u8, a: AttributeValue, b: AttributeValue, prefix: &str| match kind {
            0 => AttrRange::Compare(Cmp::Eq, a),
            1 => AttrRange::Compare(Cmp::Lt, a),
            2 => AttrRange::Compare(Cmp::Le, a),
            3 => AttrRange::Compare(Cmp::Gt, a),
            4 => AttrRange::Compare(Cmp::Ge, a),
            5 => AttrRange::Between(a, b),
            _ => AttrRange::BeginsWith(AttributeValue::S(prefix.to_owned())),
        };
        let mut equal = vec![
            ("mt".to_owned(), s(&format!("{prefix}g{}", self.p))),
            ("mr".to_owned(), n(["1", "2"][mr as usize % 2])),
        ];
        let (kind, a, b) = self.sort.unwrap_or((0, "k1", "k2"));
        let range = match shape {
            0 => None,
            1 => Some(("ms".to_owned(), range(kind, s(a), s(b), a))),
            2 => {
                equal.push(("ms".to_owned(), s(a)));
                Some(("mn".to_owned(), range(nkind.min(5), n(n1), n(n2), n1)))
            }
            3 => Some(("mn".to_owned(), range(nkind.min(5), n(n1), n(n2), n1))),
            _ => {
                equal.push(("ms".to_owned(), s(a)));
                Some((
                    "mn".to_owned(),
                    AttrRange::BeginsWith(AttributeValue::S(n1.to_owned())),
                ))
            }
        };
        QueryRequest {
            table: table.to_owned(),
            index: Some("GSI3".to_owned()),
            key: KeyCondition {
                pk_attr: String::new(),
                pk: String::new(),
                sk: None,
                attrs: Some(AttrKeyCondition { equal, range }),
            },
            filter: self.filter.clone(),
            limit: self.limit,
            forward: self.forward,
            consistent: self.consistent,
            projection: self.projection.clone(),
            start,
        }
    }
}

fn sort_value(target: u8) -> BoxedStrategy<&'static str> {
    match target {
        0 => prop_oneof![10 => select(&SORT_KEYS[..]), 1 => Just("")].boxed(),
        _ => prop_oneof![10 => select(&INDEX_SORT_KEYS[..]), 2 => select(&["k", "j", "l"][..]), 1 => Just("")].boxed(),
    }
}

fn query() -> impl Strategy<Value = Q> {
    query_of(prop_oneof![4 => 0u8..4, 1 => Just(4u8)])
}

/// A query of the multi-attribute index `GSI3`.
fn multi_query() -> impl Strategy<Value = Q> {
    query_of(Just(4u8))
}

fn query_of(target: impl Strategy<Value = u8>) -> impl Strategy<Value = Q> {
    target.prop_flat_map(|target| {
        let sort = prop_oneof![
            1 => Just(None),
            3 => (0u8..7, sort_value(target), sort_value(target)).prop_map(Some),
        ];
        let filter = prop_oneof![3 => Just(None), 1 => condition().prop_map(Some)];
        let projection = prop_oneof![
            6 => Just(None),
            1 => prop::sample::subsequence(&["a", "s", "PK", "SK", "GSI1SK", "zz"][..], 0..3)
                .prop_map(|p| Some(p.into_iter().map(Path::new).collect())),
        ];
        (
            Just(target),
            0u8..2,
            sort,
            any::<bool>(),
            prop_oneof![2 => Just(None), 3 => (0i32..4).prop_map(Some)],
            filter,
            projection,
            prop::bool::weighted(0.1),
            1u8..4,
            (
                prop_oneof![4 => Just(0u8), 1 => Just(1u8)],
                prop_oneof![2 => Just(0u8), 4 => Just(1u8), 6 => Just(2u8), 1 => Just(3u8), 1 => Just(4u8)],
                (0u8..6, select(&INDEX_NUMS[..]), select(&INDEX_NUMS[..])),
            ),
        )
            .prop_map(
                |(target, p, sort, forward, limit, filter, projection, consistent, pages, multi)| Q {
                    target,
                    p,
                    sort,
                    forward,
                    limit,
                    filter,
                    projection,
                    consistent,
                    pages,
                    multi,
                },
            )
    })
}

/// One operation of a transaction.
#[derive(Debug, Clone)]
pub enum TxOp {
    Put(Key, Vec<(&'static str, Val)>, Option<Condition>, bool),
    Update(Key, Vec<Act>, Option<Condition>, bool),
    Delete(Key, Option<Condition>, bool),
    Check(Key, Condition, bool),
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        (key(), attrs(), maybe_condition(), any::<bool>())
            .prop_map(|(k, a, c, f)| TxOp::Put(k, a, c, f)),
        (
            key(),
            prop::collection::vec(action(), 1..3),
            maybe_condition(),
            any::<bool>()
        )
            .prop_map(|(k, a, c, f)| TxOp::Update(k, a, c, f)),
        (key(), maybe_condition(), any::<bool>()).prop_map(|(k, c, f)| TxOp::Delete(k, c, f)),
        (key(), condition(), any::<bool>()).prop_map(|(k, c, f)| TxOp::Check(k, c, f)),
    ]
}

/// Non-key attributes of an item.
pub type Attrs = Vec<(&'static str, Val)>;

/// One generated operation.
#[derive(Debug, Clone)]
pub enum Op {
    Put {
        key: Key,
        attrs: Vec<(&'static str, Val)>,
        cond: Option<Condition>,
        return_old: bool,
        fail_item: bool,
    },
    Update {
        key: Key,
        actions: Vec<Act>,
        cond: Option<Condition>,
        rv: ReturnValues,
        fail_item: bool,
    },
    Delete {
        key: Key,
        cond: Option<Condition>,
        return_old: bool,
        fail_item: bool,
    },
    Get(Key, bool),
    Query(Q),
    Scan {
        index: Option<u8>,
        limit: Option<i32>,
        start: Option<Key>,
        filter: Option<Condition>,
        /// A segment of a parallel scan of the table, from the start.
        segment: Option<(u32, u32)>,
    },
    Transact(Vec<TxOp>, Option<u8>),
    BatchWrite(Vec<(Key, Option<Attrs>)>),
    BatchGet(Vec<Key>),
    TransactGet(Vec<Key>),
}

/// An item of `GSI3` and nothing else: every key attribute, of its type
/// (almost always).
fn multi_attrs() -> impl Strategy<Value = Attrs> {
    (
        index_value("mt"),
        prop_oneof![4 => Just(Val::N("1")), 1 => index_value("mr")],
        index_value("ms"),
        index_value("mn"),
        prop::option::of((select(&ATTRS[..2]), scalar())),
    )
        .prop_map(|(t, r, s, n, extra)| {
            let mut v = vec![("mt", t), ("mr", r), ("ms", s), ("mn", n)];
            v.extend(extra);
            v
        })
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), multi_attrs()).prop_map(
            |(key, attrs)| Op::Put { key, attrs, cond: None, return_old: false, fail_item: false }
        ),
        8 => (key(), attrs(), maybe_condition(), any::<bool>(), any::<bool>()).prop_map(
            |(key, attrs, cond, return_old, fail_item)| Op::Put { key, attrs, cond, return_old, fail_item }
        ),
        6 => (key(), prop::collection::vec(action(), 0..4), maybe_condition(), return_values(), any::<bool>())
            .prop_map(|(key, actions, cond, rv, fail_item)| Op::Update { key, actions, cond, rv, fail_item }),
        3 => (key(), maybe_condition(), any::<bool>(), any::<bool>()).prop_map(
            |(key, cond, return_old, fail_item)| Op::Delete { key, cond, return_old, fail_item }
        ),
        2 => (key(), any::<bool>()).prop_map(|(k, c)| Op::Get(k, c)),
        8 => query().prop_map(Op::Query),
        4 => multi_query().prop_map(Op::Query),
        1 => (
            // Local indexes are not scanned: DynamoDB Local orders a scan of
            // one by sort key where its queries order by hash (see the
            // embedded module's documentation).
            prop_oneof![3 => Just(None), 1 => (1u8..3).prop_map(Some)],
            prop_oneof![1 => Just(None), 3 => (1i32..4).prop_map(Some)],
            prop_oneof![1 => Just(None), 1 => key().prop_map(Some)],
            prop_oneof![1 => Just(None), 1 => condition().prop_map(Some)],
            prop_oneof![
                2 => Just(None),
                1 => (1u32..6).prop_flat_map(|n| (0..n).prop_map(move |s| Some((s, n)))),
            ],
        )
            .prop_map(|(index, limit, start, filter, segment)| {
                // DynamoDB refuses a start key outside the segment.
                let segment = segment.filter(|_| index.is_none() && start.is_none());
                Op::Scan { index, limit, start, filter, segment }
            }),
        4 => (prop::collection::vec(tx_op(), 1..5), prop_oneof![3 => Just(None), 1 => (0u8..2).prop_map(Some)])
            .prop_map(|(ops, token)| Op::Transact(ops, token)),
        2 => prop::collection::vec((key(), prop_oneof![1 => Just(None), 3 => attrs().prop_map(Some)]), 1..5)
            .prop_map(Op::BatchWrite),
        2 => prop::collection::vec(key(), 1..5).prop_map(Op::BatchGet),
        1 => prop::collection::vec(key(), 1..4).prop_map(Op::TransactGet),
    ]
}

mod concrete;
mod shaped;

pub use concrete::*;
pub use shaped::*;
