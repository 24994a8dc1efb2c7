//! What the tests of the `classad` binary share: running it, scratch
//! files, and where the oracle and the shared workloads are.

// Each test file is its own crate and uses a part of this.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// `classad ARGS` to be run: in UTC, without `CONDOR_CONFIG`.
pub fn command<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(env!("CARGO_BIN_EXE_classad"));
    command
        .args(args)
        .env("TZ", "UTC")
        .env_remove("CONDOR_CONFIG");
    command
}

/// `classad ARGS`, with nothing on its standard input.
pub fn classad<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    command(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// `classad ARGS` reading `input`, written from a thread: the command may
/// answer (or stop) before it has read all of it.
pub fn classad_reading<I, S>(args: I, input: impl Into<Vec<u8>>) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.into();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("the binary finishes");
    let _ = writer.join();
    output
}

/// The output lines of `classad eval --batch FLAGS` given `lines`, one
/// expression a line; there must be one output line for each.
pub fn batch<F: AsRef<str>, L: AsRef<str>>(flags: &[F], lines: &[L]) -> Vec<String> {
    let args = ["eval", "--batch"]
        .into_iter()
        .chain(flags.iter().map(AsRef::as_ref));
    let input: String = lines.iter().map(|l| format!("{}\n", l.as_ref())).collect();
    let output = classad_reading(args, input);
    let printed: Vec<String> = String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(printed.len(), lines.len(), "one output line per input line");
    printed
}

/// Fails, listing `wrong`: the examples (of `total`) that do not hold.
pub fn assert_all_hold(wrong: &[String], total: usize) {
    assert!(
        wrong.is_empty(),
        "{} of {total} examples differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A new empty directory, removed when dropped. Each call has its own, so
/// that tests running at once never write one another's files.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("classad-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }

    /// Writes `contents` to `name` in the directory; its path.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("a scratch file");
        path
    }

    /// As [`Scratch::write`], the path as a string for an argument.
    pub fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> String {
        self.write(name, contents).to_string_lossy().into_owned()
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first ancestor directory of this crate holding `relative`.
fn ancestor_with(relative: &str) -> Option<&'static Path> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join(relative).exists())
}

/// The oracle's setup script: `CLASSAD_ORACLE_SETUP`, or
/// `shared/oracle/setup.sh` in an ancestor directory.
pub fn oracle_setup() -> Option<PathBuf> {
    const SETUP: &str = "shared/oracle/setup.sh";
    match std::env::var_os("CLASSAD_ORACLE_SETUP") {
        Some(path) => Some(PathBuf::from(path)),
        None => ancestor_with(SETUP).map(|dir| dir.join(SETUP)),
    }
}

/// The oracle's Python (what its setup script prints), or why there is
/// none to say in the test's output.
pub fn oracle_python() -> Result<String, &'static str> {
    let setup = oracle_setup().ok_or("the oracle (shared/oracle/setup.sh) is not present")?;
    match Command::new("sh").arg(&setup).output() {
        Ok(out) if out.status.success() => Ok(text(&out.stdout).trim().to_string()),
        _ => Err("the oracle's setup.sh failed"),
    }
}

/// The shared directory of workloads and oracle: `CLASSAD_SHARED_DIR`,
/// or the `shared` of an ancestor directory that has the pool generator.
pub fn shared_dir() -> Option<PathBuf> {
    match std::env::var_os("CLASSAD_SHARED_DIR") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => ancestor_with("shared/workloads/gen_pool.py").map(|dir| dir.join("shared")),
    }
}

/// Whether `python3` runs.
pub fn has_python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}
