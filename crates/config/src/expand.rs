//! Macro expansion: finding `$(NAME)`, `$(NAME:default)` and the function
//! macros in a value, and replacing them as HTCondor does: each
//! replacement is scanned again from where it starts, so values of
//! values expand in turn; `$(DOLLAR)` becomes `$` last of all.
//!
//! Bounded: a chain of names being expanded detects recursive
//! definitions, and [`MAX_EXPANSION_STEPS`], [`MAX_VALUE_LEN`] and
//! [`MAX_FUNCTION_DEPTH`] stop anything else that grows.

use crate::printf::{self, Class};
use crate::{
    Config, ExpandError, MAX_EXPANSION_STEPS, MAX_EXPANSION_WORK, MAX_FUNCTION_DEPTH,
    MAX_VALUE_LEN, is_valid_name,
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Func {
    Normal,
    Env,
    RandomChoice,
    RandomInteger,
    Choice,
    Substr,
    Int,
    Real,
    Str,
    Eval,
    Basename,
    Dirname,
    Filename,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    Anything,
    IdColon,
}

/// One macro found in a value; indexes are byte offsets.
#[derive(Clone, Copy, Debug)]
struct Found {
    func: Func,
    dollar: usize,
    body: usize,
    /// Start of the default text, after the `:`.
    colon: Option<usize>,
    /// Just after the closing `)`.
    right: usize,
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/')
}

fn check_prefix(prefix: &[u8]) -> Option<(Func, Body)> {
    if prefix.len() == 1 {
        return Some((Func::Normal, Body::IdColon));
    }
    if prefix[1] == b'$' {
        return None;
    }
    if prefix[1] == b'F'
        && prefix[2..]
            .iter()
            .all(|c| b"pnxdqabfwu".contains(&(c | 0x20)))
    {
        return Some((Func::Filename, Body::Anything));
    }
    let func = match &prefix[1..] {
        b"ENV" => return Some((Func::Env, Body::IdColon)),
        b"RANDOM_CHOICE" => Func::RandomChoice,
        b"RANDOM_INTEGER" => Func::RandomInteger,
        b"CHOICE" => Func::Choice,
        b"SUBSTR" => Func::Substr,
        b"INT" => Func::Int,
        b"REAL" => Func::Real,
        b"STRING" => Func::Str,
        b"EVAL" => Func::Eval,
        b"BASENAME" => Func::Basename,
        b"DIRNAME" => Func::Dirname,
        _ => return None,
    };
    Some((func, Body::Anything))
}

fn find_byte(buf: &[u8], from: usize, b: u8) -> Option<usize> {
    buf.get(from..)?
        .iter()
        .position(|&c| c == b)
        .map(|i| i + from)
}

/// The next macro at or after `start` that `skip` does not reject.
fn next_macro(buf: &[u8], start: usize, skip: &dyn Fn(Func, &[u8]) -> bool) -> Option<Found> {
    let len = buf.len();
    let mut t = start;
    'outer: loop {
        let (dollar, func, body_kind, open) = loop {
            let d = find_byte(buf, t, b'$')?;
            let mut p = d + 1;
            if p < len && buf[p] == b'$' {
                p += 1;
            }
            while p < len && (buf[p].is_ascii_alphanumeric() || buf[p] == b'_') {
                p += 1;
            }
            if p < len
                && buf[p] == b'('
                && let Some((f, b)) = check_prefix(&buf[d..p])
            {
                break (d, f, b, p);
            }
            t = p;
        };
        let body = open + 1;
        let mut v = body;
        let mut colon = None;
        match body_kind {
            Body::Anything => {
                while v < len && buf[v] != b')' {
                    v += 1;
                }
            }
            Body::IdColon => {
                while v < len && buf[v] != b')' {
                    let c = buf[v];
                    v += 1;
                    if c == b':' && colon.is_none() {
                        colon = Some(v);
                        continue;
                    }
                    if colon.is_some() {
                        if c == b'(' {
                            if let Some(close) = find_byte(buf, v, b')') {
                                v = close + 1;
                                continue;
                            }
                        } else if b"$ ,\\:".contains(&c) {
                            continue;
                        }
                    }
                    if !is_id_char(c) {
                        t = body;
                        continue 'outer;
                    }
                }
            }
        }
        if v < len && buf[v] == b')' {
            if skip(func, &buf[body..v]) {
                t = v;
                continue;
            }
            return Some(Found {
                func,
                dollar,
                body,
                colon,
                right: v + 1,
            });
        }
        t = body;
    }
}

fn is_dollar_body(func: Func, body: &[u8]) -> bool {
    func == Func::Normal && body.eq_ignore_ascii_case(b"DOLLAR")
}

