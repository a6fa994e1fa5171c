"""The corpus's cases for printf_atomics.cu: device printf with the format
features of the Programming Guide's "Formatted Output" section, and the atomic
functions on every documented type.

The printf references are Python's % formatting of the same values, through
`cprintf` below, which keeps C's printf semantics where Python's % differs
(length modifiers, the '#' form of %o and of a zero %x, a zero with precision
0, '+' and ' ' on unsigned conversions, the '0' flag on inf / nan, %a).
The atomic references are exact: commutative operations give the same result
in any order; atomicInc / atomicDec and atomicExch are checked through the
sequence of states, whose multiset of old values does not depend on the order.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
import math
import re

import numpy as np

from registry import In, InOut, Out, Val, case, cdiv

SRC = "printf_atomics.cu"

# ---- a C printf in terms of Python's % -----------------------------------------------------------

_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\d*))?(hh|h|ll|l)?"
                   r"([diouxXeEfgGaAcs%])")
_BITS = {"hh": 8, "h": 16, None: 32, "l": 64, "ll": 64}


def _pad(body, width, flags):
    if width is None or len(body) >= width:
        return body
    return body.ljust(width) if "-" in flags else body.rjust(width)


def _hexfloat(x, upper, flags):
    if math.isinf(x) or math.isnan(x):
        s = ("-" if x < 0 else "") + ("inf" if math.isinf(x) else "nan")
    else:
        s = float(x).hex()                      # '0x1.8000000000000p+1'
        mant, exp = s.split("p")
        if "." in mant:
            mant = mant.rstrip("0").rstrip(".")
        s = mant + "p" + exp                    # C: '0x1.8p+1', '0x1p+0'
    if not s.startswith("-"):
        s = ("+" if "+" in flags else " " if " " in flags else "") + s
    return s.upper() if upper else s


def cprintf(fmt, *args):
    """fmt % args as C's printf writes it (the subset the corpus uses)."""
    args = list(args)
    out = []
    pos = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, size, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = int(args.pop(0))
            if width < 0:
                flags, width = flags + "-", -width
        elif width is not None:
            width = int(width)
        prec = None if prec is None else int(prec or 0)
        v = args.pop(0)
        if conv in "di":
            bits = _BITS[size]
            v = (int(v) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        elif conv in "ouxX":
            v = int(v) % (1 << _BITS[size])
            flags = flags.replace("+", "").replace(" ", "")   # signed only
        if conv in "diouxX":
            if prec is not None:
                flags = flags.replace("0", "")                # precision wins over '0'
            if prec == 0 and v == 0:
                body = "0" if (conv == "o" and "#" in flags) else ""
                if body == "" and conv in "di":
                    body = "+" if "+" in flags else " " if " " in flags else ""
                out.append(_pad(body, width, flags))
                continue
            if conv == "o" and "#" in flags:
                digits = "%o" % v
                if prec is not None:
                    digits = digits.rjust(prec, "0")
                if not digits.startswith("0"):
                    digits = "0" + digits
                if "0" in flags and "-" not in flags and width:
                    digits = digits.rjust(width, "0")
                out.append(_pad(digits, width, flags))
                continue
            if conv in "xX" and v == 0:
                flags = flags.replace("#", "")                # no 0x on zero
        if conv in "eEfgG" and (math.isinf(v) or math.isnan(v)):
            flags = flags.replace("0", "")                    # inf / nan pad with spaces
        if conv in "aA":
            out.append(_pad(_hexfloat(v, conv == "A", flags), width, flags))
            continue
        if conv == "c":
            v = chr(int(v) & 0xFF)
        spec = "%" + flags + ("" if width is None else str(width)) + \
               ("" if prec is None else "." + str(prec)) + conv
        out.append(spec % v)
    out.append(fmt[pos:])
    return "".join(out)


def _block(lines):
    """Lines one thread prints in order: checked as one block of text."""
    return ["\n".join(lines) + "\n"]


# ---- printf --------------------------------------------------------------------------------------

def _ints_make(r):
    return dict(i=np.int32(-4321), u=np.uint32(3000000000), ll=np.int64(-1234567890123456789),
                ull=np.uint64(2**64 - 1), s=np.int16(-2), us=np.uint16(65000),
                sc=np.int8(-100), uc=np.uint8(ord("A")), w=np.int32(9))


def _ints_ref(d):
    i, u, ll, ull = int(d["i"]), int(d["u"]), int(d["ll"]), int(d["ull"])
    s, us, sc, uc, w = int(d["s"]), int(d["us"]), int(d["sc"]), int(d["uc"]), int(d["w"])
    return _block([
        cprintf("int   |%d|%i|%8d|%-8d|%08d|%+d|% d|%.7d|%+.6i|", i, i, i, i, i, i, i, i, -i),
        cprintf("uint  |%u|%x|%X|%o|%#x|%#X|%012x|%-12u|%+u|", u, u, u, u, u, u, u, u, u),
        cprintf("octal |%#o|%#o|%#5o|", u, 8, 0),
        cprintf("zero  |%#x|%#X|%.0d|%5.0d|%+d|% d|%x|", 0, 0, 0, 0, 0, 0, 0),
        cprintf("llong |%lld|%lli|%llu|%llx|%#llX|%24lld|%-+24lld|", ll, ll, ull, ull, ull, ll,
                -ll),
        cprintf("long  |%ld|%lu|%lx|%lo|", ll, ull, ull, u),
        cprintf("short |%hd|%hu|%hx|%6hd|%-6hu|%+hd|%hX|", s, us, s, s, us, s, us),
        cprintf("char  |%d|%u|%02x|%X|%i|%c|%3c|%-3c|", sc, uc, sc & 0xFF, uc, sc, uc, uc,
                ord("q")),
        cprintf("star  |%*d|%-*d|%*u|%*x|", w, i, w, i, w + 4, u, 3, 0xAB),
        cprintf("pct   |%%|%d%%|%5.1f%%|%%d|", 42, 99.5),
    ])


case(id="printf_atomics_integer_formats", src=SRC, kernel="print_integers", make=_ints_make,
     args=(Val("i"), Val("u"), Val("ll"), Val("ull"), Val("s"), Val("us"), Val("sc"), Val("uc"),
           Val("w")),
     block=(32, 1, 1), grid=(2, 1), stdout=_ints_ref, tags=("printf",))

SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-310, 1e300, 5e-324, 0.5, -2.5e-7]


