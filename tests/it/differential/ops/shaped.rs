//! Updates and conditions shaped to the documents the generator makes, so
//! nested paths resolve more often than they fail.

use super::*;

/// A path that fits the documents [`document`] makes: a key of the map
/// `a`, an index of the list `l`, then anything.
fn shaped_path() -> impl Strategy<Value = Path> {
    let first = prop_oneof![
        (
            Just("a"),
            select(&MAP_KEYS[..]).prop_map(|k| (Some(k), 0usize))
        ),
        (
            Just("l"),
            select(&[0usize, 1, 2, 5][..]).prop_map(|i| (None, i))
        ),
    ];
    let more = prop_oneof![
        1 => select(&MAP_KEYS[..]).prop_map(|k| (Some(k), 0usize)),
        1 => select(&[0usize, 1, 3][..]).prop_map(|i| (None, i)),
    ];
    (first, prop::collection::vec(more, 0..2)).prop_map(|((attr, step), more)| {
        std::iter::once(step)
            .chain(more)
            .fold(Path::new(attr), |p, s| match s {
                (Some(k), _) => p.key(k),
                (None, i) => p.index(i),
            })
    })
}

fn shaped_action() -> impl Strategy<Value = Act> {
    let number = prop_oneof![4 => select(&NUMS[..8]).prop_map(Val::N), 1 => scalar()];
    let list = prop::collection::vec(scalar(), 0..3).prop_map(Val::L);
    prop_oneof![
        6 => (shaped_path(), 4u8..8, value()).prop_map(|(p, h, v)| Act::Set(p, h, v)),
        1 => (shaped_path(), Just(0u8), value()).prop_map(|(p, h, v)| Act::Set(p, h, v)),
        1 => (shaped_path(), 1u8..3, list).prop_map(|(p, h, v)| Act::Set(p, h, v)),
        2 => (shaped_path(), Just(3u8), number.clone()).prop_map(|(p, h, v)| Act::Set(p, h, v)),
        4 => shaped_path().prop_map(Act::Remove),
        2 => (shaped_path(), prop_oneof![2 => number, 1 => string_set(), 1 => number_set()])
            .prop_map(|(p, v)| Act::Add(p, v)),
        2 => (shaped_path(), prop_oneof![1 => string_set(), 1 => number_set()])
            .prop_map(|(p, v)| Act::Delete(p, v)),
    ]
}

fn shaped_condition() -> impl Strategy<Value = Condition> {
    let leaf = prop_oneof![
        2 => shaped_path().prop_map(Condition::exists),
        2 => shaped_path().prop_map(Condition::not_exists),
        3 => (shaped_path(), cmp(), value())
            .prop_map(|(p, op, v)| Condition::Compare(Operand::Path(p), op, Operand::Value(plain(v)))),
        1 => (shaped_path(), cmp(), 0usize..3).prop_map(|(p, op, n)| {
            Condition::Compare(Operand::Size(p), op, Operand::Value(AttributeValue::N(n.to_string())))
        }),
        1 => (shaped_path(), select(&TYPES[..])).prop_map(|(p, t)| Condition::AttributeType(p, t)),
        1 => (shaped_path(), value()).prop_map(|(p, v)| Condition::Contains(p, plain(v))),
    ];
    leaf.prop_recursive(1, 3, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.and(b)),
            inner.prop_map(Condition::not),
        ]
    })
}

/// A sequence on one item holding a map `a` and a list `l`: puts of fresh
/// documents, updates that write below them (with conditions on paths),
/// filtered queries and gets.
pub fn paths_case() -> impl Strategy<Value = Vec<Op>> {
    let put = || {
        (document(), document(), value()).prop_map(|(a, b, s)| Op::Put {
            key: Key::Valid { p: 0, s: 0 },
            attrs: vec![a, b, ("s", s)],
            cond: None,
            return_old: false,
            fail_item: false,
        })
    };
    let key = Key::Valid { p: 0, s: 0 };
    let update = (
        prop::collection::vec(shaped_action(), 1..4),
        prop_oneof![2 => Just(None), 1 => shaped_condition().prop_map(Some)],
        return_values(),
    )
        .prop_map(move |(actions, cond, rv)| Op::Update {
            key: key.clone(),
            actions,
            cond,
            rv,
            fail_item: true,
        });
    // Projections of paths into the documents, overlapping ones included.
    let projected = prop_oneof![
        3 => shaped_path(),
        1 => select(&["a", "l", "s", "SK"][..]).prop_map(Path::new),
    ];
    let projection = prop_oneof![
        2 => Just(None),
        1 => prop::collection::vec(projected, 1..4).prop_map(Some),
    ];
    let query = (
        prop_oneof![1 => Just(None), 2 => shaped_condition().prop_map(Some)],
        projection,
    )
        .prop_map(|(filter, projection)| {
            Op::Query(Q {
                target: 0,
                p: 0,
                sort: None,
                forward: true,
                limit: None,
                filter,
                projection,
                consistent: true,
                pages: 1,
                multi: (0, 0, (0, "0", "0")),
            })
        });
    let step = prop_oneof![
        2 => put(),
        8 => update,
        2 => query,
        1 => Just(Op::Get(Key::Valid { p: 0, s: 0 }, true)),
    ];
    (put(), prop::collection::vec(step, 4..12)).prop_map(|(first, rest)| {
        let mut ops = vec![first];
        ops.extend(rest);
        ops
    })
}
