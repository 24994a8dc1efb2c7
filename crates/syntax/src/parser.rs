//! The parser: pest grammar (`classad.pest`) plus the Pratt fold of infix
//! operators, building the [`crate::ast`] tree.
//!
//! Bad input is normal input here. Before pest sees a text, a cheap scan
//! bounds its bracket nesting (pest recurses once per level), and while
//! the tree is built its depth is bounded, so no input can exhaust the
//! stack; every refusal is a [`ParseError`] with a position.

use crate::ast::{AdExpr, BinaryOp, Expr, ExprKind, Literal, Name, Span, UnaryOp};
use crate::diag::{ParseError, describe_found, excerpt};
use ahash::AHashMap;
use pest::Parser as _;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::cell::RefCell;
use std::sync::LazyLock;

mod grammar {
    // pest_derive generates the `Rule` enum without documentation.
    #![allow(missing_docs)]
    #[derive(pest_derive::Parser)]
    #[grammar = "classad.pest"]
    pub(crate) struct Grammar;
}
use grammar::{Grammar, Rule};

/// Which language variant to read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// What HTCondor 25 reads. The default.
    #[default]
    HTCondor,
    /// HTCondor plus the forms only the 2001 JDL document (spec 004)
    /// describes: hexadecimal and octal integers, and the `B K M G T`
    /// scale suffixes on numbers.
    Jdl,
}

/// How string literals are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StringRules {
    /// New syntax: C-like escapes (`\n`, `\t`, octal `\101`, ...); an
    /// unknown escape drops the backslash.
    #[default]
    New,
    /// Old syntax, as `condor_q -long` prints: backslashes are kept as
    /// they are, except that `\"` is a quote.
    Old,
}

/// Limits and variants for a parse.
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// The language variant.
    pub dialect: Dialect,
    /// Deepest tree accepted (a leaf has depth 1). A selection link is no
    /// level: HTCondor's parser reads a chain `x.y.y...` in a loop, and
    /// every pass over the tree walks one in a loop, so a chain is read
    /// whatever its length.
    pub max_depth: usize,
    /// Deepest nesting of brackets `( [ {` accepted.
    pub max_nesting: usize,
    /// Most conditionals (`?`, `?:`) open at once: each nests the rest of
    /// its expression (`a ? b : c ? d : e` nests to the right).
    pub max_conditionals: usize,
    /// HTCondor's strict mode (STRICT_CLASSAD_EVALUATION = True, no
    /// old-ClassAd compatibility): `010` is the integer 10, and `;` does
    /// not separate function arguments. Off by default, as in HTCondor.
    pub strict: bool,
    /// Bound on the grammar's work for one text, in pest rule calls per
    /// byte of the text (plus [`PARSE_WORK_BASE`]); past it the text is
    /// refused as too complex. The grammar is linear, so this is a safety
    /// net that real input never reaches. 0 turns the bound off.
    pub work_per_byte: usize,
    /// Refuse an old-syntax ad that has a line that cannot be read, as
    /// this library did before: the whole ad is an [`crate::AdError`].
    /// Off by default: as HTCondor does, the ad keeps the lines before the
    /// unreadable one and drops that line and the rest of the ad, and the
    /// reader reports what it dropped as an [`crate::AdWarning`].
    pub refuse_partial_ads: bool,
    /// HTCondor's own bound on how deep its recursive-descent parser may
    /// go (its stack guard), counted as it counts: one level for each
    /// expression, each prefix operator and each postfix expression on the
    /// way down (a bracket, call, subscript or ad literal costs three, a
    /// prefix operator, a conditional's branch and a `?:` fallback one).
    /// A text that goes deeper is refused, as HTCondor refuses it: 165
    /// nested parentheses parse, 166 do not, nor 83 of `({`. 0 turns the
    /// bound off (the other bounds still keep the stack safe).
    pub max_parse_depth: usize,
}

/// Default bound on tree depth: twice what a chain of 1000 operators
/// needs (HTCondor parses chains of any length, and evaluates them up to
/// about 400 deep), small enough that every recursive pass over the tree
/// (parse, unparse, compile, drop) fits in a 2 MiB stack in a release
/// build (compiling overflows it between 3000 and 5000).
pub const DEFAULT_MAX_DEPTH: usize = 2000;
/// Default bound on bracket nesting: more than HTCondor's 165, shallow
/// enough that a release build parses and compiles it on a 2 MiB thread
/// stack (700 nested ads overflow it).
pub const DEFAULT_MAX_NESTING: usize = 200;
/// Default bound on open conditionals: more than HTCondor's 497 (its
/// parser's depth guard), with the same stack margin as the nesting bound.
pub const DEFAULT_MAX_CONDITIONALS: usize = 1000;
/// Default bound on the grammar's work per byte of input (see
/// [`ParseOptions::work_per_byte`]).
pub const DEFAULT_WORK_PER_BYTE: usize = 1000;
/// HTCondor 25.14's parser depth bound (see [`ParseOptions::max_parse_depth`]),
/// measured with the oracle: `-` 497 times before an attribute parses,
/// 498 times does not (the expression, the 497 operators, the operand's
/// own prefix level and its postfix level make 500).
pub const HTCONDOR_MAX_PARSE_DEPTH: usize = 500;
/// Rule calls every text may use whatever its length.
pub const PARSE_WORK_BASE: usize = 100_000;

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions {
            dialect: Dialect::HTCondor,
            max_depth: DEFAULT_MAX_DEPTH,
            max_nesting: DEFAULT_MAX_NESTING,
            max_conditionals: DEFAULT_MAX_CONDITIONALS,
            work_per_byte: DEFAULT_WORK_PER_BYTE,
            strict: false,
            refuse_partial_ads: false,
            max_parse_depth: HTCONDOR_MAX_PARSE_DEPTH,
        }
    }
}

/// Parses one expression in new syntax with default options.
pub fn parse_expression(source: &str) -> Result<Expr, ParseError> {
    Parser::new(ParseOptions::default()).parse_expression(source)
}

/// Parses one ad literal `[ ... ]` in new syntax with default options.
pub fn parse_ad(source: &str) -> Result<AdExpr, ParseError> {
    Parser::new(ParseOptions::default()).parse_ad(source)
}

/// A parser with its options and its name interner. Reuse one parser for
/// many ads so that names they share are stored once.
pub struct Parser {
    options: ParseOptions,
    names: RefCell<Names>,
    /// Builds the top-level ads the readers read (see [`AdBuilder`]).
    builder: RefCell<AdBuilder>,
}

/// The interned names: each spelling once, with the number of its
/// lower-cased form (names that differ only in case share it).
#[derive(Default)]
struct Names {
    spellings: AHashMap<Box<[u8]>, (Name, u32)>,
    folds: AHashMap<Box<[u8]>, u32>,
}

/// Builds an ad's definitions without a hash table of its own: a name
/// defined twice (ignoring case) is found by the number of its lower-cased
/// form, which the interner gives, and a table stamped with the ad's
/// number. The names of the last ad built are kept, in order, as the
/// guess for the names of the next (the ads of a file mostly share
/// their layout), which spares hashing a name the guess gets right.
#[derive(Default)]
pub(crate) struct AdBuilder {
    attributes: Vec<(Name, Expr)>,
    /// Fold numbers of `attributes`' names, and whether the name is a
    /// plain identifier (only those are guesses).
    folds: Vec<(u32, bool)>,
    /// Definitions read into the current ad, duplicates included.
    definitions: usize,
    stamp: u32,
    /// By fold number: the stamp of the ad that defines it and where.
    seen: Vec<(u32, u32)>,
    last: Vec<((Name, u32), bool)>,
}

impl AdBuilder {
    /// Starts a new ad.
    pub(crate) fn begin(&mut self) {
        self.attributes = Vec::with_capacity(self.last.len());
        self.folds.clear();
        self.definitions = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| s.0 = 0);
            self.stamp = 1;
        }
    }

    /// The guess for the name of the next definition: the name the last
    /// ad defined at the same place.
    pub(crate) fn guess(&self) -> Option<&(Name, u32)> {
        let (guess, plain) = self.last.get(self.definitions)?;
        plain.then_some(guess)
    }

    /// [`AdBuilder::guess`], whether or not a plain identifier (for
    /// readers that compare the whole name with it).
    pub(crate) fn guess_any(&self) -> Option<&(Name, u32)> {
        self.last.get(self.definitions).map(|(guess, _)| guess)
    }

    /// Defines `name`, whose lower-cased form has number `fold` (`plain`:
    /// the name is an identifier that is not a reserved word); an
    /// earlier definition of the same name gets the new expression and
    /// keeps its place and spelling (as [`AdExpr::insert`] does).
    pub(crate) fn define(
        &mut self,
        name: Name,
        fold: u32,
        plain: bool,
        expr: Expr,
    ) -> Option<Expr> {
        self.definitions += 1;
        let fold_index = fold as usize;
        if fold_index >= self.seen.len() {
            self.seen.resize(fold_index + 1, (0, 0));
        }
        let (stamp, at) = self.seen[fold_index];
        if stamp == self.stamp {
            return Some(std::mem::replace(&mut self.attributes[at as usize].1, expr));
        }
        let at = u32::try_from(self.attributes.len()).unwrap_or(u32::MAX);
        self.seen[fold_index] = (self.stamp, at);
        self.attributes.push((name, expr));
        self.folds.push((fold, plain));
        None
    }

    /// The ad built (without its name index), its names kept as the
    /// guess for the next.
    pub(crate) fn finish(&mut self) -> AdExpr {
        self.last.clear();
        self.last.extend(
            self.attributes
                .iter()
                .zip(&self.folds)
                .map(|((name, _), &(fold, plain))| ((name.clone(), fold), plain)),
        );
        AdExpr::from_distinct(std::mem::take(&mut self.attributes))
    }
}

