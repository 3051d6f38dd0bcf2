//! The key codec through the builders and parsers `#[derive(Entity)]`
//! generates: keys are injective and never widen a prefix, read back to the
//! values they were built from, refuse tampered input without panicking, and
//! sort numbers numerically under DynamoDB's byte-wise string order.

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use singletable::{Entity, Error, KeyError, KeyPart, StrEnum, Table};

#[derive(Table)]
#[table(name = "KeyCodecTable", gsi1)]
pub struct KeyTable;

#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Tier {
    Free,
    ProPlus,
    /// A stored string holding both the delimiter and the escape character.
    #[str_enum(rename = "legacy#50%")]
    Legacy,
}

/// Composite templates mixing strings, an integer, an enum and a bool; the
/// index sort key starts with a placeholder.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = KeyTable, name = "Composite")]
#[pk("USER#<a>#<b>")]
#[sk("ORDER#<c>#<n>#<tier>#<flag>#<d>")]
#[gsi1(pk = "C#<c>", sk = "<d>#<a>")]
pub struct Composite {
    pub a: String,
    pub b: String,
    pub c: String,
    pub n: i64,
    pub tier: Tier,
    pub flag: bool,
    pub d: String,
}

/// Every key part type, each integer width in one sort key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = KeyTable, name = "Widths")]
#[pk("W#<s>#<ch>#<flag>#<tier>")]
#[sk("I#<i8v>#<i16v>#<i32v>#<i64v>#<i128v>#<isizev>#U#<u8v>#<u16v>#<u32v>#<u64v>#<u128v>#<usizev>")]
pub struct Widths {
    pub s: String,
    pub ch: char,
    pub flag: bool,
    pub tier: Tier,
    pub i8v: i8,
    pub i16v: i16,
    pub i32v: i32,
    pub i64v: i64,
    pub i128v: i128,
    pub isizev: isize,
    pub u8v: u8,
    pub u16v: u16,
    pub u32v: u32,
    pub u64v: u64,
    pub u128v: u128,
    pub usizev: usize,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = KeyTable, name = "UserEmail")]
#[pk("USEREMAIL#<email>")]
#[sk("PROFILE")]
pub struct UserEmail {
    pub email: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = KeyTable, name = "Score")]
#[pk("BOARD#<board>")]
#[sk("SCORE#<score>#<player>")]
pub struct Score {
    pub board: String,
    pub score: i64,
    pub player: String,
}

/// Pieces that break naive codecs: the delimiter, the escape character,
/// escape sequences (valid, truncated, foreign), template syntax, literals of
/// the templates, multi-byte and odd characters.
const ATOMS: &[&str] = &[
    "#", "%", "%23", "%25", "%2", "%41", "23", "25", "<", ">", "<a>", "a", "Z", "0", "-", "é",
    "日本", "🦀", "\u{0}", " ", "USER#", "#ORDER#", "true", "FREE",
];

fn atoms(len: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ATOMS), len).prop_map(|v| v.concat())
}

/// Non-empty strings, mostly adversarial, sometimes long.
fn adversarial() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => atoms(1..6),
        2 => "\\PC{1,16}",
        1 => atoms(20..40),
        1 => "[a-z0-9@.]{100,300}",
    ]
}

fn tier() -> impl Strategy<Value = Tier> {
    prop::sample::select(Tier::VARIANTS.to_vec())
}

/// Integers biased towards the edges of their type.
macro_rules! edge {
    ($t:ty) => {
        prop_oneof![
            1 => Just(<$t>::MIN),
            1 => Just(<$t>::MAX),
            1 => Just(0 as $t),
            1 => Just(<$t>::MIN.wrapping_add(1)),
            1 => Just(<$t>::MAX.wrapping_sub(1)),
            2 => (0 as $t)..(10 as $t),
            6 => any::<$t>(),
        ]
    };
}

type Tuple = (String, String, String, i64, Tier, bool, String);

fn tuple() -> impl Strategy<Value = Tuple> {
    (
        adversarial(),
        adversarial(),
        adversarial(),
        edge!(i64),
        tier(),
        any::<bool>(),
        adversarial(),
    )
}

