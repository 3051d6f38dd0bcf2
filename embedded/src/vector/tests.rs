use super::kernel::{idot_portable, idots_portable, kernel};
use super::*;
use singletable_core::vector::{cosine, squared_distance};

/// A small deterministic generator (xorshift), values in [-1, 1).
fn vectors(seed: u64, n: usize, dims: usize) -> Vec<Vec<f32>> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    (0..n)
        .map(|_| (0..dims).map(|_| next()).collect())
        .collect()
}

/// The reference: every score in f64, sorted, ties by key.
fn reference(vs: &[Vec<f32>], q: &[f32], k: usize, d: Distance) -> Vec<usize> {
    let f = |v: &[f32]| -> f64 {
        let dot: f64 = q
            .iter()
            .zip(v)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum();
        let n = |x: &[f32]| x.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
        match d {
            Distance::Cosine => 1.0 - dot / (n(q) * n(v)),
            Distance::Euclidean => q
                .iter()
                .zip(v)
                .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
                .sum::<f64>()
                .sqrt(),
            Distance::DotProduct => -dot,
        }
    };
    let mut all: Vec<(f64, usize)> = vs.iter().enumerate().map(|(i, v)| (f(v), i)).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.into_iter().take(k).map(|(_, i)| i).collect()
}

#[test]
fn search_matches_a_brute_force_reference() {
    for (seed, d) in [
        (1, Distance::Cosine),
        (2, Distance::Euclidean),
        (3, Distance::DotProduct),
    ] {
        let vs = vectors(seed, 500, 37);
        let mut set = VectorSet::new(37, d);
        for (i, v) in vs.iter().enumerate() {
            set.insert(i, v).unwrap();
        }
        for q in vectors(seed + 100, 5, 37) {
            let got: Vec<usize> = set
                .search(&q, 10, |_| true)
                .unwrap()
                .into_iter()
                .map(|(k, _)| k)
                .collect();
            assert_eq!(got, reference(&vs, &q, 10, d), "{d:?}");
            let odd: Vec<usize> = set
                .search(&q, 3, |k| k % 2 == 1)
                .unwrap()
                .into_iter()
                .map(|(k, _)| k)
                .collect();
            let vs_odd: Vec<(usize, &Vec<f32>)> =
                vs.iter().enumerate().filter(|(i, _)| i % 2 == 1).collect();
            let want: Vec<usize> = reference(
                &vs_odd.iter().map(|(_, v)| (*v).clone()).collect::<Vec<_>>(),
                &q,
                3,
                d,
            )
            .into_iter()
            .map(|j| vs_odd[j].0)
            .collect();
            assert_eq!(odd, want, "{d:?} filtered");
        }
    }
}

#[test]
fn ties_come_in_key_order_and_removal_keeps_rows() {
    let mut set = VectorSet::new(2, Distance::Euclidean);
    for k in [5u32, 3, 9, 1] {
        set.insert(k, &[1.0, 1.0]).unwrap();
    }
    let keys = |s: &VectorSet<u32>| {
        s.search(&[0.0, 0.0], 10, |_| true)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&set), [1, 3, 5, 9]);
    assert!(set.remove(&3));
    set.insert(3, &[0.0, 0.0]).unwrap();
    assert_eq!(keys(&set), [3, 1, 5, 9]);
}

/// A generator of awkward sets: uniform rows, small integers (exact
/// copies, ties), duplicates, negated and scaled rows, zero rows.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    fn vector(&mut self, dims: usize, earlier: &[Vec<f32>]) -> Vec<f32> {
        match self.below(12) {
            // Exactly or nearly what the `i8` copy holds: the bounds are
            // as tight as the `f32` rounding, equal dot products many.
            10 | 11 => {
                let s = [1.0, 0.1, 0.37, 3.0][self.below(4)];
                let mut v: Vec<f32> = (0..dims)
                    .map(|_| (self.below(7) as f32 - 3.0) * s)
                    .collect();
                v[self.below(dims)] = 127.0 * s;
                v
            }
            0 | 1 if !earlier.is_empty() => earlier[self.below(earlier.len())].clone(),
            2 if !earlier.is_empty() => {
                let f = [-1.0, 0.5, 2.0, 1e-3, 1e3][self.below(5)];
                earlier[self.below(earlier.len())]
                    .iter()
                    .map(|x| x * f)
                    .collect()
            }
            3 => (0..dims).map(|_| (self.below(5) as f32) - 2.0).collect(),
            4 if self.below(4) == 0 => vec![0.0; dims],
            5 => {
                // Mostly zeros, a few spikes.
                let mut v = vec![0.0; dims];
                for _ in 0..3 {
                    v[self.below(dims)] = self.unit() * 10.0;
                }
                v
            }
            _ => (0..dims).map(|_| self.unit()).collect(),
        }
    }
}

