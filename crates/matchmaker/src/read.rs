//! Reading ad files (old, new or JSON form) for matching: a bad ad is
//! reported with its file and position, and the good ads are kept.

use classad::AdRef;
use classad::syntax::{AdExpr, AdReader, ParseOptions, Parser};
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

/// Ads parsed before they are compiled.
const BATCH: usize = 128;

/// Reads every ad of `text`; `origin` names it in messages. Ads are
/// parsed one after the other and compiled in parallel.
pub fn read_ad_text(text: &[u8], origin: &str) -> AdFile {
    let parser = Parser::new(ParseOptions::default());
    let reader = match AdReader::auto(text, &parser) {
        Ok(r) => r,
        Err(e) => {
            return AdFile {
                ads: Vec::new(),
                errors: vec![format!("{origin}: {e}")],
            };
        }
    };
    // One table for the whole file, shared by the workers: every ad that
    // repeats a definition holds the one compiled first.
    let cache = classad::compiler::CompileCache::for_pool();
    let mut ads = Vec::new();
    let mut errors = Vec::new();
    // Ads are compiled a batch at a time and their trees dropped, so that
    // the trees of a whole file are never held at once (they take ten times
    // the compiled ads).
    let mut batch = Vec::with_capacity(BATCH);
    let mut compile = |batch: &mut Vec<(usize, AdExpr)>, errors: &mut Vec<String>| {
        let compiled: Vec<Vec<Result<(usize, AdRef), String>>> = batch
            .par_chunks(32)
            .map(|chunk| {
                chunk
                    .iter()
                    .map(|(n, ad)| {
                        classad::ad_from_ast_cached(&cache, ad)
                            .map(|a| (*n, a))
                            .map_err(|e| format!("{origin}: ad {n}: {e}"))
                    })
                    .collect()
            })
            .collect();
        batch.clear();
        for r in compiled.into_iter().flatten() {
            match r {
                Ok(a) => ads.push(a),
                Err(e) => errors.push(e),
            }
        }
    };
    for (n, ad) in reader.enumerate() {
        match ad {
            Ok(ad) => batch.push((n + 1, ad)),
            Err(e) => errors.push(e.render(origin)),
        }
        if batch.len() == BATCH {
            compile(&mut batch, &mut errors);
        }
    }
    compile(&mut batch, &mut errors);
    ads.shrink_to_fit();
    AdFile { ads, errors }
}