/// Moves text between `a` and `b` across a `#`, so that `USER#<a>#<b>`
/// concatenated raw would be the same string for both tuples.
fn resplit(t: &Tuple, pick: usize) -> Tuple {
    let joined = format!("{}#{}", t.0, t.1);
    let cuts: Vec<usize> = joined
        .match_indices('#')
        .map(|(i, _)| i)
        .filter(|&i| i > 0 && i + 1 < joined.len())
        .collect();
    let cut = cuts[pick % cuts.len()];
    let mut u = t.clone();
    u.0 = joined[..cut].to_owned();
    u.1 = joined[cut + 1..].to_owned();
    u
}

/// Pairs of tuples: independent, sharing most fields, or re-split.
fn tuple_pair() -> impl Strategy<Value = (Tuple, Tuple)> {
    prop_oneof![
        (tuple(), tuple()),
        (tuple(), tuple(), any::<u8>()).prop_map(|(t, u, mask)| {
            let mut v = t.clone();
            if mask & 1 != 0 {
                v.0 = u.0;
            }
            if mask & 2 != 0 {
                v.1 = u.1;
            }
            if mask & 4 != 0 {
                v.2 = u.2;
            }
            if mask & 8 != 0 {
                v.3 = u.3;
            }
            if mask & 16 != 0 {
                v.4 = u.4;
            }
            if mask & 32 != 0 {
                v.5 = u.5;
            }
            if mask & 64 != 0 {
                v.6 = u.6;
            }
            (t, v)
        }),
        (tuple(), any::<usize>()).prop_map(|(t, pick)| {
            let u = resplit(&t, pick);
            (t, u)
        }),
        tuple().prop_map(|t| (t.clone(), t)),
    ]
}

fn composite(t: &Tuple) -> Composite {
    Composite {
        a: t.0.clone(),
        b: t.1.clone(),
        c: t.2.clone(),
        n: t.3,
        tier: t.4,
        flag: t.5,
        d: t.6.clone(),
    }
}

/// Every key of the tuple: pk, sk, gsi1 pk, gsi1 sk. `None` when a key is
/// over DynamoDB's size limit, which must then really be the case.
fn keys(t: &Tuple) -> Option<[String; 4]> {
    let built = [
        Composite::pk(&t.0, &t.1),
        Composite::sk(&t.2, t.3, &t.4, t.5, &t.6),
        Composite::gsi1_pk(&t.2),
        Composite::gsi1_sk(&t.6, &t.0),
    ];
    let mut out: Vec<String> = Vec::with_capacity(4);
    for k in built {
        match k {
            Ok(k) => out.push(k),
            Err(Error::KeyTooLong { len, max, .. }) => {
                assert!(len > max, "KeyTooLong with len {len} <= max {max}");
                return None;
            }
            Err(e) => panic!("building keys for {t:?} failed: {e}"),
        }
    }
    out.try_into().ok()
}

/// Runs `test` over `strategy` with shrinking, failing the test on the
/// smallest failing input.
fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value))
where
    S::Value: Debug,
{
    let mut runner = TestRunner::new(Config::with_cases(cases));
    if let Err(e) = runner.run(&strategy, |v| {
        test(v);
        Ok(())
    }) {
        panic!("{e}");
    }
}

