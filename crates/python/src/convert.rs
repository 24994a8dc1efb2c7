//! Values between Python and ClassAd, as `classad2` converts them.
//!
//! Into an ad: `None` is UNDEFINED, `bool`, `int`, `float`, `str` (and
//! `bytes`) their literals, `datetime` an absolute time, `list`/`tuple`
//! a list, `dict`/`ClassAd` a nested ad, `Value.Undefined`/`Value.Error`
//! those literals, `ExprTree` its expression.
//!
//! Out of an ad (`ad[key]`): a literal becomes its Python value, a list or
//! ad literal a `list`/`ClassAd` of converted elements, anything else an
//! `ExprTree`. Out of an evaluation: the value, a list whose elements are
//! converted the same way (HTCondor's list value holds its elements'
//! expressions).

use crate::ClassAdException;
use crate::ad::ClassAd;
use crate::expr::ExprTree;
use classad::Value;
use classad::syntax::{AdExpr, Expr, ExprKind, Literal, Name};
use classad::vm::AbsTime;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

static VALUE_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DATETIME_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static UTC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TO_TIMESTAMP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `classad_rs.Value`, the enumeration defined in Python.
fn value_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    VALUE_TYPE
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("classad_rs._enums")?.getattr("Value")?.unbind())
        })
        .map(|t| t.bind(py))
}

/// `Value.Undefined` or `Value.Error`.
pub(crate) fn special(py: Python<'_>, undefined: bool) -> PyResult<Bound<'_, PyAny>> {
    value_type(py)?.getattr(if undefined { "Undefined" } else { "Error" })
}

fn datetime_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    DATETIME_TYPE
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("datetime")?.getattr("datetime")?.unbind())
        })
        .map(|t| t.bind(py))
}

fn utc(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    UTC.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("datetime")?
                .getattr("timezone")?
                .getattr("utc")?
                .unbind(),
        )
    })
    .map(|t| t.bind(py))
}

/// An absolute time as `classad2` gives it: a `datetime` in UTC.
fn abs_time_to_py(py: Python<'_>, t: AbsTime) -> PyResult<Bound<'_, PyAny>> {
    let datetime = datetime_type(py)?;
    // `fromtimestamp` refuses times outside its years; HTCondor's times
    // can be anything, so those come back as the seconds.
    match datetime.call_method1("fromtimestamp", (t.secs, utc(py)?)) {
        Ok(value) => Ok(value),
        Err(_) => Ok(t.secs.into_pyobject(py)?.into_any()),
    }
}

/// Seconds since the epoch of a `datetime`, a naive one taken as local
/// time (`classad2._convert_local_datetime_to_utc_ts`).
fn datetime_to_secs(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<i64> {
    let convert = TO_TIMESTAMP.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("classad_rs._enums")?
                .getattr("_convert_local_datetime_to_utc_ts")?
                .unbind(),
        )
    })?;
    convert.bind(py).call1((value,))?.extract::<i64>()
}

fn string_to_py<'py>(py: Python<'py>, bytes: &[u8]) -> Bound<'py, PyAny> {
    PyString::new(py, &String::from_utf8_lossy(bytes)).into_any()
}

/// A ClassAd `Expr` that a Python value stands for.
pub(crate) fn py_to_expr(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    py_to_expr_at(value, 0)
}

/// Nesting deeper than this (a list that contains itself) is refused.
const MAX_NESTING: usize = 1000;

