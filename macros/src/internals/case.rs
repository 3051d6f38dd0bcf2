//! `rename_all` rules, applied to snake_case field names and to PascalCase
//! variant names.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RenameRule {
    None,
    Lower,
    Upper,
    Camel,
    Pascal,
    Snake,
    ScreamingSnake,
    Kebab,
}

impl RenameRule {
    pub const NAMES: &'static [&'static str] = &[
        "\"lowercase\"",
        "\"UPPERCASE\"",
        "\"camelCase\"",
        "\"PascalCase\"",
        "\"snake_case\"",
        "\"SCREAMING_SNAKE_CASE\"",
        "\"kebab-case\"",
    ];

    pub fn from_str(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "camelCase" => Self::Camel,
            "PascalCase" => Self::Pascal,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            _ => return None,
        })
    }

    /// Applies the rule to a name, splitting it into words at `_` and at
    /// lower-to-upper case changes, so it serves fields and variants alike.
    pub fn apply(self, name: &str) -> String {
        let name = name.strip_prefix("r#").unwrap_or(name);
        if self == Self::None {
            return name.to_owned();
        }
        let words = words(name);
        match self {
            Self::None => unreachable!("handled above"),
            Self::Lower => words.concat().to_lowercase(),
            Self::Upper => words.concat().to_uppercase(),
            Self::Snake => join(&words, "_", str::to_lowercase),
            Self::ScreamingSnake => join(&words, "_", str::to_uppercase),
            Self::Kebab => join(&words, "-", str::to_lowercase),
            Self::Pascal => words.iter().map(|w| capitalize(w)).collect(),
            Self::Camel => words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if i == 0 {
                        w.to_lowercase()
                    } else {
                        capitalize(w)
                    }
                })
                .collect(),
        }
    }
}

fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn join(words: &[String], sep: &str, f: fn(&str) -> String) -> String {
    words.iter().map(|w| f(w)).collect::<Vec<_>>().join(sep)
}

fn capitalize(word: &str) -> String {
    let lower = word.to_lowercase();
    let mut chars = lower.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `name` in PascalCase, for the generated query types' names.
pub(crate) fn pascal(name: &str) -> String {
    RenameRule::Pascal.apply(name)
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn renames_fields_and_variants() {
        assert_eq!(Camel.apply("created_at"), "createdAt");
        assert_eq!(Camel.apply("user_id"), "userId");
        assert_eq!(Pascal.apply("user_id"), "UserId");
        assert_eq!(ScreamingSnake.apply("InTransit"), "IN_TRANSIT");
        assert_eq!(ScreamingSnake.apply("pending"), "PENDING");
        assert_eq!(Kebab.apply("InTransit"), "in-transit");
        assert_eq!(Lower.apply("InTransit"), "intransit");
        assert_eq!(Snake.apply("r#type"), "type");
        assert_eq!(None.apply("r#type"), "type");
    }
}
