//! Reading ads from text and files: the native halves of `parseAds`,
//! `parseOne`, `parseNext` (the Python package handles file objects) and
//! `readAds`.

use crate::ClassAdException;
use crate::ad::{ClassAd, in_htcondor_order};
use crate::engine;
use classad::syntax::{AdError, AdExpr, AdReader, Format, ParseOptions, Parser};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The format a `ParserType` value names; `None` to find it from the text
/// (`Auto`, `FileAuto`).
fn format_of(parser: i64) -> PyResult<Option<Format>> {
    Ok(match parser {
        -1 | 4 => None,
        0 => Some(Format::Old),
        1 => Some(Format::Xml),
        2 => Some(Format::Json),
        3 => Some(Format::New),
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{other} is not a ParserType"
            )));
        }
    })
}

/// The text of an error reading an ad, with where it is.
pub(crate) fn describe(error: &AdError, origin: &str) -> String {
    format!(
        "{origin}: ad {} (from line {}): line {}, column {}: {}",
        error.ordinal, error.first_line, error.error.line, error.error.column, error.error.message
    )
}

/// Reads the ads of `text` in `format` (found from the text when `None`):
/// each good ad, up to the first bad one, and that one's error.
fn read_text(text: &[u8], format: Option<Format>) -> (Vec<AdExpr>, Option<AdError>) {
    let results = match format {
        None => {
            classad::syntax::read_ads_parallel_map(text, ParseOptions::default(), &|ad| {
                in_htcondor_order(ad)
            })
            .ads
        }
        Some(format) => {
            let parser = Parser::new(ParseOptions::default());
            AdReader::new(text, format, &parser)
                .map(|ad| ad.map(in_htcondor_order))
                .collect()
        }
    };
    let mut ads = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(ad) => ads.push(ad),
            Err(e) => return (ads, Some(e)),
        }
    }
    (ads, None)
}

fn into_list<'py>(py: Python<'py>, ads: Vec<AdExpr>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for ad in ads {
        list.append(Bound::new(py, ClassAd::from_ast(ad))?)?;
    }
    Ok(list)
}

/// The ads of a string, as `classad2.parseAds` reads them: up to the first
/// ad that cannot be read, whose error (with its position) becomes
/// `lastError()`.
#[pyfunction]
#[pyo3(name = "_parse_ads", signature = (text, parser = -1))]
pub(crate) fn parse_ads_text<'py>(
    py: Python<'py>,
    text: &str,
    parser: i64,
) -> PyResult<Bound<'py, PyList>> {
    let format = format_of(parser)?;
    let (ads, error) = py.detach(|| read_text(text.as_bytes(), format));
    if let Some(error) = error {
        engine::set_last_error(describe(&error, "<string>"));
    }
    into_list(py, ads)
}

/// The first ad of a string and the number of characters it took, or
/// `None` when there is none.
#[pyfunction]
#[pyo3(name = "_parse_next", signature = (text, parser = -1))]
pub(crate) fn parse_next_text(
    py: Python<'_>,
    text: &str,
    parser: i64,
) -> PyResult<(Option<Py<ClassAd>>, usize)> {
    let format = format_of(parser)?;
    let options = Parser::new(ParseOptions::default());
    let bytes = text.as_bytes();
    let result = match format {
        None => match AdReader::auto(bytes, &options) {
            Ok(mut reader) => reader.next().map(|ad| (ad, reader.bytes_read())),
            Err(e) => return Err(ClassAdException::new_err(format!("cannot read: {e}"))),
        },
        Some(format) => {
            let mut reader = AdReader::new(bytes, format, &options);
            reader.next().map(|ad| (ad, reader.bytes_read()))
        }
    };
    match result {
        Some((Ok(ad), consumed)) => {
            let consumed = consumed.min(bytes.len());
            let chars = text
                .get(..consumed)
                .map_or(text.chars().count(), |t| t.chars().count());
            let ad = Py::new(py, ClassAd::from_ast(in_htcondor_order(ad)))?;
            Ok((Some(ad), chars))
        }
        Some((Err(e), _)) => {
            engine::set_last_error(describe(&e, "<string>"));
            Ok((None, 0))
        }
        None => Ok((None, 0)),
    }
}

/// Reads every ad of a file (old or new syntax, JSON or XML) into a list,
/// in parallel and with the GIL released: faster than `parseAds` over an
/// open file. An ad that cannot be read raises `ClassAdException` naming
/// the file, the ad, the line and the column.
#[pyfunction]
#[pyo3(name = "readAds", signature = (path, parser = -1))]
pub(crate) fn read_ads<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    parser: i64,
) -> PyResult<Bound<'py, PyList>> {
    let format = format_of(parser)?;
    let origin = path.display().to_string();
    let (ads, error) = py.detach(|| -> PyResult<_> {
        let text = classad::syntax::read::read_file_within(&path).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("cannot read `{origin}`: {e}"))
        })?;
        Ok(read_text(&text, format))
    })?;
    if let Some(error) = error {
        let message = describe(&error, &origin);
        engine::set_last_error(message.clone());
        return Err(ClassAdException::new_err(message));
    }
    into_list(py, ads)
}
