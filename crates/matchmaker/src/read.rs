//! Reading ad files (old, new or JSON form) for matching: a bad ad is
//! reported with its file and position, and the good ads are kept.

use classad::compiler::{CompileCache, CompileError, Compiler, LineCompiler};
use classad::syntax::lines::{read_old_ads, read_old_ads_in_parts};
use classad::syntax::{AdError, AdExpr, ParseOptions, ReadAds, read_ads_parallel_map};
use classad::vm::AdBody;
use classad::{AdRef, AdValue};
use std::sync::Arc;

/// The ads of one file.
#[derive(Default)]
pub struct AdFile {
    /// Each good ad with its position in the file (1 = first).
    pub ads: Vec<(usize, AdRef)>,
    /// One message per bad ad, naming the file and the ad.
    pub errors: Vec<String>,
    /// One message per old-syntax ad kept in part (the lines before a line
    /// that could not be read, as HTCondor keeps them; see
    /// [`classad::syntax::AdWarning`]), naming the file, the ad and what
    /// was dropped.
    pub warnings: Vec<String>,
}

/// Reads every ad of `path`: a file longer than the bound on inputs read
/// whole (`classad::syntax::read::max_input_bytes`, 1 GiB unless set) is
/// refused with a message, as an endless one (`/dev/zero`) is.
pub fn read_ad_file(path: &str) -> Result<AdFile, String> {
    read_ad_file_with(path, ParseOptions::default())
}

/// [`read_ad_file`] with parse options (`refuse_partial_ads` and the
/// limits).
pub fn read_ad_file_with(path: &str, options: ParseOptions) -> Result<AdFile, String> {
    let text = classad::syntax::read::read_file_within(path)
        .map_err(|e| format!("cannot read `{path}`: {e}"))?;
    Ok(read_text(&text, path, None, options))
}

/// Reads every ad of `text`; `origin` names it in messages. Large texts
/// are read in parts in parallel (in file order, with the errors one
/// reader would give), and each ad is compiled by the thread that read it
/// as soon as it is read, so that the trees of a whole file (several
/// times the text) are never held at once. An old-syntax ad whose lines
/// were all met before in the file is made from their bytes, without
/// parsing (see [`classad::compiler::LineCompiler`]).
pub fn read_ad_text(text: &[u8], origin: &str) -> AdFile {
    read_text(text, origin, None, ParseOptions::default())
}

/// [`read_ad_text`] with parse options.
pub fn read_ad_text_with(text: &[u8], origin: &str, options: ParseOptions) -> AdFile {
    read_text(text, origin, None, options)
}

/// [`read_ad_text`] with old-syntax texts cut in parts of about
/// `part_size` bytes (the size a thread would take when `None`): for
/// tests, small parts put boundaries everywhere.
#[doc(hidden)]
pub fn read_ad_text_in_parts(text: &[u8], origin: &str, part_size: Option<usize>) -> AdFile {
    read_text(text, origin, part_size, ParseOptions::default())
}

fn read_text(text: &[u8], origin: &str, part_size: Option<usize>, options: ParseOptions) -> AdFile {
    // One table for the whole file, shared by the workers: every ad that
    // repeats a definition holds the one compiled first.
    let cache = CompileCache::for_pool_of(text.len());
    let made = |body: AdBody| Ok(AdValue::top_level(Arc::new(body)));
    let failed = |_: AdExpr, e: CompileError| Err(classad::Error::from(e).to_string());
    collect(
        read_compiled(text, options, part_size, &cache, &made, &failed),
        origin,
    )
}

