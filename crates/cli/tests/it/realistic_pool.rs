//! The realistic pool of `classad demo --shapes realistic` against
//! HTCondor's library, both modes, through
//! tests/oracle/match_context_check.py: HTCondor's reader finds the ads
//! and attributes `classad check` finds, and `classad match --all-pairs`
//! finds the pairs HTCondor's negotiator finds (`IsAMatch`, through
//! classad2). Skipped (with a
//! message) when the oracle or python3 is not available.

use super::match_context::run_match_context_check;

fn run(mode: &str, seed: &str) {
    let args = [
        "--matches",
        "--shapes",
        "realistic",
        "--mode",
        mode,
        "--seed",
        seed,
        "--jobs",
        "150",
        "--machines",
        "150",
        "--classad",
        env!("CARGO_BIN_EXE_classad"),
    ];
    if let Some(stdout) = run_match_context_check(&args, &format!("{mode} mode, seed {seed}")) {
        assert!(!stdout.contains("no pair matches"), "{stdout}");
    }
}

#[test]
fn realistic_pool_reads_and_matches_as_in_htcondor() {
    run("htcondor", "11");
}

#[test]
fn realistic_pool_reads_and_matches_as_in_htcondor_in_strict_mode() {
    run("strict", "12");
}
