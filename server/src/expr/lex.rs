//! Tokens of DynamoDB's expression language, with their places in the text
//! (syntax errors quote the text around the offending token).

use crate::error::ApiError;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A bare word: an attribute name, a keyword or a function name.
    Word(String),
    /// `#name`
    Name(String),
    /// `:value`
    Value(String),
    /// A non-negative integer (list indexes).
    Int(String),
    /// Punctuation and operators: `( ) [ ] , . = <> < <= > >= + -`.
    Sym(&'static str),
    Eof,
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits `text`; `kind` names the expression in errors (`UpdateExpression`).
pub(crate) fn lex(text: &str, kind: &str) -> Result<Vec<Token>, ApiError> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    let end_of = |j: usize| chars.get(j).map_or(text.len(), |(p, _)| *p);
    while i < chars.len() {
        let (start, c) = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let tok = match c {
            '#' | ':' => {
                while j < chars.len() && word_char(chars[j].1) {
                    j += 1;
                }
                let name = text[start..end_of(j)].to_owned();
                if j == i + 1 {
                    return Err(syntax(kind, text, c.to_string(), start, end_of(j)));
                }
                if c == '#' {
                    Tok::Name(name)
                } else {
                    Tok::Value(name)
                }
            }
            c if c.is_ascii_digit() => {
                while j < chars.len() && chars[j].1.is_ascii_digit() {
                    j += 1;
                }
                Tok::Int(text[start..end_of(j)].to_owned())
            }
            c if word_char(c) => {
                while j < chars.len() && word_char(chars[j].1) {
                    j += 1;
                }
                Tok::Word(text[start..end_of(j)].to_owned())
            }
            '<' | '>' => {
                let next = chars.get(j).map(|(_, c)| *c);
                let sym = match (c, next) {
                    ('<', Some('>')) => "<>",
                    ('<', Some('=')) => "<=",
                    ('>', Some('=')) => ">=",
                    ('<', _) => "<",
                    _ => ">",
                };
                j = i + sym.len();
                Tok::Sym(sym)
            }
            '(' => Tok::Sym("("),
            ')' => Tok::Sym(")"),
            '[' => Tok::Sym("["),
            ']' => Tok::Sym("]"),
            ',' => Tok::Sym(","),
            '.' => Tok::Sym("."),
            '=' => Tok::Sym("="),
            '+' => Tok::Sym("+"),
            '-' => Tok::Sym("-"),
            // A character of no token is a syntax error quoting it with
            // the tokens either side, as DynamoDB's parser does.
            other => {
                let from = out.last().map_or(start, |t: &Token| t.start);
                let to = next_token_end(&chars, j, text.len());
                return Err(syntax(kind, text, other.to_string(), from, to));
            }
        };
        out.push(Token {
            tok,
            start,
            end: end_of(j),
        });
        i = j;
    }
    out.push(Token {
        tok: Tok::Eof,
        start: text.len(),
        end: text.len(),
    });
    Ok(out)
}

/// Where the token after position `j` of `chars` ends (`len` when there
/// is none): a word, name, placeholder or number runs over its characters,
/// `<=`, `>=` and `<>` take two, anything else one.
fn next_token_end(chars: &[(usize, char)], mut j: usize, len: usize) -> usize {
    while j < chars.len() && chars[j].1.is_whitespace() {
        j += 1;
    }
    let Some(&(_, c)) = chars.get(j) else {
        return len;
    };
    let mut k = j + 1;
    if word_char(c) || matches!(c, '#' | ':') {
        while k < chars.len() && word_char(chars[k].1) {
            k += 1;
        }
    } else if matches!(c, '<' | '>')
        && chars
            .get(k)
            .is_some_and(|&(_, n)| n == '=' || (c == '<' && n == '>'))
    {
        k += 1;
    }
    chars.get(k).map_or(len, |&(p, _)| p)
}

/// `Invalid <kind>: Syntax error; token: "<tok>", near: "<text around>"`.
pub(crate) fn syntax(kind: &str, text: &str, token: String, from: usize, to: usize) -> ApiError {
    ApiError::validation(format!(
        "Invalid {kind}: Syntax error; token: \"{token}\", near: \"{}\"",
        text.get(from..to).unwrap_or(text).trim()
    ))
}

impl Token {
    /// The token as DynamoDB's syntax errors quote it.
    pub(crate) fn text<'a>(&self, src: &'a str) -> &'a str {
        if self.tok == Tok::Eof {
            "<EOF>"
        } else {
            src.get(self.start..self.end).unwrap_or("")
        }
    }
}
