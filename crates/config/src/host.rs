//! Everything the reader learns from outside the text it reads: the
//! environment, files, directories, commands and the facts behind the
//! pre-defined macros. Behind a trait so that tests are hermetic.

use classad::syntax::read::InputTooLong;
use std::collections::BTreeMap;
use std::io;

/// What the machine looks like: the values of the detected macros.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    /// Host name without the domain (`HOSTNAME`).
    pub hostname: String,
    /// Fully qualified host name (`FULL_HOSTNAME`).
    pub full_hostname: String,
    /// The "most public" address (`IP_ADDRESS`).
    pub ip_address: String,
    /// `IPV4_ADDRESS`, when the machine has one.
    pub ipv4_address: Option<String>,
    /// `IPV6_ADDRESS`, when the machine has one.
    pub ipv6_address: Option<String>,
    /// Hyper-threads the OS schedules (`DETECTED_CORES`).
    pub cores: u32,
    /// Unique physical CPU ids (`DETECTED_PHYSICAL_CPUS`).
    pub physical_cpus: u32,
    /// Physical memory in MiB (`DETECTED_MEMORY`).
    pub memory_mb: u64,
    /// uname's sysname (`UNAME_OPSYS`), e.g. `Linux`.
    pub uname_opsys: String,
    /// uname's machine (`UNAME_ARCH`), e.g. `x86_64`.
    pub uname_arch: String,
    /// Process id (`PID`).
    pub pid: u32,
    /// Parent process id (`PPID`).
    pub ppid: u32,
    /// User name of the process (`USERNAME`).
    pub username: String,
    /// Home directory of the user `condor` (`TILDE`), when there is one.
    pub tilde: Option<String>,
    /// Whether the process runs as root (then no user configuration is read).
    pub is_root: bool,
    /// Home directory of the current user, for the user configuration.
    pub home: Option<String>,
}

impl Default for Facts {
    /// Fixed, made-up facts: what tests use.
    fn default() -> Facts {
        Facts {
            hostname: "testhost".into(),
            full_hostname: "testhost.example.org".into(),
            ip_address: "192.0.2.10".into(),
            ipv4_address: Some("192.0.2.10".into()),
            ipv6_address: None,
            cores: 4,
            physical_cpus: 4,
            memory_mb: 8192,
            uname_opsys: "Linux".into(),
            uname_arch: "x86_64".into(),
            pid: 4242,
            ppid: 4241,
            username: "tester".into(),
            tilde: None,
            is_root: true,
            home: None,
        }
    }
}

/// The outside world as the configuration reader sees it.
pub trait Host {
    /// One environment variable.
    fn env(&self, name: &str) -> Option<String>;
    /// All environment variables (for the `_CONDOR_` ones).
    fn env_vars(&self) -> Vec<(String, String)>;
    /// The bytes of a file, at most `limit` of them: a longer file (or an
    /// endless one, `/dev/zero`) is an error, [`InputTooLong`] inside an
    /// [`io::Error`], not read until memory runs out.
    fn read_file(&self, path: &str, limit: u64) -> io::Result<Vec<u8>>;
    /// Writes a file (the cache of `include command into`).
    fn write_file(&self, path: &str, data: &[u8]) -> io::Result<()>;
    /// Names of the entries of a directory, in any order.
    fn list_dir(&self, path: &str) -> io::Result<Vec<String>>;
    /// Runs a command (program and arguments) and returns its standard
    /// output and exit status. Only called when commands are allowed. An
    /// output longer than `limit` bytes is an error ([`InputTooLong`]),
    /// and the command is stopped.
    fn run_command(&self, argv: &[String], limit: u64) -> io::Result<(Vec<u8>, i32)>;
    /// The facts behind the detected macros.
    fn facts(&self) -> Facts;
}

/// The real machine.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemHost;

