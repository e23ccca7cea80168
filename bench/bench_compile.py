#!/usr/bin/env python3
"""Compile time of OpenCL programs nobody here wrote, patched against
unpatched Mesa, rusticl on llvmpipe, with Mesa's shader cache disabled (as
a new machine has it).

Each program is run by piglit's cl-program-tester, which builds it (rusticl
compiles it to NIR at clBuildProgram) and launches each kernel once on its
small test input (llvmpipe compiles the shader at the first launch); the
tests' own run time is milliseconds. Runs are paired: for every repeat, the
unpatched and the patched run of one program follow each other, in
alternating order, so that the machine's drift affects both. Prints, per
program, the median wall time of each (with the spread), their ratio, the
ratio of the median CPU times (user + system: what the compiles cost, less
the time the machine gave to others), and then the geometric mean and the
worst ratio of the ordinary programs and, separately, of the cooperative
ones.
"""
import argparse
import math
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import time

PIGLIT = pathlib.Path("/usr/lib/x86_64-linux-gnu/piglit")
TESTER = PIGLIT / "bin" / "cl-program-tester"
MATH = PIGLIT / "generated_tests" / "cl" / "builtin" / "math"
PROGRAMS = PIGLIT / "tests" / "cl" / "program" / "execute"
# A sample of piglit's other cl programs: control flow, vectors, atomics,
# local memory, large kernels.
SAMPLE = ["for-loop.cl", "if.cl", "switch.cl", "vector-conversion.cl",
          "scalar-comparison-int.cl", "atomic_int-local.cl", "local-memory.cl",
          "reference.cl", "sizeof.cl", "pyrite-mandelbrot.cl"]


