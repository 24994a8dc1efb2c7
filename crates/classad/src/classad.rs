//! [`ClassAd`]: an ad you parse, index, insert into, evaluate, match and
//! print, as HTCondor's Python `classad2.ClassAd`.

use crate::{Error, Value};
use classad_syntax::{
    AdExpr, AdReader, AdWarning, BinaryOp, Expr, ExprKind, Literal, Name, ParseOptions, Parser,
    UnaryOp,
};
use classad_vm::{AdRef, Vm};
use std::cell::RefCell;
use std::fmt;
use std::io::{BufReader, Read};
use std::str::FromStr;
use std::sync::OnceLock;

thread_local! {
    static VM: RefCell<Vm> = RefCell::new(Vm::default());
}

fn parser() -> Parser {
    Parser::new(ParseOptions::default())
}

/// A ClassAd: attributes (names ignore case, as in HTCondor) bound to
/// expressions, in the order they were defined.
///
/// # Examples
///
/// ```
/// use classad::ClassAd;
/// let mut job: ClassAd = "[Owner = \"alice\"; RequestMemory = 2048]".parse().unwrap();
/// job.insert("Cpus", 4);
/// job.insert_expr("Requirements", "TARGET.Memory >= MY.RequestMemory").unwrap();
/// assert_eq!(job.get::<String>("owner").unwrap(), "alice");
/// assert_eq!(job.get::<i64>("CPUS").unwrap(), 4);
///
/// let slot: ClassAd = "[Memory = 4096; Requirements = true]".parse().unwrap();
/// assert!(job.matches(&slot));
/// ```
#[derive(Clone, Default)]
pub struct ClassAd {
    ast: AdExpr,
    compiled: OnceLock<AdRef>,
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// The ad of a tree.
    ///
    /// # Examples
    ///
    /// ```
    /// let tree = classad::syntax::parse_ad("[a = 1]").unwrap();
    /// let ad = classad::ClassAd::from_ast(tree);
    /// assert_eq!(ad.as_ast().len(), 1);
    /// ```
    pub fn from_ast(ast: AdExpr) -> ClassAd {
        ClassAd {
            ast,
            compiled: OnceLock::new(),
        }
    }

    /// The tree of the ad.
    pub fn as_ast(&self) -> &AdExpr {
        &self.ast
    }

    /// The tree of the ad, taken.
    pub fn into_ast(self) -> AdExpr {
        self.ast
    }

    /// Reads an ad in old syntax (`Name = expr` lines, as `condor_q -long`
    /// prints). A line that cannot be read is an error, as for HTCondor's
    /// `initAdFromString`; a reader of ad files ([`read_ads`]) keeps the
    /// lines before it instead, as HTCondor's file readers do.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] (with the line and column) when a line cannot be read,
    /// and [`Error::Other`] when the text holds more than one ad.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad = classad::ClassAd::parse_old("A = 1\nB = A + 1\n").unwrap();
    /// assert_eq!(ad.evaluate("B"), classad::Value::Int(2));
    /// assert!(classad::ClassAd::parse_old("A = 1\nB = A +\n").is_err());
    /// ```
    pub fn parse_old(text: &str) -> Result<ClassAd, Error> {
        let parser = Parser::new(ParseOptions {
            refuse_partial_ads: true,
            ..ParseOptions::default()
        });
        let mut ads = AdReader::new(text.as_bytes(), classad_syntax::Format::Old, &parser);
        let ad = match ads.next() {
            Some(ad) => ad?,
            None => AdExpr::new(),
        };
        if let Some(next) = ads.next() {
            let line = match next {
                Ok(_) => ads.bytes_read(),
                Err(e) => e.first_line,
            };
            return Err(Error::Other(format!(
                "more than one ad in the text (a blank line ends an ad; another starts near line {line})"
            )));
        }
        Ok(ClassAd::from_ast(ad))
    }

