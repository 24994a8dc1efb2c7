//! `ClassAd`: a mutable mapping of attribute names to expressions, as
//! `classad2.ClassAd`.

use crate::ClassAdException;
use crate::convert::{dict_to_ad, expr_to_py, py_to_expr, value_to_py};
use crate::engine::{self, Compiled};
use crate::expr::ExprTree;
use classad::AdRef;
use classad::syntax::{AdExpr, Expr, ExprKind, Name};
use classad::vm::Value;
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

/// A ClassAd: a mutable mapping from attribute names (case-insensitive
/// strings) to ClassAd expressions, as HTCondor's `classad2.ClassAd`.
///
/// `ClassAd()` is empty; `ClassAd(text)` reads an ad in new syntax
/// (`[a = 1; b = a + 1]`) or old syntax (`a = 1` lines); `ClassAd(dict)`
/// converts a dictionary. Values read back as Python `int`, `float`,
/// `str`, `bool`, `list`, `ClassAd`, `datetime`, `Value.Undefined`,
/// `Value.Error`, or an `ExprTree` for anything that is not a literal.
/// Attributes are kept in HTCondor's order (shorter names first, then
/// alphabetically ignoring case), the order `classad2` iterates and prints.
#[pyclass(name = "ClassAd", module = "classad_rs", mapping)]
pub struct ClassAd {
    /// The ad, parsed when first needed for an ad read lazily.
    ad: OnceLock<classad::ClassAd>,
    /// Where a lazily read ad's text is (old syntax, its first line
    /// already checked), until it is parsed.
    source: Option<LazySource>,
    compiled: Compiled<AdRef>,
}

/// The text of an old-syntax ad not parsed yet: a range of a text shared
/// by the ads read from it.
pub(crate) struct LazySource {
    /// The whole text read.
    pub(crate) text: Arc<[u8]>,
    /// The ad's first and last byte.
    pub(crate) range: std::ops::Range<usize>,
}

impl LazySource {
    /// The ad, parsed as the reader of the whole text would have (an ad
    /// whose first line reads is an ad, perhaps only its lines before one
    /// that does not, as HTCondor keeps them).
    fn parse(&self) -> classad::ClassAd {
        use classad::syntax::{AdReader, Format, ParseOptions, Parser};
        thread_local! {
            // One parser per thread: its name table is made once.
            static PARSER: Parser = Parser::new(ParseOptions::default());
        }
        let text = &self.text[self.range.clone()];
        let ast = PARSER.with(
            |parser| match AdReader::new(text, Format::Old, parser).next() {
                Some(Ok(ad)) => ad,
                // The reader checked the first line; nothing else is an error.
                _ => AdExpr::new(),
            },
        );
        classad::ClassAd::from_ast(in_htcondor_order(ast))
    }
}

/// HTCondor's order of attribute names: by length, then ignoring ASCII case.
fn name_order(a: &[u8], b: &[u8]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        a.iter()
            .map(u8::to_ascii_lowercase)
            .cmp(b.iter().map(u8::to_ascii_lowercase))
    })
}

/// Sets `name` in an ad kept in HTCondor's order: a name already there
/// (ignoring case) keeps its place and spelling, a new one goes where the
/// order puts it.
pub(crate) fn insert_ordered(ad: &mut AdExpr, name: Name, expr: Expr) {
    let attributes = &mut ad.attributes;
    match attributes.binary_search_by(|(n, _)| name_order(n.as_bytes(), name.as_bytes())) {
        Ok(at) => attributes[at].1 = expr,
        Err(at) => attributes.insert(at, (name, expr)),
    }
}

/// An ad as read (in the order written, a name perhaps given twice) put
/// in HTCondor's order, a repeated name keeping its first spelling and
/// its last expression.
pub(crate) fn in_htcondor_order(ast: AdExpr) -> AdExpr {
    let sorted = ast
        .attributes
        .windows(2)
        .all(|w| name_order(w[0].0.as_bytes(), w[1].0.as_bytes()) == Ordering::Less);
    if sorted {
        return ast;
    }
    let mut out = AdExpr::new();
    for (name, expr) in ast.attributes {
        insert_ordered(&mut out, name, expr);
    }
    out
}

