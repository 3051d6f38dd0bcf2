//! Compile-fail suite: every file under `tests/ui/` is one mistake a user can
//! make in the derive attributes, and its `.stderr` is the error they see.
//!
//! rustc's diagnostics change between releases, so the snapshots are pinned
//! to one compiler; review every `.stderr` after `TRYBUILD=overwrite`.
//! `UI_CASES='tests/ui/collection/*.rs'` runs only the cases it matches.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The compiler release the `.stderr` snapshots were written with.
const PINNED: &str = "rustc 1.95.";

/// The cases of `every_derive_emits_its_api_after_an_error`, which the
/// `compile_fail` test leaves to it.
const AFTER_ERROR: &str = "tests/ui/after_error";

/// The cases of `vector_declaration_mistakes_are_compile_errors`.
const VECTOR: &str = "tests/ui/vector";

/// The cases of `renamed_pattern_in_a_workload_does_not_compile`.
const WORKLOAD: &str = "tests/ui/workload";

/// One trybuild run at a time: the runs share one project directory.
static TRYBUILD: Mutex<()> = Mutex::new(());

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn assert_pinned() {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{} --version`: {e}", rustc.to_string_lossy()));
    let version = String::from_utf8_lossy(&output.stdout);
    assert!(
        version.starts_with(PINNED),
        "the tests/ui/**/*.stderr snapshots are for rustc 1.95, but this is `{}`; \
         run this test with a 1.95 toolchain (`cargo +1.95 test --test compile_fail`), \
         or regenerate the snapshots with TRYBUILD=overwrite and review every one",
        version.trim()
    );
}

/// Runs trybuild on the cases `globs` match.
fn run_cases(globs: &[String]) {
    let _one = TRYBUILD.lock().unwrap_or_else(|e| e.into_inner());
    let t = trybuild::TestCases::new();
    for glob in globs {
        t.compile_fail(glob);
    }
}

#[test]
fn compile_fail() {
    assert_pinned();
    let globs = match std::env::var("UI_CASES") {
        Ok(cases)
            if cases.starts_with(AFTER_ERROR)
                || cases.starts_with(VECTOR)
                || cases.starts_with(WORKLOAD) =>
        {
            Vec::new()
        }
        Ok(cases) => vec![cases],
        Err(_) => {
            let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/ui"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.is_dir()
                        && !p.ends_with("after_error")
                        && !p.ends_with("vector")
                        && !p.ends_with("workload")
                })
                .collect();
            dirs.sort();
            dirs.iter()
                .map(|d| format!("tests/ui/{}/*.rs", d.file_name().unwrap().to_string_lossy()))
                .collect()
        }
    };
    run_cases(&globs);
}

/// The errors in a `.stderr` snapshot.
fn errors_in(stderr: &Path) -> usize {
    std::fs::read_to_string(stderr)
        .unwrap_or_else(|e| panic!("{}: {e}", stderr.display()))
        .lines()
        .filter(|l| l.starts_with("error:") || l.starts_with("error["))
        .count()
}

/// A mistake in each derive, followed by code that uses what the derive
/// generates: the derive still emits its API beside its error, so that no
/// later error follows from the first.
#[test]
fn every_derive_emits_its_api_after_an_error() {
    assert_pinned();
    let asked = std::env::var("UI_CASES").ok();
    if asked.as_deref().is_none_or(|c| c.starts_with(AFTER_ERROR)) {
        let glob = asked.unwrap_or_else(|| format!("{AFTER_ERROR}/*.rs"));
        run_cases(&[glob]);
    }
    let dir = root().join(AFTER_ERROR);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
    let mut wrong = Vec::new();
    for derive in ["table", "entity", "collection", "document", "str_enum"] {
        if !cases
            .iter()
            .any(|c| stem(c).starts_with(&format!("{derive}_")))
        {
            wrong.push(format!("no case `{AFTER_ERROR}/{derive}_*.rs`"));
        }
    }
    for case in &cases {
        let stderr = case.with_extension("stderr");
        match errors_in(&stderr) {
            1 => {}
            n => wrong.push(format!("{} holds {n} errors", stderr.display())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Vector indexes: a field that cannot feed one, dimensions that disagree
/// with the table's, a filter on an attribute that is no `INLINE_FILTER`,
/// a range on a `HASH` attribute, a projection of an attribute the index
/// does not project, an index the table does not declare: each one error.
#[test]
fn vector_declaration_mistakes_are_compile_errors() {
    assert_pinned();
    let asked = std::env::var("UI_CASES").ok();
    if asked.as_deref().is_none_or(|c| c.starts_with(VECTOR)) {
        run_cases(&[asked.unwrap_or_else(|| format!("{VECTOR}/*.rs"))]);
    }
    for case in [
        "wrong_field_type",
        "dimensions_of_the_array",
        "filter_on_an_attribute_that_is_no_inline_filter",
        "range_on_a_hash_attribute",
        "projection_the_index_does_not_hold",
        "index_the_table_does_not_declare",
    ] {
        let stderr = root().join(VECTOR).join(format!("{case}.stderr"));
        assert_eq!(errors_in(&stderr), 1, "{}", stderr.display());
    }
}

/// A workload names its access patterns by the markers the derive
/// generates (`PostPostsQuery` for `#[access(posts)]` on `Post`): a pattern
/// renamed in the design is a compile error in the workload, not a stale row.
#[test]
fn renamed_pattern_in_a_workload_does_not_compile() {
    assert_pinned();
    let asked = std::env::var("UI_CASES").ok();
    if asked.as_deref().is_none_or(|c| c.starts_with(WORKLOAD)) {
        run_cases(&[asked.unwrap_or_else(|| format!("{WORKLOAD}/*.rs"))]);
    }
    let stderr = root().join(WORKLOAD).join("renamed_pattern.stderr");
    assert_eq!(errors_in(&stderr), 1, "{}", stderr.display());
    let text = std::fs::read_to_string(&stderr).unwrap();
    assert!(text.contains("PostPostsQuery"), "{text}");
}

/// One mistake gives one error: every snapshot holds exactly one.
#[test]
fn every_snapshot_holds_one_error() {
    let mut wrong = Vec::new();
    let mut dirs = vec![root().join("tests/ui")];
    let mut seen = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "stderr") {
                seen += 1;
                let errors = errors_in(&path);
                if errors != 1 {
                    wrong.push(format!("{} holds {errors} errors", path.display()));
                }
            }
        }
    }
    assert!(seen > 60, "only {seen} snapshots found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
