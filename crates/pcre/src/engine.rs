//! The engines behind [`crate::Regex`]: which one answers a pattern
//! (see the crate doc), the per-thread cache of compiled patterns, the
//! searches and HTCondor's substitution loop, and the translation of PCRE2
//! syntax to fancy-regex.
//!
//! Patterns run on `fancy-regex` (backreferences, lookaround, atomic
//! groups) with PCRE's byte semantics: strings are C strings (cut at the
//! first NUL byte) of bytes, so a string that is not ASCII is matched as
//! Latin-1 text, one character per byte, and mapped back afterwards.
//! PCRE syntax the regex crate lacks or reads differently (`$`, `\Z`,
//! `\Q..\E`, ASCII `\w \d \s`, octal escapes, ...) is rewritten by
//! [`translate`]. Compiled patterns are cached per thread (bounded), and
//! a backtracking limit makes a runaway pattern ERROR instead of a hang.

use crate::backtrack::{CompileError, Groups, MatchOptions, Program, Subject};
use crate::limits::{MAX_PATTERN, MAX_REPEAT, MAX_STUDY_LENGTH, REQUIRED_SCAN_MAX};
use crate::match_limit::Verdict;
use crate::{Budget, Substitution};
use fancy_regex::{Regex, RegexBuilder};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Backtracking steps allowed per match attempt.
const BACKTRACK_LIMIT: usize = 1_000_000;
/// Backtracking steps a match attempt is first given; only one that needs
/// more is run again with [`BACKTRACK_LIMIT`].
const LIGHT_BACKTRACK_LIMIT: usize = 10_000;
/// Steps charged per backtracking step allowed (measured: a backtracking
/// step of the engine takes about 1.5 times an instruction of the VM).
const STEPS_PER_BACKTRACK: u64 = 3;
/// Pattern bytes that count as one more step per target byte matched
/// (a larger automaton is slower per byte).
const PATTERN_BYTES_PER_STEP: u64 = 64;
/// Steps charged for compiling a pattern, and per byte of it.
const COMPILE_STEPS: u64 = 1_000;
const COMPILE_STEPS_PER_BYTE: u64 = 256;
/// Steps charged per match attempt, whatever it scans (measured: an empty
/// match of `replaceall` costs about as much as 15 instructions).
const STEPS_PER_ATTEMPT: u64 = 16;
/// Size limit of the compiled automata of one pattern.
const SIZE_LIMIT: usize = 4 << 20;
/// Compiled patterns kept per thread; the cache is emptied when full.
const CACHE_CAPACITY: usize = 256;

pub(crate) const CASELESS: u8 = 1;
pub(crate) const MULTILINE: u8 = 2;
pub(crate) const DOTALL: u8 = 4;
pub(crate) const EXTENDED: u8 = 8;

/// A pattern compiled with one backtracking limit; `newline_variant` is
/// used for a target ending in a newline when the pattern has a `$`
/// outside multiline mode.
struct Variants {
    regex: Regex,
    newline_variant: Option<Regex>,
}

impl Variants {
    fn for_target(&self, text: &str) -> &Regex {
        match &self.newline_variant {
            Some(variant) if text.ends_with('\n') => variant,
            _ => &self.regex,
        }
    }
}

/// A compiled pattern: first tried with a small backtracking limit, and
/// (compiled when first needed) with the full one.
pub(crate) struct Compiled {
    /// `None` when the pattern runs on [`backtrack`].
    light: Option<Variants>,
    /// The pattern on PCRE2's own semantics (`backtrack.rs`): the engine
    /// of a pattern that needs it, and built when first needed for the
    /// retry after an empty match of a global substitution.
    backtrack: std::cell::OnceCell<Option<Program>>,
    /// Whether the pattern runs on [`backtrack`] only.
    backtracked: bool,
    /// Whether the pattern has a multiline `^`: PCRE2's does not match at
    /// the end of a subject after its final newline, the engine's does, so
    /// such a subject is matched on [`backtrack`].
    circ_multiline: bool,
    /// The pattern and flags, to build [`backtrack`] later.
    pattern: Box<[u8]>,
    flags: u8,
    full: std::cell::OnceCell<Option<Variants>>,
    /// The sources given to the engine: main and newline variant.
    sources: (String, Option<String>),
    /// Whether the engine may backtrack (back references, lookaround,
    /// atomic groups, possessive quantifiers): such a match is charged its
    /// light backtracking limit.
    backtracks: bool,
    /// The cost in steps of each target byte matched.
    steps_per_byte: u64,
    /// Characters every match contains (see [`required_characters`]), and
    /// whether they compare ignoring ASCII case.
    required: Vec<char>,
    caseless: bool,
    /// PCRE2's backtracking, replayed to find where its match limit makes
    /// HTCondor's answer ERROR (patterns that can backtrack much only).
    limit_model: Option<crate::match_limit::Model>,
    /// PCRE2 10.32's study of the shortest subject, for a pattern run on
    /// the engine: no match starts where fewer code units remain. Kept
    /// only where its walk stopped at 65,535 (`b|a{65535}`): anywhere
    /// else it is no more than every match's length and refuses nothing
    /// the engine could match. 0: no such length.
    min_length: usize,
    /// PCRE2's required code unit (and its other case) when its first
    /// code unit comes from a lookahead, for a pattern run on the engine:
    /// no match starts where the required unit does not follow the first
    /// (`(?=b)a*b` never matches "b" in PCRE2 10.32).
    asserted_required: Option<(u32, Option<u32>)>,
}

impl Compiled {
    /// Whether PCRE2's study refuses a match starting at text offset
    /// `start` (`None`: any start): fewer code units (characters of the
    /// text, one a byte) than its minimum length remain.
    fn too_short(&self, text: &str, start: Option<usize>) -> bool {
        if let (Some((unit, other)), Some(start)) = (self.asserted_required, start)
            && text.len().saturating_sub(start) < REQUIRED_SCAN_MAX
        {
            let mut rest = text.get(start..).unwrap_or("").chars();
            rest.next();
            let wanted = |c: char| u32::from(c) == unit || Some(u32::from(c)) == other;
            if !rest.any(wanted) {
                return true;
            }
        }
        if self.min_length == 0 {
            return false;
        }
        let rest = text.get(start.unwrap_or(0)..).unwrap_or("");
        rest.chars().count() < self.min_length
    }

    /// Runs `op` (one match attempt) under the budget of `context`: with
    /// the light limit; if it ran out, the engine's count of steps is not
    /// PCRE2's, so the caller runs the match again on [`backtrack`], which
    /// counts PCRE2's frames (`Halt::Limit`), or, for a pattern that cannot
    /// run there, it is charged the full limit and run with it.
    fn run<T>(
        &self,
        context: &mut dyn Budget,
        text: &str,
        scanned: usize,
        op: impl Fn(&Regex) -> Result<T, Failure>,
    ) -> Result<T, Halt> {
        let length = text.len() as u64;
        let mut work = (scanned as u64)
            .saturating_mul(self.steps_per_byte)
            .saturating_add(STEPS_PER_ATTEMPT);
        if self.backtracks {
            work = work.saturating_add(LIGHT_BACKTRACK_LIMIT as u64 * STEPS_PER_BACKTRACK);
        }
        if !context.charge(work) {
            return Err(Halt::Error);
        }
        // The backtracking machine runs the parts it does not backtrack
        // through on the automata, from each place it tries: up to the
        // square of the length without a single backtracking step.
        if self.backtracks && !context.charge_bytes(length.saturating_mul(length)) {
            return Err(Halt::Error);
        }
        match op(self.light.as_ref().ok_or(Halt::Error)?.for_target(text)) {
            Err(Failure::Backtracking) => {}
            other => return other.map_err(|_| Halt::Error),
        }
        if self.program().is_some() {
            return Err(Halt::Limit);
        }
        let full = (BACKTRACK_LIMIT as u64 * STEPS_PER_BACKTRACK).saturating_mul(1 + length / 1024);
        if !context.charge(full) {
            return Err(Halt::Error);
        }
        let full = self
            .full
            .get_or_init(|| build_variants(&self.sources, BACKTRACK_LIMIT))
            .as_ref()
            .ok_or(Halt::Error)?;
        op(full.for_target(text)).map_err(|_| Halt::Error)
    }
}

/// Why [`Compiled::run`] gave no answer.
enum Halt {
    /// ERROR: out of budget, or the engine refused.
    Error,
    /// The engine backtracked past its light limit: the match is to be
    /// run on [`backtrack`], whose count decides.
    Limit,
}

/// Why a match attempt failed.
enum Failure {
    /// It ran out of backtracking steps.
    Backtracking,
    /// Anything else the engine refused.
    Other,
}

