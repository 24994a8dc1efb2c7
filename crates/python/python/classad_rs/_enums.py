"""The enumerations of ``classad2`` (``Value``, ``ParserType``) and its
conversion of a ``datetime`` to seconds since the epoch."""

import enum
from datetime import datetime, timedelta


class Value(enum.IntEnum):
    """
    An enumeration of special ClassAd values.

    .. attribute:: Undefined

    .. attribute:: Error
    """

    Error = 1 << 0
    Undefined = 1 << 1


class ParserType(enum.IntEnum):
    """
    An enumeration of ClassAd parser types (serialization formats).

    ``Auto`` finds the format from the input (old or new syntax, JSON,
    XML); ``FileAuto`` is the same.
    """

    Auto = -1
    Old = 0
    XML = 1
    JSON = 2
    New = 3
    FileAuto = 4


def _convert_local_datetime_to_utc_ts(dt):
    """Seconds since the epoch of ``dt``; a naive ``dt`` is local time."""
    if dt.tzinfo is not None and dt.tzinfo.utcoffset(dt) is not None:
        the_epoch = datetime(1970, 1, 1, tzinfo=dt.tzinfo)
        return (dt - the_epoch) // timedelta(seconds=1)
    the_epoch = datetime(1970, 1, 1)
    naive_ts = (dt - the_epoch) // timedelta(seconds=1)
    offset = dt.astimezone().utcoffset() // timedelta(seconds=1)
    return naive_ts - offset
