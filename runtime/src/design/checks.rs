//! Compile-time checks across the entities of one table: const fns over
//! their shapes, called by the code `#[derive(Table)]` generates for
//! `entities(...)`.

use super::{EntityShape, KeySeg, KeyShape};

const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    if prefix.len() > s.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two segments can hold the same text.
const fn seg_overlap(a: KeySeg, b: KeySeg) -> bool {
    let (x, y) = (a.lit.as_bytes(), b.lit.as_bytes());
    match (a.field, b.field) {
        (false, false) => crate::entity::str_eq(a.lit, b.lit),
        // A placeholder holds at least one character.
        (false, true) => starts_with(x, y) && x.len() > y.len(),
        (true, false) => starts_with(y, x) && y.len() > x.len(),
        (true, true) => starts_with(x, y) || starts_with(y, x),
    }
}

/// Whether two templates can produce the same key.
pub const fn keys_overlap(a: &[KeySeg], b: &[KeySeg]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !seg_overlap(a[i], b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two optional sort templates can produce the same sort key.
const fn sort_overlap(a: Option<KeyShape>, b: Option<KeyShape>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => keys_overlap(a.segs, b.segs),
        (None, None) => true,
        _ => false,
    }
}

/// Whether a query scoped by `a`'s sort template (`begins_with` its literal
/// text up to the first placeholder) can return an item whose sort key
/// follows `b`.
pub const fn scope_leaks(a: &[KeySeg], b: &[KeySeg]) -> bool {
    // The scope: every leading literal segment, then the literal part of the
    // first segment with a placeholder.
    let mut k = 0;
    while k < a.len() && !a[k].field {
        k += 1;
    }
    if k == a.len() {
        // A constant sort key is queried with `=`: no scope to leak into.
        return false;
    }
    if b.len() <= k {
        return false;
    }
    let mut i = 0;
    while i < k {
        let lit = KeySeg {
            lit: a[i].lit,
            field: false,
        };
        if !seg_overlap(lit, b[i]) {
            return false;
        }
        i += 1;
    }
    let (scope, seg) = (a[k].lit.as_bytes(), b[k]);
    if seg.field {
        starts_with(seg.lit.as_bytes(), scope) || starts_with(scope, seg.lit.as_bytes())
    } else {
        starts_with(seg.lit.as_bytes(), scope)
    }
}

/// Whether entities `a` and `b` can produce the same primary key.
pub const fn primary_keys_collide(a: &EntityShape, b: &EntityShape) -> bool {
    keys_overlap(a.pk.segs, b.pk.segs) && sort_overlap(a.sk, b.sk)
}

/// Whether a scoped table query of one entity can return items of the other.
pub const fn table_queries_leak(a: &EntityShape, b: &EntityShape) -> bool {
    if !keys_overlap(a.pk.segs, b.pk.segs) {
        return false;
    }
    match (a.sk, b.sk) {
        (Some(x), Some(y)) => scope_leaks(x.segs, y.segs) || scope_leaks(y.segs, x.segs),
        _ => false,
    }
}

/// Whether scoped queries of one entity on index `index` (`gsi1`) can
/// return items of the other.
pub const fn index_queries_leak(a: &EntityShape, b: &EntityShape, index: &str) -> bool {
    let mut i = 0;
    while i < a.indexes.len() {
        let x = a.indexes[i];
        let mut j = 0;
        while j < b.indexes.len() {
            let y = b.indexes[j];
            if crate::entity::str_eq(x.name, index) && crate::entity::str_eq(y.name, index) {
                let pk_overlap = match (x.pk, y.pk) {
                    (Some(p), Some(q)) => keys_overlap(p.segs, q.segs),
                    // Local indexes share the table's partition key.
                    (None, None) => keys_overlap(a.pk.segs, b.pk.segs),
                    _ => false,
                };
                if pk_overlap
                    && let (Some(p), Some(q)) = (x.sk, y.sk)
                    && (scope_leaks(p.segs, q.segs) || scope_leaks(q.segs, p.segs))
                {
                    return true;
                }
            }
            j += 1;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn lit(s: &'static str) -> KeySeg {
        KeySeg {
            lit: s,
            field: false,
        }
    }
    const fn ph(s: &'static str) -> KeySeg {
        KeySeg {
            lit: s,
            field: true,
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
}
