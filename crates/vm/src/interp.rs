//! The interpreter loop, scopes, and attribute evaluation.
//!
//! A [`Vm`] holds all evaluation state (the value stack, the attributes
//! being evaluated, the budgets), and is reused from one evaluation to the
//! next: after warm-up, evaluating a program allocates nothing but the
//! values it makes. Programs and ads are immutable and shared.
//!
//! Scoping (spec 003 "Attribute References", spec 004 section 3.4, and
//! the oracle; docs/semantics.md section "Scoping"):
//! * an unscoped name is looked up in the ad being evaluated; if absent,
//!   a special name (`self`, `my`, `parent`, `root`, `toplevel`, `target`)
//!   takes its meaning there; otherwise the enclosing ads are searched
//!   outward; otherwise, with HTCondor's default old-ClassAd compatibility
//!   (not in strict mode), the TARGET ad;
//! * `MY` is the ad being evaluated, `TARGET` the other ad of the match;
//! * `base.name` searches the selected ad and then the ads enclosing it;
//!   on a list it selects from each element;
//! * an attribute that refers back to itself, directly or not, is
//!   UNDEFINED (HTCondor 25.13+).

use crate::ad::{AdBody, AdRef, AdValue, Attribute, Definition, Symbol};
use crate::bytecode::{PACKED_MASK, Program, level, opcode, packed_nodes};
use crate::ops;
use crate::registry::{Function, StopTest};
use crate::value::{LazyList, Value};
use classad_syntax::Name;
use classad_syntax::{BinaryOp, UnaryOp};
use std::sync::Arc;

/// Bounds on one evaluation.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of attribute evaluations (an attribute whose value
    /// refers to another, and so on). Beyond it the value is ERROR.
    pub max_depth: u32,
    /// Most steps one top-level evaluation may take, counted as HTCondor
    /// counts its budget (10,000,000 there): one per node of the
    /// expression tree evaluated, when it is started
    /// (`Program::with_nodes`); past it every expression started fails
    /// with ERROR while those under way finish. Also the budget, counted
    /// apart, of the work builtins charge (one unit per [`BYTES_PER_STEP`]
    /// bytes they scan, one per list element they visit, more for regular
    /// expressions), which ends the evaluation the same way.
    pub max_steps: u64,
    /// Most bytes of values one top-level evaluation may produce
    /// (strings, list elements, ads, counted as HTCondor would copy them,
    /// freed or not). A function checks before it allocates; beyond the
    /// limit its value, and that of the whole evaluation, is ERROR.
    pub max_memory: u64,
}

/// Bytes a builtin may scan per step charged: about the time of one
/// instruction (measured: ~20 ns a step, ~1 ns a byte).
pub const BYTES_PER_STEP: u64 = 16;

/// Bytes charged per value a function or the VM puts in a list (the
/// size of a value).
pub const VALUE_BYTES: u64 = 24;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 400,
            max_steps: 10_000_000,
            max_memory: 256 << 20,
        }
    }
}

/// Evaluation options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `STRICT_CLASSAD_EVALUATION`: no fallback of unscoped names to TARGET.
    pub strict: bool,
    /// Corrected answers where HTCondor's deterministic answer looks like a
    /// bug (off by default, so every value equals HTCondor's): an ad taken
    /// by `ad["name"]`, and an ad or list in a list made by a selection over
    /// a list, keeps its scope, `stringListMin`/`stringListMax`
    /// start from the first element rather than `FLT_MAX`/`FLT_MIN`,
    /// `replaceAll` with a pattern that matches empty at the end replaces
    /// there, and `random(x)` with `x <= 0` is ERROR. Each is a row of
    /// docs/differences.md.
    pub corrections: bool,
    /// The budgets.
    pub limits: Limits,
    /// Read a string computed at run time as a time in `absTime(s)` and
    /// `relTime(s)`, as a literal string is read. HTCondor does not (its
    /// code assumes the parser has turned every string into a time): it
    /// answers the string itself for `absTime` and a relative time of 0
    /// for `relTime`, which is the default here.
    pub read_time_strings: bool,
    /// `regexpMember` with an invalid pattern is ERROR, as every other
    /// regular-expression function answers, instead of HTCondor's false or
    /// UNDEFINED (docs/differences.md).
    pub regexp_member_invalid_error: bool,
}

/// The source of the current time, injectable for tests.
pub type Clock = fn() -> f64;

fn system_clock() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The match an evaluation runs in: the two ads, each the other's
/// TARGET. Passed by value through the interpreter, so no reference count
/// is touched per evaluation.
#[derive(Clone, Copy, Default)]
pub struct Env<'a> {
    /// The two ads of the match.
    pub pair: Option<(&'a AdRef, &'a AdRef)>,
}

impl<'a> Env<'a> {
    /// The TARGET of an evaluation in `scope`: the other ad of the match
    /// whose ad encloses `scope`.
    #[inline]
    pub fn target_of(&self, scope: &AdRef) -> Option<&'a AdRef> {
        let (left, right) = self.pair?;
        let root = scope.root_ref();
        if Arc::ptr_eq(root, left) {
            Some(right)
        } else if Arc::ptr_eq(root, right) {
            Some(left)
        } else {
            None
        }
    }
}

/// Whether an ad enclosing `scope` defines `target`, which then hides the
/// match partner (see `Vm::resolve`).
fn chain_defines_target(scope: &AdRef) -> bool {
    let mut current = scope.parent.as_ref();
    while let Some(ad) = current {
        if ad.body.slot(special_symbol(1)).is_some() {
            return true;
        }
        current = ad.parent.as_ref();
    }
    false
}

/// The symbols of `my` (0) and `target` (1), made once.
fn special_symbol(which: usize) -> &'static Symbol {
    static SYMBOLS: std::sync::LazyLock<[Symbol; 2]> =
        std::sync::LazyLock::new(|| [Symbol::new("my"), Symbol::new("target")]);
    &SYMBOLS[which]
}

/// The body of the scope given to a list made by a selection over a list
/// (see [`Vm::orphan`]) or taken by `ad["name"]`: recognised by address,
/// so that references made directly in it are UNDEFINED.
fn scopeless_body() -> &'static Arc<crate::ad::AdBody> {
    static BODY: std::sync::LazyLock<Arc<crate::ad::AdBody>> =
        std::sync::LazyLock::new(|| Arc::new(crate::ad::AdBody::new()));
    &BODY
}

/// The root given to an ad made by a selection over a list (see
/// [`Vm::orphan`]): an empty ad in which references resolve as in any
/// empty ad (`root` and `toplevel` are itself), recognised by address so
/// that `parent` from the ad it holds is UNDEFINED.
fn empty_root_body() -> &'static Arc<crate::ad::AdBody> {
    static BODY: std::sync::LazyLock<Arc<crate::ad::AdBody>> =
        std::sync::LazyLock::new(|| Arc::new(crate::ad::AdBody::new()));
    &BODY
}

/// The root of an evaluation state HTCondor starts with no current ad
/// (`EvalState::SetScopes(nullptr)`): a selection over a list made inside
/// an element of a list that lost its scope (`{[a = {{[b = root]}.b}]}.a[0][0]`).
/// There `root`, `toplevel` and `.name` fail the evaluation (HTCondor's
/// lookup answers `EVAL_FAIL` for a missing root), leaving UNDEFINED.
/// Recognised by address.
fn no_root_body() -> &'static Arc<crate::ad::AdBody> {
    static BODY: std::sync::LazyLock<Arc<crate::ad::AdBody>> =
        std::sync::LazyLock::new(|| Arc::new(crate::ad::AdBody::new()));
    &BODY
}

/// Whether `ad` is the stand-in for a state without a root (see
/// [`no_root_body`]).
fn is_no_root(ad: &AdRef) -> bool {
    ad.body.is_empty() && Arc::ptr_eq(&ad.body, no_root_body())
}

/// Whether `ad` is the scope of an element of a list HTCondor copied
/// without a parent scope: there is no current ad (see [`scopeless_body`]).
fn no_current_ad(ad: &AdRef) -> bool {
    ad.parent.is_none() && ad.body.is_empty() && Arc::ptr_eq(&ad.body, scopeless_body())
}

/// Whether `ad` is one of the stand-ins for a scope HTCondor's copy of a
/// value has lost (see [`scopeless_body`] and [`empty_root_body`]).
fn is_lost_scope(ad: &AdRef) -> bool {
    // Both stand-ins are empty: most ads are not, and are told apart
    // without reading the stand-ins.
    ad.body.is_empty()
        && (Arc::ptr_eq(&ad.body, scopeless_body()) || Arc::ptr_eq(&ad.body, empty_root_body()))
}

/// The lexical parent of `ad` (what `parent` finds there): none where
/// HTCondor's copy of a value lost its scope (the parent is one of the
/// stand-ins).
pub fn parent_scope(ad: &AdRef) -> Option<&AdRef> {
    ad.parent.as_ref().filter(|parent| !is_lost_scope(parent))
}

/// Whether `ad` was written inside a value whose scope HTCondor's copy
/// lost (its chain of enclosing ads ends in one of the stand-ins).
fn written_in_lost_scope(ad: &AdRef) -> bool {
    outermost_below_lost_scope(ad).is_some()
}

/// The ad of `ad`'s chain of enclosing ads whose parent is one of the
/// stand-ins of a lost scope, if the chain ends in one.
fn outermost_below_lost_scope(ad: &AdRef) -> Option<&AdRef> {
    let mut current = ad;
    while let Some(parent) = &current.parent {
        if is_lost_scope(parent) {
            return Some(current);
        }
        current = parent;
    }
    None
}

/// An ad or a list that a subscript takes out of HTCondor's shared list
/// type (a list taken by `ad["name"]`, or one `eval` made and `ad["name"]`
/// handed on), as HTCondor's subscript leaves it. The shared list is owned
/// by the subscript's operand alone, which frees it when the subscript is
/// done; an ad or a list written in it is a pointer into that list (a
/// literal's value is the literal itself), so what the subscript hands on
/// has been freed, and its destructor emptied it: an ad with no attributes
/// and no parent, a list with no elements, whatever reads it next (a
/// selection, `ad["name"]`, `size`, `strcat`, `unresolved`'s search). So
/// `[y = {[c = 1]}]["y"][0]["c"]` is UNDEFINED and `size` of it 0, and
/// `unresolved(B)` with `B = z.c`, `z = [y = {[c = w]}]["y"][0]` is
/// `"c"`. (Printing the element itself, or `self` from it, crashes
/// HTCondor.) Values the list does not hold (a number, a string, an ad a
/// function made, one written outside the list) are whole.
fn freed_with_list(list: &LazyList, i: usize, value: Value) -> Value {
    let in_list = match &value {
        // A list copied by `ad["name"]` lost its scope: what was written in
        // it has the stand-in for the lost scope at the end of its chain.
        // Only this list's stand-in counts: a list or an ad another
        // subscript took (`{[y = [l = {x}]].y["l"]}`) has a stand-in of its
        // own and is a copy the element holds, whole.
        Value::Ad(ad) if list.scope.detached => written_in(ad, &list.scope),
        Value::LazyList(inner) if list.scope.detached => written_in(&inner.scope, &list.scope),
        // A list `eval` made keeps the scope `eval` gave it: an element
        // written as an ad or a list (in brackets or not) is in the list;
        // so is a list of constants, whatever the list's scope.
        Value::Ad(_) | Value::LazyList(_) | Value::List(_) => {
            literal_element(&list.items[i].source)
        }
        _ => false,
    };
    if !in_list {
        return value;
    }
    // Of the type of a literal's value (a pointer into a tree, not one of
    // HTCondor's shared types): `=?=` with another ad or list is ERROR.
    // The destructor empties the ad but leaves its parent scope, which a
    // selection from it still searches: none in a list `ad["name"]` copied
    // (the copy cleared it), the ad `eval` ran in for a list `eval` made
    // (`[A = eval("{[q = 1]}"); z = 5]["A"][0].z` is 5, `.q` UNDEFINED).
    match value {
        Value::Ad(ad) => Value::Ad(emptied_ad(
            if list.scope.detached {
                None
            } else {
                ad.parent.clone()
            },
            false,
        )),
        _ => Value::List(Arc::from(Vec::new())),
    }
}

/// `chain` (an ad and the ads enclosing it) with `freed` and the ads of
/// the chain below it emptied, as HTCondor's destructor leaves an ad it
/// freed (no attributes, its parent scope kept): `[c = 1; B = [c = 6;
/// D = eval("[s = 1]")]]["B"]["D"].c` is UNDEFINED, since the copy of `B`
/// that `eval` ran in is freed with the subscript that took it. `chain`
/// itself when `freed` is not in it.
fn freed_in_chain(chain: &AdRef, freed: &AdRef) -> AdRef {
    let mut below = 0;
    let mut current = chain;
    while !Arc::ptr_eq(current, freed) {
        below += 1;
        match &current.parent {
            Some(parent) => current = parent,
            None => return chain.clone(),
        }
    }
    let mut rebuilt = emptied_ad(freed.parent.clone(), false);
    for _ in 0..below {
        rebuilt = emptied_ad(Some(rebuilt), false);
    }
    rebuilt
}

/// Whether `ad` is `scope` or written inside it (`scope` is on its chain
/// of enclosing ads).
fn written_in(ad: &AdRef, scope: &AdRef) -> bool {
    let mut current = Some(ad);
    while let Some(ad) = current {
        if Arc::ptr_eq(ad, scope) {
            return true;
        }
        current = ad.parent.as_ref();
    }
    false
}

/// An ad or a list that a subscript takes out of a list of values
/// HTCondor's functions make (`evalInEachContext`'s result, or a list of
/// values taken by `ad["name"]`), as HTCondor's subscript leaves it. Such
/// a list owns literals holding its values; the subscript hands on a
/// pointer into the literal, and the list (owned by the subscript's
/// operand alone) is freed when the subscript is done, emptying what the
/// pointer points to: an ad with no attributes, which keeps the ad it
/// was written in as parent (`evalInEachContext(P, {[P = [a = 1]]})[0]`
/// has size 0 and `.a` UNDEFINED, while `.parent` is still the listed ad
/// and a name `.q` found from there is found), and a list with no
/// elements (`evalInEachContext(P, {[P = {1, 2}]})[0][1]` is ERROR). The
/// whole list prints as written. Numbers and strings are whole values.
/// (Printing the element itself crashes HTCondor: docs/differences.md.)
fn freed_with_shared_list(value: Value) -> Value {
    match value {
        Value::Ad(ad) => Value::Ad(emptied_ad(ad.parent.clone(), ad.detached)),
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => {
            Value::List(Arc::from(Vec::new()))
        }
        other => other,
    }
}

/// Whether `expr` is an ad or a list literal, in parentheses or not.
fn literal_element(expr: &classad_syntax::Expr) -> bool {
    use classad_syntax::ExprKind;
    match &expr.kind {
        ExprKind::Ad(_) | ExprKind::List(_) => true,
        ExprKind::Paren(inner) => literal_element(inner),
        _ => false,
    }
}

/// An ad as HTCondor's destructor leaves one it freed: no attributes, the
/// parent scope kept (`parent`).
fn emptied_ad(parent: Option<AdRef>, detached: bool) -> AdRef {
    Arc::new(AdValue {
        body: freed_body().clone(),
        parent,
        detached,
        copy: 0,
    })
}

