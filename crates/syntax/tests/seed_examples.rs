//! The shared conformance corpus (`../shared/conformance/`, next to the
//! repository): every line of `seed_examples.txt` parses, and each line of
//! `seed_examples_extensions.txt` in its "Not parsed by the library"
//! section is a parse error in the default dialect, while those in the
//! "Parsed, but with another meaning" section parse. Skipped, with a note,
//! when the shared folder is not there.

use classad_syntax::parse_expression;
use std::path::PathBuf;

fn conformance_file(name: &str) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!("skipped: cannot read {}: {e}", path.display());
            None
        }
    }
}

/// (line number, text) of the expression lines: not blank, not `#`.
fn expression_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| (i + 1, line))
        .collect()
}

#[test]
fn seed_examples_parse() {
    let Some(text) = conformance_file("seed_examples.txt") else {
        return;
    };
    let lines = expression_lines(&text);
    assert!(lines.len() > 100, "only {} lines", lines.len());
    let failures: Vec<String> = lines
        .iter()
        .filter_map(|(n, line)| {
            parse_expression(line)
                .err()
                .map(|e| format!("line {n}: {line}\n    {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} lines do not parse:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
}

/// Which section of the extensions file a line is in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Section {
    Preamble,
    NotParsed,
    OtherMeaning,
}

#[test]
fn seed_extensions_not_parsed_are_errors() {
    let Some(text) = conformance_file("seed_examples_extensions.txt") else {
        return;
    };
    let mut section = Section::Preamble;
    let mut checked = [0usize; 2];
    let mut wrong = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("# ---") {
            let title = trimmed.to_ascii_lowercase();
            section = if title.contains("not parsed") {
                Section::NotParsed
            } else if title.contains("another meaning") {
                Section::OtherMeaning
            } else {
                panic!("line {}: unknown section {trimmed:?}", i + 1)
            };
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let result = parse_expression(line);
        match section {
            Section::Preamble => panic!("line {}: expression before any section", i + 1),
            Section::NotParsed => {
                checked[0] += 1;
                if let Ok(expr) = result {
                    wrong.push(format!(
                        "line {}: parsed, should not: {line}\n    as {}",
                        i + 1,
                        classad_syntax::unparse(&expr)
                    ));
                }
            }
            Section::OtherMeaning => {
                checked[1] += 1;
                if let Err(e) = result {
                    wrong.push(format!("line {}: does not parse: {line}\n    {e}", i + 1));
                }
            }
        }
    }
    assert!(
        checked[0] >= 10 && checked[1] >= 10,
        "sections not found: {checked:?}"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
