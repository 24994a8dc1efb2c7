//! `ExprTree`: an expression of the ClassAd language, as
//! `classad2.ExprTree`, with the operators of `classad` version 1 that
//! build larger trees.

use crate::ClassAdException;
use crate::ad::ClassAd;
use crate::convert::{py_to_expr, value_to_py};
use crate::engine::{self, Compiled};
use classad::Value;
use classad::syntax::{BinaryOp, Expr, ExprKind, Literal, UnaryOp};
use classad::vm::Program;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyString, PyTuple};
use std::sync::Arc;

/// An expression in the ClassAd language, as HTCondor's
/// `classad2.ExprTree`.
///
/// `ExprTree(text)` parses new syntax (`ClassAdException` with the
/// position when it does not parse); `ExprTree()` is `undefined`.
/// `eval(scope, target)` evaluates it (attribute references in `scope`,
/// `TARGET.` references in `target`), `simplify` gives the value as an
/// expression. Operators build larger trees: `ExprTree("a") + 1` is
/// `a + 1`; `==` compares trees, as `sameAs`.
#[pyclass(name = "ExprTree", module = "classad_rs", frozen)]
pub struct ExprTree {
    expr: Arc<Expr>,
    program: Compiled<Arc<Program>>,
}

impl ExprTree {
    /// The tree of an expression.
    pub(crate) fn new(expr: Expr) -> ExprTree {
        ExprTree {
            expr: Arc::new(expr),
            program: Compiled::default(),
        }
    }

    /// The expression.
    pub(crate) fn expr(&self) -> &Expr {
        &self.expr
    }

    /// The compiled expression, with the functions registered so far.
    pub(crate) fn program(&self) -> PyResult<Arc<Program>> {
        self.program
            .get_or_compile(|registry| engine::compile_expr(registry, &self.expr))
            .map_err(|e| {
                let message = format!("Unable to compile the expression: {e}");
                engine::set_last_error(message.clone());
                ClassAdException::new_err(message)
            })
    }

    fn value(
        &self,
        scope: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Value> {
        let scope = as_ad(scope, "scope")?;
        let target = as_ad(target, "target")?;
        match scope {
            Some(scope) => {
                let scope = scope.borrow();
                let target = target.as_ref().map(|t| t.borrow());
                scope.evaluate(self, target.as_deref())
            }
            // Without a scope `classad2` evaluates alone: a target is not
            // consulted (`ExprTree("TARGET.a").eval(None, ad)` is
            // UNDEFINED).
            None => {
                let program = self.program()?;
                Ok(engine::evaluate(&program, &classad::empty_ad(), None))
            }
        }
    }
}

/// A `scope` or `target` argument: `None`, or a `ClassAd`.
fn as_ad<'a, 'py>(
    ad: Option<&'a Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<Option<&'a Bound<'py, ClassAd>>> {
    match ad {
        Some(ad) if !ad.is_none() => ad
            .cast::<ClassAd>()
            .map(Some)
            .map_err(|_| PyTypeError::new_err(format!("{what} must be a ClassAd"))),
        _ => Ok(None),
    }
}

/// Evaluates an expression in an empty ad.
pub(crate) fn evaluate_alone(expr: &Expr) -> PyResult<Value> {
    ExprTree::new(expr.clone()).value(None, None)
}

/// Parses an expression for Python: `ClassAdException` with the position.
pub(crate) fn parse_expression(text: &str) -> PyResult<Expr> {
    classad::syntax::parse_expression(text).map_err(|e| {
        let message = format!("Unable to parse string into a ClassAd: {e}");
        engine::set_last_error(message.clone());
        ClassAdException::new_err(message)
    })
}

/// An operand of an operator: a tree or a Python value, parenthesized when
/// it is itself an operation (so that the tree prints as it is built).
fn operand(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let expr = py_to_expr(value)?;
    Ok(parenthesized(expr))
}

fn parenthesized(expr: Expr) -> Expr {
    match expr.kind {
        ExprKind::Binary { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Conditional { .. }
        | ExprKind::Elvis { .. } => Expr::new(ExprKind::Paren(Box::new(expr))),
        _ => expr,
    }
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> ExprTree {
    ExprTree::new(Expr::new(ExprKind::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    }))
}

#[pymethods]
impl ExprTree {
    #[new]
    #[pyo3(signature = (expr = None))]
    fn py_new(expr: Option<&Bound<'_, PyAny>>) -> PyResult<ExprTree> {
        let Some(expr) = expr.filter(|e| !e.is_none()) else {
            return Ok(ExprTree::new(Expr::new(ExprKind::Literal(
                Literal::Undefined,
            ))));
        };
        if let Ok(tree) = expr.cast::<ExprTree>() {
            return Ok(ExprTree::new((*tree.get().expr).clone()));
        }
        let text = match expr.cast::<PyString>() {
            Ok(text) => text.to_cow()?.to_string(),
            Err(_) => expr.str()?.to_cow()?.to_string(),
        };
        // As classad2: the text is read as the value of an attribute of an
        // ad (`[expression = TEXT]`), so what closes that ad ends it.
        let ad = crate::ad::parse_one_ad(&format!("[expression = {text}]"))?;
        match ad.lookup("expression") {
            Some(expr) => Ok(ExprTree::new(expr.clone())),
            None => Err(ClassAdException::new_err(
                "Unable to parse string into a ClassAd: no expression",
            )),
        }
    }

    fn __repr__(&self) -> String {
        classad::syntax::unparse(&self.expr)
    }

    fn __str__(&self) -> String {
        classad::syntax::unparse_pretty(&self.expr)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let text = slf.get().__repr__();
        PyTuple::new(
            py,
            [
                py.get_type::<ExprTree>().into_any(),
                PyTuple::new(py, [text])?.into_any(),
            ],
        )
    }

    fn __hash__(&self) -> u64 {
        // Equal trees unparse the same.
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        classad::syntax::unparse(&self.expr).hash(&mut hasher);
        hasher.finish()
    }

    /// `==` compares trees (as `sameAs`); `<`, `<=`, `>`, `>=` build the
    /// comparison's tree.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let same = || -> bool {
            other
                .cast::<ExprTree>()
                .map(|o| *o.get().expr == *self.expr)
                .unwrap_or(false)
        };
        let build = |op: BinaryOp| -> PyResult<Py<PyAny>> {
            let tree = binary(op, parenthesized((*self.expr).clone()), operand(other)?);
            Ok(Bound::new(py, tree)?.into_any().unbind())
        };
        match op {
            CompareOp::Eq => Ok(same().into_pyobject(py)?.to_owned().into_any().unbind()),
            CompareOp::Ne => Ok((!same()).into_pyobject(py)?.to_owned().into_any().unbind()),
            CompareOp::Lt => build(BinaryOp::Less),
            CompareOp::Le => build(BinaryOp::LessEqual),
            CompareOp::Gt => build(BinaryOp::Greater),
            CompareOp::Ge => build(BinaryOp::GreaterEqual),
        }
    }