#[test]
fn key_codec_is_injective() {
    // Values that forge each other's key under raw concatenation.
    assert_eq!(Composite::pk("x#y", "z").unwrap(), "USER#x%23y#z");
    assert_eq!(Composite::pk("x", "y#z").unwrap(), "USER#x#y%23z");
    // The escape character is escaped too, so `%23` is not `#`.
    assert_eq!(Composite::pk("%23", "b").unwrap(), "USER#%2523#b");
    assert_eq!(Composite::pk("#", "b").unwrap(), "USER#%23#b");
    assert_eq!(Composite::pk("%", "b").unwrap(), "USER#%25#b");
    // A value cannot widen a prefix query to other values.
    let prefix = Composite::sk_prefix_c("ab").unwrap();
    assert_eq!(prefix, "ORDER#ab#");
    let other = Composite::sk("ab#", 1, &Tier::Free, true, "x").unwrap();
    assert!(!other.starts_with(&prefix), "{other} starts with {prefix}");

    // Empty values are refused by builders, by primary_key and by to_item.
    let empty = |r: singletable::Result<String>, field: &str| match r {
        Err(Error::KeyValue {
            entity: "Composite",
            field: f,
            reason: KeyError::Empty,
        }) if f == field => {}
        other => panic!("expected KeyValue/Empty for `{field}`, got {other:?}"),
    };
    empty(Composite::pk("", "b"), "a");
    empty(Composite::pk("a", ""), "b");
    empty(Composite::sk("", 0, &Tier::Free, false, "d"), "c");
    empty(Composite::sk("c", 0, &Tier::Free, false, ""), "d");
    empty(Composite::sk_prefix_c(""), "c");
    empty(Composite::gsi1_sk("", "a"), "d");
    let mut value = composite(&(
        "a".into(),
        "b".into(),
        "c".into(),
        1,
        Tier::Free,
        true,
        String::new(),
    ));
    empty(value.primary_key().map(|k| k.pk + &k.sk.unwrap()), "d");
    empty(value.to_item().map(|_| String::new()), "d");
    value.d = "d".into();
    value.a = String::new();
    empty(value.clone().into_item().map(|_| String::new()), "a");

    check(1024, tuple_pair(), |(t, u)| {
        let (Some(kt), Some(ku)) = (keys(&t), keys(&u)) else {
            return;
        };
        // Per template: same key exactly when the fields it names are equal.
        let pk_fields = |t: &Tuple| (t.0.clone(), t.1.clone());
        let sk_fields = |t: &Tuple| (t.2.clone(), t.3, t.4, t.5, t.6.clone());
        let gsi_sk_fields = |t: &Tuple| (t.6.clone(), t.0.clone());
        assert_eq!(
            kt[0] == ku[0],
            pk_fields(&t) == pk_fields(&u),
            "pk {kt:?} {ku:?}"
        );
        assert_eq!(
            kt[1] == ku[1],
            sk_fields(&t) == sk_fields(&u),
            "sk {kt:?} {ku:?}"
        );
        assert_eq!(kt[2] == ku[2], t.2 == u.2, "gsi1 pk {kt:?} {ku:?}");
        assert_eq!(
            kt[3] == ku[3],
            gsi_sk_fields(&t) == gsi_sk_fields(&u),
            "gsi1 sk {kt:?} {ku:?}"
        );
        let (pt, pu) = (
            composite(&t).primary_key().unwrap(),
            composite(&u).primary_key().unwrap(),
        );
        assert_eq!(pt.pk, kt[0]);
        assert_eq!(pt.sk.as_deref(), Some(kt[1].as_str()));
        assert_eq!(pt == pu, t == u);

        // No prefix widening: a key begins with the prefix built from a
        // leading value only when it was built from that very value.
        let sk_t = &kt[1];
        assert!(sk_t.starts_with(&Composite::sk_prefix().unwrap()));
        let p = Composite::sk_prefix_c(&u.2).unwrap();
        assert_eq!(sk_t.starts_with(&p), t.2 == u.2, "{sk_t} / {p}");
        let p = Composite::sk_prefix_c_n(&u.2, u.3).unwrap();
        assert_eq!(
            sk_t.starts_with(&p),
            (&t.2, t.3) == (&u.2, u.3),
            "{sk_t} / {p}"
        );
        let p = Composite::sk_prefix_c_n_tier(&u.2, u.3, &u.4).unwrap();
        assert_eq!(
            sk_t.starts_with(&p),
            (&t.2, t.3, t.4) == (&u.2, u.3, u.4),
            "{sk_t} / {p}"
        );
        let p = Composite::sk_prefix_c_n_tier_flag(&u.2, u.3, &u.4, u.5).unwrap();
        assert_eq!(
            sk_t.starts_with(&p),
            (&t.2, t.3, t.4, t.5) == (&u.2, u.3, u.4, u.5),
            "{sk_t} / {p}"
        );
        let p = Composite::gsi1_sk_prefix_d(&u.6).unwrap();
        assert_eq!(kt[3].starts_with(&p), t.6 == u.6, "{} / {p}", kt[3]);
    });
}