/// The names whose values are being expanded, outermost first. A chain
/// can be as long as the step budget (`A0 = $(A1)`, `A1 = $(A2)`, ...), so
/// membership is one lookup in a count per lower-cased name, and a name is
/// pushed and popped rather than the chain copied at every step.
#[derive(Default)]
pub(crate) struct Chain {
    names: Vec<String>,
    counts: std::collections::HashMap<String, u32>,
}

impl Chain {
    pub(crate) fn new(names: &[String]) -> Chain {
        let mut chain = Chain::default();
        for n in names {
            chain.push(n);
        }
        chain
    }

    fn len(&self) -> usize {
        self.names.len()
    }

    fn contains(&self, name: &str) -> bool {
        self.counts.contains_key(&name.to_ascii_lowercase())
    }

    fn push(&mut self, name: &str) {
        *self.counts.entry(name.to_ascii_lowercase()).or_insert(0) += 1;
        self.names.push(name.to_string());
    }

    fn pop(&mut self) {
        if let Some(name) = self.names.pop() {
            let key = name.to_ascii_lowercase();
            if let Some(count) = self.counts.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    self.counts.remove(&key);
                }
            }
        }
    }

    fn truncate(&mut self, len: usize) {
        while self.names.len() > len {
            self.pop();
        }
    }

    /// `Err` naming the cycle if `name` is being expanded already.
    fn check(&self, name: &str) -> Result<(), ExpandError> {
        if self.contains(name) {
            Err(recursion_error(&self.names, name))
        } else {
            Ok(())
        }
    }
}

fn recursion_error(chain: &[String], name: &str) -> ExpandError {
    let start = chain
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .unwrap_or(0);
    let mut path: Vec<String> = chain[start..]
        .iter()
        .map(|n| n.to_ascii_uppercase())
        .collect();
    path.push(name.to_ascii_uppercase());
    ExpandError(format!(
        "recursive definition: {} (a macro that refers to itself through others cannot be expanded)",
        path.join(" -> ")
    ))
}

/// Items of a comma-separated list as HTCondor counts them: separators + 1.
fn count_items(list: &str) -> usize {
    list.bytes().filter(|&c| c == b',').count() + 1
}

fn trim(s: &str) -> &str {
    s.trim_matches(crate::lines::is_space)
}

/// The `index`th comma-separated item (trimmed), or `None`.
fn nth_item(list: &str, index: usize) -> Option<&str> {
    list.split(',').nth(index).map(trim)
}

/// Everything from the start of the `index`th item (leading space skipped).
fn rest_from_item(list: &str, index: usize) -> Option<&str> {
    let mut start = 0;
    for _ in 0..index {
        start += list[start..].find(',')? + 1;
    }
    Some(list[start..].trim_start_matches(crate::lines::is_space))
}

/// `strtol` base 10 on a string: leading space, sign, digits (at least one).
fn strtol(s: &str) -> Option<i64> {
    let s = s.trim_start_matches(crate::lines::is_space);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let end = digits
        .bytes()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    let mut value: i64 = 0;
    for c in digits[..end].bytes() {
        value = value.saturating_mul(10).saturating_add(i64::from(c - b'0'));
    }
    Some(if neg { -value } else { value })
}

fn evaluate(text: &str) -> Option<classad::Value> {
    classad::evaluate_str(text).ok()
}

/// HTCondor's `string_is_long_param`: an integer, or an expression that
/// evaluates to a number or boolean (reals truncate).
pub(crate) fn long_param(text: &str) -> Option<i64> {
    let t = trim(text);
    if let Ok(v) = t.parse::<i64>() {
        return Some(v);
    }
    match evaluate(t)? {
        classad::Value::Int(i) => Some(i),
        classad::Value::Real(r) => Some(c_double_to_i64(r)),
        classad::Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    }
}

/// C's conversion of a double to a 64-bit integer on x86-64: out of range,
/// infinite and NaN all give the "integer indefinite" value, i64::MIN
/// (`$INT(-1e300*1e300)` is `-9223372036854775808` in HTCondor).
fn c_double_to_i64(r: f64) -> i64 {
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
        r as i64
    } else {
        i64::MIN
    }
}

