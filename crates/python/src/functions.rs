//! `register`: Python functions callable from ClassAd expressions.
//!
//! The VM calls builtins through plain function pointers, so each
//! registered function gets one of a fixed set of trampolines, which
//! looks its Python callable up by its number. A Python function that
//! raises makes the call ERROR, and its exception becomes `lastError()`.

use crate::convert::{py_to_value, value_to_py};
use crate::engine;
use classad::Value;
use classad::vm::{Arguments, Builtin, CallContext, Function};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Mutex;

/// Each registered function: its name (as given) and the callable.
static FUNCTIONS: Mutex<Vec<(&'static str, Py<PyAny>)>> = Mutex::new(Vec::new());

/// How many functions can be registered (one trampoline each).
const MAX_FUNCTIONS: usize = 64;

fn call_registered(index: usize, args: &[Value]) -> Value {
    Python::attach(|py| {
        let function = {
            let functions = FUNCTIONS.lock().unwrap_or_else(|e| e.into_inner());
            match functions.get(index) {
                Some((name, f)) => (*name, f.clone_ref(py)),
                None => return Value::Error,
            }
        };
        let (name, callable) = function;
        let outcome = (|| -> PyResult<Value> {
            let arguments = args
                .iter()
                .map(|v| value_to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            let result = callable.call1(py, PyTuple::new(py, arguments)?)?;
            py_to_value(result.bind(py))
        })();
        outcome.unwrap_or_else(|e| {
            engine::set_last_error(format!("{name}: {e}"));
            Value::Error
        })
    })
}

macro_rules! trampolines {
    ($($index:literal)*) => {
        /// One function pointer per registration slot.
        const TRAMPOLINES: [fn(&mut CallContext<'_>, &[Value]) -> Value; MAX_FUNCTIONS] = [
            $({
                fn trampoline(_: &mut CallContext<'_>, args: &[Value]) -> Value {
                    call_registered($index, args)
                }
                trampoline
            },)*
        ];
    };
}

trampolines!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);

/// Makes `function` callable from ClassAd expressions as `name` (its
/// `__name__` by default): its arguments are converted as `eval` converts
/// values, its result as a value set in an ad. A function that raises is
/// ERROR in the expression, its exception kept for `lastError()`.
/// Registering a name again replaces the function; a builtin's name
/// cannot be taken.
#[pyfunction]
#[pyo3(signature = (function, name = None))]
pub(crate) fn register(function: &Bound<'_, PyAny>, name: Option<String>) -> PyResult<()> {
    if !function.is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "function must be callable",
        ));
    }
    let name = match name {
        Some(name) => name,
        None => function.getattr("__name__")?.extract::<String>()?,
    };
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "`{name}` is not a function name"
        )));
    }
    let standard = classad::stdlib::shared_registry();
    if standard.get(&name).is_some() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "`{name}` is a builtin function"
        )));
    }
    let mut functions = FUNCTIONS.lock().unwrap_or_else(|e| e.into_inner());
    let count = functions.len();
    match functions
        .iter_mut()
        .find(|(n, _)| n.eq_ignore_ascii_case(&name))
    {
        Some(slot) => slot.1 = function.clone().unbind(),
        None if count < MAX_FUNCTIONS => {
            // The registry keeps names as `&'static str`: each distinct
            // name is kept once, at most MAX_FUNCTIONS of them.
            let name: &'static str = Box::leak(name.into_boxed_str());
            functions.push((name, function.clone().unbind()))
        }
        None => {
            return Err(crate::ClassAdException::new_err(format!(
                "at most {MAX_FUNCTIONS} functions can be registered"
            )));
        }
    }
    let mut registry = classad::stdlib::standard_registry();
    for (index, &(name, _)) in functions.iter().enumerate() {
        registry.replace(Builtin {
            name,
            min_args: 0,
            max_args: u16::MAX,
            pure: false,
            function: Function::Strict(TRAMPOLINES[index]),
            arguments: Arguments::EAGER,
        });
    }
    drop(functions);
    engine::set_registry(registry);
    Ok(())
}
