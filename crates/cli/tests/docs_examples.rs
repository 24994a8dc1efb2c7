//! Every example of the function reference (`docs/functions/*.md`, lines
//! `    expr  =>  value`) run through `classad eval --batch` with `TZ=UTC`:
//! the printed value must be exactly the documented one.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// (file, line number, expression, expected output) of every example.
fn examples() -> Vec<(String, usize, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/functions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/functions exists")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (i, line) in text.lines().enumerate() {
            let Some(body) = line.strip_prefix("    ") else {
                continue;
            };
            if let Some((expr, value)) = body.split_once("  =>  ") {
                out.push((
                    name.clone(),
                    i + 1,
                    expr.trim().to_string(),
                    value.trim().to_string(),
                ));
            }
        }
    }
    out
}

#[test]
fn function_reference_examples_hold() {
    let examples = examples();
    assert!(
        examples.len() > 500,
        "found only {} examples",
        examples.len()
    );
    let input: String = examples
        .iter()
        .map(|(_, _, e, _)| format!("{e}\n"))
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(["eval", "--batch"])
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("classad runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("classad finishes");
    writer.join().expect("writer").expect("input written");
    let printed: Vec<&str> = std::str::from_utf8(&output.stdout)
        .expect("utf-8")
        .lines()
        .collect();
    assert_eq!(printed.len(), examples.len(), "one output line per example");
    let wrong: Vec<String> = examples
        .iter()
        .zip(&printed)
        .filter(|((_, _, _, expected), got)| expected != *got)
        .map(|((file, line, expr, expected), got)| {
            format!("{file}:{line}: {expr}\n  documented: {expected}\n  printed:    {got}")
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} examples differ:\n{}",
        wrong.len(),
        examples.len(),
        wrong.join("\n")
    );
}
