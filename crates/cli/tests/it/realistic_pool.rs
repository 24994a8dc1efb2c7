//! The realistic pool of `classad demo --shapes realistic` against
//! HTCondor's library, both modes, through
//! tests/oracle/match_context_check.py: HTCondor's reader finds the ads
//! and attributes `classad check` finds, and `classad match --all-pairs`
//! finds the pairs HTCondor's negotiator finds (`IsAMatch`, through
//! classad2). Skipped (with a
//! message) when the oracle or python3 is not available.

use std::path::Path;
use std::process::Command;

fn run(mode: &str, seed: &str) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = repo.join("tests/oracle/match_context_check.py");
    let output = match Command::new("python3")
        .arg(&script)
        .args(["--matches", "--shapes", "realistic", "--mode", mode])
        .args(["--seed", seed, "--jobs", "150", "--machines", "150"])
        .args(["--classad", env!("CARGO_BIN_EXE_classad")])
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
        "{mode} mode, seed {seed}:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.trim_end().ends_with(" 0 failed"), "{stdout}");
    assert!(!stdout.contains("no pair matches"), "{stdout}");
}

#[test]
fn realistic_pool_reads_and_matches_as_in_htcondor() {
    run("htcondor", "11");
}

#[test]
fn realistic_pool_reads_and_matches_as_in_htcondor_in_strict_mode() {
    run("strict", "12");
}
