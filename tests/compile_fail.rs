//! Compile-fail suite: every file under `tests/ui/` is one mistake a user can
//! make in the derive attributes, and its `.stderr` is the error they see.
//!
//! rustc's diagnostics change between releases, so the snapshots are pinned
//! to one compiler; review every `.stderr` after `TRYBUILD=overwrite`.
//! `UI_CASES='tests/ui/collection/*.rs'` runs only the cases it matches.

use std::process::Command;

/// The compiler release the `.stderr` snapshots were written with.
const PINNED: &str = "rustc 1.95.";

#[test]
fn compile_fail() {
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
    trybuild::TestCases::new().compile_fail(
        std::env::var("UI_CASES")
            .as_deref()
            .unwrap_or("tests/ui/**/*.rs"),
    );
}

/// One mistake gives one error: every snapshot holds exactly one.
#[test]
fn every_snapshot_holds_one_error() {
    let mut wrong = Vec::new();
    let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut dirs = vec![ui];
    let mut seen = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "stderr") {
                seen += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                let errors = text
                    .lines()
                    .filter(|l| l.starts_with("error:") || l.starts_with("error["))
                    .count();
                if errors != 1 {
                    wrong.push(format!("{} holds {errors} errors", path.display()));
                }
            }
        }
    }
    assert!(seen > 60, "only {seen} snapshots found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
