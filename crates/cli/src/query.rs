//! `classad query`: `condor_q` / `condor_status` over ad files.
//!
//! The ads of each FILE (or `-ads FILE`, `-jobads FILE`; standard input
//! when there is none) that satisfy `-constraint` are printed whole
//! (`-long`, `-json`, `-xml`) or projected through `-af` and `-format`
//! columns, as HTCondor's `AttrListPrintMask` prints them:
//!
//! * the constraint is evaluated with the ad as MY and no TARGET, and an
//!   ad is kept when the value is true or a nonzero number (HTCondor's
//!   `EvalExprBool` under the tools' old-ClassAd semantics);
//! * `-af[:opts] ARG...` takes the arguments up to the next one starting
//!   with `-` (a lone `-` ends the list and is dropped); each is an
//!   attribute of the ad or, when the ad has none of that name, an
//!   expression. Values print as `%v`: strings without quotes, anything
//!   else as the old-syntax unparse of the value. Options: `,` a comma
//!   after each column but the last, `n` a newline there instead, `t` a
//!   tab before each column but the first (a space otherwise), `g` no
//!   space and a newline before each row, `l` `Name = ` labels, `V` `%V`
//!   (strings quoted), `r`/`o` `%r` (the expression unevaluated), `h`
//!   a heading line and aligned columns, `j` the job id
//!   (`ClusterId.ProcId`) first;
//! * `-format FMT ARG`: one printf conversion (`%d %i %u %o %x %X %c`
//!   numbers, `%e %f %g` reals, `%s` strings, `%v %V` values, `%r %R`
//!   unevaluated, `%T` a duration); a value of the wrong type prints
//!   nothing, `%s` of an attribute that is not a string prints its
//!   expression. No separator: write `\n` in FMT. Backslash escapes in FMT
//!   are read as HTCondor reads them.

use crate::convert::Output;
use classad::printf::{self, Conversion};
use classad::syntax::{
    self, AdError, AdExpr, AdReader, Expr, ExprKind, Format, Name, ParseOptions, Parser,
};
use classad::{AdRef, Program, Value, Vm};
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

/// Filter and project ads like condor_q and condor_status.
///
/// Reads the ads of each FILE (old, new, JSON or XML form; `-` or none is
/// standard input) and prints those that satisfy -constraint: whole
/// (-long, the default; -json; -xml) or as -af and -format columns.
/// Options may be spelled with one dash or two; -af takes the arguments
/// up to the next one that starts with a dash, as in HTCondor.
#[derive(clap::Args)]
#[command(
    override_usage = "classad query [FILE...] [-constraint EXPR] [-af[:,jlnrthgV] ATTR|EXPR ...] [-format FMT ATTR|EXPR]... [-long | -json | -xml]",
    after_help = concat!(
        "Examples:
  classad query jobs.ads -constraint 'RequestMemory > 2048' -af Owner ClusterId
  classad query -jobads jobs.ads -af:jh Owner RequestMemory
  classad query -ads slots.ads -constraint 'State == \"Unclaimed\"' -af:, Name Memory
  classad query slots.ads -format '%-20s' Name -format '%6d\\n' Memory
  condor_q -long | classad query -constraint 'JobStatus == 1' -json

-af options (after a colon, any order): , comma after each column; n newline
after each column; t tab between columns; g newline between rows; l Name = labels;
V strings quoted; r unevaluated expressions; h headings; j job id first.",
        exit_status!()
    )
)]
pub struct QueryArgs {
    /// Only the ads for which EXPR, evaluated with the ad as MY, is true.
    #[arg(
        long,
        visible_alias = "const",
        value_name = "EXPR",
        allow_hyphen_values = true
    )]
    constraint: Option<String>,
    /// Columns: each attribute or expression, up to the next argument that starts with `-`.
    #[arg(long = "af", visible_alias = "autoformat", value_name = "ATTR|EXPR", num_args = 1..)]
    af: Vec<String>,
    /// A printf-style column: FMT with one conversion, applied to ATTR|EXPR.
    #[arg(long, value_names = ["FMT", "ATTR|EXPR"], num_args = 2)]
    format: Vec<String>,
    /// Print the whole ads in old syntax, a blank line after each (the default).
    #[arg(short = 'l', long, conflicts_with_all = ["json", "xml"])]
    long: bool,
    /// Print the ads as a JSON array.
    #[arg(long, conflicts_with = "xml")]
    json: bool,
    /// Print the ads as XML.
    #[arg(long)]
    xml: bool,
    /// Read ads from FILE (condor_status's spelling).
    #[arg(long, value_name = "FILE")]
    ads: Vec<String>,
    /// Read ads from FILE (condor_q's spelling).
    #[arg(long, value_name = "FILE")]
    jobads: Vec<String>,
    /// Ad files; `-` is standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    #[command(flatten)]
    limit: crate::args::InputLimit,
}

