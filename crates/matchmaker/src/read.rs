//! Reading ad files (old, new or JSON form) for matching: a bad ad is
//! reported with its file and position, and the good ads are kept.

use classad::AdRef;
use classad::syntax::{ParseOptions, read_ads_parallel};
use rayon::prelude::*;

/// The ads of one file.
#[derive(Default)]
pub struct AdFile {
    /// Each good ad with its position in the file (1 = first).
    pub ads: Vec<(usize, AdRef)>,
    /// One message per bad ad, naming the file and the ad.
    pub errors: Vec<String>,
}

/// Reads every ad of `path`.
pub fn read_ad_file(path: &str) -> Result<AdFile, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    Ok(read_ad_text(&text, path))
}

/// Reads every ad of `text`; `origin` names it in messages. Large texts
/// are parsed in parts in parallel (in file order, with the errors one
/// reader would give), then compiled in parallel.
pub fn read_ad_text(text: &[u8], origin: &str) -> AdFile {
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    for (n, ad) in read_ads_parallel(text, ParseOptions::default())
        .into_iter()
        .enumerate()
    {
        match ad {
            Ok(ad) => parsed.push((n + 1, ad)),
            Err(e) => errors.push(e.render(origin)),
        }
    }
    // Compile in chunks so that each worker's compile cache shares the
    // programs of neighbouring ads (one submit's jobs, one host's slots).
    let compiled: Vec<Vec<Result<(usize, AdRef), String>>> = parsed
        .par_chunks(256)
        .map(|chunk| {
            chunk
                .iter()
                .map(|(n, ad)| {
                    classad::ad_from_ast(ad)
                        .map(|a| (*n, a))
                        .map_err(|e| format!("{origin}: ad {n}: {e}"))
                })
                .collect()
        })
        .collect();
    let mut ads = Vec::with_capacity(parsed.len());
    for r in compiled.into_iter().flatten() {
        match r {
            Ok(a) => ads.push(a),
            Err(e) => errors.push(e),
        }
    }
    AdFile { ads, errors }
}
