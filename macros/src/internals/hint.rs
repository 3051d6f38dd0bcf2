//! Hints in error messages: the closest name, a list of names. A leaf.

pub(crate) fn closest<'a>(name: &str, candidates: &'a [String]) -> Option<&'a str> {
    // Jaro-Winkler, or one edit away (a transposition, a letter wrong,
    // missing or doubled), which it scores low on short names (`kp`).
    let score = |c: &str| {
        let jw = strsim::jaro_winkler(name, c);
        if jw <= 0.8 && c.len() >= 2 && strsim::osa_distance(name, c) == 1 {
            0.81
        } else {
            jw
        }
    };
    candidates
        .iter()
        .map(|c| (score(c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c.as_str())
}

pub(crate) fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
