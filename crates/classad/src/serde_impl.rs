//! serde support (the `serde` feature): [`ClassAd`] as a map in
//! HTCondor's JSON shape, and [`to_ad`] / [`from_ad`] for any serde type.
//!
//! An attribute that is not a literal, a list or an ad is the string
//! `/Expr(text)/`: what HTCondor's `"\/Expr(text)\/"` is once a JSON
//! reader has decoded it, so `serde_json` reads HTCondor's JSON with its
//! expressions. `serde_json` writes the slashes unescaped (`"/Expr(x)/"`),
//! which HTCondor reads as a plain string: for HTCondor's exact text use
//! [`ClassAd::to_json`].

use crate::classad::{ClassAd, FromValue};
use crate::{Error, Value};
use classad_syntax::{AdExpr, Expr, ExprKind, Literal, Name, unparse};
use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

fn expr_string(expr: &Expr) -> String {
    format!("/Expr({})/", unparse(expr))
}

/// An expression as serde data.
struct ExprData<'a>(&'a Expr);

impl Serialize for ExprData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0.kind {
            ExprKind::Literal(lit) => match lit {
                Literal::Integer(i) => s.serialize_i64(*i),
                Literal::Real(r) if r.is_finite() => s.serialize_f64(*r),
                Literal::String(bytes) => match std::str::from_utf8(bytes) {
                    Ok(text) => s.serialize_str(text),
                    Err(_) => s.serialize_str(&expr_string(self.0)),
                },
                Literal::Boolean(b) => s.serialize_bool(*b),
                Literal::Undefined => s.serialize_none(),
                _ => s.serialize_str(&expr_string(self.0)),
            },
            ExprKind::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&ExprData(item))?;
                }
                seq.end()
            }
            ExprKind::Ad(ad) => serialize_ad(ad, s),
            _ => s.serialize_str(&expr_string(self.0)),
        }
    }
}

fn serialize_ad<S: Serializer>(ad: &AdExpr, s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(ad.len()))?;
    for (name, expr) in &ad.attributes {
        map.serialize_entry(&*name.to_string_lossy(), &ExprData(expr))?;
    }
    map.end()
}

/// A map of attribute names to values; expressions as `/Expr(text)/`.
///
/// ```
/// let ad: classad::ClassAd = "[a = 1; b = a + 1; l = {true, undefined}]".parse().unwrap();
/// assert_eq!(
///     serde_json::to_string(&ad).unwrap(),
///     r#"{"a":1,"b":"/Expr(a + 1)/","l":[true,null]}"#
/// );
/// ```
impl Serialize for ClassAd {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_ad(self.as_ast(), s)
    }
}

/// Builds expressions from serde data.
struct ExprVisitor;

fn literal(l: Literal) -> Expr {
    Expr::literal(l)
}

fn from_text<E: de::Error>(text: &str) -> Result<Expr, E> {
    match text
        .strip_prefix("/Expr(")
        .and_then(|rest| rest.strip_suffix(")/"))
    {
        Some(body) => classad_syntax::parse_expression(body).map_err(E::custom),
        None => Ok(literal(Literal::String(text.as_bytes().into()))),
    }
}