fn py_to_expr_at(value: &Bound<'_, PyAny>, depth: usize) -> PyResult<Expr> {
    let py = value.py();
    if depth > MAX_NESTING {
        return Err(ClassAdException::new_err(
            "Unable to convert Python object to a ClassAd expression: nested too deeply.",
        ));
    }
    let lit = |l: Literal| Ok(Expr::new(ExprKind::Literal(l)));
    if value.is_none() {
        return lit(Literal::Undefined);
    }
    if let Ok(tree) = value.cast::<ExprTree>() {
        return Ok(tree.get().expr().clone());
    }
    if let Ok(ad) = value.cast::<ClassAd>() {
        return Ok(Expr::new(ExprKind::Ad(Box::new(ad.borrow().ast().clone()))));
    }
    if value.is_instance(value_type(py)?)? {
        let code: i64 = value.extract()?;
        return lit(if code == 1 {
            Literal::Error
        } else {
            Literal::Undefined
        });
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return lit(Literal::Boolean(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return match value.extract::<i64>() {
            Ok(i) => lit(Literal::Integer(i)),
            Err(_) => Err(ClassAdException::new_err(
                "Unable to convert Python object to a ClassAd expression: the integer does not fit in 64 bits.",
            )),
        };
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return lit(Literal::Real(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return lit(Literal::String(
            s.to_cow()?.as_bytes().to_vec().into_boxed_slice(),
        ));
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return lit(Literal::String(b.as_bytes().to_vec().into_boxed_slice()));
    }
    if value.is_instance(datetime_type(py)?)? {
        let secs = datetime_to_secs(py, value)?;
        let text = classad::vm::print::format_abs_time(AbsTime { secs, offset: 0 });
        return Ok(Expr::new(ExprKind::Call {
            name: Name::new("absTime"),
            args: vec![Expr::new(ExprKind::Literal(Literal::String(
                text.into_bytes().into_boxed_slice(),
            )))],
        }));
    }
    if let Ok(list) = value.cast::<PyList>() {
        let items = list
            .iter()
            .map(|item| py_to_expr_at(&item, depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Expr::new(ExprKind::List(items)));
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        let items = tuple
            .iter()
            .map(|item| py_to_expr_at(&item, depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Expr::new(ExprKind::List(items)));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok(Expr::new(ExprKind::Ad(Box::new(dict_to_ad_at(
            dict,
            depth + 1,
        )?))));
    }
    Err(ClassAdException::new_err(format!(
        "Unable to convert Python object to a ClassAd expression: {} is not a ClassAd value.",
        value.get_type().name()?
    )))
}

/// The ad a `dict` stands for (keys must be strings).
pub(crate) fn dict_to_ad(dict: &Bound<'_, PyDict>) -> PyResult<AdExpr> {
    dict_to_ad_at(dict, 0)
}

fn dict_to_ad_at(dict: &Bound<'_, PyDict>, depth: usize) -> PyResult<AdExpr> {
    let mut ad = AdExpr::new();
    for (key, value) in dict.iter() {
        let Ok(key) = key.cast::<PyString>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "ClassAd keys are strings",
            ));
        };
        let expr = py_to_expr_at(&value, depth)?;
        crate::ad::insert_ordered(&mut ad, Name::new(&key.to_cow()?), expr);
    }
    Ok(ad)
}

/// Whether an expression is an `absTime("...")` or `relTime("...")` of a
/// string literal, which HTCondor's parser makes a literal.
fn time_literal(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Call { name, args } => {
            (name.eq_ignore_case("absTime") || name.eq_ignore_case("relTime"))
                && args.len() == 1
                && matches!(args[0].kind, ExprKind::Literal(Literal::String(_)))
        }
        _ => false,
    }
}

/// An attribute's expression as `classad2` hands it out (`ad[key]`).
pub(crate) fn expr_to_py<'py>(py: Python<'py>, expr: &Expr) -> PyResult<Bound<'py, PyAny>> {
    match &expr.kind {
        ExprKind::Literal(l) => literal_to_py(py, l),
        ExprKind::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(expr_to_py(py, item)?)?;
            }
            Ok(list.into_any())
        }
        ExprKind::Ad(ad) => Ok(Bound::new(py, ClassAd::from_ast((**ad).clone()))?.into_any()),
        _ if time_literal(expr) => {
            let value = crate::expr::evaluate_alone(expr)?;
            value_to_py(py, &value)
        }
        _ => Ok(Bound::new(py, ExprTree::new(expr.clone()))?.into_any()),
    }
}

fn literal_to_py<'py>(py: Python<'py>, literal: &Literal) -> PyResult<Bound<'py, PyAny>> {
    Ok(match literal {
        Literal::Integer(i) => i.into_pyobject(py)?.into_any(),
        Literal::Real(r) => r.into_pyobject(py)?.into_any(),
        Literal::String(bytes) => string_to_py(py, bytes),
        Literal::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        Literal::Undefined => special(py, true)?,
        Literal::Error => special(py, false)?,
    })
}

/// A value of an evaluation as `classad2` hands it out.
pub(crate) fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Undefined => special(py, true)?,
        Value::Error => special(py, false)?,
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Real(r) | Value::RelTime(r) | Value::RelTimeLiteral(r) => {
            r.into_pyobject(py)?.into_any()
        }
        Value::Str(bytes) => string_to_py(py, bytes),
        Value::AbsTime(t) => abs_time_to_py(py, *t)?,
        Value::List(items) | Value::SharedList(items) => {
            let list = PyList::empty(py);
            for item in items.iter() {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::LazyList(lazy) => {
            let list = PyList::empty(py);
            for item in lazy.items.iter() {
                list.append(expr_to_py(py, &item.source)?)?;
            }
            list.into_any()
        }
        Value::Ad(ad) => {
            let ast: AdExpr = ad
                .body
                .attributes()
                .iter()
                .map(|a| (a.name.clone(), (*a.source).clone()))
                .collect();
            Bound::new(py, ClassAd::from_ast(ast))?.into_any()
        }
    })
}

/// A Python value as a ClassAd value (what a registered function returns).
pub(crate) fn py_to_value(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let expr = py_to_expr(value)?;
    crate::expr::evaluate_alone(&expr)
}