/// The body of an ad HTCondor freed (see [`freed_with_list`]): empty.
fn freed_body() -> &'static Arc<crate::ad::AdBody> {
    static BODY: std::sync::LazyLock<Arc<crate::ad::AdBody>> =
        std::sync::LazyLock::new(|| Arc::new(crate::ad::AdBody::new()));
    &BODY
}

/// The root of a new evaluation state HTCondor starts in `ad`
/// (`EvalState::SetScopes`: the outermost ad of its parent chain), where
/// it is not `ad.root()`: an ad copied by a selection over a list has no
/// parent scope there, so a new state started in it or in an ad written in
/// it has that ad as its root (`{[c = [y = root; a = MY["y"]]]}.c[0].a`
/// is the ad itself). With no current ad (an element of a list that lost
/// its scope), a state without a root (see [`no_root_body`]). `None` when
/// the root is the end of the chain.
fn new_state_root(ad: &AdRef) -> Option<AdRef> {
    if no_current_ad(ad) {
        return Some(AdValue::top_level(no_root_body().clone()));
    }
    outermost_below_lost_scope(ad).cloned()
}

/// Whether `expr` is only references and selections (the bases of
/// selections in parentheses or not), which pass a failed evaluation on
/// without a value of their own.
fn selection_chain(expr: &classad_syntax::Expr) -> bool {
    use classad_syntax::ExprKind;
    match &expr.kind {
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) => true,
        // A selection whose base fails leaves the value untouched, whatever
        // the base is: `[a = {a[0].a}].a[0]` and `[a = {(a[0] + 1).a}].a[0]`
        // are UNDEFINED.
        ExprKind::Select { .. } => true,
        // HTCondor's parentheses make a failed evaluation ERROR
        // (`OperationParens`): `[a = {(a.a)}].a` is `{ error }`, while
        // `[a = {(a).a}].a` is `{ undefined }` (the selection fails).
        ExprKind::Paren(_) => false,
        _ => false,
    }
}

/// Most selections over lists inside one another (`Vm::map_nesting`).
const MAX_NESTED_MAPS: u32 = 3000;

/// The value HTCondor's failed evaluation of `source` leaves: a reference
/// or a selection passes on the value its failed part left (a selection
/// whose base failed leaves it UNDEFINED, untouched), an operation or a
/// call makes it ERROR.
fn failed_value(source: &classad_syntax::Expr, value: Value) -> Value {
    if selection_chain(source) {
        value
    } else {
        Value::Error
    }
}

/// Whether a `Requirements` value accepts the match, as HTCondor's
/// matchmaking reads it: true, or a number other than zero (NaN included).
fn accepts(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

fn requirements_symbol() -> &'static Symbol {
    static REQUIREMENTS: std::sync::LazyLock<Symbol> =
        std::sync::LazyLock::new(|| Symbol::new("Requirements"));
    &REQUIREMENTS
}

/// Per-thread evaluation state. Create one per thread and reuse it.
pub struct Vm {
    stack: Vec<Value>,
    /// Attributes being evaluated, as (ad body address, copy, slot):
    /// re-entering one is a circular reference. The body, not the ad value,
    /// is the key because every evaluation of a nested ad literal makes a
    /// new value around the same body, as HTCondor's literal is one object;
    /// a copy HTCondor made of the ad (`AdValue::copy`) has trees of its
    /// own.
    active: Vec<(usize, u64, u32)>,
    depth: u32,
    /// Times a list element or a selection over a list ran into the depth
    /// limit: HTCondor's evaluation fails there (a list that holds itself
    /// through a selection, `[b = {b.b}].b`), which a selection over a list
    /// passes on as UNDEFINED and an operator turns into ERROR.
    depth_failures: u64,
    steps: u64,
    /// Work charged by builtins (`Vm::charge`), against a budget of its
    /// own of the same size as the steps'.
    work: u64,
    /// The lowest height of the stack since the step budget ran out
    /// (`usize::MAX` before): a call whose arguments start below it was
    /// under way then, and finishes (`exhausted_step`).
    exhausted_floor: usize,
    /// Bytes of values produced so far by this evaluation.
    memory: u64,
    /// Whether this evaluation went past its memory budget (its value is
    /// then ERROR, whatever the evaluation made of it).
    memory_exceeded: bool,
    options: Options,
    clock: Clock,
    /// Argument buffer reused by calls.
    call_args: Vec<Value>,
    /// The counts of failures `Instr::NoteArgs` noted before the arguments
    /// of the calls under way that take them (`Instr::Call::noted`), the
    /// innermost last, each with the count of arguments from there on (a
    /// call's notes start with its argument count, where the count of
    /// failures is the one before its first argument, and end with 0,
    /// after its last). A boundary between arguments without a note has
    /// the count of the last one before it (only constants that cannot
    /// fail are between them).
    failure_notes: Vec<(u16, u64)>,
    /// Where the notes of the noted call being made start in
    /// `failure_notes`, and whether any of its arguments failed (the count
    /// of failures grew: usually not, and then no argument need be looked
    /// up).
    call_notes: Option<(usize, bool)>,
    /// Lazy lists being forced, as (elements address, scope body address).
    forcing: Vec<(usize, usize)>,
    /// Selections over lists being mapped, one inside another. HTCondor
    /// maps a list in a list at the same depth, so a list that finds
    /// itself again this way never ends there (its process crashes,
    /// `[x = {x}; y = x.a].y`); here such nesting ends in ERROR.
    map_nesting: u32,
    /// Lists being forced one inside another (a function's argument, a
    /// value handed back), bounded as `map_nesting` is.
    force_nesting: u32,
    /// While a list element runs in a scope other than the list's (a
    /// selection over the list), the element's program (by address) and
    /// the list's scope: ad and list literals written in the element keep
    /// the ad they were written in as parent, as HTCondor's copy of the
    /// element keeps their parent scope
    /// (`[a = {[A = [A = 1]].A}; c = true].a.c` is `{ true }`,
    /// `[l = {{x}[0]}; x = 1; r = [x = 2; s = sum(l)]].r.s` is 1).
    literal_parent: Option<(usize, AdRef)>,
    /// HTCondor's root of the evaluation (`EvalState::rootAd`: what `root`,
    /// `toplevel` and `.name` find) where it is not the root of the scope
    /// chain being evaluated in; `None` everywhere else. HTCondor keeps one
    /// root per evaluation state and starts a new state, with the outermost
    /// ad of the new scope's chain as its root, for `ad["name"]`, for each
    /// element of a selection over a list and for `evalInEachContext`; an
    /// ad or list it copied there has no parent, so the root stays the one
    /// of the state that reads it: see [`new_state_root`] and
    /// [`Vm::evaluation_root`].
    state_root: Option<AdRef>,
    /// Levels of the evaluation states around the current one
    /// (`evalInEachContext` starts one with its own depth budget): bounds
    /// the whole nesting, which the stack must hold.
    outer_depth: u32,
    /// The ad a lazy function's lookup left current (see
    /// [`CallContext::leave_scope`]), taken by the caller's loop.
    left_scope: Option<AdRef>,
    /// The ad current before each selection's base under way (the
    /// program's `left` at `EnterBase`), put back by `Select`: HTCondor's
    /// `base.name` restores its state's current ad when done, so an ad a
    /// call in the base left current (`unresolved(A).a`) ends with it.
    select_lefts: Vec<Option<AdRef>>,
    /// Lists and ads `eval` made from the literal it parsed, held (so that
    /// their addresses stay theirs) until `ad["name"]` takes them over or
    /// the evaluation ends: see [`Vm::note_eval_made`].
    eval_made: Vec<Value>,
    /// The ads `evalInEachContext` and `countMatches` are evaluating in
    /// within a match, each with the alternate scope HTCondor's
    /// `evaluateInContext` gives it for the time (see
    /// [`Vm::alternate_scope_of`]): an unscoped name no enclosing ad
    /// defines is looked up there, as from the ads of the match.
    alternate_scopes: Vec<(AdRef, AdRef)>,
    /// Seed of the pseudo-random generator behind `random()`.
    pub random_state: u64,
}

std::thread_local! {
    /// HTCondor's MatchClassAd of the last match that needed it on this
    /// thread (see [`Vm::match_ad`]), kept while the same pair is
    /// evaluated. Not a field of the VM: a VM on the stack (the compiler's
    /// constant folding makes one inside its recursion over the tree) stays
    /// as small as it was, and so does the compiler's stack.
    static MATCH_AD: std::cell::RefCell<Option<MatchAd>> = const { std::cell::RefCell::new(None) };
}

/// Whether `ad` is the MatchClassAd this thread made last (see
/// [`Vm::match_ad`]).
fn is_match_ad(ad: &AdRef) -> bool {
    ad.parent.is_none()
        && MATCH_AD.with_borrow(|made| made.as_ref().is_some_and(|made| Arc::ptr_eq(&made.ad, ad)))
}

/// HTCondor's MatchClassAd made for one pair: the pair and the ad.
struct MatchAd {
    left: AdRef,
    right: AdRef,
    ad: AdRef,
}

/// The attributes of HTCondor's MatchClassAd (`classad::MatchClassAd`), in
/// its order: the context ad of each side, the two ads (`LEFT` is the MY
/// of the evaluation, `RIGHT` its TARGET; no text: the ads themselves),
/// and what the negotiator reads.
const MATCH_ATTRIBUTES: [(&str, &str); 9] = [
    (
        "lCtx",
        "[ ad = .LEFT; my = .LEFT; other = .RIGHT; target = .RIGHT ]",
    ),
    ("LEFT", ""),
    (
        "rCtx",
        "[ ad = .RIGHT; my = .RIGHT; other = .LEFT; target = .LEFT ]",
    ),
    ("RIGHT", ""),
    ("leftRankValue", "LEFT.rank"),
    ("rightRankValue", "RIGHT.rank"),
    ("symmetricMatch", "RIGHT.requirements && LEFT.requirements"),
    ("leftMatchesRight", "RIGHT.requirements"),
    ("rightMatchesLeft", "LEFT.requirements"),
];

/// A program of the MatchClassAd's definitions, written as the compiler
/// would make it (the VM cannot call the compiler).
fn match_program(
    code: &[crate::bytecode::Instr],
    names: &[&str],
    ads: Vec<Arc<AdBody>>,
) -> Arc<Program> {
    let pools = crate::bytecode::Pools {
        names: names.iter().map(Symbol::new).collect(),
        ads,
        ..crate::bytecode::Pools::default()
    };
    Arc::new(Program::new(code, pools).expect("a valid program"))
}

/// An attribute of the MatchClassAd's definitions.
fn match_definition(name: &str, text: &str, program: Arc<Program>) -> Attribute {
    Attribute {
        name: Name::new(name),
        source: Arc::new(classad_syntax::parse_expression(text).expect("valid text")),
        program,
    }
}

/// The bodies of the two context ads of the MatchClassAd, `lCtx` and
/// `rCtx` (`[ ad = .OWN; my = .OWN; other = .OTHER; target = .OTHER ]`),
/// made once: every `lCtx` ad has the first as its body, which tells the
/// context ads apart from other ads (see [`Vm::alternate_scope_of`]).
fn context_bodies() -> &'static [Arc<AdBody>; 2] {
    static BODIES: std::sync::LazyLock<[Arc<AdBody>; 2]> = std::sync::LazyLock::new(|| {
        use crate::bytecode::Instr;
        let context = |own: &str, other: &str| {
            let mut body = AdBody::new();
            for (name, side) in [
                ("ad", own),
                ("my", own),
                ("other", other),
                ("target", other),
            ] {
                let load = match_program(&[Instr::LoadRoot(0), Instr::Return], &[side], Vec::new());
                body.insert(match_definition(name, &format!(".{side}"), load));
            }
            Arc::new(body)
        };
        [context("LEFT", "RIGHT"), context("RIGHT", "LEFT")]
    });
    &BODIES
}

/// The definitions of the MatchClassAd the same in every match (`None`
/// at `LEFT` and `RIGHT`), made once.
fn match_definitions() -> &'static [Option<Arc<Definition>>; 9] {
    static DEFINITIONS: std::sync::LazyLock<[Option<Arc<Definition>>; 9]> =
        std::sync::LazyLock::new(|| {
            use crate::bytecode::Instr;
            // `A.name`
            let select = |base: &str, name: &str| {
                let code = [
                    Instr::EnterBase(3),
                    Instr::LoadAttr(0),
                    Instr::Select(1),
                    Instr::Return,
                ];
                match_program(&code, &[base, name], Vec::new())
            };
            let both = {
                let code = [
                    Instr::EnterBase(3),
                    Instr::LoadAttr(0),
                    Instr::Select(1),
                    Instr::AndTest(8),
                    Instr::EnterBase(7),
                    Instr::LoadAttr(2),
                    Instr::Select(1),
                    Instr::AndCombine,
                    Instr::Return,
                ];
                match_program(&code, &["RIGHT", "requirements", "LEFT"], Vec::new())
            };
            let make_ad = |body: Arc<AdBody>| {
                match_program(&[Instr::MakeAd(0), Instr::Return], &[], vec![body])
            };
            let programs = [
                Some(make_ad(context_bodies()[0].clone())),
                None,
                Some(make_ad(context_bodies()[1].clone())),
                None,
                Some(select("LEFT", "rank")),
                Some(select("RIGHT", "rank")),
                Some(both),
                Some(select("RIGHT", "requirements")),
                Some(select("LEFT", "requirements")),
            ];
            let mut out: [Option<Arc<Definition>>; 9] = Default::default();
            for ((slot, (name, text)), program) in
                out.iter_mut().zip(MATCH_ATTRIBUTES).zip(programs)
            {
                *slot = program.map(|program| {
                    Arc::new(Definition::new(match_definition(name, text, program)))
                });
            }
            out
        });
    &DEFINITIONS
}

/// HTCondor's MatchClassAd around `left` (MY) and `right` (TARGET).
/// Out of line: the recursive evaluation's frames stay small.
#[cold]
#[inline(never)]
fn build_match_ad(left: &AdRef, right: &AdRef) -> AdRef {
    AdValue::top_level(match_ad_body(left, right, false))
}

/// The attributes of the MatchClassAd around `left` and `right`. In a
/// `copy` (HTCondor's `ClassAd::Copy`, see [`Vm::orphan`]) `LEFT` and
/// `RIGHT` are copies of the two ads written in it: their parent is the
/// copy, and they are no longer the ads of a match.
fn match_ad_body(left: &AdRef, right: &AdRef, copy: bool) -> Arc<AdBody> {
    let mut body = AdBody::new();
    for (definition, (name, _)) in match_definitions().iter().zip(MATCH_ATTRIBUTES) {
        match definition {
            Some(definition) => body.insert_definition(definition.clone()),
            None => {
                let side = if name == "LEFT" { left } else { right };
                // Printed as the ad is (HTCondor's `LEFT = [ ... ]`).
                let mut source = classad_syntax::AdExpr::new();
                for definition in side.body.attributes() {
                    source.insert(definition.name.clone(), (*definition.source).clone());
                }
                body.insert(Attribute {
                    name: Name::new(name),
                    source: Arc::new(classad_syntax::Expr {
                        kind: classad_syntax::ExprKind::Ad(Box::new(source)),
                        span: classad_syntax::Span::default(),
                    }),
                    program: if copy {
                        match_program(
                            &[
                                crate::bytecode::Instr::MakeAd(0),
                                crate::bytecode::Instr::Return,
                            ],
                            &[],
                            vec![side.body.clone()],
                        )
                    } else {
                        Arc::new(Program::constant(Value::Ad(side.clone())))
                    },
                });
            }
        }
    }
    Arc::new(body)
}

