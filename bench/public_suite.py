#!/usr/bin/env python3
"""Kernel time of ordinary programs of a public GPU benchmark suite, Rodinia
3.1's OpenCL programs, on several OpenCL platforms: `tools/ck bench public`.

The suite's code never enters this repository: --suite-dir names a checkout
(https://github.com/yuhc/gpu-rodinia, or Rodinia 3.1's tarball, which has
the same opencl/ and openmp/ trees). Everything this script makes goes under
--build-dir, which mirrors the suite's layout (opencl/NAME, openmp/NAME,
data/) because some programs open their inputs at paths relative to their
working directory; kernel sources are symbolic links into the checkout.

Each program's host code is compiled with the system g++/gcc at -O2 and
linked with Debian's ICD loader (-lOpenCL), with the explicit command of
BUILDS below (Rodinia's Makefiles hard-code SDK paths; the defines are
theirs, -DTIMING included). Each repeat runs, per program, one process per
platform, the platforms in round-robin order (repeat r starts with the
r-th), with OCL_ICD_VENDORS naming that platform's ICD directory alone and
LD_PRELOAD=kernel_time_shim.so (bench/kernel_time_shim.c), which makes every
queue a profiling one and sums CL_PROFILING_COMMAND_END - START over every
kernel launch: that sum is the KERNEL TIME reported (compiles, transfers and
host work are not in it). The process's wall time is recorded too. One
untimed process per program and platform comes first (--warmups): it fills
the drivers' disk caches (PoCL's kernels, Mesa's shaders), since rusticl
compiles a kernel's shader at its first launch, inside the launch's
profiled time (nw's test size: 5.9 s on a cold cache, 0.15 s warm, on
rusticl of Mesa 25.0.7); its result is checked all the same.

Every run's result is checked, against a sequential CPU reference:
  lud         blocked LU decomposition (-s N: the program's own
              well-conditioned matrix). Rodinia's -v: the host multiplies L
              and U back and prints every element that differs from the
              input by more than 1e-4; the run is wrong if it printed any
              that also differs by more than 1e-5 relative (float sums of up
              to N products), or if it printed no verification at all.
  backprop    one training step of a 16-hidden-unit layer (kernels: forward
              sums with a work-group tree reduction, weight update). The
              OpenCL host prints nothing, so the shim writes its blocking
              reads: the forward kernel's per-block sums (first) and the
              updated input weights (last). The reference is openmp/backprop
              built sequentially (no -fopenmp, same seed 7, same inputs)
              with bench/public_suite_hooks.c around its training step,
              which writes the same per-block sums (in double), the updated
              weights and their change. Each sum must match to 1e-5
              relative once halved (the OpenCL kernel's reduction starts by
              adding every product to itself: its sums are twice the
              sequential ones, which the host cannot see, its hidden units
              saturating at 1.0 either way); each weight to 1e-6 of itself
              plus 1e-3 of its change (0 in float at these sizes, for the
              same saturation).
  nw          Needleman-Wunsch (diagonal wavefront of 16x16 blocks). Built
              with -DTRACEBACK, the host writes the traceback path's scores
              (result.txt), which must equal, exactly, those of
              openmp/nw/needle.cpp (sequential, same seed and penalty).
  pathfinder  dynamic programming over a grid's rows (pyramid of -h 20
              rows per launch, work-group barriers in the loop). The shim
              writes the blocking reads; the one of the result row must
              equal, exactly, the last row openmp/pathfinder prints
              (sequential, same seed).
  bfs         level-synchronous breadth-first search on a generated random
              graph (Rodinia's format, fixed seed). Rodinia's own check: the
              host runs the same BFS on the CPU and compares every cost
              ("--cambine:passed").
  srad        speckle-reducing anisotropic diffusion on a generated 502x458
              PGM image (data/srad/image.pgm, the size of Rodinia's own,
              which the mirror lacks), resized by the program; the output
              image must be within 1 grey level, everywhere, of
              openmp/srad/srad_v1's (sequential). lambda is 1: the OpenCL
              host reads -l with atoi, so Rodinia's '-l 0.5' would be 0.
  nn          nearest neighbours (one launch; records from the suite's own
              generator, openmp/nn/hurricane_gen). The sorted distances of
              the -r nearest must match openmp/nn's to 1e-5 relative (ties
              may pick other records at the same distance).
  kmeans      k-means, k=5, on generated points (34 features, binary
              input, the first five points one per cluster). The centroids
              the host prints (-o, 2 decimals) must match, to 0.006 + 1e-4
              relative, those of the suite's openmp/kmeans/kmeans_serial,
              whose printing is commented out: public_suite_hooks.c writes
              them after its cluster().
A run whose result is wrong (or whose process fails, or whose kernel
launches did not all give a profile) is named, not timed there, and fails
the command; so does a program that does not build or whose reference fails.

Left out, for want of a reference: hotspot (its openmp/ version integrates
with a time step 1000 times smaller, PRECISION / max_slope / 1000, so it
computes another result, and the OpenCL host checks nothing) and gaussian
(no CPU version in the suite: openmp/ has none and opencl/gaussian's
OriginalParallel.c needs the BBN Butterfly's Uniform System; the host
prints its solution with 3 digits). The suite's other OpenCL programs are
not covered.

Sizes: test (each run well under a second on one CPU) and bench (meant for
about 0.2-2 s of kernel time on PoCL with 2 threads, by extrapolation from
smaller runs; nn's single launch stays in milliseconds at any practical
input: its time is reading the records).

Prints per program the median kernel time in milliseconds with min-max and
the launch count per platform, the ratios of the medians against the first
platform with their geometric mean and worst case, the wall times, the
device each platform reported, and the wrong results; exits 1 if any.
"""
import argparse
import array
import math
import os
import random
import re
import shlex
import statistics
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pocl import geomean, number, print_table, round_robin, worst  # noqa: E402

HOOKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "public_suite_hooks.c")

# Compile commands, one list per binary or object (the word after -o names
# it). {src}: the program's directory in the checkout (opencl/NAME for the
# OpenCL host, openmp/NAME for the reference), {util}: the checkout's
# opencl/util, {hooks}: bench/public_suite_hooks.c, {dir}: the program's
# directory under --build-dir, {out}: the binary there. The references are
# built without -fopenmp (their pragmas are ignored: sequential); -lgomp only
# for the omp_* calls they make. Two hosts' files are compiled at -O0:
# kmeans.cpp's allocate() and backprop_ocl.cpp's bpnn_train_kernel() flow
# off the end of a non-void function, which g++ -O1 and above compiles as
# unreachable (kmeans then crashes); their kernels are not affected.
BUILDS = {
    "lud": [["g++", "-O2", "-DTIMING", "-I{src}/common", "-I{util}", "{src}/ocl/lud.cpp",
             "{src}/common/common.c", "{util}/timing.c", "-o", "{out}", "-lOpenCL"]],
    "backprop": [["g++", "-O0", "-DTIMING", "-I{util}", "-c", "{src}/backprop_ocl.cpp",
                  "-o", "{dir}/backprop_ocl.o"],
                 ["g++", "-O2", "-DTIMING", "-I{util}", "{dir}/backprop_ocl.o",
                  "{src}/backprop.c", "{src}/facetrain.c", "{src}/imagenet.c", "{util}/timing.c",
                  "-o", "{out}", "-lOpenCL", "-lgomp"]],
    "nw": [["g++", "-O2", "-DTIMING", "-DTRACEBACK", "-I{util}", "{src}/nw.c", "{util}/timing.c",
            "-o", "{out}", "-lOpenCL"]],
    "pathfinder": [["g++", "-O2", "-std=gnu++14", "-DTIMING", "-I{util}", "{src}/main.cpp",
                    "{src}/OpenCL.cpp", "{util}/timing.c", "-o", "{out}", "-lOpenCL"]],
    "bfs": [["g++", "-O2", "-std=gnu++14", "-DTIMING", "-I{util}", "{src}/bfs.cpp",
             "{src}/timer.cc", "{util}/timing.c", "-o", "{out}", "-lOpenCL"]],
    "srad": [["gcc", "-O2", "-DTIMING", "-I{util}", "{src}/main.c",
              "{src}/kernel/kernel_gpu_opencl_wrapper.c", "{src}/util/opencl/opencl.c",
              "{src}/util/graphics/graphics.c", "{src}/util/graphics/resize.c",
              "{src}/util/timer/timer.c", "{util}/timing.c", "-o", "{out}", "-lOpenCL", "-lm"]],
    "nn": [["g++", "-O2", "-DTIMING", "-I{util}", "{src}/nearestNeighbor.cpp", "{src}/clutils.cpp",
            "{src}/utils.cpp", "-o", "{out}", "-lOpenCL"]],
    "kmeans": [["g++", "-O0", "-DTIMING", "-I{util}", "-c", "{src}/kmeans.cpp",
                "-o", "{dir}/kmeans.o"],
               ["g++", "-O2", "-DTIMING", "-I{util}", "{dir}/kmeans.o", "{src}/cluster.c",
                "{src}/getopt.c", "{src}/read_input.c", "{src}/kmeans_clustering.c",
                "{src}/rmse.c", "{util}/timing.c", "-o", "{out}", "-lOpenCL"]],
}
REFERENCE_BUILDS = {
    "backprop": [["gcc", "-O2", "-DCK_HOOK_BACKPROP", "-I{src}", "{src}/backprop.c",
                  "{src}/facetrain.c", "{src}/imagenet.c", "{src}/backprop_kernel.c", "{hooks}",
                  "-Wl,--wrap=bpnn_train_kernel", "-o", "{out}", "-lgomp", "-lm"]],
    "nw": [["g++", "-O2", "{src}/needle.cpp", "-o", "{out}", "-lgomp"]],
    "pathfinder": [["g++", "-O2", "-std=gnu++14", "{src}/pathfinder.cpp", "-o", "{out}"]],
    "srad": [["gcc", "-O2", "{src}/srad_v1/main.c", "-o", "{out}", "-lgomp", "-lm"]],
    "nn": [["gcc", "-O2", "{src}/nn_openmp.c", "-o", "{out}", "-lm"]],
    "kmeans": [["gcc", "-O2", "-DCK_HOOK_KMEANS", "-I{src}/kmeans_serial",
                "{src}/kmeans_serial/cluster.c", "{src}/kmeans_serial/getopt.c",
                "{src}/kmeans_serial/kmeans.c", "{src}/kmeans_serial/kmeans_clustering.c",
                "{hooks}", "-Wl,--wrap=cluster", "-o", "{out}", "-lgomp", "-lm"]],
}
# The suite's input generators that the runner uses.
GENERATOR_BUILDS = {
    "nn": [["gcc", "-O2", "{src}/hurricane_gen.c", "-o", "{out}", "-lm"]],
}