/// A subtree being built, with its depth.
struct Built {
    expr: Expr,
    /// Depth of the tree, not counting selection links: a chain
    /// `x.y.y...` is as long as HTCondor's parser reads it (a loop there),
    /// and every pass over the tree walks such a chain in a loop
    /// (`Expr::selection_chain`), so only the other nodes bound the stack.
    depth: usize,
}

type Result<T, E = ParseError> = std::result::Result<T, E>;

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    // Loosest first (spec 003, "Expression Operators").
    PrattParser::new()
        .op(Op::infix(Rule::ternary_branch, Assoc::Right))
        .op(Op::infix(Rule::or, Assoc::Left))
        .op(Op::infix(Rule::and, Assoc::Left))
        .op(Op::infix(Rule::bit_or, Assoc::Left))
        .op(Op::infix(Rule::bit_xor, Assoc::Left))
        .op(Op::infix(Rule::bit_and, Assoc::Left))
        .op(Op::infix(Rule::equal, Assoc::Left)
            | Op::infix(Rule::not_equal, Assoc::Left)
            | Op::infix(Rule::is_identical, Assoc::Left)
            | Op::infix(Rule::isnt_identical, Assoc::Left)
            | Op::infix(Rule::is_word, Assoc::Left)
            | Op::infix(Rule::isnt_word, Assoc::Left))
        .op(Op::infix(Rule::less, Assoc::Left)
            | Op::infix(Rule::less_equal, Assoc::Left)
            | Op::infix(Rule::greater, Assoc::Left)
            | Op::infix(Rule::greater_equal, Assoc::Left))
        .op(Op::infix(Rule::shift_left, Assoc::Left)
            | Op::infix(Rule::shift_right, Assoc::Left)
            | Op::infix(Rule::shift_right_unsigned, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::subtract, Assoc::Left))
        .op(Op::infix(Rule::multiply, Assoc::Left)
            | Op::infix(Rule::divide, Assoc::Left)
            | Op::infix(Rule::modulo, Assoc::Left))
});

fn binary_op(rule: Rule) -> Option<BinaryOp> {
    Some(match rule {
        Rule::or => BinaryOp::Or,
        Rule::and => BinaryOp::And,
        Rule::bit_or => BinaryOp::BitOr,
        Rule::bit_xor => BinaryOp::BitXor,
        Rule::bit_and => BinaryOp::BitAnd,
        Rule::equal => BinaryOp::Equal,
        Rule::not_equal => BinaryOp::NotEqual,
        Rule::is_identical | Rule::is_word => BinaryOp::Is,
        Rule::isnt_identical | Rule::isnt_word => BinaryOp::Isnt,
        Rule::less => BinaryOp::Less,
        Rule::less_equal => BinaryOp::LessEqual,
        Rule::greater => BinaryOp::Greater,
        Rule::greater_equal => BinaryOp::GreaterEqual,
        Rule::shift_left => BinaryOp::ShiftLeft,
        Rule::shift_right => BinaryOp::ShiftRight,
        Rule::shift_right_unsigned => BinaryOp::ShiftRightUnsigned,
        Rule::add => BinaryOp::Add,
        Rule::subtract => BinaryOp::Subtract,
        Rule::multiply => BinaryOp::Multiply,
        Rule::divide => BinaryOp::Divide,
        Rule::modulo => BinaryOp::Modulo,
        _ => return None,
    })
}

fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let s = pair.as_span();
    Span::new(s.start(), s.end())
}

impl Parser {
    /// A parser with these options.
    pub fn new(options: ParseOptions) -> Parser {
        Parser {
            options,
            names: RefCell::default(),
            builder: RefCell::default(),
        }
    }

    /// The options in force.
    pub fn options(&self) -> ParseOptions {
        self.options
    }

