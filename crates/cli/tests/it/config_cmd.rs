//! `classad config`: values, `-v`, `-eval`, `-dump`, commands off by
//! default, and `-machine-ad` feeding `classad match`.

use crate::common;

use common::{Scratch, classad, text};

#[test]
fn values_and_where_they_were_defined() {
    let dir = Scratch::new("config-cli");
    let f = dir.file(
        "values.conf",
        "A = xxx\nB = $(A)\nA = $(A)yyy\nE = (1 + 2) * 3\n",
    );
    let f = f.as_str();
    let o = classad(["config", "-f", f, "A", "B"]);
    assert_eq!(text(&o.stdout), "xxxyyy\nxxxyyy\n");
    assert!(o.status.success());
    let o = classad(["config", "-f", f, "-v", "B"]);
    assert_eq!(
        text(&o.stdout),
        format!("B = xxxyyy\n # at: {f}, line 2\n # raw: B = $(A)\n")
    );
    let o = classad(["config", "-f", f, "-eval", "E"]);
    assert_eq!(text(&o.stdout), "9\n");
    let o = classad(["config", "-f", f, "NOPE"]);
    assert_eq!(text(&o.stderr), "Not defined: NOPE\n");
    assert_eq!(o.status.code(), Some(1));
    let o = classad(["config", "-f", f, "-dump"]);
    let dump = text(&o.stdout);
    assert!(dump.lines().any(|l| l == "A = xxxyyy"), "{dump}");
    assert!(dump.lines().any(|l| l == "B = xxxyyy"), "{dump}");
}

#[test]
fn errors_name_file_and_line_and_commands_need_permission() {
    let dir = Scratch::new("config-cli");
    let f = dir.file(
        "errors.conf",
        "A = 1\nbad line\ninclude : echo B = 2 |\nC = 3\n",
    );
    let f = f.as_str();
    let o = classad(["config", "-f", f, "A", "C"]);
    assert_eq!(text(&o.stdout), "1\n3\n");
    let err = text(&o.stderr);
    assert!(err.contains(&format!("{f}:2: error:")), "{err}");
    assert!(
        err.contains(&format!("{f}:3: error:")) && err.contains("-allow-commands"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(1));
    let o = classad(["config", "-f", f, "-allow-commands", "B"]);
    assert_eq!(text(&o.stdout), "2\n");
}

#[test]
fn machine_ad_matches_jobs() {
    let dir = Scratch::new("config-cli");
    let conf = dir.file(
        "policy.conf",
        "MINUTE = 60\nSTART = KeyboardIdle > 15 * $(MINUTE) && TARGET.Owner != \"bad\"\n\
         RANK = TARGET.Department =?= \"physics\"\nNUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_1 = cpus=1, memory=1024\n",
    );
    let o = classad(["config", "-f", conf.as_str(), "-machine-ad"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let machines = dir.file("machines.ad", text(&o.stdout));
    let jobs = dir.file(
        "jobs.ad",
        "MyType = \"Job\"\nClusterId = 1\nProcId = 0\nOwner = \"alice\"\nDepartment = \"physics\"\nRequestCpus = 1\nRequestMemory = 512\nRequirements = TARGET.Memory >= 512\nRank = TARGET.Cpus\n\n\
         MyType = \"Job\"\nClusterId = 2\nProcId = 0\nOwner = \"bad\"\nRequestCpus = 1\nRequestMemory = 512\nRequirements = true\nRank = 0\n\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec![
            "match",
            "--jobs",
            jobs.as_str(),
            "--slots",
            machines.as_str(),
        ];
        args.extend_from_slice(extra);
        let o = classad(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    // Both slots take alice's job; the START policy refuses "bad".
    let pairs = run(&["--all-pairs"]);
    let pairs: Vec<&str> = pairs.lines().collect();
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    assert!(pairs.iter().all(|p| p.starts_with("1.0\t")), "{pairs:?}");
    // One negotiation cycle: alice's job gets a slot, the other none.
    let cycle = run(&[]);
    let lines: Vec<&str> = cycle.lines().collect();
    assert_eq!(lines.len(), 2, "{cycle}");
    assert!(
        lines[0].starts_with("1.0\t") && !lines[0].ends_with("\t-"),
        "{cycle}"
    );
    assert_eq!(lines[1], "2.0\t-", "{cycle}");
}
