//! `doc_tests_cover_public_items`: every public item of the facade has an
//! example in its docs.
//!
//! The public API is found the way rustdoc finds it, from the sources:
//! from the facade's root, through `pub mod` and `pub use` (globs
//! included), into the workspace crates (members of the root manifest);
//! `#[doc(hidden)]` items and modules, `__private` and `#[cfg(test)]` are
//! left out, and so are re-exports of other crates' items (the SDK's
//! `AttributeValue`) and items behind a feature that is not a default one
//! (`#[cfg(feature = "lambda")]`: not in a default build, where `cargo test
//! --doc` could not run their examples). Every module, struct, enum, union, trait, function,
//! type alias, const, static and derive macro reached needs a Rust code
//! block (run, or `no_run`; not `ignore`, `text` or `compile_fail`) in its
//! own docs, `#[doc = include_str!(..)]` files included. Each `pub` method
//! of an inherent impl of a reached type, wherever the impl is, needs one in
//! its own docs, or a code block in its type's docs that calls it by name
//! (`.name(`, `::name(`, `::name::<`, or `Type::name` passed as a value);
//! a method with a `where` bound its callers cannot meet, which exists only
//! to refuse at compile time with a clear message, needs a `compile_fail`
//! block calling it instead.
//! Whether the examples compile and pass is `cargo test --doc`'s job.

mod walk;

use std::fs;
use std::path::Path;

use walk::{missing_examples, public_items};

/// Fails, listing them, when a public item of the facade has no example.
#[test]
fn doc_tests_cover_public_items() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let missing = missing_examples(root, "singletable").expect("the workspace's sources parse");
    let list: Vec<String> = missing.iter().map(ToString::to_string).collect();
    assert!(
        missing.is_empty(),
        "{} public items of `singletable` have no example in their docs (add a code block to the \
         item's doc comment; for a method, to its own doc or to its type's, calling it):\n  {}",
        missing.len(),
        list.join("\n  ")
    );
}

/// The checker itself, on a small workspace written for the test: it
/// reports exactly the items without an example, follows re-exports and
/// globs, counts a type's example that calls a method, and skips hidden
/// and private items.
#[test]
fn doc_coverage_reports_items_without_examples() {
    let dir = std::env::temp_dir().join(format!("singletable-doc-coverage-{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().expect("a file in a folder")).expect("temp dir");
        fs::write(path, text).expect("temp file");
    };
    write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"inner\"]\n\n[package]\nname = \"facade\"\n",
    );
    write(
        "src/lib.rs",
        "//! The facade.\n//! ```\n//! let _ = 1;\n//! ```\n\npub use inner_crate::*;\n",
    );
    write("inner/Cargo.toml", "[package]\nname = \"inner-crate\"\n");
    write(
        "inner/src/lib.rs",
        r#"
mod private;
pub mod shown;
#[doc(hidden)]
pub mod hidden;
pub use private::Reexported;

/// ```
/// let v = inner_crate::Typed::new().called();
/// ```
pub struct Typed;
impl Typed {
    pub fn new() -> Self { Typed }
    pub fn called(&self) {}
    /// No example, and the type's example does not call it.
    pub fn forgotten(&self) {}
    #[doc(hidden)]
    pub fn hidden(&self) {}
    fn private(&self) {}
}

/// No example.
pub fn bare() {}

/// ```text
/// not an example
/// ```
pub const TEXT_ONLY: u8 = 0;

/// ```no_run
/// let _ = inner_crate::NO_RUN;
/// ```
pub const NO_RUN: u8 = 0;

#[cfg(test)]
pub fn only_in_tests() {}
"#,
    );
    write(
        "inner/src/private.rs",
        "/// Reached through `pub use`, no example.\npub struct Reexported;\npub struct Unreachable;\n",
    );
    write(
        "inner/src/shown.rs",
        "//! A module without example.\n\n/// ```\n/// let _ = 2;\n/// ```\npub enum Documented { A }\n",
    );
    write("inner/src/hidden.rs", "pub fn anything() {}\n");

    let missing = missing_examples(&dir, "facade").expect("the fixture parses");
    let found: Vec<&str> = missing.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(
        found,
        [
            "const inner_crate::TEXT_ONLY",
            "fn inner_crate::bare",
            "method inner_crate::Typed::forgotten",
            "module inner_crate::shown",
            "struct inner_crate::private::Reexported",
        ]
    );
    fs::remove_dir_all(&dir).ok();
}

/// The facade's public API stays within its budget: a new public item
/// is a promise kept across releases, so raising the ceiling is a decision
/// made in this file, not a side effect. Executor-facing items belong to
/// `singletable-core`, generated-code helpers to `__private`.
#[test]
fn public_api_stays_within_budget() {
    // 205 items: the derives, the typed API and the tools users name. The
    // traits the derive implements and the bounds of generated methods are
    // `__private`'s; limits are associated constants of what they limit.
    const CEILING: usize = 205;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let items = public_items(root, "singletable").expect("the workspace's sources parse");
    assert!(
        items.len() > 150,
        "the walk found only {} public items: it no longer follows the facade's re-exports",
        items.len()
    );
    assert!(
        items.len() <= CEILING,
        "`singletable` exposes {} public items, over its budget of {CEILING}:\n  {}",
        items.len(),
        items.join("\n  ")
    );
}
