//! Ready to publish: `cargo package --workspace` builds every package from
//! its `.crate` (the verification a publish runs), each `.crate` carries
//! both license files and none of the repository's tests, ui snapshots,
//! caches or build output, and the toolchain pin is the declared MSRV.
//! Needs no DynamoDB. The packaging check runs a nested cargo with a
//! `CARGO_HOME` and a target folder of its own, both under the test's
//! target folder: the user's `$CARGO_HOME` is only read, and the test
//! build's own artifacts are never rebuilt under another registry path
//! (which would change the libraries the doc tests link).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The string value of the first `key = "value"` line of a TOML file.
fn toml_value(file: &str, key: &str) -> String {
    let text = std::fs::read_to_string(root().join(file))
        .unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    text.lines()
        .find_map(|line| {
            let (k, v) = line.split_once('=')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| panic!("{file} has no `{key} = ...` line"))
}

/// `rust-toolchain.toml` pins the MSRV itself, so every build under the
/// pin (CI's clippy and tests) checks that `rust-version` holds, and the
/// two cannot drift apart; the ui snapshots are for the same release.
#[test]
fn rust_version_is_the_pinned_toolchain() {
    let channel = toml_value("rust-toolchain.toml", "channel");
    let msrv = toml_value("Cargo.toml", "rust-version");
    assert!(
        channel == msrv || channel == format!("{msrv}.0"),
        "rust-toolchain.toml pins {channel} but Cargo.toml declares rust-version = {msrv}: \
         change both (and the ui snapshots, tests/compile_fail.rs) together"
    );
    let compile_fail = std::fs::read_to_string(root().join("tests/compile_fail.rs")).unwrap();
    assert!(
        compile_fail.contains(&format!("const PINNED: &str = \"rustc {msrv}.\";")),
        "tests/compile_fail.rs's PINNED is not rustc {msrv}: the ui snapshots are for another compiler"
    );
}

/// Verification builds each package against the others as cargo packed
/// them, through a registry overlay whose sources cargo extracts under
/// `$CARGO_HOME/registry/src/` once per version: a second run after the
/// sources changed would build the first run's copies. So the check runs
/// cargo with a `CARGO_HOME` of its own under the target folder, whose
/// registry reads the user's index, downloaded crates and extracted
/// sources through links, and holds the extracted copies of this
/// workspace's own packages as folders of its own, removed before each
/// run. Nothing under the user's `$CARGO_HOME` is written or removed.
fn package_home(target: &Path) -> PathBuf {
    let real = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("neither CARGO_HOME nor HOME is set");
    let home = target.join("package-home");
    let link = |from: &Path, to: &Path| {
        if to.symlink_metadata().is_err() && from.exists() {
            std::os::unix::fs::symlink(from, to)
                .unwrap_or_else(|e| panic!("cannot link {}: {e}", to.display()));
        }
    };
    let registry = home.join("registry");
    std::fs::create_dir_all(registry.join("src")).expect("create the packaging CARGO_HOME");
    for shared in ["index", "cache"] {
        link(&real.join("registry").join(shared), &registry.join(shared));
    }
    for shared in ["git", "config.toml", "config"] {
        link(&real.join(shared), &home.join(shared));
    }
    let version = env!("CARGO_PKG_VERSION");
    let ours: Vec<String> = PACKAGES
        .iter()
        .map(|(n, _)| format!("{n}-{version}"))
        .collect();
    // Cargo never extracts a package again over an extracted copy of the
    // same version: the previous run's copies of ours go, from every source
    // folder (the local registry cargo package makes has one of its own).
    let forget_ours = |folder: &Path| {
        for name in &ours {
            let copy = folder.join(name);
            if copy.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&copy)
                    .unwrap_or_else(|e| panic!("cannot remove {}: {e}", copy.display()));
            } else if copy.symlink_metadata().is_ok() {
                std::fs::remove_file(&copy)
                    .unwrap_or_else(|e| panic!("cannot remove {}: {e}", copy.display()));
            }
        }
    };
    for own in std::fs::read_dir(registry.join("src"))
        .into_iter()
        .flatten()
        .flatten()
    {
        forget_ours(&own.path());
    }
    let Ok(sources) = std::fs::read_dir(real.join("registry/src")) else {
        return home;
    };
    for source in sources.flatten() {
        let own = registry.join("src").join(source.file_name());
        std::fs::create_dir_all(&own).expect("create a registry source folder");
        for krate in std::fs::read_dir(source.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = krate.file_name();
            if !ours.iter().any(|o| *o == *name.to_string_lossy()) {
                link(&krate.path(), &own.join(&name));
            }
        }
    }
    home
}