/// One column of the print mask.
struct Column {
    /// The attribute or expression, as written.
    attr: String,
    /// The printf format, escapes read.
    format: String,
    /// Its conversion, if it has one.
    spec: Option<Conversion>,
    /// Width; left-aligned when `left`.
    width: usize,
    left: bool,
    /// Grows to the widest value (`-af:h`).
    auto_width: bool,
    no_prefix: bool,
    no_suffix: bool,
    heading: Option<String>,
    /// `attr` read as an expression, and compiled.
    expr: Option<(Expr, Program)>,
}

impl Column {
    /// A column of `attr` (compiled as `expr`) through `format`, as wide
    /// and aligned as its conversion says.
    fn new(attr: String, format: String, expr: Option<(Expr, Program)>) -> Column {
        let spec = parse_spec(&format);
        let (width, left) = spec.as_ref().map_or((0, false), |s| (s.width, s.left));
        Column {
            attr,
            format,
            spec,
            width,
            left,
            auto_width: false,
            no_prefix: false,
            no_suffix: false,
            heading: None,
            expr,
        }
    }
}

/// Separators of the print mask (`SetAutoSep`): before each row, before
/// each column but the first, after each column but the last, after each
/// row.
#[derive(Default)]
struct Separators {
    row_prefix: Option<&'static str>,
    col_prefix: Option<&'static str>,
    col_suffix: Option<&'static str>,
    row_suffix: Option<&'static str>,
}

/// What the command line asks, once read.
struct Request {
    columns: Vec<Column>,
    separators: Separators,
    args: QueryArgs,
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("classad query: {message}\n\nFor more information, try '--help'.");
    ExitCode::from(2)
}

