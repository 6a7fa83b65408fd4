//! Where the hub is: `--addr` when given; else the discovery file `daemon.json`, read again at
//! every connection so a hub that restarts on another port is found; else the default address.

use std::path::PathBuf;

use serde::Deserialize;

/// The hub's address when neither `--addr` nor a discovery file names one.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7420";
/// The folder of the discovery file, when set; else `$HOME/.jevalan`.
pub const HOME_ENV: &str = "JEVALAN_HOME";
/// The largest discovery file read.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// How the bridge finds the hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `--addr`: this address only.
    Fixed(String),
    /// The discovery file when it exists, else the default address.
    Discovered(Option<PathBuf>),
}

#[derive(Deserialize)]
struct DaemonFile {
    addr: String,
}

impl Target {
    /// `--addr`, or the discovery file found through the environment.
    pub fn new(addr: Option<String>) -> Target {
        match addr {
            Some(addr) => Target::Fixed(addr),
            None => Target::Discovered(discovery_file()),
        }
    }

    /// The `host:port` to connect to now; an unreadable discovery file is an error naming it.
    pub fn addr(&self) -> Result<String, String> {
        match self {
            Target::Fixed(addr) => Ok(addr.clone()),
            Target::Discovered(None) => Ok(DEFAULT_ADDR.to_owned()),
            Target::Discovered(Some(path)) => {
                let shown = path.display();
                let size = match std::fs::metadata(path) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(DEFAULT_ADDR.to_owned()),
                    Err(e) => return Err(format!("cannot read the discovery file {shown}: {e}")),
                    Ok(m) => m.len(),
                };
                if size > MAX_FILE_BYTES {
                    return Err(format!("the discovery file {shown} is {size} bytes; the limit is {MAX_FILE_BYTES}"));
                }
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read the discovery file {shown}: {e}"))?;
                let file: DaemonFile = serde_json::from_str(&text)
                    .map_err(|e| format!("the discovery file {shown} is not {{\"addr\": \"host:port\"}}: {e}"))?;
                Ok(file.addr)
            }
        }
    }
}

/// `$JEVALAN_HOME/daemon.json`, else `$HOME/.jevalan/daemon.json`.
fn discovery_file() -> Option<PathBuf> {
    let dir = match std::env::var_os(HOME_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".jevalan"),
    };
    Some(dir.join("daemon.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_file_then_the_default() {
        assert_eq!(Target::new(Some("10.0.0.1:9".into())).addr().unwrap(), "10.0.0.1:9");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.json");
        let target = Target::Discovered(Some(path.clone()));
        assert_eq!(target.addr().unwrap(), DEFAULT_ADDR);
        std::fs::write(&path, r#"{"addr":"127.0.0.1:5555","pid":1}"#).unwrap();
        assert_eq!(target.addr().unwrap(), "127.0.0.1:5555");
        std::fs::write(&path, "garbage").unwrap();
        assert!(target.addr().unwrap_err().contains("is not {\"addr\": \"host:port\"}"));
        assert_eq!(Target::Discovered(None).addr().unwrap(), DEFAULT_ADDR);
    }
}
