//! A seeded generator of typed random ClassAd expressions.
//!
//! Dependency-free: the random source is a xorshift64* seeded through
//! splitmix64, so a seed gives the same expressions on every platform.
//!
//! Expressions are generated for a wanted type (integer, real, boolean,
//! string, list, ad, or anything), so that most subtrees are meaningful
//! operands of their operator (`integer + integer`, `string < string`,
//! `list[integer]`), with a small share of deliberately ill-typed operands,
//! `undefined` and `error` to exercise the error paths. They cover every
//! binary and unary operator, `?:`, elvis, every literal kind with its edge
//! values, lists, nested ads whose attributes refer to each other (in
//! cycles too) and outward (`self`, `parent`, `root`, `MY.`, `TARGET.`,
//! `.x`, `expr.x`, subscripts in and out of range), and, when enabled, a
//! few calls (`size`, `strcat`, `isUndefined`, `member`, `ifThenElse`,
//! `real`, `relTime`, `absTime`).
//!
//! Trees are written with [`classad_syntax::unparse()`]; parentheses are
//! added where precedence needs them, and every text is parsed again and
//! dropped if it does not parse.

use classad_syntax::{AdExpr, BinaryOp, Expr, ExprKind, Literal, Name, UnaryOp};

/// A small, fast, seeded random source (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed` (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, never zero.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng {
            state: if z == 0 { 0x853c_49e6_748f_ea9b } else { z },
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// One of `items`.
    pub fn pick<'s, T>(&mut self, items: &'s [T]) -> &'s T {
        &items[self.below(items.len())]
    }

    /// One of `items`, for string tables.
    pub fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }
}

/// Generator settings.
#[derive(Clone, Copy, Debug)]
pub struct GenOptions {
    /// Deepest operator nesting (a leaf has depth 0).
    pub max_depth: u32,
    /// Whether function calls may be generated.
    pub calls: bool,
    /// Whether to generate the forms where values become text and where
    /// scope is taken away or looked through (issue 12): reals, lists and
    /// ads inside string functions, `unparse`, `countMatches` and
    /// `evalInEachContext` of attributes, `=?=` between a list literal and
    /// a list a function made, selection chains and ads taken by
    /// subscript; the `?:` token is also spelled `? :`. Implies `calls`.
    pub text: bool,
    /// Whether to generate calls of the wider library as users write them:
    /// string-list functions with odd delimiters, time functions of
    /// absolute and relative times, math and list functions, `eval`,
    /// `unparse` and `ifThenElse` of references, arguments that are
    /// references to attributes of every type (bare, `MY.`, `self.`,
    /// through nested ads, subscripted ads), `MY.`/`TARGET.` in lists of
    /// nested ads. Implies `calls`.
    pub library: bool,
    /// Whether to generate calls of every builtin with odd arguments, as a
    /// tester who did not write this library would: values of every type
    /// at their edges (64-bit extremes, infinities, `-0.0`, escapes and
    /// bytes that are not ASCII, delimiters, lists, ads, times) in every
    /// position and arity, `eval` of values that are not strings,
    /// `unresolved` of references through ads, `userMap` and
    /// `envV1ToV2` with odd texts, times of far years. Implies `calls`.
    pub odd: bool,
    /// Whether to write expressions as an outside tester types them, and
    /// to generate the forms such a tester tries first: every operator on
    /// mixed types and times (`absTime(..) + relTime(..)`, `relTime(..) *
    /// 2`, comparisons and `=?=` of times, lists and ads), unary operators
    /// on every type, shifts and bitwise operators with negative and huge
    /// counts, overflow, division by zero, every builtin with any arity,
    /// `undefined`/`error` arguments and names in any case, times in lists,
    /// string comparisons that differ in case. The text is respelled token
    /// by token ([`respell_wild`]): hexadecimal, octal and hexadecimal-float
    /// numbers, reals in every exponent form, strings with octal and
    /// unknown escapes or split into adjacent strings, keywords and
    /// function names in any case, `=?=`/`=!=` for `is`/`isnt`, quoted
    /// attribute names (split in adjacent parts too), comments, and white
    /// space taken out or added. Implies `calls`.
    pub wild: bool,
    /// Whether to write, besides the trees above, texts made token by token
    /// as a generator written by someone else would ([`Generator::outside_text`]):
    /// `is`/`isnt`/`=?=`/`=!=` and comparisons on every pair of types,
    /// chains of unary operators with and without spaces, numbers past the
    /// edges of int64 and double (`9223372036854775808`, `1e309`, hex,
    /// octal, `5.`, `.5e3`), string literals with every kind of escape,
    /// `absTime`/`relTime` of odd strings under the time functions, every
    /// builtin with nested lists and ads among any number of arguments,
    /// the old ways of writing ads and lists (trailing `;` and `,`, empty
    /// items), and comments or white space between any two tokens. A text
    /// this library refuses is kept (that is what it tests). Implies
    /// `calls`.
    pub outside: bool,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            max_depth: 4,
            calls: false,
            text: false,
            library: false,
            odd: false,
            wild: false,
            outside: false,
        }
    }
}

/// The type a subtree is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Real,
    Bool,
    Str,
    List,
    Ad,
    Any,
}

const TYPES: [Ty; 7] = [
    Ty::Int,
    Ty::Real,
    Ty::Bool,
    Ty::Str,
    Ty::List,
    Ty::Ad,
    Ty::Any,
];

const INTS: [i64; 18] = [
    0,
    1,
    -1,
    2,
    3,
    7,
    10,
    -7,
    63,
    64,
    65,
    -8,
    100,
    i64::MIN,
    i64::MAX,
    4_294_967_297,
    -9_223_372_036_854_775_807,
    1_000_000,
];

const REALS: [f64; 16] = [
    0.0,
    -0.0,
    1.5,
    2.5,
    -2.5,
    0.1,
    3.0,
    1e308,
    -1e308,
    5e-324,
    1.1e-308,
    1e-5,
    9_007_199_254_740_993.0,
    9.223_372_036_854_776e18,
    -1.0,
    1e10,
];

const STRINGS: [&[u8]; 19] = [
    b"",
    b"a",
    b"A",
    b"abc",
    b"ABC",
    b"aBc",
    b"abd",
    b"a\"b",
    b"back\\slash",
    b"tab\there",
    b"new\nline",
    b"_",
    b"Z",
    b"10",
    b"9",
    b"\x01\x7f",
    b"\xc3\xa9",
    b"\xff",
    b"true",
];

/// Attribute names of generated ads; case variants refer to the same one.
/// Values at the edges of their types, for [`GenOptions::odd`].
const ODD_VALUES: [&str; 55] = [
    "0",
    "1",
    "-1",
    "2",
    "63",
    "64",
    "-64",
    "9223372036854775807",
    "(-9223372036854775807 - 1)",
    "4294967296",
    "1.5",
    "-2.5",
    "-0.0",
    "1e308",
    "1e-320",
    "real(\"INF\")",
    "real(\"-INF\")",
    "real(\"NaN\")",
    "\"\"",
    "\"abc\"",
    "\"ABC\"",
    "\" 12 \"",
    "\"0x10\"",
    "\"1e400\"",
    "\"-0\"",
    "\"a,b,,c\"",
    "\"\\303\\251\"",
    "\"\\n\"",
    "\"%d %s\"",
    "\"a.*\"",
    "\"(a\"",
    "\"u@d@h\"",
    "\"A=1 B=2\"",
    "\"|a=b|c=d\"",
    "true",
    "false",
    "undefined",
    "error",
    "{}",
    "{1, \"a\"}",
    "{undefined, 1}",
    "[]",
    "[a = 1; b = a + 1]",
    "absTime(0)",
    "absTime(\"2020-02-29T12:34:56-05:00\")",
    "relTime(90)",
    "relTime(-1.5)",
    "x",
    "split(\"a b\")",
    "[l = {1}][\"l\"]",
    "{split(\"a\"), {1}}",
    "\"\\\\N+\"",
    "\"\\\\p{Lu}\"",
    "\"\\\\u0041\"",
    "\"[[:alpha:]]\\\\d?\"",
];

/// Names for the ads of `unresolved` in [`GenOptions::odd`]
/// (`CurrentTime`: HTCondor's lookup finds it outside strict mode).
const ODD_NAMES: [&str; 13] = [
    "A",
    "B",
    "c",
    "d",
    "e",
    "MY",
    "self",
    "parent",
    "root",
    "TARGET",
    "super",
    "undefined",
    "CurrentTime",
];

/// Ads taken by `ad["name"]` (which have lost their scope in HTCondor),
/// directly or through a list, for the attributes of the ads of
/// `unresolved` in [`GenOptions::odd`].
const ODD_DETACHED_ADS: [&str; 5] = [
    "[y = [c = d]][\"y\"]",
    "self[\"B\"]",
    "{[y = [A = e]][\"y\"]}[0]",
    "[y = {[c = B]}][\"y\"][0]",
    "true ? parent[\"c\"] : 1",
];

/// Every builtin HTCondor 25.14 has, for [`GenOptions::odd`] (the ones
/// that read the clock or a random source left out).
const BUILTINS: [&str; 86] = [
    "absTime",
    "allCompare",
    "anyCompare",
    "argsToList",
    "avg",
    "bool",
    "ceil",
    "ceiling",
    "countMatches",
    "debug",
    "envV1ToV2",
    "eval",
    "evalInEachContext",
    "floor",
    "formatTime",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getDays",
    "getHours",
    "getMinutes",
    "getMonth",
    "getSeconds",
    "getYear",
    "identicalMember",
    "ifThenElse",
    "int",
    "interval",
    "isAbsTime",
    "isBoolean",
    "isClassAd",
    "isError",
    "isInteger",
    "isList",
    "isReal",
    "isRelTime",
    "isString",
    "isUndefined",
    "join",
    "listToArgs",
    "max",
    "member",
    "mergeEnvironment",
    "min",
    "pow",
    "quantize",
    "real",
    "regexp",
    "regexpMember",
    "regexps",
    "relTime",
    "replace",
    "replaceall",
    "round",
    "size",
    "split",
    "splitSlotName",
    "splitTime",
    "splitUserName",
    "strcat",
    "strcmp",
    "stricmp",
    "string",
    "stringListAvg",
    "stringListIMember",
    "stringListISubsetMatch",
    "stringListMax",
    "stringListMember",
    "stringListMin",
    "stringListSize",
    "stringListSubsetMatch",
    "stringListSum",
    "stringListsIntersect",
    "stringList_regexpMember",
    "substr",
    "sum",
    "toLower",
    "toUpper",
    "unparse",
    "unresolved",
    "userHome",
    "userMap",
    "versionEQ",
    "versionGE",
    "versioncmp",
    "version_in_range",
];

const NAMES: [&str; 7] = ["a", "b", "c", "x", "y", "A", "B"];
/// Names with a special meaning, in various cases.
const SPECIALS: [&str; 9] = [
    "self", "SELF", "my", "MY", "parent", "root", "toplevel", "target", "TARGET",
];
/// Names that shadow special names when used as attributes.
const SHADOWS: [&str; 6] = ["self", "my", "target", "root", "toplevel", "parent"];

/// A seeded expression generator.
pub struct Generator {
    rng: Rng,
    options: GenOptions,
    /// Names of the ads enclosing the point being generated, innermost last.
    scopes: Vec<Vec<String>>,
    /// Names of the TARGET ad, when generating for a match.
    target_names: Vec<String>,
}

fn node(kind: ExprKind) -> Expr {
    Expr::new(kind)
}

fn lit(l: Literal) -> Expr {
    Expr::literal(l)
}

fn name(text: &str) -> Name {
    Name::new(text)
}

/// Binding strength of a node as an operand: larger binds tighter.
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Unary { .. } => classad_syntax::ast::UNARY_PRECEDENCE,
        ExprKind::Conditional { .. } | ExprKind::Elvis { .. } => {
            classad_syntax::ast::CONDITIONAL_PRECEDENCE
        }
        _ => 100,
    }
}

/// `e`, parenthesised unless it binds at least as tightly as `min`.
fn at_least(e: Expr, min: u8) -> Expr {
    if precedence(&e) >= min {
        e
    } else {
        node(ExprKind::Paren(Box::new(e)))
    }
}

/// `e` as the base of `.name` or `[i]`: an atom that is not a number.
fn postfix_base(e: Expr) -> Expr {
    let atom = match &e.kind {
        ExprKind::Literal(Literal::Integer(_) | Literal::Real(_)) => false,
        _ => precedence(&e) == 100,
    };
    if atom {
        e
    } else {
        node(ExprKind::Paren(Box::new(e)))
    }
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let p = op.precedence();
    node(ExprKind::Binary {
        op,
        lhs: Box::new(at_least(lhs, p)),
        rhs: Box::new(at_least(rhs, p + 1)),
    })
}

fn unary(op: UnaryOp, operand: Expr) -> Expr {
    node(ExprKind::Unary {
        op,
        operand: Box::new(at_least(operand, classad_syntax::ast::UNARY_PRECEDENCE)),
    })
}

fn conditional(cond: Expr, then: Expr, otherwise: Expr) -> Expr {
    node(ExprKind::Conditional {
        cond: Box::new(at_least(cond, 2)),
        then: Box::new(at_least(then, 2)),
        otherwise: Box::new(otherwise),
    })
}

