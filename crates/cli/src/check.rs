//! `classad check [--json] FILE...`: reads and compiles every ad of each
//! FILE (old, new, JSON or XML form, found from the text) as `classad
//! match` does (the one reader, `classad_matchmaker::read_compiled`), and
//! prints per file the ads, attributes, distinct definitions (a name
//! bound to an expression, as the ads share them in memory), bytes and
//! reading speed, and every bad ad with its file,
//! line and column: a quick linter for people who hand-edit ads and
//! policies. A bad ad never hides the good ones after it.
//!
//! Counts go to standard output (one line a file, or with `--json` one
//! object for all); bad ads and unreadable files to standard error. At most
//! [`LISTED`] errors are listed per file (a binary file would give
//! thousands); the others are counted. Exit status: 0 when every ad of
//! every file is good, 1 when an ad is bad or a file cannot be read, 2 for
//! a bad command line.

use crate::json_text::json_string;
use classad::compiler::{CompileCache, CompileError, Compiler};
use classad::syntax::{AdExpr, AdReader, ParseError, ParseOptions, Parser, Span};
use classad::vm::AdBody;
use classad_matchmaker::read_compiled;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Errors listed per file; the others are counted.
pub const LISTED: usize = 100;

/// A bad ad.
struct Problem {
    /// Position of the ad in the file (1 = first).
    ad: usize,
    /// An old-syntax ad kept in part (the lines before a line that cannot
    /// be read, as HTCondor keeps them): a warning, counted as bad.
    kept_in_part: bool,
    line: usize,
    column: usize,
    message: String,
    /// The error drawn with the offending line, for standard error.
    rendered: String,
}

/// What checking one file found.
#[derive(Default)]
struct Report {
    file: String,
    /// Why the file could not be read at all.
    unreadable: Option<String>,
    format: &'static str,
    ads: usize,
    bad: usize,
    attributes: usize,
    /// Distinct definitions (name and expression) the file's ads share,
    /// as the compile cache counts them.
    distinct: usize,
    bytes: usize,
    seconds: f64,
    /// The first [`LISTED`] bad ads, in file order.
    problems: Vec<Problem>,
    /// Of the bad ads, those kept in part: old-syntax ads with a line that
    /// cannot be read, which keep the lines before it (as HTCondor does);
    /// a linter counts them as bad, since a line was dropped.
    partial: usize,
}

impl Report {
    fn mb_per_s(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / 1e6 / self.seconds
        } else {
            0.0
        }
    }
}

/// Read and compile every ad of each FILE: counts per file, every bad ad
/// with its file, line and column.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad check slots.ads policy.ad
  classad check --json jobs.ads          (one JSON object for all files)

At most 100 bad ads are listed per file; the others are counted.",
    exit_status!()
))]
pub struct CheckArgs {
    /// Ad files in old, new, JSON or XML form (found from the text).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print the counts as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    limit: crate::args::InputLimit,
}

/// `classad check` from its parsed command line.
pub fn run_args(args: CheckArgs) -> ExitCode {
    args.limit.apply();
    let options = args.limit.parse_options(ParseOptions::default());
    ExitCode::from(u8::try_from(run(&args.files, args.json, options)).unwrap_or(1))
}

/// Checks `files` (read with `options`), prints the counts on standard output (as one JSON
/// object with `json`) and the errors on standard error; the exit status:
/// 0 if every ad is good, 1 if not or if a file cannot be read.
pub fn run(files: &[PathBuf], json: bool, options: ParseOptions) -> i32 {
    let reports: Vec<Report> = files.iter().map(|f| check_file(f, options)).collect();
    for report in &reports {
        if let Some(e) = &report.unreadable {
            eprintln!("classad check: {e}");
        }
        for problem in &report.problems {
            eprintln!("{}", problem.rendered.trim_end());
        }
        if report.bad > report.problems.len() {
            eprintln!(
                "classad check: {}: {} more bad ads not shown",
                report.file,
                report.bad - report.problems.len()
            );
        }
    }
    let output = if json {
        to_json(&reports)
    } else {
        to_text(&reports)
    };
    print!("{output}");
    let failed = reports.iter().any(|r| r.unreadable.is_some() || r.bad > 0);
    i32::from(failed)
}