impl<'de> Visitor<'de> for ExprVisitor {
    type Value = Expr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ClassAd value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Expr, E> {
        Ok(literal(Literal::Boolean(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Expr, E> {
        Ok(literal(Literal::Integer(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Expr, E> {
        Ok(literal(match i64::try_from(v) {
            Ok(i) => Literal::Integer(i),
            Err(_) => Literal::Real(v as f64),
        }))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Expr, E> {
        Ok(literal(Literal::Real(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Expr, E> {
        from_text(v)
    }
    fn visit_unit<E>(self) -> Result<Expr, E> {
        Ok(literal(Literal::Undefined))
    }
    fn visit_none<E>(self) -> Result<Expr, E> {
        Ok(literal(Literal::Undefined))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Expr, D::Error> {
        d.deserialize_any(ExprVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Expr, A::Error> {
        let mut items = Vec::new();
        while let Some(ExprSeed(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Expr::new(ExprKind::List(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expr, A::Error> {
        let mut ad = AdExpr::new();
        while let Some((name, ExprSeed(value))) = map.next_entry::<String, ExprSeed>()? {
            ad.insert(Name::new(&name), value);
        }
        Ok(Expr::new(ExprKind::Ad(Box::new(ad))))
    }
}

struct ExprSeed(Expr);

impl<'de> Deserialize<'de> for ExprSeed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ExprSeed, D::Error> {
        d.deserialize_any(ExprVisitor).map(ExprSeed)
    }
}

/// Reads a map (HTCondor's JSON ad once decoded); `/Expr(text)/` strings
/// are expressions.
///
/// ```
/// let ad: classad::ClassAd =
///     serde_json::from_str(r#"{"a": 1, "b": "\/Expr(a + 1)\/"}"#).unwrap();
/// assert_eq!(ad.get::<i64>("b").unwrap(), 2);
/// ```
impl<'de> Deserialize<'de> for ClassAd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ClassAd, D::Error> {
        let expr = d.deserialize_map(ExprVisitor)?;
        match expr.into_kind() {
            ExprKind::Ad(ad) => Ok(ClassAd::from_ast(*ad)),
            _ => Err(de::Error::custom("expected a map of attributes")),
        }
    }
}

fn json_to_expr(json: serde_json::Value) -> Result<Expr, Error> {
    Ok(match json {
        serde_json::Value::Null => literal(Literal::Undefined),
        serde_json::Value::Bool(b) => literal(Literal::Boolean(b)),
        serde_json::Value::Number(n) => literal(match n.as_i64() {
            Some(i) => Literal::Integer(i),
            None => Literal::Real(n.as_f64().unwrap_or(f64::NAN)),
        }),
        serde_json::Value::String(s) => {
            from_text::<serde_json::Error>(&s).map_err(|e| Error::Other(e.to_string()))?
        }
        serde_json::Value::Array(items) => Expr::new(ExprKind::List(
            items
                .into_iter()
                .map(json_to_expr)
                .collect::<Result<_, _>>()?,
        )),
        serde_json::Value::Object(map) => {
            let mut ad = AdExpr::new();
            for (name, value) in map {
                ad.insert(Name::new(&name), json_to_expr(value)?);
            }
            Expr::new(ExprKind::Ad(Box::new(ad)))
        }
    })
}

fn value_to_json(value: Value, depth: usize) -> serde_json::Value {
    use serde_json::Value as J;
    if depth > 100 {
        return J::Null;
    }
    match value {
        Value::Undefined | Value::Error => J::Null,
        Value::Bool(b) => J::Bool(b),
        Value::Int(i) => J::from(i),
        Value::Real(r) | Value::RelTime(r) | Value::RelTimeLiteral(r) => J::from(r),
        Value::AbsTime(t) => J::from(t.secs),
        Value::Str(s) => J::String(String::from_utf8_lossy(&s).into_owned()),
        Value::List(items) | Value::SharedList(items) => J::Array(
            items
                .iter()
                .map(|v| value_to_json(v.clone(), depth + 1))
                .collect(),
        ),
        v @ Value::LazyList(_) => J::String(v.to_string()),
        v @ Value::Ad(_) => match ClassAd::from_value(v) {
            Ok(ad) => ad_to_json(&ad, depth + 1),
            Err(_) => J::Null,
        },
    }
}

fn ad_to_json(ad: &ClassAd, depth: usize) -> serde_json::Value {
    serde_json::Value::Object(
        ad.iter()
            .map(|(name, _)| {
                (
                    name.to_string(),
                    value_to_json(ad.evaluate(name.as_bytes()), depth),
                )
            })
            .collect(),
    )
}

/// An ad of a serde type: its fields become attributes (named as serde
/// names them, so `#[serde(rename = "...")]` applies); numbers, strings,
/// booleans, sequences and nested structs become literals, lists and ads,
/// `None` is UNDEFINED, and a string `/Expr(text)/` is the expression.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Job {
///     #[serde(rename = "Owner")]
///     owner: String,
///     #[serde(rename = "RequestMemory")]
///     memory: i64,
///     #[serde(rename = "Requirements")]
///     requirements: String,
/// }
/// let job = Job {
///     owner: "alice".into(),
///     memory: 2048,
///     requirements: "/Expr(TARGET.Memory >= RequestMemory)/".into(),
/// };
/// let ad = classad::to_ad(&job).unwrap();
/// assert_eq!(ad.to_string(),
///     r#"[ Owner = "alice"; RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory ]"#);
/// ```
pub fn to_ad<T: Serialize + ?Sized>(value: &T) -> Result<ClassAd, Error> {
    let json = serde_json::to_value(value).map_err(|e| Error::Other(e.to_string()))?;
    match json_to_expr(json)?.into_kind() {
        ExprKind::Ad(ad) => Ok(ClassAd::from_ast(*ad)),
        _ => Err(Error::Other(
            "only a struct or a map becomes an ad".to_string(),
        )),
    }
}

/// A serde type from an ad: each attribute is evaluated in the ad and its
/// value given to the field of the same name (as serde names it; ClassAd
/// names ignore case, serde's do not). UNDEFINED and ERROR are `null`
/// (`None` for an `Option` field), absolute times their seconds since the
/// epoch, relative times their seconds.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Slot {
///     #[serde(rename = "Memory")]
///     memory: i64,
///     #[serde(rename = "Cpus")]
///     cpus: Option<i64>,
/// }
/// let ad: classad::ClassAd = "[Memory = 1024 * 4]".parse().unwrap();
/// assert_eq!(classad::from_ad::<Slot>(&ad).unwrap(), Slot { memory: 4096, cpus: None });
/// ```
pub fn from_ad<T: DeserializeOwned>(ad: &ClassAd) -> Result<T, Error> {
    serde_json::from_value(ad_to_json(ad, 0)).map_err(|e| Error::Other(e.to_string()))
}