fn widths() -> impl Strategy<Value = Widths> {
    (
        (
            adversarial(),
            prop_oneof![Just('#'), Just('%'), any::<char>()],
            any::<bool>(),
            tier(),
        ),
        (
            edge!(i8),
            edge!(i16),
            edge!(i32),
            edge!(i64),
            edge!(i128),
            edge!(isize),
        ),
        (
            edge!(u8),
            edge!(u16),
            edge!(u32),
            edge!(u64),
            edge!(u128),
            edge!(usize),
        ),
    )
        .prop_map(
            |(
                (s, ch, flag, tier),
                (i8v, i16v, i32v, i64v, i128v, isizev),
                (u8v, u16v, u32v, u64v, u128v, usizev),
            )| {
                Widths {
                    s,
                    ch,
                    flag,
                    tier,
                    i8v,
                    i16v,
                    i32v,
                    i64v,
                    i128v,
                    isizev,
                    u8v,
                    u16v,
                    u32v,
                    u64v,
                    u128v,
                    usizev,
                }
            },
        )
}

/// Rebuilds a `Widths` from what its parsers read.
fn widths_from_keys(pk: &str, sk: &str) -> singletable::Result<Widths> {
    let (s, ch, flag, tier) = Widths::parse_pk(pk)?;
    let (i8v, i16v, i32v, i64v, i128v, isizev, u8v, u16v, u32v, u64v, u128v, usizev) =
        Widths::parse_sk(sk)?;
    Ok(Widths {
        s,
        ch,
        flag,
        tier,
        i8v,
        i16v,
        i32v,
        i64v,
        i128v,
        isizev,
        u8v,
        u16v,
        u32v,
        u64v,
        u128v,
        usizev,
    })
}

fn widths_keys(w: &Widths) -> (String, String) {
    let key = w.primary_key().unwrap();
    (key.pk, key.sk.unwrap())
}

/// A key parse that must fail with `reason`, without panicking.
fn refused<T: Debug>(
    parsed: singletable::Result<T>,
    key: &str,
    reason: impl Fn(&KeyError) -> bool,
) {
    match parsed {
        Err(Error::KeyParse {
            key: k, reason: r, ..
        }) if k == key && reason(&r) => {}
        other => panic!("{key:?} should be refused, got {other:?}"),
    }
}

/// Small edits of a valid key: insert an atom, drop a byte range, truncate.
fn tampered(key: &str, ops: &[(u8, usize, usize)]) -> String {
    let mut s = key.to_owned();
    for &(op, at, n) in ops {
        let bounds: Vec<usize> = s
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(s.len()))
            .collect();
        let at = bounds[at % bounds.len()];
        match op % 3 {
            0 => s.insert_str(at, ATOMS[n % ATOMS.len()]),
            1 => {
                let end = bounds.iter().copied().find(|&b| b > at).unwrap_or(s.len());
                s.replace_range(at..end, "");
            }
            _ => s.truncate(at),
        }
    }
    s
}