    /// Reads an ad in HTCondor's JSON form (one object).
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] or [`Error::Read`] (with the line and column) when the
    /// text is not one object of HTCondor's JSON form.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad = classad::ClassAd::from_json(r#"{"a": 1, "b": "\/Expr(a + 1)\/"}"#).unwrap();
    /// assert_eq!(ad.get::<i64>("b").unwrap(), 2);
    /// ```
    pub fn from_json(text: &str) -> Result<ClassAd, Error> {
        Ok(ClassAd::from_ast(classad_syntax::parse_json_ad(
            &parser(),
            text,
        )?))
    }

    /// Reads an ad in HTCondor's XML form (one `<c>`).
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] or [`Error::Read`] (with the line and column) when the
    /// text is not one `<c>` of HTCondor's XML form.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad = classad::ClassAd::from_xml(r#"<c><a n="a"><i>1</i></a></c>"#).unwrap();
    /// assert_eq!(ad.to_xml(), "<c>\n    <a n=\"a\"><i>1</i></a>\n</c>\n");
    /// ```
    pub fn from_xml(text: &str) -> Result<ClassAd, Error> {
        Ok(ClassAd::from_ast(classad_syntax::parse_xml_ad(
            &parser(),
            text,
        )?))
    }

    /// The ad in old syntax, one `Name = expr` line each.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; b = a =?= 2]".parse().unwrap();
    /// assert_eq!(ad.to_old(), "a = 1\nb = a =?= 2\n");
    /// ```
    pub fn to_old(&self) -> String {
        classad_syntax::unparse_ad_old(&self.ast)
    }

    /// The ad in HTCondor's JSON form, as `printJson()` writes it.
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; b = a + 1]".parse().unwrap();
    /// assert_eq!(ad.to_json(), "{\n  \"a\": 1,\n  \"b\": \"\\/Expr(a + 1)\\/\"\n}");
    /// ```
    pub fn to_json(&self) -> String {
        classad_syntax::ad_to_json(&self.ast)
    }

    /// The ad in new syntax, one attribute a line.
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; b = 2]".parse().unwrap();
    /// assert_eq!(ad.to_pretty(), "[\n    a = 1;\n    b = 2\n]");
    /// ```
    pub fn to_pretty(&self) -> String {
        classad_syntax::unparse_ad_pretty(&self.ast)
    }

    /// The ad in HTCondor's XML form, as `condor_q -xml` writes each ad.
    pub fn to_xml(&self) -> String {
        classad_syntax::ad_to_xml(&self.ast)
    }

    fn changed(&mut self) {
        self.compiled = OnceLock::new();
    }

    /// Sets attribute `name` to a Rust value (see [`IntoExpr`]); a name
    /// already there (ignoring case) keeps its place and spelling.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut ad = classad::ClassAd::new();
    /// ad.insert("n", 3);
    /// ad.insert("x", 0.5);
    /// ad.insert("ok", true);
    /// ad.insert("who", "alice");
    /// ad.insert("list", vec![1, 2]);
    /// ad.insert("N", 4);
    /// assert_eq!(ad.to_string(), r#"[ n = 4; x = 5.000000000000000E-01; ok = true; who = "alice"; list = { 1,2 } ]"#);
    /// ```
    pub fn insert(&mut self, name: &str, value: impl IntoExpr) {
        self.ast.insert(Name::new(name), value.into_expr());
        self.changed();
    }

    /// Sets attribute `name` to an expression written in new syntax.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] when `text` is not one expression, [`Error::Compile`]
    /// when it cannot be compiled (see [`crate::compile`]); the ad is
    /// unchanged then.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut ad = classad::ClassAd::new();
    /// ad.insert_expr("Rank", "Memory * 2").unwrap();
    /// assert!(ad.insert_expr("Rank", "Memory *").is_err());
    /// ```
    pub fn insert_expr(&mut self, name: &str, text: &str) -> Result<(), Error> {
        let expr = classad_syntax::parse_expression(text)?;
        crate::compile(&expr)?;
        self.ast.insert(Name::new(name), expr);
        self.changed();
        Ok(())
    }

    /// The expression of attribute `name` (ignoring case), unevaluated.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = b + 1]".parse().unwrap();
    /// assert_eq!(classad::syntax::unparse(ad.lookup("A").unwrap()), "b + 1");
    /// ```
    pub fn lookup<N: AsRef<[u8]> + ?Sized>(&self, name: &N) -> Option<&Expr> {
        self.ast.get(name)
    }

    /// Whether the ad has attribute `name` (ignoring case).
    ///
    /// ```
    /// let ad: classad::ClassAd = "[Memory = 1]".parse().unwrap();
    /// assert!(ad.contains("memory") && !ad.contains("Cpus"));
    /// assert_eq!((ad.len(), ad.is_empty()), (1, false));
    /// ```
    pub fn contains<N: AsRef<[u8]> + ?Sized>(&self, name: &N) -> bool {
        self.ast.get(name).is_some()
    }

    /// Removes attribute `name` (ignoring case), giving its expression.
    ///
    /// ```
    /// let mut ad: classad::ClassAd = "[a = 1; b = 2]".parse().unwrap();
    /// assert!(ad.remove("A").is_some());
    /// assert_eq!(ad.len(), 1);
    /// ```
    pub fn remove<N: AsRef<[u8]> + ?Sized>(&mut self, name: &N) -> Option<Expr> {
        let at = self
            .ast
            .attributes
            .iter()
            .position(|(n, _)| n.eq_ignore_case(name))?;
        let (_, expr) = self.ast.attributes.remove(at);
        self.changed();
        Some(expr)
    }

    /// The attributes in order: each name as written and its expression.
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; B = 2]".parse().unwrap();
    /// let names: Vec<&str> = ad.iter().filter_map(|(name, _)| name.to_str()).collect();
    /// assert_eq!(names, ["a", "B"]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &Expr)> {
        self.ast.attributes.iter().map(|(n, e)| (n, e))
    }

    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.ast.len()
    }

    /// Whether the ad has no attributes.
    pub fn is_empty(&self) -> bool {
        self.ast.is_empty()
    }

    /// Sets every attribute of `other` here, as `classad2.ClassAd.update`.
    ///
    /// ```
    /// let mut ad: classad::ClassAd = "[a = 1; b = 2]".parse().unwrap();
    /// ad.update(&"[B = 3; c = 4]".parse().unwrap());
    /// assert_eq!(ad.to_string(), "[ a = 1; b = 3; c = 4 ]");
    /// ```
    pub fn update(&mut self, other: &ClassAd) {
        for (name, expr) in &other.ast.attributes {
            self.ast.insert(name.clone(), expr.clone());
        }
        self.changed();
    }

    /// The compiled ad, compiled on first use.
    ///
    /// # Errors
    ///
    /// [`Error::Compile`] when an attribute cannot be compiled (see
    /// [`crate::compile`]).
    pub fn compiled(&self) -> Result<AdRef, Error> {
        if let Some(ad) = self.compiled.get() {
            return Ok(ad.clone());
        }
        let ad = crate::ad_from_ast(&self.ast)?;
        Ok(self.compiled.get_or_init(|| ad).clone())
    }

    /// Evaluates attribute `name`: UNDEFINED when there is none, ERROR when
    /// the ad cannot be compiled.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 2; b = a * 21]".parse().unwrap();
    /// assert_eq!(ad.evaluate("b"), classad::Value::Int(42));
    /// assert!(ad.evaluate("c").is_undefined());
    /// ```
    pub fn evaluate<N: AsRef<[u8]> + ?Sized>(&self, name: &N) -> Value {
        self.evaluate_inner(name.as_ref(), None)
    }

    /// Evaluates attribute `name` with `target` as TARGET.
    ///
    /// # Examples
    ///
    /// ```
    /// let job: classad::ClassAd = "[r = TARGET.Memory >= 1024]".parse().unwrap();
    /// let slot: classad::ClassAd = "[Memory = 2048]".parse().unwrap();
    /// assert_eq!(job.evaluate_with_target("r", &slot), classad::Value::Bool(true));
    /// ```
    pub fn evaluate_with_target<N: AsRef<[u8]> + ?Sized>(
        &self,
        name: &N,
        target: &ClassAd,
    ) -> Value {
        self.evaluate_inner(name.as_ref(), Some(target))
    }

    fn evaluate_inner(&self, name: &[u8], target: Option<&ClassAd>) -> Value {
        let Ok(ad) = self.compiled() else {
            return Value::Error;
        };
        let target = match target.map(ClassAd::compiled) {
            None => None,
            Some(Ok(t)) => Some(t),
            Some(Err(_)) => return Value::Error,
        };
        let symbol = classad_vm::Symbol::transient(name);
        VM.with(|vm| {
            vm.borrow_mut()
                .evaluate_attribute(&ad, &symbol, target.as_ref())
        })
    }

    /// Evaluates an expression in the ad.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] or [`Error::Compile`] when `text` cannot be read or
    /// compiled, or the ad compiled. An evaluation that fails is no error: its
    /// value is ERROR.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[Memory = 2048]".parse().unwrap();
    /// assert_eq!(ad.evaluate_expr("Memory / 1024").unwrap(), classad::Value::Int(2));
    /// ```
    pub fn evaluate_expr(&self, text: &str) -> Result<Value, Error> {
        self.evaluate_expr_inner(text, None)
    }

    /// Evaluates an expression in the ad with `target` as TARGET.
    ///
    /// # Errors
    ///
    /// As [`ClassAd::evaluate_expr`], and when `target` cannot be compiled.
    ///
    /// # Examples
    ///
    /// ```
    /// let job: classad::ClassAd = "[RequestMemory = 1024]".parse().unwrap();
    /// let slot: classad::ClassAd = "[Memory = 2048]".parse().unwrap();
    /// let v = job.evaluate_expr_with_target("TARGET.Memory >= MY.RequestMemory", &slot).unwrap();
    /// assert_eq!(v.as_bool(), Some(true));
    /// ```
    pub fn evaluate_expr_with_target(&self, text: &str, target: &ClassAd) -> Result<Value, Error> {
        self.evaluate_expr_inner(text, Some(target))
    }

    fn evaluate_expr_inner(&self, text: &str, target: Option<&ClassAd>) -> Result<Value, Error> {
        let program = crate::compile(&classad_syntax::parse_expression(text)?)?;
        let ad = self.compiled()?;
        let target = target.map(ClassAd::compiled).transpose()?;
        Ok(VM.with(|vm| {
            let mut vm = vm.borrow_mut();
            match &target {
                Some(t) => vm.evaluate_in_match(&program, &ad, t),
                None => vm.evaluate(&program, &ad),
            }
        }))
    }

    /// HTCondor's symmetric match: each ad's `Requirements` is `true` with
    /// the other as TARGET.
    ///
    /// # Examples
    ///
    /// ```
    /// let job: classad::ClassAd = "[Requirements = TARGET.Memory > 1000]".parse().unwrap();
    /// let big: classad::ClassAd = "[Memory = 2048; Requirements = true]".parse().unwrap();
    /// let small: classad::ClassAd = "[Memory = 512; Requirements = true]".parse().unwrap();
    /// assert!(job.matches(&big) && !job.matches(&small));
    /// ```
    pub fn matches(&self, other: &ClassAd) -> bool {
        let (Ok(left), Ok(right)) = (self.compiled(), other.compiled()) else {
            return false;
        };
        VM.with(|vm| vm.borrow_mut().symmetric_match(&left, &right))
    }

    /// Partially evaluates an expression against the ad, as
    /// `classad2.ClassAd.flatten`: references to attributes whose values
    /// are known are replaced by them, constant parts are computed, and
    /// what depends on other attributes stays.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] when `text` is not one expression.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; k = a * 2]".parse().unwrap();
    /// let flat = ad.flatten("x > a + 1 && k == 2").unwrap();
    /// assert_eq!(classad::syntax::unparse(&flat), "x > 2");
    /// ```
    pub fn flatten(&self, text: &str) -> Result<Expr, Error> {
        let expr = classad_syntax::parse_expression(text)?;
        Ok(self.flatten_expr(&expr))
    }

    /// [`ClassAd::flatten`] of a tree.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 2; r = TARGET.Cpus >= a]".parse().unwrap();
    /// let flat = ad.flatten_expr(ad.lookup("r").unwrap());
    /// assert_eq!(classad::syntax::unparse(&flat), "TARGET.Cpus >= 2");
    /// ```
    pub fn flatten_expr(&self, expr: &Expr) -> Expr {
        let mut flattener = Flattener {
            ad: self,
            active: Vec::new(),
            budget: 100_000,
        };
        flattener.flatten(expr, 0).into_expr()
    }

    /// The references of an expression that the ad does not define,
    /// following the ad's own attributes (`classad2.ClassAd.externalRefs`):
    /// sorted, each once, selections written out (`TARGET.Memory`).
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] when `text` is not one expression.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; b = a + x]".parse().unwrap();
    /// assert_eq!(ad.external_refs("b + TARGET.Memory + y").unwrap(), ["TARGET.Memory", "x", "y"]);
    /// ```
    pub fn external_refs(&self, text: &str) -> Result<Vec<String>, Error> {
        Ok(self.refs(&classad_syntax::parse_expression(text)?).0)
    }

    /// The ad's own attributes an expression uses, directly or through
    /// other attributes (`classad2.ClassAd.internalRefs`), sorted.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] when `text` is not one expression.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; b = a + x; c = 3]".parse().unwrap();
    /// assert_eq!(ad.internal_refs("b * 2").unwrap(), ["a", "b"]);
    /// ```
    pub fn internal_refs(&self, text: &str) -> Result<Vec<String>, Error> {
        Ok(self.refs(&classad_syntax::parse_expression(text)?).1)
    }

    fn refs(&self, expr: &Expr) -> (Vec<String>, Vec<String>) {
        let mut external = Vec::new();
        let mut internal: Vec<&[u8]> = Vec::new();
        let mut stack = vec![expr];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Attribute(name) => {
                    if internal.iter().any(|n| name.eq_ignore_case(n)) {
                        continue;
                    }
                    match self
                        .ast
                        .attributes
                        .iter()
                        .find(|(n, _)| n.eq_ignore_case(name.as_bytes()))
                    {
                        Some((n, value)) => {
                            internal.push(n.as_bytes());
                            stack.push(value);
                        }
                        None => external.push(name.to_string_lossy().into_owned()),
                    }
                }
                ExprKind::Select { .. } => {
                    // The root of a chain of selections decides: an attribute
                    // of the ad is internal, anything else is named in full.
                    let mut root = e;
                    let mut path = Vec::new();
                    while let ExprKind::Select { base, name } = &root.kind {
                        path.push(name.to_string_lossy());
                        root = base;
                    }
                    match &root.kind {
                        ExprKind::Attribute(base) if self.ast.get(base.as_bytes()).is_some() => {
                            stack.push(root);
                        }
                        ExprKind::Attribute(base) => {
                            path.push(base.to_string_lossy());
                            path.reverse();
                            external.push(path.join("."));
                        }
                        _ => stack.push(root),
                    }
                }
                ExprKind::Ad(_) => {}
                _ => e.for_each_child(|c| stack.push(c)),
            }
        }
        let tidy = |mut names: Vec<String>| {
            names.sort_by_key(|n| n.to_ascii_lowercase());
            names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
            names
        };
        let internal = internal
            .into_iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        (tidy(external), tidy(internal))
    }

    /// Evaluates attribute `name` and converts it to `T` (see
    /// [`FromValue`]).
    ///
    /// # Errors
    ///
    /// [`GetError::Missing`] when there is no such attribute (unless `T` takes
    /// a missing one, as `Option<T>` does), [`GetError::Undefined`] or
    /// [`GetError::Error`] when it evaluates to UNDEFINED or ERROR, and
    /// [`GetError::WrongType`] when its value is not a `T`.
    ///
    /// # Examples
    ///
    /// ```
    /// use classad::{ClassAd, GetError};
    /// let ad: ClassAd = "[n = 3; s = \"x\"; u = undefined; l = {1, 2}]".parse().unwrap();
    /// assert_eq!(ad.get::<i64>("n").unwrap(), 3);
    /// assert_eq!(ad.get::<Vec<i64>>("l").unwrap(), [1, 2]);
    /// assert!(matches!(ad.get::<i64>("s"), Err(GetError::WrongType { .. })));
    /// assert!(matches!(ad.get::<i64>("u"), Err(GetError::Undefined(_))));
    /// assert!(matches!(ad.get::<i64>("missing"), Err(GetError::Missing(_))));
    /// assert_eq!(ad.get::<Option<i64>>("missing").unwrap(), None);
    /// ```
    pub fn get<T: FromValue>(&self, name: &str) -> Result<T, GetError> {
        if !self.contains(name) {
            return T::from_missing().ok_or_else(|| GetError::Missing(name.to_string()));
        }
        T::from_value(self.evaluate(name)).map_err(|e| e.named(name))
    }
}

