//! Shared set-up for the benchmarks in `benches/`: the matchmaking
//! workload of `../shared/workloads/gen_pool.py`, and its text in each form.

use classad::syntax::{AdExpr, AdReader, Format, ParseOptions, Parser, unparse_ad, write_ad_json};
use classad_matchmaker::generate;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pool's machine and job ads in old syntax, read from
/// `$CLASSAD_POOL_DIR` (`machines.ads`, `jobs.ads`) or generated with
/// `python3 ../shared/workloads/gen_pool.py` (2000 machines and 2000 jobs)
/// into a temporary directory. `Err` says why there is none.
pub fn load_pool() -> Result<(String, String), String> {
    match std::env::var_os("CLASSAD_POOL_DIR") {
        Some(dir) => read_pool(&PathBuf::from(dir), false),
        None => generate_pool(&[]),
    }
}

/// The machine and job ads of a pool `gen_pool.py` makes with `args`
/// (`--machines 20000 --jobs 20000`) in a temporary directory, removed
/// after reading. `Err` says why there is none (no `../shared`, no
/// `python3`).
pub fn generate_pool(args: &[&str]) -> Result<(String, String), String> {
    let generator =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/workloads/gen_pool.py");
    if !generator.exists() {
        return Err(format!("{} not found", generator.display()));
    }
    let dir = std::env::temp_dir().join(format!(
        "classad-bench-pool-{}-{}",
        std::process::id(),
        args.join("-").replace("--", "")
    ));
    let out = Command::new("python3")
        .arg(&generator)
        .args(args)
        .arg("--out")
        .arg(&dir)
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(format!(
            "gen_pool.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    read_pool(&dir, true)
}

/// `machines.ads` and `jobs.ads` of `dir`, which is removed after if
/// `temporary`.
fn read_pool(dir: &Path, temporary: bool) -> Result<(String, String), String> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let result = read("machines.ads").and_then(|m| Ok((m, read("jobs.ads")?)));
    if temporary {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

/// The workload's machine and job ads (see [`load_pool`]) and `"workload"`,
/// or, without it, the built-in generator's pool of the same size and
/// `"generated"`, so that a bench runs anywhere and its names say which.
pub fn pool_or_generated() -> (&'static str, String, String) {
    match load_pool() {
        Ok((machines, jobs)) => ("workload", machines, jobs),
        Err(why) => {
            eprintln!("note: {why}; using the built-in generator's pool");
            (
                "generated",
                generate::slots(2000, 1),
                generate::jobs(2000, 1),
            )
        }
    }
}

/// One old-syntax text of the machine ads, then the job ads.
pub fn old_text(mut machines: String, jobs: &str) -> String {
    if !machines.ends_with("\n\n") {
        machines.push('\n');
    }
    machines.push_str(jobs);
    machines
}

/// The ads of an old-syntax text, with the same ads written in new
/// syntax (one a line) and as a JSON array, for the benches that read
/// each form.
pub struct Forms {
    /// The ads, parsed.
    pub ads: Vec<AdExpr>,
    /// New syntax, one ad a line.
    pub new: String,
    /// A JSON array of the ads, pretty-printed.
    pub json: String,
}

/// [`Forms`] of `old`, which must parse.
pub fn forms(old: &str) -> Forms {
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
    Forms { ads, new, json }
}