    // Arithmetic and bitwise operators build the tree `self <op> other`
    // (reflected: `other <op> self`).

    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::Add, other)
    }

    fn __radd__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::Add, other)
    }

    fn __sub__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::Subtract, other)
    }

    fn __rsub__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::Subtract, other)
    }

    fn __mul__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::Multiply, other)
    }

    fn __rmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::Multiply, other)
    }

    fn __truediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::Divide, other)
    }

    fn __rtruediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::Divide, other)
    }

    fn __mod__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::Modulo, other)
    }

    fn __rmod__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::Modulo, other)
    }

    fn __and__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::BitAnd, other)
    }

    fn __rand__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::BitAnd, other)
    }

    fn __or__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::BitOr, other)
    }

    fn __ror__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::BitOr, other)
    }

    fn __xor__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::BitXor, other)
    }

    fn __rxor__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::BitXor, other)
    }

    fn __lshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::ShiftLeft, other)
    }

    fn __rlshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::ShiftLeft, other)
    }

    fn __rshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.left(BinaryOp::ShiftRight, other)
    }

    fn __rrshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        self.right(BinaryOp::ShiftRight, other)
    }

    fn __neg__(&self) -> ExprTree {
        self.unary(UnaryOp::Minus)
    }

    fn __pos__(&self) -> ExprTree {
        self.unary(UnaryOp::Plus)
    }

    fn __invert__(&self) -> ExprTree {
        self.unary(UnaryOp::BitNot)
    }

    /// The tree `self && other`.
    fn and_(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        Ok(binary(
            BinaryOp::And,
            parenthesized((*self.expr).clone()),
            operand(other)?,
        ))
    }

    /// The tree `self || other`.
    fn or_(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        Ok(binary(
            BinaryOp::Or,
            parenthesized((*self.expr).clone()),
            operand(other)?,
        ))
    }

    /// The tree `self =?= other`.
    fn is_(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        Ok(binary(
            BinaryOp::Is,
            parenthesized((*self.expr).clone()),
            operand(other)?,
        ))
    }

    /// The tree `self =!= other`.
    fn isnt_(&self, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        Ok(binary(
            BinaryOp::Isnt,
            parenthesized((*self.expr).clone()),
            operand(other)?,
        ))
    }

    /// Whether two trees are the same expression.
    #[pyo3(name = "sameAs")]
    fn same_as(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = other
            .cast::<ExprTree>()
            .map_err(|_| PyTypeError::new_err("other must be an ExprTree"))?;
        Ok(*other.get().expr == *self.expr)
    }

    /// Evaluates the expression: attribute references in `scope` (a
    /// `ClassAd`), `TARGET.` references in `target`. The value comes back
    /// as a Python value (see `ClassAd`), `Value.Undefined` or
    /// `Value.Error`.
    #[pyo3(signature = (scope = None, target = None))]
    fn eval<'py>(
        &self,
        py: Python<'py>,
        scope: Option<&Bound<'py, PyAny>>,
        target: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = self.value(scope, target)?;
        value_to_py(py, &value)
    }

    /// Evaluates the expression and gives the value as an `ExprTree`.
    #[pyo3(signature = (scope = None, target = None))]
    fn simplify(
        &self,
        scope: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ExprTree> {
        let value = self.value(scope, target)?;
        Ok(ExprTree::new(classad::value_to_expr(&value)))
    }
}

impl ExprTree {
    fn left(&self, op: BinaryOp, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        Ok(binary(
            op,
            parenthesized((*self.expr).clone()),
            operand(other)?,
        ))
    }

    fn right(&self, op: BinaryOp, other: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
        Ok(binary(
            op,
            operand(other)?,
            parenthesized((*self.expr).clone()),
        ))
    }

    fn unary(&self, op: UnaryOp) -> ExprTree {
        ExprTree::new(Expr::new(ExprKind::Unary {
            op,
            operand: Box::new(parenthesized((*self.expr).clone())),
        }))
    }
}