# The files of opencl/NAME that each program opens in its working directory
# (linked there, not copied).
LINKS = {
    "lud": ["lud_kernel.cl"], "backprop": ["backprop_kernel.cl"], "nw": ["nw.cl"],
    "pathfinder": ["kernels.cl"], "bfs": ["Kernels.cl"], "srad": ["kernel", "main.h"],
    "nn": ["nearestNeighbor_kernel.cl"], "kmeans": ["kmeans.cl"],
}

# Inputs per size. See the docstring for what each program computes.
SIZES = {
    "lud": {"test": {"n": 256}, "bench": {"n": 1024}},
    "backprop": {"test": {"n": 65536}, "bench": {"n": 4194304}},
    "nw": {"test": {"n": 512}, "bench": {"n": 8192}},
    "pathfinder": {"test": {"cols": 10000, "rows": 100}, "bench": {"cols": 100000, "rows": 100}},
    "bfs": {"test": {"nodes": 8192}, "bench": {"nodes": 4194304}},
    "srad": {"test": {"iterations": 10, "rows": 128, "cols": 128},
             "bench": {"iterations": 100, "rows": 512, "cols": 512}},
    "nn": {"test": {"records": 20000, "files": 2}, "bench": {"records": 2000000, "files": 8}},
    "kmeans": {"test": {"points": 4096}, "bench": {"points": 262144}},
}
PROGRAMS = list(BUILDS)


class Failure(Exception):
    """A program that could not be built, prepared or checked at all."""


# -- building ----------------------------------------------------------------

def expand(command, **places):
    return [word.format(**places) for word in command]


def build(command, log, label):
    """Runs COMMAND (a list) to make the file after its -o, unless that is
    newer than every file the command names and was made by the same
    command."""
    out = command[command.index("-o") + 1]
    stamp = out + ".cmd"
    line = shlex.join(command)
    inputs = [w for w in command if os.path.isfile(w)]
    if (os.path.exists(out) and os.path.exists(stamp) and open(stamp).read() == line and
            all(os.path.getmtime(i) <= os.path.getmtime(out) for i in inputs)):
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    log(f"build: {label}")
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        lines = result.stdout.strip().splitlines()
        tail = "\n".join(([l for l in lines if "error" in l] or lines)[-15:])
        raise Failure(f"build failed ({line}):\n{tail}")
    with open(stamp, "w") as f:
        f.write(line)


class Suite:
    """Where the checkout and the build directory are."""

    def __init__(self, suite_dir, build_dir, log=lambda text: print(text, file=sys.stderr)):
        self.suite = os.path.abspath(suite_dir)
        self.build_dir = os.path.abspath(build_dir)
        self.log = log

    def opencl_dir(self, name):
        return os.path.join(self.build_dir, "opencl", name)

    def data_dir(self, name, size):
        path = os.path.join(self.build_dir, "data", name, size)
        os.makedirs(path, exist_ok=True)
        return path

    def binary(self, name):
        return os.path.join(self.opencl_dir(name), name + ".out")

    def reference_binary(self, name):
        return os.path.join(self.build_dir, "openmp", name, name)

    def generator_binary(self, name):
        return os.path.join(self.build_dir, "openmp", name, "generator")

    def build_program(self, name):
        """Builds the OpenCL host, its reference and generator, and links
        the files it opens into its working directory."""
        util = os.path.join(self.suite, "opencl", "util")
        src = os.path.join(self.suite, "opencl", name)
        if not os.path.isdir(src):
            raise Failure(f"{src} is missing: is {self.suite} a Rodinia 3.1 checkout?")
        omp = os.path.join(self.suite, "openmp", name)
        for table, src_dir, out, what in (
                (BUILDS, src, self.binary(name), f"opencl/{name}"),
                (REFERENCE_BUILDS, omp, self.reference_binary(name), f"openmp/{name} (reference)"),
                (GENERATOR_BUILDS, omp, self.generator_binary(name), f"openmp/{name} (generator)")):
            for command in table.get(name, []):
                build(expand(command, src=src_dir, util=util, out=out, hooks=HOOKS,
                             dir=os.path.dirname(out)), self.log, what)
        for link in LINKS[name]:
            path = os.path.join(self.opencl_dir(name), link)
            if os.path.islink(path) or os.path.exists(path):
                os.remove(path)
            os.symlink(os.path.join(src, link), path)


# -- small helpers -----------------------------------------------------------

