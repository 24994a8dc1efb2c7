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

use classad::syntax::{
    AdReader, Format, ParseOptions, Parser, read_ads_parallel, unparse_ad, write_ad_json,
};
use classad_matchmaker::{generate, read_ad_text};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

/// The pool in old syntax (machines then jobs) and what it is called.
fn old_pool() -> (&'static str, String) {
    let (label, mut text, jobs) = match classad_benches::load_pool() {
        Ok((m, j)) => ("workload", m, j),
        Err(why) => {
            eprintln!("note: {why}; using the built-in generator's pool");
            (
                "generated",
                generate::slots(2000, 1),
                generate::jobs(2000, 1),
            )
        }
    };
    if !text.ends_with("\n\n") {
        text.push('\n');
    }
    text.push_str(&jobs);
    (label, text)
}

fn read(c: &mut Criterion) {
    let (label, old) = old_pool();
    let parser = Parser::new(ParseOptions::default());
    let ads: Vec<_> = AdReader::new(old.as_bytes(), Format::Old, &parser)
        .map(|ad| ad.expect("the pool parses"))
        .collect();
    let mut new = String::with_capacity(old.len());
    let mut json = String::with_capacity(old.len() * 5 / 4);
    json.push_str("[\n");
    for (i, ad) in ads.iter().enumerate() {
        new.push_str(&unparse_ad(ad));
        new.push('\n');
        if i > 0 {
            json.push_str(",\n");
        }
        write_ad_json(ad, true, &mut json);
        json.push('\n');
    }
    json.push_str("]\n");
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