fn key_of<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<&'a Bound<'a, PyString>> {
    // The lifetime of the borrowed key is that of the argument.
    key.cast::<PyString>()
        .map_err(|_| PyTypeError::new_err("ClassAd keys are strings"))
}

/// The message of an error reading an ad, with where it is.
pub(crate) fn parse_failure(error: &classad::Error) -> PyErr {
    let message = format!("Unable to parse string into a ClassAd: {error}");
    engine::set_last_error(message.clone());
    ClassAdException::new_err(message)
}

/// Whether a value accepts a match (`classad2.ClassAd.matches`): `true`,
/// or a number other than zero.
fn accepts(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

impl ClassAd {
    /// An ad of a tree, put in HTCondor's order.
    pub(crate) fn from_ast(ast: AdExpr) -> ClassAd {
        ClassAd {
            ad: OnceLock::from(classad::ClassAd::from_ast(in_htcondor_order(ast))),
            source: None,
            compiled: Compiled::default(),
        }
    }

    /// An ad read lazily: parsed when first used.
    pub(crate) fn lazy(source: LazySource) -> ClassAd {
        ClassAd {
            ad: OnceLock::new(),
            source: Some(source),
            compiled: Compiled::default(),
        }
    }

    /// The ad (parsed now if it was read lazily).
    fn facade(&self) -> &classad::ClassAd {
        self.ad.get_or_init(|| match &self.source {
            Some(source) => source.parse(),
            None => classad::ClassAd::new(),
        })
    }

    /// The tree.
    pub(crate) fn ast(&self) -> &AdExpr {
        self.facade().as_ast()
    }

    /// The compiled ad, with the functions registered so far.
    pub(crate) fn compiled(&self) -> PyResult<AdRef> {
        let ast = self.facade().as_ast();
        self.compiled
            .get_or_compile(|registry| engine::compile_ad(registry, ast))
            .map_err(|e| ClassAdException::new_err(format!("the ad cannot be compiled: {e}")))
    }

    fn edit(&mut self, change: impl FnOnce(&mut AdExpr)) {
        self.facade();
        self.source = None;
        let mut ast = self.ad.take().unwrap_or_default().into_ast();
        change(&mut ast);
        self.ad = OnceLock::from(classad::ClassAd::from_ast(ast));
        self.compiled.clear();
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.ast()
            .attributes
            .iter()
            .position(|(n, _)| n.eq_ignore_case(key))
    }

    fn get_expr(&self, key: &str) -> Option<&Expr> {
        self.facade().lookup(key)
    }

    fn set(&mut self, key: &str, expr: Expr) {
        self.edit(|ast| insert_ordered(ast, Name::new(key), expr));
    }

    /// Evaluates `expr` in this ad, with `target` as TARGET.
    pub(crate) fn evaluate(&self, expr: &ExprTree, target: Option<&ClassAd>) -> PyResult<Value> {
        let program = expr.program()?;
        let scope = self.compiled()?;
        let target = target.map(ClassAd::compiled).transpose()?;
        Ok(engine::evaluate(&program, &scope, target.as_ref()))
    }

    /// Whether `other`'s Requirements accept this ad (`classad2`'s
    /// `self.matches(other)`): evaluated in `other` with this ad as TARGET.
    fn accepted_by(&self, other: &ClassAd) -> PyResult<bool> {
        let me = self.compiled()?;
        let them = other.compiled()?;
        static REQUIREMENTS: std::sync::LazyLock<classad::vm::Symbol> =
            std::sync::LazyLock::new(|| classad::vm::Symbol::new("Requirements"));
        if them.body.get("Requirements").is_none() {
            return Ok(false);
        }
        Ok(accepts(&engine::with_vm(|vm| {
            vm.evaluate_attribute(&them, &REQUIREMENTS, Some(&me))
        })))
    }
}

#[pymethods]
impl ClassAd {
    #[new]
    #[pyo3(signature = (input = None))]
    fn py_new(input: Option<&Bound<'_, PyAny>>) -> PyResult<ClassAd> {
        let Some(input) = input else {
            return Ok(ClassAd::from_ast(AdExpr::new()));
        };
        if input.is_none() {
            return Ok(ClassAd::from_ast(AdExpr::new()));
        }
        if let Ok(dict) = input.cast::<PyDict>() {
            return Ok(ClassAd::from_ast(dict_to_ad(dict)?));
        }
        if let Ok(text) = input.cast::<PyString>() {
            let text = text.to_cow()?;
            return parse_one_ad(&text).map(ClassAd::from_ad);
        }
        if let Ok(ad) = input.cast::<ClassAd>() {
            return Ok(ClassAd::from_ast(ad.borrow().ast().clone()));
        }
        Err(PyTypeError::new_err("input must be None, str, or dict"))
    }

    fn __repr__(&self) -> String {
        self.facade().to_string()
    }

    fn __str__(&self) -> String {
        classad::syntax::unparse_pretty(&Expr::new(ExprKind::Ad(Box::new(self.ast().clone()))))
    }

    /// Pickled as the text of the ad, read back by the constructor.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let text = slf.borrow().__repr__();
        PyTuple::new(
            py,
            [
                py.get_type::<ClassAd>().into_any(),
                PyTuple::new(py, [text])?.into_any(),
            ],
        )
    }

    fn __len__(&self) -> usize {
        self.ast().len()
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key = key_of(key)?.to_cow()?;
        match self.get_expr(&key) {
            Some(expr) => expr_to_py(py, expr),
            None => Err(PyKeyError::new_err(key.to_string())),
        }
    }

    fn __setitem__(&mut self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = key_of(key)?.to_cow()?.to_string();
        let expr = py_to_expr(value)?;
        self.set(&key, expr);
        Ok(())
    }

    fn __delitem__(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = key_of(key)?.to_cow()?;
        match self.position(&key) {
            Some(at) => {
                self.edit(|ast| {
                    ast.attributes.remove(at);
                });
                Ok(())
            }
            None => Err(PyKeyError::new_err(key.to_string())),
        }
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        // classad2's `in` looks the key up: a key that is no string raises.
        let key = key_of(key)?.to_cow()?;
        Ok(self.position(&key).is_some())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.keys(py)?.into_any().try_iter().map(Bound::into_any)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<ClassAd>() else {
            return Ok(py.NotImplemented());
        };
        let equal = same_ads(self.ast(), other.borrow().ast());
        match op {
            CompareOp::Eq => Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind()),
            CompareOp::Ne => Ok((!equal).into_pyobject(py)?.to_owned().into_any().unbind()),
            _ => Ok(py.NotImplemented()),
        }
    }

    /// The attribute names, in HTCondor's order.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names: Vec<String> = self
            .ast()
            .attributes
            .iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect();
        PyList::new(py, names)
    }

    /// The values (as `ad[key]` gives them), in HTCondor's order.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (_, expr) in &self.ast().attributes {
            list.append(expr_to_py(py, expr)?)?;
        }
        Ok(list)
    }

    /// `(name, value)` pairs, in HTCondor's order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (name, expr) in &self.ast().attributes {
            let pair = PyTuple::new(
                py,
                [
                    PyString::new(py, &name.to_string_lossy()).into_any(),
                    expr_to_py(py, expr)?,
                ],
            )?;
            list.append(pair)?;
        }
        Ok(list)
    }

    /// `ad[key]`, or `default` when the ad has no attribute `key`.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key = key_of(key)?.to_cow()?;
        match self.get_expr(&key) {
            Some(expr) => expr_to_py(py, expr),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    /// Sets the attributes of a `ClassAd`, a mapping or an iterable of
    /// pairs, then those given as keywords.
    #[pyo3(signature = (other = None, **kwargs))]
    fn update(
        &mut self,
        other: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        if let Some(other) = other {
            if let Ok(ad) = other.cast::<ClassAd>() {
                let attributes = ad.borrow().ast().attributes.clone();
                self.edit(|ast| {
                    for (name, expr) in attributes {
                        insert_ordered(ast, name, expr);
                    }
                });
            } else if other.hasattr("keys")? {
                for key in other.call_method0("keys")?.try_iter()? {
                    let key = key?;
                    let value = other.get_item(&key)?;
                    self.__setitem__(&key, &value)?;
                }
            } else {
                for pair in other.try_iter()? {
                    let pair = pair?;
                    let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract()?;
                    self.__setitem__(&key, &value)?;
                }
            }
        }
        if let Some(kwargs) = kwargs {
            for (key, value) in kwargs.iter() {
                self.__setitem__(&key, &value)?;
            }
        }
        Ok(())
    }

    /// Removes `key` and returns its value; `default` (or `KeyError`) when
    /// there is none.
    #[pyo3(signature = (key, default = None))]
    fn pop<'py>(
        &mut self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key_text = key_of(key)?.to_cow()?;
        match self.position(&key_text) {
            Some(at) => {
                let value = expr_to_py(py, &self.ast().attributes[at].1)?;
                self.edit(|ast| {
                    ast.attributes.remove(at);
                });
                Ok(value)
            }
            None => default.ok_or_else(|| PyKeyError::new_err(key_text.to_string())),
        }
    }

    /// Removes and returns some `(key, value)` pair; `KeyError` when empty.
    fn popitem<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let Some((name, expr)) = self.ast().attributes.first() else {
            return Err(PyKeyError::new_err("popitem(): ClassAd is empty"));
        };
        let pair = PyTuple::new(
            py,
            [
                PyString::new(py, &name.to_string_lossy()).into_any(),
                expr_to_py(py, expr)?,
            ],
        )?;
        self.edit(|ast| {
            ast.attributes.remove(0);
        });
        Ok(pair)
    }

    /// `ad[key]` if there is one, else sets it to `default` and returns it.
    #[pyo3(signature = (key, default = None))]
    fn setdefault<'py>(
        &mut self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key_text = key_of(key)?.to_cow()?;
        if let Some(expr) = self.get_expr(&key_text) {
            return expr_to_py(py, expr);
        }
        let default = default.unwrap_or_else(|| py.None().into_bound(py));
        self.__setitem__(key, &default)?;
        Ok(default)
    }

    /// Removes every attribute.
    fn clear(&mut self) {
        self.edit(|ast| ast.attributes.clear());
    }

    /// Evaluates attribute `attr` in this ad; `KeyError` when there is none.
    fn eval<'py>(&self, py: Python<'py>, attr: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let key = key_of(attr)?.to_cow()?;
        let Some(expr) = self.get_expr(&key) else {
            return Err(PyKeyError::new_err(key.to_string()));
        };
        let tree = ExprTree::new(expr.clone());
        let value = self.evaluate(&tree, None)?;
        value_to_py(py, &value)
    }

    /// The expression of attribute `attr`, unevaluated, as an `ExprTree`.
    fn lookup(&self, attr: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        let key = key_of(attr)?.to_cow()?;
        match self.get_expr(&key) {
            Some(expr) => Ok(ExprTree::new(expr.clone())),
            None => Err(PyKeyError::new_err(key.to_string())),
        }
    }

    /// Partially evaluates `expr` in this ad: attributes the ad defines are
    /// replaced by their values, constant parts computed, the rest kept.
    /// A flattening that leaves a value gives the value, as `classad2`.
    fn flatten<'py>(&self, expr: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = expr.py();
        let expr = expr
            .cast::<ExprTree>()
            .map_err(|_| PyTypeError::new_err("expr must be an ExprTree"))?;
        let flat = self.facade().flatten_expr(expr.get().expr());
        if matches!(flat.kind, ExprKind::Literal(_)) {
            return expr_to_py(py, &flat);
        }
        Ok(Bound::new(py, ExprTree::new(flat))?.into_any())
    }

    /// The attributes `expr` references that this ad does not define.
    #[pyo3(name = "externalRefs")]
    fn external_refs(&self, expr: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let expr = expr
            .cast::<ExprTree>()
            .map_err(|_| PyTypeError::new_err("expr must be an ExprTree"))?;
        let text = classad::syntax::unparse(expr.get().expr());
        let names = self
            .facade()
            .external_refs(&text)
            .map_err(|e| parse_failure(&e))?;
        Ok(as_classad2_list(names))
    }

    /// The attributes `expr` references that this ad defines, directly or
    /// through other attributes.
    #[pyo3(name = "internalRefs")]
    fn internal_refs(&self, expr: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let expr = expr
            .cast::<ExprTree>()
            .map_err(|_| PyTypeError::new_err("expr must be an ExprTree"))?;
        let text = classad::syntax::unparse(expr.get().expr());
        let names = self
            .facade()
            .internal_refs(&text)
            .map_err(|e| parse_failure(&e))?;
        Ok(as_classad2_list(names))
    }

    /// Whether `ad`'s Requirements, evaluated with this ad as TARGET, are
    /// true (or a number other than zero).
    fn matches(&self, ad: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = ad
            .cast::<ClassAd>()
            .map_err(|_| PyTypeError::new_err("ad must be a ClassAd"))?;
        self.accepted_by(&other.borrow())
    }

    /// `self.matches(ad) and ad.matches(self)`.
    #[pyo3(name = "symmetricMatch")]
    fn symmetric_match(&self, ad: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = ad
            .cast::<ClassAd>()
            .map_err(|_| PyTypeError::new_err("ad must be a ClassAd"))?;
        let other = other.borrow();
        Ok(self.accepted_by(&other)? && other.accepted_by(self)?)
    }

    /// The ad in HTCondor's JSON form.
    #[pyo3(name = "printJson")]
    fn print_json(&self) -> String {
        self.facade().to_json()
    }

    /// The ad in HTCondor's JSON form (`printJson`).
    #[pyo3(name = "formatJson")]
    fn format_json(&self) -> String {
        self.facade().to_json()
    }

    /// The ad in old syntax, one `Name = expr` line each.
    #[pyo3(name = "printOld")]
    fn print_old(&self) -> String {
        // classad2 prints an empty ad as one empty line.
        if self.ast().is_empty() {
            return "\n".to_string();
        }
        self.facade().to_old()
    }

    /// The ad in old syntax (`printOld`).
    #[pyo3(name = "formatOld")]
    fn format_old(&self) -> String {
        self.print_old()
    }

    /// The ad in HTCondor's XML form.
    #[pyo3(name = "printXml")]
    fn print_xml(&self) -> String {
        self.facade().to_xml()
    }
}