def run_reference(command, cwd, env=None, timeout=3600):
    """Runs a sequential reference: (stdout, stderr). OMP_NUM_THREADS=1 in
    case a pragma is ever compiled in."""
    result = subprocess.run(command, cwd=cwd, env=dict(os.environ, OMP_NUM_THREADS="1",
                                                       **(env or {})),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if result.returncode != 0:
        raise Failure(f"reference {shlex.join(command)} exited with {result.returncode}: "
                      f"{result.stderr.decode(errors='replace').strip()[-300:]}")
    return result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")


def last_line(path, cap=64 << 20):
    """The last non-empty line of a (possibly large) text file."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - cap))
        lines = [line for line in f.read().splitlines() if line.strip()]
    return lines[-1].decode() if lines else ""


def floats(path):
    data = array.array("f")
    with open(path, "rb") as f:
        data.frombytes(f.read())
    return data


def read_pgm(path):
    """The grey levels of a P2 image, as Rodinia writes it."""
    with open(path) as f:
        words = f.read().split()
    if not words or words[0] != "P2":
        raise ValueError(f"{path} is not a P2 image")
    cols, rows = int(words[1]), int(words[2])
    return cols, rows, [int(w) for w in words[4:]]


def compare_close(got, want, rel, absolute=0.0, what="value"):
    """None when every got[i] is within absolute + rel * |want[i]|, else what
    was wrong."""
    if len(got) != len(want):
        return f"{len(got)} {what}s, expected {len(want)}"
    bad = [i for i, (g, w) in enumerate(zip(got, want))
           if not abs(g - w) <= absolute + rel * abs(w)]
    if bad:
        i = bad[0]
        return (f"{len(bad)} of {len(want)} {what}s differ, first [{i}]: got {got[i]}, "
                f"expected {want[i]}")
    return None


# -- the programs ------------------------------------------------------------
# Each: prepare(suite, size) -> whatever its runs need (inputs made, the
# reference's result); args(p) -> the OpenCL host's arguments; check(p, run)
# -> None if the run's result is right, else what was wrong. run.stdout is
# the output, run.dir the working directory, run.reads the shim's dumps.

class Prepared:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class Lud:
    def prepare(self, suite, size):
        return Prepared(n=SIZES["lud"][size]["n"])

    def args(self, p):
        return ["-s", str(p.n), "-v", "-p", "0", "-d", "0"]

    def check(self, p, run):
        return check_lud(run.stdout)


def check_lud(text):
    if ">>>Verify<<<<" not in text:
        return "no verification printed"
    bad = []
    for match in re.finditer(r"dismatch at \((\d+), (\d+)\): \(o\)(\S+) \(n\)(\S+)", text):
        want, got = float(match.group(3)), float(match.group(4))
        if not abs(got - want) <= 1e-5 * abs(want):
            bad.append((match.group(1), match.group(2), got, want))
    if bad:
        i, j, got, want = bad[0]
        return (f"{len(bad)} elements of L*U differ from the input, first ({i}, {j}): "
                f"{got} != {want}")
    return None


class Backprop:
    dump_reads = True

    def prepare(self, suite, size):
        n = SIZES["backprop"][size]["n"]
        ref = os.path.join(suite.data_dir("backprop", size), "reference.bin")
        run_reference([suite.reference_binary("backprop"), str(n)],
                      os.path.dirname(suite.reference_binary("backprop")),
                      env={"CK_REFERENCE_FILE": ref})
        values = floats(ref)
        weights = (n + 1) * 17
        if len(values) != n + 2 * weights:
            raise Failure(f"reference wrote {len(values)} floats, expected {n + 2 * weights}")
        return Prepared(n=n, sums=values[:n], weights=values[n:n + weights],
                        changes=values[n + weights:])

    def args(self, p):
        return ["-n", str(p.n), "-p", "0", "-d", "0"]

    def check(self, p, run):
        # Reads: the forward pass's per-block sums, the input units, the
        # updated weights.
        if len(run.reads) < 2:
            return f"the host made {len(run.reads)} blocking reads, expected 3"
        return check_backprop(floats(run.reads[0]), floats(run.reads[-1]), p)


def check_backprop(sums, weights, p):
    """The forward kernel's per-block sums, then the updated weights. The
    OpenCL kernel's tree reduction starts with a step that adds every
    product to itself (i = 1: power_two / 2 == 0), so its sums are twice the
    sequential ones; the hidden units saturate (squash of a sum of thousands
    of positive products is 1.0 in float) either way, and the step's weight
    change is 0: the forward sums are what tests the first kernel."""
    what = compare_close([s / 2 for s in sums], p.sums, rel=1e-5, what="per-block sum")
    if what:
        return "forward pass: " + what
    if len(weights) != len(p.weights):
        return f"last read has {len(weights)} floats, expected {len(p.weights)} weights"
    if weights.tobytes() == p.weights.tobytes():
        return None  # the usual case, and quick at the bench size
    bad = [i for i in range(len(weights)) if not abs(weights[i] - p.weights[i]) <=
           1e-6 * abs(p.weights[i]) + 1e-3 * abs(p.changes[i])]
    if bad:
        i = bad[0]
        return (f"{len(bad)} of {len(weights)} updated weights differ, first [{i}]: got "
                f"{weights[i]}, expected {p.weights[i]} (change {p.changes[i]})")
    return None


class Nw:
    outputs = ["result.txt"]

    def prepare(self, suite, size):
        n = SIZES["nw"][size]["n"]
        cwd = os.path.dirname(suite.reference_binary("nw"))
        run_reference([suite.reference_binary("nw"), str(n), "10", "1"], cwd)
        with open(os.path.join(cwd, "result.txt")) as f:
            return Prepared(n=n, path=f.read().split())

    def args(self, p):
        return [str(p.n), "10", "./nw.cl", "-p", "0", "-d", "0"]

    def check(self, p, run):
        path = os.path.join(run.dir, "result.txt")
        if not os.path.exists(path):
            return "no result.txt written"
        with open(path) as f:
            return compare_exact(f.read().split(), p.path, "traceback score")


def compare_exact(got, want, what):
    if len(got) != len(want):
        return f"{len(got)} {what}s, expected {len(want)}"
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if bad:
        i = bad[0]
        return (f"{len(bad)} of {len(want)} {what}s differ, first [{i}]: got {got[i]}, "
                f"expected {want[i]}")
    return None


class Pathfinder:
    dump_reads = True

    def prepare(self, suite, size):
        cols, rows = SIZES["pathfinder"][size]["cols"], SIZES["pathfinder"][size]["rows"]
        cwd = os.path.dirname(suite.reference_binary("pathfinder"))
        out = os.path.join(suite.data_dir("pathfinder", size), "reference.txt")
        with open(out, "w") as f:
            subprocess.run([suite.reference_binary("pathfinder"), str(cols), str(rows)], cwd=cwd,
                           stdout=f, check=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        result = [int(w) for w in last_line(out).split()]
        os.remove(out)  # the wall it prints first is large and not needed again
        if len(result) != cols:
            raise Failure(f"reference printed {len(result)} results, expected {cols}")
        return Prepared(cols=cols, rows=rows, result=result)

    def args(self, p):
        return ["-c", str(p.cols), "-r", str(p.rows), "-h", "20", "-p", "0", "-d", "0"]

    def check(self, p, run):
        # The read of the result row (the host also reads a debug buffer).
        reads = [r for r in run.reads if os.path.getsize(r) == 4 * p.cols]
        if not reads:
            return f"no blocking read of {p.cols} ints"
        got = array.array("i")
        with open(reads[-1], "rb") as f:
            got.frombytes(f.read())
        return compare_exact(list(got), p.result, "path cost")


class Bfs:
    def prepare(self, suite, size):
        nodes = SIZES["bfs"][size]["nodes"]
        path = os.path.join(suite.data_dir("bfs", size), f"graph{nodes}.txt")
        if not os.path.exists(path):
            write_graph(path, nodes, seed=nodes)
        return Prepared(graph=path)

    def args(self, p):
        return [p.graph, "-p", "0", "-d", "0"]

    def check(self, p, run):
        return check_bfs(run.stdout)


def check_bfs(text):
    if "--cambine:passed" in text:
        return None
    if "--cambine: failed" in text:
        return "the host's CPU BFS found other costs"
    return "the host printed no comparison"


def write_graph(path, nodes, seed, degrees=(1, 11)):
    """A random directed graph in Rodinia's BFS format: node count, (first
    edge, edge count) per node, source, edge count, (node, cost) per edge.
    Written in chunks (the bench size has some 20 million edges)."""
    rng = random.Random(seed)
    counts = [rng.randrange(*degrees) for _ in range(nodes)]
    with open(path + ".tmp", "w") as f:
        f.write(f"{nodes}\n")
        start = 0
        for first in range(0, nodes, 65536):
            lines = []
            for degree in counts[first:first + 65536]:
                lines.append(f"{start} {degree}\n")
                start += degree
            f.write("".join(lines))
        f.write(f"\n0\n\n{start}\n")
        for first in range(0, nodes, 65536):
            total = sum(counts[first:first + 65536])
            f.write("".join(f"{rng.randrange(nodes)} {rng.randrange(1, 10)}\n"
                            for _ in range(total)))
    os.replace(path + ".tmp", path)


class Srad:
    outputs = ["output/image_out.pgm"]

    def prepare(self, suite, size):
        s = SIZES["srad"][size]
        image = os.path.join(suite.build_dir, "data", "srad", "image.pgm")
        if not os.path.exists(image):
            os.makedirs(os.path.dirname(image), exist_ok=True)
            write_image(image, rows=502, cols=458, seed=502)
        os.makedirs(os.path.join(suite.opencl_dir("srad"), "output"), exist_ok=True)
        # openmp/srad/srad_v1 reads ../../../data/srad/image.pgm
        cwd = os.path.join(suite.build_dir, "openmp", "srad", "srad_v1")
        os.makedirs(cwd, exist_ok=True)
        out = os.path.join(cwd, "image_out.pgm")
        if os.path.exists(out):
            os.remove(out)
        run_reference([suite.reference_binary("srad"), str(s["iterations"]), "1",
                       str(s["rows"]), str(s["cols"]), "1"], cwd)
        return Prepared(iterations=s["iterations"], rows=s["rows"], cols=s["cols"],
                        image=read_pgm(out))

    def args(self, p):
        return ["-n", str(p.iterations), "-l", "1", "-s", str(p.rows), str(p.cols),
                "-p", "0", "-d", "0"]

    def check(self, p, run):
        path = os.path.join(run.dir, "output", "image_out.pgm")
        if not os.path.exists(path):
            return "no output/image_out.pgm written"
        got = read_pgm(path)
        if got[:2] != p.image[:2]:
            return f"image of {got[0]}x{got[1]}, expected {p.image[0]}x{p.image[1]}"
        return compare_close(got[2], p.image[2], rel=0, absolute=1, what="pixel")


def write_image(path, rows, cols, seed):
    """A grey-level P2 image: smooth shapes and speckle noise."""
    rng = random.Random(seed)
    lines = ["P2", f"{cols} {rows}", "255"]
    for i in range(rows):
        row = []
        for j in range(cols):
            base = 110 + 60 * math.sin(i / 23.0) * math.cos(j / 31.0)
            base += 50 if (i - 250) ** 2 + (j - 230) ** 2 < 90 ** 2 else 0
            row.append(str(max(1, min(255, int(base * rng.gammavariate(4, 0.25))))))
        lines.append(" ".join(row))
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


class Nn:
    def prepare(self, suite, size):
        s = SIZES["nn"][size]
        data = suite.data_dir("nn", size)
        names = [f"cane{s['files']}_{j}.db" for j in range(s["files"])]
        if not all(os.path.exists(os.path.join(data, "data", n)) for n in names):
            os.makedirs(os.path.join(data, "data"), exist_ok=True)
            run_reference([suite.generator_binary("nn"), str(s["records"]), str(s["files"])],
                          data)
        with open(os.path.join(data, "filelist.txt"), "w") as f:
            f.write("".join(n + "\n" for n in names))
        with open(os.path.join(data, "filelist-paths.txt"), "w") as f:
            f.write("".join(os.path.join(data, "data", n) + "\n" for n in names))
        k = 10
        _, err = run_reference([suite.reference_binary("nn"),
                                os.path.join(data, "filelist-paths.txt"), str(k), "30", "90"],
                               data)
        distances = sorted(float(m) for m in re.findall(r"--> ([-0-9.]+)\s*$", err, re.M))
        if len(distances) != k:
            raise Failure(f"reference printed {len(distances)} neighbours, expected {k}")
        return Prepared(data=data, k=k, distances=distances)

    def args(self, p):
        return [os.path.join(p.data, "filelist.txt"), "-r", str(p.k), "-lat", "30", "-lng", "90",
                "-f", os.path.join(p.data, "data"), "-p", "0", "-d", "0"]

    def check(self, p, run):
        got = sorted(float(m) for m in re.findall(r"--> Distance=([-0-9.]+)", run.stdout))
        return compare_close(got, p.distances, rel=1e-5, absolute=1e-6, what="distance")


class Kmeans:
    def prepare(self, suite, size):
        points = SIZES["kmeans"][size]["points"]
        path = os.path.join(suite.data_dir("kmeans", size), f"points{points}.bin")
        if not os.path.exists(path):
            write_points(path, points, features=34, clusters=5, seed=points)
        ref = os.path.join(suite.data_dir("kmeans", size), "reference.bin")
        run_reference([suite.reference_binary("kmeans"), "-b", "-i", path, "-k", "5"],
                      os.path.dirname(suite.reference_binary("kmeans")),
                      env={"CK_REFERENCE_FILE": ref})
        values = floats(ref)
        if len(values) != 5 * 34:
            raise Failure(f"reference wrote {len(values)} floats, expected 5 x 34")
        return Prepared(points=path, centroids=[values[i * 34:(i + 1) * 34] for i in range(5)])

    def args(self, p):
        return ["-o", "-b", "-i", p.points, "-m", "5", "-n", "5", "-p", "0", "-d", "0"]

    def check(self, p, run):
        got = parse_centroids(run.stdout.partition("Centroid Coordinates")[2])
        if len(got) != len(p.centroids):
            return f"{len(got)} centroids printed, expected {len(p.centroids)}"
        for i, (g, w) in enumerate(zip(got, p.centroids)):
            what = compare_close(g, w, rel=1e-4, absolute=0.006, what=f"centroid {i} feature")
            if what:
                return what
        return None


def parse_centroids(text):
    """[[features]] of the OpenCL host's lines 'I: F F ...'."""
    found = {}
    for match in re.finditer(r"^(\d+):((?:[ \t]+[-0-9.eE+]+)+)[ \t]*$", text, re.M):
        found[int(match.group(1))] = [float(w) for w in match.group(2).split()]
    return [found[i] for i in sorted(found)]


