//! PCRE2 10.32's limits as HTCondor 25.14 builds and calls it (8-bit code
//! units, link size 2, the default match context), written once for every
//! engine of the crate. The engines' own bounds (stack entries, program
//! size, the budget's charges) stay beside the engine they bound.

/// PCRE2's default match limit: frames (backtracking points) one match
/// attempt, one start position, may open before `pcre2_match` gives up
/// with an error (HTCondor's answer is then ERROR).
pub(crate) const MATCH_LIMIT: u64 = 10_000_000;

/// `REQ_CU_MAX`: subjects shorter than this are first searched for the
/// pattern's required code unit, so that a match that cannot succeed never
/// starts backtracking (measured with HTCondor 25.14:
/// `regexp("(a|a)*\\1b", s)` of 1,999 `a`s is false at once, of 2,000 it
/// runs into the match limit and is ERROR).
pub(crate) const REQUIRED_SCAN_MAX: usize = 2000;

/// `MAX_REPEAT_COUNT`: the largest count of a `{n,m}` quantifier.
pub(crate) const MAX_REPEAT: u32 = 65_535;

/// `MAX_PATTERN_SIZE` with link size 2: the longest compiled form, in code
/// units, PCRE2 accepts.
pub(crate) const MAX_COMPILED: u64 = 1 << 16;

/// The longest pattern PCRE2 could compile: no item of a pattern compiles
/// to less than one code unit, and its compiled form is limited to 65,535.
pub(crate) const MAX_PATTERN: usize = 65_535;

/// The length at which the study of the shortest subject stops its walk
/// of a branch (`UINT16_MAX`).
pub(crate) const MAX_STUDY_LENGTH: usize = u16::MAX as usize;
