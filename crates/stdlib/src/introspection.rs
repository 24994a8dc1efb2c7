//! Functions that look at expressions rather than values: `eval`,
//! `unparse`, `unresolved`, `debug`, `evalInEachContext`, `countMatches`
//! (spec 003, "Predefined Functions"; HTCondor registers the last two).
//! All take their arguments unevaluated ([`crate::lazy_builtin`]).

use crate::lazy_builtin;
use classad_syntax::{Expr, ExprKind};
use classad_vm::ops::truth;
use classad_vm::{AdRef, Builtin, CallContext, LazyArg, Program, Symbol, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        lazy_builtin("eval", 1, 1, eval),
        lazy_builtin("unparse", 1, 1, unparse),
        lazy_builtin("unresolved", 1, 2, unresolved),
        lazy_builtin("debug", 1, 1, debug),
        lazy_builtin("evalInEachContext", 2, 2, eval_in_each_context),
        lazy_builtin("countMatches", 2, 2, count_matches),
    ]
}

/// Steps charged for each `eval` of a string, besides its bytes.
const EVAL_STEPS: u64 = 2_000;

/// Steps charged for each ad `evalInEachContext` and `countMatches`
/// evaluate in: finding the list and entering the ad cost tens of
/// instructions' worth, and a self-referential call
/// (`[a = countMatches(a, {[], []})].a`) makes 2^depth of them, which ran
/// for seconds within the step budget when only instructions counted.
const CONTEXT_STEPS: u64 = 64;

/// `eval(s)`: `s` parsed as an expression and evaluated where the call
/// is. A value that is not a string is first turned into text as
/// `string()` does (HTCondor's eval converts its argument so), then read
/// back: `eval(relTime(-1.5))` reads `"-01"`, the integer -1, and
/// `eval(absTime(0))` reads text that does not parse. The text is read as
/// the mode reads (strict mode lexes `010` as 10), and as HTCondor's parser
/// reads it whole: what follows a conditional at the top is ignored unless
/// it continues it (`eval("1 ? 2 : 3 4")` is 2;
/// `classad_syntax::Parser::parse_evaluated_text`). UNDEFINED, ERROR and
/// text that does not parse are ERROR.
fn eval(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    // HTCondor's `eval`: the argument in the caller's state at the call's
    // depth (a failure fails the call, ERROR), its text parsed and
    // evaluated one level deeper (`CallContext::evaluate_parsed`).
    let (value, failed) = context.evaluate_here(&args[0].program);
    if failed {
        return Value::Error;
    }
    let text = match crate::convert::to_text(&value) {
        Ok(text) => text,
        Err(_) => return Value::Error,
    };
    // Reading and compiling the text: about a thousand instructions' worth
    // plus some per byte (an `eval` of a string that evaluates itself
    // twice would otherwise parse for ever within the step budget).
    if !context.charge(EVAL_STEPS + 32 * text.len() as u64) {
        return Value::Error;
    }
    let parser = classad_syntax::Parser::new(classad_syntax::ParseOptions {
        strict: context.vm.options().strict,
        ..classad_syntax::ParseOptions::default()
    });
    let Ok(expr) = parser.parse_evaluated_text(&String::from_utf8_lossy(&text)) else {
        return Value::Error;
    };
    let registry = crate::shared_registry();
    match classad_compiler::Compiler::new(&registry).compile(&expr) {
        Ok(program) => {
            let value = context.evaluate_parsed(&program);
            // The text was a list or an ad literal, whose value is the tree
            // HTCondor parsed: `ad["name"]` takes it over with its scope.
            if matches!(expr.kind, ExprKind::List(_) | ExprKind::Ad(_)) {
                context.vm.note_eval_made(&value);
            }
            value
        }
        Err(_) => Value::Error,
    }
}