def _floats_ref(d):
    f = float(d["f"])                     # the float, promoted to double by the call
    x = float(d["d"])
    f32 = float(np.float32(0.1))
    lines = [
        cprintf("f     |%f|%.2f|%10.3f|%-10.3f|%+.1f|%010.4f|% .3f|%.0f|", *[f] * 8),
        cprintf("e     |%e|%.3e|%E|%14.4E|%-+14.2e|%.0e|%#.0e|", *[x] * 7),
        cprintf("g     |%g|%G|%.3g|%#g|%#.3G|%10.4g|%-10.2g|%g|%g|", *[x] * 7, x * 1e10,
                x * 1e-10),
        cprintf("a     |%a|%A|%a|%a|%a|", x, x, 1.0, -0.75, 0.1),
        cprintf("prom  |%.10f|%.9g|%.17g|%f|", f32, f32, f32, float(np.float32(f) * 2)),
        cprintf("round |%.0f|%.0f|%.0f|%.1f|%.2e|", 0.5, 1.5, 2.5, 0.25, 12345.0),
    ]
    for k, v in enumerate(d["special"].tolist()):
        lines.append(cprintf("sp[%d] |%f|%e|%g|%8.2f|%-8.1e|%+g|%E|%G|% f|", k, *[v] * 9))
    return _block(lines)


case(id="printf_atomics_float_formats", src=SRC, kernel="print_floats",
     make=lambda r: dict(f=np.float32(3.14159274), d=np.float64(6.02214076e23),
                         special=np.array(SPECIAL, np.float64), n=np.int32(len(SPECIAL))),
     args=(Val("f"), Val("d"), In("special"), Val("n")), block=(1, 1, 1), grid=(1, 1),
     stdout=_floats_ref, tags=("printf",))

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 .,"


def _strings_make(r):
    text = "".join(_ALPHABET[k] for k in r.integers(0, len(_ALPHABET), 1300))
    return dict(msg=np.frombuffer(text.encode() + b"\0", np.int8).copy(),
                tag=np.frombuffer(b"dbg\0", np.int8).copy(), n=np.int32(1300))


