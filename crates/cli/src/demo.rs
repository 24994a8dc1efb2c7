//! `classad demo`: negotiate a realistic pool the program makes itself
//! (about 10,000 jobs and 10,000 slots by default), and summarise it.

use classad_matchmaker::{Options, Pool, generate, read_ad_text};
use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Instant;

/// Negotiate a realistic pool the command makes on the spot, and summarise it.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad demo
  classad demo --jobs 100000 --slots 20000 --threads 2
  classad demo --write /tmp/pool     (keeps jobs.ads and slots.ads for classad match)
  classad demo --shapes realistic --jobs 1000 --slots 1000 --write /tmp/real",
    exit_status!()
))]
pub struct DemoArgs {
    /// Jobs in the pool (at most 5,000,000).
    #[arg(long, default_value_t = 10_000, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=5_000_000))]
    jobs: u32,
    /// Slots in the pool (at most 5,000,000).
    #[arg(long, visible_alias = "machines", default_value_t = 10_000, value_name = "M", value_parser = clap::value_parser!(u32).range(0..=5_000_000))]
    slots: u32,
    /// Seed of the pool: the same seed makes the same pool.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N", value_parser = crate::match_cmd::threads)]
    threads: Option<usize>,
    /// The shapes of the ads: `default` (condor_submit-shaped jobs, slots
    /// whose policies read few job attributes) or `realistic` (every shape
    /// of a real pool: START reading per-job usage, nested GPU ads and
    /// countMatches, glideins, JDL grid ads, legacy unscoped policies,
    /// odd Ranks, self-references).
    #[arg(long, value_enum, default_value_t = ShapesArg::Default, value_name = "SHAPES")]
    shapes: ShapesArg,
    /// Also write the pool to DIR/jobs.ads and DIR/slots.ads.
    #[arg(long, value_name = "DIR")]
    write: Option<String>,
}

/// `--shapes`: which generator makes the pool.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ShapesArg {
    Default,
    Realistic,
}

impl From<ShapesArg> for generate::Shapes {
    fn from(shapes: ShapesArg) -> generate::Shapes {
        match shapes {
            ShapesArg::Default => generate::Shapes::Default,
            ShapesArg::Realistic => generate::Shapes::Realistic,
        }
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn run(args: DemoArgs) -> ExitCode {
    let (jobs, slots, seed, write) = (
        args.jobs as usize,
        args.slots as usize,
        args.seed,
        args.write,
    );
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(crate::match_cmd::MAX_THREADS)
    });
    let started = Instant::now();
    let shapes = generate::Shapes::from(args.shapes);
    let (job_text, slot_text) = (shapes.jobs(jobs, seed), shapes.slots(slots, seed));
    if let Some(dir) = &write {
        let dir = std::path::Path::new(dir);
        let written = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join("jobs.ads"), &job_text))
            .and_then(|_| std::fs::write(dir.join("slots.ads"), &slot_text));
        if let Err(e) = written {
            eprintln!("classad demo: cannot write {}: {e}", dir.display());
            return ExitCode::from(1);
        }
    }
    let job_file = read_ad_text(job_text.as_bytes(), "<demo jobs>");
    let slot_file = read_ad_text(slot_text.as_bytes(), "<demo slots>");
    let mut pool = Pool::new(Options {
        strict: false,
        threads,
        ..Options::default()
    });
    for (_, ad) in job_file.ads {
        let _ = pool.add_job(ad);
    }
    for (_, ad) in slot_file.ads {
        let _ = pool.add_slot(ad);
    }
    let made = started.elapsed().as_secs_f64();
    let result = match pool.negotiate() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("classad demo: {e}");
            return ExitCode::from(1);
        }
    };
    let (n_jobs, n_slots) = (pool.jobs().len() as u64, pool.slots().len() as u64);
    let unclaimed = pool.slots().iter().filter(|s| s.unclaimed).count() as u64;
    let matched = result.stats.matches;
    let mut reasons: HashMap<&str, u64> = HashMap::new();
    let mut per_slot: HashMap<usize, u64> = HashMap::new();
    let mut per_owner: HashMap<String, (u64, u64)> = HashMap::new();
    for a in &result.assignments {
        match a.slot {
            Some(s) => *per_slot.entry(s).or_default() += 1,
            None => *reasons.entry(a.reason.unwrap_or("no match")).or_default() += 1,
        }
        let owner = match pool.jobs()[a.job]
            .ad
            .body
            .get("Owner")
            .map(|x| classad::syntax::unparse(&x.source))
        {
            Some(o) => o,
            None => "?".into(),
        };
        let e = per_owner
            .entry(owner.trim_matches('"').to_string())
            .or_default();
        e.0 += 1;
        e.1 += u64::from(a.slot.is_some());
    }
    let carved = per_slot
        .keys()
        .filter(|&&s| pool.slots()[s].partitionable)
        .count() as u64;
    let jobs_on_carved: u64 = per_slot
        .iter()
        .filter(|(s, _)| pool.slots()[**s].partitionable)
        .map(|(_, n)| n)
        .sum();
    let static_claimed = per_slot.len() as u64 - carved;
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let s = &result.stats;
    println!(
        "Negotiation cycle over a built-in pool ({}seed {seed}): {} jobs, {} slots ({} unclaimed)",
        if shapes == generate::Shapes::Realistic {
            "realistic shapes, "
        } else {
            ""
        },
        thousands(n_jobs),
        thousands(n_slots),
        thousands(unclaimed)
    );
    println!();
    println!(
        "  matched     {:>8} jobs ({:.1}%)",
        thousands(matched),
        pct(matched, n_jobs)
    );
    for (reason, n) in {
        let mut r: Vec<_> = reasons.into_iter().collect();
        r.sort_by_key(|x| std::cmp::Reverse(x.1));
        r
    } {
        println!("  unmatched   {:>8} jobs: {reason}", thousands(n));
    }
    println!(
        "  slots used  {:>8} partitionable slots carved into {} jobs, {} static slots claimed",
        thousands(carved),
        thousands(jobs_on_carved),
        thousands(static_claimed)
    );
    let mut owners: Vec<_> = per_owner.into_iter().collect();
    owners.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    let top: Vec<String> = owners
        .iter()
        .take(4)
        .map(|(o, (n, m))| format!("{o} {}/{}", thousands(*m), thousands(*n)))
        .collect();
    println!("  top owners  matched/submitted: {}", top.join(", "));
    println!();
    println!(
        "  {} job x slot pairs; {} job and {} slot autoclusters; {} clause instances",
        thousands(s.pairs),
        thousands(s.job_clusters as u64),
        thousands(s.slot_clusters as u64),
        thousands(s.instances as u64)
    );
    println!(
        "  made and read the pool in {made:.2} s; matched in {:.3} s on {threads} thread(s) ({:.1} ns per pair)",
        s.seconds,
        s.seconds * 1e9 / s.pairs.max(1) as f64
    );
    if let Some(dir) = &write {
        println!(
            "\n  pool written to {dir}/jobs.ads and {dir}/slots.ads; try:\n    classad match --jobs {dir}/jobs.ads --slots {dir}/slots.ads\n    classad analyze --jobs {dir}/jobs.ads --slots {dir}/slots.ads"
        );
    }
    ExitCode::SUCCESS
}
