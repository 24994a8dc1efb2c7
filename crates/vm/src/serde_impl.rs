//! serde for [`Value`] (the `serde` feature): the shape HTCondor's JSON
//! gives a value. Integers, reals, strings, booleans and lists are
//! themselves; UNDEFINED is `null` (unit); an ad is a map of its
//! attributes' expressions; ERROR, times, non-finite reals, strings that
//! are not UTF-8 and expressions are the string `/Expr(text)/` (HTCondor's
//! `"\/Expr(text)\/"` once decoded).
//!
//! Reading gives back scalars, lists, UNDEFINED and `/Expr(error)/`; an ad
//! or another expression needs compiling, which is the facade's work
//! (`classad::ClassAd` reads maps).

use crate::value::Value;
use classad_syntax::{Expr, ExprKind, Literal, unparse};
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

fn expr_string(text: &str) -> String {
    format!("/Expr({text})/")
}

/// A source tree in the same shape.
struct Tree<'a>(&'a Expr);

impl Serialize for Tree<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0.kind {
            ExprKind::Literal(Literal::Integer(i)) => s.serialize_i64(*i),
            ExprKind::Literal(Literal::Real(r)) if r.is_finite() => s.serialize_f64(*r),
            ExprKind::Literal(Literal::Boolean(b)) => s.serialize_bool(*b),
            ExprKind::Literal(Literal::Undefined) => s.serialize_none(),
            ExprKind::Literal(Literal::String(bytes)) if std::str::from_utf8(bytes).is_ok() => {
                s.serialize_str(std::str::from_utf8(bytes).unwrap_or_default())
            }
            ExprKind::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Tree(item))?;
                }
                seq.end()
            }
            ExprKind::Ad(ad) => {
                let mut map = s.serialize_map(Some(ad.len()))?;
                for (name, expr) in &ad.attributes {
                    map.serialize_entry(&*name.to_string_lossy(), &Tree(expr))?;
                }
                map.end()
            }
            _ => s.serialize_str(&expr_string(&unparse(self.0))),
        }
    }
}

/// ```
/// use classad_vm::Value;
/// let list = Value::List(vec![Value::Int(1), Value::string("x"), Value::Undefined].into());
/// assert_eq!(serde_json::to_string(&list).unwrap(), r#"[1,"x",null]"#);
/// assert_eq!(serde_json::to_string(&Value::Error).unwrap(), r#""/Expr(error)/""#);
/// let selected = Value::List(vec![Value::RelTimeLiteral(61.0)].into());
/// assert_eq!(serde_json::to_string(&selected).unwrap(), "[61.0]");
/// ```
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Undefined => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            // A relative time's literal is written as the real it
            // evaluates to, as HTCondor's JSON writer does.
            Value::Real(r) | Value::RelTimeLiteral(r) if r.is_finite() => s.serialize_f64(*r),
            Value::Str(bytes) if std::str::from_utf8(bytes).is_ok() => {
                s.serialize_str(std::str::from_utf8(bytes).unwrap_or_default())
            }
            Value::List(items) | Value::SharedList(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::LazyList(list) => {
                let mut seq = s.serialize_seq(Some(list.items.len()))?;
                for item in list.items.iter() {
                    seq.serialize_element(&Tree(&item.source))?;
                }
                seq.end()
            }
            Value::Ad(ad) => {
                let attributes = ad.body.attributes();
                let mut map = s.serialize_map(Some(attributes.len()))?;
                for attribute in attributes {
                    map.serialize_entry(
                        &*attribute.name.to_string_lossy(),
                        &Tree(&attribute.source),
                    )?;
                }
                map.end()
            }
            other => s.serialize_str(&expr_string(&crate::print::value_to_string(other))),
        }
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ClassAd value (a map is an ad: read it as a classad::ClassAd)")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Real(v as f64), Value::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Real(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        match v.strip_prefix("/Expr(").and_then(|r| r.strip_suffix(")/")) {
            None => Ok(Value::string(v)),
            Some(body) if body.trim().eq_ignore_ascii_case("error") => Ok(Value::Error),
            Some(body) if body.trim().eq_ignore_ascii_case("undefined") => Ok(Value::Undefined),
            Some(body) => Err(E::custom(format!(
                "`{body}` is an expression: read it with classad::ClassAd"
            ))),
        }
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Undefined)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Undefined)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Value::List(items.into()))
    }
}

/// ```
/// use classad_vm::Value;
/// let v: Value = serde_json::from_str(r#"[1, 2.5, "x", true, null, "\/Expr(error)\/"]"#).unwrap();
/// assert_eq!(v.to_string(), r#"{ 1,2.500000000000000E+00,"x",true,undefined,error }"#);
/// ```
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}
