"""HTCondor ClassAds in Rust: a drop-in for HTCondor's ``classad2``.

``import classad_rs as classad2`` and the code that used HTCondor's
bindings runs unchanged: ``ClassAd``, ``ExprTree``, ``Value``,
``ParserType``/``Parser``, ``parseAds``, ``parseOne``, ``parseNext``,
``quote``, ``unquote``, ``version``, ``lastError``, ``ClassAdException``.

Beyond ``classad2``: ``register`` (Python functions callable from
expressions), and batch operations that run the engine with the GIL
released -- ``match`` (a negotiation cycle, or every matching pair),
``analyze``, ``query`` (constraint and projection, as ``condor_q -af``)
and ``readAds`` (a file of ads straight into a list).
"""

import io as _io
from collections.abc import MutableMapping as _MutableMapping

from ._enums import Value, ParserType, _convert_local_datetime_to_utc_ts
from ._classad_rs import (
    ClassAd,
    ExprTree,
    ClassAdException,
    quote,
    unquote,
    version,
    lastError,
    register,
    match,
    analyze,
    query,
    readAds,
    _parse_ads,
    _parse_next,
)

# For compatibility with version 1 of the bindings.
Parser = ParserType

# A ClassAd is a mutable mapping: isinstance(ad, MutableMapping) holds.
_MutableMapping.register(ClassAd)

__all__ = [
    "ClassAd",
    "ExprTree",
    "Value",
    "ParserType",
    "Parser",
    "ClassAdException",
    "parseAds",
    "parseOne",
    "parseNext",
    "quote",
    "unquote",
    "version",
    "lastError",
    "register",
    "match",
    "analyze",
    "query",
    "readAds",
]


def _text_of(input):
    """The text of a string, or the rest of a file (``classad2`` joins the
    lines of a file the same way), and where the file was."""
    if isinstance(input, str):
        return input, None
    offset = None
    try:
        offset = input.tell()
    except (AttributeError, OSError, _io.UnsupportedOperation):
        pass
    text = "".join(input)
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return text, offset


def parseAds(input, parser=ParserType.Auto):
    """
    Returns an iterator over the ads in *input* (a string, or a file).

    Ads in old syntax are separated by blank lines; ads in new syntax may
    be. The format (old, new, JSON, XML) is found from the input unless
    *parser* names it. Reading stops at the first ad that cannot be read;
    ``lastError()`` then says which and where.
    """
    text, _ = _text_of(input)
    return iter(_parse_ads(text, int(parser)))


def parseOne(input, parser=ParserType.Auto):
    """
    Parses all of the ads in *input*, merges them into one, and returns it.
    """
    text, _ = _text_of(input)
    result = ClassAd()
    for ad in _parse_ads(text, int(parser)):
        result.update(ad)
    return result


def parseNext(input, parser=ParserType.Auto):
    """
    Parses the first ad in *input* and returns it (``None`` when there is
    none). A file is left just after the ad read.

    :raises ClassAdException: If *input* is a file that cannot be rewound
        and *parser* is ``Auto``.
    """
    if isinstance(input, str):
        ad, _ = _parse_next(input, int(parser))
        return ad
    try:
        location = input.tell()
    except (AttributeError, OSError, _io.UnsupportedOperation) as e:
        if parser == ParserType.Auto:
            raise ClassAdException(
                "Can not look ahead in stream; you must explicitly specify a parser."
            ) from e
        location = None
    text = input.read()
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    ad, consumed = _parse_next(text, int(parser))
    if location is not None:
        try:
            input.seek(location)
            input.read(consumed)
        except (OSError, _io.UnsupportedOperation):
            pass
    return ad