/// `classad query` from its raw arguments: `-af` and `-format` are read
/// here, as HTCondor reads them (clap cannot end a list at the next dash
/// or keep the order of two kinds of column); everything else goes to
/// clap.
pub fn main(command: &clap::Command, args: &[String]) -> ExitCode {
    let mut flags = vec![command.get_name().to_string()];
    let mut columns: Vec<Column> = Vec::new();
    let mut separators = Separators::default();
    let mut has_headings = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            flags.extend(args[i - 1..].iter().cloned());
            break;
        }
        let body = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
        let Some(body) = body.filter(|b| !b.is_empty()) else {
            flags.push(arg.clone());
            continue;
        };
        let (word, colon) = match body.split_once(':') {
            Some((word, options)) => (word, Some(options)),
            None => (body, None),
        };
        match word {
            "af" | "autoformat" => {
                let start = i;
                while i < args.len() && !args[i].starts_with('-') {
                    i += 1;
                }
                if start == i {
                    return usage_error(&format!(
                        "{arg} needs at least one attribute or expression (e.g. {arg} Owner)"
                    ));
                }
                let mut group = Vec::new();
                for text in &args[start..i] {
                    match compile(text) {
                        Some(expr) => group.push((text.clone(), expr)),
                        None => {
                            return usage_error(&format!(
                                "-autoformat arg '{text}' is not a valid expression"
                            ));
                        }
                    }
                }
                if args.get(i).is_some_and(|a| a == "-") {
                    i += 1;
                }
                separators =
                    autoformat(colon.unwrap_or(""), group, &mut columns, &mut has_headings);
            }
            "format" => {
                let (Some(format), Some(text)) = (args.get(i), args.get(i + 1)) else {
                    return usage_error("-format needs a format and an attribute or expression");
                };
                i += 2;
                let Some(expr) = compile(text) else {
                    return usage_error(&format!("-format arg '{text}' is not a valid expression"));
                };
                columns.push(Column::new(
                    text.clone(),
                    collapse_escapes(format),
                    Some(expr),
                ));
            }
            _ => {
                let known = crate::args::find_arg(command, word);
                flags.push(if word.chars().count() == 1 {
                    format!("-{body}")
                } else {
                    format!("--{body}")
                });
                if colon.is_none()
                    && !body.contains('=')
                    && known.is_some_and(|a| a.get_action().takes_values())
                    && let Some(value) = args.get(i)
                {
                    flags.push(value.clone());
                    i += 1;
                }
            }
        }
    }
    let matches = match command.clone().try_get_matches_from(&flags) {
        Ok(matches) => matches,
        Err(error) => return crate::clap_exit(&error, 2),
    };
    let args = match <QueryArgs as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(args) => args,
        Err(error) => return crate::clap_exit(&error, 2),
    };
    args.limit.apply();
    if !columns.is_empty() && (args.long || args.json || args.xml) {
        return usage_error("-af and -format cannot be used with -long, -json or -xml");
    }
    run(Request {
        columns,
        separators,
        args,
    })
}

/// `text` as an expression, compiled; `None` when it is not one.
fn compile(text: &str) -> Option<(Expr, Program)> {
    let expr = syntax::parse_expression(text).ok()?;
    let program = classad::compile(&expr).ok()?;
    Some((expr, program))
}

/// Adds the columns of one `-af:opts` group, as `parse_autoformat_args`
/// does; returns the separators, which the last group sets for all.
fn autoformat(
    options: &str,
    group: Vec<(String, (Expr, Program))>,
    columns: &mut Vec<Column>,
    has_headings: &mut bool,
) -> Separators {
    let (mut label, mut quoted, mut raw, mut headings, mut job_id) =
        (false, false, false, false, false);
    let mut separators = Separators {
        col_prefix: Some(" "),
        row_suffix: Some("\n"),
        ..Separators::default()
    };
    for c in options.chars() {
        match c {
            ',' => separators.col_suffix = Some(","),
            'n' => separators.col_suffix = Some("\n"),
            'g' => {
                separators.col_prefix = None;
                separators.row_prefix = Some("\n");
            }
            't' => separators.col_prefix = Some("\t"),
            'l' => label = true,
            'V' => quoted = true,
            'r' | 'o' => raw = true,
            'h' => headings = true,
            'j' => job_id = true,
            _ => {}
        }
    }
    let column = |attr: &str, format: String, width: usize, heading: Option<String>| {
        let mut column = Column::new(attr.to_string(), format, compile(attr));
        if width != 0 {
            (column.width, column.left) = (width, false);
        }
        column.heading = heading;
        column
    };
    if job_id {
        if headings || *has_headings {
            let mut cluster = column(
                "ClusterId",
                if label { "ID = %4d." } else { "%4d." }.into(),
                5,
                Some(" ID".into()),
            );
            cluster.auto_width = true;
            cluster.no_suffix = true;
            let mut proc = column("ProcId", "%-3d".into(), 3, Some(" ".into()));
            proc.auto_width = true;
            proc.no_prefix = true;
            columns.push(cluster);
            columns.push(proc);
        } else {
            let mut cluster = column(
                "ClusterId",
                if label { "ID = %d." } else { "%d." }.into(),
                0,
                None,
            );
            cluster.no_suffix = true;
            let mut proc = column("ProcId", "%d".into(), 0, None);
            proc.no_prefix = true;
            columns.push(cluster);
            columns.push(proc);
        }
    }
    let conversion = if raw {
        "%r"
    } else if quoted {
        "%V"
    } else {
        "%v"
    };
    for (attr, expr) in group {
        let heading = match (headings, *has_headings) {
            (true, _) => Some(attr.clone()),
            (false, true) => Some("(expr)".to_string()),
            (false, false) => None,
        };
        let format = match &heading {
            None if label => format!("{attr} = {conversion}"),
            _ => conversion.to_string(),
        };
        let mut column = Column::new(attr, format, Some(expr));
        if let Some(text) = heading {
            column.width = text.chars().count();
            column.left = true;
            column.auto_width = true;
            column.heading = Some(text);
        }
        columns.push(column);
    }
    *has_headings |= headings;
    separators
}

