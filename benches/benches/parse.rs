//! Parse throughput of the matchmaking workload (`shared/workloads`): the
//! generated machine and job ads in old syntax, and the same ads converted
//! to new syntax (one ad a line) and to JSON (as `condor_q -long:json`),
//! each read with `AdReader` from memory. Reported in bytes per second.
//!
//! The pool is read from `$CLASSAD_POOL_DIR` (`machines.ads`, `jobs.ads`)
//! or generated with `python3 ../shared/workloads/gen_pool.py` (default
//! 2000 machines and 2000 jobs) into a temporary directory.
//!
//! ```sh
//! cargo bench -p classad-benches --bench parse -- --quick
//! ```

#![allow(missing_docs)]

use classad::syntax::{AdReader, Format, ParseOptions, Parser};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

fn count_ads(text: &str, format: Format) -> usize {
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(text.as_bytes(), format, &parser)
        .map(|ad| black_box(ad.expect("the workload parses")).len())
        .sum()
}

fn parse(c: &mut Criterion) {
    let old = match classad_benches::load_pool() {
        Ok((machines, jobs)) => classad_benches::old_text(machines, &jobs),
        Err(why) => {
            eprintln!("note: parse bench skipped: {why} (set CLASSAD_POOL_DIR)");
            return;
        }
    };
    let classad_benches::Forms { ads, new, json } = classad_benches::forms(&old);
    let attributes: usize = ads.iter().map(|ad| ad.len()).sum();
    eprintln!(
        "pool: {} ads, {attributes} attributes; old {} bytes, new {} bytes, json {} bytes",
        ads.len(),
        old.len(),
        new.len(),
        json.len()
    );

    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    for (name, text, format) in [
        ("old", &old, Format::Old),
        ("new", &new, Format::New),
        ("json", &json, Format::Json),
    ] {
        assert_eq!(count_ads(text, format), attributes, "{name}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| count_ads(black_box(text), format)));
    }
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
