//! tests/corpus/match_context.txt against HTCondor's library in match
//! context (MY and TARGET ads), both modes, through
//! tests/oracle/match_context_check.py. Skipped (with a message) when the
//! oracle or python3 is not available.

use std::path::Path;
use std::process::Command;

fn run(mode: &str) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = repo.join("tests/oracle/match_context_check.py");
    let corpus = repo.join("tests/corpus/match_context.txt");
    let cmd = format!("{} eval --quiet --batch", env!("CARGO_BIN_EXE_classad"));
    let output = match Command::new("python3")
        .arg(&script)
        .args(["--mode", mode, "--cmd", &cmd])
        .arg(&corpus)
        .output()
    {
        Ok(output) => output,
        Err(e) => {
            eprintln!("skipped: python3 does not run: {e}");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    if output.status.code() == Some(3) {
        eprintln!("skipped: {}", stdout.trim());
        return;
    }
    assert!(
        output.status.success(),
        "{mode} mode:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.trim_end().ends_with(" 0 failed"), "{stdout}");
}

#[test]
fn match_context_corpus_agrees_with_htcondor() {
    run("htcondor");
}

#[test]
fn match_context_corpus_agrees_with_htcondor_in_strict_mode() {
    run("strict");
}