/// `unparse(attr)`: as HTCondor does it, the reference itself is written
/// out (`a`, `b.c`, `.d`) and that text is looked up as a name in the ad
/// the call is evaluated in (not the ads around it): the expression of the
/// attribute so named, as HTCondor's pretty unparser writes it, or `""`.
/// So `[a = 1 + 2; b = unparse(a)].b` is `"1 + 2"` but
/// `unparse([a = 1 + 2].a)` is `""`. An argument that is not a reference
/// is ERROR.
fn unparse(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    match &args[0].source.kind {
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) | ExprKind::Select { .. } => {
            let name = crate::convert::htcondor_bytes(&args[0].source, false);
            match context.scope.body.get(&name) {
                Some(attribute) => {
                    Value::string(crate::convert::htcondor_bytes(&attribute.source, true))
                }
                None => Value::string(""),
            }
        }
        _ => Value::Error,
    }
}

/// `unresolved(attr)`: the attributes the expression of `attr` refers to
/// that are not defined, comma-separated, as HTCondor's `hasRefs` finds
/// them (`ClassAd::_GetExternalReferences` with full names):
/// - `attr` must be written as an attribute reference (else ERROR) and
///   must be found (else UNDEFINED, before the pattern is looked at) as
///   [`dereference`] finds it: through an ad taken by `ad["name"]` only
///   the special names and `CurrentTime` are found; `CurrentTime` is a
///   special name except in strict mode (a value, at the first ad that
///   does not define it: see [`Specials`]);
/// - the ad that lookup ended in (where `attr` is defined, or the outermost
///   ad when nothing defines it) stays current for the pattern and for
///   the rest of the caller's expression, until the attribute being
///   evaluated is done, as HTCondor's `Deref` leaves it in the caller's
///   state: `[y = {unresolved(A) ?: z}; z = 3].y[0]` is UNDEFINED; a
///   selection whose base the call is in puts the ad current before it
///   back when done, as HTCondor's `base.name` does, so
///   `[v = 1; r = unresolved(A).x ?: v].r` is 1;
/// - a name is looked up from the ad being searched outwards: defined, its
///   expression is searched in turn from the ad that defines it; not
///   defined, it is listed (`CurrentTime` is found, outside strict mode).
///   `self`/`MY`, `parent`, `root` name ads, whose
///   attributes are all searched; `.name` is looked up in the root;
/// - `base.name` evaluates `base`: an ad is searched for `name`, UNDEFINED
///   lists `base.name` as written (`TARGET.x` outside a match is `x`: a
///   leading `TARGET.` is dropped), anything else fails the search;
/// - everything else is searched part by part, nested ads and lists too
///   (their names looked up in the ad being searched, not the literal);
/// - a failed search (a base that is not an ad, a circular definition)
///   lists nothing. Names are kept once ignoring case, sorted ignoring
///   case (so `TARGET.` names sort by their `TARGET.` spelling).
///
/// `unresolved(attr, pattern)`: whether any of those names has a
/// non-empty match of the regular expression `pattern`, ignoring case;
/// ERROR when `pattern` is not a valid pattern; not a string, the
/// evaluation fails (ERROR, passed on as at the depth limit).
fn unresolved(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    if !matches!(
        args[0].source.kind,
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) | ExprKind::Select { .. }
    ) {
        return Value::Error;
    }
    let (found, current) = dereference(context, &args[0].source);
    // HTCondor's lookup leaves the ad it ended in current in the caller's
    // evaluation state, found or not, and hasRefs does not restore it: the
    // pattern and the rest of the caller's expression look names up from
    // there (`[y = {unresolved(A) ?: z}; z = 3].y[0]` is UNDEFINED: `A`'s
    // lookup went on to the outermost ad, which has no `z`).
    context.leave_scope(current.clone());
    if let Found::Nothing = found {
        return Value::Undefined;
    }
    // The pattern is read from the ad the lookup left current; one that is
    // no string fails the evaluation, as hasRefs returns false there
    // (`isError(unresolved(A, 1))` with `A` defined fails as a whole).
    let pattern = match args.get(1).map(|arg| context.evaluate(&arg.program)) {
        None => None,
        Some(Value::Str(pattern)) => Some(pattern),
        Some(_) => {
            context.fail();
            return Value::Error;
        }
    };
    if let Some(pattern) = &pattern
        && !crate::regex::compiles_caseless(context, pattern)
    {
        return Value::Error;
    }
    let mut names = BTreeMap::new();
    let root = context
        .evaluation_root()
        .unwrap_or_else(|| context.scope.root());
    let complete = match found {
        Found::Definition(_, found_in, source) => external_references(
            context,
            &source,
            &found_in,
            &found_in,
            &root,
            &mut names,
            REFERENCE_DEPTH,
        ),
        Found::Value(Value::Ad(named)) => ad_references(
            context,
            &named,
            &current,
            &root,
            &mut names,
            REFERENCE_DEPTH,
        ),
        Found::Value(_) | Found::Nothing => true,
    };
    if !complete {
        names.clear();
    }
    let names = names.into_values().map(|name| match name.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case(b"target.") => name[7..].to_vec(),
        _ => name,
    });
    match pattern {
        None => Value::string(names.collect::<Vec<_>>().join(&b","[..])),
        Some(pattern) => {
            let mut any = false;
            for name in names {
                match crate::regex::matches_not_empty_caseless(context, &pattern, &name) {
                    Some(true) => {
                        any = true;
                        break;
                    }
                    Some(false) => {}
                    None => return Value::Error,
                }
            }
            Value::Bool(any)
        }
    }
}

