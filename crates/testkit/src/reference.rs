//! A reference evaluator: a plain recursive walk over the AST.
//!
//! It implements the rules of docs/semantics.md (and of the VM's module
//! documentation) directly on the tree, so that the VM's bytecode,
//! constant folding, jump patching and fast paths can be checked against
//! it. Only the pure operator functions of [`classad_vm::ops`] and the
//! builtin functions of the stdlib are shared; everything else — short
//! circuits, scoping, circular references, subscripts, selection, lists,
//! nested ads — is written here again, as simply as possible.
//!
//! Runtime ads are [`AdNode`]s: an ad literal of the tree (`&AdExpr`) and
//! the ad it was written in, in an `Rc` chain. Nothing of the VM's
//! `AdBody` is used, except to hand ad values to builtin functions.
//!
//! The rules (docs/semantics.md, checked against HTCondor):
//! * lists are lazy: a list literal is a [`RLazyList`], its written
//!   elements and the ad it was written in; an element is evaluated each
//!   time it is used: a subscript evaluates that element only, where the
//!   list was written; a selection over the list, or a strict function's
//!   argument, evaluates each element where the selection or call is (as
//!   HTCondor does; an ad literal element keeps the ad it was written in
//!   as its parent). The final value is *forced* where each list was
//!   written: every lazy list evaluated, element by element, recursively,
//!   except a list reached again while it is being forced (the same
//!   literal in the same ad literal), which stays lazy.
//!   Evaluating an element and projecting a selection over an element each
//!   count one level of depth. A list of literals only is a plain value.
//!   `string()` sees its list arguments unforced;
//! * a circular reference is detected per ad *literal* and attribute (an
//!   attribute of an ad literal being evaluated, reached again through any
//!   value made from the same literal, is UNDEFINED);
//! * an unscoped name is the ad's own attribute, else a special name at
//!   that ad (`self`; `my` unless strict outside a match; `parent` if the
//!   ad has one; `root`, `toplevel`; `target` in a match; `CurrentTime`
//!   unless strict), else the enclosing ads outward, else (not strict) the
//!   TARGET ad;
//! * `ad.name` is the ad's own attribute, else a special name at that ad
//!   (`CurrentTime` unless strict), else the enclosing ads outward;
//!   `MY.x` is `(MY).x`, `TARGET.x` is `(TARGET).x`, and `.x` is `x`
//!   selected from the root ad.

use classad_syntax::{AdExpr, BinaryOp, Expr, ExprKind, Literal, Name};
use classad_vm::print::{parse_abs_time, parse_rel_time};
use classad_vm::registry::{Function, LazyArg};
use classad_vm::{AbsTime, AdRef, AdValue, CallContext, Value, Vm, ops};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

/// A deliberately wrong rule, to show that the differential harness can
/// tell the reference from the VM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mutation {
    /// The correct rules.
    #[default]
    None,
    /// `&&` with swapped truth-table entries: `undefined && false` gives
    /// UNDEFINED and `true && undefined` gives false.
    SwapAndTable,
    /// Circular references give ERROR instead of UNDEFINED.
    CircularIsError,
    /// Integer `%` by zero gives 0 instead of ERROR.
    ModuloByZeroIsZero,
    /// List elements evaluated when the list is made (the old, eager
    /// rule): `[a = {a[1] + 1, 3}].a[0]` gives UNDEFINED instead of 4.
    EagerLists,
}

/// Options of the reference evaluator.
#[derive(Clone, Copy, Debug, Default)]
pub struct RefOptions {
    /// `STRICT_CLASSAD_EVALUATION`: no fallback of unscoped names to TARGET.
    pub strict: bool,
    /// A wrong rule to apply (for testing the harness).
    pub mutation: Mutation,
    /// `Options::corrections` of the VM.
    pub corrections: bool,
}

/// The deepest nesting of attribute evaluations, as the VM's default.
pub const MAX_DEPTH: u32 = 400;

/// The value of `CurrentTime` (the harness gives the VM the same clock).
pub const FIXED_NOW: i64 = 1_700_000_000;

/// Most calls of [`Reference::eval`] in one evaluation: beyond it the
/// reference gives up ([`Reference::exhausted`]) and its value means
/// nothing (the VM has a budget of instructions instead).
pub const MAX_STEPS: u64 = 2_000_000;

/// A runtime ad: an ad literal and the ad it was written in.
pub struct AdNode<'a> {
    /// The attributes, as written.
    pub expr: &'a AdExpr,
    /// The lexically enclosing ad (none for a top-level ad).
    pub parent: Option<RAd<'a>>,
    /// Whether this is the value of `ad["name"]`, from which HTCondor's
    /// selections are UNDEFINED (the ad has lost its scope).
    pub detached: bool,
    /// Which copy of the written ad this is (0: as written, or written in
    /// one): the ads a selection over a list collects are HTCondor's copies,
    /// whose attributes are new trees, not circular with the original's.
    pub copy: u64,
}

/// A shared runtime ad.
pub type RAd<'a> = Rc<AdNode<'a>>;

