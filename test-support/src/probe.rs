//! The build script's side: find each [`External`], set its `cfg`, and say once what is missing.

use std::io::Write;

use crate::External;

/// The environment variable that turns a missing [`External`] from ignored tests into a failed
/// build: `TOOLTABLE_REQUIRE_EXTERNAL=1`, which CI sets after installing everything.
pub const REQUIRE: &str = "TOOLTABLE_REQUIRE_EXTERNAL";

/// Finds each of `needed` for the package whose build script calls it: sets the `cfg` of each
/// one found, warns once (a cargo warning, shown on every build) of each one missing and what
/// to install, and asks cargo to probe again when a folder where it could appear changes.
/// Under `TOOLTABLE_REQUIRE_EXTERNAL=1` a missing one is a cargo error instead, which fails the
/// build.
///
/// ```no_run
/// // build.rs, the body of its `main`:
/// test_support::probe(&[&test_support::POSTGRES]);
/// ```
pub fn probe(needed: &[&External]) {
    let mut out = std::io::stdout().lock();
    for line in instructions(needed, required()) {
        let _ = writeln!(out, "{line}");
    }
}

/// Whether `TOOLTABLE_REQUIRE_EXTERNAL=1`.
pub fn required() -> bool {
    std::env::var_os(REQUIRE).is_some_and(|value| value == "1")
}

/// What [`probe`] tells cargo: `cargo::error` (which fails the build) for each one missing when
/// `required`, else `cargo::warning`.
fn instructions(needed: &[&External], required: bool) -> Vec<String> {
    let mut lines =
        vec!["cargo::rerun-if-changed=build.rs".to_owned(), format!("cargo::rerun-if-env-changed={REQUIRE}")];
    for external in needed {
        let found = external.locate();
        lines.push(format!("cargo::rustc-check-cfg=cfg({})", external.cfg));
        lines.extend(external.env.iter().map(|var| format!("cargo::rerun-if-env-changed={var}")));
        let watched = external.watched(found.as_deref());
        lines.extend(watched.iter().map(|path| format!("cargo::rerun-if-changed={}", path.display())));
        lines.push(match (found, required) {
            (Some(_), _) => format!("cargo::rustc-cfg={}", external.cfg),
            (None, true) => {
                format!(
                    "cargo::error=not found: {}, which {REQUIRE}=1 requires; to get it: {}",
                    external.what, external.install
                )
            }
            (None, false) => {
                format!("cargo::warning=tests ignored: not found: {}; to run them: {}", external.what, external.install)
            }
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn absent() -> Option<std::path::PathBuf> {
        None
    }

    fn here() -> Option<std::path::PathBuf> {
        Some(std::env::temp_dir())
    }

    const MISSING: External = External {
        cfg: "has_missing",
        what: "the missing program",
        install: "apt-get install missing",
        find: absent,
        env: &["TEST_SUPPORT_NO_SUCH_VARIABLE"],
        dirs: &["/no/such/folder"],
    };

    const PRESENT: External = External { cfg: "has_present", find: here, ..MISSING };

    #[test]
    fn a_found_one_sets_its_cfg_and_a_missing_one_warns_with_what_to_install() {
        let lines = instructions(&[&PRESENT, &MISSING], false).join("\n");
        assert!(lines.contains("cargo::rustc-cfg=has_present"), "{lines}");
        assert!(!lines.contains("cargo::rustc-cfg=has_missing"), "{lines}");
        assert!(lines.contains("cargo::rustc-check-cfg=cfg(has_missing)"), "{lines}");
        let warning =
            "cargo::warning=tests ignored: not found: the missing program; to run them: apt-get install missing";
        assert!(lines.contains(warning), "{lines}");
        assert!(!lines.contains("cargo::error"), "{lines}");
        assert!(lines.contains("cargo::rerun-if-env-changed=TEST_SUPPORT_NO_SUCH_VARIABLE"), "{lines}");
        assert!(lines.contains("cargo::rerun-if-env-changed=TOOLTABLE_REQUIRE_EXTERNAL"), "{lines}");
    }

    #[test]
    fn a_missing_one_fails_the_build_when_required() {
        let lines = instructions(&[&PRESENT, &MISSING], true).join("\n");
        let error = "cargo::error=not found: the missing program, which TOOLTABLE_REQUIRE_EXTERNAL=1 requires; \
                     to get it: apt-get install missing";
        assert!(lines.contains(error), "{lines}");
        assert!(!lines.contains("cargo::warning"), "{lines}");
        assert!(!instructions(&[&PRESENT], true).join("\n").contains("cargo::error"));
    }

    #[test]
    fn only_paths_that_exist_are_watched_since_a_missing_one_would_rebuild_every_time() {
        let lines = instructions(&[&PRESENT, &MISSING], false);
        let watched: Vec<&String> = lines.iter().filter(|l| l.starts_with("cargo::rerun-if-changed=")).collect();
        assert!(watched.iter().all(|line| !line.contains("/no/such/folder")), "{watched:?}");
        let temp = format!("cargo::rerun-if-changed={}", std::env::temp_dir().display());
        assert!(watched.iter().any(|line| **line == temp), "{watched:?}");
    }
}