impl From<fancy_regex::Error> for Failure {
    fn from(error: fancy_regex::Error) -> Failure {
        match error {
            fancy_regex::Error::RuntimeError(fancy_regex::RuntimeError::BacktrackLimitExceeded) => {
                Failure::Backtracking
            }
            _ => Failure::Other,
        }
    }
}

fn build(source: &str, limit: usize) -> Option<Regex> {
    RegexBuilder::new(source)
        .backtrack_limit(limit)
        .delegate_size_limit(SIZE_LIMIT)
        .delegate_dfa_size_limit(SIZE_LIMIT)
        .build()
        .ok()
}

fn build_variants(sources: &(String, Option<String>), limit: usize) -> Option<Variants> {
    Some(Variants {
        regex: build(&sources.0, limit)?,
        newline_variant: match &sources.1 {
            Some(variant) => Some(build(variant, limit)?),
            None => None,
        },
    })
}

/// Whether the engine will run (part of) `translated` on its backtracking
/// machine: it has a back reference, lookaround, an atomic group, a
/// possessive quantifier or a conditional. Errs on the side of yes.
fn may_backtrack(translated: &str) -> bool {
    let bytes = translated.as_bytes();
    let possessive = |w: &[u8]| matches!(w, [b'*' | b'+' | b'?' | b'}', b'+']);
    bytes.windows(2).any(possessive)
        || bytes.windows(3).any(|w| {
            matches!(
                w,
                [
                    b'(',
                    b'?',
                    b'=' | b'!' | b'>' | b'(' | b'P' | b'&' | b'R' | b'<'
                ] | [b'(', b'?', b'0'..=b'9']
            )
        })
        || bytes
            .windows(2)
            .any(|w| matches!(w, [b'\\', b'1'..=b'9' | b'k' | b'g' | b'K' | b'G']))
}

/// Compiled patterns by pattern, then by flags (4 bits): looked up by the
/// borrowed pattern, with no allocation per call.
type Cache = HashMap<Box<[u8]>, [Option<Option<Rc<Compiled>>>; 16]>;

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
}

/// The compiled pattern, or `None` if it is not a valid expression.
pub(crate) fn compile(context: &mut dyn Budget, pattern: &[u8], flags: u8) -> Option<Rc<Compiled>> {
    let pattern = c_string(pattern);
    CACHE.with(|cache| {
        let slot = usize::from(flags & 15);
        if let Some(Some(hit)) = cache.borrow().get(pattern).map(|slots| &slots[slot]) {
            return hit.clone();
        }
        // Compiling costs far more per byte than matching (measured up to
        // 15 us a byte for `a?a?a?...`); a cached pattern costs nothing.
        if !context.charge(COMPILE_STEPS + COMPILE_STEPS_PER_BYTE * pattern.len() as u64) {
            return None;
        }
        let compiled = compile_uncached(pattern, flags).map(Rc::new);
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        cache
            .entry(Box::from(pattern))
            .or_insert_with(Default::default)[slot] = Some(compiled.clone());
        compiled
    })
}

/// A pattern that runs on [`backtrack`] only (`text`: the pattern as
/// `pcre2_rewrite` gives it, for its required characters).
fn backtracked(pattern: &[u8], flags: u8, text: &str, program: Program) -> Compiled {
    let utf = program.utf();
    Compiled {
        light: None,
        backtrack: std::cell::OnceCell::from(Some(program)),
        backtracked: true,
        circ_multiline: false,
        pattern: Box::from(pattern),
        flags,
        full: std::cell::OnceCell::new(),
        sources: (String::new(), None),
        backtracks: true,
        steps_per_byte: 1 + pattern.len() as u64 / PATTERN_BYTES_PER_STEP,
        // PCRE2 has no required character after `(*ACCEPT)`, and scans
        // none with `(*NO_START_OPT)`; in UTF mode only an ASCII one is one
        // byte.
        required: if !inline_option(text, 'x')
            && !text.contains("(*ACCEPT")
            && !text.contains("(*NO_START_OPT")
        {
            let mut required = required_characters(text, flags & EXTENDED != 0);
            if utf {
                required.retain(char::is_ascii);
            }
            required
        } else {
            Vec::new()
        },
        caseless: flags & CASELESS != 0 || text.contains("(?"),
        // `exec` applies the study's length and PCRE2's first and
        // required units itself.
        min_length: 0,
        asserted_required: None,
        // Groups that can match nothing run here (`(a*)*`): the model of
        // PCRE2's count decides their match limit.
        limit_model: crate::match_limit::Model::new(
            pattern,
            flags & CASELESS != 0,
            flags & MULTILINE != 0,
            flags & DOTALL != 0,
            flags & EXTENDED != 0,
        ),
    }
}

/// Whether an inline option setting of `pattern` names `letter`.
fn inline_option(pattern: &str, letter: char) -> bool {
    pattern.match_indices("(?").any(|(at, _)| {
        pattern[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '-' || *c == '^')
            .any(|c| c == letter)
    })
}

/// The pattern compiled for [`backtrack`], if it can be.
fn build_program(pattern: &[u8], flags: u8) -> Result<Program, CompileError> {
    Program::new(
        pattern,
        flags & CASELESS != 0,
        flags & MULTILINE != 0,
        flags & DOTALL != 0,
        flags & EXTENDED != 0,
    )
}

/// Whether a pattern may use what only [`backtrack`] runs as PCRE2 does
/// (a cheap scan, so that most patterns are not parsed twice): `(?`, `(*`,
/// `\g \k \K`, a back reference, or a repeated group.
fn may_need_backtrack(pattern: &[u8]) -> bool {
    pattern.windows(2).any(|w| {
        matches!(
            w,
            [b'(', b'?' | b'*']
                | [b'\\', b'g' | b'k' | b'K' | b'1'..=b'9']
                | [b')', b'*' | b'+' | b'{']
        )
    })
}

/// Whether group names may repeat: `(?J)` or a branch reset group, where
/// [`backtrack`] applies PCRE2's rules.
fn duplicate_names_allowed(pattern: &str) -> bool {
    pattern.contains("(?|")
        || pattern.match_indices("(?").any(|(at, _)| {
            pattern[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic() || *c == '-' || *c == '^')
                .any(|c| c == 'J')
        })
}

fn compile_uncached(pattern: &[u8], flags: u8) -> Option<Compiled> {
    let source = to_text(pattern);
    let text = pcre2_rewrite(
        &source,
        flags & EXTENDED != 0,
        duplicate_names_allowed(&source),
    )?;
    // PCRE2's limit on the compiled size (not estimated in extended mode,
    // where white space and comments take no room).
    if flags & EXTENDED == 0
        && !inline_option(&text, 'x')
        && crate::compiled_size::estimate(&source) > crate::limits::MAX_COMPILED
    {
        return None;
    }
    // The program, if built: kept for the retry after an empty match.
    let mut built = None;
    // Only a counted repeat lets PCRE2's study reach 65,535 (a pattern of
    // that many items is over the compiled size).
    if may_need_backtrack(pattern) {
        match build_program(pattern, flags) {
            Ok(program) if program.needed => {
                return Some(backtracked(pattern, flags, &text, program));
            }
            Ok(program) => built = Some(program),
            // PCRE2 refuses it, and the engine would read it otherwise.
            Err(CompileError::InvalidSpecial) => return None,
            Err(CompileError::Invalid) if duplicate_names_allowed(&source) => return None,
            _ => {}
        }
    } else if pattern.contains(&b'{') || text.contains("(?=") {
        built = build_program(pattern, flags).ok();
    }
    let asserted_required = built.as_ref().and_then(Program::asserted_required);
    let min_length = built
        .as_ref()
        .map(Program::min_length)
        .filter(|&length| length == MAX_STUDY_LENGTH)
        .unwrap_or(0);
    let mut prefix = String::new();
    for (bit, letter) in [
        (CASELESS, 'i'),
        (MULTILINE, 'm'),
        (DOTALL, 's'),
        (EXTENDED, 'x'),
    ] {
        if flags & bit != 0 {
            prefix.push(letter);
        }
    }
    let prefix = if prefix.is_empty() {
        prefix
    } else {
        format!("(?{prefix})")
    };
    let main = translate(&text, false);
    let variant = if flags & MULTILINE == 0 {
        let variant = translate(&text, true);
        (variant != main).then(|| format!("{prefix}{variant}"))
    } else {
        None
    };
    let backtracks = may_backtrack(&main);
    // White space is no literal in extended mode, set by flag or inline.
    let inline_extended = inline_option(&text, 'x');
    let required = if !inline_extended {
        required_characters(&text, flags & EXTENDED != 0)
    } else {
        Vec::new()
    };
    let caseless = flags & CASELESS != 0 || text.contains("(?");
    let sources = (format!("{prefix}{main}"), variant);
    let Some(light) = build_variants(&sources, LIGHT_BACKTRACK_LIMIT) else {
        // A pattern PCRE2 reads (as far as `pcre2_rewrite` and `backtrack`
        // can tell) that the engine refuses runs on `backtrack`.
        let program = match built {
            Some(program) => program,
            None => build_program(pattern, flags).ok()?,
        };
        return Some(backtracked(pattern, flags, &text, program));
    };
    let limit_model = crate::match_limit::Model::new(
        pattern,
        flags & CASELESS != 0,
        flags & MULTILINE != 0,
        flags & DOTALL != 0,
        flags & EXTENDED != 0,
    );
    Some(Compiled {
        limit_model,
        min_length,
        asserted_required,
        light: Some(light),
        backtrack: match built {
            Some(program) => std::cell::OnceCell::from(Some(program)),
            None => std::cell::OnceCell::new(),
        },
        backtracked: false,
        circ_multiline: text.contains('^') && (flags & MULTILINE != 0 || inline_option(&text, 'm')),
        pattern: Box::from(pattern),
        flags,
        full: std::cell::OnceCell::new(),
        steps_per_byte: 1 + sources.0.len() as u64 / PATTERN_BYTES_PER_STEP,
        sources,
        backtracks,
        required,
        caseless,
    })
}

