//! `classad eval` as HTCondor's `classad_eval`: the man page's examples
//! (docs/man-pages/classad_eval.rst in HTCondor's repository) and the
//! behaviour of issue 11, byte for byte.
//!
//! Two kinds of check: literal expected outputs, each checked against
//! HTCondor's classad2 through `classad_eval/reference.py` when it was
//! written; and, when the oracle (`shared/oracle/setup.sh` in an ancestor
//! directory, or `CLASSAD_ORACLE_SETUP`) is there, every case run through
//! that reference and compared with our bytes. Without the oracle the
//! second test says it skipped.

use crate::common;

use common::{Scratch, classad_reading, oracle_python, text};

use std::path::Path;
use std::process::{Command, Output};

/// `classad eval ARGS` reading `stdin`.
fn eval(args: &[&str], stdin: &str) -> Output {
    classad_reading(["eval"].iter().chain(args), stdin)
}

/// The fixture files, written once per test run.
fn fixtures() -> Scratch {
    let dir = Scratch::new("eval");
    let files: &[(&str, &str)] = &[
        // condor_q -l:new of two jobs.
        (
            "job.ad",
            "{\n[\n    JobUniverse = 5;\n    Owner = \"alice\";\n    Requirements = TARGET.Memory > 100\n]\n,\n[\n    JobUniverse = 7;\n    Owner = \"bob\"\n]\n}\n",
        ),
        (
            "slot.ad",
            "[\n  Memory = 2048; Rank = 1.5; Requirements = MY.Memory > TARGET.JobUniverse\n]\n",
        ),
        ("two.ad", "[ a = 1 ]\n[ a = 2; b = 3 ]\n"),
        (
            "old.ad",
            "Owner = \"alice\"\nCmd = \"/bin/a\"\n\nOwner = \"bob\"\nArgs = \"x\"\n",
        ),
        (
            "jobs.json",
            "[{\"Owner\": \"alice\", \"N\": 1}, {\"Owner\": \"bob\"}]\n",
        ),
    ];
    for (name, contents) in files {
        dir.write(name, contents);
    }
    dir
}

/// Replaces `@name` by the fixture's path.
fn with_files(args: &[&str], dir: &Path) -> Vec<String> {
    args.iter()
        .map(|a| match a.strip_prefix('@') {
            Some(name) => dir.join(name).to_string_lossy().into_owned(),
            None => a.to_string(),
        })
        .collect()
}

