//! Every line of every expression corpus (`tests/corpus/*.txt`) against
//! HTCondor's answers recorded beside it (`tests/corpus/answers/`), in
//! both modes (`htcondor` and `strict`), without Python or `../shared`.
//!
//! The answers are the shared oracle's (HTCondor's own library through
//! `../shared/oracle/canon.py`), recorded by
//!
//! ```sh
//! CLASSAD_RECORD=1 cargo test -p classad --release --test corpus
//! ```
//!
//! which runs `tests/oracle/record_answers.py` (it needs `../shared`, or
//! `CLASSAD_SHARED_DIR`), rewrites the answer files, then checks them as
//! below. `tests/corpus/answers/README.md` says the format: line N of
//! `NAME.MODE` answers line N of `NAME.txt`, as `HASH ANSWER`.
//!
//! Each case is evaluated as `classad eval --batch` evaluates a line (the
//! contract of `difftest.py`: an empty context ad, HTCondor's dialect, the
//! standard functions, `--strict` in strict mode) and its value reduced to
//! the canonical value difftest compares: ints and reals apart, reals (and
//! relative times) within 2 ulp, NaN equal to NaN, strings byte for byte,
//! absolute times by their epoch seconds, a list by its length and the
//! values of `(E)[i]` for its first 16 elements, an ad by its lower-cased
//! sorted names and the values of `(E).name`, probed to depth 3, and a
//! line that does not parse or compile as a parse error. An answer the
//! oracle could not give (`oracle-exception`) matches anything, as in
//! difftest. A failure names the file and line, the mode, the expression,
//! the recorded and the computed answer.
//!
//! `CLASSAD_CORPUS_COMPUTED=DIR` also writes our own answers in the same
//! format to DIR (`diff -r DIR tests/corpus/answers` shows every
//! difference at once).

use classad::syntax::{AdExpr, Dialect, ParseOptions, Parser};
use classad::vm::Registry;
use classad::vm::print::rel_time_literal_text;
use classad::{AdRef, Options, Value, Vm};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How deep lists and ads are probed (canon.py's `MAX_DEPTH`).
const MAX_DEPTH: usize = 3;
/// How many elements of a list are probed (canon.py's `MAX_LIST_CHILDREN`).
const MAX_LIST_CHILDREN: usize = 16;
/// How far apart two reals may be, in units in the last place (canon.py's
/// `REAL_ULPS`).
const REAL_ULPS: u64 = 2;
/// The modes, as difftest.py's `--mode` and the answer files' extensions.
const MODES: [&str; 2] = ["htcondor", "strict"];
/// A corpus with its own format and harness
/// (`tests/oracle/match_context_check.py`: MY and TARGET ads).
const OWN_FORMAT: &str = "match_context.txt";
/// Strings longer than this are recorded by their length and hash
/// (record_answers.py's `LONG_STRING`: a memory-budget case makes a 2 MB
/// string).
const LONG_STRING: usize = 1000;
/// Failures printed in full; the rest are counted.
const SHOWN: usize = 40;

// ---------------------------------------------------------------------------
// canonical values

/// A canonical value, as canon.py's trees.
#[derive(Clone, Debug)]
enum Canon {
    Undefined,
    Error,
    ParseError,
    Bool(bool),
    Int(i64),
    Real(f64),
    RelTime(f64),
    AbsTime(i64),
    Str(Vec<u8>),
    /// A string of over [`LONG_STRING`] bytes, recorded by its length and
    /// FNV-1a 64-bit hash.
    StrDigest(usize, u64),
    /// The length, and the first elements' values when probed.
    List(usize, Option<Vec<Canon>>),
    /// The lower-cased sorted names, and each one's value when probed.
    Ad(Vec<Vec<u8>>, Option<Vec<Canon>>),
    /// The oracle failed on this value (its message): not judged.
    OracleException(Vec<u8>),
}

/// Doubles mapped onto integers so that adjacent doubles differ by one
/// (canon.py's `_ordered`).
fn ordered(x: f64) -> i128 {
    let bits = x.to_bits() as i64;
    if bits >= 0 {
        i128::from(bits)
    } else {
        -i128::from(bits & i64::MAX)
    }
}

/// canon.py's `reals_equal`.
fn reals_equal(a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (ordered(a) - ordered(b)).unsigned_abs() <= u128::from(REAL_ULPS)
}

/// canon.py's `equal`: an oracle exception on either side matches anything.
fn equal(a: &Canon, b: &Canon) -> bool {
    use Canon::*;
    let children_equal = |x: &Option<Vec<Canon>>, y: &Option<Vec<Canon>>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        _ => false,
    };
    match (a, b) {
        (OracleException(_), _) | (_, OracleException(_)) => true,
        (Undefined, Undefined) | (Error, Error) | (ParseError, ParseError) => true,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) | (AbsTime(x), AbsTime(y)) => x == y,
        (Real(x), Real(y)) | (RelTime(x), RelTime(y)) => reals_equal(*x, *y),
        (Str(x), Str(y)) => x == y,
        (StrDigest(n, h), StrDigest(m, g)) => n == m && h == g,
        (StrDigest(n, h), Str(x)) | (Str(x), StrDigest(n, h)) => x.len() == *n && fnv1a64(x) == *h,
        (List(n, x), List(m, y)) => n == m && children_equal(x, y),
        (Ad(n, x), Ad(m, y)) => n == m && children_equal(x, y),
        _ => false,
    }
}