/// The brute force over the same `f32` functions: every row's rank,
/// sorted, ties by key.
fn brute_force(
    vs: &[(u32, Vec<f32>)],
    q: &[f32],
    k: usize,
    d: Distance,
    keep: impl Fn(&u32) -> bool,
) -> Vec<(u32, f32)> {
    let nq = norm(q);
    let mut all: Vec<(f32, u32, f32)> = vs
        .iter()
        .filter(|(key, _)| keep(key))
        .map(|(key, v)| {
            let (rank, score) = match d {
                Distance::Cosine => {
                    let s = cosine(dot(q, v), nq, norm(v));
                    (s, s)
                }
                Distance::Euclidean => {
                    let s = squared_distance(q, v);
                    (s, s)
                }
                Distance::DotProduct => {
                    let s = dot(q, v);
                    (-s, s)
                }
            };
            (rank, *key, score)
        })
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.into_iter()
        .take(k)
        .map(|(_, key, s)| {
            (
                key,
                if d == Distance::Euclidean {
                    s.sqrt()
                } else {
                    s
                },
            )
        })
        .collect()
}

fn bits(r: &[(u32, f32)]) -> Vec<(u32, u32)> {
    r.iter().map(|(k, s)| (*k, s.to_bits())).collect()
}

#[test]
fn two_pass_search_is_exact_on_random_sets() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for case in 0..120 {
        let d = [Distance::Cosine, Distance::Euclidean, Distance::DotProduct][case % 3];
        let dims = [1, 2, 3, 7, 31, 32, 33, 64, 100, 768][g.below(10)];
        let n = [1, 5, 64, 200, 700][g.below(5)];
        let mut set = VectorSet::new(dims, d);
        let mut vs: Vec<Vec<f32>> = Vec::new();
        for _ in 0..n {
            let v = g.vector(dims, &vs);
            vs.push(v);
        }
        // Keys in another order than the rows; some removed, some
        // replaced.
        let mut keyed: Vec<(u32, Vec<f32>)> = vs
            .into_iter()
            .enumerate()
            .map(|(i, v)| ((i as u32).wrapping_mul(2_654_435_761) % 100_000, v))
            .collect();
        keyed.sort_by_key(|(k, _)| *k);
        keyed.dedup_by_key(|(k, _)| *k);
        for (k, v) in &keyed {
            set.insert(*k, v).unwrap();
        }
        for _ in 0..n / 10 {
            let i = g.below(keyed.len());
            if g.below(2) == 0 {
                assert!(set.remove(&keyed[i].0));
                keyed.remove(i);
            } else {
                let earlier: Vec<Vec<f32>> = keyed.iter().map(|(_, v)| v.clone()).collect();
                let v = g.vector(dims, &earlier);
                set.insert(keyed[i].0, &v).unwrap();
                keyed[i].1 = v;
            }
            if keyed.is_empty() {
                break;
            }
        }
        let earlier: Vec<Vec<f32>> = keyed.iter().map(|(_, v)| v.clone()).collect();
        for _ in 0..4 {
            let q = if g.below(4) == 0 && !earlier.is_empty() {
                earlier[g.below(earlier.len())].clone()
            } else {
                g.vector(dims, &earlier)
            };
            let k = [1, 2, 10, 100, 1000][g.below(5)];
            let m = 1 + g.below(4) as u32;
            let keep = |key: &u32| key.is_multiple_of(m);
            let want = brute_force(&keyed, &q, k, d, keep);
            let got = set.search_two_pass(&q, k, keep).unwrap();
            assert_eq!(
                bits(&got),
                bits(&want),
                "case {case} {d:?} dims {dims} k {k} m {m}"
            );
            assert_eq!(bits(&set.search(&q, k, keep).unwrap()), bits(&want));
            assert_eq!(bits(&set.search_scan(&q, k, keep).unwrap()), bits(&want));
        }
    }
}

#[test]
fn two_pass_search_reads_few_rows_exactly() {
    for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
        let vs = vectors(11, 3000, 96);
        let mut set = VectorSet::new(96, d);
        for (i, v) in vs.iter().enumerate() {
            set.insert(i as u32, v).unwrap();
        }
        let keyed: Vec<(u32, Vec<f32>)> = vs
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i as u32, v))
            .collect();
        for q in vectors(12, 3, 96) {
            let mut asked = 0;
            let got = set
                .search(&q, 10, |_| {
                    asked += 1;
                    true
                })
                .unwrap();
            assert_eq!(bits(&got), bits(&brute_force(&keyed, &q, 10, d, |_| true)));
            assert!(asked < 300, "{d:?}: asked about {asked} rows of 3000");
        }
    }
}

