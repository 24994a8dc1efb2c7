#!/usr/bin/env python3
"""Checks `classad convert` output with HTCondor's own parser.

    roundtrip_check.py --old ORIGINAL.ads [--new CONVERTED.new] [--json CONVERTED.json]

Parses the original old-syntax file and each converted file with HTCondor's
ClassAd library (the oracle, `classad2`), and checks that every ad has the
same attributes, with the same names, and the same expression as HTCondor
unparses it. The JSON file is the array `classad convert --to json` writes
(as `condor_q -long:json`); `classad2.parseAds` does not read arrays, so
each element is cut out with Python's JSON scanner and its exact text given
to HTCondor's JSON parser.

Run it with the oracle's python, with CONDOR_CONFIG=/dev/null and TZ=UTC.
Exit status 0 when everything matches, 1 otherwise, 2 on bad usage.
"""

import argparse
import json
import sys

import htcondor2  # noqa: F401  (registers HTCondor's functions, as the oracle runs)
import classad2

MAX_SHOWN = 10


def attributes(ad):
    """The ad as {name: unparsed expression}, names as spelled."""
    return {name: str(ad.lookup(name)) for name in ad.keys()}


def parse_old_file(path):
    """The ads of an old-syntax file as HTCondor's file reader gives them.

    `classad2.parseAds` stops at the first ad it cannot read; `parseNext`
    on the open file reads one ad at a time as HTCondor's
    `CondorClassAdFileIterator` does: an ad with an unreadable line keeps
    the lines before it (the rest, up to the blank line, is skipped), and
    an ad with none to keep raises and is skipped, as `classad convert`
    skips (and reports) it. Blank lines between ads also raise there; they
    hold no ad.
    """
    ads = []
    with open(path, encoding="utf-8") as f:
        while True:
            at = f.tell()
            try:
                ad = classad2.parseNext(f, classad2.ParserType.Old)
            except ValueError:
                if f.tell() == at:
                    break
                continue
            if ad is None:
                break
            ads.append(attributes(ad))
    return ads


def parse_new(text):
    return [attributes(ad) for ad in classad2.parseAds(text, classad2.ParserType.New)]


def json_elements(text):
    """The exact text of each element of a top-level JSON array."""
    decoder = json.JSONDecoder()
    ws = " \t\r\n"
    i = 0
    while i < len(text) and text[i] in ws:
        i += 1
    if i == len(text) or text[i] != "[":
        raise ValueError("the JSON output is not an array")
    i += 1
    elements = []
    while True:
        while i < len(text) and text[i] in ws:
            i += 1
        if i < len(text) and text[i] == "]":
            return elements
        if elements:
            if text[i] != ",":
                raise ValueError(f"expected `,` at offset {i}")
            i += 1
            while i < len(text) and text[i] in ws:
                i += 1
        _, end = decoder.raw_decode(text, i)
        elements.append(text[i:end])
        i = end


def parse_json(text):
    ads = []
    for element in json_elements(text):
        ad = classad2.parseOne(element, classad2.ParserType.JSON)
        ads.append(attributes(ad))
    return ads


def compare(label, expected, got):
    problems = []
    if len(expected) != len(got):
        problems.append(f"{label}: {len(got)} ads, expected {len(expected)}")
    for index, (want, have) in enumerate(zip(expected, got), start=1):
        if set(want) != set(have):
            missing = sorted(set(want) - set(have))
            extra = sorted(set(have) - set(want))
            problems.append(f"{label}: ad {index}: missing {missing}, extra {extra}")
            continue
        for name in want:
            if want[name] != have[name]:
                problems.append(
                    f"{label}: ad {index}: {name}: expected {want[name]!r}, got {have[name]!r}"
                )
    return problems


def main():
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--old", required=True, help="the original old-syntax file")
    args.add_argument("--new", help="`classad convert --to new` output")
    args.add_argument("--json", help="`classad convert --to json` output")
    options = args.parse_args()

    original = parse_old_file(options.old)
    if not original:
        print(f"{options.old}: HTCondor read no ads", file=sys.stderr)
        return 1
    problems = []
    checked = []
    for label, path, parse in (("new", options.new, parse_new), ("json", options.json, parse_json)):
        if path is None:
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            converted = parse(text)
        except Exception as error:  # the oracle raises on input it cannot read
            problems.append(f"{label}: HTCondor could not read {path}: {error}")
            continue
        problems.extend(compare(label, original, converted))
        checked.append(f"{label} ({len(converted)} ads)")

    attrs = sum(len(ad) for ad in original)
    for problem in problems[:MAX_SHOWN]:
        print(problem, file=sys.stderr)
    if len(problems) > MAX_SHOWN:
        print(f"... and {len(problems) - MAX_SHOWN} more", file=sys.stderr)
    status = "OK" if not problems else f"{len(problems)} PROBLEMS"
    print(
        f"{options.old}: {len(original)} ads, {attrs} attributes; "
        f"checked {', '.join(checked) or 'nothing'}: {status}"
    )
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