    /// `source` as the dialect reads it: in the JDL dialect, a backslash
    /// right before a line end (outside strings, quoted names and
    /// comments) is white space, as the JDL HowTo's figures continue a
    /// long `Requirements` over lines (spec 004, Figure 1). The backslash
    /// becomes a blank, so every byte keeps its place (spans, lines and
    /// columns are the text's). New string rules only: old-syntax lines
    /// are read one line at a time.
    fn dialect_text<'s>(&self, source: &'s str, rules: StringRules) -> std::borrow::Cow<'s, str> {
        if self.options.dialect == Dialect::Jdl && rules == StringRules::New {
            jdl_line_continuations(source)
        } else {
            std::borrow::Cow::Borrowed(source)
        }
    }

    /// Parses one expression in new syntax.
    pub fn parse_expression(&self, source: &str) -> Result<Expr> {
        self.parse_expression_with(source, StringRules::New)
    }

    /// Parses one expression, reading strings by `rules`.
    pub fn parse_expression_with(&self, source: &str, rules: StringRules) -> Result<Expr> {
        let source = &*self.dialect_text(source, rules);
        if let Some(expr) = crate::fast::expression(self, source, rules) {
            self.check_parse_depth(source, &expr, 0)?;
            return Ok(expr);
        }
        self.parse_expression_with_grammar(source, rules)
    }

    /// Parses a text as HTCondor's `eval` reads a string at run time (its
    /// parser's full parse): one expression in new syntax, as
    /// [`Parser::parse_expression`], except that HTCondor's parser returns
    /// from a conditional `c ? a : b` at the top without checking that the
    /// text ends there, so what follows it is ignored unless it continues
    /// the expression, as in an old-syntax line: `eval("1 ? 2 : 3 4")` and
    /// `eval("1 ? 2 : 3 )")` are 2 there, `eval("(1 ? 2 : 3) 4")`,
    /// `eval("1 ?: 2 3")` and `eval("1 ? 2 : 3 +")` ERROR.
    pub fn parse_evaluated_text(&self, source: &str) -> Result<Expr> {
        let error = match self.parse_expression(source) {
            Ok(expr) => return Ok(expr),
            Err(error) => error,
        };
        let prefix = || -> Result<Option<Expr>> {
            self.check_nesting(source)?;
            self.check_chains(source)?;
            let mut pairs = self.grammar_shown(Rule::expression_prefix, source, source)?;
            let input = pairs.next().expect("grammar: expression_prefix matched");
            let expr = input.into_inner().next().expect("grammar: expression");
            let end = expr.as_span().end();
            let expr = Builder::new(self, source, StringRules::New)
                .expression(expr)?
                .expr;
            if !matches!(expr.kind, ExprKind::Conditional { .. })
                || continues_expression(source, end)
            {
                return Ok(None);
            }
            self.check_parse_depth(source, &expr, 0)?;
            Ok(Some(expr))
        };
        match prefix() {
            Ok(Some(expr)) => Ok(expr),
            _ => Err(error),
        }
    }

    /// Refuses a tree HTCondor's parser would not have finished (see
    /// [`ParseOptions::max_parse_depth`]): `expr` parsed from `source`,
    /// whose spans start `offset` bytes before the text's.
    fn check_parse_depth(&self, source: &str, expr: &Expr, offset: usize) -> Result<()> {
        let limit = self.options.max_parse_depth;
        // Each level takes at least two thirds of a byte (a bracket pair
        // is three levels), and a lone operand three: a shorter text
        // cannot pass the bound.
        if limit == 0 || 3 + (3 * source.len()).div_ceil(2) <= limit {
            return Ok(());
        }
        match crate::parse_depth::too_deep(expr, 1, limit) {
            None => Ok(()),
            Some(span) => {
                let start = (span.start as usize).saturating_sub(offset);
                let span = Span::new(start, (start + 1).min(source.len()));
                Err(ParseError::new(
                    source,
                    span,
                    format!(
                        "expression nested too deeply: HTCondor's parser goes at most {limit} levels deep"
                    ),
                ))
            }
        }
    }

    /// [`Parser::parse_expression`] for a text `offset` bytes into its
    /// file: the tree's spans are the file's; an error's are the text's.
    pub(crate) fn parse_expression_at(&self, source: &str, offset: usize) -> Result<Expr> {
        let source = &*self.dialect_text(source, StringRules::New);
        if let Some(expr) = crate::fast::expression_at(self, source, StringRules::New, offset) {
            self.check_parse_depth(source, &expr, offset)?;
            return Ok(expr);
        }
        let mut expr = self.parse_expression_with_grammar(source, StringRules::New)?;
        crate::json::shift_spans(&mut expr, offset);
        Ok(expr)
    }

    /// [`Parser::parse_expression_with`] through the grammar only, without
    /// the fast path (for tests that compare the two).
    pub fn parse_expression_with_grammar(&self, source: &str, rules: StringRules) -> Result<Expr> {
        // Old string rules: the grammar reads the strings masked (see
        // `mask_old_strings`), the builder decodes them from `source`.
        let masked = match rules {
            StringRules::New => std::borrow::Cow::Borrowed(source),
            StringRules::Old => mask_old_strings(source).0,
        };
        self.check_nesting(&masked)?;
        self.check_chains(&masked)?;
        let mut pairs = self.grammar_shown(Rule::expression_input, &masked, source)?;
        let input = pairs.next().expect("grammar: expression_input matched");
        let expr = input.into_inner().next().expect("grammar: expression");
        let expr = Builder::new(self, source, rules).expression(expr)?.expr;
        self.check_parse_depth(source, &expr, 0)?;
        Ok(expr)
    }

    /// [`Parser::parse_expression_with_grammar`] without the scan for
    /// runs of operators (`check_chains`), and that scan alone: for the
    /// test that the scan refuses nothing the tree builder accepts.
    #[doc(hidden)]
    pub fn parse_expression_unscanned(&self, source: &str, rules: StringRules) -> Result<Expr> {
        // Old string rules: the grammar reads the strings masked (see
        // `mask_old_strings`), the builder decodes them from `source`.
        let masked = match rules {
            StringRules::New => std::borrow::Cow::Borrowed(source),
            StringRules::Old => mask_old_strings(source).0,
        };
        self.check_nesting(&masked)?;
        let mut pairs = self.grammar_shown(Rule::expression_input, &masked, source)?;
        let input = pairs.next().expect("grammar: expression_input matched");
        let expr = input.into_inner().next().expect("grammar: expression");
        Ok(Builder::new(self, source, rules).expression(expr)?.expr)
    }

    #[doc(hidden)]
    pub fn scan_chains(&self, source: &str) -> Result<()> {
        self.check_chains(source)
    }

    /// Parses one ad literal `[ ... ]` in new syntax.
    pub fn parse_ad(&self, source: &str) -> Result<AdExpr> {
        let source = &*self.dialect_text(source, StringRules::New);
        if let Some(ad) = crate::fast::ad(self, source) {
            self.check_ad_parse_depth(source, &ad, 0)?;
            return Ok(ad);
        }
        self.parse_ad_with_grammar(source)
    }

    /// [`Parser::check_parse_depth`] for a top-level ad: HTCondor parses
    /// each definition as a whole expression.
    fn check_ad_parse_depth(&self, source: &str, ad: &AdExpr, offset: usize) -> Result<()> {
        ad.attributes
            .iter()
            .try_for_each(|(_, expr)| self.check_parse_depth(source, expr, offset))
    }

    /// [`Parser::parse_ad`] for a text `offset` bytes into its file: the
    /// tree's spans are the file's; an error's are the text's.
    pub(crate) fn parse_ad_at(&self, source: &str, offset: usize) -> Result<AdExpr> {
        let source = &*self.dialect_text(source, StringRules::New);
        if let Some(ad) = crate::fast::ad_at(self, source, offset) {
            self.check_ad_parse_depth(source, &ad, offset)?;
            return Ok(ad);
        }
        let mut ad = self.parse_ad_with_grammar(source)?;
        for (_, expr) in &mut ad.attributes {
            crate::json::shift_spans(expr, offset);
        }
        Ok(ad)
    }

    /// [`Parser::parse_ad`] through the grammar only, without the fast
    /// path (for tests that compare the two).
    pub fn parse_ad_with_grammar(&self, source: &str) -> Result<AdExpr> {
        self.check_nesting(source)?;
        self.check_chains(source)?;
        let mut pairs = self.grammar(Rule::ad_input, source)?;
        let ad = pairs.next().expect("grammar: ad_input matched");
        let ad = ad.into_inner().next().expect("grammar: ad");
        let ad = Builder::new(self, source, StringRules::New).ad_body(ad)?;
        self.check_ad_parse_depth(source, &ad, 0)?;
        Ok(ad)
    }

    /// Parses one line of an old-syntax ad, `Name = expression`, with old
    /// string rules. Most lines of real ads are read by the scanner of
    /// [`crate::fast`], the rest by the grammar.
    pub fn parse_old_line(&self, source: &str) -> Result<(Name, Expr)> {
        if let Some(line) = crate::fast::old_line(self, source) {
            self.check_parse_depth(source, &line.1, 0)?;
            return Ok(line);
        }
        self.parse_old_line_with_grammar(source)
    }

    /// [`Parser::parse_old_line`] for a line `offset` bytes into its file,
    /// defining its attribute in `ad` (`guess` is the name it likely
    /// has): the tree's spans are the file's; an error's are the line's.
    pub(crate) fn parse_old_line_into(
        &self,
        source: &str,
        offset: usize,
        ad: &mut AdBuilder,
    ) -> Result<()> {
        if let Some((name, fold, expr)) =
            crate::fast::old_line_guessed(self, source, offset, ad.guess())
        {
            self.check_parse_depth(source, &expr, offset)?;
            ad.define(name, fold, true, expr);
            return Ok(());
        }
        let (name, mut expr) = self.parse_old_line_with_grammar(source)?;
        crate::json::shift_spans(&mut expr, offset);
        let fold = self.intern_folded(name.as_bytes()).1;
        let plain = name.is_plain_identifier();
        ad.define(name, fold, plain, expr);
        Ok(())
    }

    /// [`Parser::parse_old_line`] through the grammar only, without the
    /// fast path (for tests that compare the two).
    ///
    /// As HTCondor's parser in old-ClassAd mode, only the line's first
    /// expression is read: `P = 1 2` is 1, `P = "a" "b"` is `"a"` (old
    /// syntax does not join adjacent strings), `P = 1 # note` is 1. What
    /// follows is ignored unless it continues the expression (`P = 1 +`,
    /// `P = a.`, `P = f(`), which is an error there too.
    pub fn parse_old_line_with_grammar(&self, source: &str) -> Result<(Name, Expr)> {
        let (masked, cut) = mask_old_strings(source);
        self.check_nesting(&masked)?;
        self.check_chains(&masked)?;
        let text = &masked[..cut];
        let mut pairs = self.grammar_shown(Rule::old_line_prefix, text, source)?;
        let line = pairs.next().expect("grammar: old_line_prefix matched");
        let mut inner = line.into_inner();
        let name = inner.next().expect("grammar: name");
        let expr = inner.next().expect("grammar: expression");
        if continues_expression(text, expr.as_span().end()) {
            // The whole line as one definition fails where HTCondor's does.
            self.grammar_shown(Rule::old_line_input, text, source)?;
        }
        let builder = Builder::new(self, source, StringRules::Old);
        let name = builder.attribute_name(name)?;
        let expr = builder.expression(expr)?;
        self.check_parse_depth(source, &expr.expr, 0)?;
        Ok((name, expr.expr))
    }

    /// The shared copy of a name.
    pub fn intern(&self, text: &str) -> Name {
        self.intern_folded(text.as_bytes()).0
    }

    /// The shared copy of a name of these bytes (a quoted name may hold
    /// bytes that are not UTF-8).
    pub fn intern_bytes(&self, bytes: &[u8]) -> Name {
        self.intern_folded(bytes).0
    }

    /// The shared copy of a name and the number of its lower-cased form.
    pub(crate) fn intern_folded(&self, text: &[u8]) -> (Name, u32) {
        let mut names = self.names.borrow_mut();
        if let Some((name, fold)) = names.spellings.get(text) {
            return (name.clone(), *fold);
        }
        let next = u32::try_from(names.folds.len()).unwrap_or(u32::MAX);
        let fold = *names
            .folds
            .entry(text.to_ascii_lowercase().into())
            .or_insert(next);
        let name = Name::from_bytes(text);
        names.spellings.insert(text.into(), (name.clone(), fold));
        (name, fold)
    }

    /// The builder of top-level ads, lent out (and given back with
    /// [`Parser::give_back_builder`]) for the time of one ad.
    pub(crate) fn take_builder(&self) -> AdBuilder {
        std::mem::take(&mut self.builder.borrow_mut())
    }

    pub(crate) fn give_back_builder(&self, builder: AdBuilder) {
        *self.builder.borrow_mut() = builder;
    }

    /// Refuses texts whose brackets nest deeper than the limit, before pest
    /// recurses into them. Strings, quoted names and comments are skipped.
    /// A `?` that opens a conditional (or `?:`) stays open until its
    /// expression ends (at `,`, `;` or the enclosing closing bracket),
    /// since `a ? b : c ? d : e` nests to the right and the tree is built
    /// by recursion; open conditionals have their own bound, as a level of
    /// them costs less stack than a bracket. `=?=` is an operator, not a `?`.
    fn check_nesting(&self, source: &str) -> Result<()> {
        let bytes = source.as_bytes();
        let mut depth = 0usize;
        let mut open_conditionals = 0usize;
        // Conditionals opened at each open bracket level, innermost last.
        let mut conditionals = vec![0usize];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'=' if bytes[i + 1..].starts_with(b"?=") => i += 2,
                quote @ (b'"' | b'\'') => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != quote {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    i += 2;
                    while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                        i += 1;
                    }
                    i += 1;
                }
                b'?' => {
                    *conditionals.last_mut().expect("base level") += 1;
                    open_conditionals += 1;
                    if open_conditionals > self.options.max_conditionals {
                        return Err(ParseError::new(
                            source,
                            Span::new(i, i + 1),
                            format!(
                                "expression nested too deeply: more than {} open conditionals",
                                self.options.max_conditionals
                            ),
                        ));
                    }
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    conditionals.push(0);
                    if depth > self.options.max_nesting {
                        return Err(ParseError::new(
                            source,
                            Span::new(i, i + 1),
                            format!(
                                "expression nested too deeply: more than {} levels of brackets",
                                self.options.max_nesting
                            ),
                        ));
                    }
                }
                b')' | b']' | b'}' => {
                    let closed = if conditionals.len() > 1 {
                        depth = depth.saturating_sub(1);
                        conditionals.pop().unwrap_or(0)
                    } else {
                        std::mem::take(&mut conditionals[0])
                    };
                    open_conditionals -= closed;
                }
                b',' | b';' => {
                    let last = conditionals.last_mut().expect("base level");
                    open_conditionals -= std::mem::take(last);
                }
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }

    /// Refuses, before pest reads them, texts with a run of operators the
    /// tree could not hold within [`ParseOptions::max_depth`]: prefix
    /// operators (`- - - ... 1`), subscripts on one operand (`x[0][0]...`,
    /// selections between them counting nothing) and binary operators of one precedence
    /// between operators of lower precedence (`x || x || ...`, which nests
    /// to the left). Each such run is a lower bound on the tree's depth, so
    /// nothing the tree builder would accept is refused; what is refused
    /// costs a byte scan instead of pest's tokens (up to 100 bytes of
    /// memory per byte of input) and the tree. Texts no longer than the
    /// bound cannot hold such a run and are not scanned.
    fn check_chains(&self, source: &str) -> Result<()> {
        let max = self.options.max_depth;
        if source.len() <= max {
            return Ok(());
        }
        /// The runs of one bracket level.
        #[derive(Clone, Copy, Default)]
        struct Level {
            /// Binary operators of each precedence (Pratt's order, `||`
            /// first) since the last one of lower precedence.
            binary: [usize; 11],
            prefix: usize,
            postfix: usize,
            /// Opened by `[` after an operand: a subscript.
            subscript: bool,
        }
        let too_deep = |at: usize| {
            Err(ParseError::new(
                source,
                Span::new(at, at + 1),
                format!("expression nested too deeply: more than {max} levels"),
            ))
        };
        let bytes = source.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut levels = vec![Level::default()];
        // Whether the last token ends an operand (so `-` after it is binary).
        let mut after_operand = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let level = levels.last_mut().expect("base level");
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => {
                    i += 1;
                    continue;
                }
                b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                    let end = if bytes[i + 1] == b'/' {
                        memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n)
                    } else {
                        memchr::memmem::find(&bytes[i + 2..], b"*/")
                            .map_or(bytes.len(), |n| i + n + 4)
                    };
                    i = end;
                    continue;
                }
                b'"' | b'\'' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                    level.prefix = 0;
                    after_operand = true;
                    continue;
                }
                b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) && !after_operand => {
                    // `.5`: a number.
                }
                // A selection is no level of depth (see `Built::depth`).
                b'.' => {
                    i += 1;
                    continue;
                }
                b'(' | b'{' | b'[' => {
                    let subscript = b == b'[' && after_operand;
                    levels.push(Level {
                        subscript,
                        ..Level::default()
                    });
                    after_operand = false;
                    i += 1;
                    continue;
                }
                b')' | b'}' | b']' => {
                    let closed = if levels.len() > 1 {
                        levels.pop().unwrap_or_default()
                    } else {
                        levels[0] = Level::default();
                        Level::default()
                    };
                    let level = levels.last_mut().expect("base level");
                    level.prefix = 0;
                    if closed.subscript {
                        level.postfix += 1;
                        if level.postfix > max {
                            return too_deep(i);
                        }
                    } else {
                        level.postfix = 0;
                    }
                    after_operand = true;
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if word(b) || b == b'.' {
                let start = i;
                while i < bytes.len()
                    && (word(bytes[i])
                        || (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
                {
                    i += 1;
                }
                let text = &bytes[start..i];
                let number = text[0].is_ascii_digit() || text[0] == b'.';
                let hex = text.len() > 1 && text[0] == b'0' && matches!(text[1], b'x' | b'X');
                // The sign of an exponent (`1e-5`) is part of the number.
                if number
                    && !hex
                    && matches!(text.last(), Some(b'e' | b'E'))
                    && matches!(bytes.get(i), Some(b'+' | b'-'))
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                {
                    i += 1;
                    while i < bytes.len() && word(bytes[i]) {
                        i += 1;
                    }
                }
                let level = levels.last_mut().expect("base level");
                if after_operand
                    && (text.eq_ignore_ascii_case(b"is") || text.eq_ignore_ascii_case(b"isnt"))
                {
                    if binary(level, 5, max).is_some() {
                        return too_deep(start);
                    }
                    after_operand = false;
                } else {
                    level.prefix = 0;
                    after_operand = true;
                }
                continue;
            }
            let rest = &bytes[i..];
            let ops: [(&[u8], usize); 22] = [
                (b"=?=", 5),
                (b"=!=", 5),
                (b">>>", 7),
                (b"||", 0),
                (b"&&", 1),
                (b"==", 5),
                (b"!=", 5),
                (b"<=", 6),
                (b">=", 6),
                (b"<<", 7),
                (b">>", 7),
                (b"|", 2),
                (b"^", 3),
                (b"&", 4),
                (b"<", 6),
                (b">", 6),
                (b"+", 8),
                (b"-", 8),
                (b"*", 9),
                (b"/", 9),
                (b"%", 9),
                (b"=", usize::MAX),
            ];
            if after_operand
                && let Some(&(op, class)) = ops.iter().find(|(op, _)| rest.starts_with(op))
            {
                i += op.len();
                after_operand = false;
                if class == usize::MAX {
                    // A definition's `=`.
                    *level = Level {
                        subscript: level.subscript,
                        ..Level::default()
                    };
                } else if binary(level, class, max).is_some() {
                    return too_deep(i - op.len());
                }
                continue;
            }
            if !after_operand && matches!(b, b'-' | b'+' | b'!' | b'~') {
                level.prefix += 1;
                if level.prefix > max {
                    return too_deep(i);
                }
                i += 1;
                continue;
            }
            // `,`, `;`, `?`, `:` and anything else end every run of the level.
            *level = Level {
                subscript: level.subscript,
                ..Level::default()
            };
            after_operand = false;
            i += 1;
        }
        return Ok(());

        /// Counts a binary operator of precedence `class` (0 is `||`):
        /// it ends the runs of higher precedence. `Some` past the bound.
        fn binary(level: &mut Level, class: usize, max: usize) -> Option<()> {
            level.binary[class] += 1;
            for higher in &mut level.binary[class + 1..] {
                *higher = 0;
            }
            level.prefix = 0;
            level.postfix = 0;
            (level.binary[class] > max).then_some(())
        }
    }

    /// Runs the grammar from `rule` over `source`, its work bounded.
    fn grammar<'s>(&self, rule: Rule, source: &'s str) -> Result<pest::iterators::Pairs<'s, Rule>> {
        self.grammar_shown(rule, source, source)
    }

    /// [`Parser::grammar`] over `source`, a text of the same length as
    /// `shown` (old-syntax strings masked), whose errors quote `shown`.
    fn grammar_shown<'s>(
        &self,
        rule: Rule,
        source: &'s str,
        shown: &str,
    ) -> Result<pest::iterators::Pairs<'s, Rule>> {
        if self.options.work_per_byte > 0 {
            let needed = source
                .len()
                .saturating_mul(self.options.work_per_byte)
                .saturating_add(PARSE_WORK_BASE);
            raise_call_limit(needed);
        }
        Grammar::parse(rule, source).map_err(|e| self.pest_error(&shown[..source.len()], e))
    }

    fn pest_error(&self, source: &str, error: pest::error::Error<Rule>) -> ParseError {
        use pest::error::{ErrorVariant, InputLocation};
        if let ErrorVariant::CustomError { message } = &error.variant
            && message.contains("call limit")
        {
            return ParseError::new(
                source,
                Span::new(0, 0),
                format!(
                    "expression too complex: parsing it took more than {} steps per byte",
                    self.options.work_per_byte
                ),
            );
        }
        let pos = match error.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((s, _)) => s,
        };
        let (found, len) = describe_found(source, pos);
        let expected = match &error.variant {
            ErrorVariant::ParsingError { positives, .. } => expected_words(positives),
            ErrorVariant::CustomError { message } => message.clone(),
        };
        let message = if let Some(quote) = unterminated_quote(source, pos) {
            format!(
                "unterminated {quote}: no closing `{}`",
                &source[pos..pos + 1]
            )
        } else if expected.is_empty() {
            format!("unexpected {found}")
        } else {
            format!("expected {expected}, found {found}")
        };
        ParseError::new(source, Span::new(pos, pos + len), message)
    }
}