impl FromStr for ClassAd {
    type Err = Error;

    /// Reads an ad in new syntax: `[a = 1; b = a + 1]`.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] (with the line and column) when the text is not one
    /// ad in new syntax.
    ///
    /// # Examples
    ///
    /// ```
    /// let ad: classad::ClassAd = "[a = 1; b = a + 1]".parse().unwrap();
    /// assert_eq!(ad.len(), 2);
    /// let bad = "[a = 1; b = ]".parse::<classad::ClassAd>().unwrap_err();
    /// assert!(matches!(bad, classad::Error::Parse(_)));
    /// ```
    fn from_str(text: &str) -> Result<ClassAd, Error> {
        Ok(ClassAd::from_ast(parser().parse_ad(text)?))
    }
}

/// The ad in one-line new syntax: `[ a = 1; b = a + 1 ]`.
impl fmt::Display for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&classad_syntax::unparse_ad(&self.ast))
    }
}

impl fmt::Debug for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ClassAd({self})")
    }
}

/// Ads are equal when their attributes (names ignoring case, expressions)
/// are equal, in order.
impl PartialEq for ClassAd {
    fn eq(&self, other: &ClassAd) -> bool {
        self.len() == other.len()
            && self
                .ast
                .attributes
                .iter()
                .zip(&other.ast.attributes)
                .all(|((a, x), (b, y))| a.eq_ignore_case(b.as_bytes()) && x == y)
    }
}

