//! The engine against plain evaluation: a reference negotiator written
//! here from the rules of docs/matchmaking.md (every pair evaluated with
//! the VM, nothing cached), on generated pools and on small hand-made ones.

use classad::syntax::{Expr, ExprKind, Literal, Span};
use classad::vm::{AdValue, Attribute, Symbol, Value, Vm};
use classad::{AdRef, Program};
use classad_matchmaker::{
    Options, Policy, Pool, RankTuple, better, policy_number, rank_number, read_ad_text, truthy,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn ads(text: &str) -> Vec<AdRef> {
    let file = read_ad_text(text.as_bytes(), "<test>");
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    file.ads.into_iter().map(|(_, a)| a).collect()
}

/// `../shared` beside the repository, or `$CLASSAD_SHARED` (for a git
/// worktree elsewhere).
pub fn shared_dir() -> PathBuf {
    std::env::var_os("CLASSAD_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    )
}

/// A pool made by `../shared/workloads/gen_pool.py`, or None (with a
/// message) when the generator is not beside the repository.
pub fn generated(machines: usize, jobs: usize) -> Option<(Vec<AdRef>, Vec<AdRef>)> {
    let generator = shared_dir().join("workloads/gen_pool.py");
    if !generator.exists() {
        skipped(&format!("{} not found", generator.display()));
        return None;
    }
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "classad-matchmaker-{}-{machines}-{jobs}",
        std::process::id()
    ));
    let output = Command::new("python3")
        .arg(&generator)
        .arg("--out")
        .arg(&dir)
        .args([
            "--machines",
            &machines.to_string(),
            "--jobs",
            &jobs.to_string(),
        ])
        .output()
        .ok()?;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let slots = ads(&std::fs::read_to_string(dir.join("machines.ads")).unwrap());
    let job_ads = ads(&std::fs::read_to_string(dir.join("jobs.ads")).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    Some((job_ads, slots))
}

fn get(vm: &mut Vm, ad: &AdRef, name: &str, target: Option<&AdRef>) -> Value {
    vm.evaluate_attribute(ad, &Symbol::new(name), target)
}

fn plain_match(vm: &mut Vm, job: &AdRef, slot: &AdRef) -> bool {
    truthy(&get(vm, slot, "Requirements", Some(job)))
        && truthy(&get(vm, job, "Requirements", Some(slot)))
}

fn literal(value: Value) -> Attribute {
    let lit = match value {
        Value::Int(i) => Literal::Integer(i),
        Value::Real(r) => Literal::Real(r),
        _ => Literal::Undefined,
    };
    let expr = Expr {
        kind: ExprKind::Literal(lit),
        span: Span::default(),
    };
    let program = classad::compile(&expr).unwrap();
    Attribute {
        name: classad::syntax::Name::new("x"),
        source: Arc::new(expr),
        program: Arc::new(program),
    }
}

fn carve(vm: &mut Vm, slot: &AdRef, job: &AdRef) -> AdRef {
    let mut body = (*slot.body).clone();
    for (have, want) in [
        ("Cpus", "RequestCpus"),
        ("Memory", "RequestMemory"),
        ("Disk", "RequestDisk"),
    ] {
        let left = match (
            get(vm, slot, have, Some(job)),
            get(vm, job, want, Some(slot)),
        ) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a - b),
            (Value::Int(a), Value::Bool(b)) => Value::Int(a - i64::from(b)),
            (a @ (Value::Int(_) | Value::Real(_)), b) => match (a.as_number(), b.as_number()) {
                (Some(x), Some(y)) => Value::Real(x - y),
                _ => continue,
            },
            _ => continue,
        };
        let mut attribute = literal(left);
        attribute.name = body
            .get(have)
            .map_or(classad::syntax::Name::new(have), |a| a.name.clone());
        body.insert(attribute);
    }
    AdValue::top_level(Arc::new(body))
}

/// The rules, plainly: jobs in order, each pair evaluated, best by the
/// rank tuple with ties to the earlier slot.
fn reference(
    jobs: &[AdRef],
    slots: &[AdRef],
    policy: (Option<&Program>, Option<&Program>),
    strict: bool,
) -> Vec<(usize, Option<(usize, RankTuple)>)> {
    let mut vm = Vm::new(classad::Options {
        strict,
        ..Default::default()
    });
    let int = |vm: &mut Vm, ad: &AdRef, n: &str| match get(vm, ad, n, None) {
        Value::Int(i) => i,
        _ => 0,
    };
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&j| {
        let ad = &jobs[j];
        (
            -int(&mut vm, ad, "JobPrio"),
            int(&mut vm, ad, "ClusterId"),
            int(&mut vm, ad, "ProcId"),
        )
    });
    let mut current: Vec<AdRef> = slots.to_vec();
    let mut open: Vec<bool> = slots
        .iter()
        .map(|s| matches!(get(&mut vm, s, "State", None), Value::Str(x) if &*x == b"Unclaimed"))
        .collect();
    let mut out = Vec::new();
    for j in order {
        let job = &jobs[j];
        let mut best: Option<(usize, RankTuple)> = None;
        for s in 0..current.len() {
            if !open[s] || !plain_match(&mut vm, job, &current[s]) {
                continue;
            }
            let pre = policy
                .0
                .map_or(classad_matchmaker::LOWEST_POLICY_RANK, |p| {
                    policy_number(&vm.evaluate_in_match(p, &current[s], job))
                });
            let post = policy
                .1
                .map_or(classad_matchmaker::LOWEST_POLICY_RANK, |p| {
                    policy_number(&vm.evaluate_in_match(p, &current[s], job))
                });
            let rank = rank_number(&get(&mut vm, job, "Rank", Some(&current[s])));
            let t = (pre, rank, post);
            if best.is_none_or(|(_, b)| better(&t, &b)) {
                best = Some((s, t));
            }
        }
        if let Some((s, _)) = best {
            if truthy(&get(&mut vm, &current[s], "PartitionableSlot", None)) {
                current[s] = carve(&mut vm, &current[s], job);
            } else {
                open[s] = false;
            }
        }
        out.push((j, best));
    }
    out
}

