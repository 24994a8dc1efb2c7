//! `classad match`: one negotiation cycle (or every symmetric pair) over
//! a pool of job and slot ad files, with the `classad-matchmaker` engine.

use crate::json_text::json_string;
use classad::syntax::ParseOptions;
use classad_matchmaker::{AdFile, Options, Policy, Pool, read_ad_file_with};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

/// Most worker threads accepted: more only adds contention.
pub const MAX_THREADS: usize = 256;

/// One negotiation cycle over job and slot ad files, or every matching pair.
///
/// Prints `JOB<TAB>SLOT` a job (`-` for no slot), or with `--all-pairs`
/// every pair that matches both ways; a summary goes to standard error.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad match --jobs jobs.ads --slots slots.ads --threads 2
  classad match --jobs jobs.ads --slots slots.ads --all-pairs
  classad match --jobs jobs.ads --slots slots.ads --policy negotiator.conf --json --strict",
    exit_status!()
))]
pub struct MatchArgs {
    /// The job ads (old, new, JSON or XML form).
    #[arg(long, value_name = "FILE")]
    pub jobs: String,
    /// The slot (machine) ads.
    #[arg(long, visible_alias = "machines", value_name = "FILE")]
    pub slots: String,
    /// Negotiator settings: NEGOTIATOR_PRE_JOB_RANK and NEGOTIATOR_POST_JOB_RANK lines.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<String>,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = threads)]
    pub threads: usize,
    /// Every pair that matches both ways, not one negotiation cycle.
    #[arg(long = "all-pairs")]
    pub all_pairs: bool,
    /// JSON output, with the summary.
    #[arg(long)]
    pub json: bool,
    /// STRICT_CLASSAD_EVALUATION: unscoped names are not looked up in the other ad.
    #[arg(long)]
    pub strict: bool,
    /// Not HTCondor's behaviour: once a clause of one ad has used up the
    /// evaluation budget (10 million steps) against N groups of the other
    /// side, take it as ERROR against the rest unevaluated, so that one
    /// hostile ad cannot stall the negotiation. Can change matches where
    /// the clause's cost depends on the other ad.
    #[arg(long, value_name = "N")]
    pub give_up_after_exhausted: Option<u8>,
    #[command(flatten)]
    pub limit: crate::args::InputLimit,
}

/// A number of threads, from 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!("a number from 1 to {MAX_THREADS}")),
    }
}

/// Bytes of memory one byte of ad text takes at the peak of reading and
/// matching (measured on the workload pools: 0.61 GB for 147 MB of ads,
/// docs/performance.md "Memory"), with a margin.
const MEMORY_PER_TEXT_BYTE: u64 = 5;

fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Refuses, with a message, files whose ads would not fit in memory,
/// rather than being killed half-way.
fn check_size(files: &[&str]) -> Result<(), String> {
    let sizes: Vec<(String, u64)> = files
        .iter()
        .map(|f| (f.to_string(), std::fs::metadata(f).map_or(0, |m| m.len())))
        .collect();
    let need: u64 = sizes
        .iter()
        .map(|(_, s)| s.saturating_mul(MEMORY_PER_TEXT_BYTE))
        .sum();
    match available_memory() {
        Some(have) if need > have => {
            let (biggest, size) = sizes
                .iter()
                .max_by_key(|(_, s)| *s)
                .cloned()
                .unwrap_or_default();
            Err(format!(
                "{biggest}: {size} bytes of ads (with the other file, about {:.1} GB once compiled) do not fit in the {:.1} GB of memory available; split the pool",
                need as f64 / 1e9,
                have as f64 / 1e9
            ))
        }
        _ => Ok(()),
    }
}