#[test]
fn key_codec_round_trips() {
    // Plain values are stored verbatim, so any other client builds the same key.
    assert_eq!(
        UserEmail::pk("ana@example.com").unwrap(),
        "USEREMAIL#ana@example.com"
    );
    assert_eq!(UserEmail::pk("José <ü>").unwrap(), "USEREMAIL#José <ü>");
    assert_eq!(
        UserEmail::parse_pk("USEREMAIL#ana@example.com").unwrap(),
        "ana@example.com"
    );
    assert_eq!(UserEmail::sk().unwrap(), "PROFILE");
    // Enum strings are escaped like any other string.
    assert_eq!(
        Composite::sk("c", 0, &Tier::Legacy, true, "d").unwrap(),
        "ORDER#c#0000000000000000000#legacy%2350%25#true#d"
    );
    assert_eq!(
        Composite::sk("c", -1, &Tier::ProPlus, false, "d").unwrap(),
        "ORDER#c#-9223372036854775807#PRO_PLUS#false#d"
    );

    // Every width at its edges.
    let edges = [
        (i8::MIN, i16::MIN, i32::MIN, i64::MIN, i128::MIN, isize::MIN),
        (i8::MAX, i16::MAX, i32::MAX, i64::MAX, i128::MAX, isize::MAX),
        (-1, -1, -1, -1, -1, -1),
        (0, 0, 0, 0, 0, 0),
    ];
    for (k, (i8v, i16v, i32v, i64v, i128v, isizev)) in edges.into_iter().enumerate() {
        let max = k == 1;
        let w = Widths {
            s: "s".into(),
            ch: '#',
            flag: max,
            tier: Tier::Legacy,
            i8v,
            i16v,
            i32v,
            i64v,
            i128v,
            isizev,
            u8v: if max { u8::MAX } else { 0 },
            u16v: if max { u16::MAX } else { 0 },
            u32v: if max { u32::MAX } else { 0 },
            u64v: if max { u64::MAX } else { 0 },
            u128v: if max { u128::MAX } else { 0 },
            usizev: if max { usize::MAX } else { 0 },
        };
        let (pk, sk) = widths_keys(&w);
        assert_eq!(widths_from_keys(&pk, &sk).unwrap(), w, "{pk} {sk}");
    }
    let w_max_sk = Widths::sk(
        i8::MAX,
        i16::MAX,
        i32::MAX,
        i64::MAX,
        i128::MAX,
        isize::MAX,
        u8::MAX,
        u16::MAX,
        u32::MAX,
        u64::MAX,
        u128::MAX,
        usize::MAX,
    )
    .unwrap();
    assert_eq!(
        w_max_sk,
        "I#127#32767#2147483647#9223372036854775807#170141183460469231731687303715884105727#9223372036854775807\
         #U#255#65535#4294967295#18446744073709551615#340282366920938463463374607431768211455#18446744073709551615"
    );

    // Tampered keys are errors, never panics.
    let good_pk = Composite::pk("a", "b").unwrap();
    assert_eq!(
        Composite::parse_pk(&good_pk).unwrap(),
        ("a".into(), "b".into())
    );
    let escape = |r: &KeyError| matches!(r, KeyError::Escape { .. });
    let literal = |r: &KeyError| matches!(r, KeyError::Literal { .. });
    let segment = |r: &KeyError| matches!(r, KeyError::Segment { .. });
    let empty = |r: &KeyError| matches!(r, KeyError::Empty);
    for (key, reason) in [
        ("USER#a%2#b", &escape as &dyn Fn(&KeyError) -> bool),
        ("USER#a%2", &escape),
        ("USER#a%", &escape),
        ("USER#a%41#b", &escape),
        ("USER#a%2G#b", &escape),
        ("USER#a#b%", &escape),
        ("USR#a#b", &literal),
        ("user#a#b", &literal),
        ("USER#a", &literal),
        ("USER#a#b#c", &literal),
        ("USER#a#b#", &literal),
        ("", &literal),
        ("USER##b", &empty),
        ("USER#a#", &empty),
    ] {
        refused(Composite::parse_pk(key), key, reason);
    }
    let good_sk = Composite::sk("c", 42, &Tier::Free, true, "d").unwrap();
    assert_eq!(good_sk, "ORDER#c#0000000000000000042#FREE#true#d");
    assert_eq!(
        Composite::parse_sk(&good_sk).unwrap(),
        ("c".into(), 42, Tier::Free, true, "d".into())
    );
    for (key, reason) in [
        // Non-digit integer, wrong width, signs the codec never writes.
        (
            "ORDER#c#000000000000000004x#FREE#true#d",
            &segment as &dyn Fn(&KeyError) -> bool,
        ),
        ("ORDER#c#42#FREE#true#d", &segment),
        ("ORDER#c#00000000000000000042#FREE#true#d", &segment),
        ("ORDER#c#+000000000000000042#FREE#true#d", &segment),
        ("ORDER#c#-#FREE#true#d", &segment),
        ("ORDER#c#--000000000000000042#FREE#true#d", &segment),
        ("ORDER#c# 000000000000000042#FREE#true#d", &segment),
        // A distance above i64::MAX cannot come from the encoder.
        ("ORDER#c#-9223372036854775808#FREE#true#d", &segment),
        ("ORDER#c#9223372036854775808#FREE#true#d", &segment),
        ("ORDER#c#0000000000000000042#DELTA#true#d", &segment),
        ("ORDER#c#0000000000000000042#free#true#d", &segment),
        ("ORDER#c#0000000000000000042#FREE#TRUE#d", &segment),
        ("ORDER#c#0000000000000000042#FREE#1#d", &segment),
        ("ORDER#c#0000000000000000042#FREE#true", &literal),
        ("ORDER#c#0000000000000000042#FREE#true#d#e", &literal),
        ("ORDERS#c#0000000000000000042#FREE#true#d", &literal),
        ("ORDER#c#0000000000000000042#FREE#true#%2", &escape),
    ] {
        refused(Composite::parse_sk(key), key, reason);
    }
    // Out-of-range values for the narrow widths, and a char of two chars.
    let mut sk = w_max_sk.replacen("I#127#", "I#128#", 1);
    assert!(Widths::parse_sk(&sk).is_err(), "{sk}");
    sk = w_max_sk.replacen("#U#255#", "#U#256#", 1);
    assert!(Widths::parse_sk(&sk).is_err(), "{sk}");
    sk = w_max_sk.replacen("I#127#", "I#-128#", 1);
    assert!(Widths::parse_sk(&sk).is_err(), "{sk}");
    sk = w_max_sk.replacen("I#127#", "I#-127#", 1);
    assert_eq!(Widths::parse_sk(&sk).unwrap().0, -1, "{sk}");
    assert!(Widths::parse_pk("W#s#ab#true#FREE").is_err());
    assert!(Widths::parse_pk("W#s#%23#true#FREE").is_ok());

    // Arbitrary values read back; the parse of a built key is exact.
    check(512, widths(), |w| {
        let (pk, sk) = widths_keys(&w);
        let back = widths_from_keys(&pk, &sk).unwrap();
        assert_eq!(back, w, "{pk} {sk}");
    });
    check(512, tuple(), |t| {
        let Some(k) = keys(&t) else { return };
        assert_eq!(
            Composite::parse_pk(&k[0]).unwrap(),
            (t.0.clone(), t.1.clone())
        );
        assert_eq!(
            Composite::parse_sk(&k[1]).unwrap(),
            (t.2.clone(), t.3, t.4, t.5, t.6.clone())
        );
        assert_eq!(Composite::parse_gsi1_pk(&k[2]).unwrap(), t.2);
        assert_eq!(Composite::parse_gsi1_sk(&k[3]).unwrap(), (t.6, t.0));
    });

    // Tampered and arbitrary keys: an error or, when they parse, exactly
    // the key the parsed values build (one key per value, one value per key).
    let inputs = prop_oneof![
        (
            tuple(),
            prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..4)
        )
            .prop_filter_map("key too long", |(t, ops)| {
                keys(&t).map(|k| k.map(|k| tampered(&k, &ops)))
            }),
        (
            widths(),
            prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..4)
        )
            .prop_map(|(w, ops)| {
                let (pk, sk) = widths_keys(&w);
                let (pk, sk) = (tampered(&pk, &ops), tampered(&sk, &ops));
                [pk, sk, String::new(), String::new()]
            }),
        prop::array::uniform4("\\PC{0,40}"),
    ];
    check(2048, inputs, |k| {
        if let Ok((a, b)) = Composite::parse_pk(&k[0]) {
            assert_eq!(Composite::pk(&a, &b).unwrap(), k[0]);
        }
        if let Ok((c, n, tier, flag, d)) = Composite::parse_sk(&k[1]) {
            assert_eq!(Composite::sk(&c, n, &tier, flag, &d).unwrap(), k[1]);
        }
        if let Ok(c) = Composite::parse_gsi1_pk(&k[2]) {
            assert_eq!(Composite::gsi1_pk(&c).unwrap(), k[2]);
        }
        if let Ok((d, a)) = Composite::parse_gsi1_sk(&k[3]) {
            assert_eq!(Composite::gsi1_sk(&d, &a).unwrap(), k[3]);
        }
        if let Ok(w) = widths_from_keys(&k[0], &k[1]) {
            assert_eq!(widths_keys(&w), (k[0].clone(), k[1].clone()));
        }
        let _ = Widths::parse_pk(&k[2]);
        let _ = Widths::parse_sk(&k[3]);
    });

    // Keys over DynamoDB's limits are refused when built.
    match UserEmail::pk(&"x".repeat(2048 - "USEREMAIL#".len() + 1)) {
        Err(Error::KeyTooLong {
            entity: "UserEmail",
            len: 2049,
            max: 2048,
            ..
        }) => {}
        other => panic!("expected KeyTooLong, got {other:?}"),
    }
    assert!(UserEmail::pk(&"x".repeat(2048 - "USEREMAIL#".len())).is_ok());
    match Composite::sk(&"#".repeat(400), 0, &Tier::Free, true, "d") {
        Err(Error::KeyTooLong { max: 1024, .. }) => {}
        other => panic!("expected KeyTooLong, got {other:?}"),
    }
}

