//! Evaluation speed: a job's `Requirements` evaluated against a machine
//! ad of the workload (`shared/workloads`), with MY = job and TARGET =
//! machine, as the negotiator does; nanoseconds per evaluation.
//!
//! `vm/requirements`: the compiled program on a reused `Vm`, cycling over
//! job/machine pairs. The same pairs through the reference tree-walker
//! (crates/testkit) give the baseline in the same run.
//!
//! ```sh
//! cargo bench -p classad-benches --bench eval -- --quick
//! ```

#![allow(missing_docs)]

use classad::syntax::{AdReader, Format, ParseOptions, Parser};
use classad::vm::Symbol;
use classad::{AdRef, Vm};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

fn ads(text: &str, limit: usize) -> Vec<AdRef> {
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(text.as_bytes(), Format::Old, &parser)
        .take(limit)
        .map(|ad| classad::ad_from_ast(&ad.expect("the workload parses")).expect("compiles"))
        .collect()
}

fn eval(c: &mut Criterion) {
    let (machines, jobs) = match classad_benches::load_pool() {
        Ok(pool) => pool,
        Err(why) => {
            eprintln!("note: eval bench skipped: {why} (set CLASSAD_POOL_DIR)");
            return;
        }
    };
    let machines = ads(&machines, 200);
    let jobs = ads(&jobs, 200);
    let requirements = Symbol::new("Requirements");
    let pairs: Vec<(AdRef, AdRef)> = jobs
        .iter()
        .flat_map(|j| {
            machines
                .iter()
                .take(10)
                .map(move |m| (j.clone(), m.clone()))
        })
        .collect();

    let mut group = c.benchmark_group("eval");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    let mut vm = Vm::default();
    let mut i = 0;
    group.bench_function("vm/requirements", |b| {
        b.iter(|| {
            let (job, machine) = &pairs[i % pairs.len()];
            i += 1;
            black_box(vm.evaluate_attribute(job, &requirements, Some(machine)))
        })
    });
    group.finish();
}

criterion_group!(benches, eval);
criterion_main!(benches);
