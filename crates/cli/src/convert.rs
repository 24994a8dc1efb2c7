//! `classad convert [--from old|new|json] [--to old|new|json] [--pretty] [FILE...]`:
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
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str =
    "usage: classad convert [--from old|new|json] [--to old|new|json] [--pretty] [FILE...]";

struct Options {
    from: Option<Format>,
    to: Format,
    pretty: bool,
    files: Vec<String>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        from: None,
        to: Format::New,
        pretty: false,
        files: Vec::new(),
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (arg.as_str(), None),
        };
        match flag {
            "--from" | "--to" => {
                let value = match inline {
                    Some(v) => v,
                    None => iter
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("`{flag}` needs a value: old, new or json"))?,
                };
                if flag == "--from" && value == "auto" {
                    options.from = None;
                    continue;
                }
                let format: Format = value.parse()?;
                if flag == "--from" {
                    options.from = Some(format);
                } else {
                    options.to = format;
                }
            }
            "--pretty" if inline.is_none() => options.pretty = true,
            "-h" | "--help" => return Err(String::new()),
            "--" => {
                options.files.extend(iter.by_ref().cloned());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option `{arg}`")),
            _ => options.files.push(arg.clone()),
        }
    }
    Ok(options)
}

/// Writes ads in the output format, framing JSON as an array.
struct Output<W: Write> {
    out: W,
    format: Format,
    pretty: bool,
    written: usize,
    text: String,
}

impl<W: Write> Output<W> {
    fn ad(&mut self, ad: &AdExpr) -> io::Result<()> {
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

    fn finish(&mut self) -> io::Result<()> {
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
        Some(format) => AdReader::new(input, format, parser).try_for_each(&mut each)?,
        None => match AdReader::auto(input, parser) {
            Ok(mut reader) => reader.try_for_each(&mut each)?,
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

/// Bad ads reported in full per input; past it they are only counted, so
/// a binary file does not flood standard error.
const MAX_REPORTED: usize = 20;

pub fn run(args: &[String]) -> ExitCode {
    let options = match parse_args(args) {
        Ok(options) => options,
        Err(message) if message.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("classad convert: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let parser = Parser::new(ParseOptions::default());
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
    let mut all_ok = true;
    for file in &files {
        let result = if file == "-" {
            convert(
                io::stdin().lock(),
                "<stdin>",
                options.from,
                &parser,
                &mut output,
            )
        } else {
            match File::open(file) {
                Ok(f) => convert(
                    BufReader::with_capacity(1 << 16, f),
                    file,
                    options.from,
                    &parser,
                    &mut output,
                ),
                Err(e) => {
                    eprintln!("classad convert: cannot open {file}: {e}");
                    all_ok = false;
                    continue;
                }
            }
        };
        match result {
            Ok(ok) => all_ok &= ok,
            Err(e) => return output_failed(&e),
        }
    }
    if let Err(e) = output.finish() {
        return output_failed(&e);
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn output_failed(error: &io::Error) -> ExitCode {
    // A closed pipe (`classad convert ... | head`) is not worth a message.
    if error.kind() != io::ErrorKind::BrokenPipe {
        eprintln!("classad convert: cannot write the output: {error}");
    }
    ExitCode::from(1)
}
