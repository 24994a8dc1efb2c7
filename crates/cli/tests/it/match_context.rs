//! tests/corpus/match_context.txt against HTCondor's library in match
//! context (MY and TARGET ads), both modes, through
//! tests/oracle/match_context_check.py. Skipped (with a message) when the
//! oracle or python3 is not available.

use std::path::Path;
use std::process::Command;

/// Runs tests/oracle/match_context_check.py with `args` and asserts that it
/// succeeded and ended `0 failed` (`what` names the run in a failure).
/// Returns its standard output, or None (with a message) when python3 or
/// the oracle is not available (the script exits 3 then).
pub(crate) fn run_match_context_check(args: &[&str], what: &str) -> Option<String> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = repo.join("tests/oracle/match_context_check.py");
    let output = match Command::new("python3").arg(&script).args(args).output() {
        Ok(output) => output,
        Err(e) => {
            eprintln!("skipped: python3 does not run: {e}");
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.code() == Some(3) {
        eprintln!("skipped: {}", stdout.trim());
        return None;
    }
    assert!(
        output.status.success(),
        "{what}:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.trim_end().ends_with(" 0 failed"), "{stdout}");
    Some(stdout)
}

fn run(mode: &str) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/match_context.txt");
    let cmd = format!("{} eval --quiet --batch", env!("CARGO_BIN_EXE_classad"));
    let corpus = corpus.to_string_lossy();
    run_match_context_check(
        &["--mode", mode, "--cmd", &cmd, &corpus],
        &format!("{mode} mode"),
    );
}

#[test]
fn match_context_corpus_agrees_with_htcondor() {
    run("htcondor");
}

#[test]
fn match_context_corpus_agrees_with_htcondor_in_strict_mode() {
    run("strict");
}