def write_points(path, points, features, clusters, seed):
    """Binary kmeans input (int points, int features, float rows): point i
    around centre i % clusters, so that the first k points seed every one."""
    rng = random.Random(seed)
    centres = [[rng.uniform(0, 10) for _ in range(features)] for _ in range(clusters)]
    data = array.array("f")
    for i in range(points):
        centre = centres[i % clusters]
        data.extend(c + rng.gauss(0, 0.3) for c in centre)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("ii", points, features))
        data.tofile(f)
    os.replace(path + ".tmp", path)


CHECKS = {"lud": Lud(), "backprop": Backprop(), "nw": Nw(), "pathfinder": Pathfinder(),
          "bfs": Bfs(), "srad": Srad(), "nn": Nn(), "kmeans": Kmeans()}


# -- running -----------------------------------------------------------------

def parse_platform(text):
    """'NAME=ICD_DIR[,ENV=VAL...]' -> (NAME, ICD_DIR, {ENV: VAL})."""
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise ValueError(f"platform '{text}' is not NAME=ICD_DIR[,ENV=VAL...]")
    icd, *pairs = rest.split(",")
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"'{pair}' in platform '{name}' is not ENV=VAL")
        env[key] = value
    return name, icd, env


def parse_kernel_time(text):
    """{field: value} of the shim's file (device as text, the rest ints)."""
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        fields[key] = value if key == "device" else int(value)
    return fields


