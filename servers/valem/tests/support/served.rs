//! `valem serve` started on a free loopback port: its URL, and everything it printed, kept for
//! the tests that check what it never prints (remote mode's, the startup line's). `rest.rs`
//! drives its REST routes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    output: Arc<Mutex<String>>,
}

impl Served {
    /// `valem serve --listen 127.0.0.1:0 ARGS..`, once it listens.
    pub fn start(binary: &Path, args: &[&str]) -> Served {
        Served::start_with(binary, args, &[])
    }

    /// [`start`](Served::start), with these environment variables set.
    pub fn start_with(binary: &Path, args: &[&str], env: &[(&str, &str)]) -> Served {
        let mut child = Command::new(binary)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("valem serve starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
        // Lines before `listening on ...` are kept with the rest.
        let mut first = String::new();
        let mut line = String::new();
        while stderr.read_line(&mut line).expect("valem serve prints its address") > 0 {
            first.push_str(&line);
            if line.starts_with("listening on ") {
                break;
            }
            line.clear();
        }
        let url = line
            .strip_prefix("listening on ")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|mcp| mcp.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_owned();
        let output = Arc::new(Mutex::new(first));
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        for reader in [Box::new(stderr) as Box<dyn BufRead + Send>, Box::new(stdout)] {
            let output = Arc::clone(&output);
            std::thread::spawn(move || {
                for line in reader.lines().map_while(Result::ok) {
                    output.lock().unwrap().push_str(&(line + "\n"));
                }
            });
        }
        Served { child, url, output }
    }

    /// What the server printed so far, on stdout and stderr.
    pub fn printed(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Stops the server (its port then refuses connections).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop();
    }
}
