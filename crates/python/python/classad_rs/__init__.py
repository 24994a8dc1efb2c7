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


_PARSE_FAILURE = "Unable to parse input stream into a ClassAd."


def _parse_ads_generator(input, parser):
    file_offset = 0
    if not isinstance(input, str):
        file_offset = input.tell()
    # classad2 joins a str too, character by character: the same text.
    text = input if isinstance(input, str) else "".join(input)
    ads, consumed, failed = _parse_ads(text, int(parser))
    for ad, taken in zip(ads, consumed):
        if not isinstance(input, str):
            file_offset += taken
            input.seek(file_offset, 0)
        yield ad
    if failed:
        raise ValueError(_PARSE_FAILURE)
    if not isinstance(input, str):
        # classad2 seeks after its last, empty, read too.
        input.seek(file_offset, 0)


def parseAds(input, parser=ParserType.Auto):
    """
    Returns a generator which will parse each ad in the input (a string or
    an open file).

    Ads in old syntax are separated by blank lines; ads in new syntax may
    be. With ``ParserType.Auto`` the format is new syntax where the input
    starts with ``[``, old otherwise; ``JSON`` and ``XML`` must be named.
    Reading stops quietly where the input is not an ad (``lastError()``
    says why and where) and raises ``ValueError`` where ``classad2`` does.
    A file is left after the last ad read. ``readAds`` reads a whole file
    faster.
    """
    return _parse_ads_generator(input, parser)


def parseOne(input, parser=ParserType.Auto):
    """
    Parses all of the ads in *input*, merges them into one, and returns it.
    """
    total_offset = 0
    if not isinstance(input, str):
        total_offset = input.tell()
    result = ClassAd()
    text = input if isinstance(input, str) else "".join(input)
    ads, consumed, failed = _parse_ads(text, int(parser))
    for ad, taken in zip(ads, consumed):
        result.update(ad)
        if not isinstance(input, str):
            total_offset += taken
            input.seek(total_offset, 0)
    if failed:
        raise ValueError(_PARSE_FAILURE)
    return result


def parseNext(input, parser=ParserType.Auto):
    """
    Parses the first ad in *input* (a string or an open file) and returns
    it, or ``None`` when there is none. A file is left just after the ad.

    :raises ClassAdException: If *input* is a file that cannot be rewound
        and *parser* is ``Auto``.
    """
    if isinstance(input, str):
        ads, _, failed = _parse_ads(input, int(parser), 1)
        if ads:
            return ads[0]
        if failed:
            raise ValueError(_PARSE_FAILURE)
        return None
    look_ahead = parser is ParserType.Auto
    if look_ahead:
        try:
            parser = ParserType.New
            location = input.tell()
            while True:
                c = input.read(1)
                if c == "/" or c == "[":
                    break
                if not c.isspace():
                    parser = ParserType.Old
                    break
                if len(c) == 0:
                    break
            input.seek(location)
        except _io.UnsupportedOperation as e:
            raise ClassAdException(
                "Can not look ahead in stream; you must explicitly specify a parser."
            ) from e
    try:
        location = input.tell()
    except (OSError, _io.UnsupportedOperation):
        # A pipe: read on, it cannot be left just after the ad.
        location = None
    text = input.read()
    if text and text.isspace() and (look_ahead or parser == ParserType.Old):
        # classad2's reader of a file descriptor fails on white space alone.
        raise ValueError(_PARSE_FAILURE)
    ads, consumed, failed = _parse_ads(text, int(parser), 1)
    if ads:
        if location is not None:
            input.seek(location)
            input.read(consumed[0])
        return ads[0]
    if failed:
        raise ValueError(_PARSE_FAILURE)
    return None
