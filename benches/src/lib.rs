//! Shared set-up for the benchmarks in `benches/`: the matchmaking
//! workload of `../shared/workloads/gen_pool.py`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The pool's machine and job ads in old syntax, read from
/// `$CLASSAD_POOL_DIR` (`machines.ads`, `jobs.ads`) or generated with
/// `python3 ../shared/workloads/gen_pool.py` (2000 machines and 2000 jobs)
/// into a temporary directory. `Err` says why there is none.
pub fn load_pool() -> Result<(String, String), String> {
    let (dir, temporary) = match std::env::var_os("CLASSAD_POOL_DIR") {
        Some(dir) => (PathBuf::from(dir), false),
        None => {
            let generator =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/workloads/gen_pool.py");
            if !generator.exists() {
                return Err(format!("{} not found", generator.display()));
            }
            let dir =
                std::env::temp_dir().join(format!("classad-bench-pool-{}", std::process::id()));
            let out = Command::new("python3")
                .arg(&generator)
                .arg("--out")
                .arg(&dir)
                .output()
                .map_err(|e| format!("cannot run python3: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "gen_pool.py failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            (dir, true)
        }
    };
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let result = read("machines.ads").and_then(|m| Ok((m, read("jobs.ads")?)));
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}
