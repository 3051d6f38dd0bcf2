//! Unit tests of the overlap and leak checks, on hand-written key shapes.

use super::*;
use crate::design::IndexShape;

const fn lit(s: &'static str) -> KeySeg {
    KeySeg {
        lit: s,
        field: false,
        width: None,
    }
}
const fn ph(s: &'static str) -> KeySeg {
    KeySeg {
        lit: s,
        field: true,
        width: None,
    }
}

#[test]
fn overlap_follows_segments() {
    // USER#<id> vs USER#<id>: same shape.
    assert!(keys_overlap(&[lit("USER"), ph("")], &[lit("USER"), ph("")]));
    // ORDER#<id> vs ORDER#r-<id>: id = "r-1" makes them equal.
    assert!(keys_overlap(
        &[lit("ORDER"), ph("")],
        &[lit("ORDER"), ph("r-")]
    ));
    // PROFILE vs ORDER#<id>: different segment counts.
    assert!(!keys_overlap(&[lit("PROFILE")], &[lit("ORDER"), ph("")]));
    // DETAILS vs ITEM#<id>.
    assert!(!keys_overlap(&[lit("DETAILS")], &[lit("ITEM"), ph("")]));
    // X<a> vs X: a placeholder is never empty.
    assert!(!keys_overlap(&[ph("X")], &[lit("X")]));
    assert!(keys_overlap(&[ph("X")], &[lit("XY")]));
}

#[test]
fn scope_leaks_find_prefix_queries() {
    // user#<email> is queried with begins_with("user#"); user#<email>#inv#<n> starts so.
    let account = [lit("user"), ph("")];
    let invoice = [lit("user"), ph(""), lit("inv"), ph("")];
    assert!(scope_leaks(&account, &invoice));
    // ORDER#<id> and ITEM#<id> in one partition do not leak.
    assert!(!scope_leaks(
        &[lit("ORDER"), ph("")],
        &[lit("ITEM"), ph("")]
    ));
    assert!(!scope_leaks(
        &[lit("ORDER"), ph("")],
        &[lit("ORDERS"), ph("")]
    ));
    // A constant sort key is queried with `=`.
    assert!(!scope_leaks(&[lit("DETAILS")], &[lit("DETAILS"), ph("")]));
    // A template that starts with a placeholder has no scope.
    assert!(scope_leaks(&[ph("")], &[lit("ANY")]));
}

#[test]
fn sharded_keys_end_with_a_shard_number() {
    let by_date = [lit("BYDATE")];
    // `BYDATE` with `shards` shards, against an unsharded template.
    let vs = |shards: u16, other: &[KeySeg]| {
        let there = sharded_keys_overlap(&by_date, shards, other, 1);
        assert_eq!(there, sharded_keys_overlap(other, 1, &by_date, shards));
        there
    };
    // Stored as `BYDATE#0`..`BYDATE#3`.
    assert!(vs(4, &[lit("BYDATE"), ph("")]));
    assert!(vs(4, &[lit("BYDATE"), lit("3")]));
    assert!(!vs(4, &[lit("BYDATE"), lit("4")]));
    // Shard numbers have no leading zeros.
    assert!(!vs(4, &[lit("BYDATE"), lit("03")]));
    assert!(!vs(4, &[lit("BYDATE"), lit("x")]));
    // `BYDATE#1<n>` reaches the shards from `BYDATE#10` on.
    assert!(!vs(4, &[lit("BYDATE"), ph("1")]));
    assert!(vs(11, &[lit("BYDATE"), ph("1")]));
    assert!(!vs(100, &[lit("BYDATE"), ph("0")]));
    assert!(!vs(4, &[lit("BYDATE"), ph("R")]));
    // The unsharded `BYDATE` is a key of its own.
    assert!(!vs(4, &by_date));
    // Two sharded keys share shard `0` when their bases overlap.
    assert!(sharded_keys_overlap(&by_date, 4, &by_date, 8));
    assert!(!sharded_keys_overlap(&by_date, 4, &[lit("BYDAY")], 4));
    // Unsharded, it is `keys_overlap`.
    assert!(sharded_keys_overlap(&by_date, 1, &by_date, 1));
    assert!(!sharded_keys_overlap(
        &by_date,
        1,
        &[lit("BYDATE"), ph("")],
        1
    ));
}

/// A key shape from its template, as the derive splits it.
fn key(template: &'static str) -> KeyShape {
    let segs = template
        .split('#')
        .map(|s| match s.find('<') {
            Some(i) => ph(&s[..i]),
            None => lit(s),
        })
        .collect::<Vec<_>>();
    KeyShape {
        template,
        segs: Vec::leak(segs),
        cardinality: || None,
        unpadded: &[],
    }
}

