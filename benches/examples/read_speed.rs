//! Quick MB/s of reading ad files, for A/B runs and profiles outside
//! criterion: `read_speed [parse|parallel|compile] FILE...` reads each file
//! `CLASSAD_REPEAT` times (default 3) and prints the best MB/s.
//! `parse` is the syntax crate's reader alone, `parallel` its parallel
//! reader (`RAYON_NUM_THREADS` threads); `compile` is
//! `classad_matchmaker::read_ad_text` (read and compile, what `match` does).

#![allow(missing_docs)]

use classad::syntax::{AdReader, ParseOptions, Parser};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "parse".into());
    let repeat: usize = std::env::var("CLASSAD_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for path in args {
        let text = std::fs::read(&path).expect("readable file");
        let mut best = f64::INFINITY;
        let mut count = 0;
        for _ in 0..repeat {
            let start = Instant::now();
            count = match mode.as_str() {
                "parallel" => classad::syntax::read_ads_parallel(&text, ParseOptions::default())
                    .ads
                    .iter()
                    .filter(|r| r.is_ok())
                    .count(),
                "parse" => {
                    let parser = Parser::new(ParseOptions::default());
                    AdReader::auto(&text[..], &parser)
                        .expect("readable")
                        .filter(Result::is_ok)
                        .count()
                }
                _ => classad_matchmaker::read_ad_text(&text, &path).ads.len(),
            };
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{mode} {path}: {count} ads, {:.1} MB in {:.3} s: {:.1} MB/s",
            text.len() as f64 / 1e6,
            best,
            text.len() as f64 / 1e6 / best
        );
    }
}