fn engine(jobs: &[AdRef], slots: &[AdRef], policy: Policy, threads: usize) -> Pool {
    engine_with(
        jobs,
        slots,
        policy,
        Options {
            strict: false,
            threads,
            ..Options::default()
        },
    )
}

fn engine_with(jobs: &[AdRef], slots: &[AdRef], policy: Policy, options: Options) -> Pool {
    let mut pool = Pool::new(options);
    pool.set_policy(policy);
    for j in jobs {
        pool.add_job(j.clone()).unwrap();
    }
    for s in slots {
        pool.add_slot(s.clone()).unwrap();
    }
    pool
}

fn check_negotiation(jobs: &[AdRef], slots: &[AdRef], policy_text: &str) {
    check_negotiation_with(jobs, slots, policy_text, false);
}

fn check_negotiation_with(jobs: &[AdRef], slots: &[AdRef], policy_text: &str, strict: bool) {
    let policy = Policy::parse(policy_text).unwrap();
    let pre = policy.pre.as_ref().map(|e| classad::compile(e).unwrap());
    let post = policy.post.as_ref().map(|e| classad::compile(e).unwrap());
    let want = reference(jobs, slots, (pre.as_ref(), post.as_ref()), strict);
    for threads in [1, 2] {
        let pool = engine_with(
            jobs,
            slots,
            policy.clone(),
            Options {
                strict,
                threads,
                ..Options::default()
            },
        );
        let got = pool.negotiate().unwrap();
        assert_eq!(got.assignments.len(), want.len());
        for (a, (j, w)) in got.assignments.iter().zip(&want) {
            assert_eq!(a.job, *j);
            let w_slot = w.map(|(s, _)| s);
            assert_eq!(a.slot, w_slot, "job {j} (threads {threads})");
            if let (Some(t), Some((_, u))) = (a.ranks, w) {
                assert_eq!(format!("{t:?}"), format!("{u:?}"), "job {j}");
            }
        }
    }
}

fn check_all_pairs(jobs: &[AdRef], slots: &[AdRef]) {
    let pool = engine(jobs, slots, Policy::default(), 2);
    let got = pool.all_pairs().unwrap();
    let mut vm = Vm::default();
    for (j, job) in jobs.iter().enumerate() {
        let mut want: Vec<(u32, f64)> = Vec::new();
        for (s, slot) in slots.iter().enumerate() {
            if plain_match(&mut vm, job, slot) {
                want.push((
                    s as u32,
                    rank_number(&get(&mut vm, job, "Rank", Some(slot))),
                ));
            }
        }
        assert_eq!(
            format!("{:?}", got.of_job(j)),
            format!("{want:?}"),
            "job {j}"
        );
    }
}

#[test]
fn negotiation_of_a_generated_300_by_300_pool_equals_the_reference() {
    let Some((jobs, slots)) = generated(300, 300) else {
        return;
    };
    check_negotiation(&jobs, &slots, "");
    check_negotiation(
        &jobs,
        &slots,
        "NEGOTIATOR_PRE_JOB_RANK = TARGET.JobPrio * 10 + (MY.Memory > 100000)\nNEGOTIATOR_POST_JOB_RANK = ifThenElse(TARGET.Owner =?= \"x\", \"s\", -MY.LoadAvg)\n",
    );
}

#[test]
fn all_pairs_of_a_generated_300_by_300_pool_equal_plain_evaluation() {
    let Some((jobs, slots)) = generated(300, 300) else {
        return;
    };
    check_all_pairs(&jobs, &slots);
}

const SMALL_SLOTS: &str = r#"
[ Name = "p1"; State = "Unclaimed"; PartitionableSlot = true; Cpus = 4; Memory = 4096; Disk = 1000;
  Start = TARGET.Owner != "mallory"; WithinResourceLimits = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory;
  Requirements = START && WithinResourceLimits; Mips = 10 ]
[ Name = "s1"; State = "Unclaimed"; Cpus = 1; Memory = 2048; Disk = 1000; Requirements = 1; Mips = 10 ]
[ Name = "s2"; State = "Claimed"; Cpus = 8; Memory = 8192; Disk = 1000; Requirements = true; Mips = 99 ]
[ Name = "s3"; State = "Unclaimed"; Cpus = 2; Memory = 1024; Disk = 1000; Requirements = TARGET.RequestMemory <= Memory && Requirements; Mips = 5 ]
[ Name = "s4"; State = "Unclaimed"; Cpus = 2; Memory = 1024; Disk = 1000; Requirements = 0.5; Mips = -0.0 ]
[ Name = "s5"; State = "Unclaimed"; Cpus = 2; Memory = 1024; Disk = 1000; Requirements = TARGET.Kind == "gpu" && undefined_thing; Mips = 5 ]
[ Name = "s6"; State = "Unclaimed"; Cpus = 2; Memory = 1024; Disk = 1000; Requirements = eval("TARGET.RequestCpus") < 3; Mips = 7 ]
"#;