/// Whether two ads are the same (`classad2`'s `==`): the same names
/// (ignoring case) in the same order, bound to the same expressions, two
/// trees that print the same being the same (`absTime("...Z")` and the
/// `absTime("...-00:00")` it prints as are one time).
pub(crate) fn same_ads(a: &AdExpr, b: &AdExpr) -> bool {
    a.len() == b.len()
        && a.attributes
            .iter()
            .zip(&b.attributes)
            .all(|((n, x), (m, y))| {
                n.eq_ignore_case(m.as_bytes())
                    && (x == y || classad::syntax::unparse(x) == classad::syntax::unparse(y))
            })
}

/// `classad2` joins the names with commas and splits them again, so no
/// name is `[""]`.
fn as_classad2_list(names: Vec<String>) -> Vec<String> {
    if names.is_empty() {
        vec![String::new()]
    } else {
        names
    }
}

impl ClassAd {
    fn from_ad(ad: classad::ClassAd) -> ClassAd {
        ClassAd::from_ast(ad.into_ast())
    }
}

/// Reads one ad of new syntax from text, as `classad2.ClassAd(str)`: the
/// first ad, what follows it ignored. (Old syntax is `parseOne`'s.)
pub(crate) fn parse_one_ad(text: &str) -> PyResult<classad::ClassAd> {
    use classad::syntax::{AdReader, Format, ParseOptions, Parser};
    let parser = Parser::new(ParseOptions::default());
    let mut reader = AdReader::new(text.as_bytes(), Format::New, &parser);
    match reader.next() {
        Some(Ok(ad)) => Ok(classad::ClassAd::from_ast(ad)),
        Some(Err(e)) => Err(parse_failure(&classad::Error::Read(e))),
        None => Err(parse_failure(&classad::Error::Other(
            "no ad in the text".to_string(),
        ))),
    }
}