/// "string" or "quoted name" when the parse failed at a quote that nothing
/// later in the text closes, the usual cause of that failure and a clearer
/// message than what the grammar expected there.
fn unterminated_quote(source: &str, pos: usize) -> Option<&'static str> {
    let rest = source.get(pos..)?.as_bytes();
    let (&quote, mut body) = rest.split_first()?;
    let what = match quote {
        b'"' => "string",
        b'\'' => "quoted name",
        _ => return None,
    };
    while let Some((&b, tail)) = body.split_first() {
        if b == quote {
            return None;
        }
        body = if b == b'\\' {
            tail.get(1..).unwrap_or_default()
        } else {
            tail
        };
    }
    Some(what)
}

/// The call limit pest was last given (0: none yet).
static CALL_LIMIT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static CALL_LIMIT_RAISE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Makes pest's call limit at least `needed`. pest's limit is one number
/// for the whole process, read when a parse starts, so it only ever rises:
/// every parse is bounded by its own need or by that of the largest text
/// parsed before it, never by less than its own. Raises are serialised so
/// that a smaller value cannot overwrite a larger one.
fn raise_call_limit(needed: usize) {
    use std::sync::atomic::Ordering;
    if CALL_LIMIT.load(Ordering::Acquire) >= needed {
        return;
    }
    let _guard = CALL_LIMIT_RAISE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if CALL_LIMIT.load(Ordering::Acquire) < needed {
        pest::set_call_limit(std::num::NonZeroUsize::new(needed));
        CALL_LIMIT.store(needed, Ordering::Release);
    }
}