/// The literal characters of the top level of a pattern (outside groups
/// and classes, not optional, no alternation there): every match contains
/// them. PCRE2 looks for such a character before matching a short subject,
/// so a match that could not succeed never starts backtracking.
fn required_characters(pattern: &str, extended: bool) -> Vec<char> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut required = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // White space and comments are no items in extended mode.
        if extended && pcre2_space(c) {
            i += 1;
            continue;
        }
        if extended && c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let mut literal = None;
        match c {
            '\\' => {
                match chars.get(i + 1) {
                    Some('Q') => return required,
                    Some(&next) if !next.is_ascii_alphanumeric() => {
                        if depth == 0 {
                            literal = Some(next);
                        }
                        i += 2;
                    }
                    Some(&letter) if matches!(letter, 'n' | 't' | 'r' | 'f' | 'e' | 'a') => {
                        if depth == 0 {
                            literal = Some(match letter {
                                'n' => '\n',
                                't' => '\t',
                                'r' => '\r',
                                'f' => '\x0c',
                                'e' => '\x1b',
                                _ => '\x07',
                            });
                        }
                        i += 2;
                    }
                    Some(&letter) => {
                        // A letter or digit escape and what belongs to it
                        // (`\x41`, `\101`, `\cA`, `\k<n>`, `\p{L}`): skipped.
                        i += 2;
                        let bracket = chars.get(i).and_then(|&open| match open {
                            '{' => Some('}'),
                            '<' => Some('>'),
                            '\'' => Some('\''),
                            _ => None,
                        });
                        match (letter, bracket) {
                            ('x' | 'o' | 'p' | 'P' | 'k' | 'g' | 'N', Some(close)) => {
                                i = chars[i + 1..]
                                    .iter()
                                    .position(|&c| c == close)
                                    .map_or(chars.len(), |p| i + p + 2);
                            }
                            ('c' | 'p' | 'P', _) => i += 1,
                            ('x', _) => {
                                while i < chars.len() && chars[i].is_ascii_hexdigit() {
                                    i += 1;
                                }
                            }
                            ('0'..='9' | 'g', _) => {
                                if letter == 'g' && chars.get(i) == Some(&'-') {
                                    i += 1;
                                }
                                while i < chars.len() && chars[i].is_ascii_digit() {
                                    i += 1;
                                }
                            }
                            _ => {}
                        }
                    }
                    None => i += 1,
                }
            }
            '[' => {
                let mut j = i + 1;
                if chars.get(j) == Some(&'^') {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    if chars[j] == '[' && chars.get(j + 1) == Some(&':') {
                        j = chars[j + 2..]
                            .iter()
                            .position(|&c| c == ']')
                            .map_or(chars.len(), |p| j + p + 3);
                        continue;
                    }
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                i = j + 1;
            }
            '(' => {
                depth += 1;
                i += 1;
            }
            ')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            '|' if depth == 0 => return Vec::new(),
            '{' => i += brace_quantifier(&chars[i..]).map_or(1, |(length, _, _)| length),
            '.' | '^' | '$' | '*' | '+' | '?' | '}' | '|' => i += 1,
            _ => {
                if depth == 0 {
                    literal = Some(c);
                }
                i += 1;
            }
        }
        if let Some(literal) = literal {
            let mut next = i;
            while extended && chars.get(next).is_some_and(|&c| pcre2_space(c)) {
                next += 1;
            }
            let optional = match chars.get(next) {
                Some('*' | '?') => true,
                Some('{') => chars.get(next + 1) == Some(&'0'),
                _ => false,
            };
            if !optional {
                required.push(literal);
            }
        }
    }
    required
}

/// White space as PCRE2 reads it on bytes in extended mode: space, tab,
/// LF, VT, FF, CR and NEL (0x85).
fn pcre2_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' | '\u{85}')
}