class Run:
    def __init__(self, directory, stdout, reads):
        self.dir, self.stdout, self.reads = directory, stdout, reads


def run_one(suite, shim, platform, name, prepared, timeout):
    """(device, (kernel seconds, wall seconds, launches), what was wrong or
    None) of one process of program NAME on PLATFORM."""
    program, (pname, icd, extra) = CHECKS[name], platform
    cwd = suite.opencl_dir(name)
    times = os.path.join(cwd, f"kernel-time-{pname}.txt")
    dump = os.path.join(cwd, "reads", f"{pname}-")
    for path in [times] + [os.path.join(cwd, o) for o in getattr(program, "outputs", [])]:
        if os.path.exists(path):
            os.remove(path)
    env = dict(os.environ, **extra, OCL_ICD_VENDORS=icd, LD_PRELOAD=shim,
               CK_KERNEL_TIME_FILE=times)
    if getattr(program, "dump_reads", False):
        os.makedirs(os.path.dirname(dump), exist_ok=True)
        for old in os.listdir(os.path.dirname(dump)):
            os.remove(os.path.join(os.path.dirname(dump), old))
        env["CK_READ_DUMP"] = dump
    out = os.path.join(cwd, f"stdout-{pname}.txt")
    command = [suite.binary(name)] + program.args(prepared)
    start = time.monotonic()
    try:
        with open(out, "w") as f:
            result = subprocess.run(command, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                    timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"no result within {timeout} s"
    wall = time.monotonic() - start
    with open(out, errors="replace") as f:
        text = f.read()
    fields = {}
    if os.path.exists(times):
        with open(times) as f:
            fields = parse_kernel_time(f.read())
    device = fields.get("device")
    if result.returncode != 0:
        tail = " / ".join(text.strip().splitlines()[-3:])
        return device, None, f"exited with {result.returncode}: {tail}"
    reads = sorted(os.path.join(os.path.dirname(dump), r) for r in
                   os.listdir(os.path.dirname(dump))) if "CK_READ_DUMP" in env else []
    what = program.check(prepared, Run(cwd, text, reads))
    if what:
        return device, None, what
    if not fields:
        return device, None, "the shim wrote no kernel time (no queue created?)"
    if fields["launches"] == 0 or fields["pending"] or fields["failed"]:
        return device, None, (f"kernel time incomplete: {fields['launches']} launches, "
                              f"{fields['pending']} pending, {fields['failed']} without profile")
    return device, (fields["kernel_ns"] / 1e9, wall, fields["launches"]), None


# -- reporting ---------------------------------------------------------------

def describe(values):
    """Median (min-max) milliseconds of seconds."""
    ms = [v * 1000 for v in values]
    return f"{statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f})"


def launch_counts(samples, platforms, program):
    """The launch count of a program's runs: one number when every platform
    launched as often, else each platform's."""
    counts = {p: sorted({s[2] for s in samples[p].get(program, [])}) for p in platforms}
    seen = {c for cs in counts.values() for c in cs}
    if len(seen) <= 1:
        return str(seen.pop()) if seen else "-"
    return ", ".join(f"{p}: {'/'.join(map(str, cs))}" for p, cs in counts.items() if cs)


def ratios(samples, platforms, programs, index=0):
    """{platform: {program: median / median of the first platform}} for every
    platform after the first."""
    base = platforms[0]

    def median(p, prog):
        runs = samples[p].get(prog)
        return statistics.median(r[index] for r in runs) if runs else None

    table = {}
    for p in platforms[1:]:
        table[p] = {}
        for prog in programs:
            a, b = median(p, prog), median(base, prog)
            table[p][prog] = a / b if a is not None and b else None
    return table


def cell(samples, wrong, platform, program, index):
    if program in samples[platform]:
        return describe([s[index] for s in samples[platform][program]])
    return "wrong" if (program, platform) in wrong else "-"


def print_report(samples, platforms, programs, devices, wrong, failed, repeats, size, commit,
                 warmups=1):
    print(f"\nRodinia 3.1 OpenCL programs ({commit}), size {size}: kernel time (sum of the "
          f"launches' profiled END - START) in milliseconds, median (min-max) of {repeats} "
          f"processes, interleaved, after {warmups} untimed one(s)")
    for p in platforms:
        print(f"  {p}: {devices.get(p, '?')}")
    print()
    print_table(["program", "launches"] + platforms,
                [[prog, launch_counts(samples, platforms, prog)] +
                 [cell(samples, wrong, p, prog, 0) for p in platforms] for prog in programs])
    if len(platforms) > 1:
        table = ratios(samples, platforms, programs)
        print(f"\nratios of the kernel-time medians against {platforms[0]} (above 1: slower)\n")
        header = ["program"] + [f"{p}/{platforms[0]}" for p in platforms[1:]]
        rows = [[prog] + [number(table[p][prog]) for p in platforms[1:]] for prog in programs]
        rows.append(["geometric mean"] + [number(geomean(table[p].values()))
                                          for p in platforms[1:]])
        rows.append(["worst"] + [f"{w[0]:.2f} ({w[1]})" if w else "-"
                                 for w in (worst(table[p]) for p in platforms[1:])])
        print_table(header, rows)
    print("\nwall time of the process (compile, inputs, transfers, the host's own check), "
          "milliseconds\n")
    print_table(["program"] + platforms,
                [[prog] + [cell(samples, wrong, p, prog, 1) for p in platforms]
                 for prog in programs])
    runs = sum(len(r) for p in platforms for r in samples[p].values())
    if wrong or failed:
        print(f"\nFAIL: {len(wrong)} result(s) wrong or failed, not timed there; "
              f"{len(failed)} program(s) not run:")
        for (prog, p), what in sorted(wrong.items()):
            print(f"  {prog} on {p}: {what}")
        for prog, what in sorted(failed.items()):
            print(f"  {prog}: {what}")
        return 1
    print(f"\nall {runs} timed runs matched their references")
    return 0


def suite_commit(path):
    try:
        return "commit " + subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"],
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                          text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return path


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite-dir", required=True, help="a checkout of Rodinia 3.1")
    parser.add_argument("--build-dir", required=True,
                        help="where the programs, inputs and outputs go")
    parser.add_argument("--platforms", nargs="+", required=True,
                        metavar="NAME=ICD_DIR[,ENV=VAL...]",
                        help="the platforms, the first the ratios' base")
    parser.add_argument("--shim", required=True, help="kernel_time_shim.so (the plugin build's)")
    parser.add_argument("--programs", default=",".join(PROGRAMS),
                        help=f"comma-separated, of {', '.join(PROGRAMS)}")
    parser.add_argument("--repeats", type=int, default=3, help="processes per program and platform")
    parser.add_argument("--size", choices=["test", "bench"], default="bench")
    parser.add_argument("--warmups", type=int, default=1,
                        help="untimed (but checked) processes per program and platform first")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per process")
    args = parser.parse_args()
    if args.repeats < 1 or args.warmups < 0:
        parser.error("--repeats takes a positive number, --warmups one of 0 or more")
    programs = [p for p in args.programs.split(",") if p]
    unknown = [p for p in programs if p not in PROGRAMS]
    if unknown:
        parser.error(f"unknown program {', '.join(unknown)} (known: {', '.join(PROGRAMS)})")
    try:
        platforms = [parse_platform(p) for p in args.platforms]
    except ValueError as e:
        parser.error(str(e))
    names = [p[0] for p in platforms]
    if len(set(names)) != len(names):
        parser.error("two platforms of one name")
    for name, icd, _ in platforms:
        if not os.path.isdir(icd):
            parser.error(f"platform {name}: no ICD directory {icd}")
    if not os.path.isfile(args.shim):
        parser.error(f"no shim {args.shim}")
    shim = os.path.abspath(args.shim)

    suite = Suite(args.suite_dir, args.build_dir)
    prepared, failed = {}, {}
    for name in programs:
        try:
            suite.build_program(name)
            suite.log(f"reference and inputs: {name} ({args.size})")
            prepared[name] = CHECKS[name].prepare(suite, args.size)
        except (Failure, subprocess.SubprocessError, OSError, ValueError) as e:
            failed[name] = str(e)
            print(f"FAILED: {name}: {e}", file=sys.stderr)

    samples = {p: {} for p in names}
    devices, wrong = {}, {}
    # Untimed warm-ups first (-1), then the timed repeats.
    for repeat in range(-args.warmups, args.repeats):
        for name in programs:
            if name not in prepared:
                continue
            for platform in round_robin(platforms, max(repeat, 0)):
                pname = platform[0]
                if (name, pname) in wrong:
                    continue
                device, sample, what = run_one(suite, shim, platform, name, prepared[name],
                                               args.timeout)
                if device:
                    devices.setdefault(pname, device)
                if what:
                    wrong[(name, pname)] = what
                    print(f"WRONG: {name} on {pname}: {what}", file=sys.stderr)
                elif repeat >= 0:
                    samples[pname].setdefault(name, []).append(sample)
        print(f"repeat {repeat + 1}/{args.repeats} done" if repeat >= 0 else "warm-up done",
              file=sys.stderr)
    return print_report(samples, names, programs, devices, wrong, failed, args.repeats,
                        args.size, suite_commit(suite.suite), args.warmups)


if __name__ == "__main__":
    sys.exit(main())