fn run(request: Request) -> ExitCode {
    let Request {
        mut columns,
        separators,
        args,
    } = request;
    let constraint = match &args.constraint {
        None => None,
        Some(text) => match syntax::parse_expression(text) {
            Ok(expr) => match classad::compile(&expr) {
                Ok(program) => Some(program),
                Err(e) => return usage_error(&format!("-constraint: {e}")),
            },
            Err(e) => {
                eprint!("{}", e.render(text, "<-constraint>"));
                return ExitCode::from(2);
            }
        },
    };
    let mut files: Vec<String> = args.files.clone();
    files.extend(args.ads.iter().cloned());
    files.extend(args.jobads.iter().cloned());
    if files.is_empty() {
        files.push("-".into());
    }
    let format = if args.json {
        Format::Json
    } else if args.xml {
        Format::Xml
    } else {
        Format::Old
    };
    let stdout = io::stdout();
    let mut sink = Sink {
        vm: Vm::new(classad::Options::default()),
        constraint,
        whole: columns.is_empty().then(|| {
            Output::new(
                BufWriter::with_capacity(1 << 16, stdout.lock()),
                format,
                false,
            )
        }),
        rows: Vec::new(),
        buffer_rows: columns.iter().any(|c| c.auto_width),
        direct: BufWriter::with_capacity(1 << 16, io::stdout()),
    };
    let parser = Parser::new(args.limit.parse_options(ParseOptions::default()));
    let all_ok = match crate::args::read_inputs("query", &files, |input, origin| {
        read(input, origin, &parser, &mut sink, &mut columns, &separators)
    }) {
        Ok(all_ok) => all_ok,
        Err(status) => return status,
    };
    if let Err(e) = sink.finish(&columns, &separators) {
        return crate::args::output_failed("query", &e);
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Where the kept ads go.
struct Sink<W: Write, D: Write> {
    vm: Vm,
    constraint: Option<Program>,
    /// Whole ads (no columns).
    whole: Option<Output<W>>,
    /// Rendered rows, kept until the end when a column's width depends on
    /// every value (`-af:h`).
    rows: Vec<Vec<Option<String>>>,
    buffer_rows: bool,
    direct: D,
}

impl<W: Write, D: Write> Sink<W, D> {
    fn ad(
        &mut self,
        ast: &AdExpr,
        columns: &mut [Column],
        separators: &Separators,
    ) -> io::Result<bool> {
        let ad = match classad::ad_from_ast(ast) {
            Ok(ad) => ad,
            Err(_) => return Ok(false),
        };
        if let Some(constraint) = &self.constraint {
            let keep = match self.vm.evaluate(constraint, &ad) {
                Value::Bool(b) => b,
                Value::Int(i) => i != 0,
                Value::Real(r) => r != 0.0,
                _ => false,
            };
            if !keep {
                return Ok(true);
            }
        }
        if let Some(whole) = &mut self.whole {
            whole.ad(ast)?;
            return Ok(true);
        }
        let row: Vec<Option<String>> = columns
            .iter()
            .map(|column| render(column, ast, &ad, &mut self.vm))
            .collect();
        for (column, value) in columns.iter_mut().zip(&row) {
            if column.auto_width {
                let len = value.as_deref().map_or(0, |v| v.chars().count());
                column.width = column.width.max(len);
            }
        }
        if self.buffer_rows {
            self.rows.push(row);
        } else {
            let text = display(columns, separators, &row);
            self.direct.write_all(text.as_bytes())?;
        }
        Ok(true)
    }

    fn finish(&mut self, columns: &[Column], separators: &Separators) -> io::Result<()> {
        if let Some(whole) = &mut self.whole {
            return whole.finish();
        }
        if !self.rows.is_empty() && columns.first().is_some_and(|c| c.heading.is_some()) {
            let text = headings(columns, separators);
            self.direct.write_all(text.as_bytes())?;
        }
        for row in std::mem::take(&mut self.rows) {
            let text = display(columns, separators, &row);
            self.direct.write_all(text.as_bytes())?;
        }
        self.direct.flush()
    }
}

fn read<R: BufRead, W: Write, D: Write>(
    input: R,
    origin: &str,
    parser: &Parser,
    sink: &mut Sink<W, D>,
    columns: &mut [Column],
    separators: &Separators,
) -> io::Result<bool> {
    let mut ok = true;
    let mut each = |item: Result<AdExpr, AdError>| -> io::Result<()> {
        match item {
            Ok(ad) => {
                if !sink.ad(&ad, columns, separators)? {
                    eprintln!("classad query: {origin}: an ad could not be compiled; skipped");
                    ok = false;
                }
            }
            Err(error) => {
                eprint!("{}", error.render(origin));
                ok = false;
            }
        }
        Ok(())
    };
    match AdReader::auto(input, parser) {
        Ok(mut reader) => crate::convert::each_ad(&mut reader, origin, &mut each)?,
        Err(e) => {
            eprintln!("classad query: cannot read {origin}: {e}");
            return Ok(false);
        }
    }
    Ok(ok)
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Int,
    Float,
    Char,
    Str,
    Value,
    Raw,
    Time,
}

/// The kind of value a conversion prints.
fn kind(conversion: &Conversion) -> Kind {
    match conversion.letter {
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'p' => Kind::Int,
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => Kind::Float,
        'c' | 'C' => Kind::Char,
        's' | 'S' => Kind::Str,
        'v' | 'V' => Kind::Value,
        'r' | 'R' => Kind::Raw,
        _ => Kind::Time,
    }
}

/// The conversion of a format, as HTCondor's `parsePrintfFormat` reads
/// the first one. `%n` would write through a pointer and `%Y` is a local
/// date: no conversion here. Integers print with all their 64 bits,
/// whatever the length modifier.
fn parse_spec(format: &str) -> Option<Conversion> {
    let conversion = printf::parse(format, 0).filter(|c| !matches!(c.letter, 'n' | 'Y'))?;
    Some(Conversion {
        bits: 64,
        ..conversion
    })
}

/// Backslash escapes of a format, as HTCondor's `collapse_escapes` reads
/// them: `\n \t \r \a \b \f \v \\ \' \" \?`, octal `\NNN`, hex `\xHH`.
fn collapse_escapes(text: &str) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 >= bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = bytes[i];
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'\\' | b'\'' | b'"' | b'?' => out.push(c),
            b'0'..=b'7' => {
                let mut n = u32::from(c - b'0');
                let mut k = 0;
                while k < 2 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    n = n * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    k += 1;
                }
                out.push((n & 0xff) as u8);
            }
            b'x' => {
                let mut n = 0u32;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    n = (n * 16 + char::from(bytes[i]).to_digit(16).unwrap_or(0)) & 0xff;
                    i += 1;
                }
                out.push(n as u8);
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A value's text for `%v`/`%V`: the old-syntax literal, lists as
/// written (HTCondor's value of a list holds its unevaluated elements).
fn value_text(value: &Value) -> String {
    match value {
        Value::LazyList(list) => {
            let items: Vec<String> = list
                .items
                .iter()
                .map(|item| syntax::unparse_old(&item.source))
                .collect();
            format!("{{ {} }}", items.join(","))
        }
        Value::AbsTime(_) | Value::RelTime(_) => classad::vm::print::value_to_string(value),
        // HTCondor's `%.16G`, with no 17th digit where 16 do not read back
        // (the text is for reading, unlike `unparse_old`'s).
        Value::Real(r) if r.is_finite() && *r != 0.0 => {
            let mut text = syntax::unparse::format_c_general(*r, 16);
            if !text.contains(['.', 'E']) {
                text.push_str(".0");
            }
            text
        }
        Value::Real(r) => syntax::unparse::format_real_old(*r),
        other => old_text(&classad::value_to_expr(other)),
    }
}

/// The old-syntax text of `expr` with the attributes of its ads (and of
/// ads in its lists) in HTCondor's order, as its unparser walks them.
fn old_text(expr: &Expr) -> String {
    fn reorder(expr: &mut Expr) {
        match &mut expr.kind {
            ExprKind::Ad(ad) => {
                for (_, value) in ad.attributes.iter_mut() {
                    reorder(value);
                }
                let order: Vec<Vec<u8>> = syntax::unparse::htcondor_order(
                    ad.attributes.iter().map(|(name, _)| (name.as_bytes(), ())),
                )
                .into_iter()
                .map(|(name, ())| name.to_vec())
                .collect();
                let mut sorted = AdExpr::new();
                for name in order {
                    if let Some(value) = ad.get(&name) {
                        sorted.insert(Name::from_bytes(&name), value.clone());
                    }
                }
                **ad = sorted;
            }
            ExprKind::List(items) => items.iter_mut().for_each(reorder),
            _ => {}
        }
    }
    let mut expr = expr.clone();
    reorder(&mut expr);
    syntax::unparse_old(&expr)
}

fn string_of(value: &Value) -> Option<String> {
    value
        .as_str_bytes()
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

/// Whether `expr` is an attribute reference (HTCondor's ATTRREF_NODE).
fn is_reference(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) | ExprKind::Select { .. }
    )
}