/// What a function sees of the evaluation that calls it.
pub struct CallContext<'a> {
    /// The VM, for functions that evaluate (`eval`, `ifThenElse`, ...).
    pub vm: &'a mut Vm,
    /// The match the call is evaluated in, if any.
    pub env: Env<'a>,
    /// The ad the call is evaluated in.
    pub scope: &'a AdRef,
}

impl CallContext<'_> {
    /// Leaves `ad` as the ad the rest of the caller's expression looks
    /// names up from, as HTCondor's `AttributeReference::Deref` leaves its
    /// lookup's last ad current in the caller's evaluation state
    /// (`evalInEachContext` and `countMatches` of an attribute found
    /// outside the ad, or not found: `[v = 1; r = size(evalInEachContext(P,
    /// {})) + v].r` looks `v` up in the ad around). It holds until the
    /// attribute being evaluated is done, as HTCondor restores the current
    /// ad there.
    /// An evaluation the call makes in its caller's HTCondor state (an
    /// element of a list argument, an argument evaluated lazily, the text
    /// `eval` reads) later ones of the same call and the rest of the
    /// caller's expression go on from (`[v = 1; r = sum({countMatches(P,
    /// {}), v})].r` is 0, `eval("countMatches(P, {})") + v` looks `v` up
    /// where `P`'s lookup ended). Ad and list literals are not affected:
    /// they keep the ad they are written in as parent
    /// (`[c = 7; A = countMatches(B, {}) + [x = 1].c].A` is 7).
    pub fn leave_scope(&mut self, ad: AdRef) {
        if self.vm.left_scope.is_none() && !Arc::ptr_eq(&ad, self.scope) {
            self.vm.left_scope = Some(ad);
        }
    }

    /// Runs `program` in `scope` in the caller's evaluation state: from
    /// the ad an earlier evaluation of the call left current (see
    /// [`CallContext::leave_scope`]), and leaving the ad it ends in for
    /// the next one.
    fn run_in_callers_state(&mut self, program: &Program, scope: &AdRef) -> Value {
        let left = self.vm.left_scope.take();
        self.vm.run_in_state::<true>(self.env, program, scope, left)
    }

    /// Evaluates `program` in the caller's scope (and state, see
    /// [`CallContext::leave_scope`]).
    /// Counts as one level of depth (ERROR at the limit), so a function
    /// that evaluates itself this way ends.
    pub fn evaluate(&mut self, program: &Program) -> Value {
        if self.vm.depth >= self.vm.options.limits.max_depth {
            return Value::Error;
        }
        let scope = self.scope;
        self.deeper(1, |context| {
            let value = context.run_in_callers_state(program, scope);
            context.vm.force(context.env, Some(scope), value)
        })
    }

    /// Evaluates `program` in the caller's scope (and state), leaving a
    /// list as written (its elements unevaluated), as HTCondor's value of a
    /// list is: for the base of a selection a function dereferences. One
    /// level deeper, as [`CallContext::evaluate`].
    pub fn evaluate_as_written(&mut self, program: &Program) -> Value {
        if self.vm.depth >= self.vm.options.limits.max_depth {
            return Value::Error;
        }
        let scope = self.scope;
        self.deeper(1, |context| context.run_in_callers_state(program, scope))
    }

    /// Evaluates `program` in the caller's scope and state at the call's
    /// own depth (no level), leaving a list as written, and tells whether
    /// the evaluation failed (the failure stays counted): the argument of
    /// `eval`, which HTCondor evaluates in the caller's state without a
    /// level of its own.
    pub fn evaluate_here(&mut self, program: &Program) -> (Value, bool) {
        let failures = self.vm.depth_failures;
        let scope = self.scope;
        let value = self.run_in_callers_state(program, scope);
        (value, self.vm.depth_failures > failures)
    }

    /// Evaluates `program`, the text `eval` parsed, in the caller's scope
    /// and state one level deeper, leaving a list as written, as
    /// HTCondor's `eval` does: at the depth limit the call fails (ERROR),
    /// and an evaluation that fails is ERROR, the failure passed on.
    pub fn evaluate_parsed(&mut self, program: &Program) -> Value {
        if self.vm.depth >= self.vm.options.limits.max_depth {
            self.vm.depth_failures += 1;
            return Value::Error;
        }
        let (value, failed) = self.deeper(1, |context| context.evaluate_here(program));
        if failed { Value::Error } else { value }
    }

    /// Runs `f` `levels` levels deeper.
    fn deeper<T>(&mut self, levels: u32, f: impl FnOnce(&mut Self) -> T) -> T {
        self.vm.depth += levels;
        let value = f(self);
        self.vm.depth -= levels;
        value
    }

    /// Runs `f`, forgetting whether the evaluations it made failed (each
    /// keeps the value its failure left): for a function that, as
    /// HTCondor's, ignores whether the evaluation of an element succeeded
    /// (`evalInEachContext` and `countMatches` of a list whose element
    /// calls them over the list again end with that element ERROR at the
    /// depth limit, which is not an ad).
    pub fn ignoring_failures<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.taking_failures(f).0
    }

    /// [`CallContext::ignoring_failures`], telling also whether an
    /// evaluation `f` made failed: for a function that treats a failed
    /// evaluation as a missing value (`formatTime` of an ad whose `Year`
    /// fails to evaluate reads it as absent, as HTCondor's
    /// `EvaluateAttrInt` does, and HTCondor's `AttributeReference::Deref`
    /// answers `EVAL_FAIL`, which its caller checks and forgets).
    pub fn taking_failures<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (T, bool) {
        let failures = self.vm.depth_failures;
        let value = f(self);
        let failed = self.vm.depth_failures > failures;
        self.vm.depth_failures = failures;
        (value, failed)
    }

    /// Element `i` of the list `value`, evaluated where the call is and in
    /// its state (see [`CallContext::leave_scope`]), for a function that
    /// walks the list and may stop before its end, as every HTCondor
    /// function that reads a list's elements does (`member`, `sum`,
    /// `anyCompare`, `regexpMember`, ...: `[y = {2, member(2, y) || 1}].y[1]`
    /// is true, the walk stops at the first element, before the one that
    /// would evaluate the list again). The element's own lists are left as
    /// written (HTCondor's function sees a list there, whatever its
    /// elements); with `plain`, a relative time's literal is its value, a
    /// real, as a function that computes with the element reads it.
    ///
    /// `None` past the end and for a value that is not a list. `Err` holds
    /// the value an element whose evaluation failed left (at the depth
    /// limit, `[B = {B.b}]`): the failure counts, so the call fails, as
    /// HTCondor's functions mostly return false there; a function that
    /// goes on instead (`regexpMember`, `evalInEachContext`) walks under
    /// [`CallContext::ignoring_failures`].
    #[inline]
    pub fn list_element(
        &mut self,
        value: &Value,
        i: usize,
        plain: bool,
    ) -> Option<Result<Value, Value>> {
        let scope = self.scope;
        self.list_element_in(value, i, scope, plain)
    }

    /// [`CallContext::list_element`] with the element evaluated in `scope`
    /// (an ad literal keeps the ad it was written in).
    #[inline]
    pub fn list_element_in(
        &mut self,
        value: &Value,
        i: usize,
        scope: &AdRef,
        plain: bool,
    ) -> Option<Result<Value, Value>> {
        match value {
            // Values already: read in place (the common case of a list of
            // constants, walked element by element by `sum`, `member`...).
            Value::List(items) | Value::SharedList(items) => {
                items.get(i).map(|item| Ok(item.element_value()))
            }
            Value::LazyList(list) => self.lazy_list_element(list, i, scope, plain),
            _ => None,
        }
    }

    /// Element `i` of a lazy list, evaluated: see
    /// [`CallContext::list_element`].
    fn lazy_list_element(
        &mut self,
        list: &LazyList,
        i: usize,
        scope: &AdRef,
        plain: bool,
    ) -> Option<Result<Value, Value>> {
        if i >= list.items.len() {
            return None;
        }
        // An element that evaluates its own list again through a function
        // is bounded as nested forcing is.
        if self.vm.force_nesting >= self.vm.options.limits.max_depth {
            self.vm.depth_failures += 1;
            return Some(Err(Value::Error));
        }
        self.vm.force_nesting += 1;
        let failures = self.vm.depth_failures;
        let mut left = self.vm.left_scope.take();
        let item = self
            .vm
            .run_element_in_state(self.env, list, i, scope, Some(&mut left));
        self.vm.left_scope = left;
        self.vm.force_nesting -= 1;
        let item = match item {
            Value::RelTimeLiteral(secs) if plain => Value::Real(secs),
            item => item,
        };
        Some(if self.vm.depth_failures > failures {
            Err(item)
        } else {
            Ok(item)
        })
    }

    /// [`CallContext::list_element`] evaluated `levels` levels deeper than
    /// the call (`join`'s, as HTCondor evaluates each argument of `join`
    /// one level deeper: a `join` over its own list ends at the depth
    /// limit).
    pub fn list_element_deeper(
        &mut self,
        value: &Value,
        i: usize,
        levels: u32,
    ) -> Option<Result<Value, Value>> {
        self.vm.depth += levels;
        let item = self.list_element(value, i, false);
        self.vm.depth -= levels;
        item
    }

    /// Evaluates `program` in `scope` at the caller's depth (and in its
    /// state), leaving a list as written: an argument a function evaluates
    /// itself.
    pub fn evaluate_argument_in(&mut self, program: &Program, scope: &AdRef) -> Value {
        self.run_in_callers_state(program, scope)
    }

    /// Evaluates `program` in `scope`, leaving a list as written.
    /// Counts as one level of depth, as [`CallContext::evaluate`] does.
    pub fn evaluate_as_written_in(&mut self, program: &Program, scope: &AdRef) -> Value {
        if self.vm.depth >= self.vm.options.limits.max_depth {
            return Value::Error;
        }
        self.deeper(1, |context| context.vm.run(context.env, program, scope))
    }

    /// The root of the caller's evaluation state (what `root` and `.name`
    /// find there), or `None` in a state without one, where HTCondor's
    /// lookup of `root` fails (see `no_root_body`).
    pub fn evaluation_root(&mut self) -> Option<AdRef> {
        let root = self.vm.evaluation_root(self.env, self.scope);
        (!is_no_root(&root)).then_some(root)
    }

    /// The ad an unscoped name looked up from the call's ad falls back to
    /// when no enclosing ad has it (HTCondor's alternate scope, none in
    /// strict mode): from either ad of a match the other, from an ad
    /// `evalInEachContext` evaluates in the one it gave it
    /// (`Vm::alternate_scope_of`); none from an ad written inside them.
    pub fn alternate_scope(&self) -> Option<AdRef> {
        if self.vm.options.strict {
            return None;
        }
        if self.scope.parent.is_none() {
            return self.env.target_of(self.scope).cloned();
        }
        self.vm.alternate_scope(self.scope)
    }

    /// Whether the call is evaluated in a match (either mode), where
    /// HTCondor's lookups walk on to the match ad.
    pub fn in_match(&self) -> bool {
        self.env.target_of(self.scope).is_some()
    }

    /// The ad HTCondor's lookup goes on to from `ad` when `ad` lacks a
    /// name: its parent scope ([`parent_scope`]), and at the top of
    /// either ad of a match the context ad HTCondor's MatchClassAd puts
    /// there (`lCtx` above MY, `rCtx` above TARGET), whose parent is the
    /// match ad (see `MATCH_ATTRIBUTES`). Only the introspection functions
    /// walk this way; the VM's own lookup answers the context ad's names
    /// without making it (`Vm::match_context`).
    pub fn scope_above(&mut self, ad: &AdRef) -> Option<AdRef> {
        if let Some(parent) = parent_scope(ad) {
            return Some(parent.clone());
        }
        let (left, right) = self.env.pair?;
        let name: &[u8] = if Arc::ptr_eq(ad, left) {
            b"lctx"
        } else if Arc::ptr_eq(ad, right) {
            b"rctx"
        } else {
            return None;
        };
        match self.vm.match_attribute(self.env, name)? {
            Value::Ad(context) => Some(context),
            _ => None,
        }
    }

    /// Evaluates `program` in another ad (as `evalInEachContext` does).
    pub fn evaluate_in(&mut self, program: &Program, scope: &AdRef) -> Value {
        if self.vm.depth >= self.vm.options.limits.max_depth {
            return Value::Error;
        }
        self.deeper(1, |context| {
            let left = context.vm.left_scope.take();
            let value = context.vm.run(context.env, program, scope);
            let value = context.vm.force(context.env, Some(scope), value);
            context.vm.left_scope = left;
            value
        })
    }

    /// Whether evaluating the call's arguments `levels` levels deeper than
    /// the call would pass the depth limit, as HTCondor's `strcat` and
    /// `join` check before each argument: the call then fails (its value
    /// is ERROR), whatever its arguments were (`strcat({z})` fails where
    /// `strcat({1})`, folded, does).
    pub fn past_depth_limit(&mut self, levels: u32) -> bool {
        if self.vm.depth.saturating_add(levels) > self.vm.options.limits.max_depth {
            self.vm.depth_failures += 1;
            return true;
        }
        false
    }

    /// Whether the evaluation of argument `i` failed, for a call that notes
    /// its arguments' failures (`Arguments::notes_failures`: `strcat`, `join`,
    /// ...; false for any other).
    pub fn argument_failed(&self, i: usize) -> bool {
        if !matches!(self.vm.call_notes, Some((_, true))) {
            return false;
        }
        let notes = self.notes();
        let Some(&(argc, _)) = notes.first() else {
            return false;
        };
        if i >= usize::from(argc) {
            return false;
        }
        // The note after argument `i`, if it has one (a constant that
        // cannot fail has none), and the one before.
        let left = usize::from(argc) - i;
        let next = notes.partition_point(|&(remaining, _)| usize::from(remaining) >= left);
        match (notes.get(next.wrapping_sub(1)), notes.get(next)) {
            (Some(&(_, before)), Some(&(remaining, after))) => {
                usize::from(remaining) + 1 == left && after > before
            }
            _ => false,
        }
    }

    /// The notes of the noted call being made (none for another call).
    fn notes(&self) -> &[(u16, u64)] {
        self.vm
            .call_notes
            .and_then(|(start, _)| self.vm.failure_notes.get(start..))
            .unwrap_or(&[])
    }

    /// The count of failures before argument `n` of the noted call being
    /// made (after the last for `n` its argument count).
    fn note_before(&self, n: usize) -> Option<u64> {
        let notes = self.notes();
        let argc = usize::from(notes.first()?.0);
        let left = argc.checked_sub(n)?;
        // The notes count down the arguments left: the last one at or
        // before argument `n`.
        let after = notes.partition_point(|&(remaining, _)| usize::from(remaining) >= left);
        Some(notes[after.checked_sub(1)?].1)
    }

    /// Forgets the failures of the arguments after the first `n`, for a
    /// function that, as HTCondor's, stops after its argument `n - 1` and
    /// never evaluates the rest (`strcat`, `join`, `formatTime`,
    /// `anyCompare`, `mergeEnvironment`), or ignores whether an argument's
    /// evaluation failed (`userHome`, `stringListsIntersect`: `n` 0): their
    /// failure at the depth limit does not fail the call there. Only for a
    /// call that notes its arguments' failures (a function whose
    /// `Builtin::arguments` says so).
    pub fn keep_failures_of(&mut self, n: usize) {
        if let Some(note) = self.note_before(n) {
            self.vm.depth_failures = self.vm.depth_failures.min(note);
        }
    }

    /// Returns `value` after forgetting the failures of the arguments
    /// after argument `i` ([`CallContext::keep_failures_of`]): the answer
    /// of a function that stops at argument `i`.
    pub fn stop_at(&mut self, i: usize, value: Value) -> Value {
        self.keep_failures_of(i + 1);
        value
    }

    /// Fails the evaluation as an HTCondor function does when it returns
    /// false (`userHome` with a wrong number of arguments): the call's value
    /// is the one the function returns (ERROR), and an operation, a list
    /// element or a selection over it fails with it as at the depth limit.
    pub fn fail(&mut self) {
        self.vm.depth_failures += 1;
    }

    /// Charges `work` units of builtin work to the evaluation (a budget
    /// of the size of [`Limits::max_steps`], counted apart from its steps);
    /// false once it is past its budget, when the function should return
    /// ERROR without doing the work.
    #[inline]
    pub fn charge(&mut self, work: u64) -> bool {
        self.vm.charge(work)
    }

    /// Charges the scanning of `bytes` bytes.
    #[inline]
    pub fn charge_bytes(&mut self, bytes: usize) -> bool {
        self.vm.charge(bytes as u64 / BYTES_PER_STEP)
    }

    /// Counts `bytes` of values the function is about to produce, and the
    /// time of writing them; false (the function returns ERROR without
    /// allocating) past the memory or step budget.
    #[inline]
    pub fn reserve(&mut self, bytes: usize) -> bool {
        self.vm.reserve(bytes as u64) && self.charge_bytes(bytes)
    }

    /// Counts a list of `count` values about to be produced.
    #[inline]
    pub fn reserve_values(&mut self, count: usize) -> bool {
        self.vm.reserve(count as u64 * VALUE_BYTES) && self.vm.charge(count as u64)
    }

    /// The memory this evaluation may still produce.
    pub fn memory_left(&self) -> u64 {
        self.vm
            .options
            .limits
            .max_memory
            .saturating_sub(self.vm.memory)
    }

    /// The current time in seconds since the epoch.
    pub fn now(&self) -> f64 {
        (self.vm.clock)()
    }

    /// The expression of the attribute `name` as an unscoped reference in
    /// the caller's scope would find it (the scope chain, then TARGET unless
    /// strict), for `unparse` and `unresolved`.
    pub fn attribute_source(&self, name: &str) -> Option<Arc<classad_syntax::Expr>> {
        self.attribute_definition(name).map(|a| a.source)
    }

    /// The attribute `name` as an unscoped reference in the caller's scope
    /// would find it: the scope chain, then TARGET unless strict.
    pub fn attribute_definition(&self, name: &str) -> Option<Attribute> {
        definition_in(self.scope, name).or_else(|| {
            let target = self
                .env
                .target_of(self.scope)
                .filter(|_| !self.vm.options.strict)?;
            definition_in(target, name)
        })
    }

    /// Evaluates `program` in `ad` as the root of its evaluation (HTCondor
    /// evaluates `evalInEachContext`'s expression with the listed ad as
    /// both the current and the root ad). Ad and list literals written in
    /// `program` keep `written_in`, the ad the expression was written in,
    /// as their parent, as HTCondor's literals keep the parent scope the
    /// parser gave them (`[x = [b = 1].y; l = {[y = 5]}; r =
    /// evalInEachContext(x, l)].r` is `{ undefined }`). One level deeper
    /// than the call, as HTCondor counts it (so an expression that calls
    /// itself this way ends in ERROR); a failed evaluation is ERROR, not a
    /// failed call. A list value is left as written, its elements
    /// unevaluated, as HTCondor's evaluation of a list copies it:
    /// `evalInEachContext` keeps it so (`string(evalInEachContext(P, {[P =
    /// {1 + 1}]}))` is `"{ { 1 + 1 } }"`), and `countMatches` only asks
    /// whether it is true (`[c = {countMatches(c, {[b = 1], [b = 3]})}].c[0]`
    /// is 0: the elements that would call it again are never run).
    pub fn evaluate_in_context(
        &mut self,
        program: &Program,
        ad: &AdRef,
        written_in: &AdRef,
    ) -> Value {
        // HTCondor evaluates in a new state with a depth budget of its own
        // (`evalInEachContext(q, {[q = r; r = 1]})` works at the end of a
        // chain of 398 references): see `Vm::in_new_budget`.
        let failures = self.vm.depth_failures;
        let Some(value) = self.vm.in_new_budget(|vm| {
            let mut context = CallContext {
                vm,
                env: self.env,
                scope: self.scope,
            };
            context.run_in_new_state(program, ad, written_in)
        }) else {
            return Value::Error;
        };
        self.vm.depth_failures = failures;
        value
    }

    /// [`CallContext::evaluate_in_context`] inside the new depth budget.
    fn run_in_new_state(&mut self, program: &Program, ad: &AdRef, written_in: &AdRef) -> Value {
        let failures = self.vm.depth_failures;
        let saved = self
            .vm
            .literal_parent
            .replace((program as *const Program as usize, written_in.clone()));
        // A new evaluation state started in `ad` (HTCondor's
        // `evaluateInContext`).
        let env = self.env;
        let left = self.vm.left_scope.take();
        let alternate = self.vm.alternate_scope_of(env, ad);
        let pushed = alternate.is_some();
        if let Some(alternate) = alternate {
            self.vm.alternate_scopes.push((ad.clone(), alternate));
        }
        let value = self
            .vm
            .in_state(new_state_root(ad), |vm| vm.run(env, program, ad));
        if pushed {
            self.vm.alternate_scopes.pop();
        }
        self.vm.left_scope = left;
        self.vm.literal_parent = saved;
        // HTCondor's evaluateInContext makes a failed evaluation ERROR
        // (`[A = B.y; As = {[B = {b.b}]}; r = evalInEachContext(A, As)].r`
        // is `{ error }`, where the selection's failure left UNDEFINED).
        if self.vm.depth_failures > failures {
            Value::Error
        } else {
            value
        }
    }
}