/// HTCondor's `string_is_double_param`: the whole text (white space around
/// it aside) as C's `strtod` reads it, so `inf`, `-infinity`, `nan` and
/// `0x10` are numbers; else an expression that evaluates to a number or
/// boolean, infinite and NaN included (`$REAL(-1e300*1e300)` is `-INF`).
pub(crate) fn double_param(text: &str) -> Option<f64> {
    let t = trim(text);
    if let Some(v) = strtod_whole(t) {
        return Some(v);
    }
    match evaluate(t)? {
        classad::Value::Int(i) => Some(i as f64),
        classad::Value::Real(r) => Some(r),
        classad::Value::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// `text` read whole by C's `strtod`: decimal, `inf`/`infinity`/`nan`
/// (any case), and hexadecimal integers, each with an optional sign.
fn strtod_whole(text: &str) -> Option<f64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    // Rust's reader takes its own sign, which `strtod` would not read twice.
    if digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        hex.bytes().fold(0.0, |acc, b| {
            acc * 16.0 + f64::from((b as char).to_digit(16).unwrap_or(0))
        })
    } else {
        digits.parse::<f64>().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The text `$EVAL` makes of the value `value` of the expression `text`:
/// HTCondor unparses the value, and its list and ad values are the
/// expressions as written (`$EVAL` of `{1 + 2}` is `{ 1 + 2 }`), which is
/// what `string()` of the expression gives.
fn htcondor_value_text(text: &str, value: &classad::Value) -> String {
    use classad::Value;
    if matches!(
        value,
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_) | Value::Ad(_)
    ) && let Some(Value::Str(s)) = evaluate(&format!("string({text}\n)"))
    {
        return String::from_utf8_lossy(&s).into_owned();
    }
    let mut out = String::new();
    classad::vm::print::write_value_as(value, classad::vm::print::Style::HTCONDOR_VALUE, &mut out);
    out
}

fn is_sep(c: u8) -> bool {
    c == b'/' || c == b'\\'
}

/// Start of the file name: just after the last `/`, or 0 (on Unix
/// HTCondor does not take `\` for a separator here, even after `w`).
fn basename_start(buf: &[u8]) -> usize {
    buf.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1)
}

/// Index of the extension's `.` in the file name starting at `from`, or
/// the end.
fn extension_start(buf: &[u8], from: usize) -> usize {
    buf[from..]
        .iter()
        .rposition(|&c| c == b'.')
        .map_or(buf.len(), |i| from + i)
}

/// Start of the last `keep` directories plus the file name.
fn basename_plus_dirs(buf: &[u8], keep: usize) -> usize {
    let mut seps = Vec::new();
    let mut p = 0;
    if buf.len() >= 2 && buf[0] == b'\\' && buf[1] == b'\\' {
        if buf.len() >= 4 && buf[2] == b'.' && buf[3] == b'\\' {
            seps.push(4);
            p = 4;
        } else {
            seps.push(2);
            p = 2;
        }
    }
    while p < buf.len() {
        if is_sep(buf[p]) {
            seps.push(p + 1);
        }
        p += 1;
    }
    for _ in 0..keep {
        seps.pop();
    }
    seps.last().copied().unwrap_or(0)
}

/// `$F[...](x)`, `$BASENAME(x)`, `$DIRNAME(x)` on the value `text`.
fn filename_function(flags: &[u8], func: Func, text: &str) -> String {
    let (mut parts, mut dirs) = (0u8, 0usize);
    let (mut quoted, mut bare, mut arg_quote) = (false, false, false);
    let mut to_path: Option<u8> = None;
    match func {
        Func::Basename => parts = 1 | 2,
        Func::Dirname => parts = 4,
        _ => {
            for &c in flags {
                match c | 0x20 {
                    b'x' => parts |= 1,
                    b'n' => parts |= 2,
                    b'p' => parts |= 4,
                    b'd' => {
                        parts |= 8;
                        dirs += 1;
                    }
                    b'a' => arg_quote = true,
                    b'b' => bare = true,
                    b'w' => to_path = Some(b'\\'),
                    b'u' => to_path = Some(b'/'),
                    b'q' => quoted = true,
                    _ => {}
                }
            }
        }
    }
    let quote = quoted.then_some(if arg_quote { b'\'' } else { b'"' });
    // Incoming quotes go; the requested ones come back at the end.
    let mut s = text.as_bytes();
    if s.len() > 1 && s[0] == s[s.len() - 1] && (s[0] == b'"' || s[0] == b'\'') {
        s = &s[1..s.len() - 1];
    }
    let mut lead_quote = 0u8;
    if let Some(&first) = s.first()
        && (first == b'"' || Some(first) == quote)
    {
        lead_quote = first;
        s = &s[1..];
    }
    if lead_quote != 0 && s.last() == Some(&lead_quote) {
        s = &s[..s.len() - 1];
    }
    let mut buf: Vec<u8> = Vec::with_capacity(s.len() + 4);
    if let Some(q) = quote {
        buf.push(q);
    }
    buf.extend_from_slice(s);
    if let Some(q) = quote {
        buf.push(q);
    }
    if let Some(to) = to_path {
        let from = if to == b'/' { b'\\' } else { b'/' };
        for c in buf.iter_mut() {
            if *c == from {
                *c = to;
            }
        }
    }
    let mut end = buf.len();
    let name = basename_start(&buf);
    let ext = extension_start(&buf, name);
    if name == 0 && parts & 3 != 0 {
        parts &= !(4 | 8);
    }
    // Room for quotes put back past the end.
    buf.extend_from_slice(&[0, 0]);
    let mut start;
    match parts & 0xF {
        1 => {
            start = ext;
            if bare && ext < end {
                start += 1;
            }
        }
        3 => start = name,
        2 => {
            start = name;
            end = ext;
        }
        0 | 7 | 5 => start = 0,
        4 => {
            start = 0;
            end = name;
            if bare && name > 0 {
                end = name - 1;
            }
        }
        6 => {
            start = 0;
            end = ext;
        }
        _ => {
            if name > 0 {
                start = basename_plus_dirs(&buf[..end], dirs);
                match parts & 3 {
                    2 => end = ext,
                    0 => {
                        end = name;
                        if bare {
                            end = name - 1;
                        }
                    }
                    _ => {}
                }
            } else {
                end = 1;
                start = 1;
            }
        }
    }
    if let Some(q) = quote {
        if buf[start] != q && start > 0 {
            start -= 1;
            buf[start] = q;
        }
        if end > 1 && buf[end - 1] == q {
            end -= 1;
        }
        buf[end] = q;
        end += 1;
    }
    let end = end.max(start).min(buf.len());
    String::from_utf8_lossy(&buf[start..end])
        .trim_end_matches('\0')
        .to_string()
}