/// `e` as an operand of elvis: an atom, and not a negative number.
///
/// HTCondor parses an adjacent `?:` as a *postfix* operator whose right
/// side is a postfix expression (`10 ?: 2 + 3` is `(10 ?: 2) + 3`, and
/// `x ?: -1` does not parse); our parser now does the same. Operands are
/// still parenthesised, and so is an elvis wherever it is an operand (see
/// [`precedence`]): that reads the same under either rule.
fn elvis_operand(e: Expr) -> Expr {
    let atom = match &e.kind {
        ExprKind::Literal(Literal::Integer(i)) => *i >= 0,
        ExprKind::Literal(Literal::Real(r)) => r.is_sign_positive(),
        _ => precedence(&e) == 100,
    };
    if atom {
        e
    } else {
        node(ExprKind::Paren(Box::new(e)))
    }
}

fn elvis(value: Expr, fallback: Expr) -> Expr {
    node(ExprKind::Elvis {
        value: Box::new(elvis_operand(value)),
        fallback: Box::new(elvis_operand(fallback)),
    })
}

fn select(base: Expr, attr: &str) -> Expr {
    node(ExprKind::Select {
        base: Box::new(postfix_base(base)),
        name: name(attr),
    })
}

fn subscript(base: Expr, index: Expr) -> Expr {
    node(ExprKind::Subscript {
        base: Box::new(postfix_base(base)),
        index: Box::new(index),
    })
}

/// `text` with each `?:` token outside string literals and quoted names
/// spelled at random as HTCondor's lexer also reads it, with white space
/// between `?` and `:` (issue 12: `10 ? : 2 + 3` is the postfix elvis, 13).
fn respell_elvis(text: &str, rng: &mut Rng) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                out.push(c);
            }
            '?' if chars.peek() == Some(&':') => {
                chars.next();
                out.push_str(rng.pick_str(&["?:", "? :", "?\t:", "?  :"]));
            }
            _ => out.push(c),
        }
    }
    out
}

/// `[a = e; b = unparse(a)].b`: the text HTCondor writes for `e`.
fn unparse_of(e: Expr) -> Expr {
    let mut ad = AdExpr::new();
    ad.insert(Name::new("a"), e);
    ad.insert(
        Name::new("b"),
        call(
            "unparse",
            vec![Expr::new(ExprKind::Attribute(Name::new("a")))],
        ),
    );
    Expr::new(ExprKind::Select {
        base: Box::new(Expr::new(ExprKind::Ad(Box::new(ad)))),
        name: Name::new("b"),
    })
}

fn call(function: &str, args: Vec<Expr>) -> Expr {
    node(ExprKind::Call {
        name: name(function),
        args,
    })
}

impl Generator {
    /// A generator for `seed`.
    pub fn new(seed: u64, options: GenOptions) -> Generator {
        Generator {
            rng: Rng::new(seed),
            options,
            scopes: Vec::new(),
            target_names: Vec::new(),
        }
    }

    /// The random source, for callers that vary their own choices.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// The next expression that parses, as text.
    pub fn next_text(&mut self) -> String {
        self.next_expr().0
    }

    /// The next expression that parses: its text, and the tree parsed
    /// from that text (exactly what an evaluator reading the text sees).
    /// The text is the canonical unparse of that tree, so that a literal
    /// folded by the parser (` -1` to `-1`) is written folded.
    pub fn next_expr(&mut self) -> (String, Expr) {
        if self.options.outside && self.rng.chance(60) {
            // The text is returned whether or not this library reads it; the
            // tree is the one read from it, or `error` where it is refused.
            let text = self.outside_text(self.options.max_depth.min(3));
            let text = if self.rng.chance(40) {
                respell_spacing(&text, &mut self.rng)
            } else {
                text
            };
            let tree = classad_syntax::parse_expression(&text).unwrap_or(lit(Literal::Error));
            return (text, tree);
        }
        loop {
            let expr = self.expression();
            let text = classad_syntax::unparse(&expr);
            // Parsed twice: the canonical text of a time literal whose year
            // is below 1000 reads back as another time (as in HTCondor), so
            // the tree returned is the one read from the text returned.
            if let Ok(parsed) = classad_syntax::parse_expression(&text) {
                let mut text = classad_syntax::unparse(&parsed);
                if self.options.text {
                    text = respell_elvis(&text, &mut self.rng);
                }
                if let Ok(reparsed) = classad_syntax::parse_expression(&text) {
                    if self.options.wild {
                        // The respelled text is returned whether or not this
                        // library reads it (that is what it tests); the tree
                        // is the one it was respelled from.
                        return (respell_wild(&text, &mut self.rng), reparsed);
                    }
                    return (text, reparsed);
                }
            }
        }
    }

    /// A raw generated tree (not checked to parse back).
    pub fn expression(&mut self) -> Expr {
        let depth = self.options.max_depth;
        if self.scopes.is_empty() && self.rng.chance(35) {
            // A selection from an ad literal: the context ad is empty, so
            // this is where references get exercised.
            let ad = self.ad_literal(depth.saturating_sub(1));
            let names = ad_names(&ad);
            let attr = self.pick_name(&names);
            // (No `[...]["name"]` here: HTCondor loses the scope of an ad
            // obtained that way, docs/semantics.md section 9.)
            return match self.rng.below(6) {
                0 | 1 => {
                    let inner = self.attr_ref_chain(&names);
                    select(ad, &attr).then_select(inner)
                }
                _ => select(ad, &attr),
            };
        }
        let ty = *self.rng.pick(&TYPES);
        self.typed(ty, depth)
    }

    /// Two ads for a match (MY, TARGET) and the names each defines. Their
    /// attributes refer to each other with bare names, `MY.` and `TARGET.`.
    pub fn match_ads(&mut self) -> (AdExpr, AdExpr) {
        loop {
            let my_names = self.fresh_names();
            let target_names = self.fresh_names();
            let my = self.top_ad(&my_names, &target_names);
            let target = self.top_ad(&target_names, &my_names);
            let (Ok(my), Ok(target)) = (
                classad_syntax::parse_ad(&classad_syntax::unparse_ad(&my)),
                classad_syntax::parse_ad(&classad_syntax::unparse_ad(&target)),
            ) else {
                continue;
            };
            return (my, target);
        }
    }

    /// An expression to evaluate in `my` against `target` (names as
    /// [`Generator::match_ads`] made them), as parsed from its text.
    pub fn match_expr(&mut self, my: &AdExpr, target: &AdExpr) -> (String, Expr) {
        self.scopes = vec![ad_expr_names(my)];
        self.target_names = ad_expr_names(target);
        let result = loop {
            let ty = *self.rng.pick(&TYPES);
            let expr = self.typed(ty, self.options.max_depth);
            let text = classad_syntax::unparse(&expr);
            if let Ok(parsed) = classad_syntax::parse_expression(&text) {
                break (classad_syntax::unparse(&parsed), parsed);
            }
        };
        self.scopes.clear();
        self.target_names.clear();
        result
    }

    fn top_ad(&mut self, names: &[String], other: &[String]) -> AdExpr {
        self.scopes = vec![names.to_vec()];
        self.target_names = other.to_vec();
        let mut ad = AdExpr::new();
        for n in names {
            let ty = *self.rng.pick(&TYPES);
            let value = self.typed(ty, 2);
            ad.insert(name(n), value);
        }
        self.scopes.clear();
        self.target_names.clear();
        ad
    }

    /// One to four distinct (ignoring case) attribute names, sometimes
    /// one that shadows a special name.
    fn fresh_names(&mut self) -> Vec<String> {
        let n = 1 + self.rng.below(4);
        let mut names: Vec<String> = Vec::new();
        for _ in 0..n {
            let candidate = if self.rng.chance(6) {
                (*self.rng.pick(&SHADOWS)).to_string()
            } else {
                (*self.rng.pick(&NAMES)).to_string()
            };
            if !names.iter().any(|m| m.eq_ignore_ascii_case(&candidate)) {
                names.push(candidate);
            }
        }
        names
    }

    fn pick_name(&mut self, names: &[String]) -> String {
        if names.is_empty() || self.rng.chance(10) {
            (*self.rng.pick(&NAMES)).to_string()
        } else {
            let n = self.rng.pick(names).clone();
            // Same name, other case.
            if self.rng.chance(15) {
                n.to_ascii_uppercase()
            } else {
                n
            }
        }
    }

    /// An optional further name to select after a selection.
    fn attr_ref_chain(&mut self, names: &[String]) -> Option<String> {
        if self.rng.chance(50) {
            Some(self.pick_name(names))
        } else {
            Some((*self.rng.pick(&SPECIALS)).to_string()).filter(|_| self.rng.chance(30))
        }
    }

    /// A subtree of type `ty`, at most `depth` operators deep.
    fn typed(&mut self, ty: Ty, depth: u32) -> Expr {
        // A share of ill-typed operands, to reach the error paths.
        let ty = if self.rng.chance(7) { Ty::Any } else { ty };
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        // References and the generic forms fit every type.
        match self.rng.below(20) {
            0 | 1 => return self.reference(d),
            2 => {
                let c = self.typed(Ty::Bool, d);
                let a = self.typed(ty, d);
                let b = self.typed(ty, d);
                return conditional(c, a, b);
            }
            3 => {
                let v = if self.rng.chance(50) {
                    self.reference(d)
                } else {
                    self.typed(Ty::Any, d)
                };
                let f = self.typed(ty, d);
                return elvis(v, f);
            }
            4 if self.rng.chance(30) => {
                let inner = self.typed(ty, d);
                return node(ExprKind::Paren(Box::new(inner)));
            }
            5 if self.options.calls => return self.call(ty, d),
            6 | 7 if self.options.text => return self.text_form(ty, d),
            8..=10 if self.options.library => return self.library_form(ty, d),
            11..=13 if self.options.odd => return self.odd_form(d),
            14..=16 if self.options.wild => return self.wild_form(ty, d),
            _ => {}
        }
        match ty {
            Ty::Int => self.int_expr(d),
            Ty::Real => self.real_expr(d),
            Ty::Bool => self.bool_expr(d),
            Ty::Str => self.str_expr(d),
            Ty::List => self.list_expr(d),
            Ty::Ad => self.ad_expr(d),
            Ty::Any => {
                let ty = *self.rng.pick(&TYPES[..6]);
                self.typed(ty, depth)
            }
        }
    }

    /// An integer operand (sometimes a boolean, which arithmetic promotes).
    fn intish(&mut self, d: u32) -> Expr {
        if self.rng.chance(10) {
            self.typed(Ty::Bool, d)
        } else {
            self.typed(Ty::Int, d)
        }
    }

    fn num(&mut self, d: u32) -> Expr {
        match self.rng.below(5) {
            0 | 1 => self.typed(Ty::Real, d),
            4 => self.typed(Ty::Bool, d),
            _ => self.typed(Ty::Int, d),
        }
    }