/// Levels the search of `unresolved` may go down (definitions followed,
/// arguments, elements): HTCondor's search shares the evaluation's depth
/// of about 400; a circular definition fails either way.
const REFERENCE_DEPTH: u32 = 300;

fn evaluate_in(context: &mut CallContext<'_>, expr: &Expr, scope: &AdRef) -> Value {
    let registry = crate::shared_registry();
    match classad_compiler::Compiler::new(&registry).compile(expr) {
        Ok(program) => context.evaluate_as_written_in(&program, scope),
        Err(_) => Value::Error,
    }
}

/// Adds to `names` (keyed ignoring case, first spelling kept) the
/// references of `expr` searched from `ad`; false when the search fails.
fn external_references(
    context: &mut CallContext<'_>,
    expr: &Expr,
    ad: &AdRef,
    home: &AdRef,
    root: &AdRef,
    names: &mut BTreeMap<Vec<u8>, Vec<u8>>,
    depth: u32,
) -> bool {
    let Some(depth) = depth.checked_sub(1) else {
        return false;
    };
    // `self` inside an attribute it reaches branches at every level.
    if !context.charge(8) {
        return false;
    }
    let specials = Specials::of(context);
    let mut add = |name: Vec<u8>| {
        names.entry(name.to_ascii_lowercase()).or_insert(name);
    };
    let (found, current) = match &expr.kind {
        ExprKind::Literal(_) => return true,
        ExprKind::Attribute(name) => lookup_in_scope(
            context,
            ad,
            name.as_bytes(),
            &mut Root::Known(Some(root.clone())),
            specials,
        ),
        ExprKind::RootAttribute(name) => lookup_in_scope(
            context,
            root,
            name.as_bytes(),
            &mut Root::Known(Some(root.clone())),
            specials,
        ),
        // A base that names nothing (`[a = 1]`, `{[a = 1]}[0]`) is made of
        // literals whose parent is the ad the expression is written in
        // (HTCondor sets a literal's parent scope when the expression is
        // built), not the ad the search looks names up from:
        // `[a = 1].parent` in an attribute of an ad that `parent` or `self`
        // named is that ad again.
        ExprKind::Select { base, name } => {
            match evaluate_in(context, base, if names_nothing(base) { home } else { ad }) {
                Value::Undefined => {
                    // HTCondor's text of the base, and the name's bytes raw.
                    let mut full = crate::convert::htcondor_bytes(base, false);
                    full.push(b'.');
                    full.extend_from_slice(name.as_bytes());
                    add(full);
                    return true;
                }
                Value::Ad(selected) => lookup_in_scope(
                    context,
                    &selected,
                    name.as_bytes(),
                    &mut Root::Known(Some(root.clone())),
                    specials,
                ),
                _ => return false,
            }
        }
        ExprKind::Ad(literal) => {
            return literal.attributes.iter().all(|(_, value)| {
                external_references(context, value, ad, home, root, names, depth)
            });
        }
        _ => {
            let mut children = Vec::new();
            expr.for_each_child(|child| children.push(child));
            return children
                .into_iter()
                .all(|child| external_references(context, child, ad, home, root, names, depth));
        }
    };
    match found {
        Found::Definition(_, found_in, source) => {
            external_references(context, &source, &found_in, &found_in, root, names, depth)
        }
        Found::Value(Value::Ad(named)) => {
            ad_references(context, &named, &current, root, names, depth)
        }
        Found::Value(_) => true,
        Found::Nothing => {
            if let ExprKind::Attribute(name)
            | ExprKind::RootAttribute(name)
            | ExprKind::Select { name, .. } = &expr.kind
            {
                add(name.as_bytes().to_vec());
            }
            true
        }
    }
}

