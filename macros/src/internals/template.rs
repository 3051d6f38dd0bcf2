//! Key templates: `"USER#<user_id>#ORDER#<order_id>"` is literal text plus
//! `<field>` placeholders.

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, copied into the key as is.
    Lit(String),
    /// A placeholder naming a field.
    Field(String),
}

/// Parses a template. Errors are messages for the whole literal: stable Rust
/// cannot point inside a string literal, so they quote the offending text.
pub fn parse(template: &str) -> Result<Vec<Segment>, String> {
    if template.is_empty() {
        return Err(
            "empty key template; DynamoDB rejects empty key values, so write text such as `PROFILE` or a placeholder such as `<id>`".into(),
        );
    }
    let mut segments = Vec::new();
    let mut lit = String::new();
    let mut chars = template.char_indices();
    while let Some((start, c)) = chars.next() {
        match c {
            '<' => {
                let mut name = String::new();
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    match c {
                        '>' => {
                            closed = true;
                            break;
                        }
                        '<' => {
                            return Err(format!(
                                "nested `<` in placeholder starting at `{}`; placeholders are `<field>` and cannot nest",
                                &template[start..]
                            ));
                        }
                        c => name.push(c),
                    }
                }
                if !closed {
                    return Err(format!(
                        "unclosed placeholder `{}`; close it with `>`",
                        &template[start..]
                    ));
                }
                if name.is_empty() {
                    return Err(
                        "empty placeholder `<>`; write a field name between `<` and `>`".into(),
                    );
                }
                if !is_ident(&name) {
                    return Err(format!(
                        "placeholder `<{name}>` is not a field name; placeholders hold a field identifier such as `<user_id>`"
                    ));
                }
                if segments
                    .iter()
                    .any(|s| matches!(s, Segment::Field(f) if *f == name))
                {
                    return Err(format!(
                        "placeholder `<{name}>` appears twice in one template; each field goes into a key once"
                    ));
                }
                if !lit.is_empty() {
                    segments.push(Segment::Lit(std::mem::take(&mut lit)));
                }
                segments.push(Segment::Field(name));
            }
            '>' => {
                let place = match &template[..start] {
                    "" => "at the start of the template".to_owned(),
                    before => format!("after `{before}`"),
                };
                return Err(format!(
                    "unmatched `>` {place}; placeholders are written `<field>`"
                ));
            }
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        segments.push(Segment::Lit(lit));
    }
    // A placeholder must end at the delimiter or at the end of the key, or two
    // different values could produce the same key (`<a>-<b>`: "x-y"+"z" and
    // "x"+"y-z").
    for pair in segments.windows(2) {
        if let [Segment::Field(name), next] = pair {
            let ok = matches!(next, Segment::Lit(text) if text.starts_with('#'));
            if !ok {
                return Err(format!(
                    "placeholder `<{name}>` must be followed by `#` or end the template, so that every key reads back to exactly one set of values"
                ));
            }
        }
    }
    Ok(segments)
}

fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The fields a template names, in order, without repeats.
pub fn fields(segments: &[Segment]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for s in segments {
        if let Segment::Field(f) = s
            && !out.contains(&f.as_str())
        {
            out.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Segment {
        Segment::Lit(s.into())
    }
    fn field(s: &str) -> Segment {
        Segment::Field(s.into())
    }

    #[test]
    fn parses_literals_and_placeholders() {
        assert_eq!(
            parse("USER#<user_id>#ORDER#<order_id>").unwrap(),
            vec![
                lit("USER#"),
                field("user_id"),
                lit("#ORDER#"),
                field("order_id")
            ]
        );
        assert_eq!(parse("PROFILE").unwrap(), vec![lit("PROFILE")]);
        assert_eq!(parse("<id>").unwrap(), vec![field("id")]);
    }

    #[test]
    fn rejects_malformed_templates() {
        assert!(parse("USER#<id").unwrap_err().contains("unclosed"));
        assert!(parse("USER#<>").unwrap_err().contains("empty placeholder"));
        assert!(parse("USER#<a<b>>").unwrap_err().contains("nested"));
        assert!(parse("USER#id>").unwrap_err().contains("unmatched"));
        assert!(parse("").unwrap_err().contains("empty key template"));
        assert!(parse("<a b>").unwrap_err().contains("not a field name"));
    }

    #[test]
    fn placeholders_end_at_a_delimiter() {
        assert!(parse("<a>-<b>").unwrap_err().contains("followed by `#`"));
        assert!(parse("<a><b>").unwrap_err().contains("followed by `#`"));
        assert!(parse("X#<a>#<b>").is_ok());
    }

    #[test]
    fn fields_are_in_order_and_never_repeated() {
        let s = parse("<b>#<a>").unwrap();
        assert_eq!(fields(&s), vec!["b", "a"]);
        assert!(parse("<b>#<a>#<b>").unwrap_err().contains("appears twice"));
    }
}
