//! Reading configuration sources: statements (definitions, `@=` values,
//! `include`, `if`, `warning`, `error`), and the order in which HTCondor
//! reads its files and environment.
//!
//! HTCondor stops at the first bad line; we report it with its file and
//! line and go on, so one mistake never hides the rest of a file.

use crate::expand::long_param;
use crate::lines::{Lines, is_space};
use crate::{CONDOR_VERSION, Config, Host, MAX_INCLUDE_DEPTH, Severity, Source, is_valid_name};
use classad::syntax::read::InputTooLong;

fn starts_with_word(line: &str, word: &str) -> bool {
    line.len() >= word.len()
        && line.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        && line[word.len()..].chars().next().is_none_or(is_space)
}

/// HTCondor's `matches_literal_ignore_case`: `text` (after leading space)
/// begins with `lit`; then either only space follows (`whole`) or the next
/// character is not alphanumeric.
fn matches_literal(text: &str, lit: &str, whole: bool) -> bool {
    let t = text.trim_start_matches(is_space);
    if t.len() < lit.len() || !t.as_bytes()[..lit.len()].eq_ignore_ascii_case(lit.as_bytes()) {
        return false;
    }
    let rest = &t[lit.len()..];
    if whole {
        rest.trim_start_matches(is_space).is_empty()
    } else {
        !rest
            .as_bytes()
            .first()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Empty,
    Number,
    Bool,
    Identifier,
    Macro,
    Version,
    IfDef,
    Complex,
}

const SPACE: u32 = 0x01;
const DIGIT: u32 = 0x02;
const ALPHA: u32 = 0x04;
const IDENT: u32 = 0x08;
const CMP: u32 = 0x10;
const SUM: u32 = 0x20;
const LOGIC: u32 = 0x40;
const GROUP: u32 = 0x80;
const MONEY: u32 = 0x100;
const COLON: u32 = 0x200;
const OTHER: u32 = 0x400;
const FLOAT: u32 = 0x1000;
const MACRO: u32 = 0x2000;

/// What an `if` condition looks like, by the classes of characters in it
/// (HTCondor decides the same way).
fn characterize(expr: &str, keywords: bool) -> Kind {
    let begin = expr.trim_start_matches(is_space);
    if begin.is_empty() {
        return Kind::Empty;
    }
    let bytes = begin.as_bytes();
    let mut i = usize::from(bytes[0] == b'-');
    let mut set = 0u32;
    while i < bytes.len() {
        let ch = bytes[i];
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        i += 1;
        set |= match ch {
            b'0'..=b'9' => DIGIT,
            b'.' => {
                if set == DIGIT || next == 0 || next.is_ascii_digit() {
                    FLOAT
                } else {
                    IDENT
                }
            }
            b'e' | b'E' => {
                if set & !FLOAT == DIGIT {
                    FLOAT
                } else {
                    ALPHA
                }
            }
            b'-' | b'+' => {
                if set != DIGIT | FLOAT {
                    SUM
                } else {
                    0
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' => ALPHA,
            b'_' | b'/' => IDENT,
            b'<'..=b'>' => CMP,
            b'!' if next == b'=' => CMP,
            b'$' => MONEY | if next == b'(' { MACRO } else { 0 },
            c if is_space(c as char) => {
                if next != 0 && !is_space(next as char) {
                    SPACE
                } else {
                    0
                }
            }
            b'&' | b'|' => LOGIC,
            b'{' | b'}' | b'(' | b')' | b'[' | b']' => GROUP,
            b':' => COLON,
            _ => OTHER,
        };
    }
    let version_or_defined = |word: &str, kind: Kind| {
        if keywords && matches_literal(begin, word, false) {
            kind
        } else {
            Kind::Complex
        }
    };
    match set {
        0 => Kind::Empty,
        s if s == DIGIT || s == DIGIT | FLOAT => Kind::Number,
        ALPHA => {
            if matches_literal(expr, "false", true) || matches_literal(expr, "true", true) {
                Kind::Bool
            } else if keywords && matches_literal(begin, "version", true) {
                Kind::Version
            } else if keywords && matches_literal(begin, "defined", true) {
                Kind::IfDef
            } else {
                Kind::Identifier
            }
        }
        s if s == ALPHA | DIGIT
            || s == ALPHA | DIGIT | FLOAT
            || s == ALPHA | IDENT
            || s == ALPHA | IDENT | DIGIT
            || s == ALPHA | IDENT | DIGIT | FLOAT =>
        {
            Kind::Identifier
        }
        s if s == ALPHA | SPACE | CMP | DIGIT || s == ALPHA | SPACE | CMP | DIGIT | FLOAT => {
            version_or_defined("version", Kind::Version)
        }
        s if [
            ALPHA | SPACE,
            ALPHA | SPACE | COLON,
            ALPHA | SPACE | IDENT,
            ALPHA | SPACE | IDENT | COLON,
            ALPHA | SPACE | DIGIT,
            ALPHA | SPACE | DIGIT | IDENT,
            ALPHA | SPACE | DIGIT | FLOAT,
            ALPHA | SPACE | DIGIT | IDENT | FLOAT,
        ]
        .contains(&s) =>
        {
            version_or_defined("defined", Kind::IfDef)
        }
        s if s & MACRO != 0 && s & !(MONEY | IDENT | ALPHA | DIGIT | MACRO | COLON) == 0 => {
            Kind::Macro
        }
        _ => {
            let _ = (SUM, LOGIC, GROUP, OTHER);
            Kind::Complex
        }
    }
}

fn crufty_bool(text: &str) -> Option<bool> {
    if matches_literal(text, "yes", true) || matches_literal(text, "t", true) {
        Some(true)
    } else if matches_literal(text, "no", true) || matches_literal(text, "f", true) {
        Some(false)
    } else {
        None
    }
}

fn atof(text: &str) -> f64 {
    let t = text.trim_matches(is_space);
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0)))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().unwrap_or(0.0)
}