/// A string in the answer files' form: `\"`, `\\`, `\n`, `\t`, `\r`, a
/// byte that is not UTF-8 as `\xNN`, a character that does not print as
/// `\u{X}`.
fn write_string(bytes: &[u8], out: &mut String) {
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() || c.is_whitespace() && c != ' ' => {
                    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
}

fn write_name(name: &[u8], out: &mut String) {
    let identifier = name
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    match std::str::from_utf8(name) {
        Ok(text) if identifier => out.push_str(text),
        _ => write_string(name, out),
    }
}

/// A real as Python's `repr` writes it (the recorder's form, so that our
/// answers and the recorded ones are the same text where they agree): the
/// shortest digits that read back, in positional form for exponents -4 to
/// 15, else as `1e-05`, `1.5e+16`; `inf`, `-inf`, `nan`.
fn write_real(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    let scientific = format!("{x:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} has an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    out.push_str(sign);
    let digits = mantissa.replace('.', "");
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let whole = exponent as usize + 1;
            if digits.len() <= whole {
                out.push_str(&digits);
                out.push_str(&"0".repeat(whole - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..whole]);
                out.push('.');
                out.push_str(&digits[whole..]);
            }
        } else {
            out.push_str("0.");
            out.push_str(&"0".repeat((-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        let _ = write!(
            out,
            "{mantissa}e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.unsigned_abs()
        );
    }
}

impl fmt::Display for Canon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_canon(self, &mut out);
        f.write_str(&out)
    }
}

fn write_canon(value: &Canon, out: &mut String) {
    match value {
        Canon::Undefined => out.push_str("undefined"),
        Canon::Error => out.push_str("error"),
        Canon::ParseError => out.push_str("parse-error"),
        Canon::Bool(b) => out.push_str(if *b { "bool true" } else { "bool false" }),
        Canon::Int(i) => {
            let _ = write!(out, "int {i}");
        }
        Canon::AbsTime(s) => {
            let _ = write!(out, "abstime {s}");
        }
        Canon::Real(x) => {
            out.push_str("real ");
            write_real(*x, out);
        }
        Canon::RelTime(x) => {
            out.push_str("reltime ");
            write_real(*x, out);
        }
        Canon::Str(s) if s.len() > LONG_STRING => {
            let _ = write!(out, "str-digest {} {:016x}", s.len(), fnv1a64(s));
        }
        Canon::Str(s) => {
            out.push_str("str ");
            write_string(s, out);
        }
        Canon::StrDigest(n, h) => {
            let _ = write!(out, "str-digest {n} {h:016x}");
        }
        Canon::OracleException(s) => {
            out.push_str("oracle-exception ");
            write_string(s, out);
        }
        Canon::List(n, children) => {
            let _ = write!(out, "list {n}");
            if let Some(children) = children {
                out.push_str(" [");
                for (i, child) in children.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_canon(child, out);
                }
                out.push(']');
            }
        }
        Canon::Ad(names, children) => {
            out.push_str("ad ");
            out.push(if children.is_some() { '{' } else { '(' });
            for (i, name) in names.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_name(name, out);
                if let Some(children) = children {
                    out.push_str(": ");
                    write_canon(&children[i], out);
                }
            }
            out.push(if children.is_some() { '}' } else { ')' });
        }
    }
}