impl<'a> AdNode<'a> {
    /// A top-level ad.
    pub fn top(expr: &'a AdExpr) -> RAd<'a> {
        Rc::new(AdNode {
            expr,
            parent: None,
            detached: false,
            copy: 0,
        })
    }

    /// The index of attribute `name` (ignoring case) in this ad alone.
    pub fn find(&self, name: &str) -> Option<usize> {
        // Parsed ads have unique names; the last definition would win.
        self.expr
            .attributes
            .iter()
            .rposition(|(n, _)| n.eq_ignore_case(name))
    }
}

/// An ad literal with no attributes, for the scope of a list that has lost
/// its own.
fn empty_ad_expr() -> &'static AdExpr {
    static EMPTY: std::sync::OnceLock<AdExpr> = std::sync::OnceLock::new();
    EMPTY.get_or_init(AdExpr::new)
}

/// The empty root of an ad made by a selection over a list: names resolve
/// in it as in any empty ad; recognised by address so that `parent` from
/// the ad it holds is UNDEFINED.
fn empty_root_expr() -> &'static AdExpr {
    static EMPTY: std::sync::OnceLock<AdExpr> = std::sync::OnceLock::new();
    EMPTY.get_or_init(AdExpr::new)
}

/// Whether `expr` is only references and selections, which pass a failed
/// evaluation on without a value of their own.
fn selection_chain(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) => true,
        // A failed base leaves the selection's value untouched, whatever
        // the base (`[a = {a[0].a}].a[0]` is UNDEFINED).
        ExprKind::Select { .. } => true,
        // HTCondor's parentheses make a failed evaluation ERROR
        // (`OperationParens`): `[a = {(a.a)}].a` is `{ error }`, while
        // `[a = {(a).a}].a` is `{ undefined }` (the selection fails).
        ExprKind::Paren(_) => false,
        _ => false,
    }
}

/// Whether `ad` is the scope given to a list made by a selection over a
/// list or taken by `ad["name"]`: none at all.
fn scopeless(ad: &AdNode<'_>) -> bool {
    std::ptr::eq(ad.expr, empty_ad_expr())
}

/// The outermost ad of a scope chain.
pub fn root_of<'a>(ad: &RAd<'a>) -> RAd<'a> {
    let mut current = ad.clone();
    while let Some(parent) = current.parent.clone() {
        current = parent;
    }
    current
}

/// A value of the reference evaluator.
#[derive(Clone)]
pub enum RValue<'a> {
    /// UNDEFINED
    Undefined,
    /// ERROR
    Error,
    /// boolean
    Bool(bool),
    /// integer
    Int(i64),
    /// real
    Real(f64),
    /// string (bytes)
    Str(Rc<[u8]>),
    /// absolute time
    AbsTime(AbsTime),
    /// relative time, seconds
    RelTime(f64),
    /// a relative time's literal in a list a selection made: its whole
    /// seconds, a real where it is used, written as a relative time
    RelTimeLiteral(f64),
    /// list of values (forced, or a list of literals)
    List(Rc<Vec<RValue<'a>>>),
    /// list literal not evaluated yet
    Lazy(Rc<RLazyList<'a>>),
    /// ad in its scope
    Ad(RAd<'a>),
}

/// A list literal and the ad it was written in: its elements are
/// evaluated there, each when used.
pub struct RLazyList<'a> {
    /// The elements, as written.
    pub items: &'a [Expr],
    /// The ad the list was written in.
    pub scope: RAd<'a>,
}

impl RLazyList<'_> {
    /// What identifies the list while it is forced: the literal and the ad
    /// literal of its scope.
    fn key(&self) -> (usize, usize) {
        (
            self.items.as_ptr() as usize,
            std::ptr::from_ref(self.scope.expr) as usize,
        )
    }
}

impl std::fmt::Debug for RValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RValue::List(items) => {
                f.write_str("{ ")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item:?}")?;
                }
                f.write_str(" }")
            }
            RValue::Lazy(list) => {
                let items: Vec<String> = list.items.iter().map(classad_syntax::unparse).collect();
                write!(f, "{{ {} }}", items.join(","))
            }
            RValue::Ad(ad) => f.write_str(&classad_syntax::unparse_ad(ad.expr)),
            scalar => f.write_str(&classad_vm::print::value_to_string(
                &scalar.to_scalar_value(),
            )),
        }
    }
}

impl<'a> RValue<'a> {
    /// The VM value of a scalar; lists and ads become empty placeholders of
    /// the same type, which is all that the operator functions look at (an
    /// operator never returns an aggregate operand).
    fn to_scalar_value(&self) -> Value {
        match self {
            RValue::Undefined => Value::Undefined,
            RValue::Error => Value::Error,
            RValue::Bool(b) => Value::Bool(*b),
            RValue::Int(i) => Value::Int(*i),
            RValue::Real(r) => Value::Real(*r),
            RValue::Str(s) => Value::Str(Arc::from(&s[..])),
            RValue::AbsTime(t) => Value::AbsTime(*t),
            RValue::RelTime(r) => Value::RelTime(*r),
            RValue::RelTimeLiteral(r) => Value::RelTimeLiteral(*r),
            RValue::List(_) | RValue::Lazy(_) => Value::List(Arc::from(Vec::new())),
            RValue::Ad(ad) if ad.detached => Value::Ad(classad_vm::AdValue::detached(Arc::new(
                classad_vm::AdBody::new(),
            ))),
            RValue::Ad(_) => Value::Ad(classad::empty_ad()),
        }
    }