/// `x.y.z` or `x.y` (then `z` is ours), with an optional `v`.
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let t = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let mut fields = Vec::new();
    for part in t.splitn(3, '.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        fields.push(digits.parse::<u32>().ok()?);
        if digits.len() != part.len() {
            break;
        }
    }
    if fields.len() < 2 || fields[0] < 6 {
        return None;
    }
    Some((
        fields[0],
        fields[1],
        fields.get(2).copied().unwrap_or(CONDOR_VERSION.2),
    ))
}

fn evaluate_condition(config: &Config, expr: &str) -> Result<bool, String> {
    let kind = characterize(expr, true);
    match kind {
        Kind::Number => return Ok(atof(expr) != 0.0),
        Kind::Bool => return Ok(matches_literal(expr, "true", true)),
        Kind::Identifier => {
            if let Some(b) = crufty_bool(expr) {
                return Ok(b);
            }
        }
        Kind::Version => {
            let mut rest = expr.trim_start_matches(is_space)[7..].trim_start_matches(is_space);
            let negated = rest.starts_with('!');
            if negated {
                rest = &rest[1..];
            }
            let mut op = 0i32;
            let mut or_equal = false;
            if let Some(c @ b'<'..=b'>') = rest.bytes().next() {
                op = i32::from(c) - i32::from(b'=');
                rest = &rest[1..];
            }
            if rest.starts_with('=') {
                or_equal = true;
                rest = &rest[1..];
            }
            let rest = rest.trim_start_matches(is_space);
            let Some(version) = parse_version(rest) else {
                return Err("the version literal is invalid".into());
            };
            let diff = match CONDOR_VERSION.cmp(&version) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            };
            let result = diff == op || (or_equal && diff == 0);
            return Ok(result != negated);
        }
        Kind::IfDef => {
            let rest = expr.trim_start_matches(is_space)[7..].trim_start_matches(is_space);
            if rest.is_empty() {
                return Ok(false);
            }
            return match characterize(rest, false) {
                Kind::Identifier => {
                    let value = config.raw(rest.trim_end_matches(is_space));
                    if value.is_none() && crufty_bool(rest).is_some() {
                        return Ok(true);
                    }
                    Ok(value.is_some_and(|v| !v.is_empty()))
                }
                Kind::Number | Kind::Bool => Ok(true),
                _ if matches_literal(rest, "use", false) => Ok(false),
                _ => Err("defined argument must be param name, boolean, or number".into()),
            };
        }
        _ => {}
    }
    if kind == Kind::Complex {
        Err("complex conditionals are not supported".into())
    } else {
        Err("expression is not a conditional".into())
    }
}

