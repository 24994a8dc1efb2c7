//! Reading ad files (old, new or JSON form) for matching: a bad ad is
//! reported with its file and position, and the good ads are kept.

use classad::AdRef;
use classad::syntax::{ParseOptions, read_ads_parallel_map};

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
/// are read in parts in parallel (in file order, with the errors one
/// reader would give), and each ad is compiled by the thread that read it
/// as soon as it is read, so that the trees of a whole file (several
/// times the text) are never held at once.
pub fn read_ad_text(text: &[u8], origin: &str) -> AdFile {
    // One table for the whole file, shared by the workers: every ad that
    // repeats a definition holds the one compiled first.
    let cache = classad::compiler::CompileCache::for_pool();
    let compile = |ad: classad::syntax::AdExpr| {
        classad::ad_from_ast_cached(&cache, &ad).map_err(|e| e.to_string())
    };
    let mut ads = Vec::new();
    let mut errors = Vec::new();
    for (n, ad) in read_ads_parallel_map(text, ParseOptions::default(), &compile)
        .into_iter()
        .enumerate()
    {
        let n = n + 1;
        match ad {
            Ok(Ok(ad)) => ads.push((n, ad)),
            Ok(Err(e)) => errors.push(format!("{origin}: ad {n}: {e}")),
            Err(e) => errors.push(e.render(origin)),
        }
    }
    ads.shrink_to_fit();
    AdFile { ads, errors }
}
