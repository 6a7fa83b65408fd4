//! [`External`]: one thing outside the repository that some tests need, and how to find it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A program the machine may lack, or data whose licence keeps it out of the repository, that
/// some tests need.
///
/// The build script of a package whose tests need it calls [`probe`](crate::probe), which sets
/// [`cfg`](External::cfg) when it is found; each such test carries
/// `#[cfg_attr(not(has_x), ignore = "needs X: how to get it")]`, and reaches it with
/// [`path`](External::path).
///
/// ```
/// let postgres = &test_support::POSTGRES;
/// assert_eq!(postgres.cfg, "has_postgres");
/// if let Some(bin) = postgres.locate() {
///     assert!(bin.join("initdb").is_file() && bin.join("postgres").is_file());
/// }
/// ```
#[derive(Debug)]
pub struct External {
    /// The `cfg` [`probe`](crate::probe) sets when it is found: `has_postgres`.
    pub cfg: &'static str,
    /// What it is, for a person: "PostgreSQL's initdb and postgres".
    pub what: &'static str,
    /// How to get it: "apt-get install postgresql".
    pub install: &'static str,
    /// Where it is (for a program, its file or folder), or `None`.
    pub find: fn() -> Option<PathBuf>,
    /// The environment variables `find` reads. Each is taken as a list of paths (as `PATH` is):
    /// a change of the variable, or of any folder it names, probes again.
    pub env: &'static [&'static str],
    /// Folders beside those whose change may mean it came or went (`/usr/lib/postgresql`);
    /// those that do not exist are skipped.
    pub dirs: &'static [&'static str],
}

impl External {
    /// Where it is, or `None` when it is absent.
    pub fn locate(&self) -> Option<PathBuf> {
        (self.find)()
    }

    /// Where it is. A test calls this only where the `cfg` says it was found, so absence here
    /// (it went away since the build, or the test was run with `--include-ignored`) panics with
    /// what to install.
    pub fn path(&self) -> PathBuf {
        self.locate().unwrap_or_else(|| panic!("{}", self.absent()))
    }

    /// The sentence that says it is absent and how to get it.
    pub fn absent(&self) -> String {
        format!("not found: {}; to run the tests that need it: {}", self.what, self.install)
    }

    /// The paths whose change may mean it came or went: the folders of its variables and
    /// [`dirs`](External::dirs), and where it was found; only those that exist, since cargo
    /// probes again at every build for a path that does not.
    pub(crate) fn watched(&self, found: Option<&Path>) -> Vec<PathBuf> {
        let listed = self.env.iter().flat_map(|var| path_list(var));
        let mut watched: Vec<PathBuf> = listed
            .chain(self.dirs.iter().map(PathBuf::from))
            .chain(found.map(Path::to_path_buf))
            .filter(|path| path.is_absolute() && path.exists())
            .collect();
        watched.sort();
        watched.dedup();
        watched
    }
}

/// The paths an environment variable lists, as `PATH` does (one path is a list of one).
pub fn path_list(var: &str) -> Vec<PathBuf> {
    std::env::var_os(var).map(|value: OsString| std::env::split_paths(&value).collect()).unwrap_or_default()
}

/// The first folder on `PATH` holding every one of `programs`, as files.
pub fn on_path(programs: &[&str]) -> Option<PathBuf> {
    path_list("PATH").into_iter().find(|dir| programs.iter().all(|program| dir.join(program).is_file()))
}