/// Reads the pattern as PCRE2 does where the engine would read it
/// differently: `None` for what PCRE2 refuses and the engine accepts (a
/// quantifier after a quantifier, as in `a+?+` or `a{2}{3}`; a repeat
/// count above 65,535 or out of order; a group name used twice); otherwise
/// the pattern with a `{` that starts no quantifier escaped (PCRE2 reads
/// `a{,3}` literally) and `\X` (one character, or CR LF, as PCRE2 reads
/// it on bytes) spelled out. `extended`: the `x` option, under which white
/// space and `#` comments come between items.
fn pcre2_rewrite(pattern: &str, extended: bool, duplicate_names: bool) -> Option<String> {
    if pattern.len() > MAX_PATTERN {
        return None;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Last {
        /// Nothing a quantifier may follow (start, `(`, `|`).
        Nothing,
        /// An item a quantifier may follow.
        Item,
        /// A quantifier, which may take one `?` or `+`.
        Quantifier,
        /// A quantifier with its `?` or `+`.
        Modified,
        /// An assertion PCRE2 refuses to repeat (`^ $ \b \B \A \z \Z
        /// \G`, and `\K`).
        Assertion,
    }
    let chars: Vec<char> = pattern.chars().collect();
    // In UTF mode a character escape may name any code point.
    let utf = pattern.starts_with("(*UTF");
    let mut out = String::with_capacity(pattern.len());
    let mut last = Last::Nothing;
    let mut names: Vec<&[char]> = Vec::new();
    let mut extended = extended;
    // PCRE2's extended-more option (`(?xx)`): blanks in classes are
    // skipped, those before the first member too.
    let mut extended_more = false;
    // Each open group: the extended option in force after it closes (an
    // option setting lasts to the end of the group it is in,
    // `a(?x:\x0bb)\x0bc`), and the option settings met in it so far. The
    // engine would let a setting go on past the group's end, so the rest
    // of the group after one is wrapped in `(?letters:...)`, closed and
    // opened again at each `|` of the group (PCRE2 carries a setting into
    // the later alternatives: `x(a(?i)b|c)D` matches `xCD`, not `xCd`).
    struct Group {
        extended_after: bool,
        extended_more_after: bool,
        settings: Vec<String>,
    }
    let mut enclosing: Vec<Group> = Vec::new();
    let mut i = 0;
    // A quantifier: refused after another (with its modifier); a `?` or `+`
    // right after a quantifier is its modifier.
    let quantifier = |last: &mut Last, modifier: bool| -> Option<()> {
        match *last {
            Last::Quantifier if modifier => *last = Last::Modified,
            // Nothing to repeat (start, `(`, `|`), or a quantifier again.
            Last::Nothing | Last::Quantifier | Last::Modified | Last::Assertion => return None,
            _ => *last = Last::Quantifier,
        }
        Some(())
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    out.push('\\');
                    break;
                };
                match next {
                    'Q' => {
                        // Literal up to \E: copied whole for `translate`.
                        let end = (i + 2..chars.len().saturating_sub(1))
                            .find(|&j| chars[j] == '\\' && chars[j + 1] == 'E')
                            .map_or(chars.len(), |j| j + 2);
                        out.extend(&chars[i..end]);
                        i = end;
                        last = Last::Item;
                        continue;
                    }
                    'X' => out.push_str(r"(?:\r\n|(?s:.))"),
                    // One code unit: any byte.
                    'C' => out.push_str("(?s:.)"),
                    // PCRE2 refuses these (without its ALT_BSUX option).
                    'u' | 'U' | 'L' | 'l' | 'F' => return None,
                    // Any character but a newline, whatever the options;
                    // a brace after it that starts no quantifier is a name
                    // (`\N{U+41}`, `\N{#2}`), which PCRE2 refuses.
                    'N' if chars.get(i + 2) == Some(&'{')
                        && brace_quantifier(&chars[i + 2..]).is_none() =>
                    {
                        return None;
                    }
                    // The class as PCRE2 reads it on bytes (the engine's own
                    // `[^\n]` spans Unicode and grows past its size limit
                    // when repeated: `\N{5000}`).
                    'N' => out.push_str(&read_class(&['[', '^', '\\', 'n', ']'], 0)?.0),
                    'c' => {
                        out.push_str(&control(chars.get(i + 2).copied())?);
                        i += 3;
                        last = Last::Item;
                        continue;
                    }
                    // A number starting with 8 or 9 is always a back
                    // reference in PCRE2 (`\80` is group 80, never octal),
                    // and so is one starting with 4 to 7 whose octal value
                    // would not fit a byte (outside UTF mode): a group that
                    // does not exist is an error there.
                    '8' | '9' | '4'..='7'
                        if matches!(next, '8' | '9')
                            || (octal_above_byte(&chars[i + 1..]) && !utf) =>
                    {
                        let decimal: String = chars[i + 1..]
                            .iter()
                            .take_while(|c| c.is_ascii_digit())
                            .collect();
                        if decimal.parse::<usize>().unwrap_or(usize::MAX) > count_groups(pattern) {
                            return None;
                        }
                        out.push('\\');
                        out.push(next);
                    }
                    // A Unicode property ignores the caseless option in
                    // PCRE2 (`\p{Lu}` never matches `a`); the engine's
                    // case folding would widen it.
                    'p' | 'P' => {
                        let (ranges, end) = property(&chars, i + 1, utf)?;
                        out.push_str("(?-i:");
                        out.push_str(&class_text(&ranges));
                        out.push(')');
                        i = end;
                        last = Last::Item;
                        continue;
                    }
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                i += 2;
                // An escape's own braces (`\x{41}`, `\p{L}`, `\g{1}`).
                if matches!(next, 'x' | 'o' | 'g' | 'k') && chars.get(i) == Some(&'{') {
                    let end = chars[i..]
                        .iter()
                        .position(|&c| c == '}')
                        .map_or(chars.len(), |p| i + p + 1);
                    if !utf && beyond_byte(next, &chars[i..end]) {
                        return None;
                    }
                    out.extend(&chars[i..end]);
                    i = end;
                }
                // Assertions and `\K` take no quantifier in PCRE2.
                last = if matches!(next, 'b' | 'B' | 'A' | 'z' | 'Z' | 'G' | 'K') {
                    Last::Assertion
                } else {
                    Last::Item
                };
                continue;
            }
            '[' => {
                // PCRE2's word boundaries spelled as POSIX classes.
                if chars[i..].starts_with(&['[', '[', ':', '<', ':', ']', ']']) {
                    out.push_str(r"\b(?=\w)");
                    i += 7;
                    last = Last::Item;
                    continue;
                }
                if chars[i..].starts_with(&['[', '[', ':', '>', ':', ']', ']']) {
                    out.push_str(r"\b(?<=\w)");
                    i += 7;
                    last = Last::Item;
                    continue;
                }
                let (class, end) = read_class_blanks(&chars, i, extended_more)?;
                out.push_str(&class);
                i = end;
                last = Last::Item;
                continue;
            }
            '(' => {
                let rest = &chars[i + 1..];
                if rest.starts_with(&['?', '#']) {
                    // A comment: dropped (PCRE2 refuses one not closed).
                    let end = rest.iter().position(|&c| c == ')').map(|p| i + 2 + p)?;
                    i = end;
                    continue;
                }
                if rest.first() == Some(&'*') {
                    // A verb or a setting, `(*...)`: no quantifier follows.
                    let end = rest.iter().position(|&c| c == ')').map(|p| i + 2 + p)?;
                    out.extend(&chars[i..end]);
                    i = end;
                    last = Last::Assertion;
                    continue;
                }
                let name_start = if rest.starts_with(&['?', '<'])
                    && !rest.starts_with(&['?', '<', '='])
                    && !rest.starts_with(&['?', '<', '!'])
                {
                    Some((2, '>'))
                } else if rest.starts_with(&['?', 'P', '<']) {
                    Some((3, '>'))
                } else if rest.starts_with(&['?', '\'']) {
                    Some((2, '\''))
                } else {
                    None
                };
                if let Some((offset, close)) = name_start
                    && let Some(length) = rest[offset..].iter().position(|&c| c == close)
                {
                    let name = &rest[offset..offset + length];
                    if names.contains(&name) && !duplicate_names {
                        return None;
                    }
                    names.push(name);
                }
                // Option settings that turn extended mode on or off.
                if rest.first() == Some(&'?') {
                    // PCRE2 skips no white space inside `(?` and its option
                    // letters, even in extended mode (`(?i :a)`, `(?x)(?i )a`).
                    let letters = rest[1..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphabetic() || **c == '-' || **c == '^')
                        .count();
                    if rest.get(1 + letters).is_some_and(|&c| pcre2_space(c)) {
                        return None;
                    }
                    let settings: String = rest[1..1 + letters].iter().collect();
                    let mut setting = extended;
                    let mut setting_more = extended_more;
                    if settings.starts_with('^') {
                        setting = false;
                        setting_more = false;
                    }
                    if let Some(on) = settings.split('-').next()
                        && on.contains('x')
                    {
                        setting = true;
                        // `x` without `xx` ends extended-more mode.
                        setting_more = on.contains("xx");
                    }
                    if let Some((_, off)) = settings.split_once('-')
                        && off.contains('x')
                    {
                        setting = false;
                        setting_more = false;
                    }
                    let open = |extended_after, extended_more_after| Group {
                        extended_after,
                        extended_more_after,
                        settings: Vec::new(),
                    };
                    match rest.get(1 + letters) {
                        // `(?x)`: for the rest of the enclosing group.
                        Some(')') if letters > 0 => {
                            extended = setting;
                            extended_more = setting_more;
                            if let Some(group) = enclosing.last_mut()
                                && settings.chars().all(|c| "imnsxJU^-".contains(c))
                            {
                                out.push_str("(?");
                                out.push_str(&settings);
                                out.push(':');
                                group.settings.push(settings);
                                i += 2 + letters + 1;
                                last = Last::Nothing;
                                continue;
                            }
                            enclosing.push(open(setting, setting_more));
                        }
                        // `(?x:...)`: inside this group only.
                        Some(':') => {
                            enclosing.push(open(extended, extended_more));
                            extended = setting;
                            extended_more = setting_more;
                        }
                        _ => enclosing.push(open(extended, extended_more)),
                    }
                } else {
                    enclosing.push(Group {
                        extended_after: extended,
                        extended_more_after: extended_more,
                        settings: Vec::new(),
                    });
                }
                out.push('(');
                if rest.first() == Some(&'?') {
                    // The `?` of `(?`, and the `+` of `(?+1)`, are no
                    // quantifiers.
                    out.push('?');
                    i += 1;
                    if rest.get(1) == Some(&'+') {
                        out.push('+');
                        i += 1;
                    }
                }
                last = Last::Nothing;
            }
            '|' => {
                let settings = enclosing.last().map_or(&[][..], |g| &g.settings[..]);
                out.extend(settings.iter().map(|_| ')'));
                out.push('|');
                for setting in settings {
                    out.push_str("(?");
                    out.push_str(setting);
                    out.push(':');
                }
                last = Last::Nothing;
            }
            ')' => {
                if let Some(group) = enclosing.pop() {
                    out.extend(group.settings.iter().map(|_| ')'));
                    extended = group.extended_after;
                    extended_more = group.extended_more_after;
                }
                out.push(')');
                last = Last::Item;
            }
            '*' => {
                quantifier(&mut last, false)?;
                out.push('*');
            }
            '+' | '?' => {
                quantifier(&mut last, true)?;
                out.push(c);
            }
            '{' => match brace_quantifier(&chars[i..]) {
                Some((length, low, high)) => {
                    if low > MAX_REPEAT || high.is_some_and(|h| h > MAX_REPEAT || h < low) {
                        return None;
                    }
                    quantifier(&mut last, false)?;
                    out.extend(&chars[i..i + length]);
                    i += length;
                    continue;
                }
                // PCRE2 reads the counts of a brace that turns out to
                // start no quantifier all the same, and refuses one above
                // 65,535 (`a{65536x`, `a{1,65536`).
                None if brace_count_too_big(&chars[i..]) => return None,
                None => {
                    out.push_str(r"\{");
                    last = Last::Item;
                }
            },
            // The engine skips only space, tab, CR and LF; a newline stays
            // one, as it ends a comment there as in PCRE2.
            '\n' if extended => out.push('\n'),
            c if extended && pcre2_space(c) => out.push(' '),
            '#' if extended => {
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(chars.len(), |p| i + p);
                out.extend(&chars[i..end]);
                i = end;
                continue;
            }
            '^' | '$' => {
                out.push(c);
                last = Last::Assertion;
            }
            _ => {
                out.push(c);
                last = Last::Item;
            }
        }
        i += 1;
    }
    Some(out)
}

