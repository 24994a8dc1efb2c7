//! Python bindings: the `classad_rs` module, a drop-in for HTCondor's
//! `classad2` (`import classad_rs as classad2`), with batch operations
//! (`match`, `analyze`, `query`, `readAds`) that run the engine with the
//! GIL released.
//!
//! The Python package (`python/classad_rs`) defines the enumerations
//! (`Value`, `ParserType`) and the parse functions over files; this crate,
//! built by maturin as `classad_rs._classad_rs`, holds everything else.
//! No panic is meant to cross into Python: every fallible step returns a
//! Python exception (PyO3 would turn a panic into `PanicException`, but
//! none is expected).

use pyo3::prelude::*;

mod ad;
mod batch;
mod convert;
mod engine;
mod expr;
mod functions;
mod parse;

pub use ad::ClassAd;
pub use expr::ExprTree;

pyo3::create_exception!(
    classad_rs,
    ClassAdException,
    pyo3::exceptions::PyException,
    "The ClassAd library's error: text that does not parse, a value that cannot be converted."
);

/// `classad2.quote`: a ClassAd string literal for `input`, quotes included.
#[pyfunction]
fn quote(input: &str) -> PyResult<String> {
    // classad2 passes the text as a C string.
    if input.contains('\0') {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "embedded null character",
        ));
    }
    Ok(classad::quote(input))
}

/// `classad2.unquote`: the text of a ClassAd string literal.
#[pyfunction]
fn unquote(input: &str) -> PyResult<String> {
    use classad::syntax::{ExprKind, Literal};
    let expr = classad::syntax::parse_expression(input).map_err(|e| {
        engine::set_last_error(format!("{e}"));
        pyo3::exceptions::PyValueError::new_err(if input.trim_start().starts_with('"') {
            "Invalid string to unquote".to_string()
        } else {
            "String does not parse to a ClassAd literal".to_string()
        })
    })?;
    match expr.into_kind() {
        ExprKind::Literal(Literal::String(bytes)) => {
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        ExprKind::Literal(_) => Err(pyo3::exceptions::PyValueError::new_err(
            "ClassAd literal is not a string value",
        )),
        _ => Err(pyo3::exceptions::PyValueError::new_err(
            "String does not parse to a ClassAd literal",
        )),
    }
}

/// `classad2.version`: the version of the ClassAd library, as HTCondor's
/// answers (the HTCondor release whose semantics this follows).
#[pyfunction]
fn version() -> &'static str {
    "25.14.1"
}

/// `classad2.lastError`: the last error of the library on this thread
/// (a parse error with its position, the exception of a registered
/// function), or the empty string.
#[pyfunction]
#[pyo3(name = "lastError")]
fn last_error() -> String {
    engine::last_error()
}

/// The native module, `classad_rs._classad_rs`.
#[pymodule]
fn _classad_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ClassAdException", py.get_type::<ClassAdException>())?;
    m.add_class::<ad::ClassAd>()?;
    m.add_class::<expr::ExprTree>()?;
    m.add_function(wrap_pyfunction!(quote, m)?)?;
    m.add_function(wrap_pyfunction!(unquote, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(last_error, m)?)?;
    m.add_function(wrap_pyfunction!(parse::parse_ads_text, m)?)?;
    m.add_function(wrap_pyfunction!(parse::read_ads, m)?)?;
    m.add_function(wrap_pyfunction!(functions::register, m)?)?;
    m.add_function(wrap_pyfunction!(batch::match_ads, m)?)?;
    m.add_function(wrap_pyfunction!(batch::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(batch::query, m)?)?;
    Ok(())
}
