//! Operations over many ads at once, at the engine's speed and with the
//! GIL released: `match` (a negotiation cycle, or every matching pair),
//! `analyze` (why a job matches what it matches) and `query` (a
//! constraint and a projection, as `condor_q -af`).

use crate::ClassAdException;
use crate::ad::ClassAd;
use crate::convert::value_to_py;
use crate::engine;
use crate::expr::{ExprTree, parse_expression};
use classad::{AdRef, Value};
use classad_matchmaker::{Options, Policy, Pool};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

/// The compiled ads of a sequence of `ClassAd`s.
fn compiled_ads(ads: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<AdRef>> {
    let mut out = Vec::new();
    for (i, ad) in ads.try_iter()?.enumerate() {
        let ad = ad?;
        let ad = ad
            .cast::<ClassAd>()
            .map_err(|_| PyTypeError::new_err(format!("{what}[{i}] is not a ClassAd")))?;
        out.push(ad.borrow().compiled()?);
    }
    Ok(out)
}

fn pool_of(
    jobs: Vec<AdRef>,
    slots: Vec<AdRef>,
    options: Options,
    policy: Option<Policy>,
) -> PyResult<Pool> {
    let mut pool = Pool::new(options);
    if let Some(policy) = policy {
        pool.set_policy(policy);
    }
    for (i, job) in jobs.into_iter().enumerate() {
        pool.add_job(job)
            .map_err(|e| ClassAdException::new_err(format!("jobs[{i}]: {e}")))?;
    }
    for (i, slot) in slots.into_iter().enumerate() {
        pool.add_slot(slot)
            .map_err(|e| ClassAdException::new_err(format!("slots[{i}]: {e}")))?;
    }
    Ok(pool)
}

fn threads_or_default(threads: Option<usize>) -> usize {
    threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

/// Matches jobs against slots with the negotiator's engine.
///
/// Negotiation (the default): one cycle over the unclaimed slots, in the
/// negotiator's order (`JobPrio`, then `ClusterId`, `ProcId`); gives, for
/// each job in the order given, the index of the slot it got or `None`.
/// `all_pairs=True`: every symmetric match, whatever the slots' State, as
/// a list of `(job_index, slot_index)`. Jobs need an integer `ClusterId`,
/// slots a string `Name`. `threads` defaults to the machine's cores;
/// `strict` is `STRICT_CLASSAD_EVALUATION`; `policy` is the text of
/// `NEGOTIATOR_PRE_JOB_RANK = ...` / `NEGOTIATOR_POST_JOB_RANK = ...` lines.
#[pyfunction]
#[pyo3(name = "match", signature = (jobs, slots, *, all_pairs = false, threads = None, strict = false, policy = None))]
pub(crate) fn match_ads<'py>(
    py: Python<'py>,
    jobs: &Bound<'py, PyAny>,
    slots: &Bound<'py, PyAny>,
    all_pairs: bool,
    threads: Option<usize>,
    strict: bool,
    policy: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let jobs = compiled_ads(jobs, "jobs")?;
    let slots = compiled_ads(slots, "slots")?;
    let policy = policy
        .map(Policy::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("policy: {e}")))?;
    let options = Options {
        strict,
        threads: threads_or_default(threads),
        give_up_after_exhausted: None,
    };
    let job_count = jobs.len();
    let pool = pool_of(jobs, slots, options, policy)?;
    if all_pairs {
        let pairs = py
            .detach(|| {
                pool.all_pairs().map(|result| {
                    let mut pairs = Vec::with_capacity(result.stats.matches as usize);
                    for j in 0..job_count {
                        for &(s, _) in result.of_job(j) {
                            pairs.push((j, s as usize));
                        }
                    }
                    pairs
                })
            })
            .map_err(ClassAdException::new_err)?;
        let list = PyList::empty(py);
        for pair in pairs {
            list.append(PyTuple::new(py, [pair.0, pair.1])?)?;
        }
        return Ok(list);
    }
    let assignments = py
        .detach(|| pool.negotiate())
        .map_err(ClassAdException::new_err)?
        .assignments;
    let mut slot_of_job: Vec<Option<usize>> = vec![None; job_count];
    for assignment in assignments {
        if let Some(slot) = slot_of_job.get_mut(assignment.job) {
            *slot = assignment.slot;
        }
    }
    PyList::new(py, slot_of_job)
}

