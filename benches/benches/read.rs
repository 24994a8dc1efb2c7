//! Reading the default pool (`../shared/workloads/gen_pool.py`, 2000
//! machines and 2000 jobs, 14.6 MB of old syntax) in its old, new and JSON
//! forms, on one and two threads, in bytes per second: `read` is the
//! syntax crate's parallel reader (`read_ads_parallel`), `read_compile`
//! is what `classad match` does with a file (`read_ad_text`: read, then
//! compile every ad). Issue 9's figures to compare with: HTCondor's
//! library parses the old form at about 67 MB/s; the goal is 350 MB/s
//! read + compile on both cores.
//!
//! Without the workload (`CLASSAD_POOL_DIR` unset and no `../shared`),
//! the built-in generator's pool of the same size is used instead, and
//! the names say so.
//!
//! ```sh
//! cargo bench -p classad-benches --bench read -- --quick
//! ```

#![allow(missing_docs)]

use classad::syntax::{ParseOptions, read_ads_parallel};
use classad_matchmaker::read_ad_text;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

fn read(c: &mut Criterion) {
    let (label, machines, jobs) = classad_benches::pool_or_generated();
    let old = classad_benches::old_text(machines, &jobs);
    let classad_benches::Forms { ads, new, json } = classad_benches::forms(&old);
    eprintln!(
        "{label} pool: {} ads; old {} bytes, new {} bytes, json {} bytes",
        ads.len(),
        old.len(),
        new.len(),
        json.len()
    );
    let expected = ads.len();
    drop(ads);

    let mut group = c.benchmark_group("read");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(8));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        for (form, text) in [("old", &old), ("new", &new), ("json", &json)] {
            group.throughput(Throughput::Bytes(text.len() as u64));
            let count = || {
                read_ads_parallel(black_box(text.as_bytes()), ParseOptions::default())
                    .ads
                    .iter()
                    .filter(|ad| ad.is_ok())
                    .count()
            };
            assert_eq!(pool.install(count), expected, "{form}");
            group.bench_function(format!("{label}/read/{form}/{threads}_threads"), |b| {
                b.iter(|| pool.install(count))
            });
            let compile = || read_ad_text(black_box(text.as_bytes()), form).ads.len();
            assert_eq!(pool.install(compile), expected, "{form}");
            group.bench_function(
                format!("{label}/read_compile/{form}/{threads}_threads"),
                |b| b.iter(|| pool.install(compile)),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
