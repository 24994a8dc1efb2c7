//! HTCondor's configuration language: reading configuration files in
//! HTCondor's order, `$(NAME)` macro expansion with the function macros,
//! subsystem and local-name prefixes, and the machine ad a startd would
//! build from the result.
//!
//! ```
//! use classad_config::{Config, MemoryHost, Options};
//!
//! let host = MemoryHost::new().file("/c", "A = xxx\nB = $(A)\nA = $(A)yyy\n");
//! let config = Config::read_file("/c", &host, Options::default());
//! assert_eq!(config.get("a").unwrap().as_deref(), Some("xxxyyy"));
//! assert_eq!(config.get("B").unwrap().as_deref(), Some("xxxyyy"));
//! ```
//!
//! HTCondor's behaviour is the default everywhere, quirks included; see
//! `docs/config.md` for the rules, the limits that bound hostile input and
//! the few places where we differ.

mod defaults;
mod detect;
mod expand;
mod host;
mod lines;
mod machine;
mod parse;
mod printf;

use std::cell::Cell;
use std::collections::HashMap;

pub use host::{Facts, Host, MemoryHost, SystemHost};
pub use machine::machine_ad;

/// The HTCondor version this reader behaves as (for `if version ...`).
pub const CONDOR_VERSION: (u32, u32, u32) = (25, 14, 1);

/// Includes nested deeper than this are an error (HTCondor's limit).
pub const MAX_INCLUDE_DEPTH: usize = 20;
/// Nested `if` deeper than this is an error (HTCondor's limit).
pub const MAX_IF_DEPTH: usize = 63;
/// Macro substitutions done for one value before giving up.
pub const MAX_EXPANSION_STEPS: usize = 100_000;
/// Bytes of value rewritten while expanding one value (each substitution
/// rewrites the value once): bounds the time of any expansion.
pub const MAX_EXPANSION_WORK: usize = 64 << 20;
/// Longest expanded value, in bytes.
pub const MAX_VALUE_LEN: usize = 4 << 20;
/// Function macros nested inside each other's arguments.
pub const MAX_FUNCTION_DEPTH: usize = 32;

/// How to read.
#[derive(Clone, Debug)]
pub struct Options {
    /// The subsystem (`SCHEDD`, `STARTD`, ...): `SUBSYSTEM` and the
    /// `<subsystem>.NAME` lookups. HTCondor's tools use `TOOL`.
    pub subsystem: String,
    /// The local name (`-local-name`), for `<local>.NAME` lookups.
    pub local_name: Option<String>,
    /// Run the commands of `include : cmd |`, `include command : cmd`
    /// and a `LOCAL_CONFIG_FILE` or `CONDOR_CONFIG` ending in `|`.
    /// Off by default: configuration text then cannot run programs.
    pub allow_commands: bool,
    /// Make a function macro's error (`$INT(abc)`, `$CHOICE` out of
    /// range, `$SUBSTR` without a start) an error of the whole value.
    /// HTCondor 25 silently replaces such a macro with nothing (the
    /// default); the spec says they are errors.
    pub strict_functions: bool,
    /// Seed of `$RANDOM_CHOICE` / `$RANDOM_INTEGER` (`None`: from the
    /// clock).
    pub random_seed: Option<u64>,
    /// Bytes of configuration text read in all: files, included files
    /// and command output, each source also charged [`SOURCE_CHARGE`]
    /// bytes (so that includes of empty files fanning out are bounded
    /// too). Past it nothing more is read and one error says so: an
    /// `include : /dev/zero`, an endless command or includes that
    /// multiply cannot exhaust memory or time.
    pub max_input: u64,
}

/// Default of [`Options::max_input`]: 64 MiB.
pub const DEFAULT_MAX_INPUT: u64 = 64 << 20;
/// What reading one source costs of [`Options::max_input`] besides its
/// bytes.
pub const SOURCE_CHARGE: u64 = 1024;

impl Default for Options {
    fn default() -> Options {
        Options {
            subsystem: "TOOL".to_string(),
            local_name: None,
            allow_commands: false,
            strict_functions: false,
            random_seed: None,
            max_input: DEFAULT_MAX_INPUT,
        }
    }
}

/// Where a definition came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// A file path, a command line followed by ` |`, or one of
    /// `<Detected>`, `<Environment>`, `<Default>`.
    pub file: String,
    /// The physical line that ended the definition (0 when none).
    pub line: u32,
}