/// Plain words for what the grammar wanted at an error.
fn expected_words(rules: &[Rule]) -> String {
    let mut words: Vec<&str> = Vec::new();
    for rule in rules {
        let word = match rule {
            Rule::expression | Rule::operand | Rule::postfix_expression => "an expression",
            Rule::negate | Rule::plus | Rule::not | Rule::bit_not => "an expression",
            Rule::number | Rule::negative_number => "an expression",
            Rule::strings | Rule::string_part | Rule::keyword_literal => "an expression",
            Rule::function_call | Rule::root_attribute | Rule::parenthesized => "an expression",
            Rule::list | Rule::ad => "an expression",
            Rule::identifier | Rule::quoted_name | Rule::quoted_part => "an attribute name",
            Rule::attribute_definition => "an attribute definition `name = value`",
            Rule::selection | Rule::subscript => "an operator",
            Rule::EOI => "end of input",
            r if binary_op(*r).is_some() => "an operator",
            Rule::ternary_branch | Rule::elvis | Rule::postfix_elvis => "an operator",
            _ => continue,
        };
        if !words.contains(&word) {
            words.push(word);
        }
    }
    match words.len() {
        0 => String::new(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

/// Builds the tree from pest's pairs for one parse.
struct Builder<'p, 's> {
    parser: &'p Parser,
    source: &'s str,
    rules: StringRules,
}

impl<'p, 's> Builder<'p, 's> {
    fn new(parser: &'p Parser, source: &'s str, rules: StringRules) -> Self {
        Builder {
            parser,
            source,
            rules,
        }
    }

    fn error(&self, span: Span, message: impl Into<String>) -> ParseError {
        ParseError::new(self.source, span, message)
    }

    /// Refuses a definition that a later one of the same name replaced if
    /// it holds a time literal that is not a time: HTCondor's parser read
    /// it before the replacement.
    fn check_replaced(&self, replaced: &Expr, span: Span) -> Result<()> {
        match crate::time::invalid_time_literal(replaced) {
            Some(text) => Err(self.error(
                span,
                format!(
                    "`{}` is not a valid time",
                    String::from_utf8_lossy(text).escape_default()
                ),
            )),
            None => Ok(()),
        }
    }

    fn node(&self, kind: ExprKind, span: Span, depth: usize) -> Result<Built> {
        if depth > self.parser.options.max_depth {
            return Err(self.error(
                span,
                format!(
                    "expression nested too deeply: more than {} levels",
                    self.parser.options.max_depth
                ),
            ));
        }
        Ok(Built {
            expr: Expr { kind, span },
            depth,
        })
    }

    fn expression(&self, pair: Pair<'_, Rule>) -> Result<Built> {
        PRATT
            .map_primary(|operand| self.operand(operand))
            .map_infix(|lhs, op, rhs| {
                let (lhs, rhs) = (lhs?, rhs?);
                let span = lhs.expr.span.join(rhs.expr.span);
                match op.as_rule() {
                    Rule::ternary_branch => {
                        let middle = op.into_inner().next().expect("grammar: middle");
                        let then = self.expression(middle)?;
                        let depth = 1 + lhs.depth.max(then.depth).max(rhs.depth);
                        let kind = ExprKind::Conditional {
                            cond: Box::new(lhs.expr),
                            then: Box::new(then.expr),
                            otherwise: Box::new(rhs.expr),
                        };
                        self.node(kind, span, depth)
                    }
                    rule => {
                        let op = binary_op(rule).expect("grammar: infix operator");
                        let depth = 1 + lhs.depth.max(rhs.depth);
                        let kind = ExprKind::Binary {
                            op,
                            lhs: Box::new(lhs.expr),
                            rhs: Box::new(rhs.expr),
                        };
                        self.node(kind, span, depth)
                    }
                }
            })
            .parse(pair.into_inner())
    }

    fn operand(&self, pair: Pair<'_, Rule>) -> Result<Built> {
        let mut prefixes = Vec::new();
        let mut postfix = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::negate => prefixes.push((UnaryOp::Minus, span_of(&part))),
                Rule::plus => prefixes.push((UnaryOp::Plus, span_of(&part))),
                Rule::not => prefixes.push((UnaryOp::Not, span_of(&part))),
                Rule::bit_not => prefixes.push((UnaryOp::BitNot, span_of(&part))),
                _ => postfix = Some(part),
            }
        }
        let mut built = self.postfix_expression(postfix.expect("grammar: operand"))?;
        for (op, span) in prefixes.into_iter().rev() {
            let span = span.join(built.expr.span);
            let kind = ExprKind::Unary {
                op,
                operand: Box::new(built.expr),
            };
            built = self.node(kind, span, built.depth + 1)?;
        }
        Ok(built)
    }

    fn postfix_expression(&self, pair: Pair<'_, Rule>) -> Result<Built> {
        let mut parts = pair.into_inner();
        let mut built = self.primary(parts.next().expect("grammar: primary"))?;
        for part in parts {
            let span = built.expr.span.join(span_of(&part));
            built = match part.as_rule() {
                Rule::postfix_elvis => {
                    let fallback = self.postfix_expression(
                        part.into_inner()
                            .find(|p| p.as_rule() == Rule::postfix_expression)
                            .expect("grammar: elvis fallback"),
                    )?;
                    let depth = 1 + built.depth.max(fallback.depth);
                    let kind = ExprKind::Elvis {
                        value: Box::new(built.expr),
                        fallback: Box::new(fallback.expr),
                    };
                    self.node(kind, span, depth)?
                }
                Rule::selection => {
                    let name =
                        self.attribute_name(part.into_inner().next().expect("grammar: name"))?;
                    let depth = built.depth;
                    let kind = ExprKind::Select {
                        base: Box::new(built.expr),
                        name,
                    };
                    self.node(kind, span, depth)?
                }
                _ => {
                    let index =
                        self.expression(part.into_inner().next().expect("grammar: index"))?;
                    let depth = 1 + built.depth.max(index.depth);
                    let kind = ExprKind::Subscript {
                        base: Box::new(built.expr),
                        index: Box::new(index.expr),
                    };
                    self.node(kind, span, depth)?
                }
            };
        }
        Ok(built)
    }

    fn primary(&self, pair: Pair<'_, Rule>) -> Result<Built> {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::number | Rule::negative_number => {
                let lit = self.number(pair.as_str(), span)?;
                self.node(ExprKind::Literal(lit), span, 1)
            }
            Rule::strings => {
                let mut bytes = Vec::new();
                match self.rules {
                    StringRules::New => {
                        let (body, starts) = joined_parts(pair.into_inner());
                        decode_new_escapes(&body, &mut bytes).map_err(|(at, msg)| {
                            let start = source_offset(&starts, at);
                            self.error(Span::new(start, start + 2), msg)
                        })?;
                    }
                    StringRules::Old => {
                        // From the source, not the grammar's text: there
                        // the strings' backslashes are masked.
                        for part in pair.into_inner() {
                            let part = span_of(&part);
                            let (start, end) = (part.start as usize, part.end as usize);
                            let body = &self.source[start + 1..end - 1];
                            self.decode_string(body, part, &mut bytes)?;
                        }
                    }
                }
                let lit = Literal::String(bytes.into_boxed_slice());
                self.node(ExprKind::Literal(lit), span, 1)
            }
            Rule::keyword_literal => {
                let lit = match pair.as_str().to_ascii_lowercase().as_str() {
                    "true" => Literal::Boolean(true),
                    "false" => Literal::Boolean(false),
                    "undefined" => Literal::Undefined,
                    _ => Literal::Error,
                };
                self.node(ExprKind::Literal(lit), span, 1)
            }
            Rule::function_call => {
                let mut inner = pair.into_inner();
                let name = self.attribute_name(inner.next().expect("grammar: name"))?;
                let mut depth = 0;
                let mut args = Vec::new();
                for arg in inner {
                    if arg.as_rule() == Rule::old_argument_separator {
                        if self.parser.options.strict {
                            return Err(self.error(
                                span_of(&arg),
                                "expected `,` or `)`: `;` between arguments is old ClassAd syntax, refused in strict mode",
                            ));
                        }
                        continue;
                    }
                    let arg = self.expression(arg)?;
                    depth = depth.max(arg.depth);
                    args.push(arg.expr);
                }
                self.node(ExprKind::Call { name, args }, span, depth + 1)
            }
            Rule::root_attribute => {
                let name = self.attribute_name(pair.into_inner().next().expect("grammar: name"))?;
                self.node(ExprKind::RootAttribute(name), span, 1)
            }
            Rule::identifier | Rule::quoted_name => {
                let quoted = pair.as_rule() == Rule::quoted_name;
                let name = self.attribute_name(pair)?;
                if quoted
                    && self.parser.options.dialect == Dialect::Jdl
                    && let Some(kind) = name.to_str().and_then(|text| self.jdl_time_literal(text))
                {
                    return self.node(kind, span, 2);
                }
                self.node(ExprKind::Attribute(name), span, 1)
            }
            Rule::parenthesized => {
                let inner = self.expression(pair.into_inner().next().expect("grammar: inner"))?;
                let depth = inner.depth + 1;
                self.node(ExprKind::Paren(Box::new(inner.expr)), span, depth)
            }
            Rule::list => {
                let mut depth = 0;
                let mut items = Vec::new();
                for item in pair.into_inner() {
                    let item = self.expression(item)?;
                    depth = depth.max(item.depth);
                    items.push(item.expr);
                }
                items.shrink_to_fit();
                self.node(ExprKind::List(items), span, depth + 1)
            }
            Rule::ad => {
                let mut depth = 0;
                let mut ad = AdExpr::new();
                for def in pair.into_inner() {
                    let def_span = span_of(&def);
                    let (name, value) = self.definition(def)?;
                    depth = depth.max(value.depth);
                    if let Some(replaced) = ad.insert(name, value.expr) {
                        self.check_replaced(&replaced, def_span)?;
                    }
                }
                self.node(ExprKind::Ad(Box::new(ad)), span, depth + 1)
            }
            rule => unreachable!("grammar: unexpected primary {rule:?}"),
        }
    }

    /// The JDL dialect's quoted time literals (spec 004, 3.3.3): a relative
    /// time `'[-][Nd]HH:MM[:SS]'` (`'3d19:49:15'`) reads as
    /// `MakeRelTime(seconds)`, an absolute time `'Thu Aug 17 18:21:07 2000
    /// (CDT) -06:00'` as `absTime("2000-08-17T18:21:07-06:00")`. In
    /// HTCondor's dialect these are quoted attribute names.
    fn jdl_time_literal(&self, text: &str) -> Option<ExprKind> {
        let call = |name: &str, arg: Literal| ExprKind::Call {
            name: self.parser.intern(name),
            args: vec![Expr::literal(arg)],
        };
        let number = |s: &str| -> Option<i64> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        // Relative: [-][Nd]HH:MM[:SS]
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (days, clock) = match body.split_once(['d', 'D']) {
            Some((d, rest)) => (number(d).and_then(|d| d.checked_mul(86_400)), rest),
            None => (Some(0), body),
        };
        let fields: Vec<&str> = clock.split(':').collect();
        if (2..=3).contains(&fields.len()) && fields.iter().all(|f| number(f).is_some()) {
            let mut seconds = 0i64;
            for field in &fields {
                seconds = seconds.checked_mul(60)?.checked_add(number(field)?)?;
            }
            if fields.len() == 2 {
                seconds = seconds.checked_mul(60)?;
            }
            let total = days?.checked_add(seconds)?;
            let total = if negative { -total } else { total };
            return Some(call("MakeRelTime", Literal::Integer(total)));
        }
        // Absolute: Www Mmm DD HH:MM:SS YYYY [(ZONE)] [+-HH:MM]
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() < 5 {
            return None;
        }
        const MONTHS: [&str; 12] = [
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ];
        let month = MONTHS
            .iter()
            .position(|m| m.eq_ignore_ascii_case(words[1]))?
            + 1;
        let day = number(words[2])?;
        let clock: Vec<i64> = words[3].split(':').map(number).collect::<Option<_>>()?;
        let year = number(words[4])?;
        let [hours, minutes, seconds] = clock.as_slice() else {
            return None;
        };
        let offset = words[5..]
            .iter()
            .find(|w| w.starts_with(['+', '-']))
            .copied()
            .unwrap_or("+00:00");
        let iso =
            format!("{year:04}-{month:02}-{day:02}T{hours:02}:{minutes:02}:{seconds:02}{offset}");
        Some(call(
            "absTime",
            Literal::String(iso.into_bytes().into_boxed_slice()),
        ))
    }

    fn ad_body(&self, pair: Pair<'_, Rule>) -> Result<AdExpr> {
        let mut ad = AdExpr::new();
        for def in pair.into_inner() {
            let def_span = span_of(&def);
            let (name, value) = self.definition(def)?;
            if let Some(replaced) = ad.insert(name, value.expr) {
                self.check_replaced(&replaced, def_span)?;
            }
        }
        Ok(ad)
    }

    fn definition(&self, pair: Pair<'_, Rule>) -> Result<(Name, Built)> {
        let mut inner = pair.into_inner();
        let name_pair = inner.next().expect("grammar: name");
        let name_span = span_of(&name_pair);
        let name = self.attribute_name(name_pair)?;
        if name.as_bytes().is_empty() {
            // HTCondor's parser cannot insert an attribute without a name
            // (`[ '' = 3 ]` does not parse), though `''` is a reference.
            return Err(self.error(name_span, "an attribute name cannot be empty"));
        }
        let value = self.expression(inner.next().expect("grammar: value"))?;
        Ok((name, value))
    }

    fn attribute_name(&self, pair: Pair<'_, Rule>) -> Result<Name> {
        let text = pair.as_str();
        if pair.as_rule() != Rule::quoted_name {
            return Ok(self.parser.intern(text));
        }
        let mut bytes = Vec::new();
        let (body, starts) = joined_parts(pair.into_inner());
        decode_new_escapes(&body, &mut bytes).map_err(|(at, msg)| {
            let start = source_offset(&starts, at);
            self.error(Span::new(start, start + 1), msg)
        })?;
        Ok(self.parser.intern_bytes(&bytes))
    }

    fn decode_string(&self, body: &str, span: Span, out: &mut Vec<u8>) -> Result<()> {
        match self.rules {
            StringRules::New => decode_new_escapes(body, out).map_err(|(at, msg)| {
                let start = span.start as usize + 1 + at;
                self.error(Span::new(start, start + 2), msg)
            }),
            StringRules::Old => decode_old_escapes(body, out).map_err(|(at, msg)| {
                let start = span.start as usize + 1 + at;
                self.error(Span::new(start, start + 1), msg)
            }),
        }
    }

    /// Reads a number token as HTCondor's lexer does. An integer that does
    /// not fit in 64 bits is 0. An unsigned integer with a leading zero
    /// (`010`) is refused, unless in strict mode, where it is decimal, as
    /// is a signed one (`-010` is -10) in both; a leading zero followed by
    /// an 8 or 9 is refused in both. `0x1F` is read as its decimal prefix
    /// 0 wherever the leading zero is allowed. A decimal point after digits
    /// must be followed by a digit (`5.`, `1.e5` are refused); `..5` is
    /// 0.0. The JDL dialect reads `010` as octal, `0x..` as hex, and `2K`
    /// as 2048.0.
    fn number(&self, text: &str, span: Span) -> Result<Literal> {
        let options = self.parser.options;
        let jdl = options.dialect == Dialect::Jdl;
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let quoted = excerpt(text, 40);
        let refuse = |what: &str| {
            Err(self.error(
                span,
                format!(
                    "{what} `{quoted}` is a JDL extension that HTCondor does not read (enable the JDL dialect)"
                ),
            ))
        };
        let leading_zero_allowed = negative || options.strict;
        if let Some(hex) = digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            if let Some((whole, fraction)) = hex.split_once('.') {
                // HTCondor's lexer wants a digit after the point, and reads
                // the token with strtod: a hexadecimal float in every mode.
                if !fraction.starts_with(|c: char| c.is_ascii_digit()) {
                    return Err(self.error(
                        span,
                        format!(
                            "`{quoted}` is not a number: a digit must follow the decimal point"
                        ),
                    ));
                }
                let value = hex_float(whole, fraction);
                return Ok(Literal::Real(if negative { -value } else { value }));
            }
            if jdl {
                let value = i64::from_str_radix(hex, 16).unwrap_or(0);
                return Ok(Literal::Integer(if negative {
                    value.wrapping_neg()
                } else {
                    value
                }));
            }
            if leading_zero_allowed {
                // HTCondor reads the digits before the `x`.
                return Ok(Literal::Integer(0));
            }
            return refuse("the hexadecimal literal");
        }
        if let Some(point) = digits.find('.')
            && !digits.starts_with("..")
            && !digits[point + 1..].starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(self.error(
                span,
                format!("`{quoted}` is not a number: a digit must follow the decimal point"),
            ));
        }
        let (mantissa, scale) = match digits.as_bytes().last() {
            Some(b'B') => (&digits[..digits.len() - 1], Some(1.0)),
            Some(b'K') => (&digits[..digits.len() - 1], Some(1024.0)),
            Some(b'M') => (&digits[..digits.len() - 1], Some(1024.0 * 1024.0)),
            Some(b'G') => (&digits[..digits.len() - 1], Some(1024.0 * 1024.0 * 1024.0)),
            Some(b'T') => (&digits[..digits.len() - 1], Some(1024.0f64.powi(4))),
            _ => (digits, None),
        };
        if scale.is_some() && !jdl {
            return refuse("the scaled number");
        }
        let is_real = mantissa.contains(['.', 'e', 'E']) || scale.is_some();
        if is_real {
            // strtod reads `..5` as nothing: 0.0.
            let value: f64 = mantissa.parse().unwrap_or(0.0) * scale.unwrap_or(1.0);
            return Ok(Literal::Real(if negative { -value } else { value }));
        }
        if mantissa.len() > 1 && mantissa.starts_with('0') {
            if jdl {
                let value = i64::from_str_radix(mantissa, 8)
                    .map_err(|_| self.error(span, format!("`{quoted}` is not an octal number")))?;
                return Ok(Literal::Integer(if negative {
                    value.wrapping_neg()
                } else {
                    value
                }));
            }
            if mantissa.contains(['8', '9']) {
                return Err(self.error(
                    span,
                    format!("`{quoted}` is not a number: an integer with a leading zero is octal"),
                ));
            }
            if !leading_zero_allowed {
                return refuse("the octal literal (an integer with a leading zero)");
            }
        }
        // Parse with the sign so that i64::MIN reads; out of range is 0 as in HTCondor.
        Ok(Literal::Integer(text.parse::<i64>().unwrap_or(0)))
    }
}