impl From<AdExpr> for ClassAd {
    fn from(ast: AdExpr) -> ClassAd {
        ClassAd::from_ast(ast)
    }
}

/// Why [`ClassAd::get`] gave no value.
///
/// # Examples
///
/// ```
/// use classad::{ClassAd, GetError};
/// let ad: ClassAd = "[n = \"three\"]".parse().unwrap();
/// match ad.get::<i64>("n") {
///     Err(GetError::WrongType { name, expected, found }) => {
///         assert_eq!((name.as_str(), found.as_str()), ("n", "\"three\""));
///         assert!(!expected.is_empty());
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum GetError {
    /// The ad has no attribute of that name.
    Missing(String),
    /// The attribute evaluated to UNDEFINED.
    Undefined(String),
    /// The attribute evaluated to ERROR.
    Error(String),
    /// The attribute's value is not of the type asked for.
    WrongType {
        /// The attribute (empty inside a conversion).
        name: String,
        /// The type asked for.
        expected: &'static str,
        /// The value found, as a literal.
        found: String,
    },
}

impl GetError {
    fn named(self, name: &str) -> GetError {
        match self {
            GetError::Missing(_) => GetError::Missing(name.to_string()),
            GetError::Undefined(_) => GetError::Undefined(name.to_string()),
            GetError::Error(_) => GetError::Error(name.to_string()),
            GetError::WrongType {
                expected, found, ..
            } => GetError::WrongType {
                name: name.to_string(),
                expected,
                found,
            },
        }
    }
}

impl fmt::Display for GetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GetError::Missing(n) => write!(f, "no attribute `{n}`"),
            GetError::Undefined(n) => write!(f, "`{n}` is undefined"),
            GetError::Error(n) => write!(f, "`{n}` evaluates to error"),
            GetError::WrongType {
                name,
                expected,
                found,
            } => write!(f, "`{name}` is {found}, not {expected}"),
        }
    }
}

impl std::error::Error for GetError {}