/// Whether `expr` holds no reference to a name (only literals and
/// operations on them), so that where it is evaluated only decides the
/// parent of the ads and lists it makes. The names inside an ad literal
/// are not looked up when the literal is evaluated.
fn names_nothing(expr: &Expr) -> bool {
    if let ExprKind::Ad(_) = expr.kind {
        return true;
    }
    if matches!(
        expr.kind,
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) | ExprKind::Select { .. }
    ) {
        return false;
    }
    let mut nothing = true;
    expr.for_each_child(|child| nothing &= names_nothing(child));
    nothing
}

/// What the special names of HTCondor's lookup mean: `MY` and
/// `CurrentTime` are special only with old-ClassAd semantics (not in
/// strict mode). A special name is taken at the first ad on the way that
/// does not define it, so an enclosing ad's `CurrentTime` is never seen
/// (`[CurrentTime = w; i = [r = unresolved(X); X = CurrentTime + v]].i.r`
/// is `"v"`), and the lookup of `CurrentTime` ends there.
#[derive(Clone, Copy)]
struct Specials {
    strict: bool,
    /// The time `CurrentTime` finds, in seconds since the epoch.
    now: i64,
}

impl Specials {
    fn of(context: &CallContext<'_>) -> Self {
        Specials {
            strict: context.vm.options().strict,
            now: context.now() as i64,
        }
    }
}

/// The references of every attribute of `named` (an ad that `self`,
/// `parent` or `root` names), searched from `ad`.
fn ad_references(
    context: &mut CallContext<'_>,
    named: &AdRef,
    ad: &AdRef,
    root: &AdRef,
    names: &mut BTreeMap<Vec<u8>, Vec<u8>>,
    depth: u32,
) -> bool {
    let sources: Vec<Arc<Expr>> = named
        .body
        .attributes()
        .iter()
        .filter_map(|definition| named.body.get(definition.name().as_bytes()))
        .map(|attribute| attribute.source.clone())
        .collect();
    sources
        .iter()
        .all(|source| external_references(context, source, ad, named, root, names, depth))
}

/// `debug(expr)`: the value of `expr`; with `CLASSAD_DEBUG` set in the
/// environment, the expression and its value are written to stderr.
///
/// HTCondor's `debug` evaluates its argument as any function does, at the
/// call's depth, and hands back its value: a list as written, whatever its
/// elements (`debug(B)` with `B = {B.b}` is that list, not ERROR).
fn debug(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let scope = context.scope;
    let value = context.evaluate_argument_in(&args[0].program, scope);
    if std::env::var_os("CLASSAD_DEBUG").is_some() {
        eprintln!(
            "debug: {} => {}",
            classad_syntax::unparse(&args[0].source),
            classad_vm::print::value_to_string(&value)
        );
    }
    value
}

/// What HTCondor's `AttributeReference::Deref` finds for the first
/// argument of `evalInEachContext` and `countMatches`.
enum Found {
    /// An attribute's definition and the ad it is written in: its
    /// expression is evaluated in each ad.
    Definition(Arc<Program>, AdRef, Arc<Expr>),
    /// A value (an ad for `self`, `parent`, `root`; a list for a selection
    /// over a list): the same in each ad.
    Value(Value),
    /// Nothing: the argument itself is evaluated in each ad.
    Nothing,
}