def corpus(root, extra):
    """(name, path, cooperative) of every program to compile."""
    ordinary = sorted(MATH.glob("builtin-float-*-1.0.generated.cl"))
    ordinary += [PROGRAMS / name for name in SAMPLE if (PROGRAMS / name).exists()]
    items = [(p.name.replace(".generated.cl", "").replace(".cl", ""), p, False)
             for p in ordinary]
    items += [(p.stem, p, True) for p in sorted((root / "tests/cl/program/execute").glob("*.cl"))]
    items += [(p.stem, p, False) for p in extra]
    return items


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(env, path, timeout):
    """(wall seconds, CPU seconds, passed), or None on a timeout."""
    start, cpu_start = time.monotonic(), children_cpu_seconds()
    try:
        result = subprocess.run([str(TESTER), str(path)], env=env, timeout=timeout,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok = '"result": "pass"' in result.stdout or '"result": "skip"' in result.stdout
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - start, children_cpu_seconds() - cpu_start, ok


def describe(times):
    if not times:
        return "timeout"
    return f"{statistics.median(times):7.2f} s ({min(times):.2f}-{max(times):.2f})"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def add_mesa_arguments(parser, zink=False):
    """The options naming the patched and the unpatched Mesa: each one's ICD
    directory (rusticl's); with zink, also --driver and each one's Vulkan
    ICD file (lavapipe's), which zink runs on."""
    parser.add_argument("--patched-icd", required=True,
                        help="an ICD directory naming rusticl of the patched Mesa alone")
    parser.add_argument("--unpatched-icd", required=True, help="the same of the unpatched Mesa")
    if zink:
        parser.add_argument("--driver", choices=["llvmpipe", "zink"], default="llvmpipe",
                            help="the driver under rusticl")
        parser.add_argument("--patched-vk-icd", required=True,
                            help="the Vulkan ICD file of the patched Mesa's lavapipe (for zink)")
        parser.add_argument("--unpatched-vk-icd", required=True,
                            help="the same of the unpatched Mesa")
    else:
        parser.set_defaults(driver="llvmpipe")


def mesa_environments(args, **variables):
    """{"unpatched": env, "patched": env}: each points the ICD loader at one
    Mesa's rusticl and enables args.driver there, as tools/lib/mesa.sh's
    mesa_env_exports does: llvmpipe, or zink over that Mesa's lavapipe."""
    envs = {}
    for which in ("unpatched", "patched"):
        env = dict(os.environ, OCL_ICD_VENDORS=getattr(args, f"{which}_icd"), **variables)
        if args.driver == "zink":
            env.update(RUSTICL_ENABLE="swrast", GALLIUM_DRIVER="zink", LIBGL_ALWAYS_SOFTWARE="1",
                       VK_DRIVER_FILES=getattr(args, f"{which}_vk_icd"))
        else:
            env.update(RUSTICL_ENABLE="llvmpipe")
        envs[which] = env
    return envs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    add_mesa_arguments(parser)
    parser.add_argument("--root", required=True, type=pathlib.Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per run")
    parser.add_argument("--filter", action="append", default=[],
                        help="only programs whose name contains this (repeatable)")
    parser.add_argument("--skip", action="append", default=[],
                        help="leave out programs whose name contains this (repeatable)")
    parser.add_argument("--program", action="append", default=[], type=pathlib.Path,
                        help="another piglit-format .cl program to include")
    args = parser.parse_args()

    items = [i for i in corpus(args.root, args.program)
             if (not args.filter or any(f in i[0] for f in args.filter))
             and not any(s in i[0] for s in args.skip)]
    envs = mesa_environments(args, MESA_SHADER_CACHE_DISABLE="true")
    for env in envs.values():
        env.pop("MESA_SHADER_CACHE_DIR", None)
    print(f"{len(items)} programs, {args.repeats} paired runs each, shader cache disabled")
    print(f"{'program':44} {'unpatched':>26} {'patched':>26} {'ratio':>6} {'cpu':>6}")
    ratios = {False: []}
    cpu_ratios = []
    worst = {False: None}
    cooperative_times = []
    failures = []
    for name, path, cooperative in items:
        times = {"unpatched": [], "patched": []}
        cpu_times = {"unpatched": [], "patched": []}
        for repeat in range(args.repeats):
            order = ["unpatched", "patched"] if repeat % 2 == 0 else ["patched", "unpatched"]
            for which in order:
                if cooperative and which == "unpatched":
                    continue  # needs the extension
                # The cooperative tests launch up to 4 work-groups that must
                # all be active at once (as tests/meson.build runs them).
                env = dict(envs[which], LP_NUM_THREADS="4") if cooperative else envs[which]
                run = run_once(env, path, args.timeout)
                if run is None:
                    continue
                wall, cpu, ok = run
                if not ok:
                    failures.append(f"{name} ({which})")
                times[which].append(wall)
                cpu_times[which].append(cpu)
        ratio = cpu_ratio = None
        if cooperative and times["patched"]:
            cooperative_times.append(statistics.median(times["patched"]))
        if times["unpatched"] and times["patched"]:
            ratio = statistics.median(times["patched"]) / statistics.median(times["unpatched"])
            cpu_ratio = (statistics.median(cpu_times["patched"]) /
                         statistics.median(cpu_times["unpatched"]))
            ratios[cooperative].append(ratio)
            cpu_ratios.append(cpu_ratio)
            if worst[cooperative] is None or ratio > worst[cooperative][1]:
                worst[cooperative] = (name, ratio)
        label = name + (" [cooperative]" if cooperative else "")
        unpatched = "-" if cooperative else describe(times["unpatched"])
        print(f"{label:44} {unpatched:>26} {describe(times['patched']):>26} "
              f"{ratio if ratio is not None else float('nan'):6.3f} "
              f"{cpu_ratio if cpu_ratio is not None else float('nan'):6.3f}", flush=True)
    if ratios[False]:
        print(f"ordinary: {len(ratios[False])} programs, patched/unpatched geometric mean "
              f"{geomean(ratios[False]):.3f}, worst {worst[False][1]:.3f} ({worst[False][0]}); "
              f"CPU time: geometric mean {geomean(cpu_ratios):.3f}, worst {max(cpu_ratios):.3f}")
    if cooperative_times:
        print(f"cooperative: {len(cooperative_times)} programs (patched only), median "
              f"{statistics.median(cooperative_times):.2f} s, longest {max(cooperative_times):.2f} s")
    if failures:
        print("FAILED runs (timed all the same): " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
