//! `classad convert [--from old|new|json|xml|auto] [--to old|new|json|xml] [--pretty] [FILE...]`:
//! ads from one text form to another.
//!
//! Reads each FILE (standard input when there is none, or for `-`) ad by
//! ad, in the format given by `--from` or found from its first non-blank
//! character, and writes the ads to standard output:
//!
//! * `new` (the default): one ad a line, `[ a = 1; b = 2 ]`; with
//!   `--pretty`, one attribute a line;
//! * `old`: `Name = expr` lines and a blank line after each ad, as
//!   `condor_q -long` prints;
//! * `json`: an array of ads as `condor_q -long:json` prints it.
//!
//! A bad ad is reported on standard error and skipped; the others are
//! still written. Exit status: 0, or 1 if any ad or file could not be
//! read, 2 for a bad command line.

use classad::syntax::{self, AdError, AdExpr, AdReader, Format, ParseOptions, Parser};
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

/// A form of ads, as `--from` and `--to` name it.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FormatName {
    /// `Name = expr` lines, a blank line after each ad (`condor_q -long`)
    Old,
    /// `[ a = 1; b = 2 ]`, one ad a line
    New,
    /// an array of ads (`condor_q -long:json`)
    Json,
    /// `<classads><c>...</c></classads>` (`condor_q -long:xml`)
    Xml,
    /// found from the first characters of each input (`--from` only)
    Auto,
}

impl FormatName {
    pub fn format(self) -> Option<Format> {
        match self {
            FormatName::Old => Some(Format::Old),
            FormatName::New => Some(Format::New),
            FormatName::Json => Some(Format::Json),
            FormatName::Xml => Some(Format::Xml),
            FormatName::Auto => None,
        }
    }
}

/// Read ads and write them in another form.
///
/// Reads each FILE (standard input when there is none, or for `-`) ad by
/// ad and writes the ads to standard output. A bad ad is reported on
/// standard error and skipped; the others are still written.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad convert --to json pool.ads > pool.json
  classad convert --from old --to new --pretty jobs.ads
  condor_q -long | classad convert --to xml",
    exit_status!()
))]
pub struct ConvertArgs {
    /// The form of the input.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        default_value = "auto",
        value_name = "FORM"
    )]
    from: FormatName,
    /// The form of the output (`auto` is `new`).
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        default_value = "new",
        value_name = "FORM"
    )]
    to: FormatName,
    /// New syntax with one attribute a line.
    #[arg(long)]
    pretty: bool,
    /// Ad files; `-` or none is standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    #[command(flatten)]
    limit: crate::args::InputLimit,
}

struct Options {
    from: Option<Format>,
    to: Format,
    pretty: bool,
    files: Vec<String>,
}

/// Writes ads in the output format, framing JSON as an array.
pub(crate) struct Output<W: Write> {
    out: W,
    format: Format,
    pretty: bool,
    written: usize,
    text: String,
}

impl<W: Write> Output<W> {
    pub(crate) fn new(out: W, format: Format, pretty: bool) -> Output<W> {
        Output {
            out,
            format,
            pretty,
            written: 0,
            text: String::new(),
        }
    }

    pub(crate) fn ad(&mut self, ad: &AdExpr) -> io::Result<()> {
        self.text.clear();
        match self.format {
            Format::New if self.pretty => self.text.push_str(&syntax::unparse_ad_pretty(ad)),
            Format::New => self.text.push_str(&syntax::unparse_ad(ad)),
            Format::Old => self.text.push_str(&syntax::unparse_ad_old(ad)),
            Format::Json => {
                self.text
                    .push_str(if self.written == 0 { "[\n" } else { ",\n" });
                syntax::write_ad_json(ad, true, &mut self.text);
            }
            Format::Xml => {
                if self.written == 0 {
                    self.text.push_str(syntax::XML_HEADER);
                }
                // The pretty form ends in a newline of its own.
                syntax::write_ad_xml(ad, true, &mut self.text);
                self.text.pop();
            }
        }
        self.text.push('\n');
        self.written += 1;
        self.out.write_all(self.text.as_bytes())
    }

    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if self.format == Format::Json {
            self.out
                .write_all(if self.written == 0 { b"[\n]\n" } else { b"]\n" })?;
        }
        if self.format == Format::Xml {
            if self.written == 0 {
                self.out.write_all(syntax::XML_HEADER.as_bytes())?;
            }
            self.out.write_all(syntax::XML_FOOTER.as_bytes())?;
        }
        self.out.flush()
    }
}

fn report(error: &AdError, origin: &str) {
    let mut text = error.render(origin);
    text.push_str(&format!(
        "  = note: ad {} of {origin}, starting at line {}\n",
        error.ordinal, error.first_line
    ));
    eprint!("{text}");
}

/// Converts one input; returns whether every ad was read, or the output
/// error that stops everything.
fn convert<R: BufRead, W: Write>(
    input: R,
    origin: &str,
    from: Option<Format>,
    parser: &Parser,
    output: &mut Output<W>,
) -> io::Result<bool> {
    let mut errors = 0usize;
    let mut each = |item: Result<AdExpr, AdError>| -> io::Result<()> {
        match item {
            Ok(ad) => output.ad(&ad),
            Err(error) => {
                errors += 1;
                if errors <= MAX_REPORTED {
                    report(&error, origin);
                }
                Ok(())
            }
        }
    };
    match from {
        Some(format) => each_ad(&mut AdReader::new(input, format, parser), origin, &mut each)?,
        None => match AdReader::auto(input, parser) {
            Ok(mut reader) => each_ad(&mut reader, origin, &mut each)?,
            Err(e) => {
                eprintln!("classad convert: cannot read {origin}: {e}");
                return Ok(false);
            }
        },
    }
    if errors > MAX_REPORTED {
        eprintln!(
            "classad convert: {} more bad ads in {origin} not shown ({errors} in all)",
            errors - MAX_REPORTED
        );
    }
    Ok(errors == 0)
}

/// Gives each ad (or error) of `reader` to `each`; what an unreadable
/// line dropped from an ad is said before the ad is written (the ad is
/// kept, as HTCondor keeps it).
pub fn each_ad<R: BufRead>(
    reader: &mut AdReader<'_, R>,
    origin: &str,
    each: &mut impl FnMut(Result<AdExpr, AdError>) -> io::Result<()>,
) -> io::Result<()> {
    while let Some(item) = reader.next() {
        for warning in reader.take_warnings() {
            eprint!("{}", warning.render(origin));
        }
        each(item)?;
    }
    Ok(())
}

/// Bad ads reported in full per input; past it they are only counted, so
/// a binary file does not flood standard error.
const MAX_REPORTED: usize = 20;

pub fn run(args: ConvertArgs) -> ExitCode {
    args.limit.apply();
    let options = Options {
        from: args.from.format(),
        to: args.to.format().unwrap_or(Format::New),
        pretty: args.pretty,
        files: args.files,
    };
    let parser = Parser::new(args.limit.parse_options(ParseOptions::default()));
    let stdout = io::stdout();
    let mut output = Output {
        out: BufWriter::with_capacity(1 << 16, stdout.lock()),
        format: options.to,
        pretty: options.pretty,
        written: 0,
        text: String::new(),
    };
    let files = if options.files.is_empty() {
        vec!["-".to_string()]
    } else {
        options.files
    };
    let all_ok = match crate::args::read_inputs("convert", &files, |input, origin| {
        convert(input, origin, options.from, &parser, &mut output)
    }) {
        Ok(all_ok) => all_ok,
        Err(status) => return status,
    };
    if let Err(e) = output.finish() {
        return crate::args::output_failed("convert", &e);
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
