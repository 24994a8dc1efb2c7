//! Runs `tests/config/check.py`, which compares `classad config` with
//! HTCondor's own configuration reader on the corpus in `tests/config/`,
//! (plus 40 random files from `tests/config/gen.py`) when the oracle (`shared/oracle/setup.sh` in an ancestor directory, or
//! `CLASSAD_ORACLE_SETUP`) is there; otherwise says it skipped.

use crate::common;

use common::oracle_setup;

use std::path::Path;
use std::process::Command;

#[test]
fn config_corpus_agrees_with_htcondor() {
    let Some(setup) = oracle_setup() else {
        eprintln!("skipped: the oracle (shared/oracle/setup.sh) is not present");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cmd = format!("{} config", env!("CARGO_BIN_EXE_classad"));
    let out = Command::new("python3")
        .arg(root.join("tests/config/check.py"))
        .arg("--cmd")
        .arg(&cmd)
        .args(["--generated", "40"])
        .env("CLASSAD_ORACLE_SETUP", &setup)
        .output();
    let Ok(out) = out else {
        eprintln!("skipped: python3 is not available");
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    if stdout.starts_with("skipped") {
        return;
    }
    assert!(out.status.success(), "differences:\n{stdout}");
}