/// The texts between the quotes of adjacent quoted parts, joined (escapes
/// are read in the joined text, as HTCondor's lexer reads them), and for
/// each part where its text starts in the joined text and in the source.
fn joined_parts(parts: Pairs<'_, Rule>) -> (String, Vec<(usize, usize)>) {
    let mut body = String::new();
    let mut starts = Vec::new();
    for part in parts {
        let text = part.as_str();
        starts.push((body.len(), part.as_span().start() + 1));
        body.push_str(&text[1..text.len() - 1]);
    }
    (body, starts)
}

/// The source offset of byte `at` of a text [`joined_parts`] made.
fn source_offset(starts: &[(usize, usize)], at: usize) -> usize {
    let (joined, source) = starts
        .iter()
        .rev()
        .find(|(joined, _)| *joined <= at)
        .copied()
        .unwrap_or((0, 0));
    source + (at - joined)
}

/// The value C's strtod gives the text `0x{whole}.{fraction}` as HTCondor's
/// lexer cuts it (`fraction` is decimal digits, then maybe an exponent
/// `e`/`E` with an optional sign and digits): strtod reads hex digits after
/// the point, so an `e` and the digits after it are more of the fraction,
/// and a sign ends the number (there is no `p` exponent). Correctly
/// rounded, to infinity past the largest double, as glibc does.
fn hex_float(whole: &str, fraction: &str) -> f64 {
    let fraction = fraction
        .find(|c: char| !c.is_ascii_hexdigit())
        .map_or(fraction, |end| &fraction[..end]);
    let digits = whole
        .bytes()
        .chain(fraction.bytes())
        .skip_while(|&b| b == b'0');
    // Exponent of two of the last digit read.
    let mut exp2 = -4 * fraction.len() as i64;
    let mut mantissa: u128 = 0;
    let mut sticky = false;
    let mut used = 0;
    for b in digits {
        let d = (b as char).to_digit(16).unwrap_or(0) as u128;
        if used < 30 {
            mantissa = mantissa << 4 | d;
            used += 1;
        } else {
            sticky |= d != 0;
            exp2 += 4;
        }
    }
    if mantissa == 0 {
        return 0.0;
    }
    let bits = 128 - i64::from(mantissa.leading_zeros());
    // Exponent of the leading bit, and the bits a double keeps there.
    let top = exp2 + bits - 1;
    if top > 1023 {
        return f64::INFINITY;
    }
    let precision = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    let shift = bits - precision;
    if shift > 0 {
        let shift = shift.min(127) as u32;
        let rest = mantissa & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        mantissa >>= shift;
        let round_up = rest > half || (rest == half && (sticky || mantissa & 1 == 1));
        if round_up {
            mantissa += 1;
        }
        exp2 += i64::from(shift);
    }
    // Exact from here: at most 54 bits, scaled by a power of two in steps
    // that never leave the normal range before the last.
    let mut value = mantissa as f64;
    let mut k = exp2;
    while k > 1000 {
        value *= 2f64.powi(1000);
        k -= 1000;
    }
    while k < -1000 {
        value *= 2f64.powi(-1000);
        k += 1000;
    }
    value * 2f64.powi(k as i32)
}

