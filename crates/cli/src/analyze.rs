//! `classad analyze`: why jobs match what they match, as
//! `condor_q -better-analyze` explains it, with a suggestion.

use crate::match_cmd::load_pool;
use classad_matchmaker::{JobId, Options};
use std::process::ExitCode;

/// Why jobs match what they match, clause by clause, with a suggestion.
///
/// Without job ids: the jobs that get no slot in a negotiation cycle, at
/// most ten.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad analyze --jobs jobs.ads --slots slots.ads 17.3
  classad analyze --jobs jobs.ads --slots slots.ads",
    exit_status!()
))]
pub struct AnalyzeArgs {
    /// The job ads.
    #[arg(long, value_name = "FILE")]
    jobs: String,
    /// The slot (machine) ads.
    #[arg(long, visible_alias = "machines", value_name = "FILE")]
    slots: String,
    /// Not HTCondor's behaviour: once a clause of one ad has used up the
    /// evaluation budget (10 million steps) against N groups of the other
    /// side, take it as ERROR against the rest unevaluated, so that one
    /// hostile ad cannot stall the negotiation. Can change matches where
    /// the clause's cost depends on the other ad.
    #[arg(long, value_name = "N")]
    give_up_after_exhausted: Option<u8>,
    /// Jobs to explain, as CLUSTER.PROC.
    #[arg(value_name = "JOB_ID")]
    ids: Vec<JobId>,
    #[command(flatten)]
    limit: crate::args::InputLimit,
}

pub fn run(args: AnalyzeArgs) -> ExitCode {
    args.limit.apply();
    let (jobs, slots, ids) = (args.jobs, args.slots, args.ids);
    let (pool, _) = match load_pool(
        &jobs,
        &slots,
        Options {
            give_up_after_exhausted: args.give_up_after_exhausted,
            ..Options::default()
        },
        args.limit
            .parse_options(classad::syntax::ParseOptions::default()),
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("classad analyze: {e}");
            return ExitCode::from(1);
        }
    };
    let mut indices = Vec::new();
    for id in &ids {
        match pool.job_index(*id) {
            Some(j) => indices.push(j),
            None => eprintln!("classad analyze: no job {id} in {jobs}"),
        }
    }
    if ids.is_empty() {
        // Without ids: the jobs that match no unclaimed slot, at most ten.
        let negotiation = match pool.negotiate() {
            Ok(n) => n,
            Err(e) => {
                eprintln!("classad analyze: {e}");
                return ExitCode::from(1);
            }
        };
        let idle: Vec<usize> = negotiation
            .assignments
            .iter()
            .filter(|a| a.slot.is_none())
            .map(|a| a.job)
            .collect();
        println!(
            "{} of {} jobs got no slot in a negotiation cycle{}",
            idle.len(),
            pool.jobs().len(),
            if idle.len() > 10 {
                "; the first ten:"
            } else {
                ":"
            }
        );
        indices.extend(idle.into_iter().take(10));
    }
    for j in indices {
        let a = pool.analyze(j);
        println!("\nJob {}:", a.job);
        println!(
            "  {} slots: {} claimed or not Unclaimed",
            a.slots, a.claimed
        );
        println!("  {} rejected by the job's Requirements", a.rejected_by_job);
        println!(
            "  {} reject the job by their own Requirements",
            a.rejecting_job
        );
        println!(
            "  {} match both ways, {} of them unclaimed (available now)",
            a.matching, a.available
        );
        println!("  The job's Requirements, clause by clause (slots each clause alone rejects):");
        for c in &a.job_clauses {
            println!("    {:>7}  {}", c.rejects, c.clause);
        }
        if !a.slot_clauses.is_empty() {
            println!("  Slot clauses that reject this job (slots):");
            for c in a.slot_clauses.iter().take(8) {
                println!("    {:>7}  {}", c.rejects, c.clause);
            }
        }
        match &a.suggestion {
            Some((clause, n)) => {
                println!("  Suggestion: relaxing `{clause}` would open {n} more unclaimed slot(s).")
            }
            None => {
                println!("  Suggestion: no single job clause, relaxed, opens an unclaimed slot.")
            }
        }
    }
    ExitCode::SUCCESS
}
