//! The hostile corpus (`tests/hostile/*.txt`, one expression a line, `#`
//! comments) and cases too large to keep in files (made here), each run
//! through `classad eval --batch` as a separate process followed by a
//! harmless line: every case must end within the time limit, under the
//! memory limit, without a signal, with one output line, and the next line
//! must still be answered. Issue 13.
//!
//! Limits relied on: 10 s of wall time per case (then the process is
//! killed and the test fails), and 4 GiB of address space (`ulimit -v`),
//! far above what the evaluation budgets let a case use (docs/limits.md:
//! `Limits::max_memory` is 256 MiB by default).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TIME_LIMIT: Duration = Duration::from_secs(10);
const ADDRESS_SPACE_KIB: u64 = 4 << 20;

/// The cases of the corpus files, each with its file and line.
fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hostile");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/hostile exists")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let label = format!("{}:{}", name.as_deref().unwrap_or("?"), number + 1);
            cases.push((label, line.to_string()));
        }
    }
    cases
}

/// Cases too large for the files: long literals, many distinct items,
/// long chains.
fn generated() -> Vec<(String, String)> {
    let items = |prefix: &str, count: usize, separator: &str| {
        (0..count)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(separator)
    };
    let mega = "x".repeat(1 << 20);
    let mut cases = vec![
        (
            "1 MB literal, toUpper doubled 16 times",
            format!(
                "[s = \"{mega}\"; a0 = size(toUpper(s)); {}].a16",
                (1..=16)
                    .map(|i| format!("a{i} = a{} + a{}", i - 1, i - 1))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
        (
            "stringListSubsetMatch of 100,000 distinct items",
            format!(
                "stringListSubsetMatch(\"{}\", \"{}\")",
                items("a", 100_000, ","),
                items("a", 100_000, ",")
            ),
        ),
        (
            "stringListISubsetMatch of 100,000 distinct items",
            format!(
                "stringListISubsetMatch(\"{}\", \"{}\")",
                items("A", 100_000, ","),
                items("a", 100_000, ",")
            ),
        ),
        (
            "stringListsIntersect of 100,000 distinct items",
            format!(
                "stringListsIntersect(\"{}\", \"{}\")",
                items("a", 100_000, " "),
                items("b", 100_000, " ")
            ),
        ),
        (
            "member of a 100,000-element list",
            format!(
                "member(\"zz\", {{{}}})",
                items("\"a", 100_000, "\",") + "\""
            ),
        ),
        (
            "a chain of 10,000 attributes",
            format!(
                "[a0 = 1; {}].a9999",
                (1..10_000)
                    .map(|i| format!("a{i} = a{} + 1", i - 1))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
        ("a 1 MB integer literal", "9".repeat(1 << 20)),
        (
            "eval of a 1 MB string",
            format!("eval(\"{}\")", "1 + ".repeat(1 << 18) + "1"),
        ),
        (
            "a 4 MB pattern",
            format!("regexp(\"{}\", \"a\")", "a?".repeat(2 << 20)),
        ),
    ]
    .into_iter()
    .map(|(label, case)| (label.to_string(), case))
    .collect::<Vec<_>>();
    cases.push((
        "a call with 70,000 arguments".to_string(),
        format!("size(strcat({}))", vec!["\"x\""; 70_000].join(",")),
    ));
    cases
}

/// Runs one case; `Err` says how it failed.
fn run(case: &str) -> Result<(Duration, String), String> {
    let binary = env!("CARGO_BIN_EXE_classad");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" eval --batch"
        ))
        .arg(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let start = Instant::now();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let input = format!("{case}\n1 + 1\n");
    // Written from a thread: the child may answer before reading it all.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut out);
        out
    });
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("killed after {TIME_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let _ = writer.join();
    let out = reader.join().map_err(|_| "reader panicked")?;
    if !status.success() {
        return Err(format!("exit status {status}"));
    }
    let out = String::from_utf8_lossy(&out);
    let lines: Vec<&str> = out.lines().collect();
    match lines.as_slice() {
        [answer, "2"] if !answer.is_empty() => Ok((elapsed, answer.chars().take(40).collect())),
        _ => Err(format!(
            "expected an answer and then 2, got {} lines",
            lines.len()
        )),
    }
}

#[test]
fn hostile_cases_end_with_an_answer_and_the_next_line_is_answered() {
    let mut failures = Vec::new();
    let cases: Vec<(String, String)> = corpus().into_iter().chain(generated()).collect();
    assert!(cases.len() > 100, "the corpus has {} cases", cases.len());
    for (label, case) in &cases {
        match run(case) {
            Ok((elapsed, answer)) => println!("{label}: {:.3} s: {answer}", elapsed.as_secs_f64()),
            Err(why) => failures.push(format!("{label}: {why}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
