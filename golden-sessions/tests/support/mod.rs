//! What the tests of the golden command share: a scratch folder removed when dropped, and the
//! command run in it with answers on its stdin.

// Each test binary uses a part of what is here.
#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh folder under the temporary directory, removed with what it holds when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("golden-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn write(&self, name: &str, text: &str) {
        std::fs::write(self.join(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    pub fn has(&self, name: &str) -> bool {
        self.join(name).exists()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `program ARGS` (the golden command) in `dir`, `input` piped to its stdin; it must succeed.
pub fn run_in(program: &str, dir: &Scratch, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    child.stdin.take().expect("a stdin").write_all(input.as_bytes()).expect("the answers are written");
    let out = child.wait_with_output().expect("the command ends");
    assert!(out.status.success(), "{program} {args:?}: {}{}", text(&out.stdout), text(&out.stderr));
    out
}

/// Bytes a command printed, as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