    /// The reference value of a scalar VM value (aggregates are ERROR:
    /// use [`Reference::from_vm`] for function results).
    fn from_scalar(value: Value) -> RValue<'a> {
        match value {
            Value::Undefined => RValue::Undefined,
            Value::Bool(b) => RValue::Bool(b),
            Value::Int(i) => RValue::Int(i),
            Value::Real(r) => RValue::Real(r),
            Value::Str(s) => RValue::Str(Rc::from(&s[..])),
            Value::AbsTime(t) => RValue::AbsTime(t),
            Value::RelTime(r) => RValue::RelTime(r),
            Value::RelTimeLiteral(r) => RValue::RelTimeLiteral(r),
            Value::Error
            | Value::List(_)
            | Value::SharedList(_)
            | Value::LazyList(_)
            | Value::Ad(_) => RValue::Error,
        }
    }
}

/// Why an expression cannot be evaluated at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefError {
    /// `absTime`/`relTime` of a literal string that is not a time: the
    /// whole expression is refused, as HTCondor's parser does.
    InvalidTimeLiteral(String),
}

/// Checks the whole tree for time literals that do not parse. This is a
/// parse-time rule of HTCondor's, not evaluation, so the reference shares
/// the compiler's check rather than reimplementing it.
pub fn validate(expr: &Expr) -> Result<(), RefError> {
    classad_compiler::check_time_literals(expr).map_err(|e| match e {
        classad_compiler::CompileError::InvalidTimeLiteral(text) => {
            RefError::InvalidTimeLiteral(text)
        }
        other => RefError::InvalidTimeLiteral(other.to_string()),
    })
}

/// The empty context ad `classad eval` evaluates in.
pub static EMPTY_AD: LazyLock<AdExpr> = LazyLock::new(AdExpr::new);

/// The reference evaluator's state for one evaluation.
pub struct Reference<'a> {
    options: RefOptions,
    /// The two ads of a match, each the other's TARGET.
    pair: Option<(RAd<'a>, RAd<'a>)>,
    /// Attributes being evaluated: (ad literal address, copy, index).
    active: Vec<(usize, u64, usize)>,
    /// Copies made so far ([`AdNode::copy`]).
    copies: std::cell::Cell<u64>,
    /// Lazy lists being forced ([`RLazyList::key`]).
    forcing: Vec<(usize, usize)>,
    depth: u32,
    /// Times the depth limit was reached: HTCondor's evaluation fails
    /// there, which a selection over a list passes on as UNDEFINED and an
    /// operator turns into ERROR.
    depth_failures: u64,
    /// Whether the evaluation reached the depth limit anywhere: this model
    /// counts depth more coarsely than HTCondor (whose exact rules the VM
    /// follows, checked against the oracle), so such answers are not
    /// compared.
    reached_depth_limit: bool,
    steps: u64,
    /// VM ads made for function arguments, by node address (the node is
    /// kept alive so that its address is not reused).
    converted: HashMap<usize, (RAd<'a>, AdRef)>,
    /// While a list element is evaluated in a scope other than the
    /// list's (a selection over the list): the list's scope, the parent
    /// of ad literals written in the element, as HTCondor's copy of the
    /// element keeps their parent scope. Cleared inside an attribute.
    literal_parent: Option<RAd<'a>>,
}