/// A Rust value an attribute's value converts to, for [`ClassAd::get`]:
/// `i64`, `i32`, `u64`, `f64` (from integers too), `bool`, `String`,
/// `Vec<T>`, `Option<T>` (UNDEFINED or missing is `None`), [`ClassAd`]
/// and [`Value`] itself.
///
/// ```
/// use classad::{FromValue, GetError, Value};
/// struct Even(i64);
/// impl FromValue for Even {
///     fn from_value(value: Value) -> Result<Even, GetError> {
///         match value.as_i64() {
///             Some(i) if i % 2 == 0 => Ok(Even(i)),
///             _ => Err(GetError::WrongType { name: String::new(), expected: "an even integer",
///                                            found: value.to_string() }),
///         }
///     }
/// }
/// let ad: classad::ClassAd = "[n = 4; m = 3]".parse().unwrap();
/// assert_eq!(ad.get::<Even>("n").unwrap().0, 4);
/// assert!(ad.get::<Even>("m").is_err());
/// ```
pub trait FromValue: Sized {
    /// The conversion of an evaluated value.
    fn from_value(value: Value) -> Result<Self, GetError>;

    /// What a missing attribute gives (`None`: an error).
    fn from_missing() -> Option<Self> {
        None
    }
}

fn wrong(expected: &'static str, value: &Value) -> GetError {
    match value {
        Value::Undefined => GetError::Undefined(String::new()),
        Value::Error => GetError::Error(String::new()),
        _ => GetError::WrongType {
            name: String::new(),
            expected,
            found: value.to_string(),
        },
    }
}

impl FromValue for Value {
    fn from_value(value: Value) -> Result<Value, GetError> {
        Ok(value)
    }
}

impl FromValue for i64 {
    fn from_value(value: Value) -> Result<i64, GetError> {
        value.as_i64().ok_or_else(|| wrong("an integer", &value))
    }
}

impl FromValue for i32 {
    fn from_value(value: Value) -> Result<i32, GetError> {
        value
            .as_i64()
            .and_then(|i| i32::try_from(i).ok())
            .ok_or_else(|| wrong("a 32-bit integer", &value))
    }
}

impl FromValue for u64 {
    fn from_value(value: Value) -> Result<u64, GetError> {
        value
            .as_i64()
            .and_then(|i| u64::try_from(i).ok())
            .ok_or_else(|| wrong("a non-negative integer", &value))
    }
}

impl FromValue for f64 {
    fn from_value(value: Value) -> Result<f64, GetError> {
        value.as_f64().ok_or_else(|| wrong("a number", &value))
    }
}

impl FromValue for bool {
    fn from_value(value: Value) -> Result<bool, GetError> {
        value.as_bool().ok_or_else(|| wrong("a boolean", &value))
    }
}

impl FromValue for String {
    fn from_value(value: Value) -> Result<String, GetError> {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| wrong("a UTF-8 string", &value))
    }
}

