//! The function registry: builtins described as data. The stdlib crate
//! fills it; programs hold `Arc<Builtin>` directly, so a call costs one
//! indirect jump and no lookup.

use crate::bytecode::Program;
use crate::interp::CallContext;
use crate::value::Value;
use classad_syntax::Expr;
use std::collections::HashMap;
use std::sync::Arc;

/// The signature of a function: evaluated arguments in, value out.
pub type NativeFn = fn(&mut CallContext<'_>, &[Value]) -> Value;

/// The signature of a function that takes its arguments unevaluated
/// (`unparse`, `eval`'s relatives, `evalInEachContext`, ...): it evaluates
/// what it needs through [`CallContext::evaluate`].
pub type LazyFn = fn(&mut CallContext<'_>, &[LazyArg]) -> Value;

/// An unevaluated argument: its program, to run in the caller's scope,
/// and its source tree.
pub struct LazyArg {
    /// The compiled argument.
    pub program: Arc<Program>,
    /// The argument as written.
    pub source: Arc<Expr>,
}

/// How a function is implemented.
#[derive(Clone, Copy)]
pub enum Function {
    /// Called with its arguments evaluated, a list among them with its
    /// elements evaluated too (where the call is; one whose evaluation
    /// fails fails the call): a convenience for a function an embedding
    /// program registers that reads its lists whole. No standard function
    /// is one (see [`Function::StrictKeepingLists`]).
    Strict(NativeFn),
    /// Called with its arguments evaluated, a list among them as written,
    /// its elements unevaluated: the function evaluates the elements it
    /// reads, one by one, through [`CallContext::list_element`]. This is
    /// how HTCondor's functions take lists, and every standard function's
    /// kind: most see only that the argument is a list (`string({1 + 2})`
    /// is `"{ 1 + 2 }"`; `[A = userHome(B, "a"); B = {B.b}].A` is `"a"`
    /// although `B`'s element fails at the depth limit), and those that
    /// read elements stop where HTCondor's stop (`sum({"a", B.b})` is ERROR
    /// without evaluating `B.b`).
    ///
    /// [`CallContext::list_element`]: crate::CallContext::list_element
    StrictKeepingLists(NativeFn),
    /// Called with its arguments unevaluated.
    Lazy(LazyFn),
}

/// A function callable from ClassAd expressions.
pub struct Builtin {
    /// The name, as documented (lookup ignores case).
    pub name: &'static str,
    /// Fewest arguments accepted.
    pub min_args: u16,
    /// Most arguments accepted (`u16::MAX` for any number).
    pub max_args: u16,
    /// Whether the result depends only on the arguments, so that calls with
    /// constant arguments may be folded by the compiler.
    pub pure: bool,
    /// The implementation.
    pub function: Function,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}..{}", self.name, self.min_args, self.max_args)
    }
}

/// Functions by case-folded name.
#[derive(Default, Clone)]
pub struct Registry {
    functions: HashMap<String, Arc<Builtin>>,
}

/// Why a function could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateFunction(pub String);

impl std::fmt::Display for DuplicateFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "function `{}` is already registered", self.0)
    }
}

impl std::error::Error for DuplicateFunction {}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a function; names are unique ignoring case.
    pub fn register(&mut self, builtin: Builtin) -> Result<(), DuplicateFunction> {
        let key = builtin.name.to_ascii_lowercase();
        if self.functions.contains_key(&key) {
            return Err(DuplicateFunction(builtin.name.to_string()));
        }
        self.functions.insert(key, Arc::new(builtin));
        Ok(())
    }

    /// Adds a function, replacing one of the same name.
    pub fn replace(&mut self, builtin: Builtin) {
        self.functions
            .insert(builtin.name.to_ascii_lowercase(), Arc::new(builtin));
    }

    /// The function named `name`, ignoring case.
    pub fn get(&self, name: &str) -> Option<&Arc<Builtin>> {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            self.functions.get(&name.to_ascii_lowercase())
        } else {
            self.functions.get(name)
        }
    }

    /// Every registered function.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Builtin>> {
        self.functions.values()
    }

    /// Number of functions.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// Whether no function is registered.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }
}