/// The root of the caller's evaluation state for a lookup: known, or
/// found the first time the lookup needs it (a name the ad it starts from
/// lacks, `.name`, `root`). In a match the root is HTCondor's MatchClassAd,
/// which the VM builds when first asked for it; a lookup that finds its
/// name at once (`MY.RequireGPUs`, each device of
/// `countMatches(MY.RequireGPUs, TARGET.AvailableGPUs)`) never needs it,
/// and building it for every pair of a pool cost the match engine more
/// than the rest of the evaluation (issue 26). Evaluating the base of a
/// selection in between restores the caller's state, so the root found
/// late is the one found early.
enum Root {
    Known(Option<AdRef>),
    NotYetAsked,
}

impl Root {
    fn get(&mut self, context: &mut CallContext<'_>) -> Option<&AdRef> {
        if let Root::NotYetAsked = self {
            *self = Root::Known(context.evaluation_root());
        }
        match self {
            Root::Known(root) => root.as_ref(),
            Root::NotYetAsked => None,
        }
    }
}

/// `name` looked up as HTCondor's `ClassAd::LookupInScope` does from
/// `start`: each ad outward, the special names taken at the first ad that
/// lacks the name. Returns what was found and the ad the lookup ended in,
/// which HTCondor leaves as the current ad of the caller's evaluation.
/// `MY` names the ad only with old-ClassAd semantics (not `strict`).
/// `root` is the root of the caller's evaluation state; without one
/// (`Known(None)`), `root` and `toplevel` are not found (HTCondor's lookup
/// fails, and the argument itself is evaluated in each ad).
fn lookup_in_scope(
    context: &mut CallContext<'_>,
    start: &AdRef,
    name: &[u8],
    root: &mut Root,
    specials: Specials,
) -> (Found, AdRef) {
    let symbol = Symbol::transient(name);
    let mut current = start.clone();
    loop {
        if let Some(slot) = current.body.slot(&symbol) {
            let attribute = current.body.attribute(slot);
            let (program, source) = (attribute.program.clone(), attribute.source.clone());
            return (Found::Definition(program, current.clone(), source), current);
        }
        let root = root.get(context).cloned();
        let root = root.as_ref();
        // Not the stand-in for a scope HTCondor's copy of a value lost; at
        // the top of either ad of a match, its context ad, then the match
        // ad (`unresolved(symmetricMatch)` searches the match ad's
        // expression, `parent` there is the context ad).
        let parent = if root.is_some_and(|root| Arc::ptr_eq(&current, root)) {
            None
        } else {
            context.scope_above(&current)
        };
        match (
            special_name(&symbol, &current, parent.as_ref(), root, specials),
            parent,
        ) {
            (Some(Some(value)), _) => return (Found::Value(value), current),
            (Some(None), _) | (None, None) => return (Found::Nothing, current),
            (None, Some(parent)) => current = parent,
        }
    }
}

/// What the special name `symbol` names at `current` (whose enclosing ad
/// is `parent`): `None` for another name, `Some(None)` for a special name
/// that names nothing there.
fn special_name(
    symbol: &Symbol,
    current: &AdRef,
    parent: Option<&AdRef>,
    root: Option<&AdRef>,
    specials: Specials,
) -> Option<Option<Value>> {
    match symbol.as_bytes() {
        b"self" => Some(Some(Value::Ad(current.clone()))),
        b"my" if !specials.strict => Some(Some(Value::Ad(current.clone()))),
        b"currenttime" if !specials.strict => Some(Some(Value::Int(specials.now))),
        b"parent" => Some(parent.cloned().map(Value::Ad)),
        b"root" | b"toplevel" => Some(root.cloned().map(Value::Ad)),
        _ => None,
    }
}

