//! `classad match`: the negotiator's symmetric match of every job against
//! every machine, with the checksums of `../shared/workloads/README.md`
//! and timings, on as many threads as asked.

use classad::syntax::{AdReader, ParseOptions, Parser};
use classad::{AdRef, Vm};
use std::process::ExitCode;
use std::time::Instant;

/// One job's matches: the Rank of each matching machine in file order
/// (kept so that `rank_sum` adds them in the order of the checksum
/// convention, whatever the number of threads), and the best machine.
struct JobResult {
    ranks: Vec<f64>,
    best: i64,
}

fn read_ads(path: &str) -> Result<Vec<AdRef>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let parser = Parser::new(ParseOptions::default());
    let reader = AdReader::auto(std::io::BufReader::new(file), &parser)
        .map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let mut ads = Vec::new();
    for ad in reader {
        let ad = ad.map_err(|e| e.render(path))?;
        ads.push(classad::ad_from_ast(&ad).map_err(|e| e.to_string())?);
    }
    Ok(ads)
}

fn match_job(vm: &mut Vm, job: &AdRef, machines: &[AdRef]) -> JobResult {
    let mut result = JobResult {
        ranks: Vec::new(),
        best: -1,
    };
    let mut best_rank = f64::NEG_INFINITY;
    for (m, machine) in machines.iter().enumerate() {
        if !vm.symmetric_match(job, machine) {
            continue;
        }
        let rank = vm.rank(job, machine);
        result.ranks.push(rank);
        if result.best < 0 || rank > best_rank {
            best_rank = rank;
            result.best = m as i64;
        }
    }
    result
}

pub fn run(args: &[String]) -> ExitCode {
    let (mut jobs_path, mut machines_path, mut threads) = (None, None, 1usize);
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned();
        match args[i].trim_start_matches('-') {
            "jobs" => jobs_path = value,
            "machines" => machines_path = value,
            "threads" => threads = value.and_then(|v| v.parse().ok()).unwrap_or(0),
            other => {
                eprintln!("classad match: unknown option `{other}`");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }
    let (Some(jobs_path), Some(machines_path)) = (jobs_path, machines_path) else {
        eprintln!("usage: classad match --jobs FILE --machines FILE [--threads N]");
        return ExitCode::from(2);
    };
    if threads == 0 {
        eprintln!("classad match: --threads needs a positive number");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let (jobs, machines) = match (read_ads(&jobs_path), read_ads(&machines_path)) {
        (Ok(j), Ok(m)) => (j, m),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("classad match: {e}");
            return ExitCode::from(1);
        }
    };
    let loaded = started.elapsed();
    let matching = Instant::now();
    let chunk = jobs.len().div_ceil(threads).max(1);
    let results: Vec<JobResult> = std::thread::scope(|scope| {
        let workers: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                let machines = &machines;
                scope.spawn(move || {
                    let mut vm = Vm::default();
                    part.iter()
                        .map(|job| match_job(&mut vm, job, machines))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let elapsed = matching.elapsed();
    let (mut matches, mut rank_sum, mut hash) = (0u64, 0f64, 14_695_981_039_346_656_037u64);
    for (j, result) in results.iter().enumerate() {
        matches += result.ranks.len() as u64;
        for rank in &result.ranks {
            rank_sum += rank;
        }
        for value in [j as i64, result.best] {
            for byte in value.to_le_bytes() {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(1_099_511_628_211);
            }
        }
    }
    let pairs = jobs.len() as f64 * machines.len() as f64;
    println!("matches={matches} rank_sum={rank_sum:.6} best_hash={hash:016x}");
    eprintln!(
        "{} jobs x {} machines = {pairs:.0} pairs on {threads} thread(s): read {:.3} s, matched in {:.3} s ({:.0} ns per pair)",
        jobs.len(),
        machines.len(),
        loaded.as_secs_f64(),
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e9 / pairs.max(1.0)
    );
    ExitCode::SUCCESS
}
