//! Everything the repository's tests need from outside it, one entry each. `.ci/run` installs
//! or provides each one; add an entry here (and its install step there) for a new one.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::External;
use crate::external::{on_path, path_list};

/// PostgreSQL's server programs, for valem's PostgreSQL store tests: the folder holding
/// `initdb` and `postgres`, the newest `/usr/lib/postgresql/<version>/bin` (Debian's), else the
/// first on `PATH`.
pub const POSTGRES: External = External {
    cfg: "has_postgres",
    what: "PostgreSQL's initdb and postgres",
    install: "apt-get install postgresql (Debian, Ubuntu), or put initdb and postgres on PATH",
    find: postgres,
    env: &["PATH"],
    dirs: &["/usr/lib/postgresql"],
};

fn postgres() -> Option<PathBuf> {
    let programs = ["initdb", "postgres"];
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| programs.iter().all(|program| bin.join(program).is_file()))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).or_else(|| on_path(&programs))
}

/// Chromium and its WebDriver, for the browser tests of valem's sandbox: the folder holding
/// `chromium` and `chromedriver` (Debian's packages put both in `/usr/bin`).
pub const CHROMIUM: External = External {
    cfg: "has_chromium",
    what: "Chromium and chromedriver",
    install: "apt-get install chromium chromium-driver (Debian), or put chromium and chromedriver on PATH",
    find: || on_path(&["chromium", "chromedriver"]),
    env: &["PATH"],
    dirs: &[],
};

/// The example specs written for the original model service, which valem must pass unchanged:
/// the folder `VALEM_EXAMPLES_DIR` names (absolute), holding them as `*.json`. They carry no
/// licence that would let the repository hold a copy.
pub const VALEM_EXAMPLES: External = External {
    cfg: "has_valem_examples",
    what: "the original model service's example specs (VALEM_EXAMPLES_DIR)",
    install: "set VALEM_EXAMPLES_DIR to the absolute path of their folder",
    find: valem_examples,
    env: &["VALEM_EXAMPLES_DIR"],
    dirs: &[],
};

fn valem_examples() -> Option<PathBuf> {
    let dir = path_list("VALEM_EXAMPLES_DIR").into_iter().next().filter(|dir| dir.is_absolute())?;
    let mut entries = std::fs::read_dir(&dir).ok()?.flatten();
    entries.any(|e| e.path().extension().is_some_and(|x| x == "json")).then_some(dir)
}

/// The official MCP Python SDK (`mcp` 2.3.0), for the golden sessions recorded from its client
/// and replayed against its MCPServer (FastMCP before mcp 2), a server that is not tooltable's:
/// the Python that imports both, `TOOLTABLE_PYTHON` when set, else that of the venv the SDK
/// checkers install into (`$HOME/.cache/mcp-tools/venv`), else `python3` on `PATH`.
pub const PYTHON_MCP: External = External {
    cfg: "has_python_mcp",
    what: "the official MCP Python SDK (mcp 2.3.0)",
    install: "python3 -m venv ~/.cache/mcp-tools/venv && ~/.cache/mcp-tools/venv/bin/pip install mcp==2.3.0, or set TOOLTABLE_PYTHON to a Python that has it",
    find: python_mcp,
    env: &["TOOLTABLE_PYTHON", "PATH"],
    dirs: &[],
};

fn python_mcp() -> Option<PathBuf> {
    let venv = path_list("HOME").into_iter().next().map(|home| home.join(".cache/mcp-tools/venv/bin/python"));
    let on_path = on_path(&["python3"]).map(|dir| dir.join("python3"));
    let candidates = path_list("TOOLTABLE_PYTHON").into_iter().chain(venv).chain(on_path);
    candidates.filter(|python| python.is_file()).find(|python| {
        Command::new(python)
            .args(["-c", "import mcp.server.mcpserver, mcp.client.client"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    })
}

/// Node and panva's `oidc-provider` (9.13.3, OpenID Certified), for the tests of a server behind
/// a real OAuth 2.1 authorization server: the folder it is installed in (holding
/// `node_modules/oidc-provider`), `TOOLTABLE_OIDC_PROVIDER` when set, else
/// `$HOME/.cache/tooltable/oidc-provider`; `node` must be on `PATH`.
pub const OIDC_PROVIDER: External = External {
    cfg: "has_oidc_provider",
    what: "Node and oidc-provider 9.13.3",
    install: "npm install --prefix ~/.cache/tooltable/oidc-provider oidc-provider@9.13.3 (Node 20 or newer on PATH), or set TOOLTABLE_OIDC_PROVIDER to the folder it is installed in",
    find: || node_package("TOOLTABLE_OIDC_PROVIDER", ".cache/tooltable/oidc-provider", "oidc-provider"),
    env: &["TOOLTABLE_OIDC_PROVIDER", "PATH"],
    dirs: &[],
};

/// A folder holding `node_modules/<package>` (Node on `PATH`): the one the variable `env` names,
/// else `$HOME/<default>`.
fn node_package(env: &str, default: &str, package: &str) -> Option<PathBuf> {
    on_path(&["node"])?;
    let default = path_list("HOME").into_iter().next().map(|home| home.join(default));
    let mut candidates = path_list(env).into_iter().chain(default);
    candidates.find(|dir| dir.is_absolute() && dir.join("node_modules").join(package).join("package.json").is_file())
}

/// Node and the official MCP TypeScript SDK (`@modelcontextprotocol/sdk` 1.32.2, the one most
/// hosts embed), for the tests of its client against a server: the folder it is installed in
/// (holding `node_modules/@modelcontextprotocol/sdk`), `TOOLTABLE_TYPESCRIPT_MCP` when set, else
/// the folder the SDK checkers install it into (`$HOME/.cache/mcp-tools/ts1`); `node` must be on
/// `PATH`.
pub const TYPESCRIPT_MCP: External = External {
    cfg: "has_typescript_mcp",
    what: "Node and the official MCP TypeScript SDK (@modelcontextprotocol/sdk 1.32.2)",
    install: "npm install --prefix ~/.cache/mcp-tools/ts1 @modelcontextprotocol/sdk@1.32.2 (Node 20 or newer on PATH), or set TOOLTABLE_TYPESCRIPT_MCP to the folder it is installed in",
    find: || node_package("TOOLTABLE_TYPESCRIPT_MCP", ".cache/mcp-tools/ts1", "@modelcontextprotocol/sdk"),
    env: &["TOOLTABLE_TYPESCRIPT_MCP", "PATH"],
    dirs: &[],
};
