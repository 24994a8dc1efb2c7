//! The match engine over whole pools: `all_pairs` on one thread on the
//! default workload of `../shared/workloads/gen_pool.py` (2000 x 2000,
//! the issue's figure of merit: time per job x slot pair), and one
//! negotiation cycle, on one and two threads. Without the workload
//! (`CLASSAD_POOL_DIR` unset and no `../shared`), the built-in generator's
//! pool of the same size is used instead, and the names say so.
//!
//! ```sh
//! cargo bench -p classad-benches --bench matchmaker -- --quick
//! ```

#![allow(missing_docs)]

use classad_matchmaker::{Options, Pool, read_ad_text};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;

fn pool(jobs: &str, slots: &str, threads: usize) -> Pool {
    let mut pool = Pool::new(Options {
        strict: false,
        threads,
        ..Options::default()
    });
    for (_, ad) in read_ad_text(jobs.as_bytes(), "jobs").ads {
        pool.add_job(ad).expect("a job id");
    }
    for (_, ad) in read_ad_text(slots.as_bytes(), "slots").ads {
        pool.add_slot(ad).expect("a slot name");
    }
    pool
}

fn matchmaker(c: &mut Criterion) {
    let (label, machines, jobs) = classad_benches::pool_or_generated();
    let mut group = c.benchmark_group("matchmaker");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for threads in [1, 2] {
        let p = pool(&jobs, &machines, threads);
        let pairs = p.jobs().len() as u64 * p.slots().len() as u64;
        group.throughput(Throughput::Elements(pairs));
        group.bench_function(format!("{label}/all_pairs/{threads}_threads"), |b| {
            b.iter(|| p.all_pairs().expect("matches").stats.matches)
        });
        group.bench_function(format!("{label}/negotiate/{threads}_threads"), |b| {
            b.iter(|| p.negotiate().expect("a cycle").stats.matches)
        });
    }
    group.finish();
}

criterion_group!(benches, matchmaker);
criterion_main!(benches);