/// Reads both files (with `reading`) into a pool, reporting every bad ad,
/// and every ad kept in part, on stderr.
pub fn load_pool(
    jobs: &str,
    slots: &str,
    options: Options,
    reading: ParseOptions,
) -> Result<(Pool, usize), String> {
    check_size(&[jobs, slots])?;
    let (job_file, slot_file) = std::thread::scope(|scope| {
        let j = scope.spawn(|| read_ad_file_with(jobs, reading));
        let s = read_ad_file_with(slots, reading);
        (
            j.join()
                .unwrap_or_else(|_| Err(format!("{jobs}: reader failed"))),
            s,
        )
    });
    let (job_file, slot_file): (AdFile, AdFile) = (job_file?, slot_file?);
    let mut pool = Pool::new(options);
    let mut bad = 0;
    // Ads kept in part are matched as HTCondor reads them; what was
    // dropped is said.
    for w in job_file.warnings.iter().chain(&slot_file.warnings) {
        eprint!("classad match: {w}");
    }
    for e in job_file.errors.iter().chain(&slot_file.errors) {
        eprintln!("classad match: {e}");
        bad += 1;
    }
    let requirements = classad::vm::Symbol::new("Requirements");
    for (n, ad) in job_file.ads {
        if ad.body.slot(&requirements).is_none() {
            eprintln!("classad match: {jobs}: ad {n}: job has no Requirements; it matches nothing");
        }
        if let Err(e) = pool.add_job(ad) {
            eprintln!("classad match: {jobs}: ad {n}: {e}; skipped");
            bad += 1;
        }
    }
    for (n, ad) in slot_file.ads {
        if ad.body.slot(&requirements).is_none() {
            eprintln!(
                "classad match: {slots}: ad {n}: slot has no Requirements; it matches nothing"
            );
        }
        if let Err(e) = pool.add_slot(ad) {
            eprintln!("classad match: {slots}: ad {n}: {e}; skipped");
            bad += 1;
        }
    }
    Ok((pool, bad))
}

pub fn read_policy(path: Option<&str>) -> Result<Policy, String> {
    match path {
        None => Ok(Policy::default()),
        Some(p) => {
            let bytes = classad::syntax::read::read_file_within(p)
                .map_err(|e| format!("cannot read `{p}`: {}", e))?;
            let text =
                String::from_utf8(bytes).map_err(|_| format!("cannot read `{p}`: not UTF-8"))?;
            Policy::parse(&text).map_err(|e| format!("{p}: {e}"))
        }
    }
}

fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

/// A spinner on stderr, only on a terminal and only after a second.
/// The matcher's result, the progress bar cleared; an error is said.
fn finished<T>(
    result: Result<T, impl std::fmt::Display>,
    bar: &Option<indicatif::ProgressBar>,
) -> Option<T> {
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    result.map_err(|e| eprintln!("classad match: {e}")).ok()
}

fn progress(message: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message(message.to_string());
    bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    let shown = bar.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(1));
        if !shown.is_finished() {
            shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            shown.enable_steady_tick(std::time::Duration::from_millis(120));
        }
    });
    Some(bar)
}

