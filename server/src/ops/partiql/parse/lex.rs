//! PartiQL's tokens: identifiers, quoted names, string and number
//! literals, symbols.

use super::malformed;
use crate::error::ApiError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// A bare identifier or keyword.
    Word(String),
    /// A `"quoted"` identifier.
    Quoted(String),
    /// A `'string'` literal.
    Str(String),
    Num(String),
    Sym(&'static str),
    Eof,
}

const SYMS: [&str; 21] = [
    "<<", ">>", "<=", ">=", "<>", "!=", "=", "<", ">", "(", ")", "[", "]", "{", "}", ",", ".", ":",
    "*", "?", "+",
];

pub(super) fn lex(text: &str) -> Result<Vec<Tok>, ApiError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'\'' || c == b'"' {
            let mut s = String::new();
            let mut j = i + 1;
            loop {
                let Some(ch) = text[j..].chars().next() else {
                    return Err(malformed("Unterminated quoted text"));
                };
                if ch as u32 == c as u32 {
                    if b.get(j + 1) == Some(&c) {
                        s.push(ch);
                        j += 2;
                        continue;
                    }
                    j += 1;
                    break;
                }
                s.push(ch);
                j += ch.len_utf8();
            }
            out.push(if c == b'\'' {
                Tok::Str(s)
            } else {
                Tok::Quoted(s)
            });
            i = j;
            continue;
        }
        if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                i += 1;
                if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                    i += 1;
                }
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push(Tok::Num(text[start..i].to_owned()));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push(Tok::Word(text[start..i].to_owned()));
            continue;
        }
        if c == b'-' {
            out.push(Tok::Sym("-"));
            i += 1;
            continue;
        }
        match SYMS.iter().find(|s| text[i..].starts_with(**s)) {
            Some(s) => {
                out.push(Tok::Sym(s));
                i += s.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(malformed(format!("Unexpected character: {ch}")));
            }
        }
    }
    out.push(Tok::Eof);
    Ok(out)
}
