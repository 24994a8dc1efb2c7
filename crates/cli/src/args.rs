//! What every subcommand shares about its command line and its output:
//! arguments read as UTF-8 (an error message otherwise, never a panic),
//! HTCondor's single-dash long options, and a closed output pipe.

use std::ffi::OsString;
use std::process::ExitCode;

/// The status when standard output is a closed pipe (`classad ... | head`):
/// what a shell reports for `cat` killed by SIGPIPE (128 + 13), with no
/// message, so that `set -o pipefail` sees it as it sees `cat`.
pub const BROKEN_PIPE: u8 = 141;

/// Command-line arguments as UTF-8 strings, or the message naming the
/// first one that is not (expressions and ad files are UTF-8 text).
pub fn utf8(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, String> {
    args.into_iter()
        .enumerate()
        .map(|(i, arg)| {
            arg.into_string().map_err(|bad| {
                format!(
                    "classad: argument {i} is not valid UTF-8: {}",
                    bad.to_string_lossy()
                )
            })
        })
        .collect()
}

/// Whether `word` (an argument without its dashes) is spelled like an
/// option name: a letter, then letters, digits, `-` or `_`.
pub fn option_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// HTCondor's tools spell long options with one dash (`-file`,
/// `-constraint`); clap wants two. Rewrites `-word` and `-word=value` to
/// `--word...` when `word` is longer than one letter, leaving short
/// options (`-f`, `-h`), negative numbers and everything after `--` alone.
/// `takes_value(name)` says which options consume the next argument, so
/// that a value spelled like an option (`-f -weird.conf`) is kept as is.
pub fn double_dashes(args: &[String], takes_value: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            out.push(arg.clone());
            out.extend(iter.by_ref().cloned());
            break;
        }
        let body = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
        let Some(body) = body else {
            out.push(arg.clone());
            continue;
        };
        let (word, inline) = match body.split_once('=') {
            Some((word, _)) => (word, true),
            None => (body, false),
        };
        if !option_word(word) {
            out.push(arg.clone());
            continue;
        }
        if word.len() > 1 {
            out.push(format!("--{body}"));
        } else {
            out.push(arg.clone());
        }
        if !inline
            && takes_value(word)
            && let Some(value) = iter.next()
        {
            out.push(value.clone());
        }
    }
    out
}

/// Whether `name` is the long name, an alias or the short name of an
/// argument of `command` that takes a value.
pub fn takes_value(command: &clap::Command, name: &str) -> bool {
    find_arg(command, name).is_some_and(|arg| arg.get_action().takes_values())
}

/// The argument of `command` called `name` (long name, alias, or short
/// name when `name` is one character).
pub fn find_arg<'c>(command: &'c clap::Command, name: &str) -> Option<&'c clap::Arg> {
    command.get_arguments().find(|arg| {
        arg.get_long() == Some(name)
            || arg
                .get_all_aliases()
                .is_some_and(|aliases| aliases.contains(&name))
            || (name.chars().count() == 1 && arg.get_short() == name.chars().next())
    })
}

/// `--max-input BYTES` and `--refuse-partial-ads`, shared by every
/// command that reads ad files: the bound on an input read whole into
/// memory, and what to do with an old-syntax ad that has a line that
/// cannot be read.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct InputLimit {
    /// Longest input read whole into memory (an ad file, standard input,
    /// a JSON or XML document), in bytes; suffixes K, M, G (default 1G).
    /// Past it the input is refused with a message, not read until memory
    /// runs out (docs/limits.md).
    #[arg(long = "max-input", value_name = "BYTES", value_parser = size)]
    pub max_input: Option<u64>,
    /// Refuse an old-syntax ad that has a line that cannot be read (an
    /// error for the whole ad). By default, as HTCondor does, the ad keeps
    /// the lines before that line and drops the rest, with a warning that
    /// says what was dropped (docs/differences.md).
    #[arg(long = "refuse-partial-ads")]
    pub refuse_partial_ads: bool,
}