const SMALL_JOBS: &str = r#"
[ ClusterId = 1; ProcId = 0; Owner = "alice"; RequestCpus = 2; RequestMemory = 1024; RequestDisk = 10; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Mips ]
[ ClusterId = 1; ProcId = 1; Owner = "alice"; RequestCpus = 2; RequestMemory = 1024; RequestDisk = 10; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Mips ]
[ ClusterId = 2; ProcId = 0; Owner = "bob"; JobPrio = 5; RequestCpus = 1; RequestMemory = 512; RequestDisk = 10; Requirements = true; Rank = TARGET.Mips > 6 ]
[ ClusterId = 3; ProcId = 0; Owner = "mallory"; RequestCpus = 1; RequestMemory = 512; RequestDisk = 10; Requirements = Rank >= 0; Rank = ifThenElse(isUndefined(Rank), 1, 2) ]
[ ClusterId = 1; ProcId = 2; Owner = "alice"; RequestCpus = 2; RequestMemory = 1024; RequestDisk = 10; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Mips ]
[ ClusterId = 4; ProcId = 0; Owner = "carol"; RequestCpus = 1; RequestMemory = 100; Requirements = TARGET.Name != "s1" && MY.Owner == "carol"; Rank = "high" ]
[ ClusterId = 5; ProcId = 0; Owner = "dave"; RequestCpus = 1; RequestMemory = 100; Rank = 1 ]
"#;

#[test]
fn small_pool_edge_cases_equal_the_reference() {
    // Numbers as Requirements, self-reference, a function that reads
    // names at run time, -0.0 ranks, a job without Requirements,
    // carving, claimed slots, priorities.
    let (jobs, slots) = (ads(SMALL_JOBS), ads(SMALL_SLOTS));
    check_negotiation(&jobs, &slots, "");
    check_negotiation(&jobs, &slots, "NEGOTIATOR_PRE_JOB_RANK = MY.Cpus\n");
    check_negotiation_with(&jobs, &slots, "NEGOTIATOR_POST_JOB_RANK = Mips\n", true);
    check_all_pairs(&jobs, &slots);
}

#[test]
fn candidates_are_sorted_best_first_and_match() {
    let (jobs, slots) = (ads(SMALL_JOBS), ads(SMALL_SLOTS));
    let pool = engine(&jobs, &slots, Policy::default(), 1);
    let list = pool.candidates(0).unwrap();
    let names: Vec<&str> = list
        .iter()
        .map(|c| pool.slots()[c.slot].name.as_str())
        .collect();
    // Job 1.0 wants Memory >= 1024 and ranks by Mips (ties to the earlier
    // slot); s2 is claimed; s3's Requirements refers to itself, which is
    // UNDEFINED inside it, so s3 never matches; s5 is UNDEFINED too.
    assert_eq!(names, ["p1", "s1", "s6", "s4"]);
}

#[test]
fn analysis_counts_clauses_and_suggests_one() {
    let (jobs, slots) = (ads(SMALL_JOBS), ads(SMALL_SLOTS));
    let pool = engine(&jobs, &slots, Policy::default(), 1);
    let a = pool.analyze(5); // 4.0: Name != "s1" && MY.Owner == "carol"
    assert_eq!(a.slots, 7);
    assert_eq!(a.claimed, 1);
    assert_eq!(a.job_clauses.len(), 2);
    assert_eq!(a.job_clauses[0].rejects, 1);
    assert_eq!(a.job_clauses[1].rejects, 0);
    assert_eq!(a.suggestion, Some(("TARGET.Name != \"s1\"".to_string(), 1)));
}

fn generated_dir(machines: usize, jobs: usize) -> Option<PathBuf> {
    let generator = shared_dir().join("workloads/gen_pool.py");
    if !generator.exists() {
        skipped(&format!("{} not found", generator.display()));
        return None;
    }
    let dir = std::env::temp_dir().join(format!(
        "classad-matchmaker-dir-{}-{machines}-{jobs}",
        std::process::id()
    ));
    let output = Command::new("python3")
        .arg(&generator)
        .arg("--out")
        .arg(&dir)
        .args([
            "--machines",
            &machines.to_string(),
            "--jobs",
            &jobs.to_string(),
        ])
        .output()
        .ok()?;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(dir)
}

fn pool_from(dir: &Path, threads: usize) -> Pool {
    let jobs = ads(&std::fs::read_to_string(dir.join("jobs.ads")).unwrap());
    let slots = ads(&std::fs::read_to_string(dir.join("machines.ads")).unwrap());
    engine(&jobs, &slots, Policy::default(), threads)
}