/// Decodes new-syntax escapes (spec 003 "Composing Literals"; HTCondor's
/// lexer): `\a \b \f \n \r \t \v`, `\\ \" \' \?`, octal `\o`, `\oo`, `\ooo`
/// (three digits only when the first is 0-3), any other escaped character
/// stands for itself. A NUL byte is refused, as HTCondor refuses it.
/// On error returns the byte offset of the backslash in `body`.
pub fn decode_new_escapes(body: &str, out: &mut Vec<u8>) -> Result<(), (usize, String)> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == 0 {
            // A raw NUL, like `\0`, cannot be in a C string.
            return Err((i, "a string cannot contain a NUL character".into()));
        }
        if b != b'\\' || i + 1 >= bytes.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let start = i;
        let c = bytes[i + 1];
        i += 2;
        match c {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'0'..=b'7' => {
                let max_digits = if c <= b'3' { 3 } else { 2 };
                let mut value = u32::from(c - b'0');
                let mut n = 1;
                while n < max_digits && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    n += 1;
                }
                if value == 0 {
                    return Err((
                        start,
                        "a string cannot contain a NUL character (`\\0`)".into(),
                    ));
                }
                out.push(value as u8);
            }
            0 => return Err((start, "a string cannot contain a NUL character".into())),
            _ => {
                // Unknown escapes drop the backslash; copy the whole character.
                let ch_len = body[start + 1..].chars().next().map_or(1, char::len_utf8);
                out.extend_from_slice(&bytes[start + 1..start + 1 + ch_len]);
                i = start + 1 + ch_len;
            }
        }
    }
    Ok(())
}

/// Decodes old-syntax strings: only `\"` is an escape; every other
/// backslash is kept (HTCondor's old ClassAd format). A raw NUL byte is
/// refused: HTCondor reads ad text as C strings, where a NUL ends the
/// input, and no writer (new syntax, JSON) could give the string back.
/// On error returns the byte offset of the NUL in `body`.
pub fn decode_old_escapes(body: &str, out: &mut Vec<u8>) -> Result<(), (usize, String)> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0 {
            return Err((i, "a string cannot contain a NUL character".into()));
        }
        // `\"` is a backslash and a quote: a backslash does not escape
        // the next backslash.
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'"') {
            out.push(b'"');
            i += 2;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(())
}

/// The text the grammar reads for an old-syntax `source`, and where it
/// ends. HTCondor's lexer in old-ClassAd mode reads a string to the next
/// `"` not after a backslash; a `\"` is a quote in the string, except
/// at the very end of the text, where it ends the string, the backslash
/// kept (`P = "C:\dir\"` is `C:\dir\`, as HTCondor's old-syntax writer
/// writes it). Every other backslash is kept as it is. In the text
/// returned each backslash and inner quote of a string is `_`, so that
/// the grammar's string rule ends each string where that lexer does (the
/// tree builder decodes the strings from `source`). The text ends where a
/// string follows a string with only white space between: old syntax
/// does not join them, so the first ends the expression (HTCondor ignores
/// the rest of the line; inside brackets it is an error either way).
/// `source` with each backslash that stands right before a line end
/// (`\n` or `\r\n`) outside string literals, quoted names and comments
/// replaced by a blank: the JDL dialect's line continuation (see
/// `Parser::dialect_text`). Borrowed when there is none.
pub fn jdl_line_continuations(source: &str) -> std::borrow::Cow<'_, str> {
    let bytes = source.as_bytes();
    if memchr::memchr(b'\\', bytes).is_none() {
        return std::borrow::Cow::Borrowed(source);
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            // A string or a quoted name: a backslash escapes the next byte.
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += memchr::memchr(b'\n', &bytes[i..]).unwrap_or(bytes.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i +=
                    2 + memchr::memmem::find(&bytes[i + 2..], b"*/").map_or(bytes.len(), |e| e + 2);
            }
            b'\\' => {
                let next = match bytes.get(i + 1) {
                    Some(b'\r') => bytes.get(i + 2),
                    next => next,
                };
                if next == Some(&b'\n') {
                    out.get_or_insert_with(|| bytes.to_vec())[i] = b' ';
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    match out {
        // Only an ASCII backslash was replaced by an ASCII blank.
        Some(out) => std::borrow::Cow::Owned(String::from_utf8(out).expect("still UTF-8")),
        None => std::borrow::Cow::Borrowed(source),
    }
}

pub(crate) fn mask_old_strings(source: &str) -> (std::borrow::Cow<'_, str>, usize) {
    let bytes = source.as_bytes();
    let mut masked: Option<Vec<u8>> = None;
    let mask = |masked: &mut Option<Vec<u8>>, at: usize| {
        masked.get_or_insert_with(|| bytes.to_vec())[at] = b'_';
    };
    let mut cut = bytes.len();
    let mut i = 0;
    'scan: while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let open = i;
                let mut k = open + 1;
                loop {
                    let Some(q) = memchr::memchr(b'"', &bytes[k..]) else {
                        // Unterminated: nothing in it may close it.
                        for (at, &b) in bytes.iter().enumerate().skip(open + 1) {
                            if b == b'\\' {
                                mask(&mut masked, at);
                            }
                        }
                        break 'scan;
                    };
                    let q = k + q;
                    for (at, &b) in bytes.iter().enumerate().take(q).skip(k) {
                        if b == b'\\' {
                            mask(&mut masked, at);
                        }
                    }
                    if q > open + 1 && bytes[q - 1] == b'\\' && q + 1 != bytes.len() {
                        mask(&mut masked, q);
                        k = q + 1;
                        continue;
                    }
                    i = q + 1;
                    break;
                }
                let next = i + bytes[i..]
                    .iter()
                    .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C))
                    .count();
                if bytes.get(next) == Some(&b'"') {
                    cut = next;
                    break;
                }
            }
            b'\'' => {
                // A quoted name, read as the grammar reads it.
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => break,
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                match memchr::memmem::find(&bytes[i + 2..], b"*/") {
                    Some(end) => i += end + 4,
                    None => break,
                }
            }
            _ => i += 1,
        }
    }
    let text = match masked {
        // Only ASCII bytes were replaced by ASCII bytes.
        Some(masked) => std::borrow::Cow::Owned(String::from_utf8(masked).expect("UTF-8 kept")),
        None => std::borrow::Cow::Borrowed(source),
    };
    let cut = cut.min(text.len());
    (text, cut)
}

/// Whether what follows an old-syntax line's first expression (which
/// ends at `end` in `text`) continues it as HTCondor's parser reads on:
/// an operator, `?`, a selection `.`, a subscript `[`, or `(` after a
/// name (a call). The parser then fails where the grammar's greedy
/// reading stopped; anything else (`P = 1 2`, `P = 1 ]`, `P = 1 # x`) is
/// ignored there.
fn continues_expression(text: &str, end: usize) -> bool {
    let bytes = text.as_bytes();
    let mut i = end;
    // White space and comments, as the grammar skips them.
    loop {
        match bytes.get(i..) {
            Some([b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C, ..]) => i += 1,
            Some([b'/', b'*', ..]) => match memchr::memmem::find(&bytes[i + 2..], b"*/") {
                Some(k) => i += k + 4,
                None => return false,
            },
            _ => break,
        }
    }
    let rest = &bytes[i..];
    match rest {
        [] | [b'/', b'/', ..] => false,
        [
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'&' | b'|' | b'^' | b'?' | b'[',
            ..,
        ] => true,
        [b'=', b'=', ..] | [b'=', b'?' | b'!', b'=', ..] | [b'!', b'=', ..] => true,
        [b'.', next, ..] => !next.is_ascii_digit(),
        [b'.'] => true,
        [b'(', ..] => ends_with_name(&bytes[..end]),
        _ => {
            let word = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            let word = &rest[..word];
            word.eq_ignore_ascii_case(b"is") || word.eq_ignore_ascii_case(b"isnt")
        }
    }
}