impl Host for SystemHost {
    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
    fn env_vars(&self) -> Vec<(String, String)> {
        std::env::vars().collect()
    }
    fn read_file(&self, path: &str, limit: u64) -> io::Result<Vec<u8>> {
        classad::syntax::read::read_path_within(path, limit)
    }
    fn write_file(&self, path: &str, data: &[u8]) -> io::Result<()> {
        std::fs::write(path, data)
    }
    fn list_dir(&self, path: &str) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                continue;
            }
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }
    fn run_command(&self, argv: &[String], limit: u64) -> io::Result<(Vec<u8>, i32)> {
        let Some((program, args)) = argv.split_first() else {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
        };
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let read = classad::syntax::read::read_to_end_within(stdout, limit);
        if read.is_err() {
            // An endless output (`yes`) is not waited for.
            let _ = child.kill();
        }
        let status = child.wait()?;
        Ok((read?, status.code().unwrap_or(-1)))
    }
    fn facts(&self) -> Facts {
        crate::detect::system_facts()
    }
}

/// An in-memory world: files, directories, environment and facts given
/// by the caller. Commands are answered from a table.
#[derive(Clone, Debug, Default)]
pub struct MemoryHost {
    /// Environment variables.
    pub env: BTreeMap<String, String>,
    /// Files by path.
    pub files: std::cell::RefCell<BTreeMap<String, Vec<u8>>>,
    /// Command lines (arguments joined by one space) and their output
    /// and exit status.
    pub commands: BTreeMap<String, (String, i32)>,
    /// The detected facts.
    pub facts: Facts,
}

impl MemoryHost {
    /// An empty world with the default facts.
    pub fn new() -> MemoryHost {
        MemoryHost::default()
    }
    /// Adds a file.
    pub fn file(self, path: &str, text: &str) -> MemoryHost {
        self.files
            .borrow_mut()
            .insert(path.to_string(), text.as_bytes().to_vec());
        self
    }
    /// Sets an environment variable.
    pub fn var(mut self, name: &str, value: &str) -> MemoryHost {
        self.env.insert(name.to_string(), value.to_string());
        self
    }
    /// Adds a command and its output.
    pub fn command(mut self, cmdline: &str, output: &str, status: i32) -> MemoryHost {
        self.commands
            .insert(cmdline.to_string(), (output.to_string(), status));
        self
    }
}

impl Host for MemoryHost {
    fn env(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned()
    }
    fn env_vars(&self) -> Vec<(String, String)> {
        self.env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
    fn read_file(&self, path: &str, limit: u64) -> io::Result<Vec<u8>> {
        let bytes =
            self.files.borrow().get(path).cloned().ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "No such file or directory")
            })?;
        within(bytes, limit)
    }
    fn write_file(&self, path: &str, data: &[u8]) -> io::Result<()> {
        self.files
            .borrow_mut()
            .insert(path.to_string(), data.to_vec());
        Ok(())
    }
    fn list_dir(&self, path: &str) -> io::Result<Vec<String>> {
        let prefix = format!("{}/", path.trim_end_matches('/'));
        let names: Vec<String> = self
            .files
            .borrow()
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_string)
            .collect();
        if names.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "No such file or directory",
            ));
        }
        Ok(names)
    }
    fn run_command(&self, argv: &[String], limit: u64) -> io::Result<(Vec<u8>, i32)> {
        match self.commands.get(&argv.join(" ")) {
            Some((out, status)) => Ok((within(out.as_bytes().to_vec(), limit)?, *status)),
            None => Err(io::Error::new(io::ErrorKind::NotFound, "no such command")),
        }
    }
    fn facts(&self) -> Facts {
        self.facts.clone()
    }
}

/// `bytes`, or [`InputTooLong`] when there are more than `limit`.
fn within(bytes: Vec<u8>, limit: u64) -> io::Result<Vec<u8>> {
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            InputTooLong { limit },
        ));
    }
    Ok(bytes)
}
