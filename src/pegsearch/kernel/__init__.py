"""The kernel: arrays in, arrays out. The board tables, the map (expand), the reduce (partitioned
hash tables), exact path counts, and the thread pool that runs the compiled loops on every core.
Every engine calls these; they know nothing of runs or stores."""

from pegsearch.kernel import compiling, target

target.choose()  # before any kernel is compiled: the compile target this machine runs fastest
compiling.watch(target.choose().target)  # a kernel compiled (not loaded from numba's cache) is said