/// The attribute `name` in `ad` or the first ad enclosing it that has it.
pub fn definition_in(ad: &AdRef, name: &str) -> Option<Attribute> {
    let symbol = Symbol::transient(name);
    let mut current = Some(ad);
    while let Some(ad) = current {
        if let Some(slot) = ad.body.slot(&symbol) {
            return Some(ad.body.attribute(slot).clone());
        }
        current = ad.parent.as_ref();
    }
    None
}

impl Default for Vm {
    fn default() -> Vm {
        Vm::new(Options::default())
    }
}

impl Vm {
    /// A VM with these options.
    pub fn new(options: Options) -> Vm {
        Vm {
            stack: Vec::with_capacity(64),
            active: Vec::with_capacity(16),
            depth: 0,
            depth_failures: 0,
            memory_exceeded: false,
            steps: 0,
            work: 0,
            exhausted_floor: usize::MAX,
            memory: 0,
            options,
            clock: system_clock,
            call_args: Vec::new(),
            failure_notes: Vec::new(),
            call_notes: None,
            forcing: Vec::new(),
            map_nesting: 0,
            force_nesting: 0,
            literal_parent: None,
            state_root: None,
            outer_depth: 0,
            left_scope: None,
            select_lefts: Vec::new(),
            eval_made: Vec::new(),
            alternate_scopes: Vec::new(),
            random_state: 0x853c_49e6_748f_ea9b,
        }
    }

    /// Notes a list or an ad `eval` made from the literal it parsed (the
    /// text was that literal, not a larger expression around it): HTCondor
    /// keeps the parsed tree in the evaluation state, and `ad["name"]`
    /// takes such a value over with its scope instead of copying it
    /// (`Vm::take_eval_made`).
    pub fn note_eval_made(&mut self, value: &Value) {
        if matches!(value, Value::LazyList(_) | Value::Ad(_)) {
            self.eval_made.push(value.clone());
        }
    }