/// The workspace's packages, with the files each `.crate` must hold
/// besides its manifest and licenses.
const PACKAGES: &[(&str, &[&str])] = &[
    ("singletable", &["README.md", "src/lib.rs"]),
    ("singletable-macros", &["src/lib.rs", "doc/entity.md"]),
    ("singletable-core", &["src/lib.rs"]),
    ("singletable-runtime", &["src/lib.rs"]),
    ("singletable-embedded", &["src/lib.rs"]),
    ("singletable-tools", &["src/lib.rs"]),
    ("singletable-aws", &["src/lib.rs"]),
    ("singletable-server", &["src/lib.rs"]),
];

/// Cargo takes a registry package of the same version to be the same
/// code and never rebuilds it, so the builds of the previous run's packed
/// copies (dependency info pointing into the registry sources) would be
/// used again after the sources changed: their fingerprints are removed,
/// which rebuilds those copies and nothing else.
fn forget_packed_builds(target: &std::path::Path) {
    let deps = target.join("debug/deps");
    let Ok(files) = std::fs::read_dir(&deps) else {
        return;
    };
    for file in files.flatten() {
        let name = file.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".d") else {
            continue;
        };
        let ours = PACKAGES.iter().map(|(n, _)| n.replace('-', "_")).any(|n| {
            stem.rsplit_once('-')
                .is_some_and(|(crate_name, _)| crate_name == n)
        });
        let packed = std::fs::read_to_string(file.path()).is_ok_and(|d| {
            d.lines()
                .next()
                .is_some_and(|l| l.contains("/registry/src/"))
        });
        if ours && packed {
            let fingerprint =
                target
                    .join("debug/.fingerprint")
                    .join(stem.replacen('_', "-", usize::MAX));
            let _ = std::fs::remove_dir_all(fingerprint);
        }
    }
}

#[test]
fn workspace_packages_verify() {
    let outer = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let home = package_home(&outer);
    let target = outer.join("package-verify");
    forget_packed_builds(&target);
    let started = Instant::now();
    let mut command = crate::support::cargo();
    let output = command
        .current_dir(root())
        .env("CARGO_HOME", &home)
        // --allow-dirty: the check runs on a working tree being edited too;
        // `include` in each manifest decides what goes in, not git.
        // The dynoxide benchmark is no package: it is never published, and
        // verifying it would build SQLite.
        .args([
            "package",
            "--workspace",
            "--exclude",
            "singletable-bench-dynoxide",
            "--locked",
            "--allow-dirty",
        ])
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("cannot run cargo package");
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("cargo package --workspace: {:.0?}", started.elapsed());
    assert!(
        output.status.success(),
        "cargo package --workspace failed:\n{stderr}"
    );
    // The facade's tests, benches and examples stay in the repository, and
    // cargo says so for each target the manifest names; any other warning
    // (missing metadata, a file it cannot find) fails the check.
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .filter(|l| {
            !(l.starts_with("warning: ignoring ")
                && l.ends_with("is not included in the published package"))
        })
        .collect();
    assert!(
        warnings.is_empty(),
        "cargo package --workspace warns:\n{stderr}"
    );

    let version = env!("CARGO_PKG_VERSION");
    for (name, extra) in PACKAGES {
        let krate = target.join(format!("package/{name}-{version}.crate"));
        let list = Command::new("tar")
            .arg("-tzf")
            .arg(&krate)
            .output()
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", krate.display()));
        assert!(list.status.success(), "cannot list {}", krate.display());
        let prefix = format!("{name}-{version}/");
        let files: Vec<String> = String::from_utf8_lossy(&list.stdout)
            .lines()
            .map(|l| l.strip_prefix(&prefix).unwrap_or(l).to_owned())
            .collect();
        for wanted in ["LICENSE-MIT", "LICENSE-APACHE", "Cargo.toml"]
            .iter()
            .chain(extra.iter())
        {
            assert!(
                files.iter().any(|f| f == wanted),
                "{name}'s .crate has no {wanted}: {files:?}"
            );
        }
        let stray: Vec<&String> = files
            .iter()
            .filter(|f| {
                [
                    "tests/",
                    "benches/",
                    "examples/",
                    ".cache/",
                    "target/",
                    ".ci/",
                    "scripts/",
                ]
                .iter()
                .any(|dir| f.starts_with(dir) || f.contains(&format!("/{dir}")))
            })
            .collect();
        assert!(
            stray.is_empty(),
            "{name}'s .crate carries repository-only files: {stray:?}"
        );
    }
}