/// Whether `\\x{..}` or `\\o{..}` (`letter`, then `braces`) names a code
/// point above 255, which PCRE2 refuses outside UTF mode.
fn beyond_byte(letter: char, braces: &[char]) -> bool {
    let radix = match letter {
        'x' => 16,
        'o' => 8,
        _ => return false,
    };
    let digits = braces.iter().skip(1).take_while(|c| c.is_digit(radix));
    digits.fold(0u64, |n, c| {
        (n * u64::from(radix) + u64::from(c.to_digit(radix).unwrap_or(0))).min(1 << 32)
    }) > 0xFF
}

/// The Unicode property at `chars[at]` (the `p` or `P` of `\p{..}`): its
/// code points (bytes only outside UTF mode) and the index after it, or
/// `None` if PCRE2 refuses it.
fn property(chars: &[char], at: usize, utf: bool) -> Option<(Vec<(u32, u32)>, usize)> {
    let upper = chars[at] == 'P';
    // A name is at most 31 characters.
    let units: Vec<u32> = chars[at + 1..]
        .iter()
        .take(40)
        .map(|&c| u32::from(c))
        .collect();
    let (mut ranges, used) = crate::unicode_property::parse(&units, upper)?;
    if !utf {
        ranges.retain(|&(low, _)| low <= 0xFF);
        if let Some(last) = ranges.last_mut() {
            last.1 = last.1.min(0xFF);
        }
    }
    Some((ranges, at + 1 + used))
}

/// `\\c` and the character after it: the character that is its code with
/// bit 6 flipped (upper case first), or `None` where PCRE2 refuses it (not
/// a printable ASCII character, or none).
fn control(next: Option<char>) -> Option<String> {
    let x = next.filter(|c| (' '..='~').contains(c))?;
    Some(format!(
        r"\x{{{:X}}}",
        u32::from(x.to_ascii_uppercase()) ^ 0x40
    ))
}

/// Whether `digits` (after a `\\`) start with three octal digits whose
/// value is above 255, which PCRE2 refuses outside UTF mode when they are
/// not a back reference.
fn octal_above_byte(digits: &[char]) -> bool {
    digits.len() >= 3
        && matches!(digits[0], '4'..='7')
        && digits[1..3].iter().all(|c| matches!(c, '0'..='7'))
}

/// Sorted ranges with the overlapping and adjacent ones joined.
fn merged(ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (low, high) in ranges {
        match out.last_mut() {
            Some(last) if low <= last.1.saturating_add(1) => last.1 = last.1.max(high),
            _ => out.push((low, high)),
        }
    }
    out
}

/// A class of the engine holding `ranges` (one that matches nothing when
/// they are empty).
fn class_text(ranges: &[(u32, u32)]) -> String {
    if ranges.is_empty() {
        return String::from(r"[^\x{0}-\x{10FFFF}]");
    }
    let mut out = String::from("[");
    for &(low, high) in ranges {
        out.push_str(&format!(r"\x{{{low:X}}}"));
        if high > low {
            out.push_str(&format!(r"-\x{{{high:X}}}"));
        }
    }
    out.push(']');
    out
}

/// The POSIX class names PCRE2 knows.
const POSIX_NAMES: [&str; 14] = [
    "alpha", "lower", "upper", "alnum", "ascii", "blank", "cntrl", "digit", "graph", "print",
    "punct", "space", "word", "xdigit",
];