def _strings_ref(d):
    msg = d["msg"].tobytes()[:-1].decode()
    tag = "dbg"
    lines = [
        cprintf("str   |%s|%.5s|%12s|%-12s|%12.3s|%s|%.0s|", tag, msg, tag, tag, msg, "literal",
                tag) + "\n",
        f"msg(1300) <{msg}>\n",
        cprintf("many  |" + " ".join(["%d"] * 20) + "|%s|%c|%f|", *range(1, 21), tag, ord("x"),
                0.5) + "\n",
        "This is a deliberately long format string, the kind a kernel prints once as a banner "
        "before dumping its state: block size 32, grid size 2, and a reminder that the output "
        "of printf appears only when the host synchronizes with the device, which is why the "
        "test synchronizes before it reads the stream back; end of banner (ok).\n",
    ]
    for b in range(2):
        for t in range(32):
            g = 32 * b + t
            lines.append(cprintf("[blk %d thr %02d] sq=%5d hex=%#06x ch=%c", b, t, g * g, g,
                                 ord("a") + g % 26) + "\n")
    return lines   # each line whole; threads' lines in any order


case(id="printf_atomics_strings_and_thread_lines", src=SRC, kernel="print_strings",
     make=_strings_make,
     args=(In("msg"), In("tag"), Val("n")), block=(32, 1, 1), grid=(2, 1),
     stdout=_strings_ref, tags=("printf",))


# ---- atomics -------------------------------------------------------------------------------------

def _add_make(r):
    n = 3000
    return dict(v=r.integers(-1000, 1001, n).astype(np.int32), n=np.int32(n),
                si=np.array([5, 7, 0], np.int32), su=np.array([4000000000, 10], np.uint32),
                sull=np.array([1, 5], np.uint64), sf=np.array([0.25, 0, 0], np.float32),
                sd=np.array([0.125, 100.0], np.float64), bs=np.zeros(cdiv(n, 256), np.int32),
                tickets=np.zeros(n + 1, np.uint32), pos=np.zeros(1, np.int32))