/// What the reading threads keep of a good ad: its attribute count, or
/// the ad itself when it does not compile (to find the attribute to blame).
enum Checked {
    Compiled(usize),
    Failed(AdExpr, CompileError),
}

fn check_file(path: &PathBuf, options: ParseOptions) -> Report {
    let file = path.display().to_string();
    let start = Instant::now();
    let text = match classad::syntax::read::read_file_within(path) {
        Ok(text) => text,
        Err(e) => {
            return Report {
                unreadable: Some(format!("cannot read `{file}`: {}", e)),
                file,
                ..Report::default()
            };
        }
    };
    let parser = Parser::new(options);
    let format = match AdReader::auto(&text[..], &parser) {
        Ok(reader) => reader.format().name(),
        Err(e) => {
            return Report {
                unreadable: Some(format!("cannot read `{file}`: {e}")),
                file,
                ..Report::default()
            };
        }
    };
    let mut report = Report {
        format,
        bytes: text.len(),
        file,
        ..Report::default()
    };
    // Read and compiled as `classad match` reads a pool (the one reader,
    // `read_compiled`: old syntax from the bytes of its lines, one table
    // of shared definitions for the whole file); an ad is dropped as soon
    // as it is counted, only one that does not compile is kept, to find
    // the attribute to blame.
    let cache = CompileCache::for_pool_of(text.len());
    let compiled = |body: AdBody| Checked::Compiled(body.len());
    let failed = |ad: AdExpr, e: CompileError| Checked::Failed(ad, e);
    let read = read_compiled(&text, options, None, &cache, &compiled, &failed);
    let results = read.ads;
    // Bad ads in file order, whether they do not parse, do not compile or
    // were kept in part (whose warnings are in file order too).
    let mut problems = Vec::new();
    let mut warnings = read.warnings.into_iter().peekable();
    report.ads = results.len();
    for (i, result) in results.into_iter().enumerate() {
        if let Some(w) = warnings.next_if(|w| w.error.ordinal == i + 1) {
            report.partial += 1;
            report.bad += 1;
            if problems.len() < LISTED {
                problems.push(Problem {
                    ad: w.error.ordinal,
                    kept_in_part: true,
                    line: w.error.error.line,
                    column: w.error.error.column,
                    message: w.error.error.message.clone(),
                    rendered: w.render(&report.file).replacen(
                        "warning: ",
                        &format!("warning: ad {}: ", w.error.ordinal),
                        1,
                    ),
                });
            }
        }
        match result {
            Ok(Checked::Compiled(attributes)) => report.attributes += attributes,
            Ok(Checked::Failed(ad, e)) => {
                report.attributes += ad.len();
                report.bad += 1;
                if problems.len() < LISTED {
                    problems.push(compile_problem(&text, &report.file, i + 1, &ad, &e));
                }
            }
            Err(e) => {
                report.bad += 1;
                if problems.len() < LISTED {
                    problems.push(Problem {
                        ad: e.ordinal,
                        kept_in_part: false,
                        line: e.error.line,
                        column: e.error.column,
                        message: e.error.message.clone(),
                        rendered: e.render(&report.file).replacen(
                            "error: ",
                            &format!("error: ad {}: ", e.ordinal),
                            1,
                        ),
                    });
                }
            }
        }
    }
    report.distinct = cache.definitions();
    report.problems = problems;
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// A bad ad that parsed but does not compile, placed at the attribute
/// that fails.
fn compile_problem(
    text: &[u8],
    origin: &str,
    n: usize,
    ad: &AdExpr,
    error: &CompileError,
) -> Problem {
    let registry = classad::stdlib::shared_registry();
    let compiler = Compiler::new(&registry);
    let culprit = ad
        .attributes
        .iter()
        .find_map(|(name, expr)| compiler.compile(expr).err().map(|e| (name, expr.span, e)));
    let (message, span) = match culprit {
        Some((name, span, e)) => (format!("attribute `{name}`: {e}"), span),
        None => (error.to_string(), Span::default()),
    };
    // Line and column of the span's start; spans are offsets in the file.
    let at = (span.start as usize).min(text.len());
    let line_start = text[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = text[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i);
    let line = 1 + text[..line_start].iter().filter(|&&b| b == b'\n').count();
    let shown = String::from_utf8_lossy(&text[line_start..line_end]).into_owned();
    let column = 1 + String::from_utf8_lossy(&text[line_start..at])
        .chars()
        .count();
    let local = ParseError {
        message: format!("ad {n}: {message}"),
        span: Span::new(
            at - line_start,
            (span.end as usize).min(line_end) - line_start,
        ),
        line,
        column,
    };
    Problem {
        ad: n,
        kept_in_part: false,
        line,
        column,
        rendered: local.render(&shown, origin),
        message,
    }
}

fn to_text(reports: &[Report]) -> String {
    let mut out = String::new();
    for r in reports.iter().filter(|r| r.unreadable.is_none()) {
        out.push_str(&format!(
            "{}: {} ads{}{} ({}), {} attributes, {} distinct definitions, {} bytes in {:.3} s ({:.1} MB/s)\n",
            r.file,
            r.ads,
            if r.bad > 0 {
                format!(", {} bad", r.bad)
            } else {
                String::new()
            },
            if r.partial > 0 {
                format!(", {} of them kept in part", r.partial)
            } else {
                String::new()
            },
            r.format,
            r.attributes,
            r.distinct,
            r.bytes,
            r.seconds,
            r.mb_per_s()
        ));
    }
    if reports.len() > 1 {
        let (ads, bad, bytes, seconds) = totals(reports);
        let unreadable = reports.iter().filter(|r| r.unreadable.is_some()).count();
        out.push_str(&format!(
            "total: {} files{}, {ads} ads, {bad} bad, {bytes} bytes in {seconds:.3} s ({:.1} MB/s)\n",
            reports.len(),
            if unreadable > 0 {
                format!(" ({unreadable} unreadable)")
            } else {
                String::new()
            },
            if seconds > 0.0 {
                bytes as f64 / 1e6 / seconds
            } else {
                0.0
            }
        ));
    }
    out
}

fn totals(reports: &[Report]) -> (usize, usize, usize, f64) {
    reports.iter().fold((0, 0, 0, 0.0), |(a, b, c, d), r| {
        (a + r.ads, b + r.bad, c + r.bytes, d + r.seconds)
    })
}

fn to_json(reports: &[Report]) -> String {
    let files: Vec<String> = reports
        .iter()
        .map(|r| match &r.unreadable {
            Some(e) => format!(
                "{{\"file\": {}, \"error\": {}}}",
                json_string(&r.file),
                json_string(e)
            ),
            None => {
                let listed = |problems: &[Problem]| -> String {
                    let items: Vec<String> = problems
                        .iter()
                        .map(|p| {
                            format!(
                                "{{\"ad\": {}, \"line\": {}, \"column\": {}, \"message\": {}, \"kept_in_part\": {}}}",
                                p.ad,
                                p.line,
                                p.column,
                                json_string(&p.message),
                                p.kept_in_part
                            )
                        })
                        .collect();
                    items.join(", ")
                };
                format!(
                    "{{\"file\": {}, \"format\": {}, \"ads\": {}, \"bad_ads\": {}, \"partial_ads\": {}, \"attributes\": {}, \"distinct_definitions\": {}, \"bytes\": {}, \"seconds\": {:.6}, \"mb_per_s\": {:.3}, \"errors\": [{}], \"errors_not_listed\": {}}}",
                    json_string(&r.file),
                    json_string(r.format),
                    r.ads,
                    r.bad,
                    r.partial,
                    r.attributes,
                    r.distinct,
                    r.bytes,
                    r.seconds,
                    r.mb_per_s(),
                    listed(&r.problems),
                    r.bad - r.problems.len()
                )
            }
        })
        .collect();
    let (ads, bad, bytes, _) = totals(reports);
    let unreadable = reports.iter().filter(|r| r.unreadable.is_some()).count();
    let partial: usize = reports.iter().map(|r| r.partial).sum();
    format!(
        "{{\"files\": [{}], \"ads\": {ads}, \"bad_ads\": {bad}, \"partial_ads\": {partial}, \"bytes\": {bytes}, \"unreadable_files\": {unreadable}, \"ok\": {}}}\n",
        files.join(", "),
        bad == 0 && unreadable == 0
    )
}
