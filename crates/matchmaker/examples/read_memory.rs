//! What reading ad files for matching costs in memory: reads each file as
//! `classad match` does, keeps the ads, and prints the ads, the bytes of
//! text and the resident memory after reading and at peak. The figures of
//! docs/performance.md ("Memory") come from here:
//!
//! ```text
//! cargo run --release -p classad-matchmaker --example read_memory -- FILE...
//! ```

/// A `kB` field of /proc/self/status, in bytes.
fn status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: read_memory FILE...");
        std::process::exit(2);
    }
    let rss_before = status_bytes("VmRSS");
    let mut kept = Vec::new();
    let (mut ads, mut bytes) = (0usize, 0usize);
    let start = std::time::Instant::now();
    for file in &files {
        bytes += std::fs::metadata(file).map_or(0, |m| m.len() as usize);
        match classad_matchmaker::read_ad_file(file) {
            Ok(read) => {
                for e in &read.errors {
                    eprintln!("{e}");
                }
                ads += read.ads.len();
                kept.push(read);
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let rss = status_bytes("VmRSS").saturating_sub(rss_before);
    let peak = status_bytes("VmHWM").saturating_sub(rss_before);
    let per_ad = |x: usize| x as f64 / ads.max(1) as f64;
    println!(
        "ads {ads}, text {bytes} bytes ({:.0} per ad), read in {seconds:.2} s",
        per_ad(bytes)
    );
    println!(
        "resident after reading {:.1} MB ({:.0} bytes per ad, {:.1} MB per 1,000 ads); peak {:.1} MB ({:.1} MB per 1,000 ads)",
        rss as f64 / 1e6,
        per_ad(rss),
        per_ad(rss) / 1e3,
        peak as f64 / 1e6,
        per_ad(peak) / 1e3
    );
    // Left for the process's end, so that a heap profiler (heaptrack) counts
    // what reading keeps as leaked.
    std::mem::forget(kept);
}
