"""PCRE2's frames, measured on HTCondor's own library (the oracle's libpcre2,
10.32): the smallest match limit under which pcre2_match does not fail with
PCRE2_ERROR_MATCHLIMIT is the frame count of the costliest start position,
the number crates/pcre/src/match_limit.rs replays. Also the compiled
pattern's first/required code units and minimum length (pcre2_pattern_info).

Run with the oracle's python (sh ../shared/oracle/setup.sh | tail -1):
    PY pcre2_frames.py '((a)+)+\\2$' '"a"*10 + "!"' [flags: i m s x]
    PY pcre2_frames.py --info '(a|aa)+\\1$'
"""
import ctypes, glob, os, sys

_venv = os.environ.get("CLASSAD_ORACLE_VENV", os.path.expanduser("~/.cache/classad-oracle-venv"))
lib = ctypes.CDLL(glob.glob(_venv + "/lib/python3*/site-packages/htcondor.libs/libpcre2-8*")[0])
lib.pcre2_compile_8.restype = ctypes.c_void_p
lib.pcre2_compile_8.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32,
                                ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]
lib.pcre2_match_data_create_from_pattern_8.restype = ctypes.c_void_p
lib.pcre2_match_data_create_from_pattern_8.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.pcre2_match_context_create_8.restype = ctypes.c_void_p
lib.pcre2_match_context_create_8.argtypes = [ctypes.c_void_p]
lib.pcre2_set_match_limit_8.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
lib.pcre2_match_8.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t,
                              ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]
lib.pcre2_pattern_info_8.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
lib.pcre2_match_data_free_8.argtypes = [ctypes.c_void_p]
lib.pcre2_match_context_free_8.argtypes = [ctypes.c_void_p]
FLAGS = {"i": 0x8, "m": 0x400, "s": 0x20, "x": 0x80}
MATCHLIMIT = -47


def compile(pattern, flags=""):
    options = sum(v for k, v in FLAGS.items() if k in flags)
    err, off = ctypes.c_int(), ctypes.c_size_t()
    p = pattern.encode("latin-1")
    code = lib.pcre2_compile_8(p, len(p), options, ctypes.byref(err), ctypes.byref(off), None)
    if not code:
        raise ValueError("PCRE2 refuses it (error %d)" % err.value)
    return code


def run(code, subject, limit):
    md = lib.pcre2_match_data_create_from_pattern_8(code, None)
    mc = lib.pcre2_match_context_create_8(None)
    lib.pcre2_set_match_limit_8(mc, limit)
    s = subject.encode("latin-1")
    rc = lib.pcre2_match_8(code, s, len(s), 0, 0, md, mc)
    lib.pcre2_match_data_free_8(md)
    lib.pcre2_match_context_free_8(mc)
    return rc


def frames(pattern, subject, flags=""):
    code = compile(pattern, flags)
    low, high = 0, 1
    while run(code, subject, high) == MATCHLIMIT:
        low, high = high, high * 2
    while low < high:
        mid = (low + high) // 2
        if run(code, subject, mid) == MATCHLIMIT:
            low = mid + 1
        else:
            high = mid
    return low


def info(pattern, flags=""):
    """(first code unit type, first unit, required unit or None, minimum length)."""
    code = compile(pattern, flags)
    out = {}
    for name, what in (("firsttype", 6), ("first", 5), ("lasttype", 12), ("last", 11), ("minlength", 16)):
        v = ctypes.c_uint32()
        lib.pcre2_pattern_info_8(code, what, ctypes.byref(v))
        out[name] = v.value
    first = chr(out["first"]) if out["firsttype"] == 1 else None
    last = chr(out["last"]) if out["lasttype"] == 1 else None
    return out["firsttype"], first, last, out["minlength"]


if __name__ == "__main__":
    if sys.argv[1] == "--info":
        print(info(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""))
    else:
        print(frames(sys.argv[1], eval(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else ""))
