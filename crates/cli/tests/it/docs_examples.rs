//! Every example of the function reference (`docs/functions.md` and
//! `docs/functions/*.md`, lines `    expr  =>  value`) run through `classad eval --batch` with `TZ=UTC`:
//! the printed value must be exactly the documented one.

use crate::common;

use common::{assert_all_hold, batch};

use std::path::Path;

/// (file, line number, expression, expected output) of every example.
fn examples() -> Vec<(String, usize, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/functions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/functions exists")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.insert(0, dir.with_extension("md"));
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
    let exprs: Vec<&str> = examples.iter().map(|(_, _, e, _)| e.as_str()).collect();
    let printed = batch::<&str, _>(&[], &exprs);
    let wrong: Vec<String> = examples
        .iter()
        .zip(&printed)
        .filter(|((_, _, _, expected), got)| expected != *got)
        .map(|((file, line, expr, expected), got)| {
            format!("{file}:{line}: {expr}\n  documented: {expected}\n  printed:    {got}")
        })
        .collect();
    assert_all_hold(&wrong, examples.len());
}