impl<T: FromValue> FromValue for Vec<T> {
    fn from_value(value: Value) -> Result<Vec<T>, GetError> {
        match value {
            Value::List(items) => items.iter().cloned().map(T::from_value).collect(),
            other => Err(wrong("a list", &other)),
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: Value) -> Result<Option<T>, GetError> {
        match value {
            Value::Undefined => Ok(None),
            other => T::from_value(other).map(Some),
        }
    }

    fn from_missing() -> Option<Option<T>> {
        Some(None)
    }
}

impl FromValue for ClassAd {
    fn from_value(value: Value) -> Result<ClassAd, GetError> {
        match &value {
            Value::Ad(ad) => Ok(ClassAd::from_ast(
                ad.body
                    .attributes()
                    .iter()
                    .map(|a| (a.name.clone(), (*a.source).clone()))
                    .collect(),
            )),
            _ => Err(wrong("an ad", &value)),
        }
    }
}

/// A Rust value that becomes an attribute's expression, for
/// [`ClassAd::insert`]: integers, `f64`, `bool`, strings, `Vec<T>`,
/// `Option<T>` (`None` is UNDEFINED), [`ClassAd`] (a nested ad), [`Value`]
/// and expression trees.
///
/// ```
/// let mut ad = classad::ClassAd::new();
/// ad.insert("inner", "[x = 1]".parse::<classad::ClassAd>().unwrap());
/// ad.insert("maybe", None::<i64>);
/// ad.insert("tree", classad::syntax::parse_expression("inner.x + 1").unwrap());
/// assert_eq!(ad.to_string(), "[ inner = [ x = 1 ]; maybe = undefined; tree = inner.x + 1 ]");
/// assert_eq!(ad.evaluate("tree"), classad::Value::Int(2));
/// ```
pub trait IntoExpr {
    /// The expression.
    fn into_expr(self) -> Expr;
}

fn lit(l: Literal) -> Expr {
    Expr::literal(l)
}

impl IntoExpr for Expr {
    fn into_expr(self) -> Expr {
        self
    }
}

impl IntoExpr for &Expr {
    fn into_expr(self) -> Expr {
        self.clone()
    }
}

impl IntoExpr for i64 {
    fn into_expr(self) -> Expr {
        lit(Literal::Integer(self))
    }
}

impl IntoExpr for i32 {
    fn into_expr(self) -> Expr {
        lit(Literal::Integer(i64::from(self)))
    }
}

impl IntoExpr for u32 {
    fn into_expr(self) -> Expr {
        lit(Literal::Integer(i64::from(self)))
    }
}

impl IntoExpr for f64 {
    fn into_expr(self) -> Expr {
        lit(Literal::Real(self))
    }
}

impl IntoExpr for bool {
    fn into_expr(self) -> Expr {
        lit(Literal::Boolean(self))
    }
}

impl IntoExpr for &str {
    fn into_expr(self) -> Expr {
        lit(Literal::String(self.as_bytes().into()))
    }
}

impl IntoExpr for String {
    fn into_expr(self) -> Expr {
        lit(Literal::String(self.into_bytes().into_boxed_slice()))
    }
}

impl IntoExpr for &String {
    fn into_expr(self) -> Expr {
        self.as_str().into_expr()
    }
}

impl<T: IntoExpr> IntoExpr for Vec<T> {
    fn into_expr(self) -> Expr {
        Expr::new(ExprKind::List(
            self.into_iter().map(IntoExpr::into_expr).collect(),
        ))
    }
}

impl<T: IntoExpr> IntoExpr for Option<T> {
    /// `None` is UNDEFINED.
    fn into_expr(self) -> Expr {
        match self {
            Some(v) => v.into_expr(),
            None => lit(Literal::Undefined),
        }
    }
}

impl IntoExpr for ClassAd {
    fn into_expr(self) -> Expr {
        Expr::new(ExprKind::Ad(Box::new(self.ast)))
    }
}

impl IntoExpr for &ClassAd {
    fn into_expr(self) -> Expr {
        self.clone().into_expr()
    }
}

impl IntoExpr for Value {
    fn into_expr(self) -> Expr {
        value_to_expr(&self)
    }
}

impl IntoExpr for &Value {
    fn into_expr(self) -> Expr {
        value_to_expr(self)
    }
}

/// A value as an expression that evaluates to it: a literal, a list or ad
/// literal, `absTime("...")`, `relTime(N)`.
///
/// ```
/// use classad::{Value, value_to_expr};
/// assert_eq!(classad::syntax::unparse(&value_to_expr(&Value::Int(3))), "3");
/// ```
pub fn value_to_expr(value: &Value) -> Expr {
    let call = |name: &str, args: Vec<Expr>| {
        Expr::new(ExprKind::Call {
            name: Name::new(name),
            args,
        })
    };
    match value {
        Value::Undefined => lit(Literal::Undefined),
        Value::Error => lit(Literal::Error),
        Value::Bool(b) => lit(Literal::Boolean(*b)),
        Value::Int(i) => lit(Literal::Integer(*i)),
        Value::Real(r) => lit(Literal::Real(*r)),
        Value::Str(s) => lit(Literal::String(s.to_vec().into_boxed_slice())),
        Value::AbsTime(t) => call(
            "absTime",
            vec![
                lit(Literal::Integer(t.secs)),
                lit(Literal::Integer(i64::from(t.offset))),
            ],
        ),
        Value::RelTime(r) if r.fract() == 0.0 && r.abs() < 9.0e15 => {
            call("relTime", vec![lit(Literal::Integer(*r as i64))])
        }
        Value::RelTime(r) => call("relTime", vec![lit(Literal::Real(*r))]),
        // A real written as a relative time, as HTCondor's parser reads
        // `relTime("01:01")`.
        Value::RelTimeLiteral(r) => match classad_vm::print::rel_time_literal_text(*r) {
            Some(text) => call(
                "relTime",
                vec![lit(Literal::String(text.into_bytes().into_boxed_slice()))],
            ),
            None => lit(Literal::Real(*r)),
        },
        Value::List(items) | Value::SharedList(items) => {
            Expr::new(ExprKind::List(items.iter().map(value_to_expr).collect()))
        }
        Value::LazyList(list) => Expr::new(ExprKind::List(
            list.items.iter().map(|i| (*i.source).clone()).collect(),
        )),
        Value::Ad(ad) => Expr::new(ExprKind::Ad(Box::new(
            ad.body
                .attributes()
                .iter()
                .map(|a| (a.name.clone(), (*a.source).clone()))
                .collect(),
        ))),
    }
}

/// A ClassAd string literal for `text`, quotes included (`classad2.quote`).
///
/// ```
/// assert_eq!(classad::quote("a\"b"), r#""a\"b""#);
/// assert_eq!(classad::unquote(&classad::quote("x\ny")).unwrap(), "x\ny");
/// ```
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    classad_syntax::unparse::write_string_literal(text.as_bytes(), &mut out);
    out
}

/// The text of a ClassAd string literal (`classad2.unquote`).
///
/// # Errors
///
/// [`Error::Parse`] when `literal` is not an expression, [`Error::Other`]
/// when it is not one string literal or its text is not UTF-8.
///
/// # Examples
///
/// ```
/// assert_eq!(classad::unquote(r#""a\tb""#).unwrap(), "a\tb");
/// assert!(classad::unquote("a + 1").is_err());
/// ```
pub fn unquote(literal: &str) -> Result<String, Error> {
    let expr = classad_syntax::parse_expression(literal)?;
    match expr.into_kind() {
        ExprKind::Literal(Literal::String(bytes)) => String::from_utf8(bytes.into_vec())
            .map_err(|_| Error::Other("the string is not UTF-8".to_string())),
        _ => Err(Error::Other(format!("`{literal}` is not a string literal"))),
    }
}

/// Iterates the ads of any [`Read`] in old syntax, new syntax, JSON or XML,
/// the format found from the first non-blank character. Errors carry the
/// ad's number and the line and column in the input; a bad ad does not
/// stop the reading.
///
/// An old-syntax ad with a line that cannot be read keeps the lines
/// before it and drops the rest, as HTCondor's readers do;
/// [`Ads::take_warnings`] says what was dropped, and
/// [`Ads::refuse_partial_ads`] makes such an ad an error instead (an ad
/// whose first line cannot be read is one either way).
///
/// # Examples
///
/// ```
/// let text = "A = 1\n\nA = 2 +\n\nA = 3\nB = 4 +\nC = 5\n";
/// let mut reader = classad::read_ads(text.as_bytes()).unwrap();
/// let ads: Vec<_> = reader.by_ref().collect();
/// assert_eq!(ads.len(), 3);
/// assert_eq!(ads[2].as_ref().unwrap().get::<i64>("a").unwrap(), 3);
/// assert!(ads[2].as_ref().unwrap().get::<i64>("c").is_err());
/// let err = ads[1].as_ref().unwrap_err();
/// assert!(err.to_string().starts_with("ad 2 (from line 3)"));
/// let warnings = reader.take_warnings();
/// assert_eq!((warnings[0].error.ordinal, warnings[0].dropped_lines), (3, 2));
///
/// let refused: Vec<_> = classad::read_ads(text.as_bytes()).unwrap().refuse_partial_ads().collect();
/// assert!(refused[2].is_err());
/// ```
///
/// # Errors
///
/// [`Error::Other`] when the input cannot be read before its first ad
/// (its first bytes say the format). The errors of each ad come from the
/// iterator, with the ad's number, line and column.
pub fn read_ads<R: Read>(input: R) -> Result<Ads<R>, Error> {
    thread_local! {
        // One parser per thread for every reading, kept so that the
        // iterator owns no borrow: its name table grows with the distinct
        // attribute names read, as the VM's symbol table does.
        static PARSER: &'static Parser = Box::leak(Box::new(parser()));
    }
    let parser = PARSER.with(|p| *p);
    let reader = AdReader::auto(BufReader::new(input), parser)
        .map_err(|e| Error::Other(format!("cannot read the input: {e}")))?;
    Ok(Ads {
        reader,
        warnings: Vec::new(),
        refuse_partial: false,
    })
}

