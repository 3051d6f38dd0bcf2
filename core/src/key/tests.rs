use super::KeyPart;

/// A part strips exactly what writing it appends, and nothing else.
fn strips_what_it_writes<T: KeyPart + ?Sized>(v: &T) {
    let mut written = String::new();
    v.write_key_part(&mut written).unwrap();
    let stored = format!("{written}#rest");
    assert_eq!(v.strip_key_part(&stored), Some("#rest"), "{written}");
    let mut shorter = written.clone();
    let last = shorter.pop().unwrap();
    assert_eq!(v.strip_key_part(&shorter), None);
    shorter.push(if last == '1' { '2' } else { '1' });
    assert_eq!(v.strip_key_part(&shorter), None);
}

#[test]
fn strip_key_part_agrees_with_write_key_part() {
    for n in [0u32, 7, 42, 1_000_000, u32::MAX] {
        strips_what_it_writes(&n);
    }
    for n in [i64::MIN, -1, 0, 9, i64::MAX] {
        strips_what_it_writes(&n);
    }
    for n in [i8::MIN, -1, 0, i8::MAX] {
        strips_what_it_writes(&n);
    }
    strips_what_it_writes(&u128::MAX);
    strips_what_it_writes(&usize::MAX);
    for s in ["a", "a#b", "100%", "ünï"] {
        strips_what_it_writes(s);
        strips_what_it_writes(&String::from(s));
    }
    strips_what_it_writes(&true);
    strips_what_it_writes(&'x');
    assert_eq!("".strip_key_part("x"), None);
    assert_eq!(5u8.strip_key_part("00x"), None);
    assert_eq!(5u8.strip_key_part("-005"), None);
    // Stored digits beyond the type's range never equal a value (they
    // would wrap to 5 without checked arithmetic).
    strips_what_it_writes(&u64::MAX);
    assert_eq!(5u64.strip_key_part("18446744073709551621"), None);
    assert_eq!(5u32.strip_key_part("000000000+5"), None);
    for (text, n) in [
        ("00000000", 0),
        ("12345678", 12_345_678),
        ("99999999", 99_999_999),
    ] {
        assert_eq!(
            super::eight_digits(text.as_bytes().try_into().unwrap()),
            Some(n)
        );
    }
    for text in ["1234567/", "1234567:", "a2345678", "1234 678"] {
        assert_eq!(
            super::eight_digits(text.as_bytes().try_into().unwrap()),
            None,
            "{text}"
        );
    }
}