/// HTCondor's `Test_config_if_expression`.
/// Whether the branch of an `if` or `elif` (`keyword`) on `expr` is taken:
/// never when it is not `open` (its condition is then not read), else
/// when `expr` holds; false, with the error, when `expr` is not a condition.
fn branch_taken(config: &Config, keyword: &str, expr: &str, open: bool) -> (bool, Option<String>) {
    if !open {
        return (false, None);
    }
    match test_condition(config, expr) {
        Ok(taken) => (taken, None),
        Err(reason) => (
            false,
            Some(format!(
                "{expr} is not a valid {keyword} condition because {reason}"
            )),
        ),
    }
}

fn test_condition(config: &Config, expr: &str) -> Result<bool, String> {
    let expanded;
    let mut e = expr;
    let has_macros = expr.contains('$');
    if has_macros {
        expanded = config.expand(expr).map_err(|err| err.0)?;
        e = expanded.trim_end_matches(is_space);
    }
    e = e.trim_start_matches(is_space);
    let inverted = e.starts_with('!');
    if inverted {
        e = e[1..].trim_start_matches(is_space);
    }
    let value = if has_macros && e.is_empty() {
        false
    } else {
        evaluate_condition(config, e)?
    };
    Ok(value != inverted)
}

/// The state of nested `if`s as bit masks, one bit a level (bit 0 is the
/// file itself): `state` says which levels are on, `taken` which levels
/// had a true branch already, `open` which levels have not seen `else`.
struct IfStack {
    state: u64,
    taken: u64,
    open: u64,
    top: u64,
}

impl IfStack {
    fn new() -> IfStack {
        IfStack {
            state: 1,
            taken: 0,
            open: 0,
            top: 1,
        }
    }
    fn enabled(&self) -> bool {
        let mask = self.top | (self.top - 1);
        self.state & mask == mask
    }
    fn inside_if(&self) -> bool {
        self.top > 1
    }
    fn inside_else(&self) -> bool {
        self.top > 1 && self.open & self.top == 0
    }
    fn begin_if(&mut self, on: bool) -> bool {
        self.top <<= 1;
        if self.top == 0 {
            // Too deep: stay at the deepest level, off.
            self.top = 1 << 63;
            self.state &= !self.top;
            return false;
        }
        self.open |= self.top;
        if on {
            self.state |= self.top;
            self.taken |= self.top;
        } else {
            self.state &= !self.top;
            self.taken &= !self.top;
        }
        true
    }
    fn begin_else(&mut self) -> bool {
        if self.open & self.top == 0 {
            return false;
        }
        self.open &= !self.top;
        if (self.taken | self.state) & self.top != 0 {
            self.state &= !self.top;
        } else {
            self.state |= self.top;
        }
        self.top > 1
    }
    fn begin_elif(&mut self, on: bool) -> bool {
        if self.open & self.top == 0 {
            return false;
        }
        if self.taken & self.top != 0 {
            self.state &= !self.top;
        } else if on {
            self.taken |= self.top;
            self.state |= self.top;
        } else {
            self.state &= !self.top;
        }
        self.top > 1
    }
    fn end_if(&mut self) -> bool {
        self.open &= !self.top;
        self.top >>= 1;
        if self.top == 0 {
            *self = IfStack::new();
            return false;
        }
        true
    }

    /// Handles `line` if it is `if`, `elif`, `else` or `endif`.
    fn line(&mut self, config: &Config, line: &str) -> Option<Result<(), String>> {
        if starts_with_word(line, "if") {
            let expr = line[2..].trim_start_matches(is_space);
            let (on, error) = branch_taken(config, "if", expr, self.enabled());
            if !self.begin_if(on) {
                return Some(Err("if nesting too deep!".into()));
            }
            return Some(error.map_or(Ok(()), Err));
        }
        if starts_with_word(line, "else") {
            if !self.begin_else() {
                return Some(Err(if self.inside_else() {
                    "else is not allowed after else".into()
                } else {
                    "else without matching if".into()
                }));
            }
            return Some(Ok(()));
        }
        if starts_with_word(line, "elif") {
            let expr = line[4..].trim_start_matches(is_space);
            let outer = (self.top - 1) & self.state == self.top - 1;
            let open = self.taken & self.top == 0 && outer;
            let (on, error) = branch_taken(config, "elif", expr, open);
            if !self.begin_elif(on) {
                return Some(Err(if self.inside_else() {
                    "elif is not allowed after else".into()
                } else {
                    "elif without matching if".into()
                }));
            }
            return Some(error.map_or(Ok(()), Err));
        }
        if starts_with_word(line, "endif") {
            if !self.end_if() {
                return Some(Err("endif without matching if".into()));
            }
            return Some(Ok(()));
        }
        None
    }
}