/// Why `job` matches what it matches among `slots`, as `classad analyze`
/// and `condor_q -better-analyze` count it: a dict of `slots`, `claimed`,
/// `rejected_by_job`, `rejecting_job`, `matching`, `available`,
/// `job_clauses` and `slot_clauses` (lists of `(clause, slots rejected)`)
/// and `suggestion` (`(clause, slots it would open)` or `None`).
#[pyfunction]
pub(crate) fn analyze<'py>(
    py: Python<'py>,
    job: &Bound<'py, PyAny>,
    slots: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let job = job
        .cast::<ClassAd>()
        .map_err(|_| PyTypeError::new_err("job must be a ClassAd"))?
        .borrow()
        .compiled()?;
    let slots = compiled_ads(slots, "slots")?;
    let pool = pool_of(vec![job], slots, Options::default(), None)?;
    let analysis = py.detach(|| pool.analyze(0));
    let out = PyDict::new(py);
    out.set_item("job", analysis.job.to_string())?;
    out.set_item("slots", analysis.slots)?;
    out.set_item("claimed", analysis.claimed)?;
    out.set_item("rejected_by_job", analysis.rejected_by_job)?;
    out.set_item("rejecting_job", analysis.rejecting_job)?;
    out.set_item("matching", analysis.matching)?;
    out.set_item("available", analysis.available)?;
    let clauses = |counts: &[classad_matchmaker::ClauseCount]| -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for c in counts {
            list.append((c.clause.as_str(), c.rejects))?;
        }
        Ok(list)
    };
    out.set_item("job_clauses", clauses(&analysis.job_clauses)?)?;
    out.set_item("slot_clauses", clauses(&analysis.slot_clauses)?)?;
    match &analysis.suggestion {
        Some((clause, opened)) => out.set_item("suggestion", (clause.as_str(), *opened))?,
        None => out.set_item("suggestion", py.None())?,
    }
    Ok(out)
}

/// An expression given as text or as an `ExprTree`.
fn expression(value: &Bound<'_, PyAny>) -> PyResult<ExprTree> {
    if let Ok(tree) = value.cast::<ExprTree>() {
        return Ok(ExprTree::new(tree.get().expr().clone()));
    }
    let text = value
        .cast::<PyString>()
        .map_err(|_| PyTypeError::new_err("expected an expression (str or ExprTree)"))?;
    Ok(ExprTree::new(parse_expression(&text.to_cow()?)?))
}

/// The ads for which `constraint` is true (every ad when it is `None`),
/// each projected on `projection`, as `condor_q -af` does: one row per ad,
/// the value of each expression (an attribute name, or any expression) in
/// that ad, `Value.Undefined` where an attribute is missing. With no
/// projection, the matching ads themselves.
#[pyfunction]
#[pyo3(signature = (ads, constraint = None, projection = None))]
pub(crate) fn query<'py>(
    py: Python<'py>,
    ads: &Bound<'py, PyAny>,
    constraint: Option<&Bound<'py, PyAny>>,
    projection: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let constraint = constraint
        .filter(|c| !c.is_none())
        .map(expression)
        .transpose()?
        .map(|c| c.program())
        .transpose()?;
    let columns = match projection.filter(|p| !p.is_none()) {
        Some(p) if p.is_instance_of::<PyString>() => vec![expression(p)?.program()?],
        Some(p) => p
            .try_iter()?
            .map(|column| expression(&column?)?.program())
            .collect::<PyResult<Vec<_>>>()?,
        None => Vec::new(),
    };
    let mut handles = Vec::new();
    let mut compiled = Vec::new();
    for (i, ad) in ads.try_iter()?.enumerate() {
        let ad = ad?;
        let cast = ad
            .cast::<ClassAd>()
            .map_err(|_| PyTypeError::new_err(format!("ads[{i}] is not a ClassAd")))?;
        compiled.push(cast.borrow().compiled()?);
        handles.push(ad);
    }
    let project = projection.is_some_and(|p| !p.is_none());
    let rows: Vec<(usize, Vec<Value>)> = py.detach(|| {
        engine::with_vm(|vm| {
            let mut rows = Vec::new();
            for (i, ad) in compiled.iter().enumerate() {
                if let Some(constraint) = &constraint {
                    let keep = match vm.evaluate(constraint, ad) {
                        Value::Bool(b) => b,
                        Value::Int(n) => n != 0,
                        Value::Real(r) => r != 0.0,
                        _ => false,
                    };
                    if !keep {
                        continue;
                    }
                }
                let values = columns.iter().map(|c| vm.evaluate(c, ad)).collect();
                rows.push((i, values));
            }
            rows
        })
    });
    let out = PyList::empty(py);
    for (i, values) in rows {
        if project {
            let row = values
                .iter()
                .map(|v| value_to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            out.append(PyList::new(py, row)?)?;
        } else {
            out.append(&handles[i])?;
        }
    }
    Ok(out)
}