/// (arguments, expected standard output, success). Each expected output
/// was checked against classad2 through `classad_eval/reference.py`.
const CASES: &[(&[&str], &str, bool)] = &[
    // The man page's examples.
    (&["a = 2", "a * 2"], "[ a = 2 ]\n4\n", true),
    (&["a=2", "a*2"], "[ a = 2 ]\n4\n", true),
    (&["a = 2", "b = 2", "a + b"], "[ a = 2; b = 2 ]\n4\n", true),
    (
        &["[ a = 2; b = 2 ]", "a + b"],
        "[ a = 2; b = 2 ]\n4\n",
        true,
    ),
    (&["strcat(\"foo\", \"bar\")"], "[  ]\n\"foobar\"\n", true),
    (
        &["x = y", "x", "y = 7", "x", "[ x = 6; z = \"foo\"; ]", "x"],
        "[ x = y ]\nundefined\n[ x = y; y = 7 ]\n7\n[ x = 6; y = 7; z = \"foo\" ]\n6\n",
        true,
    ),
    (
        &[
            "x = y",
            "x",
            "-quiet",
            "y = 7",
            "x",
            "[ x = 6; z = \"foo\"; ]",
            "x",
        ],
        "[ x = y ]\nundefined\n7\n6\n",
        true,
    ),
    (&["-quiet", "-file", "@job.ad", "JobUniverse"], "5\n", true),
    (
        &["-quiet", "-file", "@slot.ad", "Rank"],
        "1.500000000000000E+00\n",
        true,
    ),
    (
        &[
            "-quiet",
            "-my-file",
            "@job.ad",
            "-target-file",
            "@slot.ad",
            "MY.requirements",
            "TARGET.requirements",
        ],
        "true\ntrue\n",
        true,
    ),
    // The context is printed once, after both assignments.
    (&["x = y", "y = 7", "x"], "[ x = y; y = 7 ]\n7\n", true),
    (&["1"], "[  ]\n1\n", true),
    // HTCondor's order: shorter names first, then ignoring case; a name
    // assigned again keeps its first spelling.
    (
        &["b=1; A=2; Zed=3; aa=4", "Foo = 1", "foo = 2", "FOO"],
        "[ A = 2; b = 1; aa = 4; Foo = 2; Zed = 3 ]\n2\n",
        true,
    ),
    // Values as simplify prints them: lists and ads as written, reals %.15E.
    (
        &[
            "l = {1, y, \"s\"}",
            "y = 2",
            "l",
            "l[1]",
            "{l, y}",
            "size(l)",
        ],
        "[ l = { 1,y,\"s\" }; y = 2 ]\n{ 1,y,\"s\" }\n2\n{ l,y }\n3\n",
        true,
    ),
    (
        &[
            "split(\"a b\")",
            "1.0/3",
            "-0.0",
            "relTime(100)",
            "absTime(0)",
            "\"é\"",
        ],
        "[  ]\n{ \"a\",\"b\" }\n3.333333333333333E-01\n-0.0\nrelTime(\"01:40\")\nabsTime(\"1970-01-01T00:00:00-00:00\")\n\"\\303\\251\"\n",
        true,
    ),
    // Time values as HTCondor's unparser writes them (one printer with
    // string()): relative times cut to whole seconds, absolute times with
    // the year unpadded and the offset in whole minutes.
    (
        &[
            "relTime(1.5)",
            "relTime(-0.25)",
            "absTime(0, 30)",
            "absTime(\"0001-01-01T00:00:00Z\")",
            "absTime(-1)",
        ],
        "[  ]\nrelTime(\"01\")\nrelTime(\"00\")\nabsTime(\"1970-01-01T00:00:30+00:00\")\n\
         absTime(\"1-01-01T00:00:00-00:00\")\nabsTime(\"1969-12-31T23:59:59-00:00\")\n",
        true,
    ),
    // Only the first ad of an argument counts, as in HTCondor's constructor.
    (&["[a = 1].a", "a"], "[ a = 1 ]\n1\n", true),
    // With a target, unscoped names fall back to it (old-ClassAd semantics).
    (
        &["-my-file", "@job.ad", "-target-file", "@slot.ad", "Memory"],
        "[ Owner = \"alice\"; JobUniverse = 5; Requirements = TARGET.Memory > 100 ]\n2048\n",
        true,
    ),
    // A file replaces the context, but loading it is no change that
    // classad_eval prints (its `updated` flag is set by ad and assignment
    // arguments only): the file's ad is not shown.
    (
        &["x = 1", "x", "-file", "@two.ad", "x", "a"],
        "[ x = 1 ]\n1\nundefined\n1\n",
        true,
    ),
    (
        &["a", "-my-file", "@slot.ad", "Memory"],
        "[  ]\nundefined\n2048\n",
        true,
    ),
    // Neither an ad nor an expression: nothing more is printed.
    (&["x = 1", "x", "1 +", "x"], "[ x = 1 ]\n1\n", false),
    // The context, changed, is printed before the argument is tried as an
    // expression, as classad_eval does.
    (&["1 // c"], "[  ]\n", false),
    (&["x = 1", "1 +"], "[ x = 1 ]\n", false),
];

