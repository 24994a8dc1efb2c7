//! `classad match`, `analyze` and `demo` through the binary: output
//! formats, and bad input reported by file and ad, never a panic.

use crate::common;

use common::{Scratch, classad};

const SLOTS: &str = "Name = \"slot1@a\"\nState = \"Unclaimed\"\nMemory = 4096\nRequirements = TARGET.RequestMemory <= MY.Memory\n\n\
Name = \"slot1@b\"\nState = \"Unclaimed\"\nMemory = 8192\nRequirements = true\n\n";

const JOBS: &str = "ClusterId = 1\nProcId = 0\nRequestMemory = 2048\nRequirements = TARGET.Memory >= 2048\nRank = TARGET.Memory\n\n\
ClusterId = 1\nProcId = 1\nRequestMemory = 2048\nRequirements = TARGET.Memory >= 2048\nRank = TARGET.Memory\n\n\
ClusterId = 2\nProcId = 0\nRequestMemory = 100000\nRequirements = TARGET.Memory >= RequestMemory\n\n";

#[test]
fn negotiation_prints_one_line_per_job_and_a_summary_on_stderr() {
    let d = Scratch::new("match-cli-basic");
    let (j, s) = (d.file("jobs.ads", JOBS), d.file("slots.ads", SLOTS));
    let out = classad(["match", "--jobs", &j, "--slots", &s]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1.0\tslot1@b\n1.1\tslot1@a\n2.0\t-\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 matches") && err.contains("parse") && err.contains("pairs/s"),
        "{err}"
    );
    // --machines is another name for --slots.
    let again = classad(["match", "--jobs", &j, "--machines", &s]);
    assert_eq!(again.stdout, out.stdout);
}

#[test]
fn all_pairs_and_json() {
    let d = Scratch::new("match-cli-pairs");
    let (j, s) = (d.file("jobs.ads", JOBS), d.file("slots.ads", SLOTS));
    let out = classad(["match", "--jobs", &j, "--slots", &s, "--all-pairs"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1.0\tslot1@a\n1.0\tslot1@b\n1.1\tslot1@a\n1.1\tslot1@b\n"
    );
    let out = classad(["match", "--jobs", &j, "--slots", &s, "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for key in [
        "\"assignments\"",
        "\"unmatched\"",
        "\"summary\"",
        "\"parse_seconds\"",
        "\"match_seconds\"",
        "\"pairs\"",
        "\"pairs_pruned\"",
        "\"matches\":2",
    ] {
        assert!(text.contains(key), "{key} in {text}");
    }
    assert!(text.contains("\"job\":\"2.0\",\"reason\""), "{text}");
}

#[test]
fn bad_ads_are_reported_by_file_and_position_and_the_good_ones_matched() {
    let d = Scratch::new("match-cli-bad");
    let jobs =
        format!("{JOBS}ClusterId = 3\nRequirements = (\n\nProcId = 7\nRequirements = true\n\n");
    let slots = format!(
        "{SLOTS}State = \"Unclaimed\"\nRequirements = true\n\nName = \"slot9@c\"\nState = \"Unclaimed\"\n\n"
    );
    let (j, s) = (d.file("jobs.ads", &jobs), d.file("slots.ads", &slots));
    let out = classad(["match", "--jobs", &j, "--slots", &s]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("jobs.ads") && err.contains("ad 5") && err.contains("ClusterId"),
        "{err}"
    );
    assert!(
        err.contains("slots.ads: ad 3") && err.contains("Name"),
        "{err}"
    );
    assert!(
        err.contains("slots.ads: ad 4: slot has no Requirements"),
        "{err}"
    );
    // Job ad 4 keeps `ClusterId = 3`, the line before its unreadable
    // one, as HTCondor reads it: a job without Requirements, which
    // matches nothing; the warning names the ad and what was dropped.
    assert!(
        err.contains("warning: expected an expression")
            && err.contains("jobs.ads")
            && err.contains("ad 4 (from line"),
        "the warning names the ad: {err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1.0\tslot1@b\n1.1\tslot1@a\n2.0\t-\n3.0\t-\n"
    );
}

#[test]
fn a_policy_that_does_not_parse_and_absurd_threads_are_clear_errors() {
    let d = Scratch::new("match-cli-policy");
    let (j, s) = (d.file("jobs.ads", JOBS), d.file("slots.ads", SLOTS));
    let p = d.file("policy.conf", "# ranks\nNEGOTIATOR_PRE_JOB_RANK = (1 +\n");
    let out = classad(["match", "--jobs", &j, "--slots", &s, "--policy", &p]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("policy.conf") && err.contains("line 2"),
        "{err}"
    );
    let out = classad(["match", "--jobs", &j, "--slots", &s, "--threads", "10000"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'10000' for '--threads") && err.contains("a number from 1 to 256"),
        "{err}"
    );
    let good = d.file("good.conf", "NEGOTIATOR_PRE_JOB_RANK = MY.Memory < 5000\n");
    let out = classad(["match", "--jobs", &j, "--slots", &s, "--policy", &good]);
    // The pre-job rank now prefers slot1@a (4096) over the job's Rank; it
    // is static, so the next job takes slot1@b.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1.0\tslot1@a\n1.1\tslot1@b\n2.0\t-\n"
    );
}

#[test]
fn analyze_explains_a_job_and_demo_summarises() {
    let d = Scratch::new("match-cli-analyze");
    let (j, s) = (d.file("jobs.ads", JOBS), d.file("slots.ads", SLOTS));
    let out = classad(["analyze", "--jobs", &j, "--slots", &s, "2.0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Job 2.0") && text.contains("TARGET.Memory >= RequestMemory"),
        "{text}"
    );
    let out = classad(["demo", "--jobs", "300", "--slots", "300"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("matched") && text.contains("300 jobs"),
        "{text}"
    );
}

#[test]
fn a_pool_too_large_for_memory_is_refused_with_a_message() {
    let d = Scratch::new("match-cli-huge");
    let j = d.file("jobs.ads", JOBS);
    let slots = d.join("slots.ads");
    // A sparse file of 4 TB: its ads could never fit.
    let file = std::fs::File::create(&slots).unwrap();
    if file.set_len(1 << 42).is_err() {
        eprintln!("SKIPPED: no sparse files here");
        return;
    }
    let out = classad(["match", "--jobs", &j, "--slots", &slots.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("slots.ads") && err.contains("do not fit"),
        "{err}"
    );
    let _ = std::fs::remove_file(&slots);
}