// ---------------------------------------------------------------------------
// reading recorded answers

/// A reader of one recorded answer (the form `write_canon` writes).
struct AnswerReader<'a> {
    text: &'a [u8],
    at: usize,
}

impl AnswerReader<'_> {
    fn read(text: &str) -> Result<Canon, String> {
        let mut reader = AnswerReader {
            text: text.as_bytes(),
            at: 0,
        };
        let value = reader.value()?;
        if reader.at != reader.text.len() {
            return Err(format!("unexpected text at byte {}", reader.at));
        }
        Ok(value)
    }

    fn word(&mut self) -> &str {
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.' | b'_'))
        {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at]).unwrap_or("")
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        if self.text[self.at..].starts_with(token.as_bytes()) {
            self.at += token.len();
            Ok(())
        } else {
            Err(format!("expected {token:?} at byte {}", self.at))
        }
    }

    fn peek(&self, token: &str) -> bool {
        self.text[self.at..].starts_with(token.as_bytes())
    }

    fn number<T: std::str::FromStr>(&mut self) -> Result<T, String> {
        self.expect(" ")?;
        let at = self.at;
        let word = self.word();
        word.parse()
            .map_err(|_| format!("a number expected at byte {at}: {word:?}"))
    }

    fn value(&mut self) -> Result<Canon, String> {
        let at = self.at;
        Ok(match self.word() {
            "undefined" => Canon::Undefined,
            "error" => Canon::Error,
            "parse-error" => Canon::ParseError,
            "bool" => match self.number::<String>()?.as_str() {
                "true" => Canon::Bool(true),
                "false" => Canon::Bool(false),
                other => return Err(format!("not a bool: {other:?}")),
            },
            "int" => Canon::Int(self.number()?),
            "abstime" => Canon::AbsTime(self.number()?),
            "real" => Canon::Real(self.number()?),
            "reltime" => Canon::RelTime(self.number()?),
            "str" => {
                self.expect(" ")?;
                Canon::Str(self.string()?)
            }
            "str-digest" => {
                let n = self.number()?;
                self.expect(" ")?;
                let at = self.at;
                let hex = self.word();
                let h = u64::from_str_radix(hex, 16)
                    .map_err(|_| format!("a hash expected at byte {at}: {hex:?}"))?;
                Canon::StrDigest(n, h)
            }
            "oracle-exception" => {
                self.expect(" ")?;
                Canon::OracleException(self.string()?)
            }
            "list" => {
                let n = self.number()?;
                let children = if self.peek(" [") {
                    self.expect(" [")?;
                    let mut children = Vec::new();
                    while !self.peek("]") {
                        if !children.is_empty() {
                            self.expect(", ")?;
                        }
                        children.push(self.value()?);
                    }
                    self.expect("]")?;
                    Some(children)
                } else {
                    None
                };
                Canon::List(n, children)
            }
            "ad" => {
                self.expect(" ")?;
                let probed = self.peek("{");
                self.expect(if probed { "{" } else { "(" })?;
                let close = if probed { "}" } else { ")" };
                let (mut names, mut children) = (Vec::new(), Vec::new());
                while !self.peek(close) {
                    if !names.is_empty() {
                        self.expect(", ")?;
                    }
                    names.push(if self.peek("\"") {
                        self.string()?
                    } else {
                        self.word().as_bytes().to_vec()
                    });
                    if probed {
                        self.expect(": ")?;
                        children.push(self.value()?);
                    }
                }
                self.expect(close)?;
                Canon::Ad(names, probed.then_some(children))
            }
            other => return Err(format!("unknown answer {other:?} at byte {at}")),
        })
    }

    fn string(&mut self) -> Result<Vec<u8>, String> {
        self.expect("\"")?;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.text.get(self.at) else {
                return Err("an unterminated string".into());
            };
            self.at += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let escape = self.text.get(self.at).copied();
                    self.at += 1;
                    match escape {
                        Some(b'"') => out.push(b'"'),
                        Some(b'\\') => out.push(b'\\'),
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        Some(b'r') => out.push(b'\r'),
                        Some(b'x') => {
                            let hex = self.text.get(self.at..self.at + 2).unwrap_or(b"");
                            let byte = std::str::from_utf8(hex)
                                .ok()
                                .and_then(|h| u8::from_str_radix(h, 16).ok())
                                .ok_or("a bad \\x escape")?;
                            out.push(byte);
                            self.at += 2;
                        }
                        Some(b'u') => {
                            self.expect("{")?;
                            let end = self.text[self.at..]
                                .iter()
                                .position(|&c| c == b'}')
                                .ok_or("a bad \\u escape")?;
                            let hex = std::str::from_utf8(&self.text[self.at..self.at + end])
                                .unwrap_or("");
                            let c = u32::from_str_radix(hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or("a bad \\u escape")?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                            self.at += end + 1;
                        }
                        _ => return Err(format!("a bad escape at byte {}", self.at)),
                    }
                }
                c => out.push(c),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// corpus files, as difftest.py reads them

/// The lines of a file as Python's text mode gives them (universal
/// newlines: `\n`, `\r\n` and `\r` end a line).
fn python_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&bytes[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&bytes[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        lines.push(&bytes[start..]);
    }
    lines
}

/// Python's `str.isspace` (Rust's `char::is_whitespace` and the four
/// information separators).
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Whether difftest.py evaluates this line (not blank, not a `#` comment).
fn is_case(line: &str) -> bool {
    let trimmed = line.trim_matches(python_space);
    !trimmed.is_empty() && !trimmed.starts_with('#')
}

/// FNV-1a, 64 bits: the hash of a long string (record_answers.py's
/// `fnv1a64`).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// FNV-1a, 32 bits: the hash record_answers.py writes before each answer.
fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h: u32, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

// ---------------------------------------------------------------------------
// our side

/// Evaluates lines as `classad eval --batch [--strict]` does.
struct Evaluator {
    parser: Parser,
    registry: Arc<Registry>,
    context: AdRef,
    vm: Vm,
}

impl Evaluator {
    fn new(strict: bool) -> Evaluator {
        let registry = classad::stdlib::shared_registry();
        let context = classad::ad_from_ast_with(&registry, &AdExpr::new()).expect("the empty ad");
        let options = Options {
            strict,
            ..Options::default()
        };
        Evaluator {
            parser: Parser::new(ParseOptions {
                dialect: Dialect::HTCondor,
                strict,
                ..ParseOptions::default()
            }),
            registry,
            context,
            vm: Vm::new(options),
        }
    }

    /// The value of a line, or `None` if it does not parse or compile.
    fn evaluate(&mut self, line: &str) -> Option<Value> {
        let expr = self.parser.parse_expression(line).ok()?;
        let program = classad::compile_with(&self.registry, &expr).ok()?;
        Some(self.vm.evaluate(&program, &self.context))
    }

    /// The canonical value of `expr` at `depth`, its children probed as
    /// canon.py's `canonicalize` probes them.
    fn canon(&mut self, expr: &str, depth: usize) -> Canon {
        match self.head(expr) {
            Canon::List(n, None) if depth < MAX_DEPTH => {
                let children = (0..n.min(MAX_LIST_CHILDREN))
                    .map(|i| self.canon(&format!("({expr})[{i}]"), depth + 1))
                    .collect();
                Canon::List(n, Some(children))
            }
            Canon::Ad(names, None) if depth < MAX_DEPTH => {
                let children = names
                    .iter()
                    .map(|name| {
                        let probe = format!("({expr}).{}", attribute_reference(name));
                        self.canon(&probe, depth + 1)
                    })
                    .collect();
                Canon::Ad(names, Some(children))
            }
            head => head,
        }
    }

    /// The canonical value of `expr` itself, a list or ad unprobed.
    fn head(&mut self, expr: &str) -> Canon {
        match self.evaluate(expr) {
            None => Canon::ParseError,
            Some(value) => classify(&value),
        }
    }
}

/// The canonical head of a value as difftest reads it from the value's
/// printed form.
fn classify(value: &Value) -> Canon {
    match value {
        Value::Undefined => Canon::Undefined,
        Value::Error => Canon::Error,
        Value::Bool(b) => Canon::Bool(*b),
        Value::Int(i) => Canon::Int(*i),
        Value::Real(x) => Canon::Real(*x),
        Value::Str(s) => Canon::Str(s.to_vec()),
        Value::AbsTime(t) => Canon::AbsTime(t.secs),
        Value::RelTime(x) => Canon::RelTime(*x),
        // Printed as `relTime("...")`, which difftest reads as a relative
        // time by its spelling, or as the real itself when the seconds are
        // not whole.
        Value::RelTimeLiteral(x) => match rel_time_literal_text(*x) {
            Some(_) => Canon::RelTime(*x),
            None => Canon::Real(*x),
        },
        Value::List(items) | Value::SharedList(items) => Canon::List(items.len(), None),
        Value::LazyList(list) => Canon::List(list.items.len(), None),
        Value::Ad(ad) => {
            let mut names: Vec<Vec<u8>> = ad
                .body
                .attributes()
                .iter()
                .map(|d| lower_case(d.name().as_bytes()))
                .collect();
            names.sort();
            names.dedup();
            Canon::Ad(names, None)
        }
    }
}

/// A name lower-cased as Python's `str.lower` does it (the oracle's names
/// are Python strings): full Unicode lower case for UTF-8, bytes that are
/// not UTF-8 kept.
fn lower_case(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for chunk in name.utf8_chunks() {
        out.extend_from_slice(chunk.valid().to_lowercase().as_bytes());
        out.extend_from_slice(chunk.invalid());
    }
    out
}

/// A name as it may follow `.` in an expression (canon.py's `attr_ref`).
fn attribute_reference(name: &[u8]) -> String {
    const KEYWORDS: [&str; 7] = [
        "true",
        "false",
        "undefined",
        "error",
        "is",
        "isnt",
        "parent",
    ];
    let text = String::from_utf8_lossy(name);
    let identifier = name
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    if identifier && !KEYWORDS.contains(&text.to_ascii_lowercase().as_str()) {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

// ---------------------------------------------------------------------------
// the test

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpora(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/corpus"))
        .expect("tests/corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .filter(|p| p.file_name().is_some_and(|n| n != OWN_FORMAT))
        .collect();
    files.sort();
    files
}

fn answers_dir(root: &Path) -> PathBuf {
    root.join("tests/corpus/answers")
}

fn answer_file(root: &Path, corpus: &Path, mode: &str) -> PathBuf {
    let stem = corpus.file_stem().unwrap().to_string_lossy();
    answers_dir(root).join(format!("{stem}.{mode}"))
}

/// Answer files whose corpus is gone.
fn stale_answer_files(root: &Path, corpora: &[PathBuf]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(answers_dir(root)) else {
        return Vec::new();
    };
    let mut stale: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| MODES.iter().any(|m| e == *m)))
        .filter(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            !corpora
                .iter()
                .any(|c| c.file_stem().unwrap().to_string_lossy() == stem)
        })
        .collect();
    stale.sort();
    stale
}

/// Runs the recorder (`CLASSAD_RECORD=1`).
fn record(root: &Path, corpora: &[PathBuf]) {
    for stale in stale_answer_files(root, corpora) {
        std::fs::remove_file(&stale).expect("remove a stale answer file");
    }
    let python = std::env::var("CLASSAD_PYTHON").unwrap_or_else(|_| "python3".into());
    let status = std::process::Command::new(&python)
        .arg(root.join("tests/oracle/record_answers.py"))
        .arg("--out")
        .arg(answers_dir(root))
        .args(corpora)
        .status()
        .unwrap_or_else(|e| panic!("CLASSAD_RECORD: {python} does not run: {e}"));
    assert!(
        status.success(),
        "CLASSAD_RECORD: tests/oracle/record_answers.py failed ({status}); \
         it needs ../shared (or CLASSAD_SHARED_DIR) and the oracle"
    );
}

/// Checks one corpus in one mode; failures are appended to `failures`.
/// Returns the number of cases checked.
fn check(
    root: &Path,
    corpus: &Path,
    mode: &str,
    evaluator: &mut Evaluator,
    computed_dir: Option<&Path>,
    failures: &mut Vec<String>,
) -> usize {
    let name = corpus
        .strip_prefix(root)
        .unwrap_or(corpus)
        .display()
        .to_string();
    let answers_path = answer_file(root, corpus, mode);
    let answers_name = answers_path
        .strip_prefix(root)
        .unwrap_or(&answers_path)
        .display()
        .to_string();
    let corpus_bytes = std::fs::read(corpus).expect("a corpus");
    let lines = python_lines(&corpus_bytes);
    // Our answers first, every line, in the answer files' form.
    let computed: Vec<Option<(String, Canon)>> = lines
        .iter()
        .map(|line| {
            let expr = String::from_utf8_lossy(line);
            is_case(&expr).then(|| (format!("{:08x}", fnv1a32(line)), evaluator.canon(&expr, 0)))
        })
        .collect();
    if let Some(dir) = computed_dir {
        let mut text = String::new();
        for answer in &computed {
            if let Some((hash, value)) = answer {
                let _ = write!(text, "{hash} {value}");
            }
            text.push('\n');
        }
        let path = dir.join(answers_path.file_name().unwrap());
        std::fs::write(&path, text).expect("CLASSAD_CORPUS_COMPUTED: write");
    }
    let cases = computed.iter().flatten().count();
    let again = "record them again: CLASSAD_RECORD=1 cargo test -p classad --release --test corpus";
    let Ok(answers_text) = std::fs::read_to_string(&answers_path) else {
        failures.push(format!(
            "{name}: no recorded answers in {answers_name} ({again})"
        ));
        return cases;
    };
    let answers: Vec<&str> = answers_text.lines().collect();
    if answers.len() != lines.len() {
        failures.push(format!(
            "{name}: {} lines, but {answers_name} answers {} lines: the corpus changed since \
             its answers were recorded ({again})",
            lines.len(),
            answers.len()
        ));
        return cases;
    }
    for (index, (answer, ours)) in answers.iter().zip(&computed).enumerate() {
        let number = index + 1;
        let Some((hash, ours)) = ours else {
            continue;
        };
        let expr = String::from_utf8_lossy(lines[index]);
        let Some((recorded_hash, recorded)) = answer.split_once(' ') else {
            failures.push(format!(
                "{answers_name}:{number}: no answer recorded for {name}:{number} ({again}): {expr}"
            ));
            continue;
        };
        if recorded_hash != hash {
            failures.push(format!(
                "{name}:{number}: the line changed since its answer was recorded ({again}): {expr}"
            ));
            continue;
        }
        match AnswerReader::read(recorded) {
            Err(e) => failures.push(format!(
                "{answers_name}:{number}: unreadable answer ({e}): {recorded}"
            )),
            Ok(recorded) if !equal(&recorded, ours) => failures.push(format!(
                "{name}:{number} ({mode} mode): {expr}\n  recorded: {recorded}\n  computed: {ours}"
            )),
            Ok(_) => {}
        }
    }
    cases
}

/// Checks every corpus in every mode on `threads` threads, the largest
/// corpora first, each with the stack `classad eval` has (the main
/// thread's 8 MiB) so that the depth bounds answer as they do there.
/// Returns the number of cases and the failures, in corpus order.
fn check_all(root: &Path, corpora: &[PathBuf], threads: usize) -> (usize, Vec<String>) {
    let computed_dir = std::env::var_os("CLASSAD_CORPUS_COMPUTED").map(PathBuf::from);
    if let Some(dir) = &computed_dir {
        std::fs::create_dir_all(dir).expect("CLASSAD_CORPUS_COMPUTED: make the directory");
    }
    let mut jobs: Vec<(usize, &Path, &str)> = Vec::new();
    for corpus in corpora {
        for mode in MODES {
            jobs.push((jobs.len(), corpus, mode));
        }
    }
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    jobs.sort_by_key(|&(_, corpus, _)| std::cmp::Reverse(size(corpus)));
    let queue = std::sync::Mutex::new(jobs.into_iter());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(scope, || {
                    let mut evaluators = [Evaluator::new(false), Evaluator::new(true)];
                    loop {
                        let Some((order, corpus, mode)) = queue.lock().unwrap().next() else {
                            break;
                        };
                        let evaluator = &mut evaluators[usize::from(mode == "strict")];
                        let mut failures = Vec::new();
                        let dir = computed_dir.as_deref();
                        let cases = check(root, corpus, mode, evaluator, dir, &mut failures);
                        results.lock().unwrap().push((order, cases, failures));
                    }
                })
                .expect("a thread");
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|&(order, _, _)| order);
    let cases = results.iter().map(|(_, n, _)| n).sum();
    (cases, results.into_iter().flat_map(|(_, _, f)| f).collect())
}