#[test]
fn documented_invocations_print_classad_evals_bytes() {
    let dir = fixtures();
    let mut failures = Vec::new();
    for (args, expected, ok) in CASES {
        let args = with_files(args, &dir);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = eval(&refs, "");
        let stdout = text(&out.stdout);
        if stdout != *expected || out.status.success() != *ok {
            failures.push(format!(
                "{args:?}\n  expected ({ok}): {expected:?}\n  printed ({}): {stdout:?}\n  stderr: {}",
                out.status,
                text(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_bad_argument_ends_with_htcondors_message() {
    let out = eval(&["x = 1", "x", "1 +"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "Unable to turn '1 +' into a ClassAd or an expression.\n"
    );
}

#[test]
fn a_bad_file_is_shown_as_classad_check_shows_a_bad_ad() {
    let dir = Scratch::new("eval-bad-file");
    let bad = dir.file("bad.ad", "[\n  a = 1;\n  b = 1 +;\n]\n");
    for flag in ["-file", "-target-file"] {
        let out = eval(&[flag, &bad, "a"], "");
        assert_eq!(out.status.code(), Some(1), "{flag}");
        let err = text(&out.stderr);
        let lines: Vec<&str> = err.lines().collect();
        // The message, then the position, the line and a caret, each on a
        // line of its own (no `\n` written out).
        assert!(lines[0].starts_with("error: "), "{err}");
        assert!(err.contains(&format!("--> {bad}:3:10")), "{err}");
        assert!(err.contains("  b = 1 +;\n"), "{err}");
        assert!(lines.iter().any(|l| l.trim_end().ends_with('^')), "{err}");
        assert!(!err.contains("\\n"), "{err}");
        assert_eq!(text(&out.stdout), "", "{flag}");
    }
}

#[test]
fn unknown_options_are_errors_that_name_them() {
    for flag in ["-verbose", "--verbose", "-fil", "--quite"] {
        let out = eval(&[flag, "1"], "");
        assert!(!out.status.success(), "{flag}");
        assert!(
            text(&out.stderr).contains(flag),
            "{flag}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), "", "{flag}");
    }
    // A negative number is an expression, not an option.
    let out = eval(&["-quiet", "-1"], "");
    assert_eq!(text(&out.stdout), "-1\n");
}

#[test]
fn help_prints_usage() {
    for flag in ["-help", "--help", "-h"] {
        let out = eval(&[flag], "");
        assert!(out.status.success(), "{flag}");
        assert!(
            text(&out.stdout).starts_with("usage: classad eval"),
            "{flag}"
        );
    }
}

#[test]
fn files_give_their_first_ad_and_say_the_others_were_ignored() {
    let dir = fixtures();
    let cases: &[(&str, &str, &str)] = &[
        (
            "@old.ad",
            "\"alice\"\n\"/bin/a\"\nundefined\n",
            "1 other was ignored",
        ),
        (
            "@jobs.json",
            "\"alice\"\n1\nundefined\n",
            "1 other was ignored",
        ),
        ("@two.ad", "1\nundefined\n", "1 other was ignored"),
        (
            "@job.ad",
            "\"alice\"\n5\nundefined\n",
            "1 other was ignored",
        ),
    ];
    let exprs: [&[&str]; 4] = [
        &["Owner", "Cmd", "Args"],
        &["Owner", "N", "Args"],
        &["a", "b"],
        &["Owner", "JobUniverse", "Cmd"],
    ];
    for ((file, expected, note), exprs) in cases.iter().zip(exprs) {
        let mut args = with_files(&["-quiet", "-file", file], &dir);
        args.extend(exprs.iter().map(|e| e.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = eval(&refs, "");
        assert!(out.status.success(), "{file}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), *expected, "{file}");
        assert!(
            text(&out.stderr).contains(note),
            "{file}: {}",
            text(&out.stderr)
        );
    }
    // `-` is standard input.
    let old = std::fs::read_to_string(dir.join("old.ad")).unwrap();
    let out = eval(&["-quiet", "-file", "-", "Owner"], &old);
    assert_eq!(text(&out.stdout), "\"alice\"\n");
    assert!(text(&out.stderr).contains("1 other was ignored"));
    // One ad: nothing to say.
    let args = with_files(&["-quiet", "-file", "@slot.ad", "Memory"], &dir);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = eval(&refs, "");
    assert_eq!(text(&out.stdout), "2048\n");
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn batch_mode_is_unchanged() {
    let out = eval(&["--batch"], "1 + 1\n{1, 2.5}\nx\n");
    assert_eq!(
        text(&out.stdout),
        "2\n{ 1,2.500000000000000E+00 }\nundefined\n"
    );
    let out = eval(&["--batch", "--strict"], "CurrentTime\n");
    assert_eq!(text(&out.stdout), "undefined\n");
}

/// More invocations, compared with the reference only (no literal).
const ORACLE_ONLY: &[&[&str]] = &[
    &[
        "l = {1, y}; y = 2; m = l; n = [p = {3, y}]; s = split(\"a b\")",
        "l",
        "m",
        "n.p",
        "ifThenElse(true, l, 2)",
        "s",
        "{s}",
        "[x = split(\"a b\")]",
        "l ?: 3",
        "eval(\"l\")",
        "n",
        "{[a=y]}",
        "join(\",\", l)",
    ],
    &[
        "n = [q = 1; r = y]",
        "n",
        "n.r",
        "f = 1.5",
        "f * 2",
        "1/0",
        "undefined",
        "error",
        "z",
        "real(1)",
        "0.0",
        "1e100",
    ],
    &[
        "relTime(3600)",
        "relTime(90000)",
        "relTime(-5)",
        "relTime(0)",
        "absTime(\"2020-01-02T03:04:05+01:00\")",
        "\"a\\nb\"",
        "\"\\t\"",
    ],
    &[
        "true",
        "false",
        "int(3.7)",
        "string(1.5)",
        "\"abc\" == \"ABC\"",
        "\"abc\" =?= \"ABC\"",
    ],
    &["[a=1] junk", "a"],
    &["x = 1]", "x"],
    &["x=1 junk", "x"],
    &["[a=1 junk]", "a"],
    &["1]"],
    &["1; x"],
    &["x = 1", "2 ]junk"],
    &["CurrentTime > 0", "MY.x", "x = 1", "MY.x", "TARGET.x"],
    &["-file", "@job.ad", "JobUniverse", "Owner"],
    &[
        "-my-file",
        "@job.ad",
        "-target-file",
        "@slot.ad",
        "requirements",
        "TARGET.Memory",
    ],
    &["-file", "@two.ad", "a", "b"],
    &[
        "x = 1", "x", "-file", "@slot.ad", "x", "Memory", "y = 2", "y",
    ],
    // An assignment not yet printed, then a file: the file's ad is printed
    // (the change was the assignment's).
    &[
        "-file", "@two.ad", "a", "x = 5", "-file", "@slot.ad", "x", "Memory",
    ],
    &["-quiet", "a", "-file", "@two.ad", "1 +"],
];

#[test]
fn agrees_with_a_reference_over_classad2() {
    let python = match oracle_python() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/classad_eval/reference.py");
    let dir = fixtures();
    let all = CASES
        .iter()
        .map(|(args, _, _)| *args)
        .chain(ORACLE_ONLY.iter().copied());
    let mut failures = Vec::new();
    let mut compared = 0;
    for args in all {
        let args = with_files(args, &dir);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let theirs = Command::new(&python)
            .arg(&reference)
            .args(&refs)
            .env("TZ", "UTC")
            .output()
            .expect("run the reference");
        let ours = eval(&refs, "");
        compared += 1;
        if theirs.stdout != ours.stdout || theirs.status.success() != ours.status.success() {
            failures.push(format!(
                "{args:?}\n  classad2 ({}): {:?}\n  ours ({}): {:?}",
                theirs.status,
                text(&theirs.stdout),
                ours.status,
                text(&ours.stdout)
            ));
        }
    }
    eprintln!("{compared} invocations compared with the reference over classad2");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