impl<'a> Reference<'a> {
    /// A reference evaluator.
    pub fn new(options: RefOptions) -> Reference<'a> {
        Reference {
            options,
            pair: None,
            active: Vec::new(),
            copies: std::cell::Cell::new(0),
            forcing: Vec::new(),
            depth: 0,
            depth_failures: 0,
            reached_depth_limit: false,
            steps: 0,
            literal_parent: None,
            converted: HashMap::new(),
        }
    }

    /// Whether the last evaluation ran out of steps ([`MAX_STEPS`]), so
    /// that its value means nothing.
    pub fn exhausted(&self) -> bool {
        self.steps > MAX_STEPS
    }

    /// Whether an evaluation so far reached the depth limit (see
    /// `reached_depth_limit`).
    pub fn reached_depth_limit(&self) -> bool {
        self.reached_depth_limit
    }

    fn at_depth_limit(&mut self) -> bool {
        let at = self.depth >= MAX_DEPTH;
        self.reached_depth_limit |= at;
        at
    }

    /// Evaluates `expr` in an empty context ad.
    pub fn evaluate(&mut self, expr: &'a Expr) -> Result<RValue<'a>, RefError> {
        validate(expr)?;
        self.reset();
        self.pair = None;
        let context = AdNode::top(&EMPTY_AD);
        let value = self.eval(expr, &context);
        Ok(self.force(value, None))
    }

    /// Evaluates `expr` in `context` (a top-level ad).
    pub fn evaluate_in(
        &mut self,
        expr: &'a Expr,
        context: &RAd<'a>,
    ) -> Result<RValue<'a>, RefError> {
        validate(expr)?;
        self.reset();
        self.pair = None;
        let value = self.eval(expr, context);
        Ok(self.force(value, None))
    }

    /// Evaluates `expr` in `my`, with `target` as the other ad of a match.
    pub fn evaluate_in_match(
        &mut self,
        expr: &'a Expr,
        my: &RAd<'a>,
        target: &RAd<'a>,
    ) -> Result<RValue<'a>, RefError> {
        validate(expr)?;
        self.reset();
        self.pair = Some((my.clone(), target.clone()));
        let value = self.eval(expr, my);
        let value = self.force(value, None);
        self.pair = None;
        Ok(value)
    }

    /// Evaluates attribute `index` of `ad` afresh, with no match partner
    /// (how the harness probes an ad value).
    pub fn evaluate_attribute(&mut self, ad: &RAd<'a>, index: usize) -> RValue<'a> {
        self.reset();
        self.pair = None;
        let value = self.attribute_value(ad, index);
        self.force(value, None)
    }

    fn reset(&mut self) {
        self.active.clear();
        self.forcing.clear();
        self.depth = 0;
        self.depth_failures = 0;
        self.steps = 0;
    }

    /// Evaluates `expr` in `scope`.
    pub fn eval(&mut self, expr: &'a Expr, scope: &RAd<'a>) -> RValue<'a> {
        if self.tick() {
            return RValue::Error;
        }
        match &expr.kind {
            ExprKind::Literal(lit) => literal(lit),
            ExprKind::Paren(inner) => self.eval(inner, scope),
            ExprKind::Attribute(name) => self.load(scope, &name.text()),
            ExprKind::RootAttribute(name) => {
                let root = root_of(scope);
                self.select_in_ad(&root, &name.text())
            }
            ExprKind::Select { base, name } => {
                // `MY.x`, `TARGET.x` too: the name's meaning, then selection.
                let base = self.eval(base, scope);
                self.select(base, &name.text(), scope)
            }
            ExprKind::Subscript { base, index } => {
                let base = self.eval(base, scope);
                let index = self.eval(index, scope);
                self.subscript(base, index)
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand, scope);
                RValue::from_scalar(ops::unary(*op, v.to_scalar_value()))
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, scope),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self.conditional(cond, then, otherwise, scope),
            ExprKind::Elvis { value, fallback } => match self.eval(value, scope) {
                RValue::Undefined => self.eval(fallback, scope),
                v => v,
            },
            ExprKind::List(items) => {
                let literals: Vec<RValue<'a>> = items
                    .iter()
                    .map_while(|e| match &e.kind {
                        ExprKind::Literal(lit) => Some(literal(lit)),
                        _ => None,
                    })
                    .collect();
                if literals.len() == items.len() {
                    RValue::List(Rc::new(literals))
                } else if self.options.mutation == Mutation::EagerLists {
                    let values = items.iter().map(|e| self.eval(e, scope)).collect();
                    RValue::List(Rc::new(values))
                } else {
                    RValue::Lazy(Rc::new(RLazyList {
                        items,
                        scope: self.literal_parent.as_ref().unwrap_or(scope).clone(),
                    }))
                }
            }
            ExprKind::Ad(ad) => {
                let parent = self.literal_parent.as_ref().unwrap_or(scope).clone();
                RValue::Ad(Rc::new(AdNode {
                    expr: ad,
                    copy: parent.copy,
                    parent: Some(parent),
                    detached: false,
                }))
            }
            ExprKind::Call { name, args } => self.call(name, args, scope),
        }
    }

    /// Counts one step; whether the budget is spent.
    fn tick(&mut self) -> bool {
        self.steps += 1;
        self.exhausted()
    }

    /// Element `i` of a lazy list, evaluated in `scope` (where the list was
    /// written for a subscript or the caller's value, where it is used for
    /// a selection or a function); an ad literal always in the ad it was
    /// written in. One level of depth.
    fn element(&mut self, list: &RLazyList<'a>, i: usize, scope: &RAd<'a>) -> RValue<'a> {
        if self.at_depth_limit() {
            self.depth_failures += 1;
            return RValue::Error;
        }
        let failures = self.depth_failures;
        self.depth += 1;
        let item = &list.items[i];
        let scope = if matches!(item.kind, ExprKind::Ad(_)) {
            &list.scope
        } else {
            scope
        };
        let saved = self.literal_parent.replace(list.scope.clone());
        let value = self.eval(item, scope);
        self.literal_parent = saved;
        self.depth -= 1;
        if self.depth_failures > failures {
            return if selection_chain(item) {
                RValue::Undefined
            } else {
                RValue::Error
            };
        }
        value
    }

    /// `value` with its lazy lists evaluated, recursively, except a list
    /// already being forced (a list that contains itself).
    fn force(&mut self, value: RValue<'a>, here: Option<&RAd<'a>>) -> RValue<'a> {
        if self.tick() {
            return RValue::Error;
        }
        match value {
            RValue::Lazy(list) => {
                let key = list.key();
                if self.forcing.contains(&key) || self.at_depth_limit() {
                    return RValue::Lazy(list);
                }
                self.forcing.push(key);
                let mut items = Vec::with_capacity(list.items.len());
                for i in 0..list.items.len() {
                    let scope = here.unwrap_or(&list.scope).clone();
                    let item = self.element(&list, i, &scope);
                    items.push(self.force(item, here));
                }
                self.forcing.pop();
                RValue::List(Rc::new(items))
            }
            RValue::List(items) => {
                let items = items.iter().map(|v| self.force(v.clone(), here)).collect();
                RValue::List(Rc::new(items))
            }
            other => other,
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
        scope: &RAd<'a>,
    ) -> RValue<'a> {
        let left = self.eval(lhs, scope);
        match op {
            BinaryOp::And => {
                // Decided by a false (or zero) or ERROR left operand alone.
                if let Some(v) = ops::and_short_circuit(&left.to_scalar_value()) {
                    return RValue::from_scalar(v);
                }
                let right = self.eval(rhs, scope);
                if self.options.mutation == Mutation::SwapAndTable {
                    match (&left, &right) {
                        (RValue::Undefined, RValue::Bool(false)) => return RValue::Undefined,
                        (RValue::Bool(true), RValue::Undefined) => return RValue::Bool(false),
                        _ => {}
                    }
                }
                RValue::from_scalar(ops::logical_and(
                    left.to_scalar_value(),
                    right.to_scalar_value(),
                ))
            }
            BinaryOp::Or => {
                if let Some(v) = ops::or_short_circuit(&left.to_scalar_value()) {
                    return RValue::from_scalar(v);
                }
                let right = self.eval(rhs, scope);
                RValue::from_scalar(ops::logical_or(
                    left.to_scalar_value(),
                    right.to_scalar_value(),
                ))
            }
            _ => {
                let right = self.eval(rhs, scope);
                if self.options.mutation == Mutation::ModuloByZeroIsZero
                    && op == BinaryOp::Modulo
                    && matches!((&left, &right), (RValue::Int(_), RValue::Int(0)))
                {
                    return RValue::Int(0);
                }
                RValue::from_scalar(ops::binary(
                    op,
                    left.to_scalar_value(),
                    right.to_scalar_value(),
                ))
            }
        }
    }

    fn conditional(
        &mut self,
        cond: &'a Expr,
        then: &'a Expr,
        otherwise: &'a Expr,
        scope: &RAd<'a>,
    ) -> RValue<'a> {
        let c = self.eval(cond, scope);
        match c {
            RValue::Undefined => RValue::Undefined,
            RValue::Error => RValue::Error,
            other => match ops::truth(&other.to_scalar_value()) {
                Some(true) => self.eval(then, scope),
                Some(false) => self.eval(otherwise, scope),
                None => RValue::Error,
            },
        }
    }

    /// The value of attribute `index` of `ad`, evaluated in `ad`.
    fn attribute_value(&mut self, ad: &RAd<'a>, index: usize) -> RValue<'a> {
        let key = (std::ptr::from_ref(ad.expr) as usize, ad.copy, index);
        if self.active.contains(&key) {
            return if self.options.mutation == Mutation::CircularIsError {
                RValue::Error
            } else {
                RValue::Undefined
            };
        }
        if self.at_depth_limit() {
            self.depth_failures += 1;
            return RValue::Error;
        }
        let expr = &ad.expr.attributes[index].1;
        self.active.push(key);
        self.depth += 1;
        let saved = self.literal_parent.take();
        let value = self.eval(expr, ad);
        self.literal_parent = saved;
        self.depth -= 1;
        self.active.pop();
        value
    }

    /// The attribute `index` of `ad` evaluated as `ad["name"]` evaluates it
    /// in HTCondor (`ClassAd::EvaluateAttr`): not marked as being
    /// evaluated, so a reference to itself in it runs once more.
    fn attribute_value_unmarked(&mut self, ad: &RAd<'a>, index: usize) -> RValue<'a> {
        if self.at_depth_limit() {
            self.depth_failures += 1;
            return RValue::Error;
        }
        let expr = &ad.expr.attributes[index].1;
        self.depth += 1;
        let saved = self.literal_parent.take();
        // A new evaluation state (`ClassAd::EvaluateAttr`): nothing is
        // being evaluated in it yet.
        let saved_active = std::mem::take(&mut self.active);
        let value = self.eval(expr, ad);
        self.active = saved_active;
        self.literal_parent = saved;
        self.depth -= 1;
        value
    }

    /// The other ad of the match whose ad encloses `scope`.
    fn target_of(&self, scope: &RAd<'a>) -> Option<RAd<'a>> {
        let (left, right) = self.pair.as_ref()?;
        let root = root_of(scope);
        if Rc::ptr_eq(&root, left) {
            Some(right.clone())
        } else if Rc::ptr_eq(&root, right) {
            Some(left.clone())
        } else {
            None
        }
    }

    /// `name` as an attribute of `ad` or of the ads enclosing it.
    fn lookup_outward(&mut self, ad: &RAd<'a>, name: &str) -> Option<RValue<'a>> {
        let mut current = ad.clone();
        loop {
            if let Some(i) = current.find(name) {
                return Some(self.attribute_value(&current, i));
            }
            current = current.parent.clone()?;
        }
    }

    /// The meaning of a special name at `scope`'s level, if it has one
    /// there: `parent` without a parent and `target` without a match
    /// partner are ordinary names, and so is `my` in strict mode outside a
    /// match.
    fn special(&self, scope: &RAd<'a>, name: &str) -> Option<RValue<'a>> {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "self" => Some(RValue::Ad(scope.clone())),
            // In strict mode `my` is no special name (see `resolve`).
            "my" if !self.options.strict => Some(RValue::Ad(scope.clone())),
            "parent" => scope
                .parent
                .clone()
                .filter(|parent| {
                    !scopeless(parent) && !std::ptr::eq(parent.expr, empty_root_expr())
                })
                .map(RValue::Ad),
            "root" | "toplevel" => Some(RValue::Ad(root_of(scope))),
            // `target` is no special name: see `resolve`.
            _ => None,
        }
    }

    /// `CurrentTime`, a special name (not in strict mode): found at the
    /// first ad that lacks it.
    fn current_time(&self, name: &str) -> Option<RValue<'a>> {
        (!self.options.strict && name.eq_ignore_ascii_case("CurrentTime"))
            .then_some(RValue::Int(FIXED_NOW))
    }

    /// An unscoped name: this ad, its special names and (not strict)
    /// `CurrentTime`, the enclosing ads, then (not strict) the TARGET ad.
    fn load(&mut self, scope: &RAd<'a>, name: &str) -> RValue<'a> {
        self.resolve(scope, name, !self.options.strict)
    }

    /// `name` selected from `ad`: the ad, its special names and (not
    /// strict) `CurrentTime`, the enclosing ads.
    fn select_in_ad(&mut self, ad: &RAd<'a>, name: &str) -> RValue<'a> {
        self.resolve(ad, name, false)
    }

    /// The lookup behind both: `ad`, its special names and `CurrentTime`,
    /// the enclosing ads, the TARGET ad if `with_target`.
    fn resolve(&mut self, ad: &RAd<'a>, name: &str, with_target: bool) -> RValue<'a> {
        if let Some(i) = ad.find(name) {
            return self.attribute_value(ad, i);
        }
        // The scope of a list made by a selection over a list: none at all.
        if ad.parent.is_none() && scopeless(ad) {
            return RValue::Undefined;
        }
        if let Some(special) = self.special(ad, name) {
            return special;
        }
        // A special name too, taken at the first ad that lacks it.
        if let Some(now) = self.current_time(name) {
            return now;
        }
        if let Some(parent) = ad.parent.clone()
            && let Some(v) = self.lookup_outward(&parent, name)
        {
            return v;
        }
        // In a match `target` (and in strict mode `my`) is an attribute of
        // the context ad HTCondor's MatchClassAd puts around each side, so
        // the enclosing ads come first.
        let lower = name.to_ascii_lowercase();
        let context = match lower.as_str() {
            "target" => self.target_of(ad),
            "my" if self.options.strict && self.target_of(ad).is_some() => Some(root_of(ad)),
            _ => None,
        };
        if let Some(side) = context {
            if self.at_depth_limit() {
                self.depth_failures += 1;
                return RValue::Error;
            }
            return RValue::Ad(side);
        }
        // The fallback to TARGET only from a match's own ad (its alternate
        // scope), not from an ad written inside it.
        if with_target
            && ad.parent.is_none()
            && let Some(target) = self.target_of(ad)
            && let Some(v) = self.lookup_outward(&target, name)
        {
            return v;
        }
        RValue::Undefined
    }

    /// `base.name`.
    fn select(&mut self, base: RValue<'a>, name: &str, here: &RAd<'a>) -> RValue<'a> {
        match base {
            RValue::Ad(ad) if ad.detached && !self.options.corrections => {
                if name.eq_ignore_ascii_case("root") || name.eq_ignore_ascii_case("toplevel") {
                    RValue::Ad(root_of(here))
                } else {
                    self.current_time(name).unwrap_or(RValue::Undefined)
                }
            }
            // An ad a function made has no enclosing ad: `root` from it is
            // the root of the evaluation.
            RValue::Ad(ad)
                if ad.parent.is_none()
                    && (name.eq_ignore_ascii_case("root")
                        || name.eq_ignore_ascii_case("toplevel"))
                    && ad.find(name).is_none()
                    && self.target_of(&ad).is_none() =>
            {
                RValue::Ad(root_of(here))
            }
            RValue::Ad(ad) => self.select_in_ad(&ad, name),
            RValue::List(items) => {
                let failures = self.depth_failures;
                let mut mapped = Vec::with_capacity(items.len());
                for item in items.iter() {
                    let value = self.select_element(item.clone(), name, here);
                    // The selection fails with its first failed element.
                    if self.depth_failures > failures {
                        return RValue::Undefined;
                    }
                    mapped.push(self.orphan(selected_literal(value)));
                }
                RValue::List(Rc::new(mapped))
            }
            RValue::Lazy(list) => {
                let failures = self.depth_failures;
                let mut mapped = Vec::with_capacity(list.items.len());
                for i in 0..list.items.len() {
                    let item = self.element(&list, i, here);
                    let value = self.select_element(item, name, here);
                    if self.depth_failures > failures {
                        return RValue::Undefined;
                    }
                    mapped.push(self.orphan(selected_literal(value)));
                }
                RValue::List(Rc::new(mapped))
            }
            RValue::Undefined => RValue::Undefined,
            _ => RValue::Error,
        }
    }

    /// An element of a list made by a selection over a list: HTCondor
    /// sets its parent scope to none.
    fn orphan(&self, value: RValue<'a>) -> RValue<'a> {
        if self.options.corrections {
            return value;
        }
        match value {
            // No parent scope: `root` is an empty ad, `parent` UNDEFINED;
            // an ad taken by `ad["name"]` is an ad again, as the copy is.
            // Either ad of a match has a parent in HTCondor (its context
            // ad): its copy is no ad of the match.
            RValue::Ad(ad)
                if ad.parent.is_some() || ad.detached || self.target_of(&ad).is_some() =>
            {
                self.copies.set(self.copies.get() + 1);
                RValue::Ad(Rc::new(AdNode {
                    expr: ad.expr,
                    parent: Some(AdNode::top(empty_root_expr())),
                    detached: false,
                    copy: self.copies.get(),
                }))
            }
            RValue::Lazy(list) => RValue::Lazy(Rc::new(RLazyList {
                items: list.items,
                scope: AdNode::top(empty_ad_expr()),
            })),
            other => other,
        }
    }

    /// `item.name` for one element of a list: one level of depth.
    fn select_element(&mut self, item: RValue<'a>, name: &str, here: &RAd<'a>) -> RValue<'a> {
        if self.tick() {
            return RValue::Error;
        }
        match item {
            RValue::Ad(_) | RValue::List(_) | RValue::Lazy(_) | RValue::Undefined => {
                if self.at_depth_limit() {
                    self.depth_failures += 1;
                    return RValue::Error;
                }
                self.depth += 1;
                let value = self.select(item, name, here);
                self.depth -= 1;
                value
            }
            _ => RValue::Error,
        }
    }

    /// `base[index]`.
    fn subscript(&mut self, base: RValue<'a>, index: RValue<'a>) -> RValue<'a> {
        match (&base, &index) {
            (RValue::Error, _) | (_, RValue::Error) => RValue::Error,
            (RValue::Undefined, _) | (_, RValue::Undefined) => RValue::Undefined,
            (RValue::List(_) | RValue::Lazy(_), RValue::Int(i)) => {
                // A C int: the low 32 bits.
                let i = *i as i32;
                let Ok(i) = usize::try_from(i) else {
                    return RValue::Error;
                };
                match &base {
                    RValue::List(items) => items.get(i).map_or(RValue::Error, element_value),
                    RValue::Lazy(list) if i < list.items.len() => {
                        // The element's failure stops here: its value is
                        // one the next step can test.
                        let scope = list.scope.clone();
                        let failures = self.depth_failures;
                        let value = self.element(list, i, &scope);
                        self.depth_failures = failures;
                        // A list taken by `ad["name"]` is freed when the
                        // subscript is done: what was written in it reads
                        // emptied (docs/semantics.md §9).
                        if list.scope.detached && !self.options.corrections {
                            freed_with_list(&list.scope, &list.items[i], value)
                        } else {
                            value
                        }
                    }
                    _ => RValue::Error,
                }
            }
            (RValue::Ad(ad), RValue::Str(key)) => match ad.find(&String::from_utf8_lossy(key)) {
                Some(i) if self.options.corrections => self.attribute_value(ad, i),
                Some(i) => {
                    // HTCondor: the attribute is evaluated in the ad alone,
                    // and the value has lost its scope.
                    let scope = if ad.detached {
                        AdNode::top(ad.expr)
                    } else {
                        ad.clone()
                    };
                    match self.attribute_value_unmarked(&scope, i) {
                        RValue::Ad(inner) => RValue::Ad(Rc::new(AdNode {
                            expr: inner.expr,
                            parent: None,
                            detached: true,
                            copy: inner.copy,
                        })),
                        RValue::Lazy(list) => RValue::Lazy(Rc::new(RLazyList {
                            items: list.items,
                            scope: Rc::new(AdNode {
                                expr: empty_ad_expr(),
                                parent: None,
                                detached: true,
                                copy: 0,
                            }),
                        })),
                        other => other,
                    }
                }
                None => RValue::Undefined,
            },
            _ => RValue::Error,
        }
    }

    fn call(&mut self, name: &Name, args: &'a [Expr], scope: &RAd<'a>) -> RValue<'a> {
        if name.eq_ignore_case("ifThenElse") && args.len() == 3 {
            return self.conditional(&args[0], &args[1], &args[2], scope);
        }
        if let [arg] = args
            && let ExprKind::Literal(Literal::String(bytes)) = &arg.kind
        {
            // Checked by `validate`; relTime of a literal is a *real*.
            if name.eq_ignore_case("relTime") {
                return parse_rel_time(bytes).map_or(RValue::Error, RValue::Real);
            }
            if name.eq_ignore_case("absTime") {
                return parse_abs_time(bytes).map_or(RValue::Error, RValue::AbsTime);
            }
        }
        let registry = classad_stdlib::shared_registry();
        let Some(builtin) = registry.get(&name.text()).cloned() else {
            return RValue::Error;
        };
        if args.len() < usize::from(builtin.min_args) || args.len() > usize::from(builtin.max_args)
        {
            return RValue::Error;
        }
        match builtin.function {
            // A strict function gets its list arguments forced; `string`
            // (StrictKeepingLists) gets them as they are, to print a lazy
            // list's elements as written.
            Function::Strict(f) | Function::StrictKeepingLists(f) => {
                let forced = matches!(builtin.function, Function::Strict(_));
                let mut values: Vec<RValue<'a>> =
                    args.iter().map(|a| self.eval(a, scope)).collect();
                if forced {
                    values = values
                        .into_iter()
                        .map(|v| plain(self.force(v, Some(scope))))
                        .collect();
                }
                let vm_args: Vec<Value> = values.iter().map(|v| self.vm_value(v)).collect();
                let vm_scope = self.vm_ad(scope);
                let mut vm = Vm::default();
                vm.set_clock(fixed_clock);
                let mut context = CallContext {
                    vm: &mut vm,
                    env: classad_vm::Env::default(),
                    scope: &vm_scope,
                };
                let result = f(&mut context, &vm_args);
                self.reference_value(result)
            }
            Function::Lazy(f) => {
                // A function of unevaluated arguments evaluates them itself,
                // with the VM: the reference only hands them over, compiled
                // for a VM copy of the scope.
                let registry = classad_stdlib::shared_registry();
                let compiler = classad_compiler::Compiler::new(&registry);
                let mut lazy = Vec::with_capacity(args.len());
                for arg in args {
                    let Ok(program) = compiler.compile(arg) else {
                        return RValue::Error;
                    };
                    lazy.push(LazyArg {
                        program: Arc::new(program),
                        source: Arc::new(arg.clone()),
                    });
                }
                let vm_scope = self.vm_ad(scope);
                let mut vm = Vm::default();
                vm.set_clock(fixed_clock);
                let mut context = CallContext {
                    vm: &mut vm,
                    env: classad_vm::Env::default(),
                    scope: &vm_scope,
                };
                let result = f(&mut context, &lazy);
                self.reference_value(result)
            }
        }
    }

    /// A reference value as a VM value, for a builtin function.
    fn vm_value(&mut self, value: &RValue<'a>) -> Value {
        match value {
            RValue::List(items) => {
                let values: Vec<Value> = items.iter().map(|v| self.vm_value(v)).collect();
                Value::List(values.into())
            }
            RValue::Lazy(list) => {
                // A VM lazy list of the same elements in the same scope.
                let registry = classad_stdlib::shared_registry();
                let compiler = classad_compiler::Compiler::new(&registry);
                let mut items = Vec::with_capacity(list.items.len());
                for e in list.items {
                    // (Only a bad time literal fails, refused by `validate`.)
                    let Ok(program) = compiler.compile(e) else {
                        return Value::Error;
                    };
                    items.push(LazyArg {
                        program: Arc::new(program),
                        source: Arc::new(e.clone()),
                    });
                }
                let scope = self.vm_ad(&list.scope);
                Value::LazyList(Arc::new(classad_vm::LazyList {
                    items: items.into(),
                    scope,
                    shared: false,
                }))
            }
            RValue::Ad(ad) => Value::Ad(self.vm_ad(ad)),
            scalar => scalar.to_scalar_value(),
        }
    }

    /// A VM ad with the same attributes and scope chain as `ad`.
    fn vm_ad(&mut self, ad: &RAd<'a>) -> AdRef {
        let key = Rc::as_ptr(ad) as usize;
        if let Some((_, done)) = self.converted.get(&key) {
            return done.clone();
        }
        let registry = classad_stdlib::shared_registry();
        let body = classad_compiler::Compiler::new(&registry)
            .compile_ad(ad.expr)
            .unwrap_or_default();
        let made = match &ad.parent {
            None => AdValue::top_level(Arc::new(body)),
            Some(parent) => {
                let parent = self.vm_ad(parent);
                AdValue::nested(Arc::new(body), parent)
            }
        };
        self.converted.insert(key, (ad.clone(), made.clone()));
        made
    }

    /// A function's result as a reference value. Ads are not expected
    /// from the functions the generator calls; one is ERROR here.
    fn reference_value(&self, value: Value) -> RValue<'a> {
        match value {
            Value::List(items) | Value::SharedList(items) => RValue::List(Rc::new(
                items
                    .iter()
                    .map(|v| self.reference_value(v.clone()))
                    .collect(),
            )),
            other => RValue::from_scalar(other),
        }
    }
}

/// The clock of the VMs the reference runs functions in ([`FIXED_NOW`]).
pub fn fixed_clock() -> f64 {
    FIXED_NOW as f64
}

fn literal<'a>(lit: &Literal) -> RValue<'a> {
    match lit {
        Literal::Integer(i) => RValue::Int(*i),
        Literal::Real(r) => RValue::Real(*r),
        Literal::String(s) => RValue::Str(Rc::from(&s[..])),
        Literal::Boolean(b) => RValue::Bool(*b),
        Literal::Undefined => RValue::Undefined,
        Literal::Error => RValue::Error,
    }
}

/// The value of a list's element where it is used: a relative time's
/// literal is a real.
/// An element of a list taken by `ad["name"]` (whose scope is `scope`),
/// as the subscript that took it hands it on: an ad or a list written in
/// the list is emptied (HTCondor freed it with the list).
fn freed_with_list<'a>(scope: &RAd<'a>, item: &Expr, value: RValue<'a>) -> RValue<'a> {
    let written_in = |ad: &RAd<'a>| {
        let mut current = Some(ad);
        while let Some(ad) = current {
            if Rc::ptr_eq(ad, scope) {
                return true;
            }
            current = ad.parent.as_ref();
        }
        false
    };
    let literal = |mut expr: &Expr| loop {
        match &expr.kind {
            ExprKind::Paren(inner) => expr = inner,
            kind => return matches!(kind, ExprKind::Ad(_) | ExprKind::List(_)),
        }
    };
    match &value {
        RValue::Ad(ad) if written_in(ad) => RValue::Ad(AdNode::top(empty_ad_expr())),
        RValue::Lazy(inner) if written_in(&inner.scope) => RValue::List(Rc::new(Vec::new())),
        RValue::List(_) if literal(item) => RValue::List(Rc::new(Vec::new())),
        _ => value,
    }
}

fn element_value<'a>(value: &RValue<'a>) -> RValue<'a> {
    match value {
        RValue::RelTimeLiteral(secs) => RValue::Real(*secs),
        other => other.clone(),
    }
}

/// A forced value as a strict function reads it: every relative time's
/// literal in its lists a real.
fn plain(value: RValue<'_>) -> RValue<'_> {
    match value {
        RValue::RelTimeLiteral(secs) => RValue::Real(secs),
        RValue::List(items) => RValue::List(Rc::new(items.iter().cloned().map(plain).collect())),
        other => other,
    }
}

/// HTCondor makes each value a selection over a list yields a literal; a
/// relative time's is its whole seconds as a C `int`, a real where it is
/// used but written as a relative time.
fn selected_literal(value: RValue<'_>) -> RValue<'_> {
    match value {
        RValue::RelTime(secs) => RValue::RelTimeLiteral(f64::from(
            if secs > -2_147_483_649.0 && secs < 2_147_483_648.0 {
                secs as i32
            } else {
                i32::MIN
            },
        )),
        other => other,
    }
}