/// Where to look for the next macro after a replacement at `dollar`.
/// HTCondor scans again from the start, so a macro that a replacement
/// completes (`$($(NAME))`) is found; one can only start after the last
/// `)` or so before the replacement (going back two covers a default in
/// parentheses), which keeps long values linear.
fn rescan_from(buf: &[u8], dollar: usize) -> usize {
    let mut closes = 0;
    let mut i = dollar;
    while i > 0 {
        i -= 1;
        if buf[i] == b')' {
            closes += 1;
            if closes == 2 {
                return i + 1;
            }
        }
    }
    0
}

/// Why a macro could not be evaluated. A function macro's own error
/// (`$INT(abc)`, `$CHOICE` out of range) is soft: HTCondor 25 replaces
/// the macro with nothing and goes on (unless `Options::strict_functions`);
/// recursion and the limits are hard.
enum Failure {
    Soft(String),
    Hard(ExpandError),
}

impl From<ExpandError> for Failure {
    fn from(e: ExpandError) -> Failure {
        Failure::Hard(e)
    }
}

/// What evaluating one macro gives.
struct Replacement {
    text: String,
    /// The name whose value this is (for recursion detection).
    name: Option<String>,
}

impl Config {
    /// Expands every macro in `text`. `chain` holds the names whose
    /// values are being expanded (outermost first).
    pub(crate) fn expand_with(
        &self,
        text: &str,
        chain: &[String],
        depth: usize,
    ) -> Result<String, ExpandError> {
        // One budget for the whole expansion, function arguments included.
        self.budget.set((0, 0));
        self.expand_opts(text, &mut Chain::new(chain), depth)
    }

    /// Expands `text`; `chain` is as it was when this returns.
    fn expand_opts(
        &self,
        text: &str,
        chain: &mut Chain,
        depth: usize,
    ) -> Result<String, ExpandError> {
        let base = chain.len();
        let result = self.expand_in(text, chain, depth);
        chain.truncate(base);
        result
    }

    /// Expands `text` with `name` pushed on `chain` (when there is one).
    fn expand_as(
        &self,
        text: &str,
        name: Option<&str>,
        chain: &mut Chain,
        depth: usize,
    ) -> Result<String, ExpandError> {
        let base = chain.len();
        if let Some(name) = name {
            chain.check(name)?;
            chain.push(name);
        }
        let result = self.expand_opts(text, chain, depth);
        chain.truncate(base);
        result
    }

