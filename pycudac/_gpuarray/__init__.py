"""The array layer behind pycudac.gpuarray, by concern; each module imports
only those before it: loops (which ufunc loop NumPy runs, the map kernels'
specs), layout (shapes, strides, view pointers, the memory pool), vec (the
vec dtypes), array (the GPUArray class), create (its constructors and
foreign imports), ops (operators onto elementwise map kernels), index
(a[index] and a[index] = value), funcs (where, maximum, concatenate, take,
sum ...)."""
