"""The random number layer behind pycudac.curandom, by concern; each module
imports only those before it: checks (argument checks), philox (the
counter-based generator behind rand)."""
