//! The command line behaves as Unix tools do: help with examples and exit
//! codes for every subcommand, a version, completions, unknown flags as
//! errors that name them, HTCondor's one-dash spellings, arguments that
//! are not UTF-8 as an error message, and a closed output pipe as a quiet
//! end.

use crate::common;

use common::{Scratch, classad, command, text};

use std::ffi::OsString;
use std::io::Write;
use std::process::{Output, Stdio};

const SUBCOMMANDS: &[&str] = &[
    "query",
    "eval",
    "convert",
    "match",
    "analyze",
    "demo",
    "config",
    "parse",
    "disasm",
    "completions",
];

#[test]
fn every_subcommand_has_help_with_examples_and_exit_codes() {
    for name in SUBCOMMANDS {
        for flag in ["--help", "-h"] {
            let out = classad([*name, flag]);
            let help = text(&out.stdout);
            assert!(out.status.success(), "{name} {flag}: {}", text(&out.stderr));
            assert!(help.contains("Examples:"), "{name} {flag}: {help}");
            if *name != "completions" {
                assert!(help.contains("Exit status:"), "{name} {flag}: {help}");
            }
        }
        // `classad help NAME` is the same text.
        let out = classad(["help", name]);
        assert!(out.status.success(), "help {name}");
        assert!(text(&out.stdout).contains("Examples:"), "help {name}");
    }
    let out = classad(["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for name in SUBCOMMANDS {
        assert!(help.contains(name), "{name} in {help}");
    }
    // No command: the help, on standard error, as a usage error.
    let out = classad(Vec::<&str>::new());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage: classad <COMMAND>"));
}

#[test]
fn version() {
    let out = classad(["--version"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        format!("classad {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_for_three_shells() {
    for (shell, marker) in [
        ("bash", "complete -F _classad"),
        ("zsh", "#compdef classad"),
        ("fish", "complete -c classad"),
    ] {
        let out = classad(["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = text(&out.stdout);
        assert!(
            script.contains(marker),
            "{shell}: {}",
            &script[..200.min(script.len())]
        );
        assert!(
            script.contains("query") && script.contains("convert"),
            "{shell}"
        );
    }
    let out = classad(["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("possible values"));
}

#[test]
fn unknown_flags_are_errors_that_suggest_the_right_one() {
    let dir = Scratch::new("cli-conventions");
    let ads = dir.file("a.ads", "A = 1\n\n");
    let ads = ads.as_str();
    let cases: &[(&[&str], &str)] = &[
        (&["convert", "-t", "json", ads], "'-t'"),
        (&["convert", "--too", "json", ads], "'--to'"),
        (&["match", "--job", ads, "--slots", ads], "'--jobs'"),
        (&["analyze", "--jobs", ads, "--slot", ads], "'--slots'"),
        (&["demo", "--seeds", "3"], "'--seed'"),
        (&["config", "-dumb"], "'--dump'"),
        (&["query", ads, "-constrain", "true"], "'--constraint'"),
        (&["parse", "--bogus"], "unexpected argument"),
    ];
    for (args, suggestion) in cases {
        let out = classad(*args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(suggestion), "{args:?}: {err}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
    }
}

#[test]
fn values_inline_and_one_dash_spellings() {
    let dir = Scratch::new("cli-conventions");
    let jobs = dir.file(
        "jobs.ads",
        "ClusterId = 1\nProcId = 0\nRequirements = true\n\n",
    );
    let slots = dir.file(
        "slots.ads",
        "Name = \"slot1@a\"\nState = \"Unclaimed\"\nRequirements = true\n\n",
    );
    let (j, s) = (jobs.as_str(), slots.as_str());
    let expected = "1.0\tslot1@a\n";
    let strings = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for args in [
        strings(&["match", "--jobs", j, "--slots", s]),
        strings(&["match", &format!("--jobs={j}"), &format!("--slots={s}")]),
        strings(&["match", "-jobs", j, "-machines", s]),
    ] {
        let out = classad(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected, "{args:?}");
    }
    let conf = dir.file("c.conf", "A = 1\nB = $(A)2\n");
    let conf = conf.as_str();
    let out = classad(["config", "-config", conf, "-verbose", "B"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("B = 12\n"));
    let out = classad(["convert", "--to=JSON", j]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("[\n"));
}

#[test]
fn arguments_that_are_not_utf8_are_an_error_message() {
    use std::os::unix::ffi::OsStringExt;
    let bad = OsString::from_vec(vec![b'x', 0xff, b'y']);
    for first in ["parse", "eval", "convert", "query"] {
        let out = classad([OsString::from(first), bad.clone()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{first}: {err}");
        assert!(err.contains("not valid UTF-8"), "{first}: {err}");
        assert!(!err.contains("panicked"), "{first}: {err}");
    }
}

/// Runs `args` with its standard output a pipe whose reading end is
/// closed before the command writes: what `classad ... | head -0` does.
/// Standard input (`input`) is written after the pipe is closed, so the
/// command cannot have written before.
fn into_closed_pipe(args: &[&str], input: &str) -> Output {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run classad");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let ads: String = (0..2000)
        .map(|i| format!("ClusterId = {i}\nProcId = 0\nOwner = \"u{i}\"\n\n"))
        .collect();
    let cases: &[&[&str]] = &[
        &["convert", "--to", "json"],
        &["convert", "--to", "xml"],
        &["query", "-af", "Owner", "ClusterId"],
        &["query", "-json"],
        &["eval", "--batch"],
        // println! inside: a configuration read from standard input.
        &["config", "-f", "/dev/stdin", "-dump"],
    ];
    for args in cases {
        let input = if args[0] == "eval" {
            "1 + 1\n".repeat(20_000)
        } else if args[0] == "config" {
            (0..2000).map(|i| format!("NAME{i} = {i}\n")).collect()
        } else {
            ads.clone()
        };
        let out = into_closed_pipe(args, &input);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}