/// One definition: the name as first written, the raw value (self
/// references already expanded) and where it was last set.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The name as first written.
    pub name: String,
    /// The value before expansion.
    pub raw: String,
    /// Where it was last defined.
    pub source: Source,
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The configuration is still usable (`warning :`, obsolete syntax).
    Warning,
    /// HTCondor would refuse this configuration.
    Error,
}

/// A message about the configuration, with the file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The file (or `<Environment>`, ...).
    pub file: String,
    /// The line (0 when the message is about the whole file).
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        if self.line > 0 {
            write!(f, "{}:{}: {kind}: {}", self.file, self.line, self.message)
        } else {
            write!(f, "{}: {kind}: {}", self.file, self.message)
        }
    }
}

/// Why a value could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpandError(pub String);

impl std::fmt::Display for ExpandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExpandError {}

/// Why a user map the configuration names (`CLASSAD_USER_MAPFILE_<name>`,
/// `CLASSAD_USER_MAPDATA_<name>`) could not be installed.
#[derive(Debug)]
pub enum UserMapError {
    /// The map's definition does not expand.
    Expand {
        /// The map's name.
        name: String,
        /// Why it does not expand.
        error: ExpandError,
    },
    /// The map file cannot be read.
    Unreadable {
        /// The map's name.
        name: String,
        /// The file, as the configuration names it.
        path: String,
        /// Why it cannot be read.
        error: std::io::Error,
    },
    /// The map's text is not a user map (the standard library's reason,
    /// from `classad::stdlib::env::set_user_map`).
    Invalid {
        /// The map's name.
        name: String,
        /// Why the text is not a map.
        message: String,
    },
}

impl UserMapError {
    /// The name of the map.
    pub fn name(&self) -> &str {
        match self {
            UserMapError::Expand { name, .. }
            | UserMapError::Unreadable { name, .. }
            | UserMapError::Invalid { name, .. } => name,
        }
    }
}

impl std::fmt::Display for UserMapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UserMapError::Expand { error, .. } => error.fmt(f),
            UserMapError::Unreadable { path, error, .. } => {
                write!(f, "cannot read user map file `{path}`: {error}")
            }
            UserMapError::Invalid { name, message } => write!(f, "user map {name}: {message}"),
        }
    }
}

impl std::error::Error for UserMapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UserMapError::Expand { error, .. } => Some(error),
            UserMapError::Unreadable { error, .. } => Some(error),
            UserMapError::Invalid { .. } => None,
        }
    }
}

/// A configuration: every definition read, and the diagnostics.
pub struct Config {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    options: Options,
    env: HashMap<String, String>,
    diagnostics: Vec<Diagnostic>,
    files: Vec<String>,
    random: Cell<u64>,
    /// Substitutions and bytes rewritten by the expansion under way.
    budget: Cell<(usize, usize)>,
    /// Bytes of text read so far (see [`Options::max_input`]), and
    /// whether running past the bound was reported.
    pub(crate) read_total: u64,
    pub(crate) read_refused: bool,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("entries", &self.entries.len())
            .field("diagnostics", &self.diagnostics)
            .finish()
    }
}