/// The ads of an input: see [`read_ads`].
pub struct Ads<R: Read> {
    reader: AdReader<'static, std::io::Chain<std::io::Cursor<Vec<u8>>, BufReader<R>>>,
    /// Warnings about ads kept in part, not yet taken.
    warnings: Vec<AdWarning>,
    refuse_partial: bool,
}

impl<R: Read> Ads<R> {
    /// The format found.
    pub fn format(&self) -> classad_syntax::Format {
        self.reader.format()
    }

    /// Takes the warnings about old-syntax ads kept in part (the lines
    /// before a line that could not be read, see [`AdWarning`]) met since
    /// the last call: each is ready when its ad is yielded.
    pub fn take_warnings(&mut self) -> Vec<AdWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// Refuse an old-syntax ad that has a line that cannot be read (the
    /// ad is an error) instead of keeping the lines before it as HTCondor
    /// does (see [`classad_syntax::ParseOptions::refuse_partial_ads`]).
    pub fn refuse_partial_ads(mut self) -> Self {
        self.refuse_partial = true;
        self
    }
}

impl<R: Read> Iterator for Ads<R> {
    type Item = Result<ClassAd, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.reader.next()?;
        let mut warnings = self.reader.take_warnings();
        if self.refuse_partial
            && item.is_ok()
            && let Some(warning) = warnings.pop()
        {
            // The ad just read was kept in part: refused, as the reader
            // with `refuse_partial_ads` would have.
            return Some(Err(Error::Read(warning.error)));
        }
        self.warnings.append(&mut warnings);
        Some(item.map(ClassAd::from_ast).map_err(Error::Read))
    }
}

// ---------------------------------------------------------------------------
// Flattening
// ---------------------------------------------------------------------------

/// A flattened part: a value, or a tree still to evaluate.
enum Flat {
    Value(Value),
    Tree(Expr),
}

impl Flat {
    fn into_expr(self) -> Expr {
        match self {
            Flat::Value(v) => value_to_expr(&v),
            Flat::Tree(e) => e,
        }
    }
}

struct Flattener<'a> {
    ad: &'a ClassAd,
    /// Attributes being flattened, against cycles.
    active: Vec<Vec<u8>>,
    /// Nodes left to visit, against exponential blow-up.
    budget: usize,
}

fn boxed(f: Flat) -> Box<Expr> {
    Box::new(f.into_expr())
}