/// A `NAME @=tag` value being gathered.
struct HereDoc {
    name: String,
    tag: String,
    lines: Vec<String>,
}

/// Where a statement is.
struct At<'a> {
    file: &'a str,
    line: u32,
    depth: usize,
}

impl At<'_> {
    fn source(&self) -> Source {
        Source {
            file: self.file.to_string(),
            line: self.line,
        }
    }
}

fn error(config: &mut Config, at: &At<'_>, message: String) {
    config.diagnose(Severity::Error, at.file, at.line, message);
}

/// Reads one source (file, command output, string) into `config`.
pub(crate) fn read_text(
    config: &mut Config,
    host: &dyn Host,
    file: &str,
    text: &str,
    depth: usize,
    stack: &mut Vec<String>,
) {
    config.files.push(file.to_string());
    stack.push(file.to_string());
    let mut lines = Lines::new(text);
    let mut ifs = IfStack::new();
    let mut here: Option<HereDoc> = None;
    while let Some(line) = lines.next() {
        let at = At {
            file,
            line: lines.line,
            depth,
        };
        if line.starts_with('#') || line.chars().all(is_space) {
            continue;
        }
        if let Some(doc) = here.as_mut() {
            if line.strip_prefix('@') == Some(doc.tag.as_str()) {
                let doc = here.take().expect("a here document");
                let body = doc.lines.join("\n");
                match config.expand_self(&body, &doc.name) {
                    Ok(value) => config.insert(&doc.name, value, at.source()),
                    Err(e) => error(config, &at, e.0),
                }
            } else {
                doc.lines.push(line);
            }
            continue;
        }
        let mut statement: &str = &line;
        if let Some(rest) = statement.strip_prefix(':')
            && (ifs.inside_if() || (rest.starts_with("if") && starts_with_word(rest, "if")))
        {
            statement = rest;
        }
        match ifs.line(config, statement) {
            Some(Ok(())) => continue,
            Some(Err(message)) => {
                error(config, &at, message);
                continue;
            }
            None => {}
        }
        if !ifs.enabled() {
            continue;
        }
        if let Some(doc) = read_statement(config, host, &at, statement, stack) {
            here = Some(doc);
        }
    }
    let end = At {
        file,
        line: lines.line,
        depth,
    };
    if let Some(doc) = here {
        error(
            config,
            &end,
            format!("found end-of-file while scanning for '@{}'", doc.tag),
        );
    }
    if ifs.inside_if() {
        error(config, &end, "endif(s) not found before end-of-file".into());
    }
    stack.pop();
}

fn is_op(c: u8) -> bool {
    c == b'=' || c == b':'
}