    fn expand_in(
        &self,
        text: &str,
        chain: &mut Chain,
        depth: usize,
    ) -> Result<String, ExpandError> {
        if depth > MAX_FUNCTION_DEPTH {
            return Err(ExpandError(format!(
                "macros nested more than {MAX_FUNCTION_DEPTH} deep in function arguments"
            )));
        }
        let mut buf = text.to_string();
        let mut pos = 0;
        // Regions of `buf` that hold the value of a name, one for each name
        // this call pushed on `chain`: (start, bytes after the end). Each
        // region lies inside the ones before it, so the regions a macro
        // is not in are the last ones, and a replacement inside a region
        // leaves the bytes after its end as they were.
        let mut regions: Vec<(usize, usize)> = Vec::new();
        let no_dollar = |f: Func, body: &[u8]| is_dollar_body(f, body);
        while let Some(found) = next_macro(buf.as_bytes(), pos, &no_dollar) {
            let (steps, mut work) = self.budget.get();
            let steps = steps + 1;
            work += buf.len();
            let len = buf.len();
            while let Some(&(start, tail)) = regions.last() {
                if start <= found.dollar && found.dollar < len - tail {
                    break;
                }
                regions.pop();
                chain.pop();
            }
            // Regions the macro runs out of end with its replacement.
            for region in regions.iter_mut().rev() {
                if len - region.1 >= found.right {
                    break;
                }
                region.1 = len - found.right;
                work += 1;
            }
            self.budget.set((steps, work));
            if steps > MAX_EXPANSION_STEPS || work > MAX_EXPANSION_WORK {
                return Err(ExpandError(format!(
                    "too much substitution expanding one value (more than \
                     {MAX_EXPANSION_STEPS} substitutions or {MAX_EXPANSION_WORK} bytes rewritten)"
                )));
            }
            let replacement = self.replacement(self.evaluate_macro(&buf, &found, chain, depth))?;
            buf.replace_range(found.dollar..found.right, &replacement.text);
            if buf.len() > MAX_VALUE_LEN {
                return Err(ExpandError(format!(
                    "expanded value longer than {MAX_VALUE_LEN} bytes"
                )));
            }
            if let Some(name) = replacement.name {
                let end = found.dollar + replacement.text.len();
                regions.push((found.dollar, buf.len() - end));
                chain.push(&name);
            }
            pos = rescan_from(buf.as_bytes(), found.dollar);
        }
        // Function arguments get `$(DOLLAR)` replaced too (HTCondor 25), so
        // a function can give `$` that makes a macro with what follows.
        let only_dollar = |f: Func, body: &[u8]| !is_dollar_body(f, body);
        let mut at = 0;
        while let Some(found) = next_macro(buf.as_bytes(), at, &only_dollar) {
            buf.replace_range(found.dollar..found.right, "$");
            at = found.dollar;
        }
        Ok(buf)
    }

    /// HTCondor's `expand_self_macro`: only references to `name` itself
    /// (and, under a subsystem or local-name prefix, to the name without
    /// it) are expanded, now, against the definitions so far.
    pub(crate) fn expand_self(&self, text: &str, name: &str) -> Result<String, ExpandError> {
        let mut names = vec![name.to_string()];
        let lower = name.to_ascii_lowercase();
        let subsys = self.options.subsystem.to_ascii_lowercase();
        let mut prefixes = Vec::new();
        if let Some(local) = &self.options.local_name {
            let local = local.to_ascii_lowercase();
            prefixes.push(format!("{subsys}.{local}."));
            prefixes.push(format!("{local}."));
        }
        prefixes.push(format!("{subsys}."));
        for p in prefixes {
            if let Some(rest) = lower.strip_prefix(&p)
                && !rest.is_empty()
            {
                names.push(name[p.len()..].to_string());
                break;
            }
        }
        let is_self = |f: Func, body: &[u8]| {
            if f != Func::Normal && f != Func::Filename {
                return true;
            }
            !names.iter().any(|n| {
                let n = n.as_bytes();
                (body.len() == n.len() || (body.len() > n.len() && body[n.len()] == b':'))
                    && body[..n.len()].eq_ignore_ascii_case(n)
            })
        };
        let mut buf = text.to_string();
        let mut pos = 0;
        let mut steps = 0;
        let mut work = 0usize;
        while let Some(found) = next_macro(buf.as_bytes(), pos, &is_self) {
            steps += 1;
            work += buf.len();
            if steps > MAX_EXPANSION_STEPS || buf.len() > MAX_VALUE_LEN || work > MAX_EXPANSION_WORK
            {
                return Err(ExpandError(format!(
                    "self reference to {name} keeps growing"
                )));
            }
            let replacement =
                self.replacement(self.evaluate_macro(&buf, &found, &mut Chain::default(), 0))?;
            buf.replace_range(found.dollar..found.right, &replacement.text);
            pos = found.dollar;
        }
        Ok(buf)
    }

    fn replacement(
        &self,
        result: Result<Replacement, Failure>,
    ) -> Result<Replacement, ExpandError> {
        match result {
            Ok(r) => Ok(r),
            Err(Failure::Hard(e)) => Err(e),
            Err(Failure::Soft(msg)) if self.options.strict_functions => Err(ExpandError(msg)),
            Err(Failure::Soft(_)) => Ok(Replacement {
                text: String::new(),
                name: None,
            }),
        }
    }

