//! Inputs that never end or are huge (`/dev/zero`, an endless command, a
//! FIFO, includes that multiply) are refused past a documented bound with
//! a clear message, never read until memory runs out (docs/limits.md).
//! The bounds are lowered with `--max-input` so that each case stays
//! small; that the refusal comes is what shows the memory is bounded.

use crate::common;

use common::{Scratch, classad, classad_reading, text};

fn refused(stderr: &str, limit: &str) {
    assert!(
        stderr.contains(&format!("the input is longer than {limit}")),
        "{stderr}"
    );
    assert!(stderr.contains("--max-input"), "{stderr}");
}

#[test]
fn check_refuses_an_endless_file() {
    let out = classad(["check", "--max-input", "1M", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    refused(&text(&out.stderr), "1 MiB");
}

#[test]
fn check_refuses_a_file_longer_than_the_bound_before_reading_it() {
    let dir = Scratch::new("endless-check");
    let file = dir.file("big.ads", "a = 1\n\n".repeat(100_000));
    let out = classad(["check", "--max-input", "100K", &file]);
    assert_eq!(out.status.code(), Some(1));
    refused(&text(&out.stderr), "100 KiB");
    // Raised, the same file is read.
    let out = classad(["check", "--max-input", "2M", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn eval_file_refuses_an_endless_file_and_standard_input() {
    let out = classad(["eval", "--max-input", "1M", "--file", "/dev/zero", "a"]);
    assert_eq!(out.status.code(), Some(1));
    refused(&text(&out.stderr), "1 MiB");
    let out = classad_reading(
        ["eval", "--max-input", "1K", "--file", "-", "a"],
        "a = 1\n".repeat(1000),
    );
    assert_eq!(out.status.code(), Some(1));
    refused(&text(&out.stderr), "1 KiB");
}

#[test]
fn match_refuses_an_endless_file() {
    let dir = Scratch::new("endless-match");
    let slots = dir.file("slots.ads", "Name = \"s\"\nRequirements = true\n");
    let out = classad([
        "match",
        "--max-input",
        "1M",
        "--jobs",
        "/dev/zero",
        "--slots",
        &slots,
    ]);
    assert_eq!(out.status.code(), Some(1));
    refused(&text(&out.stderr), "1 MiB");
}

/// A JSON document read from a stream is read whole: bounded too, while
/// old and new syntax are read ad by ad.
#[test]
fn convert_refuses_an_endless_json_stream() {
    let mut input = b"[{\"a\": 1},\n".to_vec();
    input.extend(std::iter::repeat_n(b' ', 3 << 20));
    let out = classad_reading(["convert", "--max-input", "1M", "--to", "new"], input);
    assert_eq!(out.status.code(), Some(1));
    refused(&text(&out.stderr), "1 MiB");
}

#[test]
fn config_include_of_an_endless_file_is_refused_and_the_rest_is_read() {
    let dir = Scratch::new("endless-config");
    let conf = dir.file(
        "z.conf",
        "A = 1\ninclude : /dev/zero\nB = 2\ninclude ifexist : /dev/zero\n",
    );
    let out = classad(["config", "--max-input", "1M", "-f", &conf, "A", "B"]);
    assert_eq!(text(&out.stdout), "1\n2\n");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("z.conf:2: error: not reading /dev/zero"),
        "{err}"
    );
    assert!(err.contains("passes 1 MiB"), "{err}");
    // Reported once, `ifexist` or not.
    assert_eq!(err.matches("not reading").count(), 1, "{err}");
}

#[test]
fn config_include_of_an_endless_command_is_stopped() {
    let dir = Scratch::new("endless-command");
    let conf = dir.file("y.conf", "A = 1\ninclude command : yes\nB = 2\n");
    let out = classad([
        "config",
        "--max-input",
        "1M",
        "-allow-commands",
        "-f",
        &conf,
        "A",
        "B",
    ]);
    assert_eq!(text(&out.stdout), "1\n2\n");
    let err = text(&out.stderr);
    assert!(err.contains("not reading the output of `yes`"), "{err}");
}

#[test]
fn config_includes_that_multiply_are_bounded() {
    // Each file includes the next ten times: 10^6 includes of the last,
    // stopped after 64 MiB of charges (each source counts 1 KiB).
    let dir = Scratch::new("fanout-config");
    for i in 0..6 {
        let line = format!(
            "include : {}\n",
            dir.join(format!("f{}.conf", i + 1)).display()
        );
        dir.write(&format!("f{i}.conf"), line.repeat(10));
    }
    dir.write("f6.conf", "X = 1\n");
    let first = dir.join("f0.conf").display().to_string();
    let out = classad(["config", "-f", &first, "X"]);
    let err = text(&out.stderr);
    assert_eq!(text(&out.stdout), "1\n", "{err}");
    assert!(err.contains("passes 64 MiB"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn config_recursive_include_is_a_loop_error() {
    let dir = Scratch::new("loop-config");
    let path = dir.write("r.conf", "");
    dir.write(
        "r.conf",
        format!("A = 1\ninclude : {}\nB = 2\n", path.display()),
    );
    let out = classad(["config", "-f", &path.display().to_string(), "A", "B"]);
    assert_eq!(text(&out.stdout), "1\n2\n");
    assert!(
        text(&out.stderr).contains("include loop"),
        "{}",
        text(&out.stderr)
    );
}

/// One output line for each input line, even for a line longer than the
/// bound on a line read from a stream (256 MiB), which is not kept.
#[test]
fn eval_batch_answers_an_endless_line_and_goes_on() {
    let mut input = b"1 + 1\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', (256 << 20) + 10));
    input.extend_from_slice(b"\n2 + 2\n");
    let out = classad_reading(["eval", "--batch"], input);
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0], "2");
    assert!(lines[1].contains("longer than 256 MiB"), "{}", lines[1]);
    assert_eq!(lines[2], "4");
}

#[test]
fn max_input_rejects_a_bad_size() {
    let out = classad(["check", "--max-input", "12X", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not a size"),
        "{}",
        text(&out.stderr)
    );
}