/// One statement that is not part of an `if`. Returns a here document
/// that starts here.
fn read_statement(
    config: &mut Config,
    host: &dyn Host,
    at: &At<'_>,
    line: &str,
    stack: &mut Vec<String>,
) -> Option<HereDoc> {
    let b = line.as_bytes();
    let len = b.len();
    let mut p = 0;
    while p < len && !is_space(b[p] as char) && !is_op(b[p]) {
        p += 1;
    }
    if p == len {
        if !line.starts_with('[') {
            error(
                config,
                at,
                format!("expected `NAME = value`, found `{line}` (no operator)"),
            );
        }
        return None;
    }
    let name_raw = &line[..p];
    let mut op = b[p];
    let mut q = p + 1;
    let mut op_at = p;
    if !is_op(op) {
        while q < len && is_space(b[q] as char) {
            q += 1;
        }
        while q < len && !is_op(b[q]) && b[q] != b'@' {
            q += 1;
        }
        op_at = q;
        op = if q < len { b[q] } else { 0 };
        if op != 0 {
            q += 1;
            if op == b'@' {
                if q < len && b[q] == b'=' {
                    q += 1;
                } else {
                    op = 0;
                }
            }
        }
    }
    if !is_op(op) && op != b'@' {
        error(
            config,
            at,
            format!("syntax error, missing : or = in `{line}`"),
        );
        return None;
    }
    while q < len && is_space(b[q] as char) {
        q += 1;
    }
    let rhs = &line[q..];
    let keyword = name_raw.strip_prefix('@').unwrap_or(name_raw);
    let is = |word: &str| op == b':' && keyword.eq_ignore_ascii_case(word);
    if is("error") || is("warning") {
        let message = config.expand(rhs).unwrap_or_else(|_| rhs.to_string());
        let severity = if is("error") {
            Severity::Error
        } else {
            Severity::Warning
        };
        config.diagnose(severity, at.file, at.line, message);
        return None;
    }
    if is("use") {
        // HTCondor applies one of its built-in templates here; we do not
        // have them, so the configuration is still usable but incomplete.
        config.diagnose(
            Severity::Warning,
            at.file,
            at.line,
            format!("`{line}`: configuration templates (metaknobs) are not supported; ignored"),
        );
        return None;
    }
    if is("include") {
        let options = line[p..op_at].trim_matches(is_space);
        include(config, host, at, options, rhs, stack);
        return None;
    }
    if op == b':' && !name_raw.eq_ignore_ascii_case("RunBenchmarks") {
        config.diagnose(
            Severity::Warning,
            at.file,
            at.line,
            format!("obsolete use of ':' for parameter assignment at {name_raw} : {rhs}"),
        );
    }
    let name = match config.expand(name_raw) {
        Ok(n) => n,
        Err(e) => {
            error(config, at, e.0);
            return None;
        }
    };
    if !is_valid_name(&name) {
        let hint = if name.is_empty() {
            " (a last line without a newline keeps its leading space, as in HTCondor)"
        } else {
            ""
        };
        error(config, at, format!("Illegal Identifier: <{name}>{hint}"));
        return None;
    }
    if op == b'@' {
        return Some(HereDoc {
            name,
            tag: rhs.to_string(),
            lines: Vec::new(),
        });
    }
    match config.expand_self(rhs, &name) {
        Ok(value) => config.insert(&name, value, at.source()),
        Err(e) => error(config, at, e.0),
    }
    None
}

