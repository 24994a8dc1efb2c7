//! The ClassAd language: the crate users depend on.
//!
//! [`ClassAd`] is the ad you parse (new syntax, [`ClassAd::parse_old`],
//! [`ClassAd::from_json`], [`ClassAd::from_xml`]), insert into and get
//! typed values from, evaluate, match, flatten and print; [`read_ads`]
//! iterates the ads of a file in any of those forms. With the `serde`
//! feature, `to_ad` and `from_ad` turn serde types into ads and back.
//!
//! ```
//! use classad::ClassAd;
//! let job: ClassAd = "[RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory]"
//!     .parse()
//!     .unwrap();
//! let slot = ClassAd::parse_old("Memory = 4096\nRequirements = true\n").unwrap();
//! assert!(job.matches(&slot));
//! ```
//!
//! The layers are re-exported ([`syntax`], [`compiler`], [`vm`],
//! [`stdlib`]) for the machinery beneath, joined in a few calls:
//!
//! ```
//! use classad::{evaluate_str, Value};
//! assert!(matches!(evaluate_str("[a = 2; b = a * 21].b"), Ok(Value::Int(42))));
//! ```

pub use classad_compiler as compiler;
pub use classad_stdlib as stdlib;
pub use classad_syntax as syntax;
pub use classad_vm as vm;

pub use classad_syntax::{AdExpr, Expr, ParseError};
pub use classad_vm::{AdRef, AdValue, Options, Program, Value, Vm};

use std::sync::Arc;

mod classad;
pub mod printf;
#[cfg(feature = "serde")]
mod serde_impl;

pub use classad::{
    Ads, ClassAd, FromValue, GetError, IntoExpr, quote, read_ads, unquote, value_to_expr,
};
#[cfg(feature = "serde")]
pub use serde_impl::{from_ad, to_ad};

/// Why a text could not be read, or an expression not compiled.
///
/// Evaluation never fails with an `Error`: an expression whose evaluation
/// fails has the value ERROR ([`Value::Error`]), as in HTCondor.
///
/// # Examples
///
/// ```
/// match classad::evaluate_str("1 +") {
///     Err(classad::Error::Parse(e)) => assert!(e.to_string().contains("column")),
///     other => panic!("{other:?}"),
/// }
/// assert!(matches!(classad::evaluate_str("absTime(\"nonsense\")"), Err(classad::Error::Compile(_))));
/// assert_eq!(classad::evaluate_str("1 + \"a\"").unwrap(), classad::Value::Error);
/// ```
#[derive(Clone, Debug)]
pub enum Error {
    /// The text is not ClassAd.
    Parse(ParseError),
    /// The expression cannot be compiled.
    Compile(compiler::CompileError),
    /// An ad of an input could not be read: its number, line and column.
    Read(syntax::AdError),
    /// Anything else, in words.
    Other(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Parse(e) => e.fmt(f),
            Error::Compile(e) => e.fmt(f),
            Error::Read(e) => e.fmt(f),
            Error::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        Error::Parse(e)
    }
}

impl From<syntax::AdError> for Error {
    fn from(e: syntax::AdError) -> Error {
        Error::Read(e)
    }
}

impl From<compiler::CompileError> for Error {
    fn from(e: compiler::CompileError) -> Error {
        Error::Compile(e)
    }
}

/// Compiles an expression with the standard functions.
///
/// # Errors
///
/// [`Error::Compile`] when the expression cannot be compiled: `absTime` or
/// `relTime` of a literal string that is not a time (HTCondor's parser
/// refuses those), a call of more than 65,535 arguments.
pub fn compile(expr: &Expr) -> Result<Program, Error> {
    compile_with(&stdlib::shared_registry(), expr)
}