/// The default workload's checksums, from HTCondor's C++ library and its
/// Python bindings (../shared/workloads/README.md), on 1 and 2 threads.
#[test]
fn all_pairs_of_the_default_pool_give_htcondor_checksums_on_one_and_two_threads() {
    let Some(dir) = generated_dir(2000, 2000) else {
        return;
    };
    for threads in [1, 2] {
        let pool = pool_from(&dir, threads);
        let (matches, rank_sum, hash) = pool.all_pairs().unwrap().checksums();
        assert_eq!(
            format!("matches={matches} rank_sum={rank_sum:.6} best_hash={hash:016x}"),
            "matches=945874 rank_sum=399054715977.846191 best_hash=7b42a509c299d6d3",
            "threads {threads}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pair set of a 200 x 200 pool equals the one HTCondor's library
/// (classad2, with htcondor2 loaded for stringListMember) finds.
#[test]
fn all_pairs_of_a_200_by_200_pool_equal_htcondors_pair_set() {
    let setup = shared_dir().join("oracle/setup.sh");
    if !setup.exists() {
        skipped(&format!("{} not found", setup.display()));
        return;
    }
    let Some(dir) = generated_dir(200, 200) else {
        return;
    };
    let python = Command::new("sh").arg(&setup).output().ok();
    let python = python
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let Some(python) = python.filter(|p| !p.is_empty()) else {
        skipped("the oracle's python is not available");
        return;
    };
    let script = "import sys, htcondor2, classad2 as c\n\
        jobs = list(c.parseAds(open(sys.argv[1]).read()))\n\
        slots = list(c.parseAds(open(sys.argv[2]).read()))\n\
        for j, job in enumerate(jobs):\n\
        \x20   for s, slot in enumerate(slots):\n\
        \x20       if job.symmetricMatch(slot): print(j, s)\n";
    let output = Command::new(&python)
        .args(["-c", script])
        .arg(dir.join("jobs.ads"))
        .arg(dir.join("machines.ads"))
        .output()
        .expect("oracle python runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let want = String::from_utf8_lossy(&output.stdout).into_owned();
    let pool = pool_from(&dir, 2);
    let pairs = pool.all_pairs().unwrap();
    let mut got = String::new();
    for j in 0..pool.jobs().len() {
        for &(s, _) in pairs.of_job(j) {
            got.push_str(&format!("{j} {s}\n"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        got.lines().count(),
        11543,
        "the README's count for 200 x 200"
    );
    assert!(got == want, "pair sets differ from HTCondor's");
}

#[test]
fn strict_mode_does_not_fall_back_to_target() {
    // `Memory` is not in the job: HTCondor's default reads the slot's,
    // strict evaluation makes it UNDEFINED.
    let jobs = ads("[ ClusterId = 1; Requirements = Memory >= 1024 ]");
    let slots = ads("[ Name = \"s\"; State = \"Unclaimed\"; Memory = 2048; Requirements = true ]");
    for (strict, want) in [(false, Some(0)), (true, None)] {
        let mut pool = Pool::new(Options {
            strict,
            threads: 1,
            ..Options::default()
        });
        pool.add_job(jobs[0].clone()).unwrap();
        pool.add_slot(slots[0].clone()).unwrap();
        let cycle = pool.negotiate().unwrap();
        assert_eq!(cycle.assignments[0].slot, want, "strict {strict}");
        let pairs = pool.all_pairs().unwrap();
        assert_eq!(pairs.of_job(0).len(), usize::from(!strict));
    }
}

#[test]
fn pools_take_and_give_back_ads_and_policies_report_bad_lines() {
    let (jobs, slots) = (ads(SMALL_JOBS), ads(SMALL_SLOTS));
    let mut pool = engine(&jobs, &slots, Policy::default(), 1);
    assert!(pool.remove_job("1.1".parse().unwrap()));
    assert!(!pool.remove_job("9.9".parse().unwrap()));
    assert!(pool.remove_slot("s6"));
    assert_eq!((pool.jobs().len(), pool.slots().len()), (6, 6));
    assert!(pool.negotiate().unwrap().assignments.len() == 6);
    assert!(
        Pool::default()
            .add_job(ads("[ Owner = \"x\" ]")[0].clone())
            .unwrap_err()
            .contains("ClusterId")
    );
    assert!(
        Pool::default()
            .add_slot(ads("[ Cpus = 1 ]")[0].clone())
            .unwrap_err()
            .contains("Name")
    );
    let err = Policy::parse("# c\nNEGOTIATOR_PRE_JOB_RANK = (\n").unwrap_err();
    assert!(err.starts_with("line 2"), "{err}");
    assert!(
        Policy::parse("OTHER = 1")
            .unwrap_err()
            .contains("unknown name")
    );
    assert!(
        Policy::parse("NEGOTIATOR_POST_JOB_RANK = MY.Mips\n")
            .unwrap()
            .post
            .is_some()
    );
}

const ODD_SLOTS: &str = r#"
[ Name = "h1"; State = "Unclaimed"; target = 3; Requirements = target == 3; Mips = 1 ]
[ Name = "h2"; State = "Unclaimed"; Requirements = a; a = b; b = a; Mips = 2 ]
[ Name = "h3"; State = "Unclaimed"; Requirements = TARGET["Owner"] == "alice"; Mips = 3 ]
[ Name = "h4"; State = "Unclaimed"; Requirements = [x = TARGET.RequestCpus].x <= 2; Mips = 4 ]
[ Name = "h5"; State = "Unclaimed"; Requirements = MY[strcat("Na", "me")] == "h5"; Mips = 5 ]
[ Name = "h6"; State = "Unclaimed"; Requirements = eval("TARGET.Owner") == "bob" || Mips > 5; Mips = 6 ]
[ Name = "h7"; State = "Unclaimed"; Requirements = {TARGET.RequestCpus, 2}[0] == 1 && Start; Start = Mips > 1; Mips = 7 ]
[ Name = "h8"; State = "Unclaimed"; target = [Arch = "X86_64"]; Requirements = TARGET.Arch == "X86_64"; Mips = 8 ]
[ Name = "h9"; State = "Unclaimed"; Requirements = TARGET.Arch == "X86_64"; Mips = 9 ]
"#;

const ODD_JOBS: &str = r#"
[ ClusterId = 7; Owner = "alice"; RequestCpus = 1; Requirements = TARGET.Name isnt undefined && R2; R2 = size(TARGET.Name) > 0; Rank = TARGET.Mips ]
[ ClusterId = 8; Owner = "bob"; RequestCpus = 2; Requirements = true; Rank = size(unparse(Requirements)) + TARGET.Mips ]
[ ClusterId = 9; Owner = "carol"; RequestCpus = 1; Requirements = MY.Owner == "carol" && Requirements; Rank = 1 ]
[ ClusterId = 10; Owner = "dave"; RequestCpus = 1; Requirements = TARGET.Mips > RequestCpus; Rank = TARGET ]
[ ClusterId = 11; Owner = "erin"; RequestCpus = 1; my = 2; Requirements = my == 2 && TARGET.Mips > 3; Rank = TARGET.Mips ]
[ ClusterId = 12; Owner = "erin"; RequestCpus = 1; Requirements = TARGET.Mips > 3; Rank = TARGET.Mips ]
[ ClusterId = 13; Owner = "frank"; RequestCpus = 1; Requirements = parent.Owner == "frank" && toplevel.RequestCpus == 1; Rank = .RequestCpus ]
"#;

#[test]
fn unanalyzable_expressions_still_give_the_reference_answers() {
    // Shadowed special names, cycles, subscripts by computed names, nested
    // ads, eval, lists, whole ads as values, self-references.
    let (jobs, slots) = (ads(ODD_JOBS), ads(ODD_SLOTS));
    check_negotiation(&jobs, &slots, "");
    check_negotiation(
        &jobs,
        &slots,
        "NEGOTIATOR_PRE_JOB_RANK = TARGET.RequestCpus\n",
    );
    // A split comparison in a slot that defines `target` (h8).
    check_negotiation(
        &jobs,
        &slots,
        "NEGOTIATOR_POST_JOB_RANK = TARGET.Arch == \"X86_64\"\n",
    );
    check_all_pairs(&jobs, &slots);
}

#[test]
fn built_in_generator_pools_equal_the_reference() {
    // Runs without ../shared: the demo's own shapes, three seeds.
    for seed in 1..=3 {
        let jobs = ads(&classad_matchmaker::generate::jobs(250, seed));
        let slots = ads(&classad_matchmaker::generate::slots(250, seed));
        check_negotiation(&jobs, &slots, "");
        check_all_pairs(&jobs, &slots);
    }
}

#[test]
fn another_seed_of_the_workload_generator_equals_the_reference() {
    let generator = shared_dir().join("workloads/gen_pool.py");
    if !generator.exists() {
        skipped(&format!("{} not found", generator.display()));
        return;
    }
    let dir = std::env::temp_dir().join(format!("classad-matchmaker-seed-{}", std::process::id()));
    let ok = Command::new("python3")
        .arg(&generator)
        .arg("--out")
        .arg(&dir)
        .args(["--machines", "250", "--jobs", "250", "--seed", "7"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "gen_pool.py --seed 7");
    let slots = ads(&std::fs::read_to_string(dir.join("machines.ads")).unwrap());
    let jobs = ads(&std::fs::read_to_string(dir.join("jobs.ads")).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    check_negotiation(
        &jobs,
        &slots,
        "NEGOTIATOR_PRE_JOB_RANK = MY.Cpus - TARGET.RequestCpus\n",
    );
    check_all_pairs(&jobs, &slots);
}

/// Many more jobs than slots: partitionable slots are carved again and
/// again, jobs of one autocluster come back after carvings behind their
/// place in the candidate order, and slots run out. Covers the cycle's
/// shortcuts: candidates walked in a shared Rank order with carved slots
/// checked only when they come up (Rank and policy not reading Cpus,
/// Memory or Disk), carved slots re-ranked when they do, and a policy
/// of either kind.
#[test]
fn negotiation_with_jobs_outnumbering_slots_equals_the_reference() {
    let built_in = (
        ads(&classad_matchmaker::generate::jobs(900, 5)),
        ads(&classad_matchmaker::generate::slots(40, 5)),
    );
    let mut pools = vec![built_in];
    if let Some(dir) = generated_dir(60, 1200) {
        let jobs = ads(&std::fs::read_to_string(dir.join("jobs.ads")).unwrap());
        let slots = ads(&std::fs::read_to_string(dir.join("machines.ads")).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
        pools.push((jobs, slots));
    }
    for (jobs, slots) in &pools {
        check_negotiation(jobs, slots, "");
        // A policy that carving does not move, and one that it does.
        check_negotiation(
            jobs,
            slots,
            "NEGOTIATOR_PRE_JOB_RANK = TARGET.JobPrio - (MY.LoadAvg > 0.5)\n",
        );
        check_negotiation(jobs, slots, "NEGOTIATOR_POST_JOB_RANK = MY.Memory\n");
    }
}

/// Jobs that want small slots: carving makes a slot match that did not,
/// after the job's autocluster has already looked past it.
const SHRINKING_SLOTS: &str = r#"
[ Name = "big"; State = "Unclaimed"; PartitionableSlot = true; Cpus = 8; Memory = 4096; Disk = 1000; Mips = 10; Requirements = TARGET.RequestMemory <= MY.Memory ]
[ Name = "small"; State = "Unclaimed"; PartitionableSlot = true; Cpus = 8; Memory = 2000; Disk = 1000; Mips = 5; Requirements = TARGET.RequestMemory <= MY.Memory ]
[ Name = "static"; State = "Unclaimed"; Cpus = 1; Memory = 1000; Disk = 1000; Mips = 1; Requirements = true ]
"#;

const SHRINKING_JOBS: &str = r#"
[ ClusterId = 1; ProcId = 0; JobPrio = 10; RequestCpus = 1; RequestMemory = 100; Requirements = TARGET.Memory <= 3000; Rank = TARGET.Mips ]
[ ClusterId = 2; ProcId = 0; JobPrio = 5; RequestCpus = 1; RequestMemory = 1500; Requirements = true; Rank = TARGET.Mips ]
[ ClusterId = 1; ProcId = 1; JobPrio = 0; RequestCpus = 1; RequestMemory = 100; Requirements = TARGET.Memory <= 3000; Rank = TARGET.Mips ]
[ ClusterId = 1; ProcId = 2; JobPrio = 0; RequestCpus = 1; RequestMemory = 100; Requirements = TARGET.Memory <= 3000; Rank = TARGET.Mips ]
[ ClusterId = 3; ProcId = 0; JobPrio = 7; RequestCpus = 1; RequestMemory = 100; Requirements = TARGET.Memory <= 3000; Rank = TARGET.Memory ]
[ ClusterId = 3; ProcId = 1; JobPrio = 0; RequestCpus = 1; RequestMemory = 100; Requirements = TARGET.Memory <= 3000; Rank = TARGET.Memory ]
[ ClusterId = 4; ProcId = 0; JobPrio = 0; RequestCpus = 1; RequestMemory = 3000; Requirements = true; Rank = 0 ]
[ ClusterId = 4; ProcId = 1; JobPrio = 0; RequestCpus = 1; RequestMemory = 3000; Requirements = true; Rank = 0 ]
"#;

#[test]
fn a_slot_carved_into_matching_is_found_again() {
    let (jobs, slots) = (ads(SHRINKING_JOBS), ads(SHRINKING_SLOTS));
    check_negotiation(&jobs, &slots, "");
    check_negotiation(&jobs, &slots, "NEGOTIATOR_PRE_JOB_RANK = MY.Mips\n");
    check_negotiation(&jobs, &slots, "NEGOTIATOR_PRE_JOB_RANK = MY.Memory\n");
    // Job 1.1 comes after 2.0 carved "big" down to 2596: it takes "big".
    let pool = engine(&jobs, &slots, Policy::default(), 1);
    let cycle = pool.negotiate().unwrap();
    let got: Vec<String> = cycle
        .assignments
        .iter()
        .map(|a| {
            let job = pool.jobs()[a.job].id;
            let slot = a.slot.map_or("-", |s| pool.slots()[s].name.as_str());
            format!("{job} {slot}")
        })
        .collect();
    assert_eq!(got[..3], ["1.0 small", "3.0 small", "2.0 big"]);
    assert_eq!(got[3], "1.1 big");
}

/// Enough machines that job clauses only the VM answers (`regexp`,
/// `stringListMember` over `TARGET.Machine`) are left to the match matrix,
/// which evaluates them on the slots the other clauses accept.
#[test]
fn negotiation_with_clauses_left_to_the_matrix_equals_the_reference() {
    let Some(dir) = generated_dir(1500, 250) else {
        return;
    };
    let jobs = ads(&std::fs::read_to_string(dir.join("jobs.ads")).unwrap());
    let slots = ads(&std::fs::read_to_string(dir.join("machines.ads")).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    check_negotiation(&jobs, &slots, "");
    check_all_pairs(&jobs, &slots);
}

/// Says on standard error, past the test harness's capture (so that a
/// plain `cargo test` shows it), which check did not run and why: a green
/// run without `../shared` must not pass for a conformance run.
fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED (matchmaker engine test): {why}");
}

/// One job whose Requirements need 2^40 steps against every slot
/// (`h1 = h0 + h0 + Memory`, ..., `Requirements = h40 > 0`: `Memory` is
/// the slot's, so nothing is computed once for the job) used to cost the
/// VM's whole budget (10 million steps, 0.2 s) against each slot group:
/// 661 groups of a generated pool took 116 s to negotiate and `analyze`
/// 0.35 s a slot. A clause that has used up its budget twice is now ERROR
/// against the remaining groups, so the job costs a few budgets in all,
/// and the other jobs are matched as before.
/// A job whose Requirements costs 2^40 steps against every slot (each
/// `h` doubles the work and reads the slot's `Memory`).
fn costly_job(clause: &str) -> String {
    let mut job = String::from(
        "[ ClusterId = 9; ProcId = 0; Owner = \"evil\"; RequestCpus = 1; RequestMemory = 1; h0 = 1; ",
    );
    for i in 1..=40 {
        job.push_str(&format!("h{i} = h{p} + h{p} + Memory; ", p = i - 1));
    }
    job.push_str(&format!("Requirements = {clause}; Rank = 0 ]\n"));
    job
}

fn slots_with_memory(count: usize) -> String {
    (0..count)
        .map(|i| {
            format!(
                "[ Name = \"s{i}\"; State = \"Unclaimed\"; Cpus = 1; Memory = {}; Disk = 10; Requirements = true ]\n",
                100 + i
            )
        })
        .collect()
}

#[test]
fn a_clause_that_exhausts_its_budget_is_given_up_only_when_asked() {
    let mut job = costly_job("h40 > 0");
    job.push_str("[ ClusterId = 1; ProcId = 0; Owner = \"alice\"; RequestCpus = 1; RequestMemory = 1; Requirements = TARGET.Memory >= 150; Rank = TARGET.Memory ]\n");
    let (jobs, slots) = (ads(&job), ads(&slots_with_memory(100)));
    let pool = engine_with(
        &jobs,
        &slots,
        Policy::default(),
        Options {
            give_up_after_exhausted: Some(2),
            ..Options::default()
        },
    );
    let negotiation = pool.negotiate().unwrap();
    let slot_of = |j: usize| {
        negotiation
            .assignments
            .iter()
            .find(|a| a.job == j)
            .and_then(|a| a.slot)
    };
    assert_eq!(slot_of(0), None);
    assert_eq!(slot_of(1), Some(99), "alice gets the slot of highest rank");
    assert_eq!(pool.analyze(0).rejected_by_job, 100);
}

/// By default every pair is evaluated, as HTCondor does: a clause that
/// runs out of budget against most slots still matches the slot where it
/// is cheap, whatever order the groups are evaluated in.
#[test]
fn a_clause_that_exhausts_its_budget_is_still_evaluated_against_every_slot_by_default() {
    let job = costly_job("TARGET.Name == \"s3\" || h40 > 0");
    let (jobs, slots) = (ads(&job), ads(&slots_with_memory(4)));
    let pool = engine(&jobs, &slots, Policy::default(), 1);
    let negotiation = pool.negotiate().unwrap();
    assert_eq!(negotiation.assignments[0].slot, Some(3));
    assert_eq!(pool.analyze(0).rejected_by_job, 3);
}

/// As `check_all_pairs`, in either scoping mode, on 1 and 2 threads.
fn check_all_pairs_with(jobs: &[AdRef], slots: &[AdRef], strict: bool) {
    let mut vm = Vm::new(classad::Options {
        strict,
        ..Default::default()
    });
    let want: Vec<String> = jobs
        .iter()
        .map(|job| {
            let mut list: Vec<(u32, f64)> = Vec::new();
            for (s, slot) in slots.iter().enumerate() {
                if plain_match(&mut vm, job, slot) {
                    let rank = rank_number(&get(&mut vm, job, "Rank", Some(slot)));
                    list.push((s as u32, rank));
                }
            }
            format!("{list:?}")
        })
        .collect();
    for threads in [1, 2] {
        let pool = engine_with(
            jobs,
            slots,
            Policy::default(),
            Options {
                strict,
                threads,
                ..Options::default()
            },
        );
        let got = pool.all_pairs().unwrap();
        for (j, want) in want.iter().enumerate() {
            assert_eq!(
                &format!("{:?}", got.of_job(j)),
                want,
                "job {j} (strict {strict}, threads {threads})"
            );
        }
    }
}

fn check_both_modes(jobs: &[AdRef], slots: &[AdRef]) {
    for strict in [false, true] {
        check_all_pairs_with(jobs, slots, strict);
        check_negotiation_with(jobs, slots, "", strict);
    }
}

/// HTCondor 10+ GPU slots and jobs (`countMatches(MY.RequireGPUs,
/// TARGET.AvailableGPUs)`), and `evalInEachContext`: the names the
/// expression reads inside the list's ads can be found in the nested ad,
/// in the slot around it or in the job, so the clause's groups count them
/// on both sides. Jobs that differ only in an attribute the nested
/// evaluation reads as `TARGET.MinCap` (the job, seen from the slot's
/// nested ad) must not be grouped together, nor slots that differ only in
/// a top-level attribute the nested evaluation falls back to
/// (`MinCapability`, `Boost`).
const GPU_SLOTS: &str = r#"
[ Name = "g1"; State = "Unclaimed"; Memory = 8192; GPUs_GPU_0 = [ Id = "GPU-0"; Capability = 8.0; GlobalMemoryMb = 40000 ]; GPUs_GPU_1 = [ Id = "GPU-1"; Capability = 8.0; GlobalMemoryMb = 16000 ]; AvailableGPUs = { GPUs_GPU_0, GPUs_GPU_1 }; MinCapability = 7; Boost = 0; Requirements = TARGET.RequestMemory <= MY.Memory ]
[ Name = "g2"; State = "Unclaimed"; Memory = 8192; GPUs_GPU_0 = [ Id = "GPU-0"; Capability = 8.0; GlobalMemoryMb = 40000 ]; GPUs_GPU_1 = [ Id = "GPU-1"; Capability = 8.0; GlobalMemoryMb = 16000 ]; AvailableGPUs = { GPUs_GPU_0, GPUs_GPU_1 }; MinCapability = 9; Boost = 2; Requirements = TARGET.RequestMemory <= MY.Memory ]
[ Name = "g3"; State = "Unclaimed"; Memory = 8192; GPUs_GPU_0 = [ Id = "GPU-0"; Capability = 7.0; GlobalMemoryMb = 40000 ]; AvailableGPUs = { GPUs_GPU_0 }; MinCapability = 7; Boost = 0; Requirements = TARGET.RequestMemory <= MY.Memory ]
[ Name = "g4"; State = "Unclaimed"; Memory = 8192; AvailableGPUs = undefined; Requirements = countMatches(MY.Fits, TARGET.Tokens) > 0; Fits = Size <= Memory; MinCapability = 7 ]
[ Name = "g5"; State = "Unclaimed"; Memory = 8192; AvailableGPUs = { [ Capability = "8" ], 3, undefined }; MinCapability = 7; Requirements = true ]
[ Name = "g6"; State = "Unclaimed"; Memory = 4096; GPUs_GPU_0 = [ Id = "GPU-0"; Capability = 8.0; GlobalMemoryMb = 40000 ]; AvailableGPUs = { GPUs_GPU_0, GPUs_GPU_0 }; MinCapability = 7; Boost = 0; Requirements = TARGET.RequestMemory <= MY.Memory ]
[ Name = "g7"; State = "Unclaimed"; Memory = 8192; GPUs_GPU_0 = [ Id = "GPU-0"; Capability = 8.0; GlobalMemoryMb = 40000 ]; AvailableGPUs = { GPUs_GPU_0 }; MinCapability = 7; Boost = 0; Capability = 99; Requirements = TARGET.RequestMemory <= MY.Memory ]
"#;

const GPU_JOBS: &str = r#"
[ ClusterId = 1; ProcId = 0; RequestMemory = 1024; RequestGPUs = 1; RequireGPUs = Capability >= 7.5 && GlobalMemoryMb >= 16000; Requirements = countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) >= RequestGPUs && TARGET.Memory >= RequestMemory; Rank = 1 ]
[ ClusterId = 1; ProcId = 1; RequestMemory = 1024; RequestGPUs = 2; RequireGPUs = Capability >= 7.5 && GlobalMemoryMb >= 16000; Requirements = countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) >= RequestGPUs && TARGET.Memory >= RequestMemory; Rank = 2 ]
[ ClusterId = 2; ProcId = 0; RequestMemory = 1024; RequestGPUs = 1; RequireGPUs = Capability >= MinCapability; Requirements = countMatches(RequireGPUs, TARGET.AvailableGPUs) >= RequestGPUs; Rank = countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) ]
[ ClusterId = 3; ProcId = 0; RequestMemory = 1024; Requirements = size(evalInEachContext(Capability + Boost, TARGET.AvailableGPUs)) > 0 && evalInEachContext(Capability + Boost, TARGET.AvailableGPUs)[0] > 8; Rank = 0 ]
[ ClusterId = 4; ProcId = 0; RequestMemory = 1024; Size = 10; Tokens = { [ Size = 1 ] }; RequireGPUs = Capability > 1; Requirements = countMatches(RequireGPUs, AvailableGPUs) >= 0; Rank = 3 ]
[ ClusterId = 5; ProcId = 0; RequestMemory = 1024; RequireGPUs = Requirements; Requirements = countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) == 0; Rank = 4 ]
[ ClusterId = 6; ProcId = 0; RequestMemory = 1024; MinCap = 7.5; RequireGPUs = Capability >= TARGET.MinCap; Requirements = countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) > 0; Rank = 5 ]
[ ClusterId = 6; ProcId = 1; RequestMemory = 1024; MinCap = 8.5; RequireGPUs = Capability >= TARGET.MinCap; Requirements = countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) > 0; Rank = 5 ]
"#;

#[test]
fn gpu_requests_by_count_matches_equal_the_reference() {
    let (jobs, slots) = (ads(GPU_JOBS), ads(GPU_SLOTS));
    check_both_modes(&jobs, &slots);
}

/// Comparisons `f(MY) op g(TARGET)` whose TARGET side is an expression
/// (`TARGET.GLIDEIN_ToDie - time()`): computed once per group of each
/// side, compared in a loop, where each side reads only its own ad. Here
/// the operands are UNDEFINED, ERROR, reals against integers, NaN, strings
/// with case, missing, attributes that read the other ad (k5, against
/// jobs whose `Deadline` differ) or themselves.
const KERNEL_SLOTS: &str = r#"
[ Name = "k1"; State = "Unclaimed"; Memory = 4096; ToDie = 4102444800; Site = "T2_US_A"; Speed = 2; Requirements = true ]
[ Name = "k2"; State = "Unclaimed"; Memory = 4096.0; ToDie = 4102444800.5; Site = "t2_us_a"; Speed = 2.0; Requirements = true ]
[ Name = "k3"; State = "Unclaimed"; Memory = undefined; ToDie = error; Site = undefined; Speed = real("NaN"); Requirements = true ]
[ Name = "k4"; State = "Unclaimed"; Site = 7; Speed = "fast"; Requirements = true ]
[ Name = "k5"; State = "Unclaimed"; Memory = TARGET.RequestMemory * 2; ToDie = TARGET.Deadline + 1; Site = TARGET.Home; Speed = TARGET.Speed; Requirements = true ]
[ Name = "k6"; State = "Unclaimed"; Memory = Memory + 1; ToDie = Base + 100000; Base = 1; Site = strcat("T2", "_US_A"); Speed = Speed; Requirements = true ]
[ Name = "k7"; State = "Unclaimed"; Memory = RequestMemory; ToDie = 0; Site = Home; Speed = 1; Requirements = true ]
[ Name = "k8"; State = "Unclaimed"; Memory = 1024; ToDie = 1e30; Site = "T2_US_A "; Speed = -0.0; Requirements = true ]
"#;

const KERNEL_JOBS: &str = r#"
[ ClusterId = 1; ProcId = 0; RequestMemory = 1024; MaxWallTimeMins = 60; Home = "T2_US_A"; Deadline = 5; Speed = 1; Requirements = TARGET.ToDie - time() > MY.MaxWallTimeMins * 60 && TARGET.Memory * 1.0 >= RequestMemory; Rank = TARGET.Speed * 1 ]
[ ClusterId = 2; ProcId = 0; RequestMemory = 4096; MaxWallTimeMins = 1e40; Home = "t2_us_a"; Requirements = TARGET.Site + "" =?= MY.Home || -TARGET.Speed < -1; Rank = 1 ]
[ ClusterId = 3; ProcId = 0; RequestMemory = undefined; MaxWallTimeMins = undefined; Home = "T2_US_A"; Requirements = toLower(TARGET.Site) == MY.Home && (TARGET.Memory + 0) isnt undefined; Rank = 2 ]
[ ClusterId = 4; ProcId = 0; RequestMemory = 2048.0; MaxWallTimeMins = real("NaN"); Home = error; Requirements = MY.MaxWallTimeMins * 60 < TARGET.ToDie - time() || TARGET.Speed * 2 != 4; Rank = 3 ]
[ ClusterId = 5; ProcId = 0; RequestMemory = 1024; Requirements = RequestMemory <= TARGET.Memory - 1 && TARGET.Speed + 0 >= Speed; Speed = TARGET.Speed; Rank = 4 ]
[ ClusterId = 7; ProcId = 0; RequestMemory = 512; Home = "T2_US_A"; Requirements = TARGET.Site == Home; Rank = 6 ]
[ ClusterId = 8; ProcId = 0; RequestMemory = 512; Deadline = 9000000000; MaxWallTimeMins = 60; Requirements = TARGET.ToDie - time() > MY.MaxWallTimeMins * 60; Rank = 7 ]
[ ClusterId = 9; ProcId = 0; RequestMemory = 512; Requirements = TARGET.ToDie - time() > 3600 && TARGET.Memory - 0 >= 1; Rank = 8 ]
[ ClusterId = 10; ProcId = 0; RequestMemory = 512; Requirements = TARGET.Memory - 0 >= 1; Rank = 9 ]
"#;

/// A job that redefines `target`: in it, `TARGET.x` is its own attribute.
const KERNEL_SHADOWING_JOB: &str = r#"
[ ClusterId = 6; ProcId = 0; RequestMemory = 512; target = [ Memory = 1; ToDie = 1e12 ]; Requirements = TARGET.Memory - 0 >= 1; Rank = 5 ]
"#;

#[test]
fn comparisons_of_a_target_expression_equal_the_reference() {
    let (jobs, slots) = (ads(KERNEL_JOBS), ads(KERNEL_SLOTS));
    check_both_modes(&jobs, &slots);
    // With the job that redefines `target` first: the slots' side of job
    // 9.0's clauses (which read nothing of the job) is computed against a
    // job that does not, and job 10.0, whose clause is the same text and
    // reads nothing of its own ad either, is not in the first job's group. (Without the slots whose attributes read the job:
    // the job's ads would then make every clause read everything.)
    let jobs = ads(&format!("{KERNEL_SHADOWING_JOB}{KERNEL_JOBS}"));
    let slots: Vec<AdRef> = [0, 1, 2, 3, 7].map(|s| slots[s].clone()).to_vec();
    check_both_modes(&jobs, &slots);
}