/// The encoded key part, as DynamoDB stores it inside an `S` value.
fn part<T: KeyPart>(v: T) -> String {
    let mut s = String::new();
    v.write_key_part(&mut s).unwrap();
    s
}

/// Pairs that are random, adjacent, or equal.
macro_rules! pair {
    ($t:ty) => {
        prop_oneof![
            (edge!($t), edge!($t)),
            (edge!($t), 0u8..4).prop_map(|(a, d)| (a, a.saturating_add(d as $t))),
            (edge!($t), 0u8..4).prop_map(|(a, d)| (a, a.saturating_sub(d as $t))),
        ]
    };
}

/// Byte-wise order of the encoded parts (DynamoDB's order for `S`) is the
/// numeric order.
fn same_order<T: KeyPart + Ord + Copy + Default + Debug>((a, b): (T, T)) {
    let (ea, eb) = (part(a), part(b));
    assert_eq!(
        ea.as_bytes().cmp(eb.as_bytes()),
        a.cmp(&b),
        "{a:?} -> {ea}, {b:?} -> {eb}"
    );
    // Fixed width per sign: a number is never a prefix of another, so the
    // order holds inside longer composite keys too.
    let zero = T::default();
    assert_eq!(ea.len() == eb.len(), (a < zero) == (b < zero), "{ea} {eb}");
}