fn on_table(pk: &'static str, sk: Option<&'static str>) -> EntityShape {
    EntityShape {
        name: pk,
        pk: key(pk),
        sk: sk.map(key),
        indexes: &[],
        attribute_indexes: &[],
        access: &[],
        attributes: &[],
        attribute_types: &[],
        writes_type: true,
        ttl: None,
        stamped: &[],
    }
}

/// An entity with one global index `name` (its table keys do not matter
/// to the index's checks).
fn on_gsi(
    name: &'static str,
    pk: &'static str,
    sk: Option<&'static str>,
    shards: u16,
) -> EntityShape {
    let index = IndexShape {
        name,
        global: true,
        pk: Some(key(pk)),
        sk: sk.map(key),
        sparse: None,
        shards,
    };
    EntityShape {
        indexes: Vec::leak(vec![index]),
        ..on_table("E#<id>", Some("DETAILS"))
    }
}

#[test]
fn a_sharded_index_key_collides_with_digit_segments() {
    let date = Some("DATE#<date>");
    let order = on_gsi("gsi3", "BYDATE", date, 4);
    let sale = on_gsi("gsi3", "BYDATE#<region>", date, 1);
    let unsharded = on_gsi("gsi3", "BYDATE", date, 1);
    assert_eq!(
        index_collision(&order, &sale, "gsi3"),
        IndexCollision::Shards { first: true }
    );
    assert_eq!(
        index_collision(&sale, &order, "gsi3"),
        IndexCollision::Shards { first: false }
    );
    assert!(index_queries_leak(&order, &sale, "gsi3"));
    // Other indexes, and the unsharded `BYDATE`, are other partitions.
    assert_eq!(index_collision(&order, &sale, "gsi2"), IndexCollision::None);
    assert_eq!(
        index_collision(&order, &unsharded, "gsi3"),
        IndexCollision::None
    );
    assert_eq!(
        index_collision(&sale, &unsharded, "gsi3"),
        IndexCollision::None
    );
    // Sharded, with sort keys that keep them apart.
    let refund = on_gsi("gsi3", "BYDATE#<region>", Some("REFUND#<date>"), 1);
    assert_eq!(
        index_collision(&order, &refund, "gsi3"),
        IndexCollision::None
    );
    // The shop: the sharded and the unsharded `ORDERBYDATE` are in two
    // indexes, `gsi3` and `gsi2`.
    let sharded = on_gsi("gsi3", "ORDERBYDATE", date, 4);
    let plain = on_gsi("gsi2", "ORDERBYDATE", date, 1);
    for ix in ["gsi2", "gsi3"] {
        assert_eq!(index_collision(&sharded, &plain, ix), IndexCollision::None);
    }
}

#[test]
fn an_index_without_sort_key_shares_whole_partitions() {
    let user = on_gsi("gsi4", "OWNER#<owner>", None, 1);
    let project = on_gsi("gsi4", "OWNER#<owner>", None, 1);
    let team = on_gsi("gsi4", "TEAMOWNER#<owner>", None, 1);
    assert_eq!(
        index_collision(&user, &project, "gsi4"),
        IndexCollision::NoSortKey
    );
    assert_eq!(index_collision(&user, &team, "gsi4"), IndexCollision::None);
    // The same on a table without sort key is a primary-key collision
    // (and no second error).
    let (a, b) = (on_table("K#<id>", None), on_table("K#<id>", None));
    assert!(primary_keys_collide(&a, &b));
    assert!(!table_queries_leak(&a, &b));
    assert!(!primary_keys_collide(&a, &on_table("C#<id>", None)));
}

#[test]
fn index_sort_conditions_keep_entities_apart_or_not() {
    let status = "STATUS#<s>";
    let order = on_gsi("gsi1", status, Some("ORDER#<id>"), 1);
    let item = on_gsi("gsi1", status, Some("ITEM#<id>"), 1);
    let line = on_gsi("gsi1", status, Some("ORDER#<id>#LINE#<n>"), 1);
    assert_eq!(index_collision(&order, &item, "gsi1"), IndexCollision::None);
    assert_eq!(
        index_collision(&order, &line, "gsi1"),
        IndexCollision::SortKeys
    );
    // A constant index sort key is queried with `=`, which matches the
    // other's equal constant: index keys are not unique.
    let flag_a = on_gsi("gsi1", status, Some("DETAILS"), 1);
    let flag_b = on_gsi("gsi1", status, Some("DETAILS"), 1);
    assert_eq!(
        index_collision(&flag_a, &flag_b, "gsi1"),
        IndexCollision::SortKeys
    );
    assert_eq!(
        index_collision(&flag_a, &order, "gsi1"),
        IndexCollision::None
    );
}