/// Compiles an expression with the functions of `registry`: the way to
/// call functions of your own (the counterpart of HTCondor's
/// `CLASSAD_USER_LIBS`).
///
/// # Errors
///
/// [`Error::Compile`] when the expression cannot be compiled: `absTime` or
/// `relTime` of a literal string that is not a time (HTCondor's parser
/// refuses those), a call of more than 65,535 arguments.
///
/// # Examples
///
/// ```
/// use classad::vm::{Arguments, Builtin, Function, Value};
///
/// let mut functions = classad::stdlib::standard_registry();
/// functions
///     .register(Builtin {
///         name: "triple",
///         min_args: 1,
///         max_args: 1,
///         pure: true,
///         function: Function::Strict(|_, args| match args[0] {
///             Value::Int(i) => Value::Int(i.wrapping_mul(3)),
///             Value::Undefined => Value::Undefined,
///             _ => Value::Error,
///         }),
///         // Every argument evaluated, in order (see `Arguments` for a
///         // function that stops before its later arguments).
///         arguments: Arguments::EAGER,
///     })
///     .expect("a new name");
///
/// let expr = classad::syntax::parse_expression("[n = 14; r = triple(n)].r").unwrap();
/// let program = classad::compile_with(&functions, &expr).unwrap();
/// let value = classad::Vm::default().evaluate(&program, &classad::empty_ad());
/// assert!(matches!(value, Value::Int(42)));
///
/// // Names are unique, ignoring case: a builtin cannot be registered twice.
/// let again = Builtin { name: "STRCAT", min_args: 0, max_args: 0, pure: true,
///                       function: Function::Strict(|_, _| Value::Undefined),
///                       arguments: Arguments::EAGER };
/// assert!(functions.register(again).is_err());
/// ```
pub fn compile_with(registry: &vm::Registry, expr: &Expr) -> Result<Program, Error> {
    Ok(compiler::Compiler::new(registry).compile(expr)?)
}

/// Compiles an ad into a top-level ad ready for evaluation.
///
/// # Errors
///
/// [`Error::Compile`] when an attribute cannot be compiled (see [`compile`]).
pub fn ad_from_ast(ad: &AdExpr) -> Result<AdRef, Error> {
    ad_from_ast_with(&stdlib::shared_registry(), ad)
}

/// Compiles an ad with the functions of `registry`. Ads compiled on one
/// thread share the programs of identical attributes (see
/// [`compiler::CompileCache`]), which keeps matching over a large pool in
/// cache.
///
/// # Errors
///
/// [`Error::Compile`] when an attribute cannot be compiled (see [`compile`]).
pub fn ad_from_ast_with(registry: &vm::Registry, ad: &AdExpr) -> Result<AdRef, Error> {
    thread_local! {
        static CACHE: compiler::CompileCache = compiler::CompileCache::new();
    }
    let body =
        CACHE.with(|cache| compiler::Compiler::with_cache(registry, cache).compile_ad(ad))?;
    Ok(AdValue::top_level(Arc::new(body)))
}

/// Compiles an ad with the standard functions, sharing definitions and
/// layouts with the other ads compiled through `cache`: one cache for a
/// whole pool, shared by the threads reading it
/// ([`compiler::CompileCache::for_pool`]), keeps each repeated attribute
/// once.
///
/// # Errors
///
/// [`Error::Compile`] when an attribute cannot be compiled (see [`compile`]).
pub fn ad_from_ast_cached(cache: &compiler::CompileCache, ad: &AdExpr) -> Result<AdRef, Error> {
    let registry = stdlib::shared_registry();
    let body = compiler::Compiler::with_cache(&registry, cache).compile_ad(ad)?;
    Ok(AdValue::top_level(Arc::new(body)))
}

/// An empty top-level ad, the context `classad_eval` evaluates in.
pub fn empty_ad() -> AdRef {
    AdValue::top_level(Arc::new(vm::AdBody::new()))
}

/// Parses and evaluates one expression in an empty ad.
///
/// # Errors
///
/// [`Error::Parse`] when `source` is not one expression, [`Error::Compile`]
/// when it cannot be compiled (see [`compile`]); a failed evaluation is the
/// value ERROR.
///
/// # Examples
///
/// ```
/// assert_eq!(classad::evaluate_str("strcat(\"x\", 1 + 2)").unwrap(), classad::Value::string("x3"));
/// ```
pub fn evaluate_str(source: &str) -> Result<Value, Error> {
    let program = compile(&syntax::parse_expression(source)?)?;
    Ok(Vm::default().evaluate(&program, &empty_ad()))
}
