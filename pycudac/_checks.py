"""The integer check the Python layers share: a value that must be an int
(operator.index, so a NumPy integer or an IntEnum is one, and a float, str,
None or bool is not), named in the TypeError. Ranges stay with the callers,
whose messages say what the number is."""
import operator

__all__ = ["index_arg"]


def index_arg(value, what, expected="an int"):
    """`value` as an int, else a TypeError: "<what> must be <expected>, not <type>"."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be {expected}, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be {expected}, not {type(value).__name__}") from None