impl Flattener<'_> {
    /// The value of a tree of constants, evaluated in the ad.
    fn compute(&self, expr: &Expr) -> Value {
        let Ok(program) = crate::compile(expr) else {
            return Value::Error;
        };
        let Ok(ad) = self.ad.compiled() else {
            return Value::Error;
        };
        VM.with(|vm| vm.borrow_mut().evaluate(&program, &ad))
    }

    fn flatten(&mut self, expr: &Expr, depth: usize) -> Flat {
        if depth > 200 || self.budget == 0 {
            return Flat::Tree(expr.clone());
        }
        self.budget -= 1;
        let d = depth + 1;
        match &expr.kind {
            ExprKind::Literal(l) => Flat::Value(match l {
                Literal::Integer(i) => Value::Int(*i),
                Literal::Real(r) => Value::Real(*r),
                Literal::String(s) => Value::string(s),
                Literal::Boolean(b) => Value::Bool(*b),
                Literal::Undefined => Value::Undefined,
                Literal::Error => Value::Error,
            }),
            ExprKind::Attribute(name) => {
                let key = name.as_bytes().to_ascii_lowercase();
                let Some(value) = self.ad.lookup(name.as_bytes()) else {
                    return Flat::Tree(expr.clone());
                };
                if self.active.contains(&key) {
                    return Flat::Tree(expr.clone());
                }
                self.active.push(key);
                let flat = self.flatten(value, d);
                self.active.pop();
                match flat {
                    Flat::Value(Value::List(_) | Value::LazyList(_) | Value::Ad(_))
                    | Flat::Tree(_) => Flat::Tree(expr.clone()),
                    value => value,
                }
            }
            ExprKind::Select { .. } => {
                let mut root = expr;
                while let ExprKind::Select { base, .. } = &root.kind {
                    root = base;
                }
                match &root.kind {
                    ExprKind::Attribute(name) if self.ad.contains(name.as_bytes()) => {
                        match self.compute(expr) {
                            Value::List(_)
                            | Value::LazyList(_)
                            | Value::Ad(_)
                            | Value::Undefined => Flat::Tree(expr.clone()),
                            v => Flat::Value(v),
                        }
                    }
                    _ => Flat::Tree(expr.clone()),
                }
            }
            ExprKind::RootAttribute(_) | ExprKind::Ad(_) => Flat::Tree(expr.clone()),
            ExprKind::Paren(inner) => match self.flatten(inner, d) {
                Flat::Value(v) => Flat::Value(v),
                Flat::Tree(t) => Flat::Tree(Expr::new(ExprKind::Paren(Box::new(t)))),
            },
            ExprKind::List(items) => {
                let items = items
                    .iter()
                    .map(|i| self.flatten(i, d).into_expr())
                    .collect();
                Flat::Tree(Expr::new(ExprKind::List(items)))
            }
            ExprKind::Call { name, args } => {
                let flat: Vec<Flat> = args.iter().map(|a| self.flatten(a, d)).collect();
                let constant = flat.iter().all(|f| matches!(f, Flat::Value(_)));
                let call = Expr::new(ExprKind::Call {
                    name: name.clone(),
                    args: flat.into_iter().map(Flat::into_expr).collect(),
                });
                if constant {
                    Flat::Value(self.compute(&call))
                } else {
                    Flat::Tree(call)
                }
            }
            ExprKind::Unary { op, operand } => match self.flatten(operand, d) {
                Flat::Value(v) => Flat::Value(self.compute(&Expr::new(ExprKind::Unary {
                    op: *op,
                    operand: Box::new(value_to_expr(&v)),
                }))),
                Flat::Tree(t) => Flat::Tree(Expr::new(ExprKind::Unary {
                    op: *op,
                    operand: Box::new(t),
                })),
            },
            ExprKind::Subscript { base, index } => {
                let (b, i) = (self.flatten(base, d), self.flatten(index, d));
                let constant = matches!((&b, &i), (Flat::Value(_), Flat::Value(_)));
                let tree = Expr::new(ExprKind::Subscript {
                    base: Box::new(b.into_expr()),
                    index: Box::new(i.into_expr()),
                });
                if constant {
                    Flat::Value(self.compute(&tree))
                } else {
                    Flat::Tree(tree)
                }
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => match self.flatten(cond, d) {
                // A number chooses as a boolean, nonzero true (HTCondor's `?:`).
                Flat::Value(Value::Bool(true)) => self.flatten(then, d),
                Flat::Value(Value::Bool(false)) => self.flatten(otherwise, d),
                Flat::Value(Value::Int(i)) => {
                    self.flatten(if i != 0 { then } else { otherwise }, d)
                }
                Flat::Value(Value::Real(r)) => {
                    self.flatten(if r != 0.0 { then } else { otherwise }, d)
                }
                Flat::Value(v) => Flat::Value(self.compute(&Expr::new(ExprKind::Conditional {
                    cond: Box::new(value_to_expr(&v)),
                    then: then.clone(),
                    otherwise: otherwise.clone(),
                }))),
                Flat::Tree(c) => Flat::Tree(Expr::new(ExprKind::Conditional {
                    cond: Box::new(c),
                    then: boxed(self.flatten(then, d)),
                    otherwise: boxed(self.flatten(otherwise, d)),
                })),
            },
            ExprKind::Elvis { value, fallback } => {
                let v = self.flatten(value, d);
                let f = self.flatten(fallback, d);
                match (v, f) {
                    (Flat::Value(v), Flat::Value(f)) => {
                        Flat::Value(self.compute(&Expr::new(ExprKind::Elvis {
                            value: Box::new(value_to_expr(&v)),
                            fallback: Box::new(value_to_expr(&f)),
                        })))
                    }
                    (Flat::Value(v), _) if !v.is_undefined() => Flat::Value(v),
                    (v, f) => Flat::Tree(Expr::new(ExprKind::Elvis {
                        value: boxed(v),
                        fallback: boxed(f),
                    })),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.flatten(lhs, d);
                let r = self.flatten(rhs, d);
                self.binary(*op, l, r)
            }
        }
    }

    fn binary(&self, op: BinaryOp, l: Flat, r: Flat) -> Flat {
        let tree = |op, l: Expr, r: Expr| {
            Expr::new(ExprKind::Binary {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            })
        };
        match (l, r) {
            (Flat::Value(a), Flat::Value(b)) => {
                Flat::Value(self.compute(&tree(op, value_to_expr(&a), value_to_expr(&b))))
            }
            // HTCondor's flattening of the logical operators: a side that
            // decides the answer decides it, a side that does not drops out
            // of `&&`, and a constant goes first.
            (Flat::Value(Value::Bool(false)), _) | (_, Flat::Value(Value::Bool(false)))
                if op == BinaryOp::And =>
            {
                Flat::Value(Value::Bool(false))
            }
            (Flat::Value(Value::Bool(true)), _) | (_, Flat::Value(Value::Bool(true)))
                if op == BinaryOp::Or =>
            {
                Flat::Value(Value::Bool(true))
            }
            (Flat::Value(Value::Bool(true)), Flat::Tree(t))
            | (Flat::Tree(t), Flat::Value(Value::Bool(true)))
                if op == BinaryOp::And =>
            {
                Flat::Tree(t)
            }
            (Flat::Tree(t), Flat::Value(v)) if op == BinaryOp::Or => {
                Flat::Tree(tree(op, value_to_expr(&v), t))
            }
            // `+` and `*` gather their constants at the front.
            (l, r) if matches!(op, BinaryOp::Add | BinaryOp::Multiply) => {
                let split = |f: Flat| -> (Option<Value>, Option<Expr>) {
                    match f {
                        Flat::Value(v) => (Some(v), None),
                        Flat::Tree(t) => match (t.span, t.into_kind()) {
                            (_, ExprKind::Binary { op: o, lhs, rhs })
                                if o == op && is_constant(&lhs) =>
                            {
                                (Some(self.compute(&lhs)), Some(*rhs))
                            }
                            (span, kind) => (None, Some(Expr { kind, span })),
                        },
                    }
                };
                let ((lc, lt), (rc, rt)) = (split(l), split(r));
                let constant = match (lc, rc) {
                    (Some(a), Some(b)) => {
                        Some(self.compute(&tree(op, value_to_expr(&a), value_to_expr(&b))))
                    }
                    (a, b) => a.or(b),
                };
                let rest = match (lt, rt) {
                    (Some(a), Some(b)) => tree(op, a, b),
                    (Some(t), None) | (None, Some(t)) => t,
                    (None, None) => unreachable!("two values are computed above"),
                };
                match constant {
                    Some(c) => Flat::Tree(tree(op, value_to_expr(&c), rest)),
                    None => Flat::Tree(rest),
                }
            }
            (l, r) => Flat::Tree(tree(op, l.into_expr(), r.into_expr())),
        }
    }
}

/// Whether a tree is a literal (or a list of literals).
fn is_constant(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Literal(_) => true,
        ExprKind::List(items) => items.iter().all(is_constant),
        ExprKind::Call { args, name } => {
            (name.eq_ignore_case("absTime") || name.eq_ignore_case("relTime"))
                && args.iter().all(is_constant)
        }
        ExprKind::Unary {
            op: UnaryOp::Minus,
            operand,
        } => is_constant(operand),
        _ => false,
    }
}
