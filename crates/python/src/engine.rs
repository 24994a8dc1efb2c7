//! What the bindings share: the function registry (the standard functions
//! and those registered from Python), the evaluator of each thread, and
//! the last error.

use classad::syntax::{AdExpr, Expr};
use classad::vm::{Program, Registry, Vm};
use classad::{AdRef, Value};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// The registry every ad and expression is compiled with, and its
/// generation: `register` makes a new registry and a new generation, and
/// what was compiled under an older one is compiled again when next used
/// (so a function registered after an ad was read is callable from it).
static REGISTRY: RwLock<Option<Arc<Registry>>> = RwLock::new(None);
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// The registry in force and its generation.
pub(crate) fn registry() -> (Arc<Registry>, u64) {
    let generation = GENERATION.load(Ordering::Acquire);
    let guard = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    match &*guard {
        Some(registry) => (registry.clone(), generation),
        None => (classad::stdlib::shared_registry(), generation),
    }
}

/// Replaces the registry (by `register`).
pub(crate) fn set_registry(registry: Registry) {
    let mut guard = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    *guard = Some(Arc::new(registry));
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// A compiled form kept beside the tree it was compiled from, with the
/// registry generation it was compiled under.
pub(crate) struct Compiled<T: Clone> {
    cell: Mutex<Option<(u64, T)>>,
}

impl<T: Clone> Default for Compiled<T> {
    fn default() -> Self {
        Compiled {
            cell: Mutex::new(None),
        }
    }
}

impl<T: Clone> Compiled<T> {
    /// The compiled form, compiled by `compile` when missing or stale.
    pub(crate) fn get_or_compile<E>(
        &self,
        compile: impl FnOnce(&Registry) -> Result<T, E>,
    ) -> Result<T, E> {
        // The generation alone first: the registry is only needed to compile.
        let current = GENERATION.load(Ordering::Acquire);
        if let Some((g, value)) = &*self.cell.lock().unwrap_or_else(|e| e.into_inner())
            && *g == current
        {
            return Ok(value.clone());
        }
        let (registry, generation) = registry();
        let value = compile(&registry)?;
        *self.cell.lock().unwrap_or_else(|e| e.into_inner()) = Some((generation, value.clone()));
        Ok(value)
    }

    /// Forgets the compiled form (the tree changed).
    pub(crate) fn clear(&mut self) {
        *self.cell.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Compiles an ad with the registry in force.
pub(crate) fn compile_ad(registry: &Registry, ast: &AdExpr) -> Result<AdRef, classad::Error> {
    classad::ad_from_ast_with(registry, ast)
}

/// Compiles an expression with the registry in force.
pub(crate) fn compile_expr(
    registry: &Registry,
    expr: &Expr,
) -> Result<Arc<Program>, classad::Error> {
    classad::compile_with(registry, expr).map(Arc::new)
}

thread_local! {
    static VM: RefCell<Vm> = RefCell::new(Vm::default());
}

/// The last error (`lastError`): one for the process, as HTCondor's
/// `CondorErrMsg`, so that an error met by a worker thread of `match` is
/// seen from Python too.
static LAST_ERROR: Mutex<String> = Mutex::new(String::new());

/// Runs `f` with this thread's evaluator; a fresh one when it is busy (a
/// registered Python function that evaluates, called while the VM runs).
pub(crate) fn with_vm<R>(f: impl FnOnce(&mut Vm) -> R) -> R {
    VM.with(|vm| match vm.try_borrow_mut() {
        Ok(mut vm) => f(&mut vm),
        Err(_) => f(&mut Vm::default()),
    })
}

/// Evaluates `program` in `scope`, with `target` as TARGET, leaving a list
/// literal as written (HTCondor's value of a list holds its elements'
/// expressions, which `classad2` hands back as they are).
pub(crate) fn evaluate(program: &Program, scope: &AdRef, target: Option<&AdRef>) -> Value {
    with_vm(|vm| vm.evaluate_as_written(program, scope, target))
}

/// Records the last error (`lastError`).
pub(crate) fn set_last_error(message: String) {
    *LAST_ERROR.lock().unwrap_or_else(|e| e.into_inner()) = message;
}

/// The last error recorded.
pub(crate) fn last_error() -> String {
    LAST_ERROR.lock().unwrap_or_else(|e| e.into_inner()).clone()
}