    /// Whether `value` is one [`Vm::note_eval_made`] noted (the same list
    /// or ad, not an equal one); it is then no longer noted, as HTCondor
    /// takes the tree out of its state.
    fn take_eval_made(&mut self, value: &Value) -> bool {
        let same = |noted: &Value| match (noted, value) {
            (Value::LazyList(a), Value::LazyList(b)) => Arc::ptr_eq(a, b),
            (Value::Ad(a), Value::Ad(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        match self.eval_made.iter().rposition(same) {
            Some(i) => {
                self.eval_made.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// The options in force.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Sets the clock (for deterministic tests of time functions).
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    /// Evaluates `program` in `scope` (no match partner).
    pub fn evaluate(&mut self, program: &Program, scope: &AdRef) -> Value {
        self.reset();
        let value = self.run(Env::default(), program, scope);
        let value = self.force(Env::default(), None, value);
        self.finish(value)
    }

    /// Evaluates `program` in `my`, with `target` as the other ad of a
    /// match: `TARGET.x` reads `target`, and within `target`'s attributes
    /// `TARGET` is `my`.
    pub fn evaluate_in_match(&mut self, program: &Program, my: &AdRef, target: &AdRef) -> Value {
        self.reset();
        let env = Env {
            pair: Some((my, target)),
        };
        let value = self.run(env, program, my);
        let value = self.force(env, None, value);
        self.finish(value)
    }

    /// Evaluates `program` in `my` (with `target` as the other ad of a
    /// match, if any), leaving a list literal as written: its elements
    /// unevaluated, as HTCondor's value of a list is and as
    /// `ExprTree.simplify` prints it (`classad eval`).
    pub fn evaluate_as_written(
        &mut self,
        program: &Program,
        my: &AdRef,
        target: Option<&AdRef>,
    ) -> Value {
        self.reset();
        let env = Env {
            pair: target.map(|target| (my, target)),
        };
        let value = self.run(env, program, my);
        self.finish(value)
    }

    /// Evaluates attribute `name` of `ad` (UNDEFINED if it has none), with
    /// an optional match partner.
    pub fn evaluate_attribute(
        &mut self,
        ad: &AdRef,
        name: &Symbol,
        target: Option<&AdRef>,
    ) -> Value {
        self.reset();
        let env = Env {
            pair: target.map(|t| (ad, t)),
        };
        let value = match ad.body.slot(name) {
            Some(slot) => self.attribute_value(env, ad, slot),
            None => Value::Undefined,
        };
        let value = self.force(env, None, value);
        self.finish(value)
    }

    /// Evaluates `program` in each ad of `ads`, writing the values to `out`
    /// (cleared first). After the first call with a given `out`, nothing is
    /// allocated but the values the program itself builds.
    pub fn evaluate_each(&mut self, program: &Program, ads: &[AdRef], out: &mut Vec<Value>) {
        out.clear();
        out.reserve(ads.len());
        for ad in ads {
            self.reset();
            let value = self.run(Env::default(), program, ad);
            let value = self.force(Env::default(), None, value);
            out.push(self.finish(value));
        }
    }

    /// Evaluates `program` for each pair `(my, target)`, MY = `my` and
    /// TARGET = `target`, writing the values to `out` (cleared first).
    pub fn evaluate_pairs<'a>(
        &mut self,
        program: &Program,
        pairs: impl IntoIterator<Item = (&'a AdRef, &'a AdRef)>,
        out: &mut Vec<Value>,
    ) {
        out.clear();
        for (my, target) in pairs {
            self.reset();
            let env = Env {
                pair: Some((my, target)),
            };
            let value = self.run(env, program, my);
            let value = self.force(env, None, value);
            out.push(self.finish(value));
        }
    }

    /// HTCondor's symmetric match: the `Requirements` of each ad, evaluated
    /// with the other as TARGET, both accept (true, or a number other than
    /// zero).
    pub fn symmetric_match(&mut self, left: &AdRef, right: &AdRef) -> bool {
        let requirements = requirements_symbol();
        let left_ok = self.evaluate_attribute(left, requirements, Some(right));
        accepts(&left_ok) && {
            let right_ok = self.evaluate_attribute(right, requirements, Some(left));
            accepts(&right_ok)
        }
    }

    /// The `Rank` of `ad` against `target` as the negotiator reads it: a
    /// number, booleans as 1 and 0, anything else 0.0.
    pub fn rank(&mut self, ad: &AdRef, target: &AdRef) -> f64 {
        static RANK: std::sync::LazyLock<Symbol> = std::sync::LazyLock::new(|| Symbol::new("Rank"));
        match self.evaluate_attribute(ad, &RANK, Some(target)) {
            Value::Int(i) => i as f64,
            Value::Real(r) => r,
            Value::Bool(b) => f64::from(u8::from(b)),
            _ => 0.0,
        }
    }

    fn reset(&mut self) {
        self.stack.clear();
        self.forcing.clear();
        self.active.clear();
        self.map_nesting = 0;
        self.force_nesting = 0;
        self.depth = 0;
        self.depth_failures = 0;
        self.failure_notes.clear();
        self.call_notes = None;
        self.steps = 0;
        self.work = 0;
        self.exhausted_floor = usize::MAX;
        self.memory = 0;
        self.memory_exceeded = false;
        self.state_root = None;
        self.outer_depth = 0;
        self.eval_made.clear();
        self.alternate_scopes.clear();
    }

    /// HTCondor's root of the evaluation in `scope`: `root`, `toplevel`
    /// and the ad `.name` searches (see `state_root`).
    fn evaluation_root(&mut self, env: Env<'_>, scope: &AdRef) -> AdRef {
        match &self.state_root {
            Some(root) => root.clone(),
            None => self.chain_root(env, scope),
        }
    }

    /// `.name` selected in [`Vm::chain_root`]. Out of line, as the
    /// interpreter's loop keeps its frame small.
    #[inline(never)]
    fn select_in_chain_root(&mut self, env: Env<'_>, scope: &AdRef, name: &Symbol) -> Value {
        if env.pair.is_none() {
            return self.select_in_ad(env, scope.root_ref(), name);
        }
        let root = self.chain_root(env, scope);
        self.select_in_ad(env, &root, name)
    }

    /// The outermost ad of `scope`'s chain: in a match, for either ad of
    /// the pair, HTCondor's MatchClassAd around them (the root of every
    /// evaluation there).
    #[inline(never)]
    fn chain_root(&mut self, env: Env<'_>, scope: &AdRef) -> AdRef {
        let root = scope.root_ref();
        if env.target_of(root).is_some()
            && let Some(ad) = self.match_ad(env)
        {
            return ad;
        }
        root.clone()
    }

    /// HTCondor's MatchClassAd of the match `env` describes (see
    /// `MATCH_ATTRIBUTES`), made the first time an evaluation of the pair
    /// needs it (`root`, `parent` at the top of either ad, one of its
    /// attributes), which the matchmaker's own evaluations never do.
    #[inline(never)]
    fn match_ad(&mut self, env: Env<'_>) -> Option<AdRef> {
        let (left, right) = env.pair?;
        let made = MATCH_AD.with_borrow(|made| {
            made.as_ref()
                .filter(|made| Arc::ptr_eq(&made.left, left) && Arc::ptr_eq(&made.right, right))
                .map(|made| made.ad.clone())
        });
        if made.is_some() {
            return made;
        }
        let ad = build_match_ad(left, right);
        // Replaced after building: the old pair is dropped outside the
        // borrow.
        let old = MATCH_AD.replace(Some(MatchAd {
            left: left.clone(),
            right: right.clone(),
            ad: ad.clone(),
        }));
        drop(old);
        Some(ad)
    }

    /// Runs `f` in a new evaluation state with a depth budget of its own,
    /// as HTCondor's `EvalState()` has (`ad["name"]`, `evalInEachContext`), and
    /// with no attributes in flight (a new `EvalState` starts empty).
    /// HTCondor's recursion through such states never ends (its process
    /// crashes); here a new state starts only while the levels of all the
    /// states on the way, each new state one more, stay within the limit
    /// (so the stack holds at most about twice the limit): `None` past it.
    fn in_new_budget<T>(&mut self, f: impl FnOnce(&mut Vm) -> T) -> Option<T> {
        let limit = self.options.limits.max_depth;
        let total = self.outer_depth.saturating_add(self.depth);
        if total > limit {
            return None;
        }
        let saved_depth = std::mem::replace(&mut self.depth, 0);
        let saved_outer = std::mem::replace(&mut self.outer_depth, total + 1);
        // The new state knows nothing of the attributes the outer ones are
        // evaluating: one of them found again from here is evaluated once
        // more (`[y = {[A = y ?: parent["y"]]}.a].y` is `{ { { undefined }
        // } }`, the inner `y` evaluated in the subscript's state).
        let saved_active = std::mem::take(&mut self.active);
        let value = f(self);
        self.active = saved_active;
        self.depth = saved_depth;
        self.outer_depth = saved_outer;
        Some(value)
    }

    /// `root` found by a lookup in `scope`: the root of the evaluation, or,
    /// in a state without one (see [`no_root_body`]), a failed evaluation
    /// that leaves UNDEFINED.
    fn root_value(&mut self, env: Env<'_>, scope: &AdRef) -> Value {
        let root = self.evaluation_root(env, scope);
        if is_no_root(&root) {
            self.depth_failures += 1;
            return Value::Undefined;
        }
        Value::Ad(root)
    }

    /// Runs `f` in a new evaluation state whose root is `root` (see
    /// `state_root`), as HTCondor's `EvalState::SetScopes` starts one.
    #[inline]
    fn in_state<T>(&mut self, root: Option<AdRef>, f: impl FnOnce(&mut Vm) -> T) -> T {
        if root.is_none() && self.state_root.is_none() {
            return f(self);
        }
        let saved = std::mem::replace(&mut self.state_root, root);
        let value = f(self);
        self.state_root = saved;
        value
    }

    /// Adds `work` units of builtin work to this evaluation; false once it
    /// is past its budget (every expression started after that gives
    /// ERROR, as past the step budget).
    #[inline]
    pub fn charge(&mut self, work: u64) -> bool {
        // Counted apart from the steps, which are HTCondor's nodes: the
        // work of builtins is no node of its, and must not end an
        // evaluation HTCondor finishes (a chain of 22 `strcat(a, a)`
        // links copies 88 MB).
        self.work = self.work.saturating_add(work);
        if self.work > self.options.limits.max_steps {
            // Past the budget the evaluation fails, as HTCondor's does
            // past its own (see `run`).
            self.exhaust();
            self.depth_failures += 1;
            return false;
        }
        true
    }

    /// Counts the `nodes` HTCondor nodes the running instruction starts
    /// (`Program::with_nodes`); true if that passes the step budget,
    /// where the instruction fails (`exhausted_step`).
    #[inline]
    fn start(&mut self, nodes: u32) -> bool {
        self.steps += u64::from(nodes);
        self.steps > self.options.limits.max_steps
    }

    /// Counts the evaluation of a literal attribute (one node in
    /// HTCondor); false if that passes the step budget.
    #[inline]
    fn count_literal(&mut self) -> bool {
        self.steps += 1;
        if self.steps > self.options.limits.max_steps {
            self.depth_failures += 1;
            return false;
        }
        true
    }

    /// Counts `bytes` of values about to be produced; false (and the
    /// evaluation ends in ERROR) if that would pass the memory budget.
    #[inline]
    pub fn reserve(&mut self, bytes: u64) -> bool {
        self.memory = self.memory.saturating_add(bytes);
        if self.memory > self.options.limits.max_memory {
            self.memory_exceeded = true;
            self.exhaust();
            return false;
        }
        true
    }

    /// Whether this evaluation has used up a budget.
    pub fn exhausted(&self) -> bool {
        self.steps > self.options.limits.max_steps
    }

    /// Ends the evaluation: every later instruction gives ERROR.
    fn exhaust(&mut self) {
        self.steps = self
            .steps
            // Two past: `MY.name` takes back a step it counted.
            .max(self.options.limits.max_steps.saturating_add(2))
            .min(u64::MAX / 2);
    }

    /// The value of the attribute in `slot` of `ad`, evaluated in `ad`.
    fn attribute_value(&mut self, env: Env<'_>, ad: &AdRef, slot: u32) -> Value {
        // HTCondor checks the depth first, then whether the attribute is
        // being evaluated. A constant counts as a level too: HTCondor fails
        // a chain of 400 references whatever its last attribute is.
        if self.depth >= self.options.limits.max_depth {
            self.depth_failures += 1;
            return Value::Error;
        }
        if let Some(value) = ad.body.constant(slot) {
            // HTCondor evaluates the literal: one node.
            if !self.count_literal() {
                return Value::Error;
            }
            return value.clone();
        }
        let key = (Arc::as_ptr(&ad.body) as usize, ad.copy, slot);
        if self.active.contains(&key) {
            return Value::Undefined;
        }
        // Borrowed from `ad`, which the caller holds: no reference count.
        let attribute = ad.body.attribute(slot);
        let failures = self.depth_failures;
        self.active.push(key);
        self.depth += 1;
        let value = self.run(env, &attribute.program, ad);
        self.depth -= 1;
        self.active.pop();
        if self.depth_failures > failures {
            return failed_value(&attribute.source, value);
        }
        value
    }

    /// The attribute in `slot` of `ad` evaluated as HTCondor's
    /// `ClassAd::EvaluateAttr` does for `ad["name"]`: without marking the
    /// attribute as being evaluated, so a reference to itself inside it is
    /// evaluated once more before it is found circular (`[c =
    /// isUndefined(c)]["c"]` is false, `[c = isUndefined(c)].c` is true).
    fn attribute_value_unmarked(&mut self, env: Env<'_>, ad: &AdRef, slot: u32) -> Value {
        if let Some(value) = ad.body.constant(slot) {
            // HTCondor evaluates the literal: one node.
            if !self.count_literal() {
                return Value::Error;
            }
            return value.clone();
        }
        let attribute = ad.body.attribute(slot);
        let failures = self.depth_failures;
        // In a new evaluation state (`ClassAd::EvaluateAttr`), rooted at
        // the outermost ad of `ad`'s chain, with a depth budget of its own
        // (a chain of 399 references ending in `w["q"]` reads a `q` that
        // is itself a chain of 399), the attribute's expression at its
        // top, with no check of its own.
        let Some(value) = self.in_new_budget(|vm| {
            vm.in_state(new_state_root(ad), |vm| vm.run(env, &attribute.program, ad))
        }) else {
            return Value::Error;
        };
        if self.depth_failures > failures {
            return failed_value(&attribute.source, value);
        }
        value
    }

    /// `name` searched in `ad` and then outward; `None` if nowhere.
    fn lookup_outward(&mut self, env: Env<'_>, ad: &AdRef, name: &Symbol) -> Option<Value> {
        let mut current = ad;
        loop {
            if let Some(slot) = current.body.slot(name) {
                return Some(self.attribute_value(env, current, slot));
            }
            current = current.parent.as_ref()?;
        }
    }

    /// The special meaning of `name` in `scope`, if it has one. Out of
    /// line: `resolve`'s frame, on the path of every recursion, stays small.
    #[inline(never)]
    fn special_name(&mut self, env: Env<'_>, scope: &AdRef, name: &Symbol) -> Option<Value> {
        Some(match name.as_bytes() {
            b"self" => Value::Ad(scope.clone()),
            // With old-ClassAd compatibility MY is the ad being evaluated; in
            // strict mode it is no special name (see `resolve`).
            b"my" if !self.options.strict => Value::Ad(scope.clone()),
            b"parent" => Value::Ad(parent_scope(scope)?.clone()),
            // The root of the evaluation, not of the ad's chain: from an ad
            // copied by a selection over a list, the root of the state that
            // reads it (`({[c = [y = root]]}.c)[0].y` is the context ad).
            b"root" | b"toplevel" => Value::Ad(self.evaluation_root(env, scope)),
            // `target` is no special name: see `resolve`.
            _ => return None,
        })
    }

    /// An unscoped attribute reference: as a selection from the ad being
    /// evaluated, then TARGET (old-ClassAd compatibility, not in strict
    /// mode).
    fn load_attribute(&mut self, env: Env<'_>, scope: &AdRef, name: &Symbol) -> Value {
        self.resolve(env, scope, name, !self.options.strict)
    }

    /// `CurrentTime`, which HTCondor's old-ClassAd compatibility makes a
    /// special name (not in strict mode): the current time in whole
    /// seconds since the epoch.
    fn current_time(&self, name: &Symbol) -> Option<Value> {
        (!self.options.strict && name.as_bytes() == b"currenttime")
            .then(|| Value::Int((self.clock)() as i64))
    }

    /// `name` selected from `ad`: the ad itself, then the special names
    /// and `CurrentTime` (taken at `ad`), then the ads enclosing it —
    /// HTCondor's order (`[toplevel = [c = 1]].toplevel.toplevel` is the
    /// root, not the outer attribute).
    fn select_in_ad(&mut self, env: Env<'_>, ad: &AdRef, name: &Symbol) -> Value {
        self.resolve(env, ad, name, false)
    }

    /// The lookup behind references and selections: `ad`, the special
    /// names and `CurrentTime` at `ad`, the enclosing ads, then (if
    /// `with_target`) the other ad of the match.
    fn resolve(&mut self, env: Env<'_>, ad: &AdRef, name: &Symbol, with_target: bool) -> Value {
        if let Some(slot) = ad.body.slot(name) {
            return self.attribute_value(env, ad, slot);
        }
        // The elements of a list made by a selection over a list have no
        // scope in HTCondor: every reference is UNDEFINED there, `root`,
        // `self` and `CurrentTime` too (`{[a = {root}]}.a[0][0]`).
        if ad.parent.is_none() && Arc::ptr_eq(&ad.body, scopeless_body()) {
            return Value::Undefined;
        }
        if let Some(special) = self.special_name(env, ad, name) {
            // `root` in a state without one: HTCondor's lookup fails before
            // its depth check, leaving the value untouched.
            if matches!(&special, Value::Ad(root) if is_no_root(root)) {
                self.depth_failures += 1;
                return Value::Undefined;
            }
            // Found as an attribute is: at the depth limit the evaluation
            // fails (`[q = 1; r = self.q]` as the 399th reference).
            if self.depth >= self.options.limits.max_depth {
                self.depth_failures += 1;
                return Value::Error;
            }
            // HTCondor evaluates the ad found: one node more.
            if matches!(special, Value::Ad(_)) && !self.count_literal() {
                return Value::Error;
            }
            return special;
        }
        // `CurrentTime` is one of the special names too (outside strict
        // mode), taken at the first ad that lacks it: an enclosing ad's
        // `CurrentTime` and the other ad's are never seen
        // (`[CurrentTime = 5; i = [r = CurrentTime]].i.r` is the time).
        match self.current_time(name) {
            // Found as an attribute is: at the depth limit the evaluation
            // fails (`((CurrentTime > 0))` with its parentheses at the limit).
            Some(_) if self.depth >= self.options.limits.max_depth => {
                self.depth_failures += 1;
                return Value::Error;
            }
            Some(now) => return now,
            None => {}
        }
        if let Some(parent) = ad.parent.as_ref()
            && let Some(value) = self.lookup_outward(env, parent, name)
        {
            return value;
        }
        if env.pair.is_some() {
            return self.resolve_in_match(env, ad, name, with_target);
        }
        Value::Undefined
    }

    /// The end of [`Vm::resolve`] in a match, out of line: `resolve` is on
    /// the path of every recursion through references, so its frame stays
    /// small.
    #[inline(never)]
    fn resolve_in_match(
        &mut self,
        env: Env<'_>,
        ad: &AdRef,
        name: &Symbol,
        with_target: bool,
    ) -> Value {
        // In a match HTCondor's MatchClassAd puts a context ad around each
        // ad (`[ ad = .LEFT; my = .LEFT; other = .RIGHT; target = .RIGHT
        // ]`, the other way round for TARGET) and itself around those (see
        // `MATCH_ATTRIBUTES`): a name no ad of the chain defines is looked
        // up there next, before the old-ClassAd fallback to TARGET
        // (`[y = target.x].y` reads the partner, `symmetricMatch` is the
        // match ad's even where TARGET defines it). In strict mode `my` is
        // such an attribute too: the match's own ad, not the ad written
        // inside it that is evaluated.
        if let Some(value) = self.match_context(env, ad, name) {
            return value;
        }
        // Only from the ad of the match itself: HTCondor's fallback is the
        // alternate scope MatchClassAd gives each of its two ads, which an
        // ad written inside them lacks (`[y = Memory].y` with Memory only
        // in TARGET is UNDEFINED), and `evalInEachContext` gives the ad it
        // evaluates in for the time (`alternate_scopes`).
        if !with_target {
            return Value::Undefined;
        }
        if ad.parent.is_none() {
            if let Some(target) = env.target_of(ad)
                && let Some(value) = self.lookup_outward(env, target, name)
            {
                return value;
            }
        } else if let Some(alternate) = self.alternate_scope(ad)
            && let Some(value) = self.lookup_outward(env, &alternate, name)
        {
            return value;
        }
        Value::Undefined
    }

    /// The alternate scope `evalInEachContext` gave `ad` while it
    /// evaluates there, if any.
    fn alternate_scope(&self, ad: &AdRef) -> Option<AdRef> {
        self.alternate_scopes
            .iter()
            .rev()
            .find(|(scoped, _)| Arc::ptr_eq(scoped, ad))
            .map(|(_, alternate)| alternate.clone())
    }

    /// The alternate scope HTCondor's `evaluateInContext` (behind
    /// `evalInEachContext` and `countMatches`) gives the ad `ad` it
    /// evaluates in, in a match with old-ClassAd semantics (not strict):
    /// the alternate scope of the ad of the match whose chain of enclosing
    /// ads (the ad, its context ad, the match ad; MY's first) holds `ad`'s
    /// parent: TARGET for an ad written in MY (`{[q = 1]}` written in MY's
    /// expression), for MY, `lCtx`, `rCtx` (whose parent is the match ad);
    /// MY for an ad written in TARGET, for TARGET. Any other ad (one
    /// written deeper, one a function made) has none. So
    /// `evalInEachContext(Memory + 0, {[q = 1]})` reads TARGET's `Memory`.
    fn alternate_scope_of(&self, env: Env<'_>, ad: &AdRef) -> Option<AdRef> {
        let (left, right) = env.pair?;
        if self.options.strict {
            return None;
        }
        // MY's parent is `lCtx`, in MY's chain; TARGET's `rCtx`, in
        // TARGET's only.
        if Arc::ptr_eq(ad, left) {
            return Some(right.clone());
        }
        if Arc::ptr_eq(ad, right) {
            return Some(left.clone());
        }
        let parent = parent_scope(ad)?;
        if Arc::ptr_eq(parent, left) || Arc::ptr_eq(&parent.body, &context_bodies()[0]) {
            return Some(right.clone());
        }
        if Arc::ptr_eq(parent, right) || Arc::ptr_eq(&parent.body, &context_bodies()[1]) {
            return Some(left.clone());
        }
        // The match ad, above both: MY's chain is looked at first.
        is_match_ad(parent).then(|| right.clone())
    }

    /// `name` in the context ad and the match ad HTCondor puts around the
    /// ad of a match that encloses `ad` (see `resolve`); `None` if they
    /// lack it or `ad` is in no match.
    fn match_context(&mut self, env: Env<'_>, ad: &AdRef, name: &Symbol) -> Option<Value> {
        let (left, right) = env.pair?;
        let root = ad.root_ref();
        let (own, other, context) = if Arc::ptr_eq(root, left) {
            (left, right, b"lctx".as_slice())
        } else if Arc::ptr_eq(root, right) {
            (right, left, b"rctx".as_slice())
        } else {
            return None;
        };
        let side = match name.as_bytes() {
            b"ad" => own,
            b"my" if self.options.strict => own,
            b"other" | b"target" => other,
            // `parent` from the top of either ad is its context ad.
            b"parent" if ad.parent.is_none() => return self.match_attribute(env, context),
            b"parent" => return None,
            // Checked against the names before the match ad is made: a
            // name no ad defines does not make it.
            name if MATCH_ATTRIBUTES
                .iter()
                .any(|(attribute, _)| attribute.as_bytes().eq_ignore_ascii_case(name)) =>
            {
                return self.match_attribute(env, name);
            }
            _ => return None,
        };
        // Found as an attribute is (`.LEFT` in the context ad).
        if self.depth >= self.options.limits.max_depth {
            self.depth_failures += 1;
            return Some(Value::Error);
        }
        Some(Value::Ad(side.clone()))
    }

    /// The attribute `name` (folded to lower case) of the match ad of the
    /// match `env` describes, evaluated there.
    fn match_attribute(&mut self, env: Env<'_>, name: &[u8]) -> Option<Value> {
        let match_ad = self.match_ad(env)?;
        let slot = match_ad.body.slot(&Symbol::new(name))?;
        Some(self.attribute_value(env, &match_ad, slot))
    }

    /// `base.name`, evaluated in `here`. Selecting over a list evaluates
    /// its elements in `here`, not where the list was written: HTCondor's
    /// rule (`[a = [x = 5]; l = {a}; r = [a = [x = 7]; s = l.x]].r.s` is
    /// `{ 7 }`).
    fn select(&mut self, env: Env<'_>, here: &AdRef, base: Value, name: &Symbol) -> Value {
        match base {
            // HTCondor's value of `ad["name"]` is its shared ad type, which
            // the selection frees before its lookup (the value holding the
            // ad ends with the evaluation of the base): the ad's own
            // attributes are gone, `root` is the root of the evaluation. An
            // ad copied out of the attribute has no parent scope, so only
            // `CurrentTime` is found from it. One `eval` made, which
            // `ad["name"]` took over uncopied, keeps the ad `eval` ran in as
            // its parent scope, and the lookup goes on there:
            // `[A = eval("[q = 1]"); z = 5]["A"].z` is 5, `.q` UNDEFINED,
            // `.parent` the ad around.
            Value::Ad(ad) if ad.detached && !self.options.corrections => match name.as_bytes() {
                b"root" | b"toplevel" => self.root_value(env, here),
                _ if ad.parent.is_some() => {
                    let freed = emptied_ad(ad.parent.clone(), false);
                    self.select_in_ad(env, &freed, name)
                }
                _ => self.current_time(name).unwrap_or(Value::Undefined),
            },
            // An ad a function made (`splitTime`) has no enclosing ad:
            // HTCondor's `root` from it is the root of the evaluation, not
            // the ad (`splitTime(relTime(3)).root` is the context ad).
            Value::Ad(ad)
                if ad.parent.is_none()
                    && matches!(name.as_bytes(), b"root" | b"toplevel")
                    && ad.body.slot(name).is_none()
                    && env.target_of(&ad).is_none() =>
            {
                self.root_value(env, here)
            }
            // An ad HTCondor copied without a parent scope (or written in
            // one) is read in the evaluation state that reads it: its
            // `root` and `.name` are that state's root, the context ad
            // (`({[c = [y = root]]}.c)[0].y`), which the scope chain no
            // longer leads to.
            Value::Ad(ad)
                if self.state_root.is_none()
                    && ad.parent.is_some()
                    && written_in_lost_scope(&ad) =>
            {
                // (In a match the match ad: `{[b = MY]}.b[0].root`.)
                let root = self.chain_root(env, here);
                self.in_state(Some(root), |vm| vm.select_in_ad(env, &ad, name))
            }
            Value::Ad(ad) => self.select_in_ad(env, &ad, name),
            Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => {
                // Each element is selected from in a new evaluation state
                // started in `here` (HTCondor's `AttributeReference::
                // FindExpr`), whose root is the outermost ad of `here`'s
                // chain.
                self.in_state(new_state_root(here), |vm| {
                    vm.select_over_list(env, here, base, name)
                })
            }
            Value::Undefined => Value::Undefined,
            _ => Value::Error,
        }
    }

    /// `base.name` for a list `base`: the list of `element.name`.
    fn select_over_list(
        &mut self,
        env: Env<'_>,
        here: &AdRef,
        base: Value,
        name: &Symbol,
    ) -> Value {
        match base {
            Value::List(items) | Value::SharedList(items) => {
                if !self.reserve(items.len() as u64 * VALUE_BYTES)
                    || !self.charge(items.len() as u64)
                {
                    return Value::Error;
                }
                if !self.enter_map() {
                    return Value::Error;
                }
                let failures = self.depth_failures;
                let mut selected = Vec::with_capacity(items.len());
                for item in items.iter() {
                    let value = self.select_from_element(env, here, item.clone(), name);
                    // HTCondor's selection fails with its first failed
                    // element (see `depth_failures`), leaving its value
                    // untouched.
                    if self.depth_failures > failures {
                        self.map_nesting -= 1;
                        return Value::Undefined;
                    }
                    selected.push(self.orphan(env, selected_literal(value)));
                }
                self.map_nesting -= 1;
                Value::List(selected.into())
            }
            Value::LazyList(list) => {
                if !self.reserve(list.items.len() as u64 * VALUE_BYTES) {
                    return Value::Error;
                }
                if !self.enter_map() {
                    return Value::Error;
                }
                let failures = self.depth_failures;
                let mut selected = Vec::with_capacity(list.items.len());
                for i in 0..list.items.len() {
                    // Each element is HTCondor's `element.name`: ERROR at
                    // the depth limit, else the element evaluated one level
                    // deeper, in the scope of the selection.
                    let value = if self.depth >= self.options.limits.max_depth {
                        Value::Error
                    } else {
                        self.depth += 1;
                        let item = self.run_element(env, &list, i, here);
                        self.depth -= 1;
                        if self.depth_failures > failures {
                            self.map_nesting -= 1;
                            return Value::Undefined;
                        }
                        self.select_from_element(env, here, item, name)
                    };
                    if self.depth_failures > failures {
                        self.map_nesting -= 1;
                        return Value::Undefined;
                    }
                    selected.push(self.orphan(env, selected_literal(value)));
                }
                self.map_nesting -= 1;
                Value::List(selected.into())
            }
            _ => Value::Error,
        }
    }

    /// An element of a list made by a selection over a list, as HTCondor
    /// makes it: without a parent scope (`{[b = [y = B]]}.b[0].y` is
    /// UNDEFINED, since the ad no longer sees the ad around it), unless
    /// `Options::corrections`. Such an ad's `root` is an empty ad (`parent`
    /// is UNDEFINED); a list's references are all UNDEFINED. A list among
    /// the elements, made by an inner selection, was made so already (so
    /// this need not look inside it).
    fn orphan(&self, env: Env<'_>, value: Value) -> Value {
        if self.options.corrections {
            return value;
        }
        match value {
            // HTCondor copies each element: an ad taken by `ad["name"]`
            // (whose attributes were not found from it) is an ad again.
            // Either ad of a match has a parent there (its context ad):
            // its copy is no ad of the match (`{[b = MY]}.b[0].x`, with
            // `x` only in TARGET, is UNDEFINED).
            Value::Ad(ad) if ad.parent.is_some() || ad.detached || env.target_of(&ad).is_some() => {
                Value::Ad(AdValue::copied(
                    ad.body.clone(),
                    Some(AdValue::top_level(empty_root_body().clone())),
                ))
            }
            // The match ad has no parent, but its copy holds copies of the
            // two ads, written in it (`{[b = root]}.b[0].LEFT.parent` is
            // the copy).
            Value::Ad(ad) if env.pair.is_some() && is_match_ad(&ad) => {
                let (left, right) = env.pair.expect("a match");
                Value::Ad(AdValue::copied(
                    match_ad_body(left, right, true),
                    Some(AdValue::top_level(empty_root_body().clone())),
                ))
            }
            Value::LazyList(list) => Value::LazyList(Arc::new(LazyList {
                items: list.items.clone(),
                scope: AdValue::top_level(scopeless_body().clone()),
                shared: false,
            })),
            other => other,
        }
    }

    /// One element of a selection projected over a list, its value
    /// `item` known: HTCondor's `element.name` at the depth the selection
    /// runs (ERROR at the limit; an inner list is mapped at the same depth,
    /// an ad's attribute evaluated one level deeper).
    fn select_from_element(
        &mut self,
        env: Env<'_>,
        here: &AdRef,
        item: Value,
        name: &Symbol,
    ) -> Value {
        if self.depth >= self.options.limits.max_depth {
            return Value::Error;
        }
        match item {
            Value::Ad(_)
            | Value::List(_)
            | Value::SharedList(_)
            | Value::LazyList(_)
            | Value::Undefined => self.select(env, here, item, name),
            _ => Value::Error,
        }
    }

    /// One more selection over a list inside another; false (the
    /// selection is ERROR and the evaluation fails) past the bound.
    fn enter_map(&mut self) -> bool {
        if self.map_nesting >= MAX_NESTED_MAPS {
            self.depth_failures += 1;
            return false;
        }
        self.map_nesting += 1;
        true
    }

    /// Element `i` of a lazy list, evaluated in `scope` (where the list
    /// was written, for a subscript; where it is used, for a selection or a
    /// function, as HTCondor does) at the current depth. If the evaluation
    /// failed, the value is what HTCondor's leaves (see `failed_value`) and
    /// the failure stays counted for the caller.
    pub(crate) fn run_element(
        &mut self,
        env: Env<'_>,
        list: &LazyList,
        i: usize,
        scope: &AdRef,
    ) -> Value {
        self.run_element_in_state(env, list, i, scope, None)
    }

    /// [`Vm::run_element`] in the state of a function that evaluates the
    /// list's elements one after another, as HTCondor's do in one
    /// evaluation state: with `left`, the ad an element before it (or the
    /// call's arguments) left current, names are looked up from there, and
    /// `left` becomes the ad this element leaves current (`[v = 1; r = {
    /// countMatches(P, {}), v }; s = sum(r)].s` looks the second `v` up
    /// where the lookup of `P` ended). Without `left`, the element starts
    /// afresh and what it leaves ends with it.
    pub(crate) fn run_element_in_state(
        &mut self,
        env: Env<'_>,
        list: &LazyList,
        i: usize,
        scope: &AdRef,
        left: Option<&mut Option<AdRef>>,
    ) -> Value {
        let item = &list.items[i];
        // An ad literal keeps the ad it was written in as its parent, as
        // HTCondor sets it when parsing (`[a = 17; c = {[x = a]}].c.x` is
        // `{ 17 }`).
        let scope = if matches!(item.source.kind, classad_syntax::ExprKind::Ad(_)) {
            &list.scope
        } else {
            scope
        };
        let saved = self.literal_parent.replace((
            &*item.program as *const Program as usize,
            list.scope.clone(),
        ));
        let failures = self.depth_failures;
        let value = match left {
            Some(left) => {
                let value = self.run_in_state::<true>(env, &item.program, scope, left.take());
                *left = self.left_scope.take();
                value
            }
            None => self.run(env, &item.program, scope),
        };
        self.literal_parent = saved;
        if self.depth_failures > failures {
            return failed_value(&item.source, value);
        }
        value
    }

    /// `value` with every lazy list in it evaluated, element by element,
    /// for a function (elements in `here`, the scope of the call, as
    /// HTCondor evaluates them: `[a = 1; l = {a}; r = [a = 2; s = sum(l)]].r.s`
    /// is 2) or for the caller (`here` is `None`: where each list was
    /// written). A list that contains itself (its forcing reached again) is
    /// left lazy there.
    pub(crate) fn force(&mut self, env: Env<'_>, here: Option<&AdRef>, value: Value) -> Value {
        self.force_elements(env, here, value, false, None)
    }

    /// [`Vm::force`], and with `plain` every relative time's literal in a
    /// list made its value, a real: what a strict function reads of the
    /// elements (`sum({[a = relTime(2)]}.a)` is 2.0). Anything that only
    /// keeps or prints the list keeps the literals, which print as relative
    /// times.
    pub(crate) fn force_elements(
        &mut self,
        env: Env<'_>,
        here: Option<&AdRef>,
        value: Value,
        plain: bool,
        mut left: Option<&mut Option<AdRef>>,
    ) -> Value {
        match value {
            Value::RelTimeLiteral(secs) if plain => Value::Real(secs),
            Value::LazyList(list) => {
                let key = (
                    Arc::as_ptr(&list.items) as *const u8 as usize,
                    Arc::as_ptr(&list.scope.body) as usize,
                );
                // Bounded nesting: a list that holds itself through an ad
                // that lost its scope (`[c = int(a); a = {self["a"]}].c`) is
                // a new list at every level, so the `forcing` check alone
                // never stops it. The elements are evaluated at the depth of
                // the caller, as HTCondor's functions evaluate them.
                if self.forcing.contains(&key)
                    || self.force_nesting >= self.options.limits.max_depth
                {
                    return Value::LazyList(list);
                }
                if !self.reserve(list.items.len() as u64 * VALUE_BYTES) {
                    return Value::Error;
                }
                self.forcing.push(key);
                self.force_nesting += 1;
                let items: Vec<Value> = (0..list.items.len())
                    .map(|i| {
                        // An element that evaluates its own list again
                        // through a function (`[y = {member(1, y) || 1}].y[0]`)
                        // is not the list holding itself: HTCondor's
                        // function evaluates the elements again, until its
                        // depth limit. Only a list found again among the
                        // values of its own elements is left lazy.
                        let outer = std::mem::take(&mut self.forcing);
                        let scope = here.unwrap_or(&list.scope);
                        let item =
                            self.run_element_in_state(env, &list, i, scope, left.as_deref_mut());
                        self.forcing = outer;
                        let item = self.force_elements(env, here, item, plain, None);
                        self.count_copy(&item);
                        item
                    })
                    .collect();
                self.force_nesting -= 1;
                self.forcing.pop();
                Value::List(items.into())
            }
            Value::SharedList(items) => {
                self.force_elements(env, here, Value::List(items), plain, left)
            }
            Value::List(items)
                if items.iter().any(|v| match v {
                    Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => true,
                    Value::RelTimeLiteral(_) => plain,
                    _ => false,
                }) =>
            {
                if !self.reserve(items.len() as u64 * VALUE_BYTES) {
                    return Value::Error;
                }
                let items: Vec<Value> = items
                    .iter()
                    .map(|v| self.force_elements(env, here, v.clone(), plain, None))
                    .collect();
                Value::List(items.into())
            }
            other => other,
        }
    }

    /// Counts a string put into a list as the copy HTCondor would make
    /// (so that a list of many references to one long string is as large
    /// as its text).
    #[inline]
    fn count_copy(&mut self, item: &Value) {
        if let Value::Str(s) = item {
            self.reserve(s.len() as u64);
        }
    }

    /// The value an evaluation hands back, or ERROR if the evaluation ran
    /// out of budget or the value, counted as HTCondor would copy it, is
    /// past the memory budget.
    fn finish(&mut self, value: Value) -> Value {
        // Past the step budget the evaluation has failed where HTCondor's
        // does (see `run`), and its value is what that left.
        if self.memory_exceeded {
            return Value::Error;
        }
        match value {
            Value::List(_) | Value::Ad(_) => {
                let limit = self.options.limits.max_memory;
                if crate::budget::weight(&value, limit) > limit {
                    Value::Error
                } else {
                    value
                }
            }
            other => other,
        }
    }

    /// `base[index]` (strict: ERROR, then UNDEFINED, propagate), an
    /// operation at `level` above the depth the program runs at: HTCondor
    /// fails it at the depth limit, and reads a list's element two levels
    /// deeper (ERROR one level before the limit) and an ad's attribute as
    /// a reference one level deeper.
    fn subscript(
        &mut self,
        env: Env<'_>,
        here: &AdRef,
        base: Value,
        index: Value,
        level: u32,
    ) -> Value {
        let limit = self.options.limits.max_depth;
        if self.depth + level >= limit {
            self.depth_failures += 1;
            return Value::Error;
        }
        if base.is_error() || index.is_error() {
            return Value::Error;
        }
        if base.is_undefined() || index.is_undefined() {
            return Value::Undefined;
        }
        match (&base, &index) {
            (Value::List(_) | Value::SharedList(_) | Value::LazyList(_), Value::Int(_))
                if self.depth + level + 1 >= limit =>
            {
                Value::Error
            }
            (Value::List(items) | Value::SharedList(items), Value::Int(i)) => {
                // HTCondor evaluates the element, a literal: one node,
                // which fails past the budget (the subscript keeps the
                // ERROR, its failure swallowed as a lazy element's).
                self.steps += 1;
                if self.exhausted() {
                    return Value::Error;
                }
                // HTCondor reads the index as a C int.
                let i = *i as i32;
                let value = usize::try_from(i)
                    .ok()
                    .and_then(|i| items.get(i))
                    .map_or(Value::Error, Value::element_value);
                if matches!(base, Value::SharedList(_)) && !self.options.corrections {
                    freed_with_shared_list(value)
                } else {
                    value
                }
            }
            (Value::LazyList(list), Value::Int(i)) => match usize::try_from(*i as i32) {
                Ok(i) if i < list.items.len() => {
                    // HTCondor's subscript ignores whether the element's
                    // evaluation failed and keeps the value it left: the
                    // failure stops here, a value the next step can test
                    // (`[b = {isError(b[0])}].b[0]` is false).
                    let failures = self.depth_failures;
                    self.depth += level + 2;
                    // A list HTCondor copied without a parent scope (made
                    // by a selection over a list, or taken by ad["name"])
                    // has its elements evaluated in the state of the
                    // subscript: `.name` searches that state's root
                    // (`[b = [l = {.self}]]["l"][0]` is the context ad),
                    // while other references are UNDEFINED (no current ad).
                    let value = if list.scope.parent.is_none() && is_lost_scope(&list.scope) {
                        let root = self.evaluation_root(env, here);
                        self.in_state(Some(root), |vm| vm.run_element(env, list, i, &list.scope))
                    } else {
                        self.run_element(env, list, i, &list.scope)
                    };
                    self.depth -= level + 2;
                    let value = if list.shared && !self.options.corrections {
                        freed_with_list(list, i, value)
                    } else {
                        value
                    };
                    self.depth_failures = failures;
                    value
                }
                _ => Value::Error,
            },
            (Value::Ad(ad), Value::Str(key)) => {
                if !self.charge(key.len() as u64 / BYTES_PER_STEP) {
                    return Value::Error;
                }
                let name = Symbol::transient(&**key);
                let Some(slot) = ad.body.slot(&name) else {
                    return Value::Undefined;
                };
                if self.options.corrections {
                    let ad = ad.clone();
                    self.depth += level + 1;
                    let value = self.attribute_value(env, &ad, slot);
                    self.depth -= level + 1;
                    return value;
                }
                // HTCondor evaluates the attribute in the ad alone and hands
                // back a value that has lost its scope: an ad from which
                // selections are UNDEFINED, a list whose elements see no
                // enclosing ad (`[b = [c = 1]]["b"].c` is UNDEFINED, while
                // `self.c` inside it is 1).
                // (An ad `eval` made keeps the ads around it: see below.)
                let scope = if ad.detached {
                    Arc::new(AdValue {
                        body: ad.body.clone(),
                        parent: ad.parent.clone(),
                        detached: false,
                        copy: ad.copy,
                    })
                } else {
                    ad.clone()
                };
                self.depth += level + 1;
                let value = self.attribute_value_unmarked(env, &scope, slot);
                self.depth -= level + 1;
                // HTCondor copies the value, except a list or an ad `eval`
                // parsed during this evaluation: that one it takes over as
                // it is, scope and all (`[A = eval("{z}"); z = 5]["A"][0]`
                // is 5, `[A = {z}; z = 5]["A"][0]` UNDEFINED). Such a value
                // is then HTCondor's shared type, which a further
                // `ad["name"]` hands on unchanged.
                if self.take_eval_made(&value) {
                    // An operand that is itself HTCondor's shared ad (taken
                    // by an earlier `ad["name"]`) is freed when this
                    // subscript is done: the value keeps it, emptied, in
                    // its scope chain.
                    let freed_scope = |chain: &AdRef| {
                        if ad.detached {
                            freed_in_chain(chain, &scope)
                        } else {
                            chain.clone()
                        }
                    };
                    return match value {
                        Value::Ad(inner) => Value::Ad(Arc::new(AdValue {
                            body: inner.body.clone(),
                            parent: inner.parent.as_ref().map(freed_scope),
                            detached: true,
                            copy: inner.copy,
                        })),
                        Value::LazyList(list) => Value::LazyList(Arc::new(LazyList {
                            items: list.items.clone(),
                            scope: freed_scope(&list.scope),
                            shared: true,
                        })),
                        other => other,
                    };
                }
                match value {
                    Value::Ad(inner) if inner.detached => Value::Ad(inner),
                    Value::Ad(inner) => Value::Ad(AdValue::detached(inner.body.clone())),
                    Value::LazyList(list) if list.shared => Value::LazyList(list),
                    // No scope at all: references in it are UNDEFINED.
                    Value::LazyList(list) => Value::LazyList(Arc::new(LazyList {
                        items: list.items.clone(),
                        scope: AdValue::detached(scopeless_body().clone()),
                        shared: true,
                    })),
                    // HTCondor's shared list type, for `=?=` (see
                    // `ops::identical`).
                    Value::List(items) => Value::SharedList(items),
                    other => other,
                }
            }
            _ => Value::Error,
        }
    }

    /// Runs `program` in `scope` and returns its value. Re-entrant: an
    /// attribute reference runs the attribute's program on the same stack.
    /// The ad a call inside it left current (see `left_scope`) ends with
    /// it, as HTCondor restores its state's current ad when a reference is
    /// done.
    #[inline]
    pub(crate) fn run(&mut self, env: Env<'_>, program: &Program, scope: &AdRef) -> Value {
        self.run_in_state::<false>(env, program, scope, None)
    }

    /// [`Vm::run`] as part of an evaluation under way in the same HTCondor
    /// state (an element of a list a function evaluates, the text `eval`
    /// reads): names are looked up from `left` when a call before it left
    /// that ad current, and the ad it leaves current is handed on in
    /// `left_scope` when `HAND_ON` (see `CallContext::leave_scope`). A
    /// constant, so that the copy every reference runs has no such step.
    pub(crate) fn run_in_state<const HAND_ON: bool>(
        &mut self,
        env: Env<'_>,
        program: &Program,
        scope_in: &AdRef,
        left: Option<AdRef>,
    ) -> Value {
        let base = self.stack.len();
        let notes_base = self.failure_notes.len();
        let select_lefts_base = self.select_lefts.len();
        self.stack.reserve(program.max_stack as usize);
        let code = &program.code;
        let mut pc = 0usize;
        // The ad a lazy call left current (`CallContext::leave_scope`).
        let mut left = left;
        loop {
            let scope = match &left {
                Some(ad) => ad,
                None => scope_in,
            };
            let instr = code[pc];
            pc += 1;
            // Steps are counted by the instructions that start an
            // expression, where HTCondor counts its nodes
            // (`Program::with_nodes`): `self.start(n)` below. Past the
            // budget such an instruction fails (`exhausted_step`); the
            // others, operations already under way, run as usual.
            // The depth limit, and the level of each instruction: how many
            // operations enclose it in its program, each a level of depth
            // in HTCondor's evaluation (`Program::with_levels`).
            let limit = self.options.limits.max_depth;
            match instr.op {
                opcode::CONST => {
                    // HTCondor's nodes folded into it, and those of the
                    // operations it starts (`Program::with_nodes`).
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    // A constant folded from operations fails where they
                    // would have.
                    let need = u32::from(instr.count);
                    if need != 0 && self.depth + need > limit {
                        self.depth_failures += 1;
                        self.stack.push(Value::Error);
                    } else {
                        self.stack
                            .push(program.constants[instr.arg as usize].clone());
                    }
                }
                opcode::LOAD_ATTR => {
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let level = level(instr);
                    self.depth += level;
                    let value = if self.depth > limit {
                        // An operation around the reference was at the
                        // limit and failed before evaluating it, whether
                        // the name is found or not (`((x)) ?: ...` with
                        // the inner parentheses at the limit).
                        self.depth_failures += 1;
                        Value::Error
                    } else {
                        self.load_attribute(env, scope, &program.names[instr.arg as usize])
                    };
                    self.depth -= level;
                    self.stack.push(value);
                }
                opcode::LOAD_OWN => {
                    if self.start(1 + packed_nodes(instr))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let name = &program.names[(instr.arg & PACKED_MASK) as usize];
                    let slot = u32::from(instr.count);
                    let level = level(instr);
                    self.depth += level;
                    let value = if self.depth > limit {
                        // As LOAD_ATTR: an operation around it failed.
                        self.depth_failures += 1;
                        Value::Error
                    } else if scope.body.slot_is(slot, name) {
                        self.attribute_value(env, scope, slot)
                    } else {
                        self.load_attribute(env, scope, name)
                    };
                    self.depth -= level;
                    self.stack.push(value);
                }
                opcode::LOAD_ROOT => {
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let name = &program.names[instr.arg as usize];
                    let level = level(instr);
                    self.depth += level;
                    let value = match self.state_root.clone() {
                        // As LOAD_ATTR: an operation around it failed.
                        _ if self.depth > limit => {
                            self.depth_failures += 1;
                            Value::Error
                        }
                        // `.name` with no root fails (HTCondor's `FindExpr`).
                        Some(root) if is_no_root(&root) => {
                            self.depth_failures += 1;
                            Value::Undefined
                        }
                        Some(root) => self.select_in_ad(env, &root, name),
                        None => self.select_in_chain_root(env, scope, name),
                    };
                    self.depth -= level;
                    self.stack.push(value);
                }
                opcode::LOAD_MY => {
                    // Three nodes in HTCondor: the selection, its base and
                    // the ad the base finds (less one where the base is
                    // looked up as a name, which counts its own).
                    if self.start(3 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let name = &program.names[instr.arg as usize];
                    let level = level(instr);
                    // `MY.name`: a selection whose base is the reference
                    // `MY`, one level deeper.
                    let value = if self.depth + level >= limit {
                        // Past the limit an operation around it failed
                        // first (see ENTER_BASE).
                        if self.depth + level > limit {
                            self.depth_failures += 1;
                        }
                        Value::Error
                    } else {
                        self.depth += level;
                        // In strict mode `my` is the match's own ad, found
                        // after the enclosing ads (see `resolve`).
                        let value = if scope.body.shadows_special_names()
                            || (self.options.strict
                                && (env.pair.is_none() || scope.parent.is_some()))
                        {
                            let failures = self.depth_failures;
                            self.steps -= 1;
                            self.depth += 1;
                            let my = self.load_attribute(env, scope, special_symbol(0));
                            self.depth -= 1;
                            if self.depth_failures > failures {
                                Value::Undefined
                            } else {
                                self.select(env, scope, my, name)
                            }
                        } else if self.depth + 1 >= limit {
                            self.depth_failures += 1;
                            Value::Undefined
                        } else {
                            self.select_in_ad(env, scope, name)
                        };
                        self.depth -= level;
                        value
                    };
                    self.stack.push(value);
                }
                opcode::LOAD_TARGET => {
                    // Three nodes in HTCondor: the selection, its base and
                    // the ad the base finds (less one where the base is
                    // looked up as a name, which counts its own).
                    if self.start(3 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let name = &program.names[instr.arg as usize];
                    let level = level(instr);
                    // Outside a match `target` is an ordinary name, which an
                    // enclosing ad may define; in a match, the partner, unless
                    // this ad defines `target` itself. As `MY.name`, a
                    // selection with a reference for its base.
                    let partner = env.target_of(scope).filter(|_| {
                        !scope.body.shadows_special_names() && !chain_defines_target(scope)
                    });
                    let value = if self.depth + level >= limit {
                        // Past the limit an operation around it failed
                        // first (see ENTER_BASE).
                        if self.depth + level > limit {
                            self.depth_failures += 1;
                        }
                        Value::Error
                    } else {
                        self.depth += level;
                        let value = match partner {
                            Some(_) if self.depth + 1 >= limit => {
                                self.depth_failures += 1;
                                Value::Undefined
                            }
                            Some(target) => self.select_in_ad(env, target, name),
                            None => {
                                let failures = self.depth_failures;
                                self.steps -= 1;
                                self.depth += 1;
                                let target = self.load_attribute(env, scope, special_symbol(1));
                                self.depth -= 1;
                                if self.depth_failures > failures {
                                    Value::Undefined
                                } else {
                                    self.select(env, scope, target, name)
                                }
                            }
                        };
                        self.depth -= level;
                        value
                    };
                    self.stack.push(value);
                }
                opcode::NOTE_ARGS => {
                    if instr.aux != opcode::NO_STOP
                        && let Some(test) = StopTest::from_code(instr.aux)
                    {
                        // The last note is the one before the argument on
                        // top (only constants that cannot fail between).
                        let failed = self
                            .failure_notes
                            .last()
                            .is_some_and(|&(_, note)| self.depth_failures > note);
                        if test.stops_at(self.top(), failed) {
                            for _ in 0..instr.count {
                                self.stack.push(Value::Undefined);
                            }
                            pc = instr.arg as usize;
                        }
                    }
                    self.failure_notes.push((instr.count, self.depth_failures));
                }
                opcode::ENTER_BASE => {
                    // The selection's node, counted before its base as
                    // HTCondor counts it.
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    // HTCondor's `base.name` at the depth limit: an ERROR
                    // value, the base not evaluated. Past it, an operation
                    // around the selection was already at the limit and
                    // failed before reaching it (`[A = {((A.A))}].A[0]`
                    // with the selection one level past the limit).
                    let at = self.depth + level(instr);
                    if at >= limit {
                        if at > limit {
                            self.depth_failures += 1;
                        }
                        self.stack.push(Value::Error);
                        pc = instr.arg as usize;
                    } else {
                        self.stack.push(Value::Int(self.depth_failures as i64));
                        self.select_lefts.push(left.clone());
                    }
                }
                opcode::SELECT => {
                    // The ad current before the base, put back once the
                    // selection is done (a selection over a list maps in
                    // the ad the base left current, as HTCondor does).
                    let before = if self.select_lefts.len() > select_lefts_base {
                        self.select_lefts.pop()
                    } else {
                        None
                    };
                    let base_value = self.pop();
                    let mark = self.pop();
                    let value = if matches!(mark, Value::Int(m) if self.depth_failures > m as u64) {
                        // The base failed: HTCondor's selection fails too,
                        // leaving its value untouched.
                        Value::Undefined
                    } else {
                        let level = level(instr);
                        self.depth += level;
                        let value =
                            self.select(env, scope, base_value, &program.names[instr.arg as usize]);
                        self.depth -= level;
                        value
                    };
                    self.stack.push(value);
                    if let Some(before) = before {
                        left = before;
                    }
                }
                opcode::SUBSCRIPT => {
                    let index = self.pop();
                    let base_value = self.pop();
                    let value = self.subscript(env, scope, base_value, index, level(instr));
                    self.stack.push(value);
                }
                opcode::UNARY => {
                    let operand = self.pop();
                    let op = unary_op(instr.aux);
                    let value = if self.depth + level(instr) >= limit {
                        // The operation at the limit fails, whatever its
                        // operand was (a call, a literal: no check of
                        // their own).
                        self.depth_failures += 1;
                        Value::Error
                    } else {
                        ops::unary(op, operand)
                    };
                    self.stack.push(value);
                }
                opcode::BINARY => {
                    let right = self.pop();
                    let left = self.pop();
                    if self.depth + level(instr) >= limit {
                        self.depth_failures += 1;
                        self.stack.push(Value::Error);
                        continue;
                    }
                    // Comparing strings scans them.
                    if let (Value::Str(a), Value::Str(b)) = (&left, &right) {
                        self.charge(a.len().min(b.len()) as u64 / BYTES_PER_STEP);
                    }
                    let op = BinaryOp::ALL[instr.aux as usize];
                    self.stack.push(ops::binary(op, left, right));
                }
                opcode::AND_TEST => {
                    // The test runs at the operands' level: past the limit
                    // the operation failed before its operands.
                    if self.depth + level(instr) > limit {
                        self.depth_failures += 1;
                        *self.top_mut() = Value::Error;
                        pc = instr.arg as usize;
                    } else if let Some(result) = ops::and_short_circuit(self.top()) {
                        *self.top_mut() = result;
                        pc = instr.arg as usize;
                    }
                }
                opcode::AND_COMBINE => {
                    let right = self.pop();
                    let left = self.pop();
                    self.stack.push(ops::logical_and(left, right));
                }
                opcode::OR_TEST => {
                    if self.depth + level(instr) > limit {
                        self.depth_failures += 1;
                        *self.top_mut() = Value::Error;
                        pc = instr.arg as usize;
                    } else if let Some(result) = ops::or_short_circuit(self.top()) {
                        *self.top_mut() = result;
                        pc = instr.arg as usize;
                    }
                }
                opcode::OR_COMBINE => {
                    let right = self.pop();
                    let left = self.pop();
                    self.stack.push(ops::logical_or(left, right));
                }
                opcode::COND_TEST => {
                    if self.depth + level(instr) > limit {
                        self.depth_failures += 1;
                        *self.top_mut() = Value::Error;
                        pc = instr.arg as usize;
                        continue;
                    }
                    let top = self.top_mut();
                    match top {
                        Value::Undefined => pc = instr.arg as usize,
                        Value::Bool(_) => {}
                        other => match ops::truth(other) {
                            Some(b) => *other = Value::Bool(b),
                            None => {
                                *other = Value::Error;
                                pc = instr.arg as usize;
                            }
                        },
                    }
                }
                opcode::JUMP_IF_FALSE => {
                    if let Value::Bool(false) = self.pop() {
                        pc = instr.arg as usize;
                    }
                }
                opcode::JUMP => pc = instr.arg as usize,
                opcode::ELVIS_TEST => {
                    if self.depth + level(instr) > limit {
                        self.depth_failures += 1;
                        *self.top_mut() = Value::Error;
                        pc = instr.arg as usize;
                    } else if self.top().is_undefined() {
                        self.stack.pop();
                    } else {
                        pc = instr.arg as usize;
                    }
                }
                opcode::CALL | opcode::CALL_NOTED => {
                    // A call of arguments was counted where it started,
                    // before them (`Program::with_nodes`); one of none
                    // starts here.
                    if instr.count != 0 {
                        if self.exhausted() && self.exhausted_step(instr, &mut pc, base) {
                            continue;
                        }
                    } else if self.start(1 + packed_nodes(instr))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let level = level(instr);
                    self.depth += level;
                    let argc = instr.count as usize;
                    let args_start = self.stack.len() - argc;
                    // Reuse one argument buffer across calls (a nested call
                    // finds it taken and makes its own).
                    let mut args = std::mem::take(&mut self.call_args);
                    args.extend(self.stack.drain(args_start..));
                    // The notes before the arguments, and the count now.
                    let notes = (instr.op == opcode::CALL_NOTED).then(|| {
                        self.failure_notes.push((0, self.depth_failures));
                        let start = self.call_notes_start(argc, true);
                        // The counts never go down while the arguments are
                        // evaluated: none failed if the first is the last.
                        let failed = self
                            .failure_notes
                            .get(start)
                            .is_some_and(|&(_, first)| first < self.depth_failures);
                        (start, failed)
                    });
                    let function = &program.functions[(instr.arg & PACKED_MASK) as usize];
                    // The ad the elements of the list arguments leave
                    // current, each element starting where the one before
                    // left it (HTCondor's function evaluates them in one
                    // state).
                    let mut forced_left: Option<AdRef> = None;
                    if let Function::Strict(_) = function.function {
                        for arg in args.iter_mut() {
                            // HTCondor's function evaluates each element of
                            // a list of literals (its own lists are such):
                            // a node each (`sum({1, 2})` counts 4).
                            if let Value::List(items) | Value::SharedList(items) = arg {
                                self.steps += items.len() as u64;
                            }
                            if matches!(
                                arg,
                                Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
                            ) {
                                *arg = self.force_elements(
                                    env,
                                    Some(scope),
                                    std::mem::take(arg),
                                    true,
                                    Some(&mut forced_left),
                                );
                            }
                        }
                    }
                    // A builtin may scan each string and list it is given:
                    // charged here, once for all of them.
                    let work: u64 = args
                        .iter()
                        .map(|arg| match arg {
                            Value::Str(s) => s.len() as u64 / BYTES_PER_STEP,
                            Value::List(items) => items.len() as u64,
                            _ => 0,
                        })
                        .sum();
                    let value = if self.depth > limit {
                        // An operation around the call was at the limit and
                        // failed before it (parentheses have no instruction
                        // of their own).
                        self.depth_failures += 1;
                        Value::Error
                    } else if work > 0 && !self.charge(work) {
                        Value::Error
                    } else {
                        let outer_notes = std::mem::replace(&mut self.call_notes, notes);
                        let value = match function.function {
                            Function::Strict(f) | Function::StrictKeepingLists(f) => f(
                                &mut CallContext {
                                    vm: self,
                                    env,
                                    scope,
                                },
                                &args,
                            ),
                            Function::Lazy(_) => Value::Error,
                        };
                        self.call_notes = outer_notes;
                        value
                    };
                    if let Some((start, _)) = notes {
                        self.failure_notes.truncate(start);
                    }
                    args.clear();
                    self.call_args = args;
                    self.depth -= level;
                    self.stack.push(value);
                    if self.left_scope.is_some() || forced_left.is_some() {
                        left = self.left_scope.take().or(forced_left);
                    }
                }
                opcode::CALL_LAZY => {
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let level = level(instr);
                    self.depth += level;
                    let call = &program.lazy_calls[instr.arg as usize];
                    let value = if self.depth > limit {
                        self.depth_failures += 1;
                        Value::Error
                    } else {
                        match call.function.function {
                            Function::Lazy(f) => f(
                                &mut CallContext {
                                    vm: self,
                                    env,
                                    scope,
                                },
                                &call.args,
                            ),
                            Function::Strict(_) | Function::StrictKeepingLists(_) => Value::Error,
                        }
                    };
                    self.depth -= level;
                    self.stack.push(value);
                    if self.left_scope.is_some() {
                        left = self.left_scope.take();
                    }
                }
                opcode::MAKE_LIST if self.depth + level(instr) > limit => {
                    // An operation around the literal was at the limit and
                    // failed before evaluating it (as LOAD_ATTR).
                    self.depth_failures += 1;
                    self.stack.push(Value::Error);
                }
                opcode::MAKE_AD if self.depth + level(instr) > limit => {
                    self.depth_failures += 1;
                    self.stack.push(Value::Error);
                }
                opcode::MAKE_LIST => {
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let scope = match &self.literal_parent {
                        Some((address, parent))
                            if *address == program as *const Program as usize =>
                        {
                            parent
                        }
                        // The ad the list is written in, whatever a call
                        // before it left current (HTCondor's parent scope
                        // is set when the expression is built).
                        _ => scope_in,
                    };
                    let list = LazyList {
                        items: program.lists[instr.arg as usize].clone(),
                        scope: scope.clone(),
                        shared: false,
                    };
                    self.stack.push(Value::LazyList(Arc::new(list)));
                }
                opcode::MAKE_AD => {
                    if self.start(1 + u32::from(instr.aux))
                        && self.exhausted_step(instr, &mut pc, base)
                    {
                        continue;
                    }
                    let body = program.ads[instr.arg as usize].clone();
                    let parent = match &self.literal_parent {
                        Some((address, parent))
                            if *address == program as *const Program as usize =>
                        {
                            parent.clone()
                        }
                        // As a list literal's: the lexical parent.
                        _ => scope_in.clone(),
                    };
                    self.stack.push(Value::Ad(AdValue::nested(body, parent)));
                }
                _ => {
                    // RETURN (the verifier guarantees one value above base).
                    let value = self.pop();
                    self.stack.truncate(base);
                    self.failure_notes.truncate(notes_base);
                    self.select_lefts.truncate(select_lefts_base);
                    if HAND_ON && left.is_some() {
                        self.left_scope = left;
                    }
                    return value;
                }
            }
        }
    }

    /// One instruction past the step budget, as HTCondor's evaluation
    /// goes on once its budget is spent: every expression it starts fails
    /// at once with ERROR (a literal, a reference, a selection, a call),
    /// while an operation already under way finishes with its failed
    /// operands (its instruction runs as usual, on their ERROR values).
    /// True if the instruction was handled here.
    #[cold]
    fn exhausted_step(
        &mut self,
        instr: crate::bytecode::Encoded,
        pc: &mut usize,
        base: usize,
    ) -> bool {
        // A program's value will take the slot at its base: an operation
        // that popped its operands to evaluate an element there
        // (`isError(l[0])`) is still under way above it.
        let height = self.stack.len().max(base + 1);
        self.exhausted_floor = self.exhausted_floor.min(height);
        if matches!(instr.op, opcode::CALL | opcode::CALL_NOTED) && instr.count != 0 {
            // A call of evaluated arguments counted its node where it
            // started, before them. Started before the budget ran out, it is under way: it
            // finishes with the values its arguments left, as HTCondor's
            // functions do (`isError` of an evaluation that failed past
            // the budget tests the value it left). Its arguments start
            // below every height the stack has had since then.
            let first = self.stack.len().saturating_sub(instr.count as usize);
            if first < self.exhausted_floor {
                return false;
            }
        }
        match instr.op {
            opcode::CONST
            | opcode::LOAD_ATTR
            | opcode::LOAD_OWN
            | opcode::LOAD_ROOT
            | opcode::LOAD_MY
            | opcode::LOAD_TARGET
            | opcode::MAKE_LIST
            | opcode::MAKE_AD
            | opcode::CALL_LAZY => {}
            opcode::ENTER_BASE => *pc = instr.arg as usize,
            opcode::CALL | opcode::CALL_NOTED => {
                let argc = instr.count as usize;
                let keep = self.stack.len().saturating_sub(argc);
                self.stack.truncate(keep);
                if instr.op == opcode::CALL_NOTED {
                    let start = self.call_notes_start(argc, false);
                    self.failure_notes.truncate(start);
                }
            }
            _ => return false,
        }
        self.depth_failures += 1;
        self.stack.push(Value::Error);
        true
    }

    /// Where the notes of a noted call of `argc` arguments start in
    /// `failure_notes`, its arguments evaluated (`Instr::NoteArgs`), and
    /// `with_last` its note after the last pushed: at its first note, the
    /// last one with its argument count (the notes of the calls in its
    /// arguments are gone, the ones after its first count fewer). Without
    /// arguments, its only note is the one after the last.
    fn call_notes_start(&self, argc: usize, with_last: bool) -> usize {
        let len = self.failure_notes.len();
        if argc == 0 {
            return len - usize::from(with_last && len > 0);
        }
        self.failure_notes
            .iter()
            .rposition(|&(remaining, _)| usize::from(remaining) == argc)
            .unwrap_or(len)
    }

    #[inline]
    fn pop(&mut self) -> Value {
        self.stack.pop().unwrap_or(Value::Error)
    }

    #[inline]
    fn top(&self) -> &Value {
        self.stack.last().unwrap_or(&Value::Error)
    }

    #[inline]
    fn top_mut(&mut self) -> &mut Value {
        if self.stack.is_empty() {
            self.stack.push(Value::Error);
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }
}

fn unary_op(aux: u8) -> UnaryOp {
    match aux {
        0 => UnaryOp::Minus,
        1 => UnaryOp::Plus,
        2 => UnaryOp::Not,
        _ => UnaryOp::BitNot,
    }
}

/// A value as HTCondor stores it in the list a selection over a list
/// builds: each value becomes a literal, and a relative time's literal is
/// its whole seconds as a C `int` (truncated; out of range or NaN is the
/// minimum `int`), which evaluates as a real (`{[a = relTime(90.7)]}.a[0]`
/// is 90.0) but is written as a relative time (`string({[a =
/// relTime(90.7)]}.a)` is `"{ relTime(\"01:30\") }"`): a
/// [`Value::RelTimeLiteral`]. `evalInEachContext` stores its values the
/// same way.
pub fn selected_literal(value: Value) -> Value {
    match value {
        Value::RelTime(secs) => {
            let whole = if secs > -2_147_483_649.0 && secs < 2_147_483_648.0 {
                secs as i32
            } else {
                i32::MIN
            };
            Value::RelTimeLiteral(f64::from(whole))
        }
        // HTCondor's literal of a function's list (`split`'s,
        // `evalInEachContext`'s) is a copy of a list literal's type, which
        // the list of literals owns: `=?=` with a list literal is ERROR
        // (`{[b = split("a b")]}.b[0] =?= {"a", "b"}`), and a subscript
        // into it reads whole ads and lists
        // (`{[b = evalInEachContext(P, {[P = [a = 1]]})]}.b[0][0].a` is 1).
        Value::SharedList(items) => Value::List(items),
        other => other,
    }
}
