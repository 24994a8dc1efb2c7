//! `classad demo`: a small negotiator-style match on built-in ads, to see
//! the whole pipeline (parse, compile, evaluate in MY/TARGET pairs) work.

use classad::syntax::Parser;
use classad::vm::{Symbol, Value};
use classad::{AdRef, Vm};
use std::process::ExitCode;

const MACHINES: &str = r#"[ Name = "slot1@node1"; Arch = "X86_64"; OpSys = "LINUX"; Memory = 16384; Cpus = 8;
    Disk = 100000000; KeyboardIdle = 3600; LoadAvg = 0.05; Mips = 20000;
    Start = KeyboardIdle > 15 * 60 && LoadAvg < 0.3;
    Requirements = START && TARGET.RequestMemory <= Memory; Rank = TARGET.Owner == "alice" ]
[ Name = "slot1@gpu1"; Arch = "X86_64"; OpSys = "LINUX"; Memory = 65536; Cpus = 32; GPUs = 4;
    Disk = 500000000; Mips = 40000; Start = TARGET.RequestGPUs >= 1;
    Requirements = Start; Rank = 0 ]
[ Name = "slot1@arm1"; Arch = "aarch64"; OpSys = "LINUX"; Memory = 8192; Cpus = 4;
    Disk = 50000000; Mips = 9000; Requirements = true; Rank = 0 ]"#;

const JOBS: &str = r#"[ Owner = "alice"; RequestMemory = 2048; RequestCpus = 1;
    Requirements = TARGET.Arch == "X86_64" && TARGET.OpSys == "LINUX" && TARGET.Memory >= RequestMemory;
    Rank = TARGET.Mips ]
[ Owner = "bob"; RequestMemory = 4096; RequestGPUs = 1;
    Requirements = TARGET.GPUs >= RequestGPUs && TARGET.Memory >= RequestMemory; Rank = TARGET.Memory ]
[ Owner = "carol"; RequestMemory = 1024;
    Requirements = member(TARGET.Arch, {"aarch64", "ARM64"}); Rank = 0 ]"#;

fn load(text: &str) -> Result<Vec<AdRef>, String> {
    let parser = Parser::new(Default::default());
    let mut ads = Vec::new();
    for chunk in text.split("]\n") {
        let chunk = chunk.trim();
        let source = if chunk.ends_with(']') {
            chunk.to_string()
        } else {
            format!("{chunk} ]")
        };
        let ad = parser
            .parse_ad(&source)
            .map_err(|e| e.render(&source, "<demo>"))?;
        ads.push(classad::ad_from_ast(&ad).map_err(|e| e.to_string())?);
    }
    Ok(ads)
}

fn name_of(ad: &AdRef, vm: &mut Vm) -> String {
    match vm.evaluate_attribute(ad, &Symbol::new("Name"), None) {
        Value::Str(s) => String::from_utf8_lossy(&s).into_owned(),
        _ => "?".into(),
    }
}

pub fn run(_args: &[String]) -> ExitCode {
    let (machines, jobs) = match (load(MACHINES), load(JOBS)) {
        (Ok(m), Ok(j)) => (m, j),
        (Err(e), _) | (_, Err(e)) => {
            eprint!("{e}");
            return ExitCode::from(1);
        }
    };
    let mut vm = Vm::default();
    let requirements = Symbol::new("Requirements");
    let rank = Symbol::new("Rank");
    let owner = Symbol::new("Owner");
    println!(
        "{} jobs x {} machines (built-in demo pool)\n",
        jobs.len(),
        machines.len()
    );
    for job in &jobs {
        let who = classad::vm::print::value_to_string(&vm.evaluate_attribute(job, &owner, None));
        let mut best: Option<(f64, String)> = None;
        for machine in &machines {
            let job_ok = vm.evaluate_attribute(job, &requirements, Some(machine));
            let machine_ok = vm.evaluate_attribute(machine, &requirements, Some(job));
            let matched =
                matches!(job_ok, Value::Bool(true)) && matches!(machine_ok, Value::Bool(true));
            let name = name_of(machine, &mut vm);
            println!(
                "  job {who:8} machine {name:14} job.Requirements={:<9} machine.Requirements={:<9} {}",
                classad::vm::print::value_to_string(&job_ok),
                classad::vm::print::value_to_string(&machine_ok),
                if matched { "MATCH" } else { "" }
            );
            if matched {
                let score = match vm.evaluate_attribute(job, &rank, Some(machine)) {
                    Value::Int(i) => i as f64,
                    Value::Real(r) => r,
                    Value::Bool(b) => f64::from(u8::from(b)),
                    _ => 0.0,
                };
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    best = Some((score, name));
                }
            }
        }
        match best {
            Some((score, name)) => println!("  => job {who} goes to {name} (rank {score})\n"),
            None => println!("  => job {who} matches no machine\n"),
        }
    }
    ExitCode::SUCCESS
}