/// Splits a command line into program and arguments (HTCondor's plain
/// argument syntax: words separated by spaces).
fn command_words(cmd: &str) -> Vec<String> {
    cmd.split(is_space)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn commands_off(config: &mut Config, at: &At<'_>, what: &str) {
    error(
        config,
        at,
        format!(
            "not running `{what}`: running commands from configuration is off; \
             allow it with `classad config -allow-commands` (Options::allow_commands)"
        ),
    );
}

/// Runs a command for an include; `None` after reporting why not.
fn run(config: &mut Config, host: &dyn Host, at: &At<'_>, cmd: &str) -> Option<(Vec<u8>, i32)> {
    if !config.options.allow_commands {
        commands_off(config, at, cmd);
        return None;
    }
    let argv = command_words(cmd);
    let left = bytes_left(config, at)?;
    match host.run_command(&argv, left) {
        Ok(result) => {
            charge(config, result.0.len());
            Some(result)
        }
        Err(e) if InputTooLong::of(&e).is_some() => {
            over_budget(config, at, &format!("the output of `{cmd}`"));
            None
        }
        Err(e) => {
            error(config, at, format!("not a valid command `{cmd}`: {e}"));
            None
        }
    }
}

/// Why a file was not read.
enum ReadFailure {
    /// It could not be read (the callers say so, or not for `ifexist`).
    Io(std::io::Error),
    /// Reading it would pass [`crate::Options::max_input`]; said already.
    OverBudget,
}

/// Bytes that may still be read, charging one source; `None` (said) when
/// the bound was reached.
fn bytes_left(config: &mut Config, at: &At<'_>) -> Option<u64> {
    let left = config.options.max_input.saturating_sub(config.read_total);
    if left == 0 {
        over_budget(config, at, "more configuration");
        return None;
    }
    config.read_total = config.read_total.saturating_add(crate::SOURCE_CHARGE);
    Some(left.saturating_sub(crate::SOURCE_CHARGE))
}

fn charge(config: &mut Config, bytes: usize) {
    config.read_total = config.read_total.saturating_add(bytes as u64);
}

/// Says once that the bound on configuration text was reached.
fn over_budget(config: &mut Config, at: &At<'_>, what: &str) {
    if std::mem::replace(&mut config.read_refused, true) {
        return;
    }
    let limit = classad::syntax::read::human_bytes(config.options.max_input);
    error(
        config,
        at,
        format!(
            "not reading {what}: the configuration read passes {limit} in all \
             (files, included files and command output), the limit; \
             raise it with `classad config --max-input BYTES` (Options::max_input)"
        ),
    );
}

/// Reads a file within what is left of [`crate::Options::max_input`].
fn read_bounded(
    config: &mut Config,
    host: &dyn Host,
    at: &At<'_>,
    path: &str,
) -> Result<Vec<u8>, ReadFailure> {
    let left = bytes_left(config, at).ok_or(ReadFailure::OverBudget)?;
    match host.read_file(path, left) {
        Ok(bytes) => {
            charge(config, bytes.len());
            Ok(bytes)
        }
        Err(e) if InputTooLong::of(&e).is_some() => {
            over_budget(config, at, path);
            Err(ReadFailure::OverBudget)
        }
        Err(e) => Err(ReadFailure::Io(e)),
    }
}

/// Reads a source (file or command) into the configuration, nested.
#[allow(clippy::too_many_arguments)]
fn read_nested(
    config: &mut Config,
    host: &dyn Host,
    at: &At<'_>,
    label: &str,
    text: &[u8],
    stack: &mut Vec<String>,
) {
    if at.depth + 1 >= MAX_INCLUDE_DEPTH {
        error(
            config,
            at,
            format!("includes nested too deep (more than {MAX_INCLUDE_DEPTH}) at {label}"),
        );
        return;
    }
    let text = String::from_utf8_lossy(text);
    read_text(config, host, label, &text, at.depth + 1, stack);
}

fn include(
    config: &mut Config,
    host: &dyn Host,
    at: &At<'_>,
    options: &str,
    target: &str,
    stack: &mut Vec<String>,
) {
    let mut words = options.split(is_space).filter(|w| !w.is_empty()).peekable();
    let (mut if_exists, mut command, mut into) = (false, false, None);
    let mut bad = false;
    if let Some(&w) = words.peek()
        && (w == "ifexist" || w == "ifexists")
    {
        if_exists = true;
        words.next();
    }
    if let Some(w) = words.next() {
        if w == "output" || w == "command" {
            command = true;
            if let Some(w) = words.next() {
                if w == "into" {
                    match words.next() {
                        Some(file) => into = Some(file.to_string()),
                        None => {
                            error(config, at, "expected filename after keyword 'into'".into());
                            return;
                        }
                    }
                } else {
                    bad = true;
                }
            }
        } else {
            bad = true;
        }
    }
    if bad || words.next().is_some() {
        error(
            config,
            at,
            format!("unexpected keyword(s) '{options}' after include"),
        );
        return;
    }
    let source = match config.expand(target) {
        Ok(s) => s,
        Err(e) => {
            error(config, at, e.0);
            return;
        }
    };
    let is_pipe = source.contains('|');
    let is_command = command || is_pipe;
    let cmd = if is_pipe {
        source.trim_end_matches(['|', ' ']).to_string()
    } else {
        source.clone()
    };
    let label = if is_command {
        format!("{cmd} |")
    } else {
        source.clone()
    };
    if is_pipe && !source.ends_with('|') {
        error(
            config,
            at,
            format!("not a valid command `{source}`, | must be at the end"),
        );
        return;
    }
    if stack.contains(&label) {
        let mut chain: Vec<&str> = stack.iter().map(String::as_str).collect();
        chain.push(&label);
        error(config, at, format!("include loop: {}", chain.join(" -> ")));
        return;
    }
    if let Some(into) = into {
        let into = match config.expand(&into) {
            Ok(s) => s,
            Err(e) => {
                error(config, at, e.0);
                return;
            }
        };
        if into.ends_with('|') {
            error(
                config,
                at,
                "destination for 'include into' may not be a script".into(),
            );
            return;
        }
        if into.is_empty() {
            error(
                config,
                at,
                "destination for 'include into' expanded to ''".into(),
            );
            return;
        }
        match read_bounded(config, host, at, &into) {
            Ok(cached) => {
                read_nested(config, host, at, &label, &cached, stack);
                return;
            }
            Err(ReadFailure::OverBudget) => return,
            Err(ReadFailure::Io(_)) => {}
        }
        let output = if is_command {
            match run(config, host, at, &cmd) {
                Some((out, 0)) => out,
                Some((_, status)) => {
                    if !if_exists {
                        error(
                            config,
                            at,
                            format!("command `{cmd}` exited with error {status}"),
                        );
                    }
                    return;
                }
                None => return,
            }
        } else {
            match read_bounded(config, host, at, &source) {
                Ok(b) => b,
                Err(ReadFailure::OverBudget) => return,
                Err(ReadFailure::Io(e)) => {
                    if !if_exists {
                        error(config, at, format!("can't open input file {source}: {e}"));
                    }
                    return;
                }
            }
        };
        if let Err(e) = host.write_file(&into, &output) {
            error(config, at, format!("can't open '{into}' for write: {e}"));
            return;
        }
        read_nested(config, host, at, &label, &output, stack);
        return;
    }
    if is_command {
        if let Some((out, status)) = run(config, host, at, &cmd) {
            read_nested(config, host, at, &label, &out, stack);
            if status != 0 {
                error(
                    config,
                    at,
                    format!("command `{cmd}` terminated with exit code {status}"),
                );
            }
        }
        return;
    }
    match read_bounded(config, host, at, &source) {
        Ok(text) => read_nested(config, host, at, &label, &text, stack),
        Err(ReadFailure::OverBudget) => {}
        Err(ReadFailure::Io(e)) => {
            if !if_exists {
                error(config, at, format!("can't open file {source}: {e}"));
            }
        }
    }
}

/// Reads one whole source named by a path (or a command ending in `|`),
/// at the top level.
fn read_source(config: &mut Config, host: &dyn Host, path: &str, required: bool, what: &str) {
    let at = At {
        file: what,
        line: 0,
        depth: 0,
    };
    let path = path.trim_matches(is_space);
    if path.ends_with('|') {
        let cmd = path.trim_end_matches(['|', ' ']);
        if let Some((out, status)) = run(config, host, &at, cmd) {
            let text = String::from_utf8_lossy(&out).into_owned();
            read_text(config, host, &format!("{cmd} |"), &text, 0, &mut Vec::new());
            if status != 0 {
                error(
                    config,
                    &at,
                    format!("command `{cmd}` terminated with exit code {status}"),
                );
            }
        }
        return;
    }
    match read_bounded(config, host, &at, path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            read_text(config, host, path, &text, 0, &mut Vec::new());
        }
        Err(ReadFailure::OverBudget) => {}
        Err(ReadFailure::Io(e)) => {
            if required {
                error(
                    config,
                    &at,
                    format!("cannot read configuration file {path}: {e}"),
                );
            }
        }
    }
}