/// HTCondor's dereference of an attribute reference (`name`, `.name`,
/// `base.name`), and the ad its lookup leaves current.
fn dereference(context: &mut CallContext<'_>, source: &Expr) -> (Found, AdRef) {
    let specials = Specials::of(context);
    let here = context.scope.clone();
    // The root of the caller's state, which is not always the end of the
    // scope chain (see `CallContext::evaluation_root`), found when needed.
    let mut root = Root::NotYetAsked;
    match &source.kind {
        ExprKind::Attribute(name) => {
            // In a match the walk goes on from the top of either ad to its
            // context ad and the match ad, where it ends when nothing
            // defines the name: HTCondor leaves the match ad current (the
            // fallback to TARGET below does not change it), so
            // `evalInEachContext(zz, {a})` reads `a` there: UNDEFINED, not
            // MY's `a`.
            let (found, current) =
                lookup_in_scope(context, &here, name.as_bytes(), &mut root, specials);
            if !matches!(found, Found::Nothing) {
                return (found, current);
            }
            if let Some(target) = context.alternate_scope() {
                let (found, in_target) =
                    lookup_in_scope(context, &target, name.as_bytes(), &mut root, specials);
                if !matches!(found, Found::Nothing) {
                    return (found, in_target);
                }
            }
            (Found::Nothing, current)
        }
        ExprKind::RootAttribute(name) => match root.get(context).cloned() {
            Some(root) => lookup_in_scope(
                context,
                &root,
                name.as_bytes(),
                &mut Root::Known(Some(root.clone())),
                specials,
            ),
            // `.name` without a root: HTCondor's lookup fails.
            None => (Found::Nothing, here),
        },
        ExprKind::Select { base, name } => {
            let registry = crate::shared_registry();
            let Ok(program) = classad_compiler::Compiler::new(&registry).compile(base) else {
                return (Found::Nothing, here);
            };
            // A base whose evaluation fails (`root.x` where the state has
            // no root) fails the lookup, which HTCondor's caller ignores:
            // the argument itself is evaluated in each ad.
            let (base, failed) =
                context.taking_failures(|context| context.evaluate_as_written(&program));
            if failed {
                return (Found::Nothing, here);
            }
            match base {
                // An ad taken by `ad["name"]` is freed in HTCondor before
                // the lookup: as for a selection from it (`Vm::select`), the
                // lookup finds none of its attributes, only the special
                // names (`root` is the root of the evaluation, `self` and
                // `MY` the ad, `parent` its parent scope), then the ads
                // around it, then `CurrentTime`. A copied ad has no parent
                // scope, so `unresolved(z.c)` with `z = [y = [c = d]]["y"]`
                // is UNDEFINED and `evalInEachContext(z.c, ads)` evaluates
                // `z.c` itself in each ad; one `eval` made keeps the ad
                // `eval` ran in, where the search goes on.
                Value::Ad(ad) if ad.detached && !context.vm.options().corrections => {
                    let symbol = Symbol::transient(name.as_bytes());
                    let parent = classad_vm::interp::parent_scope(&ad).cloned();
                    match (
                        special_name(
                            &symbol,
                            &ad,
                            parent.as_ref(),
                            root.get(context).cloned().as_ref(),
                            specials,
                        ),
                        parent,
                    ) {
                        (Some(Some(value)), _) => (Found::Value(value), ad),
                        (None, Some(parent)) => {
                            lookup_in_scope(context, &parent, name.as_bytes(), &mut root, specials)
                        }
                        _ => (Found::Nothing, here),
                    }
                }
                Value::Ad(ad) => {
                    lookup_in_scope(context, &ad, name.as_bytes(), &mut root, specials)
                }
                Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => {
                    let Ok(program) = classad_compiler::Compiler::new(&registry).compile(source)
                    else {
                        return (Found::Nothing, here);
                    };
                    (Found::Value(context.evaluate(&program)), here)
                }
                _ => (Found::Nothing, here),
            }
        }
        _ => (Found::Nothing, here),
    }
}

/// The elements of the second argument of `evalInEachContext` and
/// `countMatches`, each evaluated with `current` as the ad lookups start
/// from, or the value to return instead (`Err(None)` for UNDEFINED).
fn ad_list(
    context: &mut CallContext<'_>,
    arg: &LazyArg,
    current: &AdRef,
) -> Result<Vec<Value>, Option<Value>> {
    // A list literal's elements are evaluated one by one (ad literals keep
    // the ad they were written in); anything else is evaluated first.
    let scope = context.scope.clone();
    let list = if matches!(arg.source.kind, ExprKind::List(_)) {
        context.evaluate_argument_in(&arg.program, &scope)
    } else {
        // HTCondor ignores whether this evaluation failed and reads the
        // value it left (`countMatches(z.q, z.l)` where `z.l` fails at the
        // depth limit is 0: the failed selection left UNDEFINED).
        context.ignoring_failures(|context| context.evaluate_argument_in(&arg.program, current))
    };
    match list {
        Value::Undefined => Err(None),
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => {
            // HTCondor's evaluateInContext makes an element whose
            // evaluation fails ERROR (`evalInEachContext(true, B)` with `B
            // = {B.b}` is `{ error }`), and the call goes on.
            let mut items = Vec::new();
            let mut i = 0;
            while let Some(item) = context
                .ignoring_failures(|context| context.list_element_in(&list, i, current, false))
            {
                i += 1;
                items.push(item.unwrap_or(Value::Error));
            }
            Ok(items)
        }
        _ => Err(Some(Value::Error)),
    }
}

