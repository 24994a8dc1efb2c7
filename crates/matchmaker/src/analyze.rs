//! Why a job matches what it matches, as `condor_q -better-analyze` tells
//! it, with a suggestion of which clause to relax.

use crate::engine::given_up;
use crate::refs;
use crate::{JobId, Pool, truthy};
use classad::syntax::Expr;
use classad::vm::{AdRef, Program, Symbol, Vm};
use std::collections::HashMap;

/// How many slots one clause rejects.
#[derive(Clone, Debug)]
pub struct ClauseCount {
    /// The clause, as written.
    pub clause: String,
    /// Slots for which it is not true.
    pub rejects: usize,
}

/// The analysis of one job against every slot of the pool.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The job.
    pub job: JobId,
    /// Slots in the pool.
    pub slots: usize,
    /// Slots whose State is not `"Unclaimed"`.
    pub claimed: usize,
    /// Slots the job's Requirements reject.
    pub rejected_by_job: usize,
    /// Slots whose Requirements reject the job.
    pub rejecting_job: usize,
    /// Slots matching both ways, whatever their State.
    pub matching: usize,
    /// Unclaimed slots matching both ways.
    pub available: usize,
    /// Per top-level clause of the job's Requirements, the slots it alone rejects.
    pub job_clauses: Vec<ClauseCount>,
    /// Per clause of the slots' Requirements (top-level, and the clauses of
    /// an attribute such as `START` that a clause names), how many slots
    /// reject the job by it.
    pub slot_clauses: Vec<ClauseCount>,
    /// The job clause whose removal would open the most unclaimed slots,
    /// and how many.
    pub suggestion: Option<(String, usize)>,
}

fn clauses(ad: &AdRef, expand: bool) -> Vec<Expr> {
    let Some(requirements) = ad.body.get("Requirements") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for part in refs::conjuncts(&requirements.source) {
        if expand
            && let Some((name, _)) = refs::own_reference(part)
            && let Some(attribute) = ad.body.get(&name)
        {
            let inner = refs::conjuncts(&attribute.source);
            if inner.len() > 1 {
                out.extend(inner.into_iter().cloned());
                continue;
            }
        }
        out.push(part.clone());
    }
    out
}

pub(crate) fn analyze(pool: &Pool, j: usize) -> Analysis {
    let job = &pool.jobs()[j];
    let mut vm = Vm::new(classad::Options {
        strict: pool.options().strict,
        ..Default::default()
    });
    let requirements = Symbol::new("Requirements");
    let mut programs: HashMap<String, Option<Program>> = HashMap::new();
    fn compile(programs: &mut HashMap<String, Option<Program>>, expr: &Expr) -> (String, bool) {
        let text = classad::syntax::unparse(expr);
        let ok = programs
            .entry(text.clone())
            .or_insert_with(|| classad::compile(expr).ok())
            .is_some();
        (text, ok)
    }
    let job_parts: Vec<(String, bool)> = clauses(&job.ad, false)
        .iter()
        .map(|e| compile(&mut programs, e))
        .collect();
    let mut job_rejects = vec![0usize; job_parts.len()];
    let mut slot_rejects: Vec<(String, usize)> = Vec::new();
    let mut slot_index: HashMap<String, usize> = HashMap::new();
    let mut opens = vec![0usize; job_parts.len()];
    let mut a = Analysis {
        job: job.id,
        slots: pool.slots().len(),
        claimed: 0,
        rejected_by_job: 0,
        rejecting_job: 0,
        matching: 0,
        available: 0,
        job_clauses: Vec::new(),
        slot_clauses: Vec::new(),
        suggestion: None,
    };
    let mut values = vec![false; job_parts.len()];
    // Under `Options::give_up_after_exhausted`, the job's Requirements and
    // each of its clauses, like a clause in a negotiation, are ERROR
    // against the remaining slots once they have used up the VM's budget
    // that many times.
    let limit = pool.options().give_up_after_exhausted;
    let mut job_exhausted = 0u8;
    let mut part_exhausted = vec![0u8; job_parts.len()];
    for slot in pool.slots() {
        if !slot.unclaimed {
            a.claimed += 1;
        }
        let job_ok = !given_up(limit, job_exhausted) && {
            let ok = truthy(&vm.evaluate_attribute(&job.ad, &requirements, Some(&slot.ad)));
            job_exhausted = job_exhausted.saturating_add(u8::from(vm.exhausted()));
            ok
        };
        let slot_ok = truthy(&vm.evaluate_attribute(&slot.ad, &requirements, Some(&job.ad)));
        a.rejected_by_job += usize::from(!job_ok);
        a.rejecting_job += usize::from(!slot_ok);
        if job_ok && slot_ok {
            a.matching += 1;
            a.available += usize::from(slot.unclaimed);
        }
        for (k, (text, ok)) in job_parts.iter().enumerate() {
            values[k] = *ok
                && !given_up(limit, part_exhausted[k])
                && programs[text].as_ref().is_some_and(|p| {
                    let value = truthy(&vm.evaluate_in_match(p, &job.ad, &slot.ad));
                    part_exhausted[k] = part_exhausted[k].saturating_add(u8::from(vm.exhausted()));
                    value
                });
            job_rejects[k] += usize::from(!values[k]);
        }
        let failing: Vec<usize> = (0..values.len()).filter(|&k| !values[k]).collect();
        if slot_ok && slot.unclaimed && failing.len() == 1 {
            opens[failing[0]] += 1;
        }
        if !slot_ok {
            for part in clauses(&slot.ad, true) {
                let (text, ok) = compile(&mut programs, &part);
                let value = ok
                    && programs[&text]
                        .as_ref()
                        .is_some_and(|p| truthy(&vm.evaluate_in_match(p, &slot.ad, &job.ad)));
                if !value {
                    let next = slot_rejects.len();
                    let k = *slot_index.entry(text.clone()).or_insert(next);
                    if k == next {
                        slot_rejects.push((text, 0));
                    }
                    slot_rejects[k].1 += 1;
                }
            }
        }
    }
    a.job_clauses = job_parts
        .iter()
        .zip(&job_rejects)
        .map(|((text, _), &rejects)| ClauseCount {
            clause: text.clone(),
            rejects,
        })
        .collect();
    slot_rejects.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
    a.slot_clauses = slot_rejects
        .into_iter()
        .map(|(clause, rejects)| ClauseCount { clause, rejects })
        .collect();
    if let Some((k, &n)) = opens
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(&x.0)))
        && n > 0
    {
        a.suggestion = Some((job_parts[k].0.clone(), n));
    }
    a
}