/// The text of one column for one ad, or `None` when the value does not
/// fit the conversion (printed as nothing).
fn render(column: &Column, ast: &AdExpr, ad: &AdRef, vm: &mut Vm) -> Option<String> {
    let Some(spec) = &column.spec else {
        return Some(column.format.clone());
    };
    let found = ast.get(&column.attr);
    let (expr, program) = column.expr.as_ref()?;
    let mut kind = kind(spec);
    let mut value = None;
    if kind == Kind::Str && found.is_some() {
        match vm.evaluate(program, ad) {
            Value::Str(s) => value = Some(Value::Str(s)),
            _ => kind = Kind::Raw,
        }
    }
    let text = if kind == Kind::Raw {
        let tree = found.unwrap_or(expr);
        if is_reference(tree) {
            "undefined".to_string()
        } else {
            old_text(tree)
        }
    } else {
        let value = value.unwrap_or_else(|| vm.evaluate_as_written(program, ad, None));
        match kind {
            Kind::Int | Kind::Char | Kind::Time => {
                let n = match value {
                    Value::Int(i) => i,
                    Value::Real(r) => r as i64,
                    Value::Bool(b) => i64::from(b),
                    _ => return None,
                };
                if kind == Kind::Time {
                    return Some(duration(n));
                }
                return Some(printf::splice(&column.format, spec, &printf::int(spec, n)));
            }
            Kind::Float => {
                let x = match value {
                    Value::Int(i) => i as f64,
                    Value::Real(r) => r,
                    Value::Bool(b) => f64::from(u8::from(b)),
                    _ => return None,
                };
                return Some(printf::splice(&column.format, spec, &printf::real(spec, x)));
            }
            Kind::Str => string_of(&value)?,
            _ => match string_of(&value) {
                Some(s) if spec.letter != 'V' => s,
                _ => value_text(&value),
            },
        }
    };
    // `%s`, `%v`, `%r` alone print the text without printf.
    if column.format == "%s" {
        return Some(text);
    }
    Some(printf::splice(
        &column.format,
        spec,
        &printf::string(spec, &text),
    ))
}