/// PCRE2's `check_posix_syntax`: at `chars[at]`, the `:`, `.` or `=` after
/// a `[`, whether a POSIX class item follows, and where its closing
/// terminator is (the `:` of `:]`). The scan gives up at a `]` or at `[`
/// with the same terminator; `\]` and `\\` are skipped over.
fn posix_end(chars: &[char], at: usize) -> Option<usize> {
    let terminator = *chars.get(at)?;
    let mut k = at + 1;
    while k + 1 < chars.len() {
        let (c, next) = (chars[k], chars[k + 1]);
        if c == '\\' && (next == ']' || next == '\\') {
            k += 1;
        } else if (c == '[' && next == terminator) || c == ']' {
            return None;
        } else if c == terminator && next == ']' {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// A character class at `chars[start]` (a `[`), read by PCRE2 10.32's
/// rules: the one scanner of classes, which `translate` relies on. Returns
/// the class in a form with no ambiguity left (a leading `]` and every
/// other literal `[`, `&`, `~` and `-` escaped, POSIX items only where PCRE2
/// reads one) and the index after it, or `None` where PCRE2 refuses the
/// pattern: `[:alpha:]` outside a class, `[.a.]` and `[=a=]` anywhere, an
/// unknown POSIX name, a POSIX item or class escape at either end of a
/// range (`[a-[:digit:]]`, `[\d-z]`), a class without its `]`.
pub(crate) fn read_class(chars: &[char], start: usize) -> Option<(String, usize)> {
    read_class_blanks(chars, start, false)
}

/// [`read_class`] in PCRE2's extended-more mode (`(?xx)`, `blanks`): spaces
/// and tabs outside `\Q...\E` are no members, and those before the first
/// member are skipped with the `^`, so a `]` after them is a member.
fn read_class_blanks(chars: &[char], start: usize, blanks: bool) -> Option<(String, usize)> {
    if matches!(chars.get(start + 1), Some(':' | '.' | '='))
        && posix_end(chars, start + 1).is_some()
    {
        return None;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Range {
        /// Nothing a `-` could make a range from.
        No,
        /// A single character a `-` could start a range from.
        Char,
        /// A `-` after such a character.
        Started,
    }
    let mut out = String::from("[");
    let mut j = start + 1;
    // The members by Unicode property, kept apart: PCRE2 never compares
    // them in the other case, and the engine's caseless option would.
    let mut properties: Option<Vec<(u32, u32)>> = None;
    let utf = chars.starts_with(&['(', '*', 'U', 'T', 'F']);
    // `\E` (and empty `\Q\E`) may come before the `^`; one `^` negates.
    let mut negated = false;
    loop {
        if chars[j..].starts_with(&['\\', 'E']) {
            j += 2;
        } else if chars[j..].starts_with(&['\\', 'Q', '\\', 'E']) {
            j += 4;
        } else if blanks && matches!(chars.get(j), Some(' ' | '\t')) {
            j += 1;
        } else if !negated && chars.get(j) == Some(&'^') {
            negated = true;
            out.push('^');
            j += 1;
        } else {
            break;
        }
    }
    // A `]` first is a member (PCRE2 allows no empty class).
    let mut range = Range::No;
    if chars.get(j) == Some(&']') {
        out.push_str(r"\]");
        j += 1;
        range = Range::Char;
    }
    // A class escape or POSIX item may not be followed by a `-` that is
    // not the class's last character.
    let hyphen_after =
        |k: usize| chars.get(k) == Some(&'-') && chars.get(k + 1).is_some_and(|&c| c != ']');
    let literal = |range: Range| {
        if range == Range::Started {
            Range::No
        } else {
            Range::Char
        }
    };
    loop {
        let c = *chars.get(j)?;
        if blanks && matches!(c, ' ' | '\t') {
            j += 1;
            continue;
        }
        match c {
            ']' => {
                out.push(']');
                let Some(mut properties) = properties else {
                    return Some((out, j + 1));
                };
                properties.sort_unstable();
                let negated = out.starts_with("[^");
                let own = if negated { &out[2..] } else { &out[1..] };
                let out = match (own == "]", negated) {
                    (true, false) => format!("(?-i:{})", class_text(&properties)),
                    (true, true) => format!(
                        "(?-i:{})",
                        class_text(&crate::unicode_property::complement(&merged(properties)))
                    ),
                    (false, false) => format!("(?:(?-i:{})|{out})", class_text(&properties)),
                    (false, true) => format!("(?:(?!(?-i:{})){out})", class_text(&properties)),
                };
                return Some((out, j + 1));
            }
            '[' if matches!(chars.get(j + 1), Some(':' | '.' | '='))
                && chars.len() - (j + 1) >= 3
                && posix_end(chars, j + 1).is_some() =>
            {
                let end = posix_end(chars, j + 1)?;
                if range == Range::Started || chars[j + 1] != ':' {
                    return None;
                }
                let mut name_start = j + 2;
                let negate = chars.get(name_start) == Some(&'^');
                if negate {
                    name_start += 1;
                }
                let name: String = chars[name_start..end].iter().collect();
                if !POSIX_NAMES.contains(&name.as_str()) || hyphen_after(end + 2) {
                    return None;
                }
                out.push_str(if negate { "[:^" } else { "[:" });
                out.push_str(&name);
                out.push_str(":]");
                j = end + 2;
                range = Range::No;
            }
            '\\' => {
                let next = *chars.get(j + 1)?;
                match next {
                    'Q' => {
                        // Literal up to `\E`: each character by its code,
                        // so no later scan takes a `]` in it for the end.
                        let close = (j + 2..chars.len().saturating_sub(1))
                            .find(|&k| chars[k] == '\\' && chars[k + 1] == 'E');
                        let (text_end, end) =
                            close.map_or((chars.len(), chars.len()), |k| (k, k + 2));
                        for &literal_char in &chars[j + 2..text_end] {
                            out.push_str(&format!(r"\x{{{:X}}}", u32::from(literal_char)));
                            range = literal(range);
                        }
                        j = end;
                    }
                    'E' => j += 2,
                    // Invalid in a class in PCRE2 (as are unknown letters).
                    'u' | 'U' | 'L' | 'l' | 'F' | 'N' | 'A' | 'B' | 'C' | 'G' | 'K' | 'R' | 'X'
                    | 'Z' | 'z' | 'k' => return None,
                    // A literal `g` in a class.
                    'g' => {
                        out.push('g');
                        j += 2;
                        range = literal(range);
                    }
                    'c' => {
                        out.push_str(&control(chars.get(j + 2).copied())?);
                        j += 3;
                        range = literal(range);
                    }
                    '4'..='7' if octal_above_byte(&chars[j + 1..]) && !utf => return None,
                    'p' | 'P' => {
                        let (ranges, end) = property(chars, j + 1, utf)?;
                        if range == Range::Started || hyphen_after(end) {
                            return None;
                        }
                        properties.get_or_insert_with(Vec::new).extend(ranges);
                        j = end;
                        range = Range::No;
                    }
                    'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'h' | 'H' | 'v' | 'V' => {
                        if range == Range::Started {
                            return None;
                        }
                        let end = j + 2;
                        if hyphen_after(end) {
                            return None;
                        }
                        out.extend(&chars[j..end]);
                        j = end;
                        range = Range::No;
                    }
                    _ => {
                        out.push('\\');
                        out.push(next);
                        j += 2;
                        // An escape's own braces (`\x{41}`, `\o{101}`).
                        if matches!(next, 'x' | 'o' | 'N') && chars.get(j) == Some(&'{') {
                            let end = chars[j..]
                                .iter()
                                .position(|&c| c == '}')
                                .map_or(chars.len(), |p| j + p + 1);
                            if !chars.starts_with(&['(', '*', 'U', 'T', 'F'])
                                && beyond_byte(next, &chars[j..end])
                            {
                                return None;
                            }
                            out.extend(&chars[j..end]);
                            j = end;
                        }
                        range = literal(range);
                    }
                }
            }
            '-' if range == Range::Char && chars.get(j + 1).is_some_and(|&c| c != ']') => {
                out.push('-');
                range = Range::Started;
                j += 1;
            }
            '[' | '&' | '~' | '-' => {
                // Literal here; the regex crate reads `[` as a nested class
                // and `&&`, `~~`, `--` as set operations.
                out.push('\\');
                out.push(c);
                range = literal(range);
                j += 1;
            }
            _ => {
                out.push(c);
                range = literal(range);
                j += 1;
            }
        }
    }
}

/// A quantifier `{n}`, `{n,}` or `{n,m}` at the start of `chars`: its
/// length and counts (saturated), or `None` if the brace starts none.
pub(crate) fn brace_quantifier(chars: &[char]) -> Option<(usize, u32, Option<u32>)> {
    let digits = |from: usize| {
        chars[from.min(chars.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let number = |from: usize, count: usize| {
        chars[from..from + count].iter().fold(0u32, |n, c| {
            n.saturating_mul(10)
                .saturating_add(c.to_digit(10).unwrap_or(0))
        })
    };
    let low_digits = digits(1);
    if low_digits == 0 {
        return None;
    }
    let low = number(1, low_digits);
    let mut j = 1 + low_digits;
    match chars.get(j) {
        Some('}') => Some((j + 1, low, Some(low))),
        Some(',') => {
            j += 1;
            let high_digits = digits(j);
            let high = (high_digits > 0).then(|| number(j, high_digits));
            j += high_digits;
            (chars.get(j) == Some(&'}')).then_some((j + 1, low, high))
        }
        _ => None,
    }
}

/// Whether the `{` at the start of `chars` has a count above PCRE2's
/// largest after it (digits right after the brace, or after those digits
/// and a comma), whatever follows.
fn brace_count_too_big(chars: &[char]) -> bool {
    let count = |from: usize| -> (usize, u64) {
        let digits = chars.get(from..).unwrap_or_default();
        let length = digits.iter().take_while(|c| c.is_ascii_digit()).count();
        let value = digits[..length].iter().fold(0u64, |n, c| {
            n.saturating_mul(10)
                .saturating_add(u64::from(c.to_digit(10).unwrap_or(0)))
        });
        (length, value)
    };
    let (low_length, low) = count(1);
    if low_length == 0 {
        return false;
    }
    if low > u64::from(MAX_REPEAT) {
        return true;
    }
    let comma = 1 + low_length;
    chars.get(comma) == Some(&',') && count(comma + 1).1 > u64::from(MAX_REPEAT)
}

/// PCRE's end-of-subject assertion: at the end or before a final newline.
const END_OR_FINAL_NEWLINE: &str = r"(?=\n?\z)";

/// The number of capturing groups of a pattern (for PCRE's rule that
/// `\NN` is a back reference only if that many groups exist).
fn count_groups(pattern: &str) -> usize {
    let bytes = pattern.as_bytes();
    let (mut count, mut i, mut in_class) = (0, 0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class => {
                let rest = &bytes[i + 1..];
                let named = rest.starts_with(b"?<")
                    && !rest.starts_with(b"?<=")
                    && !rest.starts_with(b"?<!")
                    || rest.starts_with(b"?P<")
                    || rest.starts_with(b"?'");
                if named || !(rest.starts_with(b"?") || rest.starts_with(b"*")) {
                    count += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    count
}

/// Rewrites PCRE syntax the regex crate reads differently or not at all:
/// `\Z`, `$` (if `dollar`, outside a character class) as
/// [`END_OR_FINAL_NEWLINE`]; `\Q...\E`; the ASCII-only `\d \D \s \S \w
/// \W`; `\h \H \v \V \R`; `\cX`; `\xH`; octal escapes (`\0`, `\0oo`, and
/// `\ooo` when there are fewer groups than its decimal value); `\b` in a
/// class (backspace).
fn translate(pattern: &str, dollar: bool) -> String {
    let groups = count_groups(pattern);
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let code = |out: &mut String, c: u32| out.push_str(&format!(r"\x{{{c:X}}}"));
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let class = |name: &str| {
                    if in_class {
                        format!("[:{name}:]")
                    } else {
                        format!("[[:{name}:]]")
                    }
                };
                match next {
                    'Z' if !in_class => out.push_str(END_OR_FINAL_NEWLINE),
                    'Q' => {
                        while let Some(literal) = chars.next() {
                            if literal == '\\' && chars.peek() == Some(&'E') {
                                chars.next();
                                break;
                            }
                            code(&mut out, u32::from(literal));
                        }
                    }
                    'E' => {}
                    'd' => out.push_str(&class("digit")),
                    'D' => out.push_str(&class("^digit")),
                    's' => out.push_str(&class("space")),
                    'S' => out.push_str(&class("^space")),
                    'w' => out.push_str(&class("word")),
                    'W' => out.push_str(&class("^word")),
                    'h' if in_class => out.push_str(r"\t \xA0"),
                    'H' if in_class => out.push_str(r"[^\t \xA0]"),
                    'V' if in_class => out.push_str(r"[^\n\x0B\x0C\r\x85]"),
                    'h' => out.push_str(r"[\t \xA0]"),
                    'H' if !in_class => out.push_str(r"[^\t \xA0]"),
                    'v' if in_class => out.push_str(r"\n\x0B\x0C\r\x85"),
                    'v' => out.push_str(r"[\n\x0B\x0C\r\x85]"),
                    'V' if !in_class => out.push_str(r"[^\n\x0B\x0C\r\x85]"),
                    // Atomic in PCRE2: a CR LF is never split.
                    'R' if !in_class => out.push_str(r"(?>\r\n|[\n\x0B\x0C\r\x85])"),
                    'b' if in_class => out.push_str(r"\x08"),
                    // Word boundaries between ASCII word characters only, as
                    // PCRE2 reads bytes.
                    'b' => out.push_str(concat!(
                        r"(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])",
                        r"|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))"
                    )),
                    'B' if !in_class => out.push_str(concat!(
                        r"(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])",
                        r"|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))"
                    )),
                    'c' => match chars.next() {
                        Some(x) => code(&mut out, u32::from(x.to_ascii_uppercase()) ^ 0x40),
                        None => out.push_str(r"\c"),
                    },
                    'x' if chars.peek().is_some_and(char::is_ascii_hexdigit) => {
                        let mut value = 0;
                        for _ in 0..2 {
                            match chars.peek().and_then(|d| d.to_digit(16)) {
                                Some(d) => {
                                    value = value * 16 + d;
                                    chars.next();
                                }
                                None => break,
                            }
                        }
                        code(&mut out, value);
                    }
                    '0'..='9' => {
                        let mut digits = String::from(next);
                        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                            digits.push(*d);
                            chars.next();
                        }
                        let decimal: usize = digits.parse().unwrap_or(usize::MAX);
                        let back_reference =
                            next != '0' && !in_class && (decimal < 10 || decimal <= groups);
                        if back_reference {
                            out.push('\\');
                            out.push_str(&digits);
                        } else if next == '8' || next == '9' {
                            // Not octal: a literal digit (PCRE2 reads \8 as an error
                            // only when it is a back reference).
                            out.push_str(&digits);
                        } else {
                            // Up to three octal digits (\0 and two more).
                            let octal_len = digits
                                .bytes()
                                .take(3)
                                .take_while(|d| (b'0'..=b'7').contains(d))
                                .count();
                            let value =
                                u32::from_str_radix(&digits[..octal_len], 8).unwrap_or(0) & 0xFF;
                            code(&mut out, value);
                            for d in digits[octal_len..].chars() {
                                code(&mut out, u32::from(d));
                            }
                        }
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            // Classes come from `read_class`, which leaves a `[` in one
            // only where a POSIX item such as `[:alpha:]` begins.
            '[' if !in_class => {
                in_class = true;
                out.push('[');
            }
            '[' if chars.peek() == Some(&':') => {
                out.push('[');
                for inner in chars.by_ref() {
                    out.push(inner);
                    if inner == ']' {
                        break;
                    }
                }
            }
            '[' => out.push_str(r"\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '$' if dollar && !in_class => out.push_str(END_OR_FINAL_NEWLINE),
            _ => out.push(c),
        }
    }
    out
}

/// A C string: the bytes before the first NUL.
fn c_string(bytes: &[u8]) -> &[u8] {
    bytes
        .iter()
        .position(|&b| b == 0)
        .map_or(bytes, |end| &bytes[..end])
}

/// Bytes as text for the matcher: ASCII as it is, anything else as Latin-1
/// (one character per byte).
fn to_text(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.is_ascii()
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        return Cow::Borrowed(text);
    }
    Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())
}

/// The inverse of [`to_text`] (every character is at most U+00FF).
fn from_text(text: String) -> Vec<u8> {
    if text.is_ascii() {
        text.into_bytes()
    } else {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect()
    }
}

/// Whether `pattern`, ignoring case, has a match in `target` that is not
/// empty: `unresolved`'s search (PCRE2_CASELESS, and PCRE2_NOTEMPTY, so
/// `""` matches nothing). An empty match at one place moves the search on
/// to the next character (PCRE2 would first try the pattern's other ways
/// of matching there: `"|x"` differs, which no name needs).
pub(crate) fn matches_not_empty(
    context: &mut dyn Budget,
    compiled: &Compiled,
    target: &[u8],
) -> Option<bool> {
    let text = to_text(c_string(target));
    let on_backtrack = |context: &mut dyn Budget| {
        let program = compiled.program()?;
        let subject = Subject::new(&text, program.utf()).ok()?;
        let options = MatchOptions {
            notempty: true,
            unlimited: compiled.limit_model.is_some(),
            ..MatchOptions::default()
        };
        let found = backtrack_match(context, compiled, program, &subject, 0, options)?;
        Some(found.is_some())
    };
    if past_match_limit(context, compiled, c_string(target)) {
        return None;
    }
    if compiled.on_backtrack(&text) {
        return on_backtrack(context);
    }
    let found = compiled.run(context, &text, text.len(), |regex| {
        let mut start = 0;
        while start <= text.len() {
            match regex.find_from_pos(&text, start)? {
                None => return Ok(false),
                Some(found) if compiled.too_short(&text, Some(found.start())) => {
                    return Ok(false);
                }
                Some(found) if found.end() > found.start() => return Ok(true),
                Some(found) => match text[found.start()..].chars().next() {
                    Some(c) => start = found.start() + c.len_utf8(),
                    None => return Ok(false),
                },
            }
        }
        Ok(false)
    });
    match found {
        Ok(found) => Some(found),
        Err(Halt::Limit) => on_backtrack(context),
        Err(Halt::Error) => None,
    }
}

/// Frames of PCRE2's search (replayed by the match-limit model or counted
/// by `backtrack.rs`) charged as one step. A frame takes about as long as
/// two instructions of the VM (20 ns; PCRE2 itself about 14 ns), but the
/// replay is HTCondor's own work, bounded by its match limit per start
/// position: charged at cost, a single start position near the limit
/// (10 million frames) would take a fifth of the default budget and a
/// search over a few such positions, which HTCondor answers, would be
/// ERROR. At 8 frames a step such a position costs 1.25 million steps,
/// and the default budget bounds a call's replay to 80 million frames
/// (about 1.6 s; HTCondor's own search of them takes about 1.1 s).
const FRAMES_PER_STEP: u64 = 8;

/// Whether PCRE2 would run into its match limit searching `subject` from
/// its start (or the budget ran out finding that out).
fn past_match_limit(context: &mut dyn Budget, compiled: &Compiled, subject: &[u8]) -> bool {
    modelled_search(context, compiled, subject) == Some(Verdict::Limit)
}

/// PCRE2's search of `subject` replayed by the model of its match limit
/// (`Limit` too when the budget ran out); `None`: no model, or it gave up.
fn modelled_search(
    context: &mut dyn Budget,
    compiled: &Compiled,
    subject: &[u8],
) -> Option<Verdict> {
    let model = compiled.limit_model.as_ref()?;
    let mut spent = false;
    let verdict = model.search(subject, &mut |frames| {
        spent = !context.charge(frames / FRAMES_PER_STEP);
        !spent
    });
    if spent {
        return Some(Verdict::Limit);
    }
    verdict
}

impl Compiled {
    /// Whether `text` is matched on [`backtrack`].
    fn on_backtrack(&self, text: &str) -> bool {
        self.backtracked
            || (self.circ_multiline && text.ends_with('\n') && self.program().is_some())
    }

    /// The pattern for [`backtrack`], built when first needed (`None` if
    /// it cannot run there).
    fn program(&self) -> Option<&Program> {
        self.backtrack
            .get_or_init(|| build_program(&self.pattern, self.flags).ok())
            .as_ref()
    }
}

/// One call of PCRE2's `pcre2_match` on [`backtrack`]: the match from
/// text offset `index` (`Some(None)`: none), or `None` for an error (the
/// match limit, a recursion loop, a subject that is not UTF-8 in UTF
/// mode, the budget).
fn backtrack_match(
    context: &mut dyn Budget,
    compiled: &Compiled,
    program: &Program,
    subject: &Subject,
    index: usize,
    options: MatchOptions,
) -> Option<Option<Groups>> {
    let steps_per_byte = compiled.steps_per_byte;
    // PCRE2's own checks before a match (its first and last required code
    // units, the shortest subject) are the program's: a literal between
    // them is not looked for (`regexp("(?R)yx", "xx")` runs and loops).
    let start = subject.unit_at(index);
    let scanned = (subject.len() - start.min(subject.len())) as u64;
    if !context.charge(
        scanned
            .saturating_mul(steps_per_byte)
            .saturating_add(STEPS_PER_ATTEMPT),
    ) {
        return None;
    }
    program
        .exec(subject, start, options, &mut |frames| {
            context.charge(frames / FRAMES_PER_STEP)
        })
        .ok()
}

/// Whether the pattern matches somewhere in `target`; `None` when the
/// match fails (backtracking limit) or the budget is spent.
pub(crate) fn search(context: &mut dyn Budget, compiled: &Compiled, target: &[u8]) -> Option<bool> {
    let text = to_text(c_string(target));
    let on_backtrack = |context: &mut dyn Budget| {
        let program = compiled.program()?;
        let subject = Subject::new(&text, program.utf()).ok()?;
        let options = MatchOptions {
            unlimited: compiled.limit_model.is_some(),
            ..MatchOptions::default()
        };
        let found = backtrack_match(context, compiled, program, &subject, 0, options)?;
        Some(found.is_some())
    };
    // The model replays PCRE2's whole search: its answer is the answer.
    match modelled_search(context, compiled, c_string(target)) {
        Some(Verdict::Limit) => return None,
        Some(verdict) => return Some(verdict == Verdict::Match),
        None => {}
    }
    if compiled.on_backtrack(&text) {
        return on_backtrack(context);
    }
    if !context.charge_bytes((text.len() * compiled.required.len()) as u64) {
        return None;
    }
    if text.len() < REQUIRED_SCAN_MAX
        && compiled.required.iter().any(|&r| {
            !text
                .chars()
                .any(|c| c == r || compiled.caseless && c.eq_ignore_ascii_case(&r))
        })
    {
        return Some(false);
    }
    if compiled.too_short(&text, None) {
        return Some(false);
    }
    match compiled.run(context, &text, text.len(), |regex| {
        if compiled.min_length == 0 && compiled.asserted_required.is_none() {
            return Ok(regex.is_match(&text)?);
        }
        // PCRE2 tries no start with fewer code units left than its study's
        // length, nor any later one; nor one the required unit does not
        // follow.
        Ok(regex
            .find(&text)?
            .is_some_and(|found| !compiled.too_short(&text, Some(found.start()))))
    }) {
        Ok(found) => Some(found),
        Err(Halt::Limit) => on_backtrack(context),
        Err(Halt::Error) => None,
    }
}

/// `regexps`, `replace` and `replaceall` (see [`crate::Regex::substitute`]).
pub(crate) fn substitute_call(
    context: &mut dyn Budget,
    compiled: &Compiled,
    target: &[u8],
    replacement: &[u8],
    how: Substitution,
) -> Option<Vec<u8>> {
    let text = to_text(c_string(target));
    let replacement = to_text(c_string(replacement));
    match modelled_search(context, compiled, c_string(target)) {
        Some(Verdict::Limit) => return None,
        // No match (the model replays PCRE2's search): nothing replaced.
        Some(Verdict::NoMatch) => {
            let out = if how.full {
                text.to_string()
            } else {
                String::new()
            };
            return Some(from_text(out));
        }
        _ => {}
    }
    let on_backtrack = compiled.on_backtrack(&text);
    let mut limit = false;
    let mut out = substitute(
        context,
        compiled,
        (&text, &replacement),
        how,
        on_backtrack,
        &mut limit,
    );
    if limit {
        // The engine backtracked too much: the whole substitution again on
        // `backtrack`, whose count of frames decides.
        out = substitute(
            context,
            compiled,
            (&text, &replacement),
            how,
            true,
            &mut limit,
        );
    }
    out.map(from_text)
}

/// HTCondor's substitution loop. Without `full` the result is only the
/// expanded replacement(s); with it, the target with the match(es)
/// replaced. With `global`, after an empty match the next character is
/// copied (as HTCondor does, even without `full`) before searching on.
/// `\0`..`\9` in the replacement expand to groups (ERROR for a group past
/// the last one that took part in the match, empty for an unset one);
/// any other backslash is copied.
///
/// After an empty match HTCondor asks again at the same place for a match
/// that is not empty (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED); that retry
/// runs on [`backtrack`], which implements those options.
/// With `global`, an empty match at the end of the target is ERROR, as in
/// HTCondor (which reads past the end there); with
/// `corrections` (`Options::corrections`) it is replaced and ends the loop.
fn substitute(
    context: &mut dyn Budget,
    compiled: &Compiled,
    (text, replacement): (&str, &str),
    Substitution {
        full,
        global,
        corrections,
    }: Substitution,
    on_backtrack: bool,
    limit: &mut bool,
) -> Option<String> {
    // With a model of PCRE2's count, the caller asked it (and `backtrack`
    // runs without a limit of its own).
    let unlimited = compiled.limit_model.is_some();
    // The subject as `backtrack` reads it, made when first needed.
    let mut subject: Option<Subject> = None;
    let mut out = String::new();
    let mut index = 0;
    // Once a match was empty, HTCondor asks every later match at the
    // place the last one ended, not empty there (PCRE2_NOTEMPTY_ATSTART |
    // PCRE2_ANCHORED); when there is none, it copies the next character
    // and searches normally from after it.
    let mut after_empty_match = false;
    // The groups of the last match, kept to be filled again.
    let mut spare: Groups = Vec::new();
    loop {
        let found = if after_empty_match {
            let retry = match compiled.program() {
                Some(program) => {
                    if subject.is_none() {
                        subject = Some(Subject::new(text, program.utf()).ok()?);
                    }
                    let options = MatchOptions {
                        anchored: true,
                        notempty_atstart: true,
                        unlimited,
                        ..MatchOptions::default()
                    };
                    let subject = subject.as_ref()?;
                    backtrack_match(context, compiled, program, subject, index, options)?
                }
                None => fancy_match(context, compiled, text, index, &mut spare, limit)?
                    .filter(|groups| groups[0].is_some_and(|(a, b)| a == index && b > index)),
            };
            if retry.is_none() {
                after_empty_match = false;
                match text.get(index..).and_then(|rest| rest.chars().next()) {
                    Some(c) => {
                        out.push(c);
                        index += c.len_utf8();
                        continue;
                    }
                    // HTCondor reads past the end here: ERROR (with
                    // `Options::corrections`, the end of the loop).
                    None if corrections => break,
                    None => return None,
                }
            }
            retry
        } else if on_backtrack {
            let program = compiled.program()?;
            if subject.is_none() {
                subject = Some(Subject::new(text, program.utf()).ok()?);
            }
            let subject = subject.as_ref()?;
            backtrack_match(
                context,
                compiled,
                program,
                subject,
                index,
                MatchOptions {
                    unlimited,
                    ..MatchOptions::default()
                },
            )?
        } else {
            fancy_match(context, compiled, text, index, &mut spare, limit)?
        };
        let Some(groups) = found else { break };
        let (start, end) = groups[0]?;
        // What this match adds, counted before it is written.
        let copied = if full { start.saturating_sub(index) } else { 0 };
        if !context.reserve(copied + expansion_size(replacement, text, &groups)) {
            return None;
        }
        if full {
            out.push_str(text.get(index..start)?);
        }
        let mut chars = replacement.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\'
                && let Some(digit) = chars.peek().and_then(|d| d.to_digit(10))
            {
                chars.next();
                let group = digit as usize;
                if group >= groups.len() {
                    return None;
                }
                out.push_str(group_text(text, &groups, group));
                continue;
            }
            out.push(c);
        }
        index = end.max(index);
        after_empty_match |= start == end;
        spare = groups;
        if !global {
            break;
        }
    }
    if full {
        if !context.reserve(text.len() - index) {
            return None;
        }
        out.push_str(text.get(index..)?);
    }
    Some(out)
}

/// One search of the engine from `index`, its groups as offsets (unset
/// groups after the last set one left out, as PCRE2 counts them), charged
/// for the bytes it scanned. `None`: ERROR.
fn fancy_match(
    context: &mut dyn Budget,
    compiled: &Compiled,
    text: &str,
    index: usize,
    spare: &mut Groups,
    limit: &mut bool,
) -> Option<Option<Groups>> {
    let captures = match compiled.run(context, text, 0, |regex| {
        Ok(regex.captures_from_pos(text, index)?)
    }) {
        Ok(captures) => captures,
        Err(halt) => {
            *limit = matches!(halt, Halt::Limit);
            return None;
        }
    };
    let scanned = captures
        .as_ref()
        .and_then(|c| c.get(0))
        .map_or(text.len(), |m| m.end())
        .saturating_sub(index);
    if !context.charge((scanned as u64).saturating_mul(compiled.steps_per_byte)) {
        return None;
    }
    // PCRE2 tries no start with fewer code units left than its study's
    // length, nor any later one.
    let captures = captures.filter(|captures| {
        captures
            .get(0)
            .is_none_or(|found| !compiled.too_short(text, Some(found.start())))
    });
    Some(captures.map(|captures| {
        let last = (0..captures.len())
            .rev()
            .find(|&i| captures.get(i).is_some())
            .unwrap_or(0);
        let mut groups = std::mem::take(spare);
        groups.clear();
        groups.extend((0..=last).map(|i| captures.get(i).map(|m| (m.start(), m.end()))));
        groups
    }))
}

/// The text of group `group` of a match (empty if unset).
fn group_text<'t>(text: &'t str, groups: &Groups, group: usize) -> &'t str {
    groups
        .get(group)
        .copied()
        .flatten()
        .and_then(|(a, b)| text.get(a..b))
        .unwrap_or("")
}

/// The length of `replacement` once its group references are expanded
/// (an upper bound: a reference to a group past the last is ERROR).
fn expansion_size(replacement: &str, text: &str, groups: &Groups) -> usize {
    let mut size = 0usize;
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(digit) = chars.peek().and_then(|d| d.to_digit(10))
        {
            chars.next();
            size = size.saturating_add(group_text(text, groups, digit as usize).len());
            continue;
        }
        size = size.saturating_add(c.len_utf8());
    }
    size
}
