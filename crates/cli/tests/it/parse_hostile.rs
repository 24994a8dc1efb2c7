//! Text that once made the grammar backtrack exponentially (issue 13:
//! `(a?:a?:a?:a?:(b?:h[)*k` took 36 s at k = 8) ends at once through every
//! command that reads it: `eval --batch`, `convert` from both syntaxes and
//! `match`. The grammar's work itself is counted in the syntax crate's
//! `tests/parse_work.rs`; here each run only has to end, with an error,
//! well inside a generous deadline.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(10);

fn hostile(k: usize) -> String {
    ("a?:".repeat(4) + "(b?:h[").repeat(k)
}

/// Runs the binary with `stdin`, killing it at the deadline; returns
/// (stdout, stderr).
fn run(args: &[&str], stdin: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("classad runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("input written");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > DEADLINE {
            child.kill().ok();
            panic!(
                "`classad {}` still running after {DEADLINE:?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().expect("output");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn backtracking_input_ends_in_eval() {
    let lines: String = (7..=12).map(|k| hostile(k) + "\n1 + 1\n").collect();
    let (out, _) = run(&["eval", "--batch"], &lines);
    let out: Vec<&str> = out.lines().collect();
    assert_eq!(out.len(), 12, "{out:?}");
    for pair in out.chunks(2) {
        assert!(pair[0].contains("parse error"), "{pair:?}");
        assert_eq!(pair[1], "2");
    }
}

#[test]
fn backtracking_input_ends_in_readers() {
    let dir = std::env::temp_dir().join(format!("classad-parse-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text = hostile(12);
    let old = dir.join("jobs.ad");
    std::fs::write(
        &old,
        format!("MyType = \"Job\"\nReq = {text}\n\nMyType = \"Job\"\nX = 1\n"),
    )
    .expect("write");
    let new = dir.join("jobs.new");
    std::fs::write(&new, format!("[ MyType = \"Job\"; Req = {text} ]\n")).expect("write");
    let machines = dir.join("machines.ad");
    std::fs::write(&machines, "MyType = \"Machine\"\nRequirements = true\n").expect("write");
    let (_, err) = run(
        &[
            "convert",
            "--from",
            "old",
            "--to",
            "new",
            old.to_str().unwrap(),
        ],
        "",
    );
    assert!(err.contains("expected"), "{err}");
    let (_, err) = run(
        &[
            "convert",
            "--from",
            "new",
            "--to",
            "old",
            new.to_str().unwrap(),
        ],
        "",
    );
    assert!(err.contains("expected"), "{err}");
    run(
        &[
            "match",
            "--jobs",
            old.to_str().unwrap(),
            "--machines",
            machines.to_str().unwrap(),
        ],
        "",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A call with more than 65,535 arguments silently became ERROR (the
/// count was clamped to 16 bits). Constant arguments are folded whatever
/// their number, as HTCondor answers (`size(strcat("a" x 70000))` is 70000
/// there); otherwise the call is refused with a message that says why,
/// and the batch goes on.
#[test]
fn call_with_more_than_65535_arguments() {
    let call = |arg: &str, n: usize| format!("size(strcat({}))\n", vec![arg; n].join(","));
    let input = call("\"a\"", 70_000) + &call("x", 70_000) + &call("x", 65_535) + "1 + 1\n";
    let (out, _) = run(&["eval", "--batch"], &input);
    let out: Vec<&str> = out.lines().collect();
    assert_eq!(out.len(), 4, "{out:?}");
    assert_eq!(out[0], "70000");
    assert!(
        out[1].contains("70000 arguments") && out[1].contains("at most 65535"),
        "{}",
        out[1]
    );
    assert_eq!(out[2], "undefined");
    assert_eq!(out[3], "2");
}