#[test]
fn extreme_magnitudes_stay_exact() {
    for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
        let mut set = VectorSet::new(8, d);
        let mut keyed = Vec::new();
        let mut g = Gen(77);
        for i in 0..300u32 {
            let f = [1e-30, 1e-20, 1e-10, 1.0, 1e10, 1e18][g.below(6)];
            let v: Vec<f32> = (0..8).map(|_| g.unit() * f).collect();
            set.insert(i, &v).unwrap();
            keyed.push((i, v));
        }
        for f in [1e-30f32, 1e-12, 1.0, 1e12, 1e19] {
            let q: Vec<f32> = (0..8).map(|_| g.unit() * f).collect();
            let want = brute_force(&keyed, &q, 20, d, |_| true);
            assert_eq!(
                bits(&set.search(&q, 20, |_| true).unwrap()),
                bits(&want),
                "{d:?} {f}"
            );
        }
    }
}

#[test]
fn bounds_contain_the_exact_ranks() {
    let mut g = Gen(5);
    let mut checked = 0;
    for case in 0..60 {
        let d = [Distance::Cosine, Distance::Euclidean, Distance::DotProduct][case % 3];
        // Large dimensions of integers up to 127 (times a power of
        // two): the copy is exact, the `f32` sums round past 2^24.
        let exact_copy = case % 2 == 0;
        let dims = if exact_copy {
            [1100, 2048, 40][g.below(3)]
        } else {
            [3, 33, 300][g.below(3)]
        };
        let mut rows: Vec<Vec<f32>> = Vec::new();
        // Most vectors near one: large dot products.
        let base: Vec<f32> = (0..dims)
            .map(|_| (100 + g.below(28)) as f32 * if g.below(2) == 0 { 1.0 } else { -1.0 })
            .collect();
        let vector = |g: &mut Gen, rows: &[Vec<f32>]| {
            if exact_copy {
                let s = [1.0, 0.5, 2.0f32.powi(-20), 2.0f32.powi(20)][g.below(4)];
                let near = g.below(3) > 0;
                let mut v: Vec<f32> = base
                    .iter()
                    .map(|b| match g.below(20) {
                        0 if near => -b,
                        1 if near => b + 1.0,
                        _ if near => *b,
                        0..7 => 127.0,
                        7..14 => -127.0,
                        _ => g.below(255) as f32 - 127.0,
                    } * s)
                    .collect();
                v[0] = 127.0 * s;
                v
            } else {
                g.vector(dims, rows)
            }
        };
        let mut set = VectorSet::new(dims, d);
        for i in 0..40u32 {
            let v = vector(&mut g, &rows);
            set.insert(i, &v).unwrap();
            rows.push(v);
        }
        for _ in 0..3 {
            let q = vector(&mut g, &rows);
            let nq = norm(&q);
            let Some((qb, qcodes)) = set.query_bounds(&q, nq) else {
                continue;
            };
            let stride = set.stride();
            for row in 0..set.len() {
                let idot = idot_portable(&qcodes, &set.codes[row * stride..(row + 1) * stride]);
                let (lo, hi) = qb.rank_bounds(idot, set.quant[row], set.norms[row]);
                let (rank, _) = set.exact(&q, nq, row);
                assert!(
                    f64::from(lo) <= rank && rank <= f64::from(hi),
                    "case {case} {d:?} dims {dims}: {lo} <= {rank} <= {hi}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 5000);
}

#[test]
fn the_kernels_agree() {
    let mut g = Gen(99);
    for stride in [32, 64, 96, 768] {
        let q: Vec<i8> = (0..stride)
            .map(|_| (g.below(255) as i32 - 127) as i8)
            .collect();
        let codes: Vec<i8> = (0..stride * 9)
            .map(|_| (g.below(255) as i32 - 127) as i8)
            .collect();
        let mut want = vec![0; 9];
        for (row, w) in codes.chunks_exact(stride).zip(&mut want) {
            *w = q
                .iter()
                .zip(row)
                .map(|(a, b)| i32::from(*a) * i32::from(*b))
                .sum();
        }
        let mut got = vec![0; 9];
        idots_portable(&q, &codes, stride, &mut got);
        assert_eq!(got, want);
        let mut got = vec![0; 9];
        kernel()(&q, &codes, stride, &mut got);
        assert_eq!(got, want);
    }
}