impl InputLimit {
    /// Makes the bound the process's (see `set_max_input_bytes`).
    pub fn apply(self) {
        if let Some(bytes) = self.max_input {
            classad::syntax::read::set_max_input_bytes(bytes);
        }
    }

    /// `options` with the reading choice of the command line.
    pub fn parse_options(
        self,
        options: classad::syntax::ParseOptions,
    ) -> classad::syntax::ParseOptions {
        classad::syntax::ParseOptions {
            refuse_partial_ads: self.refuse_partial_ads,
            ..options
        }
    }
}

/// A size in bytes: digits, optionally followed by K, M or G (powers of
/// 1024; `KiB`, `MB` and the like are read the same).
pub fn size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(format!("`{text}` is not a size (digits, then K, M or G)")),
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("`{text}` is not a size (digits, then K, M or G)"))
}

/// Reads each of `files` in order with `read` (`-` is standard input,
/// named `<stdin>` in messages): a file that cannot be opened is reported
/// and counts as a failure, and the files after it are still read.
/// `Ok(whether every file was opened and read well)`, or the exit status
/// when writing the output failed (which ends the command).
pub fn read_inputs(
    command: &str,
    files: &[String],
    mut read: impl FnMut(&mut dyn std::io::BufRead, &str) -> std::io::Result<bool>,
) -> Result<bool, ExitCode> {
    let mut all_ok = true;
    for file in files {
        let result = if file == "-" {
            read(&mut std::io::stdin().lock(), "<stdin>")
        } else {
            match std::fs::File::open(file) {
                Ok(f) => read(&mut std::io::BufReader::with_capacity(1 << 16, f), file),
                Err(e) => {
                    eprintln!("classad {command}: cannot open {file}: {e}");
                    all_ok = false;
                    continue;
                }
            }
        };
        match result {
            Ok(ok) => all_ok &= ok,
            Err(e) => return Err(output_failed(command, &e)),
        }
    }
    Ok(all_ok)
}

/// The status of a command whose output failed: quiet for a closed pipe,
/// a message otherwise.
pub fn output_failed(command: &str, error: &std::io::Error) -> ExitCode {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::from(BROKEN_PIPE);
    }
    eprintln!("classad {command}: cannot write the output: {error}");
    ExitCode::from(1)
}

/// `print!` and `println!` panic when standard output is a closed pipe;
/// this hook turns that one panic into a quiet exit, as `cat` ends, and
/// leaves every other panic to the default hook.
pub fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout")
            && (message.contains("os error 32") || message.contains("Broken pipe"))
        {
            std::process::exit(i32::from(BROKEN_PIPE));
        }
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn single_dash_long_options_get_two_dashes() {
        let takes = |name: &str| matches!(name, "f" | "subsystem");
        assert_eq!(
            double_dashes(
                &strings(&[
                    "-f",
                    "-x.conf",
                    "-subsystem",
                    "-weird",
                    "-v",
                    "-dump",
                    "-1",
                    "--",
                    "-raw"
                ]),
                takes
            ),
            strings(&[
                "-f",
                "-x.conf",
                "--subsystem",
                "-weird",
                "-v",
                "--dump",
                "-1",
                "--",
                "-raw"
            ])
        );
        assert_eq!(
            double_dashes(&strings(&["-jobs=a", "--slots", "b", "NAME"]), takes),
            strings(&["--jobs=a", "--slots", "b", "NAME"])
        );
    }

    #[test]
    fn non_utf8_arguments_are_an_error_not_a_panic() {
        use std::os::unix::ffi::OsStringExt;
        let args = vec![
            OsString::from("classad"),
            OsString::from_vec(vec![b'a', 0xff]),
        ];
        let error = utf8(args).unwrap_err();
        assert!(error.contains("argument 1 is not valid UTF-8"), "{error}");
    }
}