fn value_of(config: &Config, name: &str) -> String {
    config.get(name).ok().flatten().unwrap_or_default()
}

fn list(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || is_space(c))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// HTCondor's default `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`: hidden files,
/// editor backups and package-manager leftovers.
fn excluded(name: &str) -> bool {
    name.starts_with('.')
        || name.starts_with('#')
        || name.ends_with('~')
        || name.ends_with(".rpmsave")
        || name.ends_with(".rpmnew")
}

fn read_dirs(config: &mut Config, host: &dyn Host, dirs: &str) {
    for dir in list(dirs) {
        let Ok(mut names) = host.list_dir(&dir) else {
            continue;
        };
        names.sort();
        for name in names.into_iter().filter(|n| !excluded(n)) {
            let path = format!("{}/{}", dir.trim_end_matches('/'), name);
            read_source(config, host, &path, false, "LOCAL_CONFIG_DIR");
        }
    }
}

fn is_true(text: &str) -> bool {
    let t = text.trim_matches(is_space);
    t.eq_ignore_ascii_case("true")
        || t.eq_ignore_ascii_case("yes")
        || t.eq_ignore_ascii_case("t")
        || long_param(t).is_some_and(|i| i != 0)
}

/// The whole reading order. `main` stands for `CONDOR_CONFIG`.
pub(crate) fn load(config: &mut Config, host: &dyn Host, main: Option<&str>) {
    let facts = host.facts();
    let main = match main {
        Some(p) => Some(p.to_string()),
        None => match host.env("CONDOR_CONFIG") {
            Some(v) if v == "ONLY_ENV" => None,
            Some(v) => Some(v),
            None => {
                let mut places = vec![
                    "/etc/condor/condor_config".to_string(),
                    "/usr/local/etc/condor_config".to_string(),
                ];
                if let Some(t) = &facts.tilde {
                    places.push(format!("{t}/condor_config"));
                }
                // A file too long to read still exists (and is refused
                // when read).
                let found = places.into_iter().find(|p| {
                    host.read_file(p, 0)
                        .map_or_else(|e| InputTooLong::of(&e).is_some(), |_| true)
                });
                if found.is_none() {
                    config.diagnose(
                        Severity::Error,
                        "<Configuration>",
                        0,
                        "no configuration file: CONDOR_CONFIG is not set and none of \
                         /etc/condor/condor_config, /usr/local/etc/condor_config, \
                         ~condor/condor_config exists"
                            .into(),
                    );
                }
                found
            }
        },
    };
    if let Some(path) = main {
        read_source(config, host, &path, true, "CONDOR_CONFIG");
        let dirs = value_of(config, "LOCAL_CONFIG_DIR");
        read_dirs(config, host, &dirs);
        let files = value_of(config, "LOCAL_CONFIG_FILE");
        let required = is_true(&value_of(config, "REQUIRE_LOCAL_CONFIG_FILE"));
        if files.contains('|') {
            read_source(config, host, &files, true, "LOCAL_CONFIG_FILE");
        } else {
            for file in list(&files) {
                read_source(config, host, &file, required, "LOCAL_CONFIG_FILE");
            }
        }
        let dirs_after = value_of(config, "LOCAL_CONFIG_DIR");
        if dirs_after != dirs {
            read_dirs(config, host, &dirs_after);
        }
    }
    if !facts.is_root {
        let file = value_of(config, "USER_CONFIG_FILE");
        let path = if file.starts_with('/') {
            Some(file)
        } else {
            facts
                .home
                .as_ref()
                .map(|h| format!("{}/.condor/{file}", h.trim_end_matches('/')))
        };
        if let Some(path) = path {
            read_source(config, host, &path, false, "USER_CONFIG_FILE");
        }
    }
    let mut vars = host.env_vars();
    vars.sort();
    for (key, value) in vars {
        let Some(name) = key
            .strip_prefix("_CONDOR_")
            .or_else(|| key.strip_prefix("_condor_"))
        else {
            continue;
        };
        if !is_valid_name(name) {
            continue;
        }
        let source = Source {
            file: "<Environment>".to_string(),
            line: 0,
        };
        if let Err(e) = config.set(name, &value, source) {
            config.diagnose(Severity::Error, "<Environment>", 0, e.0);
        }
    }
    config.insert_detected(&facts, true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characterizes_like_htcondor() {
        assert_eq!(characterize("version >= 8.1.6", true), Kind::Version);
        assert_eq!(characterize("defined FOO", true), Kind::IfDef);
        assert_eq!(characterize("1 + 1", true), Kind::Complex);
        assert_eq!(characterize("true", true), Kind::Bool);
        assert_eq!(characterize("-1.5", true), Kind::Number);
        assert_eq!(characterize("yes", true), Kind::Identifier);
        assert_eq!(characterize("$(X)", true), Kind::Complex);
    }

    #[test]
    fn versions() {
        assert_eq!(parse_version("8.2"), Some((8, 2, CONDOR_VERSION.2)));
        assert_eq!(parse_version("v8.2.3"), Some((8, 2, 3)));
        assert_eq!(parse_version("5.1.0"), None);
        assert_eq!(parse_version("8"), None);
    }
}
