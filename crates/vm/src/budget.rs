//! The size of a value as HTCondor would hold it: every copy of a string,
//! list or ad counted in full, however much this implementation shares.
//! Bounds what one evaluation may hand back or turn into text (a list of a
//! million references to one long string is small here and enormous once
//! printed).

use crate::interp::VALUE_BYTES;
use crate::value::Value;
use std::collections::HashMap;

/// The size of `value` in bytes, counting shared parts at every use; the
/// walk stops once the count passes `limit` (the result is then above
/// `limit`), so it visits at most about `limit / VALUE_BYTES` values.
/// Strings count their bytes, other scalars [`VALUE_BYTES`], lists their
/// elements plus [`VALUE_BYTES`], ads the length of their text.
pub fn weight(value: &Value, limit: u64) -> u64 {
    let mut walk = Walk {
        total: 0,
        limit,
        ads: HashMap::new(),
    };
    walk.add(value);
    walk.total
}

struct Walk {
    total: u64,
    limit: u64,
    /// The text length of each ad body met, by address: an ad is printed
    /// from its expressions, so each body is measured once.
    ads: HashMap<usize, u64>,
}

impl Walk {
    fn add(&mut self, value: &Value) {
        if self.total > self.limit {
            return;
        }
        self.total = self.total.saturating_add(VALUE_BYTES);
        match value {
            Value::Str(s) => self.total = self.total.saturating_add(s.len() as u64),
            Value::List(items) => {
                for item in items.iter() {
                    self.add(item);
                    if self.total > self.limit {
                        return;
                    }
                }
            }
            Value::LazyList(list) => {
                self.total = self
                    .total
                    .saturating_add(VALUE_BYTES * list.items.len() as u64)
            }
            Value::Ad(ad) => {
                let key = std::sync::Arc::as_ptr(&ad.body) as usize;
                let size = *self
                    .ads
                    .entry(key)
                    .or_insert_with(|| crate::print::value_to_string(value).len() as u64);
                self.total = self.total.saturating_add(size);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn shared_parts_count_at_every_use() {
        let long = Value::string(vec![b'x'; 1000]);
        let list = Value::List(Arc::from(vec![long.clone(); 10]));
        let outer = Value::List(Arc::from(vec![list; 10]));
        assert!(weight(&outer, u64::MAX) >= 100 * 1000);
    }

    #[test]
    fn the_walk_stops_past_the_limit() {
        let list = Value::List(Arc::from(vec![Value::Int(1); 1000]));
        let mut nested = list;
        for _ in 0..20 {
            nested = Value::List(Arc::from(vec![nested; 1000]));
        }
        // 1000^21 values: only counting past the limit ends this.
        assert!(weight(&nested, 1 << 20) > 1 << 20);
    }
}