/// `expr` (what [`dereference`] found for it) evaluated in `ad`, a list
/// value left as written.
fn evaluate_in_ad(
    context: &mut CallContext<'_>,
    found: &Found,
    arg: &LazyArg,
    item: &Value,
) -> Value {
    let ad = match item {
        Value::Ad(ad) => ad,
        Value::Undefined => return Value::Undefined,
        _ => return Value::Error,
    };
    if !context.charge(CONTEXT_STEPS) {
        return Value::Error;
    }
    let (program, written_in) = match found {
        Found::Definition(program, written_in, _) => (program, written_in.clone()),
        Found::Value(value) => return value.clone(),
        Found::Nothing => (&arg.program, context.scope.clone()),
    };
    context.evaluate_in_context(program, ad, &written_in)
}

/// `evalInEachContext(expr, ads)`: `expr` evaluated in each ad of the
/// list; an element that is not an ad gives ERROR in its place (UNDEFINED
/// for an UNDEFINED one). When `expr` is a reference to an attribute, the
/// attribute's expression is what is evaluated in each ad, as HTCondor
/// does (`[t = P > 2; l = {[P = 1], [P = 5]}; r = evalInEachContext(t, l)].r`
/// is `{ false, true }`). HTCondor's lookup of that attribute leaves its
/// evaluation in the ad where the lookup ended, and the list is found from
/// there.
fn eval_in_each_context(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    with_dereferenced(context, args, eval_in_each)
}

/// `each(context, args, found, current)` with `expr` (the first argument)
/// dereferenced, leaving current the ad where its lookup ended.
fn with_dereferenced(
    context: &mut CallContext<'_>,
    args: &[LazyArg],
    each: fn(&mut CallContext<'_>, &[LazyArg], &Found, &AdRef) -> Value,
) -> Value {
    let (found, current) = dereference(context, &args[0].source);
    let value = each(context, args, &found, &current);
    context.leave_scope(current);
    value
}

fn eval_in_each(
    context: &mut CallContext<'_>,
    args: &[LazyArg],
    found: &Found,
    current: &AdRef,
) -> Value {
    let items = match ad_list(context, &args[1], current) {
        Ok(items) => items,
        Err(value) => return value.unwrap_or(Value::Undefined),
    };
    // HTCondor stores each value as a literal (a relative time's is its
    // whole seconds, a real written as a relative time:
    // `evalInEachContext(relTime(90.7), {[a = 1]})` is `{ relTime("01:30") }`)
    // and copies a list as it holds it, unevaluated.
    let values: Vec<Value> = items
        .iter()
        .map(|item| {
            classad_vm::interp::selected_literal(evaluate_in_ad(context, found, &args[0], item))
        })
        .collect();
    Value::SharedList(values.into())
}

/// `countMatches(expr, ads)`: how many ads of the list `expr` is true in
/// (an UNDEFINED list has none), `expr` dereferenced as in
/// [`eval_in_each_context`].
fn count_matches(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    with_dereferenced(context, args, count_in_each)
}

fn count_in_each(
    context: &mut CallContext<'_>,
    args: &[LazyArg],
    found: &Found,
    current: &AdRef,
) -> Value {
    let items = match ad_list(context, &args[1], current) {
        Ok(items) => items,
        Err(value) => return value.unwrap_or(Value::Int(0)),
    };
    let mut count = 0;
    for item in &items {
        if matches!(item, Value::Ad(_))
            && truth(&evaluate_in_ad(context, found, &args[0], item)) == Some(true)
        {
            count += 1;
        }
    }
    Value::Int(count)
}