/// The one reader of ad files that every command compiling ads uses
/// (`classad match`, `analyze`, `demo`, `check`): every ad of `text` (old,
/// new, JSON or XML form), read and compiled on rayon's threads through
/// `cache`, each ad compiled by the thread that read it as soon as it is
/// read (the trees of a whole file are never held at once), an old-syntax
/// ad from the bytes of its lines when a [`LineCompiler`] can (lines met
/// before are neither parsed nor compiled). Each ad becomes what `made`
/// makes of its body, or, when it parses but does not compile, what
/// `failed` makes of its tree and error; ads that do not parse are the
/// errors, in file order. `part_size` cuts old-syntax texts in parts of
/// about that many bytes (`None`: the size a thread would take).
pub fn read_compiled<'t, U: Send>(
    text: &'t [u8],
    options: ParseOptions,
    part_size: Option<usize>,
    cache: &CompileCache,
    made: &(dyn Fn(AdBody) -> U + Sync),
    failed: &(dyn Fn(AdExpr, CompileError) -> U + Sync),
) -> ReadAds<U, Box<AdError>> {
    let registry = classad::stdlib::shared_registry();
    let compile = |ad: AdExpr| match Compiler::with_cache(&registry, cache).compile_ad(&ad) {
        Ok(body) => made(body),
        Err(e) => failed(ad, e),
    };
    // `made` travels in each part's state: the line reader takes a
    // function that borrows nothing.
    let new_compiler = || (LineCompiler::new(&registry, cache, options), made);
    let from_lines =
        |(compiler, made): &mut (_, _), lines: &[&'t [u8]]| from_lines(*made, compiler, lines);
    let read = match part_size {
        None => read_old_ads(text, options, &new_compiler, &from_lines, &compile),
        Some(size) => {
            read_old_ads_in_parts(text, options, size, &new_compiler, &from_lines, &compile)
        }
    };
    read.unwrap_or_else(|| boxed_errors(read_ads_parallel_map(text, options, &compile)))
}

/// [`read_ad_text`] with every ad parsed, then compiled: for tests that
/// compare the two ways.
#[doc(hidden)]
pub fn read_ad_text_by_parser(text: &[u8], origin: &str) -> AdFile {
    let cache = classad::compiler::CompileCache::for_pool();
    let compile = |ad: classad::syntax::AdExpr| {
        classad::ad_from_ast_cached(&cache, &ad).map_err(|e| e.to_string())
    };
    collect(
        boxed_errors(read_ads_parallel_map(
            text,
            ParseOptions::default(),
            &compile,
        )),
        origin,
    )
}

type Read = ReadAds<Result<AdRef, String>, Box<AdError>>;

/// The parser's results with their errors boxed, as the line reader gives
/// them (in the place of the list: the standard library reuses its block).
fn boxed_errors<U>(read: ReadAds<U>) -> ReadAds<U, Box<AdError>> {
    ReadAds {
        ads: read
            .ads
            .into_iter()
            .map(|ad| ad.map_err(Box::new))
            .collect(),
        warnings: read.warnings,
    }
}

/// The good ads and the messages of the bad ones.
fn collect(read: Read, origin: &str) -> AdFile {
    let warnings = read.warnings.iter().map(|w| w.render(origin)).collect();
    let read = read.ads;
    let errors = (read.iter().enumerate())
        .filter_map(|(n, ad)| match ad {
            Ok(Ok(_)) => None,
            Ok(Err(e)) => Some(format!("{origin}: ad {}: {e}", n + 1)),
            Err(e) => Some(e.render(origin)),
        })
        .collect();
    // Made in the place of `read` (the standard library reuses its block
    // for a smaller element): no second block while both are alive.
    let mut ads: Vec<(usize, AdRef)> = (read.into_iter().enumerate())
        .filter_map(|(n, ad)| Some((n + 1, ad.ok()?.ok()?)))
        .collect();
    ads.shrink_to_fit();
    AdFile {
        ads,
        errors,
        warnings,
    }
}

/// What `made` makes of an ad a [`LineCompiler`] compiles from its lines,
/// if it can.
fn from_lines<'t, U>(
    made: &(dyn Fn(AdBody) -> U + Sync),
    compiler: &mut Option<LineCompiler<'t, '_>>,
    lines: &[&'t [u8]],
) -> Option<U> {
    Some(made(compiler.as_mut()?.compile_ad(lines)?))
}