    /// An argument of a function macro: the `index`th item, replaced by
    /// the value of the macro of that name if there is one, expanded.
    fn argument(
        &self,
        args: &str,
        index: usize,
        chain: &mut Chain,
        depth: usize,
    ) -> Result<Option<String>, ExpandError> {
        let Some(item) = nth_item(args, index) else {
            return Ok(None);
        };
        match self.lookup(item) {
            Some((raw, _)) if is_valid_name(item) => {
                self.expand_as(raw, Some(item), chain, depth + 1)
            }
            _ => self.expand_opts(item, chain, depth + 1),
        }
        .map(Some)
    }

    fn evaluate_macro(
        &self,
        buf: &str,
        found: &Found,
        chain: &mut Chain,
        depth: usize,
    ) -> Result<Replacement, Failure> {
        let body = &buf[found.body..found.right - 1];
        let (name, default) = match found.colon {
            Some(c) => (&buf[found.body..c - 1], Some(&buf[c..found.right - 1])),
            None => (body, None),
        };
        let plain = |text: String| Replacement { text, name: None };
        let with_default = |value: Option<String>, owner: Option<String>| match value {
            Some(v) if !v.is_empty() => Replacement {
                text: v,
                name: owner,
            },
            _ => Replacement {
                text: default.unwrap_or("").to_string(),
                name: None,
            },
        };
        let err = |msg: String| Err(Failure::Soft(msg));
        match found.func {
            Func::Normal => {
                let value = self.lookup(name).map(|(raw, _)| raw.to_string());
                if value.as_deref().is_some_and(|v| !v.is_empty()) {
                    chain.check(name)?;
                }
                Ok(with_default(value, Some(name.to_string())))
            }
            Func::Env => {
                // A variable that exists is its value, even empty; the
                // default (or UNDEFINED) only stands for a missing one.
                let value = match self.env.get(name) {
                    Some(v) => v.clone(),
                    None => default.unwrap_or("UNDEFINED").to_string(),
                };
                Ok(plain(value))
            }
            Func::Filename | Func::Basename | Func::Dirname => {
                let value = match self.lookup(body) {
                    Some((raw, _)) => {
                        if raw.contains('$') {
                            self.expand_as(raw, Some(body), chain, depth + 1)?
                        } else {
                            raw.to_string()
                        }
                    }
                    None => body.to_string(),
                };
                let flags = &buf.as_bytes()[found.dollar + 2..found.body - 1];
                Ok(with_default(
                    Some(filename_function(flags, found.func, &value)),
                    None,
                ))
            }
            Func::RandomChoice => {
                let items = if body.contains(',') {
                    body.to_string()
                } else {
                    if body.is_empty() {
                        return err("$RANDOM_CHOICE() error: no list".into());
                    }
                    self.argument(body, 0, chain, depth)?.unwrap_or_default()
                };
                let n = count_items(&items);
                let pick = (self.next_random() % n as u64) as usize;
                Ok(plain(nth_item(&items, pick).unwrap_or("").to_string()))
            }
            Func::RandomInteger => {
                // HTCondor 25 is lenient here: a bad bound counts as 0, a
                // bad step as 1, and min > max gives max.
                let min = nth_item(body, 0).and_then(strtol).unwrap_or(0);
                let max = nth_item(body, 1).and_then(strtol).unwrap_or(0);
                let step = nth_item(body, 2)
                    .and_then(strtol)
                    .filter(|&s| s >= 1)
                    .unwrap_or(1);
                if min > max {
                    return Ok(plain(max.to_string()));
                }
                let count = ((max as i128 - min as i128 + step as i128) / step as i128) as u128;
                let pick = (self.next_random() as u128 % count.max(1)) as i128;
                Ok(plain((min as i128 + pick * step as i128).to_string()))
            }
            Func::Choice => {
                let Some(items) = rest_from_item(body, 1) else {
                    return err("$CHOICE() error: no list".into());
                };
                let index_text = self.argument(body, 0, chain, depth)?.unwrap_or_default();
                // A bad or negative index counts as 0, as in HTCondor 25.
                let index = match long_param(&index_text) {
                    Some(i) if (0..i64::from(i32::MAX)).contains(&i) => i as usize,
                    _ => 0,
                };
                let list = if count_items(items) == 1 {
                    let list_name = nth_item(items, 0).unwrap_or("");
                    if list_name.is_empty() {
                        return err("$CHOICE() error: no list".into());
                    }
                    let Some((raw, _)) = self.lookup(list_name) else {
                        return err(format!("$CHOICE() error: no list named {list_name}"));
                    };
                    if raw.contains('$') {
                        self.expand_as(raw, Some(list_name), chain, depth + 1)?
                    } else {
                        raw.to_string()
                    }
                } else {
                    items.to_string()
                };
                match nth_item(&list, index) {
                    Some(item) => Ok(plain(item.to_string())),
                    None => err(format!("$CHOICE() error: index {index} is out of range")),
                }
            }
            Func::Substr => {
                let item = nth_item(body, 0).unwrap_or("");
                let value = match self.lookup(item) {
                    Some((raw, _)) => self.expand_as(raw, Some(item), chain, depth + 1)?,
                    None => String::new(),
                };
                if value.is_empty() {
                    return Ok(plain(String::new()));
                }
                let Some(start_text) = nth_item(body, 1) else {
                    return err("$SUBSTR() error: no start index".into());
                };
                let start = match long_param(start_text) {
                    Some(i) if i >= i64::from(i32::MIN) && i < i64::from(i32::MAX) => i,
                    _ => return err(format!("$SUBSTR() error: {start_text} is invalid start")),
                };
                let length = match nth_item(body, 2) {
                    Some(text) => match long_param(text) {
                        Some(i) if i >= i64::from(i32::MIN) && i < i64::from(i32::MAX) => Some(i),
                        _ => return err(format!("$SUBSTR() error: {text} is invalid length")),
                    },
                    None => None,
                };
                let bytes = value.as_bytes();
                let n = bytes.len() as i64;
                let mut from = if start < 0 { n + start } else { start };
                from = from.clamp(0, n);
                let rest = n - from;
                let mut take = match length {
                    Some(l) if l < 0 => rest + l,
                    Some(l) => l,
                    None => rest,
                };
                take = take.clamp(0, rest);
                let slice = &bytes[from as usize..(from + take) as usize];
                Ok(plain(String::from_utf8_lossy(slice).into_owned()))
            }
            Func::Int | Func::Real => {
                let is_int = found.func == Func::Int;
                let label = if is_int { "$INT()" } else { "$REAL()" };
                let fmt = body.find(',').map(|i| &body[i + 1..]);
                if let Some(f) = fmt {
                    let ok = matches!(
                        (printf::class_of(f), is_int),
                        (Some(Class::Int), true) | (Some(Class::Float), false)
                    );
                    if !ok {
                        // HTCondor 25 gives the format text itself.
                        let _ = label;
                        return Ok(plain(f.to_string()));
                    }
                }
                let value = self.argument(body, 0, chain, depth)?.unwrap_or_default();
                if is_int {
                    let Some(i) = long_param(&value) else {
                        return err(format!(
                            "$INT() error: {value} does not evaluate to an integer"
                        ));
                    };
                    Ok(plain(printf::format_int(fmt.unwrap_or("%lld"), i)))
                } else {
                    let Some(r) = double_param(&value) else {
                        return err(format!(
                            "$REAL() error: {value} does not evaluate to a real"
                        ));
                    };
                    let mut text = printf::format_real(fmt.unwrap_or("%.16G"), r);
                    if fmt.is_some() && !text.contains('.') {
                        text.push_str(".0");
                    }
                    Ok(plain(text))
                }
            }
            Func::Str => {
                let fmt = body.find(',').map(|i| &body[i + 1..]);
                if let Some(f) = fmt
                    && printf::class_of(f) != Some(Class::Str)
                {
                    return Ok(plain(f.to_string()));
                }
                let mut value = self.argument(body, 0, chain, depth)?.unwrap_or_default();
                if let Some(classad::Value::Str(s)) = evaluate(&value) {
                    value = String::from_utf8_lossy(&s).into_owned();
                }
                Ok(plain(match fmt {
                    Some(f) => printf::format_str(f, &value),
                    None => value,
                }))
            }
            Func::Eval => {
                let (text, owner) = match self.lookup(body) {
                    Some((raw, _)) if is_valid_name(body) => (raw, Some(body)),
                    _ => (body, None),
                };
                let had_macros = text.contains('$');
                let expanded = self.expand_as(text, owner, chain, depth + 1)?;
                // What does not parse gives the expanded text if there
                // were macros in it, else nothing (HTCondor 25).
                let result = match evaluate(&expanded) {
                    Some(classad::Value::Str(s)) => String::from_utf8_lossy(&s).into_owned(),
                    Some(v) => htcondor_value_text(&expanded, &v),
                    None if had_macros => expanded,
                    None => String::new(),
                };
                Ok(plain(result))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // HTCondor 25 (tests/config/40_inf_nan.conf): `$REAL(-1e300*1e300)` is
    // `-INF`, `$REAL(nan)` is `NAN`, `$REAL(0x10)` is `16`,
    // `$INT(-1e300*1e300)` and `$INT(1e400)` are `-9223372036854775808`;
    // `1e300*1e300` is ERROR in ClassAds, so not a number.
    #[test]
    fn infinite_and_nan_reals_are_numbers_in_int_and_real() {
        assert_eq!(double_param("-1e300*1e300"), Some(f64::NEG_INFINITY));
        assert_eq!(double_param("inf"), Some(f64::INFINITY));
        assert_eq!(double_param("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(double_param("nan").is_some_and(f64::is_nan));
        assert!(double_param("-nan").is_some_and(|r| r.is_nan() && r.is_sign_negative()));
        assert_eq!(double_param("0x10"), Some(16.0));
        assert_eq!(double_param("infx"), None);
        assert_eq!(double_param("1e300*1e300"), None);
        assert_eq!(long_param("-1e300*1e300"), Some(i64::MIN));
        assert_eq!(long_param("-1e300*1e300 * 0"), Some(i64::MIN));
        assert_eq!(long_param("1e400"), Some(i64::MIN));
        assert_eq!(long_param("nan"), None);
    }

    // `$EVAL` of `{1 + 2}` is `{ 1 + 2 }`, of `relTime(1.5)` is
    // `relTime("1.5")` and of `absTime(0, 30)` is
    // `absTime("1970-01-01T00:00:30+00:00")` in HTCondor 25.
    #[test]
    fn eval_writes_values_as_htcondor_unparses_them() {
        let text = |t: &str| htcondor_value_text(t, &evaluate(t).unwrap());
        assert_eq!(text("{1 + 2, 3}"), "{ 1 + 2,3 }");
        assert_eq!(text("[a = {1+2}].a"), "{ 1 + 2 }");
        assert_eq!(text("relTime(1.5)"), "relTime(\"1.5\")");
        assert_eq!(text("relTime(90)"), "relTime(\"01:30\")");
        assert_eq!(
            text("absTime(0, 30)"),
            "absTime(\"1970-01-01T00:00:30+00:00\")"
        );
        assert_eq!(text("-1e300*1e300"), "real(\"-INF\")");
        assert_eq!(
            text("{relTime(1.5), absTime(0, 30)}"),
            "{ relTime(1.500000000000000E+00),absTime(0,30) }"
        );
    }

    #[test]
    fn finds_plain_and_default() {
        let none = |_: Func, _: &[u8]| false;
        let f = next_macro(b"x$(A:b c)y", 0, &none).unwrap();
        assert_eq!((f.dollar, f.body, f.colon, f.right), (1, 3, Some(5), 9));
        assert!(next_macro(b"$(A B)", 0, &none).is_none());
        assert!(next_macro(b"$$(A)", 0, &none).is_none());
        let f = next_macro(b"$(Z:(p)q)", 0, &none).unwrap();
        assert_eq!(f.right, 9);
    }

    #[test]
    fn filenames() {
        let p = "/tmp/dir/simulate.exe";
        let f = |flags: &str| filename_function(flags.as_bytes(), Func::Filename, p);
        assert_eq!(f("p"), "/tmp/dir/");
        assert_eq!(f("d"), "dir/");
        assert_eq!(f("n"), "simulate");
        assert_eq!(f("x"), ".exe");
        assert_eq!(f("nx"), "simulate.exe");
        assert_eq!(f("db"), "dir");
        assert_eq!(f("xb"), "exe");
        assert_eq!(f("q"), "\"/tmp/dir/simulate.exe\"");
        assert_eq!(f("qa"), "'/tmp/dir/simulate.exe'");
        assert_eq!(f("w"), "\\tmp\\dir\\simulate.exe");
        assert_eq!(f("pb"), "/tmp/dir");
        assert_eq!(f("dd"), "tmp/dir/");
        assert_eq!(f("qn"), "\"simulate\"");
        assert_eq!(filename_function(b"p", Func::Filename, "plain.txt"), "");
        assert_eq!(
            filename_function(b"nx", Func::Filename, "plain.txt"),
            "plain.txt"
        );
    }

    #[test]
    fn regression_backslash_is_not_a_separator_for_names() {
        // After `w` the path has no `/`: HTCondor on Unix sees one name.
        let f = |flags: &str, p: &str| filename_function(flags.as_bytes(), Func::Filename, p);
        assert_eq!(f("nw", "/a/b/c.txt"), "\\a\\b\\c");
        assert_eq!(f("wp", "/a/b/c.txt"), "");
        assert_eq!(f("qdw", "/a/b"), "\"\"");
    }
}