    fn int_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(10) {
            0..=3 => {
                let op = *self.rng.pick(&[
                    BinaryOp::Add,
                    BinaryOp::Subtract,
                    BinaryOp::Multiply,
                    BinaryOp::Divide,
                    BinaryOp::Modulo,
                ]);
                let (l, r) = (self.intish(d), self.intish(d));
                binary(op, l, r)
            }
            4..=6 => {
                let op = *self.rng.pick(&[
                    BinaryOp::BitAnd,
                    BinaryOp::BitOr,
                    BinaryOp::BitXor,
                    BinaryOp::ShiftLeft,
                    BinaryOp::ShiftRight,
                    BinaryOp::ShiftRightUnsigned,
                ]);
                let (l, r) = (self.typed(Ty::Int, d), self.typed(Ty::Int, d));
                binary(op, l, r)
            }
            7 => {
                let op = *self
                    .rng
                    .pick(&[UnaryOp::Minus, UnaryOp::Plus, UnaryOp::BitNot]);
                let operand = self.typed(Ty::Int, d);
                unary(op, operand)
            }
            _ => {
                // An element of a list of integers, index in or out of range.
                let n = self.rng.below(4);
                let items = (0..n).map(|_| self.typed(Ty::Int, d.min(1))).collect();
                let index = self.index(n);
                subscript(node(ExprKind::List(items)), index)
            }
        }
    }

    fn index(&mut self, len: usize) -> Expr {
        let i = match self.rng.below(8) {
            0 => -1,
            1 => len as i64,
            2 => 4_294_967_296,
            3 => i64::MIN,
            _ => self.rng.below(len.max(1)) as i64,
        };
        lit(Literal::Integer(i))
    }

    fn real_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(6) {
            0..=3 => {
                let op = *self.rng.pick(&[
                    BinaryOp::Add,
                    BinaryOp::Subtract,
                    BinaryOp::Multiply,
                    BinaryOp::Divide,
                    BinaryOp::Modulo,
                ]);
                let real = self.typed(Ty::Real, d);
                let other = self.num(d);
                if self.rng.chance(50) {
                    binary(op, real, other)
                } else {
                    binary(op, other, real)
                }
            }
            _ => {
                let op = *self.rng.pick(&[UnaryOp::Minus, UnaryOp::Plus]);
                let operand = self.typed(Ty::Real, d);
                unary(op, operand)
            }
        }
    }

    fn bool_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(10) {
            0..=2 => {
                let op = *self.rng.pick(&[
                    BinaryOp::Equal,
                    BinaryOp::NotEqual,
                    BinaryOp::Less,
                    BinaryOp::LessEqual,
                    BinaryOp::Greater,
                    BinaryOp::GreaterEqual,
                ]);
                let (l, r) = if self.rng.chance(30) {
                    (self.typed(Ty::Str, d), self.typed(Ty::Str, d))
                } else {
                    (self.num(d), self.num(d))
                };
                binary(op, l, r)
            }
            3 | 4 => {
                let op = *self.rng.pick(&[BinaryOp::Is, BinaryOp::Isnt]);
                let ty = *self.rng.pick(&TYPES);
                let l = self.typed(ty, d);
                let r = if self.rng.chance(50) {
                    self.typed(ty, d)
                } else {
                    self.typed(Ty::Any, d)
                };
                binary(op, l, r)
            }
            5..=7 => {
                let op = *self.rng.pick(&[BinaryOp::And, BinaryOp::Or]);
                let l = self.truthy(d);
                let r = self.truthy(d);
                binary(op, l, r)
            }
            _ => {
                let operand = self.truthy(d);
                unary(UnaryOp::Not, operand)
            }
        }
    }

    /// An operand of `&&`, `||`, `!`: mostly booleans, sometimes numbers.
    fn truthy(&mut self, d: u32) -> Expr {
        match self.rng.below(10) {
            0 => self.typed(Ty::Int, d),
            1 => self.typed(Ty::Real, d),
            _ => self.typed(Ty::Bool, d),
        }
    }

    fn str_expr(&mut self, d: u32) -> Expr {
        // Few operators produce strings without calls: conditionals,
        // elvis, subscripts and selections do.
        match self.rng.below(3) {
            0 => {
                let n = 1 + self.rng.below(3);
                let items = (0..n).map(|_| self.typed(Ty::Str, d.min(1))).collect();
                let index = self.index(n);
                subscript(node(ExprKind::List(items)), index)
            }
            1 => {
                let c = self.typed(Ty::Bool, d);
                let a = self.typed(Ty::Str, d);
                let b = self.typed(Ty::Str, d);
                conditional(c, a, b)
            }
            _ => {
                let a = self.str_leaf();
                let attr = (*self.rng.pick(&NAMES)).to_string();
                let ad = self.ad_with(&[(attr.clone(), a)], d);
                select(ad, &attr)
            }
        }
    }

    fn list_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(4) {
            0 => {
                // Selection on a list of ads.
                let n = self.rng.below(4);
                let items = (0..n)
                    .map(|_| {
                        if self.rng.chance(80) {
                            self.ad_literal(d.min(1))
                        } else {
                            self.typed(Ty::Any, 0)
                        }
                    })
                    .collect();
                let attr = (*self.rng.pick(&NAMES)).to_string();
                select(node(ExprKind::List(items)), &attr)
            }
            _ => {
                let n = self.rng.below(4);
                let ty = *self.rng.pick(&TYPES);
                let items = (0..n).map(|_| self.typed(ty, d)).collect();
                node(ExprKind::List(items))
            }
        }
    }

    fn ad_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(5) {
            0 => {
                // An ad-valued attribute of an ad literal.
                let inner = self.ad_literal(d);
                let attr = (*self.rng.pick(&NAMES)).to_string();
                let outer = self.ad_with(&[(attr.clone(), inner)], d);
                select(outer, &attr)
            }
            _ => self.ad_literal(d),
        }
    }

    /// An ad literal with fresh names, attributes generated in its scope.
    fn ad_literal(&mut self, d: u32) -> Expr {
        let names = self.fresh_names();
        self.scopes.push(names.clone());
        let mut ad = AdExpr::new();
        for n in &names {
            let value = if d == 0 {
                self.leaf(Ty::Any)
            } else {
                let ty = *self.rng.pick(&TYPES);
                self.typed(ty, d)
            };
            ad.insert(name(n), value);
        }
        self.scopes.pop();
        node(ExprKind::Ad(Box::new(ad)))
    }

    /// An ad literal holding `fixed` and some generated attributes.
    fn ad_with(&mut self, fixed: &[(String, Expr)], d: u32) -> Expr {
        let mut names = self.fresh_names();
        names.retain(|n| !fixed.iter().any(|(f, _)| f.eq_ignore_ascii_case(n)));
        let mut all: Vec<String> = names.clone();
        all.extend(fixed.iter().map(|(n, _)| n.clone()));
        self.scopes.push(all);
        let mut ad = AdExpr::new();
        for n in &names {
            let ty = *self.rng.pick(&TYPES);
            let value = self.typed(ty, d.min(1));
            ad.insert(name(n), value);
        }
        for (n, e) in fixed {
            ad.insert(name(n), e.clone());
        }
        self.scopes.pop();
        node(ExprKind::Ad(Box::new(ad)))
    }

    /// A reference: a name in scope (or not), a special name, `.x`,
    /// `MY.x`, `TARGET.x`, `parent.x`, ..., a selection or a subscript.
    fn reference(&mut self, d: u32) -> Expr {
        let visible: Vec<String> = self.scopes.iter().flatten().cloned().collect();
        match self.rng.below(12) {
            0..=3 => {
                let n = self.pick_name(&visible);
                node(ExprKind::Attribute(name(&n)))
            }
            4 => node(ExprKind::Attribute(name(self.rng.pick_str(&SPECIALS)))),
            5 => {
                let n = self.pick_name(&visible);
                node(ExprKind::RootAttribute(name(&n)))
            }
            6 | 7 => {
                let base = *self.rng.pick(&SPECIALS);
                let n = if base.eq_ignore_ascii_case("target") && !self.target_names.is_empty() {
                    let names = self.target_names.clone();
                    self.pick_name(&names)
                } else {
                    self.pick_name(&visible)
                };
                select(node(ExprKind::Attribute(name(base))), &n)
            }
            8 => {
                // A selection of an attribute, maybe of a nested ad.
                let n = self.pick_name(&visible);
                let base = node(ExprKind::Attribute(name(&n)));
                let m = self.pick_name(&visible);
                select(base, &m)
            }
            9 => {
                let n = self.pick_name(&visible);
                let key = if self.rng.chance(20) {
                    n.to_ascii_uppercase()
                } else {
                    n
                };
                let base = node(ExprKind::Attribute(name(
                    self.rng.pick_str(&["self", "parent", "root", "MY"]),
                )));
                subscript(base, lit(Literal::String(key.into_bytes().into())))
            }
            10 => {
                let n = self.pick_name(&visible);
                let base = node(ExprKind::Attribute(name(&n)));
                let index = if self.rng.chance(50) {
                    self.index(2)
                } else {
                    self.typed(Ty::Int, d.min(1))
                };
                subscript(base, index)
            }
            _ => {
                // An ad literal inside the current one, referring outward.
                let inner = self.ad_literal(d.min(1));
                let names = ad_names(&inner);
                let n = self.pick_name(&names);
                select(inner, &n)
            }
        }
    }

    fn call(&mut self, ty: Ty, d: u32) -> Expr {
        match ty {
            Ty::Int => {
                let arg = match self.rng.below(3) {
                    0 => self.typed(Ty::Str, d),
                    1 => self.typed(Ty::List, d),
                    _ => self.typed(Ty::Ad, d),
                };
                call("size", vec![arg])
            }
            Ty::Real => {
                let arg = match self.rng.below(4) {
                    0 => lit(Literal::String(
                        self.rng
                            .pick(&[&b"NaN"[..], b"INF", b"-INF", b"1e3", b"x", b" 2.5"])
                            .to_vec()
                            .into(),
                    )),
                    _ => self.num(d),
                };
                call(if self.rng.chance(80) { "real" } else { "REAL" }, vec![arg])
            }
            Ty::Bool => match self.rng.below(if self.options.text { 3 } else { 2 }) {
                0 => {
                    let arg = self.typed(Ty::Any, d);
                    call("isUndefined", vec![arg])
                }
                2 => self.backtracking_regexp(),
                _ => {
                    let item = if self.rng.chance(50) {
                        self.typed(Ty::Str, d)
                    } else {
                        self.num(d)
                    };
                    let list = self.typed(Ty::List, d);
                    call("member", vec![item, list])
                }
            },
            Ty::Str => {
                let n = self.rng.below(4);
                let args = (0..n)
                    .map(|_| {
                        let ty = *self
                            .rng
                            .pick(&[Ty::Str, Ty::Str, Ty::Int, Ty::Real, Ty::Bool]);
                        self.typed(ty, d)
                    })
                    .collect();
                call("strcat", args)
            }
            _ => match self.rng.below(5) {
                0 => {
                    let c = self.typed(Ty::Bool, d);
                    let a = self.typed(ty, d);
                    let b = self.typed(ty, d);
                    call("ifThenElse", vec![c, a, b])
                }
                1 => {
                    let arg = self.num(d);
                    call("relTime", vec![arg])
                }
                2 => {
                    let text = lit(Literal::String(self.rel_time_text().into()));
                    // Mostly the literal HTCondor's parser reads; sometimes
                    // the same string computed at run time, or unparsed.
                    match self.rng.below(6) {
                        0 => call("relTime", vec![call("strcat", vec![text])]),
                        1 => unparse_of(call("relTime", vec![text])),
                        _ => call("relTime", vec![text]),
                    }
                }
                3 => {
                    let text = lit(Literal::String(self.abs_time_text().into()));
                    match self.rng.below(6) {
                        0 => call("absTime", vec![call("strcat", vec![text])]),
                        1 => unparse_of(call("absTime", vec![text])),
                        2 => call("string", vec![call("absTime", vec![text])]),
                        _ => call("absTime", vec![text]),
                    }
                }
                _ => {
                    let arg = self.typed(Ty::Int, d);
                    call("absTime", vec![arg])
                }
            },
        }
    }

    /// `regexp` of a pattern PCRE2 backtracks through exponentially, on a
    /// subject near the length where its match limit makes HTCondor's
    /// answer ERROR (issue 12).
    fn backtracking_regexp(&mut self) -> Expr {
        let (pattern, unit, tail, lengths): (&[u8], &[u8], &[u8], (usize, usize)) =
            *self.rng.pick(&[
                (&b"(a+)+$"[..], &b"a"[..], &b"!"[..], (16, 26)),
                (b"^(a+)+$", b"a", b"b", (16, 26)),
                (b"(?:a+)+$", b"a", b"!", (16, 26)),
                (b"(\\w+)*$", b"a", b"!", (16, 26)),
                (b"^(a|aa)+$", b"a", b"!", (20, 34)),
                (b"(a|a)*c", b"a", b"!", (16, 26)),
                (b"([ab]+)+c", b"ab", b"d", (8, 13)),
                (b"(x+x+)+y", b"x", b"", (10, 30)),
                (b"(A+)+$", b"a", b"!", (16, 26)),
            ]);
        let count = lengths.0 + self.rng.below(lengths.1 - lengths.0 + 1);
        let mut subject = unit.repeat(count);
        subject.extend_from_slice(tail);
        let mut args = vec![
            lit(Literal::String(pattern.to_vec().into())),
            lit(Literal::String(subject.into())),
        ];
        if pattern.contains(&b'A') {
            args.push(lit(Literal::String(b"i".to_vec().into())));
        }
        call("regexp", args)
    }

    fn pick_bytes(&mut self, items: &[&'static [u8]]) -> &'static [u8] {
        let picked: &&'static [u8] = self.rng.pick(items);
        picked
    }

    fn digits(&mut self, most: usize) -> Vec<u8> {
        let n = self.rng.below(most + 1);
        (0..n).map(|_| b'0' + self.rng.below(10) as u8).collect()
    }

    /// The text of a relative time in the forms HTCondor's reader takes
    /// (days with `d` or `+`, units, missing fields, spaces, signs,
    /// fractions), and now and then one it refuses.
    fn rel_time_text(&mut self) -> Vec<u8> {
        let mut text = Vec::new();
        if self.rng.chance(25) {
            text.extend_from_slice(self.pick_bytes(&[b"-", b" -", b"- "]));
        }
        let fields: [(u32, &[&[u8]]); 3] = [
            (40, &[b"d", b"D", b"+", b" + ", b"d "]),
            (50, &[b":", b"h", b"H", b" h "]),
            (50, &[b":", b"m", b"M", b"m "]),
        ];
        for (percent, units) in fields {
            if self.rng.chance(percent) {
                let digits = self.digits(3);
                text.extend_from_slice(&digits);
                text.extend_from_slice(self.pick_bytes(units));
            }
        }
        if self.rng.chance(70) {
            let digits = self.digits(3);
            text.extend_from_slice(&digits);
            if self.rng.chance(30) {
                text.push(b'.');
                let digits = self.digits(3);
                text.extend_from_slice(&digits);
            }
            text.extend_from_slice(self.pick_bytes(&[b"", b"", b"s", b"S", b" s"]));
        }
        if self.rng.chance(5) {
            text.extend_from_slice(self.pick_bytes(&[b"x", b"1.5m", b" 1 2", b"::"]));
        }
        text
    }

    /// The text of an absolute time in the forms HTCondor's reader takes
    /// (any separators, short fields, zones `Z`, `±HHMM`, `±HH:MM`), and
    /// now and then one it refuses.
    fn abs_time_text(&mut self) -> Vec<u8> {
        let mut text = Vec::new();
        let year: &[u8] = self.pick_bytes(&[
            &b"2003"[..],
            b"1970",
            b"1969",
            b"2038",
            b"0001",
            b"9999",
            b"-0001",
            b"2012",
        ]);
        text.extend_from_slice(year);
        let separator: &[u8] = self.pick_bytes(&[&b"-"[..], b"/", b"", b" ", b"."]);
        let fields = self.rng.below(6);
        for field in 0..fields {
            let between: &[u8] = if field < 2 {
                separator
            } else {
                self.pick_bytes(&[b"T", b" ", b":", b"", b"  "])
            };
            text.extend_from_slice(between);
            let width = *self.rng.pick(&[2, 2, 2, 1, 3]);
            let digits = (0..width)
                .map(|_| b'0' + self.rng.below(10) as u8)
                .collect::<Vec<u8>>();
            text.extend_from_slice(&digits);
        }
        let zone: &[u8] = self.pick_bytes(&[
            &b""[..],
            b"Z",
            b"z",
            b" Z",
            b"+0100",
            b"-0600",
            b"+01:00",
            b"-06:30",
            b"-06:0",
            b" ",
        ]);
        text.extend_from_slice(zone);
        text
    }

    /// A string list as users write them, with odd spacing and items.
    fn string_list_text(&mut self) -> Expr {
        let text: &[u8] = self.pick_bytes(&[
            &b"a,b,c"[..],
            b"1, 2 ,3",
            b"",
            b" ",
            b"a;;b",
            b",",
            b"1.5,x,3",
            b"A,a",
            b"10,9,100",
            b"-1,2.5e3",
            b"a b\tc",
            b"abab",
            b"x|y|z",
            b"2.5, -0.0 ,1e308",
        ]);
        lit(Literal::String(text.to_vec().into()))
    }

    /// A delimiter argument of the string-list functions, odd ones too.
    fn delimiter(&mut self) -> Expr {
        let text: &[u8] = self.pick_bytes(&[
            &b","[..],
            b" ",
            b";",
            b", ",
            b"",
            b"ab",
            b"\t",
            b"|",
            b",,",
            b"\n",
            b";,",
        ]);
        lit(Literal::String(text.to_vec().into()))
    }

    /// An absolute time: of seconds, of a literal string, or computed.
    fn abs_time(&mut self, d: u32) -> Expr {
        match self.rng.below(5) {
            0 => {
                let text = lit(Literal::String(self.abs_time_text().into()));
                call("absTime", vec![text])
            }
            1 => {
                let secs = *self.rng.pick(&[
                    0i64,
                    86_400,
                    1_000_000_000,
                    -1,
                    2_147_483_647,
                    2_147_483_648,
                    951_782_400,
                    -86_401,
                ]);
                let args = if self.rng.chance(30) {
                    let zone = *self.rng.pick(&[0i64, 3600, -21_600, 19_800]);
                    vec![lit(Literal::Integer(secs)), lit(Literal::Integer(zone))]
                } else {
                    vec![lit(Literal::Integer(secs))]
                };
                call("absTime", args)
            }
            2 => {
                let base = self.abs_time(0);
                let delta = self.rel_time(0);
                binary(
                    *self.rng.pick(&[BinaryOp::Add, BinaryOp::Subtract]),
                    base,
                    delta,
                )
            }
            _ => {
                // Seconds HTCondor's calendar can hold (a year past the
                // 32-bit range gives garbage there: docs/differences.md).
                let secs = lit(Literal::Integer(
                    (self.rng.next_u64() % 8_000_000_000) as i64 - 2_000_000_000,
                ));
                if d > 0 && self.rng.chance(50) {
                    let delta = self.typed(Ty::Int, 0);
                    let small = binary(BinaryOp::Modulo, delta, lit(Literal::Integer(100_000)));
                    call("absTime", vec![binary(BinaryOp::Add, secs, small)])
                } else {
                    call("absTime", vec![secs])
                }
            }
        }
    }

    /// A list whose elements HTCondor makes literals of values: a
    /// selection over a list of ads, or `evalInEachContext` (a relative
    /// time's literal is a real that prints as a relative time; class 2 of
    /// tests/gen/known_bugs.txt, since fixed).
    fn literal_list(&mut self, d: u32) -> Expr {
        let ads: Vec<Expr> = (0..1 + self.rng.below(3))
            .map(|_| {
                let value = match self.rng.below(4) {
                    0 | 1 => self.rel_time(d.min(1)),
                    2 => self.abs_time(d.min(1)),
                    _ => self.leaf(Ty::Real),
                };
                let mut ad = AdExpr::new();
                ad.insert(name("P"), value);
                node(ExprKind::Ad(Box::new(ad)))
            })
            .collect();
        let list = node(ExprKind::List(ads));
        if self.rng.chance(50) {
            select(list, "P")
        } else {
            call(
                "evalInEachContext",
                vec![node(ExprKind::Attribute(name("P"))), list],
            )
        }
    }

    /// A relative time: of seconds, of a literal string, or computed.
    fn rel_time(&mut self, d: u32) -> Expr {
        match self.rng.below(4) {
            0 => {
                let text = lit(Literal::String(self.rel_time_text().into()));
                call("relTime", vec![text])
            }
            1 => {
                let secs = *self.rng.pick(&[0.0, 59.5, 3600.0, 90061.0, -1.5, 1e10]);
                call("relTime", vec![lit(Literal::Real(secs))])
            }
            2 if d > 0 => {
                let a = self.abs_time(d - 1);
                let b = self.abs_time(d - 1);
                binary(BinaryOp::Subtract, a, b)
            }
            _ => {
                let arg = self.num(d.min(1));
                call("relTime", vec![arg])
            }
        }
    }

    /// `value`, or (often) a reference to it: an attribute of an ad
    /// around the use, through `MY.`, `self.`, a nested ad or `ad["name"]`.
    /// The ad is returned to wrap the use in, with the name to select.
    fn bind(&mut self, value: Expr, bound: &mut Vec<(String, Expr)>) -> Expr {
        if !self.rng.chance(60) {
            return value;
        }
        let n = format!("v{}", bound.len());
        let reference = match self.rng.below(6) {
            0 | 1 => node(ExprKind::Attribute(name(&n))),
            2 => select(node(ExprKind::Attribute(name("MY"))), &n),
            3 => select(node(ExprKind::Attribute(name("self"))), &n),
            4 => {
                // Through a nested ad written where the use is.
                let inner = node(ExprKind::Ad(Box::new({
                    let mut ad = AdExpr::new();
                    ad.insert(name("w"), node(ExprKind::Attribute(name(&n))));
                    ad
                })));
                select(inner, "w")
            }
            _ => subscript(
                node(ExprKind::Attribute(name(
                    self.rng.pick_str(&["self", "MY", "root"]),
                ))),
                lit(Literal::String(n.clone().into_bytes().into())),
            ),
        };
        bound.push((n, value));
        reference
    }

    /// `use` in an ad holding the bound attributes, selected back out.
    fn wrap_bound(&mut self, use_: Expr, bound: Vec<(String, Expr)>) -> Expr {
        if bound.is_empty() {
            return use_;
        }
        let mut ad = AdExpr::new();
        for (n, e) in bound {
            ad.insert(name(&n), e);
        }
        ad.insert(name("r"), use_);
        select(node(ExprKind::Ad(Box::new(ad))), "r")
    }

    /// A call of `function` whose arguments are bound (see [`Self::bind`]).
    fn call_bound(&mut self, function: &str, args: Vec<Expr>) -> Expr {
        let mut bound = Vec::new();
        let args = args.into_iter().map(|a| self.bind(a, &mut bound)).collect();
        let use_ = call(function, args);
        self.wrap_bound(use_, bound)
    }

    /// The forms of [`GenOptions::library`].
    fn library_form(&mut self, ty: Ty, d: u32) -> Expr {
        let e = d.min(2);
        match ty {
            Ty::Str => match self.rng.below(10) {
                0 => {
                    let s = self.typed(Ty::Str, e);
                    let i = self.typed(Ty::Int, 0);
                    let mut args = vec![s, i];
                    if self.rng.chance(50) {
                        args.push(self.typed(Ty::Int, 0));
                    }
                    self.call_bound("substr", args)
                }
                1 => {
                    let t = if self.rng.chance(70) {
                        self.abs_time(e)
                    } else {
                        let secs = *self
                            .rng
                            .pick(&[0i64, -1, 86_399, 951_782_400, 4_102_444_800]);
                        lit(Literal::Integer(secs))
                    };
                    let format: &[u8] = self.pick_bytes(&[
                        &b"%Y-%m-%d %H:%M:%S"[..],
                        b"%c",
                        b"%A %B %d",
                        b"%j %U %w",
                        b"%%%y",
                        b"%e %I %p",
                        b"%s",
                        b"",
                        b"%",
                    ]);
                    let mut args = vec![t];
                    if self.rng.chance(80) {
                        args.push(lit(Literal::String(format.to_vec().into())));
                    }
                    self.call_bound("formatTime", args)
                }
                2 => {
                    let t = if self.rng.chance(60) {
                        self.rel_time(e)
                    } else {
                        self.num(0)
                    };
                    self.call_bound("interval", vec![t])
                }
                3 => {
                    let list = self.list_expr(e);
                    let mut args = vec![list];
                    if self.rng.chance(70) {
                        args.insert(0, self.delimiter());
                    }
                    self.call_bound("join", args)
                }
                4 => {
                    let target = self.typed(Ty::Str, e);
                    let (pattern, subst): (&[u8], &[u8]) = *self.rng.pick(&[
                        (&b"a"[..], &b"o"[..]),
                        (b"(b)(c)?", b"\\2\\1"),
                        (b"^", b"x"),
                        (b"[A-Z]+", b"<\\0>"),
                        (b"$", b"!"),
                    ]);
                    let function = self.rng.pick_str(&["replace", "replaceAll", "regexps"]);
                    let mut args = vec![
                        lit(Literal::String(pattern.to_vec().into())),
                        target,
                        lit(Literal::String(subst.to_vec().into())),
                    ];
                    if self.rng.chance(30) {
                        let opts: &[u8] = self.pick_bytes(&[&b"i"[..], b"g", b"ig", b"x"]);
                        args.push(lit(Literal::String(opts.to_vec().into())));
                    }
                    self.call_bound(function, args)
                }
                5 => {
                    let arg = match self.rng.below(3) {
                        0 => self.abs_time(e),
                        1 => self.rel_time(e),
                        _ => self.typed(Ty::Any, e),
                    };
                    let function = self
                        .rng
                        .pick_str(&["string", "toUpper", "toLower", "strcat"]);
                    self.call_bound(function, vec![arg])
                }
                6 => {
                    // unparse of a reference to an attribute, or of an expression.
                    let value = self.typed(Ty::Any, e);
                    let mut bound = vec![("v0".to_string(), value)];
                    let reference = match self.rng.below(3) {
                        0 => node(ExprKind::Attribute(name("v0"))),
                        1 => select(node(ExprKind::Attribute(name("MY"))), "v0"),
                        _ => binary(
                            BinaryOp::Add,
                            node(ExprKind::Attribute(name("v0"))),
                            self.leaf(Ty::Int),
                        ),
                    };
                    let use_ = call("unparse", vec![reference]);
                    let _ = &mut bound;
                    self.wrap_bound(use_, bound)
                }
                7 => {
                    let s = self.string_list_text();
                    let function = self
                        .rng
                        .pick_str(&["splitUserName", "splitSlotName", "split"]);
                    let list = self.call_bound(function, vec![s]);
                    subscript(list, self.index(2))
                }
                _ => {
                    let a = self.typed(Ty::Str, e);
                    let b = self.typed(Ty::Str, e);
                    let c = self.typed(Ty::Bool, e);
                    self.call_bound("ifThenElse", vec![c, a, b])
                }
            },
            Ty::Int => match self.rng.below(8) {
                0 => {
                    let mut args = vec![self.string_list_text()];
                    if self.rng.chance(70) {
                        args.push(self.delimiter());
                    }
                    self.call_bound("stringListSize", args)
                }
                1 => {
                    let a = self.typed(Ty::Str, e);
                    let b = self.typed(Ty::Str, e);
                    let function = self.rng.pick_str(&["strcmp", "stricmp", "versioncmp"]);
                    self.call_bound(function, vec![a, b])
                }
                2 => {
                    let arg = match self.rng.below(4) {
                        0 => self.abs_time(e),
                        1 => self.rel_time(e),
                        2 => self.typed(Ty::Str, e),
                        _ => self.typed(Ty::Real, e),
                    };
                    let function = self.rng.pick_str(&["int", "floor", "ceiling", "round"]);
                    self.call_bound(function, vec![arg])
                }
                3 => {
                    let t = self.abs_time(e);
                    let function = self.rng.pick_str(&[
                        "getYear",
                        "getMonth",
                        "getDayOfYear",
                        "getDayOfMonth",
                        "getDayOfWeek",
                        "getHours",
                        "getMinutes",
                        "getSeconds",
                    ]);
                    self.call_bound(function, vec![t])
                }
                4 => {
                    let t = self.rel_time(e);
                    let function =
                        self.rng
                            .pick_str(&["getDays", "getHours", "getMinutes", "getSeconds"]);
                    self.call_bound(function, vec![t])
                }
                5 => {
                    let arg = match self.rng.below(3) {
                        0 => self.list_expr(e),
                        1 => self.typed(Ty::Str, e),
                        _ => self.ad_literal(e.min(1)),
                    };
                    self.call_bound("size", vec![arg])
                }
                6 => {
                    // eval of a string that names attributes.
                    let text: &[u8] = self.pick_bytes(&[
                        &b"v0 + 1"[..],
                        b"v0",
                        b"MY.v0 * 2",
                        b"size(v0)",
                        b"v0 ?: 7",
                        b"[q = v0].q",
                        b"v0 +",
                        b"r",
                    ]);
                    let value = self.typed(Ty::Any, e);
                    let use_ = call("eval", vec![lit(Literal::String(text.to_vec().into()))]);
                    self.wrap_bound(use_, vec![("v0".to_string(), value)])
                }
                _ => {
                    let arg = self.typed(Ty::Any, e);
                    let function = self.rng.pick_str(&["sum", "min", "max"]);
                    let list = node(ExprKind::List(vec![arg, self.leaf(Ty::Int)]));
                    self.call_bound(function, vec![list])
                }
            },
            Ty::Real => match self.rng.below(5) {
                0 | 1 => {
                    let mut args = vec![self.string_list_text()];
                    if self.rng.chance(70) {
                        args.push(self.delimiter());
                    }
                    let function = self.rng.pick_str(&[
                        "stringListSum",
                        "stringListAvg",
                        "stringListMin",
                        "stringListMax",
                    ]);
                    self.call_bound(function, args)
                }
                2 => {
                    let a = self.num(e);
                    let b = self.num(e);
                    let function = self.rng.pick_str(&["pow", "quantize"]);
                    self.call_bound(function, vec![a, b])
                }
                3 => {
                    let list = self.list_expr(e);
                    self.call_bound("avg", vec![list])
                }
                _ => {
                    let arg = match self.rng.below(3) {
                        0 => self.abs_time(e),
                        1 => self.rel_time(e),
                        _ => self.typed(Ty::Any, e),
                    };
                    self.call_bound("real", vec![arg])
                }
            },
            Ty::Bool => match self.rng.below(7) {
                0 | 1 => {
                    let item = if self.rng.chance(50) {
                        self.typed(Ty::Str, e)
                    } else {
                        self.str_leaf()
                    };
                    let mut args = vec![item, self.string_list_text()];
                    if self.rng.chance(70) {
                        args.push(self.delimiter());
                    }
                    let function = self.rng.pick_str(&[
                        "stringListMember",
                        "stringListIMember",
                        "stringListSubsetMatch",
                        "stringListISubsetMatch",
                        "stringListsIntersect",
                    ]);
                    if function.starts_with("stringLists") || function.ends_with("SubsetMatch") {
                        args[0] = self.string_list_text();
                    }
                    self.call_bound(function, args)
                }
                2 => {
                    let v = self.typed(Ty::Any, e);
                    let list = self.list_expr(e);
                    let function = self.rng.pick_str(&["member", "identicalMember"]);
                    self.call_bound(function, vec![v, list])
                }
                3 => {
                    let op: &[u8] =
                        self.pick_bytes(&[&b"<"[..], b"==", b"=?=", b"isnt", b">=", b"!=", b"bad"]);
                    let list = self.list_expr(e);
                    let v = self.typed(Ty::Any, e);
                    let function = self.rng.pick_str(&["anyCompare", "allCompare"]);
                    self.call_bound(
                        function,
                        vec![lit(Literal::String(op.to_vec().into())), list, v],
                    )
                }
                4 => {
                    let (pattern, target): (&[u8], Expr) = (
                        // Besides the plain forms: an option setting that ends
                        // with its group (and goes on into the group's later
                        // alternatives), extended-mode white space PCRE2 skips
                        // and the engine did not (VT), a back reference
                        // numbered from 8, a repeated assertion.
                        self.pick_bytes(&[
                            &b"^a"[..],
                            b"b+",
                            b"(?i)ABC",
                            b"^$",
                            b"[",
                            b"x|y",
                            b"((?i)a)B",
                            b"(a(?i)b|c)A",
                            b"(?x)a\x0bb",
                            b"\\80",
                            b"(?=a){99}",
                        ]),
                        self.typed(Ty::Str, e),
                    );
                    let mut args = vec![lit(Literal::String(pattern.to_vec().into())), target];
                    if self.rng.chance(30) {
                        args.push(lit(Literal::String(b"i".to_vec().into())));
                    }
                    self.call_bound("regexp", args)
                }
                5 => {
                    let a = self.typed(Ty::Str, e);
                    let b = lit(Literal::String(
                        self.pick_bytes(&[&b"1.2.3"[..], b"1.10", b"2", b"", b"a"])
                            .to_vec()
                            .into(),
                    ));
                    let function = self.rng.pick_str(&["versionGT", "versionLE", "versionEQ"]);
                    self.call_bound(function, vec![a, b])
                }
                _ => {
                    let arg = self.typed(Ty::Any, e);
                    let function = self.rng.pick_str(&[
                        "isString",
                        "isInteger",
                        "isReal",
                        "isList",
                        "isClassAd",
                        "isAbsTime",
                        "isRelTime",
                        "isError",
                    ]);
                    self.call_bound(function, vec![arg])
                }
            },
            Ty::List => match self.rng.below(3) {
                0 => {
                    let mut args = vec![self.string_list_text()];
                    if self.rng.chance(60) {
                        args.push(self.delimiter());
                    }
                    self.call_bound("split", args)
                }
                1 => {
                    // MY. and TARGET. inside a list in a nested ad.
                    let outer_value = self.typed(Ty::Any, 0);
                    let inner_value = self.typed(Ty::Any, 0);
                    let items: Vec<Expr> = (0..1 + self.rng.below(3))
                        .map(|_| match self.rng.below(6) {
                            0 => select(node(ExprKind::Attribute(name("MY"))), "x"),
                            1 => select(node(ExprKind::Attribute(name("TARGET"))), "x"),
                            2 => select(node(ExprKind::Attribute(name("parent"))), "x"),
                            3 => node(ExprKind::Attribute(name("x"))),
                            4 => {
                                let mut ad = AdExpr::new();
                                ad.insert(
                                    name("z"),
                                    select(node(ExprKind::Attribute(name("MY"))), "x"),
                                );
                                select(node(ExprKind::Ad(Box::new(ad))), "z")
                            }
                            _ => {
                                let mut ad = AdExpr::new();
                                ad.insert(name("x"), self.leaf(Ty::Int));
                                ad.insert(
                                    name("z"),
                                    select(node(ExprKind::Attribute(name("TARGET"))), "x"),
                                );
                                node(ExprKind::Ad(Box::new(ad)))
                            }
                        })
                        .collect();
                    let mut inner = AdExpr::new();
                    inner.insert(name("x"), inner_value);
                    inner.insert(name("l"), node(ExprKind::List(items)));
                    let mut outer = AdExpr::new();
                    outer.insert(name("x"), outer_value);
                    if self.rng.chance(40) {
                        let mut target = AdExpr::new();
                        target.insert(name("x"), self.leaf(Ty::Int));
                        outer.insert(name("TARGET"), node(ExprKind::Ad(Box::new(target))));
                    }
                    outer.insert(name("y"), node(ExprKind::Ad(Box::new(inner))));
                    let y = select(node(ExprKind::Ad(Box::new(outer))), "y");
                    match self.rng.below(3) {
                        0 => select(y, "l"),
                        1 => subscript(y, lit(Literal::String(b"l".to_vec().into()))),
                        _ => select(select(y, "l"), "z"),
                    }
                }
                _ => {
                    let c = self.typed(Ty::Bool, e);
                    let a = self.list_expr(e);
                    let b = self.list_expr(e);
                    self.call_bound("ifThenElse", vec![c, a, b])
                }
            },
            Ty::Ad => {
                let t = if self.rng.chance(50) {
                    self.abs_time(e)
                } else {
                    self.rel_time(e)
                };
                self.call_bound("splitTime", vec![t])
            }
            Ty::Any => {
                let ty = *self.rng.pick(&TYPES[..6]);
                self.library_form(ty, d)
            }
        }
    }

    /// A value at an edge of its type, as a literal or a short expression.
    fn odd_value(&mut self) -> Expr {
        let text = *self.rng.pick(&ODD_VALUES);
        classad_syntax::parse_expression(text).unwrap_or_else(|_| lit(Literal::Undefined))
    }

    /// An argument for [`Generator::odd_form`]: mostly an odd value,
    /// sometimes a generated expression of any type.
    fn odd_argument(&mut self, d: u32) -> Expr {
        if self.rng.chance(25) {
            self.typed(Ty::Any, d.min(1))
        } else {
            self.odd_value()
        }
    }

    /// The forms of [`GenOptions::odd`].
    fn odd_form(&mut self, d: u32) -> Expr {
        match self.rng.below(9) {
            0..=2 => {
                let function = *self.rng.pick(&BUILTINS);
                let mut n = self.rng.below(5);
                // Without arguments these read the clock.
                if n == 0 && matches!(function, "absTime" | "formatTime") {
                    n = 1;
                }
                let args = (0..n).map(|_| self.odd_argument(d)).collect();
                call(function, args)
            }
            3 => {
                let arg = self.odd_argument(d);
                call("eval", vec![arg])
            }
            4 => {
                // unresolved(A) in an ad whose attributes refer to each
                // other, outward, through bases of every kind.
                let mut ad = AdExpr::new();
                for n in ["A", "B", "c"] {
                    let value = match self.rng.below(7) {
                        0 => node(ExprKind::Attribute(name(self.rng.pick_str(&ODD_NAMES)))),
                        1 => select(
                            node(ExprKind::Attribute(name(self.rng.pick_str(&ODD_NAMES)))),
                            self.rng.pick_str(&ODD_NAMES),
                        ),
                        2 => node(ExprKind::RootAttribute(name(self.rng.pick_str(&ODD_NAMES)))),
                        3 => {
                            let inner = self.odd_value();
                            select(inner, self.rng.pick_str(&ODD_NAMES))
                        }
                        4 => {
                            let text = self.rng.pick_str(&ODD_DETACHED_ADS);
                            classad_syntax::parse_expression(text)
                                .unwrap_or_else(|_| lit(Literal::Undefined))
                        }
                        _ => {
                            let l = node(ExprKind::Attribute(name(self.rng.pick_str(&ODD_NAMES))));
                            let r = node(ExprKind::Attribute(name(self.rng.pick_str(&ODD_NAMES))));
                            binary(BinaryOp::Add, l, r)
                        }
                    };
                    ad.insert(name(n), value);
                }
                let reference = match self.rng.below(5) {
                    0 => node(ExprKind::Attribute(name(self.rng.pick_str(&ODD_NAMES)))),
                    1 => node(ExprKind::RootAttribute(name("A"))),
                    2 => select(node(ExprKind::Attribute(name("MY"))), "B"),
                    // Through whatever an attribute holds (an ad taken by
                    // ad["name"] among them).
                    3 => select(
                        node(ExprKind::Attribute(name(
                            self.rng.pick_str(&["A", "B", "c"]),
                        ))),
                        self.rng.pick_str(&ODD_NAMES),
                    ),
                    _ => node(ExprKind::Attribute(name("A"))),
                };
                let mut args = vec![reference];
                if self.rng.chance(40) {
                    let pattern = self
                        .rng
                        .pick_str(&["", "a", "A", "^b$", "(", "c|", "x*", ".", "TARGET"]);
                    args.push(lit(Literal::String(pattern.as_bytes().into())));
                }
                ad.insert(name("res"), call("unresolved", args));
                select(node(ExprKind::Ad(Box::new(ad))), "res")
            }
            5 => {
                let n = 2 + self.rng.below(3);
                let args = (0..n).map(|_| self.odd_argument(d)).collect();
                call("userMap", args)
            }
            6 => {
                let prefix = self
                    .rng
                    .pick_str(&["", "|", ",", ";", "*", "!", " ", ".", "\n"]);
                let mut text = prefix.to_string();
                for i in 0..self.rng.below(4) {
                    if i > 0 {
                        text.push_str(self.rng.pick_str(&[";", "|", ",", "\n", " ; "]));
                    }
                    text.push_str(
                        self.rng.pick_str(&[
                            "A=1", "b=x y", "$$(M)", "c", "=d", "e=", "\x0bf=1", "a$$b",
                        ]),
                    );
                }
                let function = self.rng.pick_str(&["envV1ToV2", "mergeEnvironment"]);
                call(
                    function,
                    vec![lit(Literal::String(text.into_bytes().into()))],
                )
            }
            7 => self.selection_chain(),
            _ => {
                // Far years, within the 32-bit years HTCondor computes
                // (beyond them its dates are garbage: docs/differences.md).
                let magnitude = 1i64 << (40 + self.rng.below(16));
                let secs = (self.rng.next_u64() % magnitude as u64) as i64;
                let secs = if self.rng.chance(50) { -secs } else { secs };
                let format = self
                    .rng
                    .pick_str(&["%w %a %U %W %u %j %Y", "%c", "%V %G %g"]);
                call(
                    "formatTime",
                    vec![
                        lit(Literal::Integer(secs)),
                        lit(Literal::String(format.as_bytes().into())),
                    ],
                )
            }
        }
    }

    /// A selection chain `base.y.y...` of a length around HTCondor's
    /// depth limit (400 levels), or far past it or its own parser's old
    /// bound of 2000 (known_bugs.txt class 46), over bases that name
    /// nothing, that select themselves again, MY, self, or an ad literal.
    fn selection_chain(&mut self) -> Expr {
        let links = match self.rng.below(4) {
            0 => 1 + self.rng.below(5),
            1 => 195 + self.rng.below(10),
            2 => 395 + self.rng.below(10),
            _ => *self.rng.pick(&[1000, 2001, 2500]),
        };
        let base =
            self.rng
                .pick_str(&["x", "MY", "self", "[y = 1]", "[a = [y = a]].a", "{[y = 1]}"]);
        let link = self.rng.pick_str(&[".y", ".Y", ".z"]);
        let text = format!("{base}{}", link.repeat(links));
        let chain = classad_syntax::parse_expression(&text).unwrap_or_else(|_| lit(Literal::Error));
        match self.rng.below(4) {
            0 => call("isError", vec![chain]),
            1 => call("isUndefined", vec![chain]),
            2 => chain,
            _ => binary(BinaryOp::Add, lit(Literal::Integer(1)), chain),
        }
    }

    /// A value of any type, times included, for [`Generator::wild_form`].
    fn wild_operand(&mut self, d: u32) -> Expr {
        match self.rng.below(8) {
            0 => self.abs_time(d.min(1)),
            1 => self.rel_time(d.min(1)),
            2 => self.odd_value(),
            3 => lit(Literal::Integer(*self.rng.pick(&WILD_COUNTS))),
            _ => self.typed(Ty::Any, d),
        }
    }

    /// A list (or an ad) one of whose elements is ERROR or fails to
    /// evaluate (`userHome()` fails HTCondor's evaluation), among values of
    /// any type: HTCondor's functions evaluate a list argument's elements
    /// only where they read them, stopping at the first that decides
    /// (known_bugs class 11).
    fn list_with_failing_element(&mut self) -> Expr {
        let bad = match self.rng.below(3) {
            0 => call("userHome", Vec::new()),
            1 => lit(Literal::Error),
            _ => binary(
                BinaryOp::Divide,
                lit(Literal::Integer(1)),
                lit(Literal::Integer(0)),
            ),
        };
        let mut items: Vec<Expr> = (0..self.rng.below(3))
            .map(|_| self.wild_operand(0))
            .collect();
        let at = self.rng.below(items.len() + 1);
        items.insert(at, bad);
        if self.rng.chance(20) {
            // An ad: only formatTime and evalInEachContext read its fields.
            let mut ad = AdExpr::new();
            for (value, attr) in items.into_iter().zip(["Year", "Month", "a"]) {
                ad.insert(name(attr), value);
            }
            return node(ExprKind::Ad(Box::new(ad)));
        }
        node(ExprKind::List(items))
    }

    /// The forms of [`GenOptions::wild`].
    fn wild_form(&mut self, ty: Ty, d: u32) -> Expr {
        let e = d.min(2);
        match self.rng.below(11) {
            10 => {
                // evalInEachContext/countMatches of a name, and names used
                // after it in the same expression (HTCondor's lookup of the
                // name leaves the ad it ended in current).
                let visible: Vec<String> = self.scopes.iter().flatten().cloned().collect();
                let reference = self.pick_name(&visible);
                let ads: Vec<Expr> = (0..self.rng.below(3))
                    .map(|_| self.ad_literal(e.min(1)))
                    .collect();
                let function = self.rng.pick_str(&["countMatches", "evalInEachContext"]);
                let probe = call(
                    function,
                    vec![
                        node(ExprKind::Attribute(name(&reference))),
                        node(ExprKind::List(ads)),
                    ],
                );
                let after = self.reference(0);
                let op = *self.rng.pick(&[BinaryOp::Add, BinaryOp::Is, BinaryOp::Or]);
                binary(op, probe, after)
            }
            0 | 1 => {
                // Every operator on operands of any type, times included.
                let op = *self.rng.pick(&BinaryOp::ALL);
                let (l, r) = (self.wild_operand(e), self.wild_operand(e));
                binary(op, l, r)
            }
            2 => {
                let op =
                    *self
                        .rng
                        .pick(&[UnaryOp::Minus, UnaryOp::Plus, UnaryOp::Not, UnaryOp::BitNot]);
                let operand = self.wild_operand(e);
                unary(op, operand)
            }
            3 => {
                // Shifts, bitwise operators and arithmetic at the edges.
                let op = *self.rng.pick(&[
                    BinaryOp::ShiftLeft,
                    BinaryOp::ShiftRight,
                    BinaryOp::ShiftRightUnsigned,
                    BinaryOp::BitAnd,
                    BinaryOp::BitOr,
                    BinaryOp::BitXor,
                    BinaryOp::Multiply,
                    BinaryOp::Subtract,
                    BinaryOp::Add,
                    BinaryOp::Divide,
                    BinaryOp::Modulo,
                ]);
                let l = if self.rng.chance(50) {
                    lit(Literal::Integer(*self.rng.pick(&WILD_COUNTS)))
                } else {
                    self.typed(Ty::Int, e)
                };
                let r = lit(Literal::Integer(*self.rng.pick(&WILD_COUNTS)));
                binary(op, l, r)
            }
            4 => {
                // Identity and comparison of lists, ads, times and strings
                // that differ in case.
                let op = *self.rng.pick(&[
                    BinaryOp::Is,
                    BinaryOp::Isnt,
                    BinaryOp::Equal,
                    BinaryOp::NotEqual,
                    BinaryOp::Less,
                    BinaryOp::GreaterEqual,
                ]);
                let pick = |g: &mut Generator| match g.rng.below(6) {
                    0 => g.list_expr(e.min(1)),
                    1 => g.ad_literal(e.min(1)),
                    2 => g.abs_time(0),
                    3 => g.rel_time(0),
                    4 => lit(Literal::String(
                        g.rng
                            .pick(&[&b"abc"[..], b"ABC", b"aBc", b"abd", b"", b"\xc3\xa9"])
                            .to_vec()
                            .into(),
                    )),
                    _ => g.wild_operand(0),
                };
                let (l, r) = (pick(self), pick(self));
                binary(op, l, r)
            }
            5 | 6 => {
                // Any builtin, any arity, names in any case, undefined and
                // error among the arguments.
                let function = *self.rng.pick(&BUILTINS);
                let mut n = self.rng.below(5);
                if n == 0 && matches!(function, "absTime" | "formatTime") {
                    n = 1;
                }
                let args = (0..n)
                    .map(|_| match self.rng.below(6) {
                        0 => lit(if self.rng.chance(50) {
                            Literal::Undefined
                        } else {
                            Literal::Error
                        }),
                        1 => self.odd_value(),
                        // An argument whose evaluation fails (`userHome()`
                        // fails HTCondor's): the functions that stop at an
                        // earlier argument never evaluate it.
                        2 if self.rng.chance(25) => call("userHome", Vec::new()),
                        2 => self.list_with_failing_element(),
                        _ => self.wild_operand(e.min(1)),
                    })
                    .collect();
                let made = call(&respell_case(function, &mut self.rng), args);
                // A failed evaluation shows only where something answers
                // around it.
                if self.rng.chance(20) {
                    call("isError", vec![made])
                } else {
                    made
                }
            }
            7 => {
                // Times in lists, selected, subscripted or compared.
                let n = 1 + self.rng.below(3);
                let items: Vec<Expr> = (0..n)
                    .map(|_| match self.rng.below(3) {
                        0 => self.abs_time(0),
                        1 => self.rel_time(0),
                        _ => self.leaf(Ty::Any),
                    })
                    .collect();
                let list = node(ExprKind::List(items));
                match self.rng.below(4) {
                    0 => list,
                    1 => subscript(list, self.index(n)),
                    2 => {
                        let other = self.wild_operand(0);
                        binary(*self.rng.pick(&[BinaryOp::Is, BinaryOp::Isnt]), list, other)
                    }
                    _ => {
                        let delta = self.rel_time(0);
                        binary(BinaryOp::Add, subscript(list, self.index(n)), delta)
                    }
                }
            }
            8 => {
                // Nested conditionals, the unparser leaves out parentheses.
                let c1 = self.typed(Ty::Bool, e.min(1));
                let c2 = self.wild_operand(0);
                let a = self.typed(ty, e.min(1));
                let b = self.typed(ty, e.min(1));
                let c = self.wild_operand(0);
                if self.rng.chance(50) {
                    conditional(c1, a, conditional(c2, b, c))
                } else {
                    conditional(conditional(c1, a, b), c2, c)
                }
            }
            _ => {
                // Unary minus against selections, subscripts and calls.
                let base = self.ad_literal(e.min(1));
                let names = ad_names(&base);
                let n = self.pick_name(&names);
                let inner = match self.rng.below(3) {
                    0 => select(base, &n),
                    1 => subscript(node(ExprKind::List(vec![base])), lit(Literal::Integer(0))),
                    _ => call("size", vec![base]),
                };
                unary(*self.rng.pick(&[UnaryOp::Minus, UnaryOp::Not]), inner)
            }
        }
    }

    /// The forms of [`GenOptions::text`].
    fn text_form(&mut self, ty: Ty, d: u32) -> Expr {
        let visible: Vec<String> = self.scopes.iter().flatten().cloned().collect();
        match (ty, self.rng.below(4)) {
            (Ty::Str, _) | (Ty::Any, 0) => {
                let arg = match self.rng.below(5) {
                    0 => self.real_expr(d),
                    1 => self.list_expr(d),
                    2 => self.ad_literal(d.min(1)),
                    3 => self.literal_list(d),
                    _ => {
                        let ty = *self.rng.pick(&TYPES[..6]);
                        self.typed(ty, d)
                    }
                };
                match self.rng.below(8) {
                    0 => call("strcat", vec![self.str_leaf(), arg]),
                    1 => call("string", vec![arg]),
                    2 => call("toUpper", vec![arg]),
                    3 => call("toLower", vec![arg]),
                    4 => {
                        let list = self.list_expr(d);
                        call(
                            "join",
                            vec![lit(Literal::String(b",".to_vec().into())), list],
                        )
                    }
                    5 => call(
                        "splitSlotName",
                        vec![call(
                            "strcat",
                            vec![arg, lit(Literal::String(b"@".to_vec().into()))],
                        )],
                    ),
                    6 => {
                        let n = self.pick_name(&visible);
                        let reference = if self.rng.chance(50) {
                            node(ExprKind::Attribute(name(&n)))
                        } else {
                            select(arg, &n)
                        };
                        call("unparse", vec![reference])
                    }
                    _ => call("strcmp", vec![arg, self.str_leaf()]),
                }
            }
            (Ty::Bool, _) | (Ty::Any, 1) => {
                let list = self.list_expr(d);
                let made = match self.rng.below(3) {
                    0 => call("split", vec![self.str_leaf()]),
                    1 => call("splitUserName", vec![self.str_leaf()]),
                    _ => self.list_expr(d),
                };
                let op = *self.rng.pick(&[BinaryOp::Is, BinaryOp::Isnt]);
                if self.rng.chance(50) {
                    binary(op, list, made)
                } else {
                    binary(op, made, list)
                }
            }
            (Ty::Int | Ty::List, _) | (Ty::Any, 2) => {
                // countMatches / evalInEachContext of an attribute of the
                // enclosing ad, over a list of ads.
                let ads: Vec<Expr> = (0..1 + self.rng.below(3))
                    .map(|_| self.ad_literal(d.min(1)))
                    .collect();
                let attr = (*self.rng.pick(&NAMES)).to_string();
                let list_attr = format!("{attr}s");
                let test = self.typed(Ty::Bool, d.min(2));
                let function = if ty == Ty::Int {
                    "countMatches"
                } else {
                    "evalInEachContext"
                };
                let probe = call(
                    function,
                    vec![
                        node(ExprKind::Attribute(name(&attr))),
                        node(ExprKind::Attribute(name(&list_attr))),
                    ],
                );
                let result = "r".to_string();
                let outer = self.ad_with(
                    &[
                        (attr, test),
                        (list_attr, node(ExprKind::List(ads))),
                        (result.clone(), probe),
                    ],
                    d,
                );
                select(outer, &result)
            }
            _ => {
                // An ad taken by subscript, then selected or subscripted,
                // or a selection chain through nested ads; the ad alone or
                // in a list (nested or not) that is taken whole and then
                // subscripted (an element of a list taken by `ad["name"]`
                // reads emptied in HTCondor: class 32).
                let inner = self.ad_literal(d.min(2));
                let names = ad_names(&inner);
                let key = (*self.rng.pick(&NAMES)).to_string();
                let wrap = self.rng.below(4);
                let value = match wrap {
                    1 => node(ExprKind::List(vec![inner])),
                    2 => node(ExprKind::List(vec![lit(Literal::Integer(1)), inner])),
                    3 => node(ExprKind::List(vec![node(ExprKind::List(vec![inner]))])),
                    _ => inner,
                };
                let outer = self.ad_with(&[(key.clone(), value)], d.min(1));
                let key_text = if self.rng.chance(30) {
                    key.to_ascii_uppercase()
                } else {
                    key.clone()
                };
                let base = if self.rng.chance(60) {
                    subscript(outer, lit(Literal::String(key_text.into_bytes().into())))
                } else {
                    select(outer, &key)
                };
                let at = |base: Expr, i: i64| subscript(base, lit(Literal::Integer(i)));
                let base = match wrap {
                    1 => at(base, 0),
                    2 => at(base, 1),
                    3 => at(at(base, 0), 0),
                    _ => base,
                };
                let n = self.pick_name(&names);
                match self.rng.below(3) {
                    0 => select(base, &n),
                    1 => subscript(base, lit(Literal::String(n.into_bytes().into()))),
                    _ => {
                        let m = self.pick_name(&visible);
                        select(select(base, &n), &m)
                    }
                }
            }
        }
    }

    /// A value of any type as an outside tester writes it: literals at
    /// the edges, times, nested lists and ads, special names.
    fn outside_value(&mut self, d: u32) -> String {
        match self.rng.below(8) {
            0 => (*self.rng.pick(&OUTSIDE_NUMBERS)).to_string(),
            1 => self.outside_string(),
            2 => self.outside_time(),
            3 if d > 0 => {
                let n = self.rng.below(4);
                let items: Vec<String> = (0..n).map(|_| self.outside_value(d - 1)).collect();
                let trailing = if n > 0 && self.rng.chance(10) {
                    ","
                } else {
                    ""
                };
                format!("{{{}{trailing}}}", items.join(", "))
            }
            4 if d > 0 => {
                let n = self.rng.below(4);
                let names = ["a", "b", "c", "A"];
                let items: Vec<String> = (0..n)
                    .map(|i| format!("{} = {}", names[i], self.outside_value(d - 1)))
                    .collect();
                let trailing = if n > 0 && self.rng.chance(15) {
                    ";"
                } else {
                    ""
                };
                format!("[{}{trailing}]", items.join("; "))
            }
            5 => (*self.rng.pick(&ODD_VALUES)).to_string(),
            _ => {
                let ty = *self.rng.pick(&TYPES);
                let e = self.typed(ty, d.min(2));
                classad_syntax::unparse(&e)
            }
        }
    }

    /// A string literal with escapes of every kind (octal up to `\777`,
    /// unknown letters, `\x41`, quotes, control characters).
    fn outside_string(&mut self) -> String {
        let mut text = String::from("\"");
        for _ in 0..self.rng.below(5) {
            let piece = match self.rng.below(10) {
                0 => format!("\\{:o}", self.rng.below(512)),
                1 => format!("\\{:03o}", self.rng.below(256)),
                2 => (*self.rng.pick(&[
                    "\\x41", "\\u0041", "\\q", "\\'", "\\\"", "\\\\", "\\n", "\\t", "\\a", "\\0",
                    "\\08", "\\e", "\\?", "\\/",
                ]))
                .to_string(),
                3 => (*self
                    .rng
                    .pick(&["\u{e9}", "\u{2603}", "%d", "%s", "/*", "*/", "//", " "]))
                .to_string(),
                _ => (*self
                    .rng
                    .pick(&["a", "B", "1", ".", ",", "x y", "0x1F", "-", "e5"]))
                .to_string(),
            };
            text.push_str(&piece);
        }
        text.push('"');
        text
    }

    /// `absTime` or `relTime` of an odd string, maybe under a time function.
    fn outside_time(&mut self) -> String {
        let inner = match self.rng.below(4) {
            0 => String::from_utf8_lossy(&self.abs_time_text()).into_owned(),
            1 => String::from_utf8_lossy(&self.rel_time_text()).into_owned(),
            _ => (*self.rng.pick(&OUTSIDE_TIME_TEXTS)).to_string(),
        };
        let function = self.rng.pick_str(&["absTime", "relTime"]);
        let time = format!("{function}(\"{inner}\")");
        match self.rng.below(8) {
            0 => format!("string({time})"),
            1 => format!("formatTime({time}, \"%c %j %Z\")"),
            2 => format!("splitTime({time})"),
            3 => format!("interval({time})"),
            4 => format!(
                "{}({time})",
                self.rng.pick_str(&[
                    "getYear",
                    "getDays",
                    "getHours",
                    "getDayOfWeek",
                    "int",
                    "real"
                ])
            ),
            _ => time,
        }
    }

    /// The texts of [`GenOptions::outside`], `d` levels deep at most.
    pub fn outside_text(&mut self, d: u32) -> String {
        let sub = |g: &mut Generator| {
            if d > 0 && g.rng.chance(30) {
                format!("({})", g.outside_text(d - 1))
            } else {
                g.outside_value(d.saturating_sub(1))
            }
        };
        match self.rng.below(9) {
            0 | 1 => {
                // Identity and comparison on every pair of types.
                let op = self.rng.pick_str(&[
                    "is", "isnt", "=?=", "=!=", "IS", "ISNT", "==", "!=", "<", ">=",
                ]);
                let (l, r) = (sub(self), sub(self));
                format!("{l} {op} {r}")
            }
            2 => {
                // A chain of unary operators, with and without spaces.
                let mut text = String::new();
                for _ in 0..1 + self.rng.below(5) {
                    text.push_str(self.rng.pick_str(&["-", "+", "!", "~"]));
                    text.push_str(self.rng.pick_str(&["", "", " ", "/**/"]));
                }
                text.push_str(&sub(self));
                text
            }
            3 => {
                // Numbers at the edges, alone or in arithmetic.
                let n = *self.rng.pick(&OUTSIDE_NUMBERS);
                match self.rng.below(4) {
                    0 => n.to_string(),
                    1 => format!("-{n}"),
                    _ => {
                        let op = self.rng.pick_str(&[
                            "+", "-", "*", "/", "%", "<<", ">>", ">>>", "&", "|", "^", "<", "==",
                        ]);
                        let other = sub(self);
                        if self.rng.chance(50) {
                            format!("{n} {op} {other}")
                        } else {
                            format!("{other} {op} {n}")
                        }
                    }
                }
            }
            4 => {
                // Escapes in strings, through the string functions and in
                // quoted names.
                let s = self.outside_string();
                match self.rng.below(7) {
                    0 => format!("size({s})"),
                    1 => format!("strcat({s}, {s})"),
                    2 => format!("toUpper({s})"),
                    3 => format!("substr({s}, {})", self.rng.pick_str(&["1", "-1", "0, 2"])),
                    4 => format!("{s} == \"A\""),
                    5 => {
                        let name = s[1..s.len() - 1].replace('\'', "\\'");
                        format!("['{name}' = 1].'{name}'")
                    }
                    _ => s,
                }
            }
            5 => self.outside_time(),
            6 => {
                // Any builtin, any arity, nested lists and ads among the
                // arguments.
                let function = *self.rng.pick(&BUILTINS);
                let mut n = self.rng.below(6);
                if n == 0 && matches!(function, "absTime" | "formatTime") {
                    n = 1;
                }
                let args: Vec<String> = (0..n).map(|_| sub(self)).collect();
                format!(
                    "{}({})",
                    respell_case(function, &mut self.rng),
                    args.join(", ")
                )
            }
            7 => {
                // The old ways of writing ads and lists, and selections and
                // subscripts through them.
                let v = sub(self);
                let w = sub(self);
                match self.rng.below(10) {
                    0 => format!("[a = {v}; ; b = {w}]"),
                    1 => format!("[a = {v};].a"),
                    2 => format!("{{{v}, {w},}}"),
                    3 => format!("{{{v},, {w}}}"),
                    4 => format!(
                        "[a = {v}; b = a]{}",
                        self.rng.pick_str(&[".b", "[\"b\"]", ".a.b"])
                    ),
                    5 => format!(
                        "{{{v}, {w}}}[{}]",
                        self.rng.pick_str(&["0", "1", "-1", "1.5", "true", "\"a\""])
                    ),
                    6 => format!("MY.a + {v}"),
                    7 => format!("[x = {v}].x.y.z"),
                    8 => format!(
                        "[a = {v}; b = .a; c = root.a; d = self.a].{}",
                        self.rng.pick_str(&["b", "c", "d"])
                    ),
                    _ => format!("{v} ?: {w}"),
                }
            }
            _ => {
                // Conditionals with operands of any type.
                let (c, a, b) = (sub(self), sub(self), sub(self));
                if self.rng.chance(50) {
                    format!("{c} ? {a} : {b}")
                } else {
                    format!("ifThenElse({c}, {a}, {b})")
                }
            }
        }
    }

    fn str_leaf(&mut self) -> Expr {
        lit(Literal::String(self.rng.pick(&STRINGS).to_vec().into()))
    }

    fn leaf(&mut self, ty: Ty) -> Expr {
        match ty {
            Ty::Int => {
                let i = if self.rng.chance(15) {
                    (self.rng.next_u64() % 2000) as i64 - 1000
                } else {
                    *self.rng.pick(&INTS)
                };
                lit(Literal::Integer(i))
            }
            Ty::Real => {
                let r = if self.rng.chance(15) {
                    ((self.rng.next_u64() % 20000) as f64 - 10000.0) / 64.0
                } else {
                    *self.rng.pick(&REALS)
                };
                lit(Literal::Real(r))
            }
            Ty::Bool => lit(Literal::Boolean(self.rng.chance(50))),
            Ty::Str => self.str_leaf(),
            Ty::List => {
                let n = self.rng.below(3);
                let items = (0..n).map(|_| self.leaf(Ty::Int)).collect();
                node(ExprKind::List(items))
            }
            Ty::Ad => {
                if self.rng.chance(30) {
                    node(ExprKind::Attribute(name(
                        self.rng
                            .pick_str(&["self", "parent", "root", "MY", "TARGET"]),
                    )))
                } else {
                    self.ad_literal(0)
                }
            }
            Ty::Any => match self.rng.below(10) {
                0 => lit(Literal::Undefined),
                1 => lit(Literal::Error),
                2..=4 => self.reference(0),
                _ => {
                    let ty = *self.rng.pick(&TYPES[..6]);
                    self.leaf(ty)
                }
            },
        }
    }
}

/// Numbers at and past the edges of int64 and double, in the spellings an
/// outside tester uses, for [`GenOptions::outside`].
const OUTSIDE_NUMBERS: [&str; 40] = [
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "0x7fffffffffffffff",
    "0x8000000000000000",
    "0xffffffffffffffff",
    "0X1F",
    "0x0",
    "017",
    "08",
    "00",
    "1e308",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "1e309",
    "4.9e-324",
    "2.4e-324",
    "1e-400",
    "5.",
    ".5",
    ".5e3",
    "5.e3",
    "1E+2",
    "1e-0",
    "0.0",
    "-0.0",
    "0e0",
    "123456789012345678",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9007199254740993",
    "0.1",
    "1.0000000000000002",
    "3.14159265358979323846",
    "1e15",
    "1e16",
];

/// Strings of times outside the forms generated from fields, for
/// [`GenOptions::outside`].
const OUTSIDE_TIME_TEXTS: [&str; 24] = [
    "",
    " ",
    "0",
    "-0",
    "1",
    "1.5",
    "abc",
    "1970-01-01",
    "1970-01-01T00:00:00",
    "2020-02-30T00:00:00Z",
    "2020-13-01",
    "2020-12-01T25:61:61Z",
    "2038-01-19T03:14:08+14:00",
    "1d",
    "1h 1m",
    "1:2:3:4",
    "+1:00",
    "-",
    "--1",
    "1+2+3",
    "1e3",
    "0x10",
    "1d25:61:61",
    "99999999999999999999d",
];

/// `text` with white space or a comment put between tokens where it keeps
/// them apart, or taken out where a space is not needed, as an outside
/// tester writes ([`GenOptions::outside`]); a text it cannot split into
/// tokens is left as it is.
fn respell_spacing(text: &str, rng: &mut Rng) -> String {
    let Some(tokens) = tokens(text) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + 16);
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Space(s) => {
                let apart = word_like(i.checked_sub(1).and_then(|j| tokens.get(j)))
                    && word_like(tokens.get(i + 1));
                match rng.below(6) {
                    0 if !apart => {}
                    1 => out.push_str("/**/"),
                    2 => out.push_str(" /* x */\t"),
                    _ => out.push_str(s),
                }
            }
            Token::Str(s)
            | Token::Quoted(s)
            | Token::Number(s)
            | Token::Word(s)
            | Token::Punct(s) => {
                out.push_str(s);
                // Between two tokens with nothing between them (not next
                // to the `/` and `*` of a comment, which would split it).
                let comment = |t: Option<&Token<'_>>| matches!(t, Some(Token::Punct("/" | "*")));
                if !matches!(tokens.get(i + 1), Some(Token::Space(_)) | None)
                    && !comment(Some(token))
                    && !comment(tokens.get(i + 1))
                    && rng.chance(15)
                {
                    out.push_str(rng.pick_str(&["/**/", " ", "\t", "/***/"]));
                }
            }
        }
    }
    out
}