/// `%T`: a duration as HTCondor's `format_time` writes it,
/// `%3d+%02d:%02d:%02d` (days, hours, minutes, seconds, each part
/// truncated toward zero as C divides). It replaces the whole format, as
/// in `format_value`.
fn duration(secs: i64) -> String {
    let (days, rest) = (secs / 86400, secs % 86400);
    let (hours, rest) = (rest / 3600, rest % 3600);
    format!("{days:>3}+{hours:02}:{:02}:{:02}", rest / 60, rest % 60)
}

/// One row, as `AttrListPrintMask::display` lays it out.
fn display(columns: &[Column], separators: &Separators, row: &[Option<String>]) -> String {
    let cells = columns
        .iter()
        .zip(row)
        .map(|(column, value)| (column, value.as_deref().unwrap_or(""), column.left));
    lay_out(columns.len(), separators, cells)
}

/// The heading line, as `AttrListPrintMask::display_Headings` lays it
/// out: headings padded to their columns' widths, up to the first column
/// without one.
fn headings(columns: &[Column], separators: &Separators) -> String {
    let cells = columns
        .iter()
        .map_while(|column| Some((column, column.heading.as_deref()?, true)));
    lay_out(columns.len(), separators, cells)
}

/// A line of `cells` (each a column, its text and whether it is
/// left-justified) out of `count` columns, with the print mask's
/// separators: the row's prefix and suffix, and each column's prefix
/// (not before the first) and suffix (not after the last of `count`)
/// unless the column drops them.
fn lay_out<'a>(
    count: usize,
    separators: &Separators,
    cells: impl Iterator<Item = (&'a Column, &'a str, bool)>,
) -> String {
    let mut out = String::new();
    if let Some(p) = separators.row_prefix {
        out.push_str(p);
    }
    for (i, (column, text, left)) in cells.enumerate() {
        if i > 0
            && !column.no_prefix
            && let Some(p) = separators.col_prefix
        {
            out.push_str(p);
        }
        let len = text.chars().count();
        if column.width == 0 || len >= column.width {
            out.push_str(text);
        } else if left {
            out.push_str(text);
            out.push_str(&" ".repeat(column.width - len));
        } else {
            out.push_str(&" ".repeat(column.width - len));
            out.push_str(text);
        }
        if i + 1 < count
            && !column.no_suffix
            && let Some(s) = separators.col_suffix
        {
            out.push_str(s);
        }
    }
    if let Some(s) = separators.row_suffix {
        out.push_str(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(format: &str) -> Conversion {
        parse_spec(format).expect("a conversion")
    }

    #[test]
    fn integers_print_with_all_their_bits() {
        let s = spec("%d");
        assert_eq!(printf::int(&s, 1 << 40), "1099511627776");
        assert_eq!(printf::int(&spec("%hx"), -1), "ffffffffffffffff");
    }

    #[test]
    fn formats_without_a_conversion_have_no_spec() {
        assert!(parse_spec("plain").is_none());
        assert!(parse_spec("100%%").is_none());
        assert!(parse_spec("%*d").is_none());
        assert!(parse_spec("%n").is_none());
        assert_eq!(spec("a %% b %-10s").letter, 's');
    }

    #[test]
    fn escapes_are_read_as_htcondor_reads_them() {
        assert_eq!(collapse_escapes(r"a\tb\n"), "a\tb\n");
        assert_eq!(collapse_escapes(r"\101\x42\\"), "AB\\");
        assert_eq!(collapse_escapes(r"end\"), "end\\");
    }

    #[test]
    fn durations_are_days_and_clock_time() {
        assert_eq!(duration(0), "  0+00:00:00");
        assert_eq!(duration(90061), "  1+01:01:01");
        assert_eq!(duration(-61), "  0+00:-1:-1");
    }
}