impl Config {
    /// An empty configuration holding only the detected macros.
    pub fn new(host: &dyn Host, options: Options) -> Config {
        let seed = options.random_seed.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            nanos ^ (u64::from(std::process::id()) << 32)
        });
        let mut config = Config {
            entries: Vec::new(),
            index: HashMap::new(),
            env: host.env_vars().into_iter().collect(),
            options,
            diagnostics: Vec::new(),
            files: Vec::new(),
            random: Cell::new(seed | 1),
            budget: Cell::new((0, 0)),
            read_total: 0,
            read_refused: false,
        };
        config.insert_detected(&host.facts(), false);
        config
    }

    /// Reads the configuration the way an HTCondor daemon or tool does:
    /// `CONDOR_CONFIG` (or the well-known places), `LOCAL_CONFIG_DIR`,
    /// `LOCAL_CONFIG_FILE`, the user configuration, then the `_CONDOR_`
    /// environment variables.
    pub fn load(host: &dyn Host, options: Options) -> Config {
        let mut config = Config::new(host, options);
        parse::load(&mut config, host, None);
        config
    }

    /// Like [`Config::load`], but with `path` as the single initial file
    /// (what `CONDOR_CONFIG=path` does).
    pub fn read_file(path: &str, host: &dyn Host, options: Options) -> Config {
        let mut config = Config::new(host, options);
        parse::load(&mut config, host, Some(path));
        config
    }

    /// Reads configuration text as if it were the file `name`, without
    /// the local files, user file or environment.
    pub fn read_str(name: &str, text: &str, host: &dyn Host, options: Options) -> Config {
        let mut config = Config::new(host, options);
        parse::read_text(&mut config, host, name, text, 0, &mut Vec::new());
        config.insert_detected(&host.facts(), true);
        config
    }

    /// The options this configuration was read with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Warnings and errors, in the order found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// True when some diagnostic is an error (HTCondor would refuse the
    /// configuration).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// The files read, in order.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Every definition, in the order first defined.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The definition of exactly `name` (no prefixes, no defaults).
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.index
            .get(&name.to_ascii_lowercase())
            .map(|&i| &self.entries[i])
    }

    /// The definition `name` resolves to with the subsystem and local
    /// name: `<subsys>.<local>.NAME`, `<local>.NAME`, `<subsys>.NAME`,
    /// `NAME`, then HTCondor's built-in default. Returns the raw value
    /// and its source.
    pub fn lookup(&self, name: &str) -> Option<(&str, Source)> {
        if let Some(entry) = self.lookup_entry(name) {
            return Some((entry.raw.as_str(), entry.source.clone()));
        }
        defaults::default_value(name).map(|raw| {
            (
                raw,
                Source {
                    file: "<Default>".to_string(),
                    line: 0,
                },
            )
        })
    }

    fn lookup_entry(&self, name: &str) -> Option<&Entry> {
        let subsys = self.options.subsystem.as_str();
        if let Some(local) = self.options.local_name.as_deref() {
            if !subsys.is_empty()
                && let Some(e) = self.entry(&format!("{subsys}.{local}.{name}"))
            {
                return Some(e);
            }
            if let Some(e) = self.entry(&format!("{local}.{name}")) {
                return Some(e);
            }
        }
        if !subsys.is_empty()
            && let Some(e) = self.entry(&format!("{subsys}.{name}"))
        {
            return Some(e);
        }
        self.entry(name)
    }

    /// The raw (unexpanded) value `name` resolves to.
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.lookup(name).map(|(raw, _)| raw)
    }

    /// The expanded value of `name`: `Ok(None)` when it is not defined.
    pub fn get(&self, name: &str) -> Result<Option<String>, ExpandError> {
        match self.raw(name) {
            None => Ok(None),
            Some(raw) => {
                let chain = vec![name.to_ascii_lowercase()];
                self.expand_with(raw, &chain, 0).map(Some)
            }
        }
    }

    /// Expands `$(...)` macros in any text against this configuration.
    pub fn expand(&self, text: &str) -> Result<String, ExpandError> {
        self.expand_with(text, &[], 0)
    }

    /// Sets `name` as a later definition would (self references expanded).
    pub fn set(&mut self, name: &str, value: &str, source: Source) -> Result<(), ExpandError> {
        let value = self.expand_self(value, name)?;
        self.insert(name, value, source);
        Ok(())
    }

    /// The user maps the configuration names: `(name, Ok(map text))` for
    /// each `CLASSAD_USER_MAPFILE_<name>` (read through `host`) and
    /// `CLASSAD_USER_MAPDATA_<name>`.
    ///
    /// # Errors
    ///
    /// A map's entry is [`UserMapError::Expand`] when its definition does
    /// not expand, [`UserMapError::Unreadable`] when its file cannot be
    /// read; the other maps are still given.
    pub fn user_maps(&self, host: &dyn Host) -> Vec<(String, Result<String, UserMapError>)> {
        let mut maps = Vec::new();
        for entry in &self.entries {
            let upper = entry.name.to_ascii_uppercase();
            let (name, is_file) = if let Some(n) = upper.strip_prefix("CLASSAD_USER_MAPFILE_") {
                (n, true)
            } else if let Some(n) = upper.strip_prefix("CLASSAD_USER_MAPDATA_") {
                (n, false)
            } else {
                continue;
            };
            let name = entry.name[entry.name.len() - name.len()..].to_string();
            let value = match self.get(&entry.name) {
                Ok(v) => v.unwrap_or_default(),
                Err(error) => {
                    let error = UserMapError::Expand {
                        name: name.clone(),
                        error,
                    };
                    maps.push((name, Err(error)));
                    continue;
                }
            };
            let text = if is_file {
                host.read_file(value.trim(), self.options.max_input)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .map_err(|error| UserMapError::Unreadable {
                        name: name.clone(),
                        path: value.trim().to_string(),
                        error,
                    })
            } else {
                Ok(value)
            };
            maps.push((name, text));
        }
        maps
    }

    /// Installs every user map of the configuration into the standard
    /// library's `userMap` (through `classad::stdlib::env::set_user_map`).
    /// Returns the problems, one a map that could not be installed (the
    /// others are installed).
    pub fn install_user_maps(&self, host: &dyn Host) -> Vec<UserMapError> {
        let mut problems = Vec::new();
        for (name, text) in self.user_maps(host) {
            match text {
                Ok(text) => {
                    if let Err(message) = classad::stdlib::env::set_user_map(&name, &text) {
                        problems.push(UserMapError::Invalid { name, message });
                    }
                }
                Err(e) => problems.push(e),
            }
        }
        problems
    }

    fn insert(&mut self, name: &str, raw: String, source: Source) {
        let key = name.to_ascii_lowercase();
        match self.index.get(&key) {
            Some(&i) => {
                self.entries[i].raw = raw;
                self.entries[i].source = source;
            }
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push(Entry {
                    name: name.to_string(),
                    raw,
                    source,
                });
            }
        }
    }

    fn diagnose(&mut self, severity: Severity, file: &str, line: u32, message: String) {
        self.diagnostics.push(Diagnostic {
            severity,
            file: file.to_string(),
            line,
            message,
        });
    }

    /// The detected macros. The first set cannot be overridden: HTCondor
    /// puts them back after reading (`fixed_only`).
    fn insert_detected(&mut self, facts: &Facts, fixed_only: bool) {
        let source = Source {
            file: "<Detected>".to_string(),
            line: 0,
        };
        let mut fixed: Vec<(&str, String)> = vec![
            ("HOSTNAME", facts.hostname.clone()),
            ("FULL_HOSTNAME", facts.full_hostname.clone()),
            ("IP_ADDRESS", facts.ip_address.clone()),
            (
                "IP_ADDRESS_IS_V6",
                if facts.ip_address.contains(':') {
                    "true"
                } else {
                    "false"
                }
                .to_string(),
            ),
            ("SUBSYSTEM", self.options.subsystem.clone()),
            ("DETECTED_CPUS", facts.cores.to_string()),
            ("PID", facts.pid.to_string()),
            ("PPID", facts.ppid.to_string()),
            ("USERNAME", facts.username.clone()),
        ];
        if let Some(v4) = &facts.ipv4_address {
            fixed.push(("IPV4_ADDRESS", v4.clone()));
        }
        if let Some(v6) = &facts.ipv6_address {
            fixed.push(("IPV6_ADDRESS", v6.clone()));
        }
        if let Some(local) = &self.options.local_name {
            fixed.push(("LOCALNAME", local.clone()));
        }
        for (name, value) in fixed {
            self.insert(name, value, source.clone());
        }
        if fixed_only {
            return;
        }
        let opsys = facts.uname_opsys.to_ascii_uppercase();
        let arch = match facts.uname_arch.as_str() {
            "x86_64" | "amd64" => "X86_64".to_string(),
            "i386" | "i486" | "i586" | "i686" => "INTEL".to_string(),
            "aarch64" | "arm64" => "aarch64".to_string(),
            "ppc64le" => "ppc64le".to_string(),
            other => other.to_ascii_uppercase(),
        };
        let mut overridable: Vec<(&str, String)> = vec![
            ("OPSYS", opsys),
            ("ARCH", arch),
            ("UNAME_OPSYS", facts.uname_opsys.clone()),
            ("UNAME_ARCH", facts.uname_arch.clone()),
            ("DETECTED_CORES", facts.cores.to_string()),
            ("DETECTED_PHYSICAL_CPUS", facts.physical_cpus.to_string()),
            ("DETECTED_MEMORY", facts.memory_mb.to_string()),
            (
                "CONDOR_VERSION",
                format!(
                    "{}.{}.{}",
                    CONDOR_VERSION.0, CONDOR_VERSION.1, CONDOR_VERSION.2
                ),
            ),
        ];
        if let Some(tilde) = &facts.tilde {
            overridable.push(("TILDE", tilde.clone()));
        }
        for (name, value) in overridable {
            self.insert(name, value, source.clone());
        }
    }

    fn next_random(&self) -> u64 {
        // xorshift64*: enough for picking configuration choices.
        let mut x = self.random.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.random.set(x);
        x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 1
    }
}

/// Legal in a configuration name: letters, digits, `_`, `.` and `/`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/'))
}
