//! `classad convert` on a generated pool: old → new → old and old → JSON →
//! old keep every attribute (the trees compared, spans ignored), and, when
//! HTCondor's oracle is installed, HTCondor's parser reads our new-syntax
//! and JSON output to the same ads as the original files.
//!
//! Needs `python3` and the workload generator in `../shared` (next to the
//! repository); skipped with a note when either is missing.

use crate::common;

use common::{Scratch, classad, has_python, repo_root, shared_dir};

use classad::syntax::{AdExpr, AdReader, Format, ParseOptions, Parser};
use std::path::PathBuf;
use std::process::Command;

/// Runs `classad convert ARGS`, expecting success; returns stdout.
fn convert(args: &[&str]) -> Vec<u8> {
    let out = classad(["convert"].iter().chain(args));
    assert!(
        out.status.success(),
        "classad convert {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn read_ads(bytes: &[u8], format: Format) -> Vec<AdExpr> {
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(bytes, format, &parser)
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|e| panic!("{format:?} ad {}: {e}", i + 1)))
        .collect()
}

fn assert_same_ads(label: &str, expected: &[AdExpr], got: &[AdExpr]) {
    assert_eq!(expected.len(), got.len(), "{label}: number of ads");
    for (i, (want, have)) in expected.iter().zip(got).enumerate() {
        assert_eq!(
            want.len(),
            have.len(),
            "{label}: ad {}: attribute count",
            i + 1
        );
        for ((wn, we), (hn, he)) in want.attributes.iter().zip(&have.attributes) {
            assert_eq!(wn, hn, "{label}: ad {}: attribute names", i + 1);
            assert_eq!(we, he, "{label}: ad {}: attribute {wn}", i + 1);
        }
    }
}

#[test]
fn pool_survives_conversion() {
    let generator = shared_dir()
        .unwrap_or_default()
        .join("workloads/gen_pool.py");
    if !has_python() || !generator.exists() {
        eprintln!(
            "note: skipping pool_survives_conversion: needs python3 and {}",
            generator.display()
        );
        return;
    }
    let dir = Scratch::new("convert-pool");
    let generated = Command::new("python3")
        .arg(&generator)
        .arg("--out")
        .arg(&*dir)
        .args(["--machines", "50", "--jobs", "50"])
        .output()
        .expect("run gen_pool.py");
    assert!(
        generated.status.success(),
        "gen_pool.py failed: {}",
        String::from_utf8_lossy(&generated.stderr)
    );

    let oracle = std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".cache/classad-oracle-venv/bin/python"))
        .filter(|p| p.exists());
    for name in ["machines", "jobs"] {
        let old_path = dir.join(format!("{name}.ads"));
        let old = old_path.to_str().expect("utf-8 temp path");
        let original = read_ads(&std::fs::read(old).expect("read pool"), Format::Old);
        assert_eq!(original.len(), 50, "{name}: ads generated");

        // old → new → old
        let new = convert(&["--to", "new", old]);
        assert_same_ads(
            &format!("{name} new"),
            &original,
            &read_ads(&new, Format::New),
        );
        let new_path = dir.join(format!("{name}.new"));
        std::fs::write(&new_path, &new).expect("write");
        let back = convert(&["--to", "old", new_path.to_str().expect("path")]);
        assert_same_ads(
            &format!("{name} new→old"),
            &original,
            &read_ads(&back, Format::Old),
        );

        // old → pretty new, read back by auto-detection
        let pretty = convert(&["--pretty", old]);
        let pretty_path = dir.join(format!("{name}.pretty"));
        std::fs::write(&pretty_path, &pretty).expect("write");
        let back = convert(&["--to", "old", pretty_path.to_str().expect("path")]);
        assert_same_ads(
            &format!("{name} pretty→old"),
            &original,
            &read_ads(&back, Format::Old),
        );

        // old → JSON → old, the JSON found by auto-detection
        let json = convert(&["--to", "json", old]);
        assert_same_ads(
            &format!("{name} json"),
            &original,
            &read_ads(&json, Format::Json),
        );
        let json_path = dir.join(format!("{name}.json"));
        std::fs::write(&json_path, &json).expect("write");
        let back = convert(&["--to", "old", json_path.to_str().expect("path")]);
        assert_same_ads(
            &format!("{name} json→old"),
            &original,
            &read_ads(&back, Format::Old),
        );

        match &oracle {
            Some(python) => {
                let script = repo_root().join("tests/oracle/roundtrip_check.py");
                let out = Command::new(python)
                    .arg(&script)
                    .arg("--old")
                    .arg(&old_path)
                    .arg("--new")
                    .arg(&new_path)
                    .arg("--json")
                    .arg(&json_path)
                    .env("CONDOR_CONFIG", "/dev/null")
                    .env("TZ", "UTC")
                    .output()
                    .expect("run the oracle check");
                eprint!("{}", String::from_utf8_lossy(&out.stdout));
                assert!(
                    out.status.success(),
                    "oracle check failed for {name}:\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            None => eprintln!("note: oracle venv not found; HTCondor's check skipped"),
        }
    }
}

#[test]
fn bad_ads_are_reported_and_the_rest_written() {
    let dir = Scratch::new("convert-bad");
    let path = dir.file("bad.ads", "A = 1\n\nB = 1 +\nC = 2\n\nD = 4\n");
    let out = classad(["convert", "--to", "new", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[ A = 1 ]\n[ D = 4 ]\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.ads:3:8"), "{stderr}");
    assert!(stderr.contains("3 | B = 1 +"), "{stderr}");
}