pub fn run(args: MatchArgs) -> ExitCode {
    args.limit.apply();
    let options = Options {
        strict: args.strict,
        threads: args.threads,
        give_up_after_exhausted: args.give_up_after_exhausted,
    };
    let policy = match read_policy(args.policy.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("classad match: {e}");
            return ExitCode::from(1);
        }
    };
    let bar = progress("reading ads");
    let started = Instant::now();
    let reading = args.limit.parse_options(ParseOptions::default());
    let (mut pool, bad) = match load_pool(&args.jobs, &args.slots, options, reading) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("classad match: {e}");
            return ExitCode::from(1);
        }
    };
    pool.set_policy(policy);
    let parse_seconds = started.elapsed().as_secs_f64();
    if let Some(b) = &bar {
        b.set_message("matching");
    }
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let (stats, extra) = if args.all_pairs {
        let Some(result) = finished(pool.all_pairs(), &bar) else {
            return ExitCode::from(1);
        };
        let (matches, rank_sum, hash) = result.checksums();
        let jobs = pool.jobs();
        let slots = pool.slots();
        if args.json {
            let _ = write!(out, "{{\"pairs\":[");
            let mut first = true;
            for (j, job) in jobs.iter().enumerate() {
                for &(s, rank) in result.of_job(j) {
                    let _ = write!(
                        out,
                        "{}{{\"job\":\"{}\",\"slot\":{},\"rank\":{}}}",
                        if first { "" } else { "," },
                        job.id,
                        json_string(&slots[s as usize].name),
                        json_number(rank)
                    );
                    first = false;
                }
            }
            let _ = write!(out, "],");
        } else {
            for (j, job) in jobs.iter().enumerate() {
                for &(s, _) in result.of_job(j) {
                    let _ = writeln!(out, "{}\t{}", job.id, slots[s as usize].name);
                }
            }
        }
        (
            result.stats.clone(),
            format!("matches={matches} rank_sum={rank_sum:.6} best_hash={hash:016x}"),
        )
    } else {
        let Some(result) = finished(pool.negotiate(), &bar) else {
            return ExitCode::from(1);
        };
        let jobs = pool.jobs();
        let slots = pool.slots();
        if args.json {
            let _ = write!(out, "{{\"assignments\":[");
            let mut first = true;
            for a in result.assignments.iter().filter(|a| a.slot.is_some()) {
                let (pre, rank, post) = a.ranks.unwrap_or_default();
                let _ = write!(
                    out,
                    "{}{{\"job\":\"{}\",\"slot\":{},\"rank\":{{\"pre_job\":{},\"job\":{},\"post_job\":{}}}}}",
                    if first { "" } else { "," },
                    jobs[a.job].id,
                    json_string(&slots[a.slot.unwrap_or(0)].name),
                    json_number(pre),
                    json_number(rank),
                    json_number(post)
                );
                first = false;
            }
            let _ = write!(out, "],\"unmatched\":[");
            let mut first = true;
            for a in result.assignments.iter().filter(|a| a.slot.is_none()) {
                let _ = write!(
                    out,
                    "{}{{\"job\":\"{}\",\"reason\":{}}}",
                    if first { "" } else { "," },
                    jobs[a.job].id,
                    json_string(a.reason.unwrap_or("no match"))
                );
                first = false;
            }
            let _ = write!(out, "],");
        } else {
            for a in &result.assignments {
                let slot = a.slot.map_or("-", |s| slots[s].name.as_str());
                let _ = writeln!(out, "{}\t{slot}", jobs[a.job].id);
            }
        }
        (result.stats.clone(), String::new())
    };
    let pairs_per_second = stats.pairs as f64 / stats.seconds.max(1e-9);
    if args.json {
        let _ = writeln!(
            out,
            "\"summary\":{{\"jobs\":{},\"slots\":{},\"bad_ads\":{bad},\"parse_seconds\":{parse_seconds:.6},\"match_seconds\":{:.6},\"pairs\":{},\"pairs_pruned\":{},\"matches\":{},\"job_clusters\":{},\"slot_clusters\":{},\"threads\":{}}}}}",
            pool.jobs().len(),
            pool.slots().len(),
            stats.seconds,
            stats.pairs,
            stats.pairs_pruned,
            stats.matches,
            stats.job_clusters,
            stats.slot_clusters,
            args.threads
        );
    }
    if let Err(e) = out.flush() {
        return crate::args::output_failed("match", &e);
    }
    eprintln!(
        "{} jobs, {} slots{}: {} pairs ({} pruned by autoclusters: {} job x {} slot clusters), {} matches; parse {parse_seconds:.3} s, match {:.3} s on {} thread(s), {:.3e} pairs/s ({:.1} ns per pair){}",
        pool.jobs().len(),
        pool.slots().len(),
        if bad > 0 {
            format!(" ({bad} bad ads skipped)")
        } else {
            String::new()
        },
        stats.pairs,
        stats.pairs_pruned,
        stats.job_clusters,
        stats.slot_clusters,
        stats.matches,
        stats.seconds,
        args.threads,
        pairs_per_second,
        stats.seconds * 1e9 / (stats.pairs.max(1) as f64),
        if extra.is_empty() {
            String::new()
        } else {
            format!("; {extra}")
        }
    );
    // The process ends here: freeing tens of thousands of ads one by one
    // (billions of instructions at 20,000 x 20,000) would only make the
    // user wait, and the system takes the memory back at once.
    std::mem::forget(pool);
    ExitCode::SUCCESS
}