/// Strictly increasing values encode to strictly increasing byte strings.
fn increasing<T: KeyPart + Ord + Copy + Debug>(values: &[T]) {
    for w in values.windows(2) {
        assert!(w[0] < w[1], "test data {w:?}");
        assert!(part(w[0]).as_bytes() < part(w[1]).as_bytes(), "{w:?}");
    }
}

#[test]
fn numeric_sort_keys_sort_numerically() {
    increasing(&[
        i64::MIN,
        i64::MIN + 1,
        -10,
        -2,
        -1,
        0,
        1,
        2,
        10,
        i64::MAX - 1,
        i64::MAX,
    ]);
    increasing(&[i32::MIN, -1, 0, 1, i32::MAX]);
    increasing(&[i8::MIN, i8::MIN + 1, -1, 0, 1, i8::MAX]);
    increasing(&[i128::MIN, i128::MIN + 1, -1, 0, 1, i128::MAX]);
    increasing(&[0, 1, 9, 10, 99, 100, u64::MAX - 1, u64::MAX]);
    increasing(&[0, 1, 9, 10, 99, 100, u8::MAX]);
    increasing(&[0, 1, u128::MAX]);
    assert_eq!(part(-1i8), "-127");
    assert_eq!(part(i8::MIN), "-000");
    assert_eq!(part(7u8), "007");

    // One run per width: a single strategy over all twelve overflows the
    // stack of a debug-built test thread.
    check(2048, pair!(i64), same_order);
    check(2048, pair!(i32), same_order);
    check(2048, pair!(i16), same_order);
    check(2048, pair!(i8), same_order);
    check(2048, pair!(i128), same_order);
    check(2048, pair!(isize), same_order);
    check(2048, pair!(u64), same_order);
    check(2048, pair!(u32), same_order);
    check(2048, pair!(u16), same_order);
    check(2048, pair!(u8), same_order);
    check(2048, pair!(u128), same_order);
    check(2048, pair!(usize), same_order);
    // Inside whole sort keys, followed by another segment, the order of the
    // numbers decides.
    check(2048, (pair!(i64), "[a-z#%]{1,4}"), |((a, b), player)| {
        let (ka, kb) = (
            Score::sk(a, &player).unwrap(),
            Score::sk(b, &player).unwrap(),
        );
        assert_eq!(ka.as_bytes().cmp(kb.as_bytes()), a.cmp(&b), "{ka} {kb}");
        if a != b {
            let (ka, kb) = (Score::sk(a, "zzzz").unwrap(), Score::sk(b, "a").unwrap());
            assert_eq!(ka.as_bytes().cmp(kb.as_bytes()), a.cmp(&b), "{ka} {kb}");
        }
    });
}
