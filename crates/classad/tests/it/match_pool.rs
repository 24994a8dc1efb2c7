//! End to end: the negotiator's symmetric match over the reference
//! workload (`../shared/workloads/gen_pool.py`, seed 20240521), checked
//! against the checksums its README gives for the first 200 jobs x first
//! 200 machines, computed by HTCondor's C++ library and its Python
//! bindings: `matches=11543 rank_sum=570003514.630000
//! best_hash=ec451eaf96847d48`.
//!
//! Checksum convention (the workloads README): jobs in file order (j),
//! machines in file order (m); `rank_sum` adds the job's Rank over matching
//! pairs; the best machine per job is the first with the largest Rank, or
//! -1; FNV-1a 64 over each (j, best) as 8-byte little-endian integers.

use classad::syntax::{AdReader, Format, ParseOptions, Parser};
use classad::{AdRef, Vm};
use std::path::Path;
use std::process::Command;

fn load(path: &Path) -> Vec<AdRef> {
    let text = std::fs::read_to_string(path).expect("pool file");
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(text.as_bytes(), Format::Old, &parser)
        .map(|ad| classad::ad_from_ast(&ad.expect("pool parses")).expect("pool compiles"))
        .collect()
}

fn fnv1a(hash: &mut u64, value: i64) {
    for byte in value.to_le_bytes() {
        *hash ^= u64::from(byte);
        *hash = hash.wrapping_mul(1_099_511_628_211);
    }
}

#[test]
fn first_200_jobs_by_200_machines_match_htcondor() {
    let generator =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/workloads/gen_pool.py");
    if !generator.exists() {
        eprintln!("skipped: {} not found", generator.display());
        return;
    }
    let dir = std::env::temp_dir().join(format!("classad-match-pool-{}", std::process::id()));
    let status = Command::new("python3")
        .arg(&generator)
        .args(["--out"])
        .arg(&dir)
        .args(["--machines", "200", "--jobs", "200"])
        .output();
    let Ok(output) = status else {
        eprintln!("skipped: python3 not available");
        return;
    };
    assert!(
        output.status.success(),
        "gen_pool.py: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let machines = load(&dir.join("machines.ads"));
    let jobs = load(&dir.join("jobs.ads"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((machines.len(), jobs.len()), (200, 200));

    let mut vm = Vm::default();
    let (mut matches, mut rank_sum, mut hash) = (0u64, 0f64, 14_695_981_039_346_656_037u64);
    for (j, job) in jobs.iter().enumerate() {
        let mut best: Option<(f64, usize)> = None;
        for (m, machine) in machines.iter().enumerate() {
            if !vm.symmetric_match(job, machine) {
                continue;
            }
            matches += 1;
            let rank = vm.rank(job, machine);
            rank_sum += rank;
            if best.is_none_or(|(r, _)| rank > r) {
                best = Some((rank, m));
            }
        }
        fnv1a(&mut hash, j as i64);
        fnv1a(&mut hash, best.map_or(-1, |(_, m)| m as i64));
    }
    let summary = format!("matches={matches} rank_sum={rank_sum:.6} best_hash={hash:016x}");
    assert_eq!(
        summary,
        "matches=11543 rank_sum=570003514.630000 best_hash=ec451eaf96847d48"
    );
}