/// Whether `text` ends with a name (not a number or a keyword literal),
/// which a `(` after it makes a function call.
fn ends_with_name(text: &[u8]) -> bool {
    let text = text.trim_ascii_end();
    let run = text
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let start = text.len() - run;
    let word = &text[start..];
    let Some(first) = word.first() else {
        return false;
    };
    let before = start.checked_sub(1).map(|k| text[k]);
    (first.is_ascii_alphabetic() || *first == b'_')
        && !before.is_some_and(|b| b.is_ascii_digit() || b == b'.')
        && !["true", "false", "undefined", "error"]
            .iter()
            .any(|k| word.eq_ignore_ascii_case(k.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JDL dialect's line continuation: a backslash before a line end
    /// is a blank outside strings, quoted names and comments, in place.
    #[test]
    fn jdl_backslash_before_a_line_end_is_white_space() {
        let cases = [
            ("a \\\n&& b", "a  \n&& b"),
            ("a \\\r\n&& b", "a  \r\n&& b"),
            ("\"x \\\n\" \\\n", "\"x \\\n\"  \n"),
            ("'n \\\n' + 1", "'n \\\n' + 1"),
            ("1 // c \\\n+ 2 \\\n", "1 // c \\\n+ 2  \n"),
            ("1 /* \\\n */ \\\n", "1 /* \\\n */  \n"),
            ("a \\ b", "a \\ b"),
            ("a \\", "a \\"),
            ("\"open \\", "\"open \\"),
        ];
        for (text, expected) in cases {
            assert_eq!(jdl_line_continuations(text), expected, "{text:?}");
        }
        let jdl = Parser::new(ParseOptions {
            dialect: Dialect::Jdl,
            ..ParseOptions::default()
        });
        let plain = Parser::new(ParseOptions::default());
        let text = "a == \"PBS\" \\\n&& b";
        let expr = jdl.parse_expression(text).expect("JDL reads it");
        assert_eq!(
            expr,
            plain.parse_expression("a == \"PBS\"  \n&& b").unwrap()
        );
        assert!(plain.parse_expression(text).is_err());
        let ad = jdl
            .parse_ad("[r = a \\\n  && b; s = 1]")
            .expect("JDL reads it");
        assert_eq!(ad.len(), 2);
        assert!(plain.parse_ad("[r = a \\\n  && b; s = 1]").is_err());
    }

    /// Class: a text read by `eval` may go on after a conditional at the
    /// top (HTCondor's full parse returns from it without looking for the
    /// end), unless what follows continues the expression.
    #[test]
    fn evaluated_text_ignores_what_follows_a_top_conditional() {
        let parser = Parser::new(ParseOptions::default());
        for text in [
            "1 ? 2 : 3 4",
            "1?2:3)",
            "x ? 2 : 3 \"open",
            "1 ? 2 : 3 /* open",
            "1?2:12:1",
        ] {
            let expr = parser.parse_evaluated_text(text).expect(text);
            assert!(matches!(expr.kind, ExprKind::Conditional { .. }), "{text}");
        }
        for text in [
            "(1 ? 2 : 3) 4",
            "1 ?: 2 3",
            "1 ? 2 : 3 +",
            "1 ? 2 : 3 .",
            "1 ? 2 : 3 is",
            "1 2",
        ] {
            assert!(parser.parse_evaluated_text(text).is_err(), "{text}");
        }
        assert!(parser.parse_expression("1 ? 2 : 3 4").is_err());
    }

    /// Class: a point after hex digits makes a hexadecimal float, as C's
    /// strtod reads HTCondor's token (correctly rounded, the `e` of an
    /// exponent a hex digit).
    #[test]
    fn hex_floats_read_as_strtod_does() {
        assert_eq!(hex_float("1", "5"), 1.3125);
        assert_eq!(hex_float("A", "5"), 10.3125);
        assert_eq!(hex_float("1", "5e3"), 1.367919921875);
        assert_eq!(hex_float("1", "5E+3"), 1.3671875);
        assert_eq!(hex_float("1", "fffffffffffff8"), 2.0);
        assert_eq!(hex_float("1", "00000000000008"), 1.0);
        assert_eq!(hex_float("1", "00000000000018"), 1.0 + 2f64.powi(-51));
        assert_eq!(hex_float("0", "0"), 0.0);
        assert_eq!(hex_float(&"f".repeat(300), "0"), f64::INFINITY);
        // Around half the least subnormal, 2^-1075 (ties to even: 0).
        let tiny = |digits: &str| hex_float("0", &format!("{}{digits}", "0".repeat(268)));
        assert_eq!(tiny("2"), 0.0);
        assert_eq!(tiny("21"), 5e-324);
        assert_eq!(tiny("3"), 5e-324);
        assert_eq!(tiny("6"), 1e-323);
        assert_eq!(tiny("8"), 1e-323);
    }

    /// Class: adjacent strings and quoted names are one token whose
    /// escapes are read after the texts are joined; an ad cannot define
    /// the empty name.
    #[test]
    fn adjacent_texts_join_before_their_escapes() {
        let string = |text: &str| match parse_expression(text).map(Expr::into_kind) {
            Ok(ExprKind::Literal(Literal::String(bytes))) => bytes.to_vec(),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(string(r#""\1" "2""#), b"\n");
        assert_eq!(string(r#""\0" "1""#), b"\x01");
        let name = |text: &str| match parse_expression(text).map(Expr::into_kind) {
            Ok(ExprKind::Attribute(name)) => name.as_bytes().to_vec(),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(name("'a' 'b'"), b"ab");
        assert_eq!(name("'a''b'"), b"ab");
        assert_eq!(name("''"), b"");
        assert!(parse_expression("[ '' = 3 ]").is_err());
        assert!(parse_expression("[ '' '' = 3 ]").is_err());
    }

    /// Class: a quoted name before `(` is a function name (HTCondor's lexer
    /// makes one identifier token of both spellings), written back quoted
    /// in the round-trip form when it is no plain identifier.
    #[test]
    fn quoted_names_call_functions() {
        let call = |text: &str| match parse_expression(text).map(Expr::into_kind) {
            Ok(ExprKind::Call { name, args }) => (name.to_string_lossy().to_string(), args.len()),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(call("'pow'(2, -1)"), ("pow".to_string(), 2));
        assert_eq!(call("'is' 'Undefined' (1)"), ("isUndefined".to_string(), 1));
        assert_eq!(call("'a b'()"), ("a b".to_string(), 0));
        let back = crate::unparse(&parse_expression("'a b'(1)").expect("parses"));
        assert_eq!(back, "'a b'(1)");
    }

    /// Class 5 of tests/gen/known_bugs.txt: a quoted name is the bytes its
    /// escapes make, UTF-8 or not, as HTCondor's; NUL ends it nowhere (a
    /// parse error), and escapes HTCondor does not know (`\u`, `\x`) are
    /// the letter.
    #[test]
    fn quoted_names_are_bytes() {
        let name = |text: &str| match parse_expression(text).map(Expr::into_kind) {
            Ok(ExprKind::Attribute(name)) => name.as_bytes().to_vec(),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(name(r"'\377'"), b"\xff");
        assert_eq!(name(r"'\376\377'"), b"\xfe\xff");
        assert_eq!(name(r"'a\200b'"), b"a\x80b");
        assert_eq!(name(r"'\303\251'"), "é".as_bytes());
        assert_eq!(name(r"'\n\001'"), b"\n\x01");
        assert_eq!(name(r"'\u00e9'"), b"u00e9");
        assert_eq!(name(r"'\x41'"), b"x41");
        assert!(parse_expression(r"'\000'").is_err());
        assert!(parse_expression(r"[ 'a\000b' = 1 ]").is_err());
        // Two names that differ in bytes that are not UTF-8 are two.
        assert_ne!(name(r"'\376'"), name(r"'\377'"));
        let parser = Parser::new(ParseOptions::default());
        assert_ne!(parser.intern_bytes(b"\xfe"), parser.intern_bytes(b"\xff"));
        assert!(parser.intern_bytes(b"A\xff").eq_ignore_case(b"a\xff"));
        assert!(!parser.intern_bytes("É".as_bytes()).eq_ignore_case("é"));
    }
}

/// Class 18 of tests/gen/known_bugs.txt: old-syntax lines read as
/// HTCondor 25.14's `classad2.parseOne(text, ParserType.Old)` reads them.
#[cfg(test)]
mod old_line_tests {
    use super::*;

    fn read(line: &str) -> Option<String> {
        let parser = Parser::new(ParseOptions::default());
        let grammar = parser.parse_old_line_with_grammar(line);
        let both = parser.parse_old_line(line);
        assert_eq!(grammar.is_ok(), both.is_ok(), "{line}");
        both.ok().map(|(_, e)| crate::unparse::unparse(&e))
    }

    #[test]
    fn old_strings_follow_htcondors_old_lexer() {
        for (line, value) in [
            (r#"P = "x\""#, Some(r#""x\\""#)),
            (r#"P = "C:\dir\""#, Some(r#""C:\\dir\\""#)),
            (r#"P = "\\\""#, Some(r#""\\\\\\""#)),
            (r#"P = "a\"b""#, Some(r#""a\"b""#)),
            (r#"P = "a\\"b""#, Some(r#""a\\\"b""#)),
            (r#"P = "a\nb""#, Some(r#""a\\nb""#)),
            (r#"P = "a\" + "b""#, Some(r#""a\" + ""#)),
            (r#"P = "a\\" + "b\\""#, Some(r#""a\\\" + ""#)),
            (r#"P = "x\" "#, None),
            (r#"P = {"a\"}"#, None),
        ] {
            assert_eq!(read(line).as_deref(), value, "{line}");
        }
    }

    #[test]
    fn old_lines_read_only_their_first_expression() {
        for (line, value) in [
            ("P = 1 2", Some("1")),
            (r#"P = "a" "b""#, Some(r#""a""#)),
            ("P = a b c", Some("a")),
            ("P = 1 # note", Some("1")),
            ("P = 1 ]", Some("1")),
            ("P = 1 .5", Some("1")),
            ("P = 1 (", Some("1")),
            ("P = 1 /* c */ + 2", Some("1 + 2")),
            ("P = 1 +", None),
            ("P = 1 is", None),
            ("P = a.", None),
            ("P = a (", None),
            ("P = 1 */", None),
            (r#"P = f("a" "b")"#, None),
        ] {
            assert_eq!(read(line).as_deref(), value, "{line}");
        }
    }
}