/// Integers at the edges of shifts, bitwise operators and overflow, for
/// [`GenOptions::wild`].
const WILD_COUNTS: [i64; 14] = [
    -1,
    -2,
    -63,
    -64,
    -65,
    63,
    64,
    65,
    127,
    128,
    i64::MIN,
    i64::MAX,
    i64::MIN + 1,
    4_294_967_296,
];

/// `name` with each letter's case flipped at random (ClassAd names,
/// keywords and function names are case-insensitive).
pub(crate) fn respell_case(name: &str, rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => name.to_ascii_uppercase(),
        1 => name.to_ascii_lowercase(),
        2 => name
            .chars()
            .map(|c| {
                if rng.chance(50) {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect(),
        _ => name.to_string(),
    }
}

/// One token of a canonical text, for [`respell_wild`].
#[derive(Debug, PartialEq)]
enum Token<'t> {
    Space(&'t str),
    /// A double-quoted string, quotes included.
    Str(&'t str),
    /// A single-quoted name, quotes included.
    Quoted(&'t str),
    /// Digits, maybe with a point and an exponent.
    Number(&'t str),
    Word(&'t str),
    Punct(&'t str),
}

/// Splits a canonical text into tokens; `None` if it sees something it
/// does not know (the text is then left as it is).
fn tokens(text: &str) -> Option<Vec<Token<'_>>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        let token = if b == b' ' || b == b'\t' {
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            Token::Space(&text[start..i])
        } else if b == b'"' || b == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != b {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            if i > bytes.len() {
                return None;
            }
            if b == b'"' {
                Token::Str(&text[start..i])
            } else {
                Token::Quoted(&text[start..i])
            }
        } else if b.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if matches!(bytes.get(i), Some(b'e' | b'E')) {
                i += 1;
                if matches!(bytes.get(i), Some(b'+' | b'-')) {
                    i += 1;
                }
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            Token::Number(&text[start..i])
        } else if b.is_ascii_alphabetic() || b == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Token::Word(&text[start..i])
        } else {
            let rest = &text[i..];
            let len = [
                "=?=", "=!=", ">>>", "?:", ">>", "<<", "<=", ">=", "==", "!=", "&&", "||",
            ]
            .iter()
            .find(|op| rest.starts_with(*op))
            .map_or(1, |op| op.len());
            if !rest.is_char_boundary(len) {
                return None;
            }
            i += len;
            Token::Punct(&text[start..i])
        };
        out.push(token);
    }
    Some(out)
}

/// Another spelling of the integer `digits` (non-negative, decimal).
fn respell_integer(digits: &str, rng: &mut Rng) -> String {
    let Ok(value) = digits.parse::<u64>() else {
        return digits.to_string();
    };
    match rng.below(10) {
        0 => format!("0x{value:x}"),
        1 => format!("0X{value:X}"),
        // Small: HTCondor reads a leading zero as decimal (or refuses it),
        // and a large one would leave the times it can compute.
        2 if value > 0 && value < 4096 => format!("0{value:o}"),
        3 => format!("{value}.0"),
        4 => format!("{value}e0"),
        _ => digits.to_string(),
    }
}

/// Another spelling of the real `text` with the same value.
fn respell_real(text: &str, rng: &mut Rng) -> String {
    let Ok(value) = text.parse::<f64>() else {
        return text.to_string();
    };
    let spelled = match rng.below(8) {
        0 => format!("{value:e}"),
        1 => format!("{value:E}"),
        2 => format!("{value:?}"),
        3 if value.fract() == 0.0 && value.abs() < 9e15 => {
            format!("0x{:x}.0", value as i64)
        }
        4 if value.abs() < 1.0 && value != 0.0 => {
            // `.5` without the leading zero.
            let shown = format!("{value:?}");
            shown.strip_prefix("0").unwrap_or(&shown).to_string()
        }
        5 => format!("{value:.3e}"),
        _ => return text.to_string(),
    };
    // A spelling must stay a real (a point or an exponent) of the same value.
    if (spelled.contains(['.', 'e', 'E']))
        && (spelled.parse::<f64>().ok() == Some(value) || spelled.starts_with("0x"))
    {
        spelled
    } else {
        text.to_string()
    }
}

/// Another spelling of the double-quoted string `text`: letters as octal
/// escapes, unknown escapes (`\q` is `q`), split into adjacent strings.
fn respell_string(text: &str, rng: &mut Rng) -> String {
    let body = &text[1..text.len() - 1];
    let mut out = String::from("\"");
    let mut chars = body.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c == '\\' {
            out.push(c);
            if let Some((_, next)) = chars.next() {
                out.push(next);
                // Octal escapes keep their digits together.
                while next.is_ascii_digit() && chars.peek().is_some_and(|(_, d)| d.is_ascii_digit())
                {
                    out.push(chars.next().map_or('0', |(_, d)| d));
                }
            }
            continue;
        }
        match rng.below(12) {
            0 if c.is_ascii_alphabetic() => out.push_str(&format!("\\{:03o}", c as u32)),
            1 if c.is_ascii_alphabetic() && !"abfnrtv".contains(c) => {
                out.push('\\');
                out.push(c);
            }
            2 => {
                out.push_str(if rng.chance(50) { "\" \"" } else { "\"\"" });
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if rng.chance(5) {
        out.push_str("\" \"");
    }
    out.push('"');
    out
}

/// Whether a token is a word, a number or a quoted string or name.
fn word_like(token: Option<&Token<'_>>) -> bool {
    matches!(
        token,
        Some(Token::Word(_) | Token::Number(_) | Token::Str(_) | Token::Quoted(_))
    )
}

/// Respells a canonical text token by token as an outside tester writes
/// ([`GenOptions::wild`]); the meaning is the same where HTCondor's lexer
/// reads what the spelling claims.
pub fn respell_wild(text: &str, rng: &mut Rng) -> String {
    let Some(tokens) = tokens(text) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + 16);
    for (i, token) in tokens.iter().enumerate() {
        let next_is_paren = matches!(tokens.get(i + 1), Some(Token::Punct("(")));
        let after_dot = i > 0 && matches!(tokens.get(i - 1), Some(Token::Punct(".")));
        match *token {
            Token::Space(s) => match rng.below(12) {
                // Not between two words or numbers, which would run together.
                0 if !(word_like(i.checked_sub(1).and_then(|j| tokens.get(j)))
                    && word_like(tokens.get(i + 1))) => {}
                1 => out.push_str("  "),
                2 => out.push('\t'),
                3 => out.push_str(" /* c */ "),
                _ => out.push_str(s),
            },
            Token::Str(s) if rng.chance(30) => out.push_str(&respell_string(s, rng)),
            Token::Number(n) if rng.chance(30) => {
                if n.contains(['.', 'e', 'E']) {
                    out.push_str(&respell_real(n, rng));
                } else {
                    out.push_str(&respell_integer(n, rng));
                }
            }
            Token::Word(w) => {
                let lower = w.to_ascii_lowercase();
                let keyword = matches!(
                    lower.as_str(),
                    "true" | "false" | "undefined" | "error" | "is" | "isnt"
                );
                if keyword && lower == "is" && rng.chance(30) {
                    out.push_str("=?=");
                } else if keyword && lower == "isnt" && rng.chance(30) {
                    out.push_str("=!=");
                } else if keyword || next_is_paren {
                    out.push_str(&respell_case(w, rng));
                } else if rng.chance(10) {
                    // A quoted name, maybe in adjacent parts.
                    if w.len() > 1 && rng.chance(30) {
                        out.push_str(&format!("'{}' '{}'", &w[..1], &w[1..]));
                    } else {
                        out.push_str(&format!("'{w}'"));
                    }
                } else if !after_dot && rng.chance(10) {
                    out.push_str(&respell_case(w, rng));
                } else {
                    out.push_str(w);
                }
            }
            Token::Str(s) | Token::Quoted(s) | Token::Number(s) | Token::Punct(s) => {
                out.push_str(s)
            }
        }
    }
    out
}

/// The attribute names of an ad literal node.
fn ad_names(e: &Expr) -> Vec<String> {
    match &e.kind {
        ExprKind::Ad(ad) => ad_expr_names(ad),
        _ => Vec::new(),
    }
}

fn ad_expr_names(ad: &AdExpr) -> Vec<String> {
    ad.attributes
        .iter()
        .map(|(n, _)| n.text().into_owned())
        .collect()
}

trait ThenSelect {
    fn then_select(self, name: Option<String>) -> Expr;
}

impl ThenSelect for Expr {
    fn then_select(self, attr: Option<String>) -> Expr {
        match attr {
            Some(a) => select(self, &a),
            None => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_expressions() {
        let mut a = Generator::new(7, GenOptions::default());
        let mut b = Generator::new(7, GenOptions::default());
        for _ in 0..50 {
            assert_eq!(a.next_text(), b.next_text());
        }
    }

    #[test]
    fn texts_parse_and_round_trip() {
        let mut g = Generator::new(
            1,
            GenOptions {
                max_depth: 5,
                calls: true,
                text: true,
                library: false,
                odd: false,
                wild: false,
                outside: false,
            },
        );
        for _ in 0..300 {
            let (text, expr) = g.next_expr();
            assert_eq!(classad_syntax::parse_expression(&text).ok(), Some(expr));
        }
    }

    /// The `--text` forms spell the elvis token apart too (the spaced-elvis
    /// class), and such a text reads back as the tree it came from.
    #[test]
    fn text_forms_spell_elvis_apart() {
        let mut g = Generator::new(
            5,
            GenOptions {
                max_depth: 5,
                calls: true,
                text: true,
                library: false,
                odd: false,
                wild: false,
                outside: false,
            },
        );
        let texts: Vec<String> = (0..3000).map(|_| g.next_text()).collect();
        let all = texts.join("\n");
        assert!(all.contains("? :") && all.contains("?\t:"));
        let mut rng = Rng::new(1);
        assert_eq!(
            respell_elvis("\"a?:b\" + 'c?:d'", &mut rng),
            "\"a?:b\" + 'c?:d'"
        );
    }

    #[test]
    fn library_texts_parse_and_round_trip() {
        let mut g = Generator::new(
            2,
            GenOptions {
                max_depth: 4,
                calls: true,
                text: false,
                library: true,
                odd: false,
                wild: false,
                outside: false,
            },
        );
        let mut texts = String::new();
        for _ in 0..300 {
            let (text, expr) = g.next_expr();
            assert_eq!(classad_syntax::parse_expression(&text).ok(), Some(expr));
            texts.push_str(&text);
        }
        for needle in ["stringList", "v0", "splitTime", "formatTime", "MY."] {
            assert!(texts.contains(needle), "{needle}");
        }
    }

    /// The `--wild` forms respell the text as an outside tester writes it
    /// (each class of mismatch they found: hexadecimal floats, adjacent
    /// quoted names, comments), and leave a token-free text alone.
    #[test]
    fn wild_texts_respell_tokens() {
        let mut g = Generator::new(
            9,
            GenOptions {
                max_depth: 4,
                calls: true,
                text: false,
                library: false,
                odd: false,
                wild: true,
                outside: false,
            },
        );
        let all: String = (0..3000).map(|_| g.next_text() + "\n").collect();
        for needle in ["/* c */", "' '", "=?=", "=!=", "0x", ".0", "\\1", "\" \""] {
            assert!(all.contains(needle), "{needle}");
        }
        let mut rng = Rng::new(1);
        for _ in 0..100 {
            let text = respell_wild("a + \"x\" * 2.5", &mut rng);
            assert!(classad_syntax::parse_expression(&text).is_ok(), "{text}");
        }
    }

    /// The `--outside` texts hold each kind of form an independent
    /// generator writes, and a comment put between tokens never splits
    /// another comment.
    #[test]
    fn outside_texts_cover_the_forms() {
        let mut g = Generator::new(
            11,
            GenOptions {
                outside: true,
                calls: true,
                ..GenOptions::default()
            },
        );
        let all: String = (0..3000).map(|_| g.next_text() + "\n").collect();
        for needle in [
            " isnt ",
            " =?= ",
            "9223372036854775808",
            "1e309",
            "\\x41",
            "absTime(\"",
            "relTime(\"",
            ";]",
            ",}",
            "/**/",
            "~",
            "!",
        ] {
            assert!(all.contains(needle), "{needle}");
        }
        assert!(!all.contains("/ **/") && !all.contains("/\t**/"));
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let text = respell_spacing("[a = 1; b = \"x\" + a].b", &mut rng);
            assert!(classad_syntax::parse_expression(&text).is_ok(), "{text}");
        }
    }

    #[test]
    fn every_operator_appears() {
        let mut g = Generator::new(3, GenOptions::default());
        let texts: Vec<String> = (0..3000).map(|_| g.next_text()).collect();
        let all = texts.join("\n");
        for op in BinaryOp::ALL {
            assert!(all.contains(&format!(" {} ", op.symbol())), "{op:?}");
        }
        for needle in [
            " -", " +", " !", " ~", " ? ", " ?: ", "MY.", ".parent", "[ ", "{ ", "\"]",
        ] {
            assert!(all.contains(needle), "{needle}");
        }
    }
}
