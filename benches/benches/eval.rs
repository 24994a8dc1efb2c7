//! Evaluation speed: a job's `Requirements` evaluated against a machine
//! ad of the workload (`shared/workloads`), with MY = job and TARGET =
//! machine, as the negotiator does; time per evaluation.
//!
//! * `vm/requirements`: the compiled program on a reused `Vm`;
//! * `reference/requirements`: the same evaluations through the reference
//!   tree-walker of `crates/testkit` (the baseline, measured in the same
//!   run, so the two are a ratio).
//!
//! Both cycle over the same job/machine pairs (200 jobs x 10 machines).
//!
//! ```sh
//! cargo bench -p classad-benches --bench eval -- --quick
//! ```

#![allow(missing_docs)]

use classad::syntax::{AdExpr, AdReader, Format, ParseOptions, Parser};
use classad::{AdRef, Vm};
use classad_testkit::reference::{AdNode, RefOptions, Reference};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

fn ads(text: &str, limit: usize) -> Vec<AdExpr> {
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(text.as_bytes(), Format::Old, &parser)
        .take(limit)
        .map(|ad| ad.expect("the workload parses"))
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
    let machines = ads(&machines, 10);
    let jobs = ads(&jobs, 200);
    let requirements =
        classad::syntax::parse_expression("Requirements").expect("an attribute reference");
    let program = classad::compile(&requirements).expect("compiles");

    let compiled = |ads: &[AdExpr]| -> Vec<AdRef> {
        ads.iter()
            .map(|ad| classad::ad_from_ast(ad).expect("compiles"))
            .collect()
    };
    let (vm_jobs, vm_machines) = (compiled(&jobs), compiled(&machines));
    let vm_pairs: Vec<(&AdRef, &AdRef)> = vm_jobs
        .iter()
        .flat_map(|j| vm_machines.iter().map(move |m| (j, m)))
        .collect();
    let ref_jobs: Vec<_> = jobs.iter().map(AdNode::top).collect();
    let ref_machines: Vec<_> = machines.iter().map(AdNode::top).collect();

    let mut group = c.benchmark_group("eval");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    let mut vm = Vm::default();
    let mut i = 0;
    group.bench_function("vm/requirements", |b| {
        b.iter(|| {
            let (job, machine) = vm_pairs[i % vm_pairs.len()];
            i += 1;
            black_box(vm.evaluate_in_match(&program, job, machine))
        })
    });
    let mut reference = Reference::new(RefOptions::default());
    let ref_pairs: Vec<_> = ref_jobs
        .iter()
        .flat_map(|j| ref_machines.iter().map(move |m| (j, m)))
        .collect();
    let mut i = 0;
    group.bench_function("reference/requirements", |b| {
        b.iter(|| {
            let (job, machine) = ref_pairs[i % ref_pairs.len()];
            i += 1;
            black_box(
                reference
                    .evaluate_in_match(&requirements, job, machine)
                    .is_ok(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, eval);
criterion_main!(benches);