#[test]
fn every_corpus_line_gives_the_recorded_answer_in_both_modes() {
    let root = repository();
    let corpora = corpora(&root);
    assert!(corpora.len() > 20, "the corpora: {corpora:?}");
    if std::env::var_os("CLASSAD_RECORD").is_some_and(|v| !v.is_empty() && v != "0") {
        record(&root, &corpora);
    }
    let mut failures: Vec<String> = stale_answer_files(&root, &corpora)
        .iter()
        .map(|p| format!("{}: answers for a corpus that is gone", p.display()))
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (cases, mut found) = check_all(&root, &corpora, threads);
    failures.append(&mut found);
    eprintln!(
        "{cases} cases checked in {} corpora, both modes",
        corpora.len()
    );
    if !failures.is_empty() {
        let mut message = format!(
            "{} of {cases} cases differ from HTCondor's recorded answers:\n",
            failures.len()
        );
        for failure in failures.iter().take(SHOWN) {
            message.push_str(failure);
            message.push('\n');
        }
        if failures.len() > SHOWN {
            let _ = writeln!(message, "... and {} more", failures.len() - SHOWN);
        }
        panic!("{message}");
    }
}

// ---------------------------------------------------------------------------
// the pieces themselves

#[test]
fn answers_read_back_as_written() {
    for text in [
        "undefined",
        "parse-error",
        "bool false",
        "int -9223372036854775808",
        "real 1e-05",
        "real -inf",
        "reltime 86400.0",
        "abstime -62135596800",
        r#"str "a\"b\\c\n\t\r\xff\u{85}é""#,
        "list 2 [int 1, list 0 []]",
        "list 20",
        r#"ad {a: int 1, "b c": ad (x, y), "\xfe": str ""}"#,
        "ad {}",
        "str-digest 2000 0123456789abcdef",
        r#"oracle-exception "RuntimeError: x""#,
    ] {
        let value = AnswerReader::read(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let again = AnswerReader::read(&value.to_string()).expect("written answers read back");
        assert!(equal(&value, &again), "{text} -> {value} -> {again}");
    }
    // Python's spellings of reals that Rust writes otherwise.
    assert!(matches!(AnswerReader::read("real nan"), Ok(Canon::Real(x)) if x.is_nan()));
    assert!(matches!(AnswerReader::read("real 1e+100"), Ok(Canon::Real(x)) if x == 1e100));
    for bad in [
        "int",
        "int x",
        "str \"a",
        "list 2 [int 1",
        "ad {a int 1}",
        "pair 1 2",
        "int 1 ",
    ] {
        assert!(
            AnswerReader::read(bad).is_err(),
            "{bad:?} read as an answer"
        );
    }
}

#[test]
fn reals_are_written_as_python_writes_them() {
    for (x, python) in [
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (2.5, "2.5"),
        (100.0, "100.0"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (1e16, "1e+16"),
        (1.5e16, "1.5e+16"),
        (1234567890123456.0, "1234567890123456.0"),
        (-1.25e-300, "-1.25e-300"),
        (0.1, "0.1"),
        (f64::MAX, "1.7976931348623157e+308"),
    ] {
        let mut out = String::new();
        write_real(x, &mut out);
        assert_eq!(out, python, "{x:e}");
    }
}

#[test]
fn comparison_follows_difftest() {
    let one = 1.0f64;
    let next = f64::from_bits(one.to_bits() + 2);
    let too_far = f64::from_bits(one.to_bits() + 3);
    assert!(equal(&Canon::Real(one), &Canon::Real(next)));
    assert!(!equal(&Canon::Real(one), &Canon::Real(too_far)));
    assert!(equal(&Canon::Real(0.0), &Canon::Real(-0.0)));
    assert!(equal(&Canon::Real(f64::NAN), &Canon::Real(f64::NAN)));
    assert!(!equal(
        &Canon::Real(f64::INFINITY),
        &Canon::Real(f64::NEG_INFINITY)
    ));
    assert!(!equal(&Canon::Int(3), &Canon::Real(3.0)));
    assert!(!equal(&Canon::Real(3.0), &Canon::RelTime(3.0)));
    assert!(equal(&Canon::OracleException(vec![]), &Canon::Int(1)));
    assert!(!equal(&Canon::List(2, None), &Canon::List(2, Some(vec![]))));
    assert!(!equal(
        &Canon::Ad(vec![b"a".to_vec()], Some(vec![Canon::Int(1)])),
        &Canon::Ad(vec![b"a".to_vec()], Some(vec![Canon::Int(2)]))
    ));
}

#[test]
fn lines_and_cases_are_difftests() {
    assert_eq!(python_lines(b"a\nb\r\nc\rd"), [&b"a"[..], b"b", b"c", b"d"]);
    assert_eq!(python_lines(b"a\n\n"), [&b"a"[..], b""]);
    assert!(!is_case("  # a comment"));
    assert!(!is_case(" \u{1f}\t"));
    assert!(is_case(" 1 # not a comment"));
    // Known values of FNV-1a 32.
    assert_eq!(fnv1a32(b""), 0x811c_9dc5);
    assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    let long = vec![b'x'; LONG_STRING + 1];
    let digest = AnswerReader::read(&Canon::Str(long.clone()).to_string()).expect("a digest");
    assert!(matches!(digest, Canon::StrDigest(..)), "{digest}");
    assert!(equal(&digest, &Canon::Str(long)));
    assert!(!equal(&digest, &Canon::Str(vec![b'y'; LONG_STRING + 1])));
}

#[test]
fn probes_are_canons() {
    assert_eq!(attribute_reference(b"abc"), "abc");
    assert_eq!(attribute_reference(b"parent"), "'parent'");
    assert_eq!(attribute_reference(b"a b'c"), "'a b\\'c'");
    let mut evaluator = Evaluator::new(false);
    let value = evaluator.canon("{1, [a = 2; B = {3}], 2.5}", 0);
    assert_eq!(
        value.to_string(),
        "list 3 [int 1, ad {a: int 2, b: list 1 [int 3]}, real 2.5]"
    );
    assert!(matches!(evaluator.canon("1 +", 0), Canon::ParseError));
}
