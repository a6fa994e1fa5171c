"""The random number layer behind pycudac.curandom, by concern; each module
imports only those before it: checks (argument checks), kernels (the device
code every stateful generator shares and the templates of its kernels),
base (the generator base classes with PyCUDA's methods, the seed getters),
philox (the counter-based generator behind rand), xorwow, mrg32k3a, joe_kuo
(Joe and Kuo's Sobol direction numbers), sobol."""
