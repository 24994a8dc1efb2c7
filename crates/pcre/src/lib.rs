//! PCRE2 pattern handling as HTCondor's PCRE2 10.32 sees it: the regex
//! subsystem behind the ClassAd builtins `regexp`, `regexpMember`,
//! `regexps`, `replace`, `replaceall` and `stringList_regexpMember` (the
//! builtins themselves, their argument rules and option letters, live in
//! `classad-stdlib`; the rules are in `docs/functions/regex.md`).
//!
//! The surface is small: [`Regex::compile`] a pattern (bytes, a C string)
//! with [`Flags`], then ask it [`Regex::is_match`],
//! [`Regex::is_match_not_empty`] or [`Regex::substitute`]. Every answer is
//! `Some` or `None`, and `None` is HTCondor's ERROR: a pattern PCRE2
//! refuses, one over PCRE2's compiled-size limit, a search past its match
//! limit or into a recursion loop, or a spent [`Budget`]. Work is charged
//! to the caller's [`Budget`] as it is done, so a hostile pattern or
//! subject ends in ERROR, never a hang.
//!
//! ```
//! use classad_pcre::{Budget, Flags, Regex, Substitution};
//!
//! /// A budget that never runs out.
//! struct Unbounded;
//! impl Budget for Unbounded {
//!     fn charge(&mut self, _steps: u64) -> bool { true }
//!     fn charge_bytes(&mut self, _bytes: u64) -> bool { true }
//!     fn reserve(&mut self, _bytes: usize) -> bool { true }
//! }
//!
//! let budget = &mut Unbounded;
//! let regex = Regex::compile(budget, b"b+", Flags::CASELESS).unwrap();
//! assert_eq!(regex.is_match(budget, b"aBBa"), Some(true));
//! let all = Substitution { full: true, global: true, corrections: false };
//! assert_eq!(regex.substitute(budget, b"abba", b"<\\0>", all), Some(b"a<bb>a".to_vec()));
//! // PCRE2 refuses a quantifier after a quantifier; so does HTCondor.
//! assert!(Regex::compile(budget, b"a+?+", Flags::NONE).is_none());
//! // Catastrophic backtracking runs into PCRE2's match limit: ERROR.
//! let runaway = Regex::compile(budget, b"(a+)+$", Flags::NONE).unwrap();
//! assert_eq!(runaway.is_match(budget, &[b'a'; 30].iter().chain(b"b").copied().collect::<Vec<_>>()), None);
//! ```
//!
//! # Which engine answers which pattern, and why
//!
//! No single engine gives PCRE2's answers at a bounded cost, so four pieces
//! share the work; a pattern is read by each that needs it.
//!
//! 1. **Translation to fancy-regex** (`engine.rs`). Most patterns run on
//!    [`fancy_regex`], which runs what it can on regex-automata's
//!    automata and backtracks only for back references, lookaround,
//!    atomic groups and possessive quantifiers. `pcre2_rewrite` first
//!    reads the pattern as PCRE2 does where fancy-regex would read it
//!    otherwise (`a+?+` and `a{2}{3}` refused, a brace that starts no
//!    quantifier literal, `\Q..\E`, octal escapes, POSIX classes, ...), and
//!    `translate` spells the result for fancy-regex (`$` as "end or before
//!    a final newline", ASCII `\w \d \s`). Subjects are bytes matched as
//!    Latin-1 text, one character a byte. `regexp("a.c", "xabcx")`,
//!    `regexp("(a)\\1", "aa")` and `regexp("(?<=a)b", "ab")` run here.
//! 2. **The backtracking matcher** (`backtrack.rs`): its own parse of the
//!    pattern, compiled to a small program run on an explicit stack with
//!    PCRE2 10.32's semantics, counting PCRE2's frames. It answers what
//!    fancy-regex cannot run or runs differently: recursion and subroutine
//!    calls (`(?1)`, `(?R)`), branch reset `(?|..)`, `(?J)`, conditional
//!    groups, `\K`, backtracking verbs (`(*SKIP)`, `(*COMMIT)`, ...),
//!    start-of-pattern options (`(*UTF)`), repeated groups that can match
//!    nothing (`(a|)*b`), any pattern fancy-regex refuses but PCRE2
//!    accepts, a multiline `^` against a subject ending in a newline, the
//!    retry of a global substitution after an empty match (PCRE2's
//!    `NOTEMPTY_ATSTART | ANCHORED`), and a search on which fancy-regex ran
//!    out of its light backtracking limit (the frames counted here decide
//!    whether PCRE2 would have hit its match limit).
//!    `regexp("^(\\((?:[^()]|(?1))*\\))$", "(a(b))")` runs here.
//! 3. **The match-limit model** (`match_limit.rs`): a replay of PCRE2's
//!    backtracking on its own parse, for patterns that can backtrack
//!    exponentially (`(a+)+$`, `(a|a)*\\1b`). fancy-regex runs most of
//!    these on an automaton without backtracking at all, so it would
//!    answer `false` where HTCondor runs out of PCRE2's 10,000,000 frames
//!    and answers ERROR; the model's verdict (match, no match, limit) is
//!    the answer of a search wherever it has one.
//! 4. **The compiled-size estimate** (`compiled_size.rs`): PCRE2 refuses a
//!    pattern whose compiled form is over 65,536 code units
//!    (`((a){100}){100}` is 16 bytes of pattern), so such a pattern is a
//!    compile error (ERROR) before any engine sees it.
//!
//! `unicode_property.rs` holds PCRE2 10.32's `\p{..}` names for the
//! translation and the matcher.
//!
//! Compiled patterns are cached per thread (bounded) by pattern and flags.