def _add_ref(d):
    v = d["v"].astype(np.int64)
    n = v.size
    tot = int(v.sum())
    nb = cdiv(n, 256)
    per_block = np.bincount(np.arange(n) // 256, minlength=nb)
    return {
        "si": [5 + tot, 7 - tot, n],
        "su": [(4000000000 + int((v % 2**32).sum())) % 2**32, (10 - 3 * n) % 2**32],
        "sull": np.array([(1 + sum((int(x) + 1000) << 24 for x in v)) % 2**64,
                          (5 - n) % 2**64], np.uint64),
        "sf": [0.25 + 0.5 * tot, per_block[0::2].sum(), per_block[1::2].sum()],
        "sd": [0.125 + 0.25 * tot, 100.0 - n],
        "bs": np.bincount(np.arange(n) // 256, weights=v, minlength=nb),
        "pos": [int((v > 0).sum())],
    }


def _add_check(d, b):
    n = b["v"].size
    t = d["tickets"]
    assert t[0] == n, t[0]
    # each ticket (atomicAdd's old value) handed out once: slots 1..n hold a permutation
    np.testing.assert_array_equal(np.sort(t[1:]), np.arange(n))


case(id="printf_atomics_atomicAdd_Sub_all_types", src=SRC, kernel="atomic_add_types",
     make=_add_make,
     args=(In("v"), Val("n"), InOut("si"), InOut("su"), InOut("sull"), InOut("sf"), InOut("sd"),
           InOut("bs"), InOut("tickets"), InOut("pos")),
     block=(256, 1, 1), grid=(cdiv(3000, 256), 1), expect=_add_ref, check=_add_check,
     tags=("atomics", "atomicAdd", "atomicSub", "atomic_scoped", "shared"))

_I32, _I64 = np.iinfo(np.int32), np.iinfo(np.int64)
_U32, _U64 = np.iinfo(np.uint32), np.iinfo(np.uint64)


def _minmax_make(r):
    n = 2000
    return dict(
        vi=r.integers(_I32.min, _I32.max, n, dtype=np.int32, endpoint=True),
        vu=r.integers(0, _U32.max, n, dtype=np.uint32, endpoint=True),
        vll=r.integers(_I64.min, _I64.max, n, dtype=np.int64, endpoint=True),
        vull=r.integers(0, _U64.max, n, dtype=np.uint64, endpoint=True), n=np.int32(n),
        mi=np.array([_I32.max, _I32.min] * 2, np.int32),
        mu=np.array([_U32.max, 0] * 2, np.uint32),
        mll=np.array([_I64.max, _I64.min] * 2, np.int64),
        mull=np.array([_U64.max, 0] * 2, np.uint64))


def _minmax_ref(d):
    return {k: np.array([d[v].min(), d[v].max()] * 2, d[k].dtype)
            for k, v in (("mi", "vi"), ("mu", "vu"), ("mll", "vll"), ("mull", "vull"))}


case(id="printf_atomics_atomicMin_Max_int_uint_ll_ull", src=SRC, kernel="atomic_min_max",
     make=_minmax_make,
     args=(In("vi"), In("vu"), In("vll"), In("vull"), Val("n"), InOut("mi"), InOut("mu"),
           InOut("mll"), InOut("mull")),
     block=(128, 1, 1), grid=(cdiv(2000, 128), 1), expect=_minmax_ref,
     tags=("atomics", "atomicMin", "atomicMax", "atomic_scoped"))


def _inc(old, val):
    return 0 if old >= val else old + 1


def _dec(old, val):
    return val if (old == 0 or old > val) else old - 1


def _states(op, start, val, n):
    """The n old values an atomicInc / atomicDec counter returns, and its final value:
    each call moves the counter one step, so the sequence does not depend on the order."""
    olds = []
    c = start
    for _ in range(n):
        olds.append(c)
        c = op(c, val)
    return olds, c


_WRAP_START = [3, 50, 5, 77, 0xFFFFFFFF - 100, 50, 4, 6]
_WRAP_OPS = [(_inc, 9), (_inc, 9), (_dec, 9), (_dec, 9), (_inc, 0xFFFFFFFF), (_dec, 0xFFFFFFFF),
             (_inc, 9), (_dec, 9)]


def _wrap_ref(d):
    n = int(d["n"])
    return {"c": [_states(op, s, val, n)[1] for (op, val), s in zip(_WRAP_OPS, _WRAP_START)]}


def _wrap_check(d, b):
    n = int(b["n"])
    olds_inc, _ = _states(_inc, _WRAP_START[0], 9, n)
    olds_dec, _ = _states(_dec, _WRAP_START[2], 9, n)
    np.testing.assert_array_equal(np.sort(d["oi"]), np.sort(olds_inc))
    np.testing.assert_array_equal(np.sort(d["od"]), np.sort(olds_dec))


case(id="printf_atomics_atomicInc_Dec_wraparound", src=SRC, kernel="atomic_wrap_counters",
     make=lambda r: dict(c=np.array(_WRAP_START, np.uint32), lim=np.uint32(9),
                         oi=np.zeros(1000, np.uint32), od=np.zeros(1000, np.uint32),
                         n=np.int32(1000)),
     args=(InOut("c"), Val("lim"), Out("oi"), Out("od"), Val("n")), block=(128, 1, 1),
     grid=(8, 1), expect=_wrap_ref, check=_wrap_check,
     tags=("atomics", "atomicInc", "atomicDec", "atomic_scoped"))


def _masks(r, n, bits, p):
    """n masks of `bits` bits, each bit set with probability p."""
    on = r.random((n, bits)) < p
    w = np.uint64 if bits == 64 else np.uint32
    return (on.astype(w) << np.arange(bits, dtype=w)).sum(axis=1, dtype=w)


def _bits_make(r):
    n = 512
    return dict(andm=_masks(r, n, 32, 0.995), orm=_masks(r, n, 32, 0.004),
                xorm=_masks(r, n, 32, 0.5), andm64=_masks(r, n, 64, 0.995),
                orm64=_masks(r, n, 64, 0.004), xorm64=_masks(r, n, 64, 0.5), n=np.int32(n),
                b32=np.array([0xFFFFFFFF, 0, 0x12345678, 0x0F0F0F0F], np.uint32),
                b64=np.array([2**64 - 1, 0, 0x0123456789ABCDEF, 1 << 63], np.uint64),
                bitmap=np.zeros(8, np.uint32), first=np.zeros(n, np.int32),
                slot=np.array([-7], np.int32), prev=np.zeros(n, np.int32),
                slot64=np.array([3], np.uint64), prev64=np.zeros(n, np.uint64),
                fslot=np.array([-1.0], np.float32), fprev=np.zeros(n, np.float32))


def _bits_ref(d):
    def red(op, init, a):
        return op.reduce(a, initial=init, dtype=a.dtype)
    return {
        "b32": np.array([red(np.bitwise_and, 0xFFFFFFFF, d["andm"]),
                         red(np.bitwise_or, 0, d["orm"]),
                         red(np.bitwise_xor, 0x12345678, d["xorm"]),
                         red(np.bitwise_xor, 0x0F0F0F0F, d["xorm"])], np.uint32),
        "b64": np.array([red(np.bitwise_and, 2**64 - 1, d["andm64"]),
                         red(np.bitwise_or, 0, d["orm64"]),
                         red(np.bitwise_xor, 0x0123456789ABCDEF, d["xorm64"]),
                         red(np.bitwise_or, 1 << 63, d["orm64"])], np.uint64),
        "bitmap": np.full(8, 0xFFFFFFFF, np.uint32),
    }


def _bits_check(d, b):
    n = int(b["n"])
    f = d["first"]
    # of the two threads setting each bit, exactly one saw it clear
    np.testing.assert_array_equal(f[:n // 2] + f[n // 2:], np.ones(n // 2))
    # atomicExch passes values along one chain: the old values and the final one are
    # the initial value and every thread's value, each once
    for slot, prev, values in (("slot", "prev", np.arange(n)),
                               ("slot64", "prev64", np.arange(n, dtype=np.uint64) << 33),
                               ("fslot", "fprev", np.arange(n) * 0.5)):
        got = np.sort(np.concatenate([d[prev], d[slot]]).astype(np.float64))
        want = np.sort(np.concatenate([b[slot], values]).astype(np.float64))
        np.testing.assert_array_equal(got, want, err_msg=slot)


case(id="printf_atomics_atomicAnd_Or_Xor_Exch", src=SRC, kernel="atomic_bits_exch", make=_bits_make,
     args=(In("andm"), In("orm"), In("xorm"), In("andm64"), In("orm64"), In("xorm64"), Val("n"),
           InOut("b32"), InOut("b64"), InOut("bitmap"), Out("first"), InOut("slot"), Out("prev"),
           InOut("slot64"), Out("prev64"), InOut("fslot"), Out("fprev")),
     block=(128, 1, 1), grid=(4, 1), expect=_bits_ref, check=_bits_check,
     tags=("atomics", "atomicAnd", "atomicOr", "atomicXor", "atomicExch", "atomic_scoped"))

_C16_START = [65530, 65535, 0, 100, 200, 65000, 1, 2]


def _cas_make(r):
    n = 1000
    return dict(want=r.integers(0, 64, n).astype(np.int32),
                x=(r.standard_normal(n) * 2 - 4).astype(np.float32),
                xd=r.standard_normal(n) * 1e3 - 5e3, n=np.int32(n),
                owner=np.full(64, -1, np.int32), won=np.zeros(n, np.int32),
                sum64=np.array([7, 0], np.uint64), c16=np.array(_C16_START, np.uint16),
                fmax=np.full(2, -np.inf, np.float32), dmax=np.full(1, -np.inf),
                bown=np.full(8, -2, np.int32))


def _cas_ref(d):
    n = int(d["n"])
    counts = np.bincount(d["want"] % 8, minlength=8)
    return {"sum64": np.array([(7 + sum(i * 0x100000001 for i in range(n))) % 2**64,
                               0x1234567890ABCDEF], np.uint64),
            "c16": (np.array(_C16_START) + counts) % 65536,
            "fmax": [d["x"].max()] * 2, "dmax": [d["xd"].max()]}


def _cas_check(d, b):
    want, won, owner = b["want"], d["won"], d["owner"]
    n = want.size
    for s in range(64):
        who = np.flatnonzero(want == s)
        if who.size == 0:
            assert owner[s] == -1, (s, owner[s])
            continue
        # exactly one contender won the slot, and the slot names it
        assert won[who].sum() == 1, (s, won[who])
        assert owner[s] == who[won[who] == 1][0], (s, owner[s])
    assert won.sum() == np.unique(want).size
    for blk in range(8):
        valid = min(128, n - 128 * blk)
        assert 0 <= d["bown"][blk] < valid, (blk, d["bown"][blk])


case(id="printf_atomics_atomicCAS_32_64_16_and_cas_loops", src=SRC, kernel="atomic_cas_family",
     make=_cas_make,
     args=(In("want"), In("x"), In("xd"), Val("n"), InOut("owner"), Out("won"), InOut("sum64"),
           InOut("c16"), InOut("fmax"), InOut("dmax"), InOut("bown")),
     block=(128, 1, 1), grid=(8, 1), expect=_cas_ref, check=_cas_check,
     tags=("atomics", "atomicCAS", "atomicCAS16", "cas_loop", "atomic_scoped"))