mod backtrack;
mod compiled_size;
mod engine;
mod limits;
mod match_limit;
mod unicode_property;

use std::rc::Rc;

/// Where the work of a search is charged: the caller's evaluation budget.
/// A method answering false means the budget is spent, and the regex
/// answers ERROR (`None`) at once.
pub trait Budget {
    /// Charges `steps` steps of work.
    fn charge(&mut self, steps: u64) -> bool;
    /// Charges the scanning of `bytes` bytes.
    fn charge_bytes(&mut self, bytes: u64) -> bool;
    /// Counts `bytes` of output about to be written (and the time of
    /// writing them).
    fn reserve(&mut self, bytes: usize) -> bool;
}

/// Compile options: PCRE2_CASELESS, PCRE2_MULTILINE, PCRE2_DOTALL and
/// PCRE2_EXTENDED, as the option letters `i m s x` of the builtins set them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    /// No option.
    pub const NONE: Flags = Flags(0);
    /// `i`: ignore case.
    pub const CASELESS: Flags = Flags(engine::CASELESS);
    /// `m`: `^` and `$` match at every line.
    pub const MULTILINE: Flags = Flags(engine::MULTILINE);
    /// `s`: `.` matches a newline too.
    pub const DOTALL: Flags = Flags(engine::DOTALL);
    /// `x`: white space and `#` comments in the pattern are ignored.
    pub const EXTENDED: Flags = Flags(engine::EXTENDED);

    /// The flags of the option letter `letter` (`i m s x`) added; any
    /// other letter adds nothing.
    pub fn with_letter(self, letter: u8) -> Flags {
        match letter {
            b'i' => self | Flags::CASELESS,
            b'm' => self | Flags::MULTILINE,
            b's' => self | Flags::DOTALL,
            b'x' => self | Flags::EXTENDED,
            _ => self,
        }
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// How [`Regex::substitute`] replaces, as HTCondor's `regexps` (neither),
/// `replace` (`full`) and `replaceall` (`full` and `global`) do.
#[derive(Clone, Copy, Debug, Default)]
pub struct Substitution {
    /// The whole target with the match(es) replaced; otherwise only the
    /// expanded replacement(s).
    pub full: bool,
    /// Every match, not only the first.
    pub global: bool,
    /// `Options::corrections`: a global substitution's empty match at the
    /// end of the target is replaced and ends the loop (HTCondor reads
    /// past the end there: ERROR).
    pub corrections: bool,
}

/// A compiled pattern (shared with the per-thread cache).
#[derive(Clone)]
pub struct Regex(Rc<engine::Compiled>);

impl Regex {
    /// Compiles `pattern` (a C string: bytes up to the first NUL) with
    /// `flags`, or takes it from the per-thread cache. `None`: PCRE2
    /// refuses it (syntax, compiled size) or the budget is spent.
    pub fn compile(budget: &mut dyn Budget, pattern: &[u8], flags: Flags) -> Option<Regex> {
        engine::compile(budget, pattern, flags.0).map(Regex)
    }

    /// Whether the pattern matches somewhere in `subject` (a C string);
    /// `None`: ERROR (match limit, recursion loop, budget).
    pub fn is_match(&self, budget: &mut dyn Budget, subject: &[u8]) -> Option<bool> {
        engine::search(budget, &self.0, subject)
    }

    /// Whether the pattern has a match in `subject` that is not empty
    /// (PCRE2_NOTEMPTY, as HTCondor's `unresolved` searches). An empty
    /// match at one place moves the search on to the next character
    /// (PCRE2 would first try the pattern's other ways of matching there:
    /// `"|x"` differs, which no attribute name needs).
    pub fn is_match_not_empty(&self, budget: &mut dyn Budget, subject: &[u8]) -> Option<bool> {
        engine::matches_not_empty(budget, &self.0, subject)
    }

    /// HTCondor's substitution of `replacement` for the match(es) in
    /// `target` (both C strings): `\0`..`\9` in the replacement expand to
    /// groups (ERROR for a group past the last one that took part in the
    /// match, empty for an unset one); any other backslash is copied.
    /// `None`: ERROR.
    pub fn substitute(
        &self,
        budget: &mut dyn Budget,
        target: &[u8],
        replacement: &[u8],
        how: Substitution,
    ) -> Option<Vec<u8>> {
        engine::substitute_call(budget, &self.0, target, replacement, how)
    }
}
