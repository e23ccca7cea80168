#!/usr/bin/env python3
"""Progress litmus tests on an OpenCL implementation (tools/ck bench progress).

Runs the tests of tests/progress/litmus.py (docs/progress-models.md) as
OpenCL kernels on whatever OpenCL implementation the environment selects
(OCL_ICD_VENDORS), and prints which progress models of
tests/progress/oracle.py the results are consistent with: a model is
refuted when a test that must terminate under it did not.

Each test is compiled once to one kernel that runs any number of instances
of the test (OOPSLA'21 §6.1), one work-item per work-group, with
work-group w running

    plain        the test once: thread w (N = threads);
    round-robin  thread w % T of instance w / T (the threads of an instance
                 are neighbours);
    chunked      thread w / I of instance w % I (work-groups 0..I-1 run
                 thread 0 of every instance, the next I thread 1, ...);

for T threads and I instances. Both orders keep the threads of an instance
in id order, so a model of the whole launch gives each instance at least
that model. Every mapping except plain runs twice: with at most as many
work-groups as compute units (I = units // T) and with many more
(I = --instances-per-unit x units).

Kernels come in two forms (--kernel):

  ordinary     each instruction a loop of atomic attempts, as to_opencl
               writes it; a work-group records each instruction it passed
               in a bit of its status word (atomic_or), so that a loop that
               the driver ended early (stock llvmpipe's loop limiter)
               shows as an instruction not passed;
  cooperative  a cooperative kernel (cl_ext_cooperative_kernels): the
               work-group keeps its program counter in global memory,
               indexed by its id, and loops: one attempt of its current
               instruction, the new counter stored, offer_kill(),
               request_fork() (the status word holds 256 | counter once the
               work-group ran). A killed work-group never resumes, but the
               work-group that a later fork starts with the same id reads
               the counter and carries on: a kill suspends the litmus
               thread, a fork resumes it, and every attempt happens
               between the two, whole. So the kernel keeps the test's
               semantics whatever the scheduler does, and the spec's
               guarantee (fair scheduling of the active work-groups 0..M-1)
               is tested directly.

A hang cannot be stopped inside a process: the launches run in a worker
process (this file with --worker, OpenCL through ctypes and
libOpenCL.so.1), which compiles each test once and answers each launch; a
launch that does not answer within --timeout seconds is a hang, the worker
is killed and a new one started for the next launch.

A launch's result:
  ok       every work-group passed its last instruction, and every
           instance's memory is a final memory of the test (oracle);
  gave-up  the kernel completed but some work-group did not pass an
           instruction: its loop ended early (a loop limiter); counted as a
           non-termination, since the test's semantics did not end it;
  unstarted  (cooperative) the kernel completed but some work-group never
           ran: the scheduler forked no work-group with its id before the
           last active one returned (the spec promises no fork); counted
           as a non-termination of that litmus thread;
  wrong    completed with every instruction passed but a memory no
           execution of the test ends with (a miscompilation);
  hang     no answer within the timeout (with --confirm S, a hang that
           refutes weak LOBE, or with N <= units, is run again with S
           seconds: 'slow' if it then ends, which counts as terminated);
  error    an OpenCL error (build, launch).
"""
import argparse
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "progress"))

import litmus  # noqa: E402
import oracle  # noqa: E402

STRIDE = 16  # ints between the words of two instances (a cache line)
MAPPINGS = ("plain", "round-robin", "chunked")
# The short form (tools/ck test, meson test progress_litmus): a fixed sample,
# one or two tests of each weak class plus livelocks, kept small because
# every expected hang costs the timeout.
SHORT_TESTS = (
    "st x 1 | ld x 1",                              # {HSA, HSA+OBE, LOBE, fair}
    "ld x 1 | st x 1",                              # {fair}
    "cas x 0 1; st x 0 | cas x 0 1; st x 0",        # {OBE, HSA+OBE, LOBE, fair}
    "st x 1; ld x 1 | cas x 1 0; st x 1",           # {HSA+OBE, LOBE, fair}
    "cas x 0 1 | cas x 1 0 | st x 1",               # {LOBE, fair}
    "st x 1; st x 0 | ld x 0",                      # all five
    "ld x 1 | ld y 1 | st x 1; st y 1",             # {fair}, three work-groups
    "xchg x 0 0 | xchg x 1 1",                      # livelock: strong only
)


# ---------------------------------------------------------------- kernels

def _header(test):
    lines = [f"// {litmus.format_test(test)}",
             "kernel void litmus(volatile global int *mem, volatile global int *status,",
             "                   uint instances, uint chunked)",
             "{"]
    body = ["uint g = get_group_id(0);",
            f"uint t = chunked ? g / instances : g % {len(test)}u;",
            f"uint i = chunked ? g % instances : g / {len(test)}u;",
            f"volatile global int *m = mem + i * {STRIDE}u;"]
    return lines, body


def kernel_source(test, form):
    """OpenCL C of `test` in `form` ('ordinary' or 'cooperative'); the
    kernel `litmus(mem, status, instances, chunked)` is launched with one
    work-item per work-group on zeroed buffers."""
    lines, body = _header(test)
    if form == "ordinary":
        lines += ["    " + b for b in body]
        lines.append("    switch (t) {")
        for t, program in enumerate(test):
            lines.append(f"    case {t}:")
            for pc, instr in enumerate(program):
                word = f"&m[{instr.loc}]"
                if instr.op == "st":
                    lines.append(f"        atomic_xchg({word}, {instr.write});")
                else:
                    lines += [f"        while ({litmus.opencl_spin_condition(instr, word)})",
                              "            ;"]
                lines.append(f"        atomic_or(&status[g], {1 << pc});")
            lines.append("        break;")
        lines += ["    }", "}"]
    elif form == "cooperative":
        lines.append("    for (;;) {")
        lines += ["        " + b for b in body]
        lines += ["        int pc = atomic_or(&status[g], 0) & 255;",
                  "        int next = pc + 1;",
                  "        switch (t * 16u + (uint)pc) {"]
        for t, program in enumerate(test):
            for pc, instr in enumerate(program):
                word = f"&m[{instr.loc}]"
                lines.append(f"        case {t * 16 + pc}:")
                if instr.op == "st":
                    lines.append(f"            atomic_xchg({word}, {instr.write});")
                else:
                    lines.append(f"            if ({litmus.opencl_spin_condition(instr, word)})")
                    lines.append(f"                next = pc;")
                lines.append("            break;")
            lines += [f"        case {t * 16 + len(program)}:", "            return;"]
        lines += ["        }",
                  "        atomic_xchg(&status[g], 256 | next);",
                  "        offer_kill();",
                  "        request_fork();",
                  "    }",
                  "}"]
    else:
        raise ValueError(form)
    return "\n".join(lines) + "\n"


def launches(threads, units, instances_per_unit, mappings=MAPPINGS):
    """[(mapping, instances, N)] for a test of `threads` threads."""
    result = []
    for mapping in mappings:
        if mapping == "plain":
            result.append(("plain", 1, threads))
            continue
        few = max(1, units // threads)
        many = max(2, instances_per_unit * units)
        for instances in (few, many):
            result.append((mapping, instances, instances * threads))
    return result


def size_class(n, units):
    return "N<=units" if n <= units else "N>units"


# ---------------------------------------------------------------- worker

class CL:
    """The few OpenCL calls the worker needs, through ctypes."""

    def __init__(self):
        lib = ctypes.CDLL("libOpenCL.so.1")
        self.lib = lib
        vp, sz, u32, i32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_int32
        P = ctypes.POINTER
        sig = {
            "clGetPlatformIDs": (i32, [u32, P(vp), P(u32)]),
            "clGetPlatformInfo": (i32, [vp, u32, sz, vp, P(sz)]),
            "clGetDeviceIDs": (i32, [vp, ctypes.c_uint64, u32, P(vp), P(u32)]),
            "clGetDeviceInfo": (i32, [vp, u32, sz, vp, P(sz)]),
            "clCreateContext": (vp, [vp, u32, P(vp), vp, vp, P(i32)]),
            "clCreateCommandQueue": (vp, [vp, vp, ctypes.c_uint64, P(i32)]),
            "clCreateBuffer": (vp, [vp, ctypes.c_uint64, sz, vp, P(i32)]),
            "clCreateProgramWithSource": (vp, [vp, u32, P(ctypes.c_char_p), P(sz), P(i32)]),
            "clBuildProgram": (i32, [vp, u32, P(vp), ctypes.c_char_p, vp, vp]),
            "clGetProgramBuildInfo": (i32, [vp, vp, u32, sz, vp, P(sz)]),
            "clCreateKernel": (vp, [vp, ctypes.c_char_p, P(i32)]),
            "clGetKernelWorkGroupInfo": (i32, [vp, vp, u32, sz, vp, P(sz)]),
            "clSetKernelArg": (i32, [vp, u32, sz, vp]),
            "clEnqueueWriteBuffer": (i32, [vp, vp, u32, sz, sz, vp, u32, vp, vp]),
            "clEnqueueReadBuffer": (i32, [vp, vp, u32, sz, sz, vp, u32, vp, vp]),
            "clEnqueueNDRangeKernel": (i32, [vp, vp, u32, P(sz), P(sz), P(sz), u32, vp, vp]),
            "clFinish": (i32, [vp]),
            "clReleaseMemObject": (i32, [vp]),
            "clReleaseKernel": (i32, [vp]),
            "clReleaseProgram": (i32, [vp]),
        }
        for name, (res, args) in sig.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        count = ctypes.c_uint32()
        self.check(lib.clGetPlatformIDs(0, None, ctypes.byref(count)), "clGetPlatformIDs")
        if count.value == 0:
            raise RuntimeError("no OpenCL platform")
        platforms = (ctypes.c_void_p * count.value)()
        self.check(lib.clGetPlatformIDs(count.value, platforms, None), "clGetPlatformIDs")
        self.platform = platforms[0]
        device = ctypes.c_void_p()
        self.check(lib.clGetDeviceIDs(self.platform, 0xFFFFFFFF, 1, ctypes.byref(device), None),
                   "clGetDeviceIDs")
        self.device = device
        err = ctypes.c_int32()
        self.context = lib.clCreateContext(None, 1, ctypes.byref(device), None, None,
                                           ctypes.byref(err))
        self.check(err.value, "clCreateContext")
        self.queue = lib.clCreateCommandQueue(self.context, device, 0, ctypes.byref(err))
        self.check(err.value, "clCreateCommandQueue")

    @staticmethod
    def check(err, what):
        if err != 0:
            raise RuntimeError(f"{what} failed ({err})")

    def _string(self, getter, handle, param):
        size = ctypes.c_size_t()
        getter(handle, param, 0, None, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value + 1)
        getter(handle, param, size.value, buf, None)
        return buf.value.decode(errors="replace")

    def describe(self):
        cus = ctypes.c_uint32()
        self.lib.clGetDeviceInfo(self.device, 0x1002, 4, ctypes.byref(cus), None)
        return {"platform": self._string(self.lib.clGetPlatformInfo, self.platform, 0x0902),
                "version": self._string(self.lib.clGetPlatformInfo, self.platform, 0x0901),
                "device": self._string(self.lib.clGetDeviceInfo, self.device, 0x102B),
                "compute_units": cus.value}

    def build(self, source):
        err = ctypes.c_int32()
        src = ctypes.c_char_p(source.encode())
        program = self.lib.clCreateProgramWithSource(self.context, 1, ctypes.byref(src), None,
                                                      ctypes.byref(err))
        self.check(err.value, "clCreateProgramWithSource")
        rc = self.lib.clBuildProgram(program, 1, ctypes.byref(self.device), b"", None, None)
        if rc != 0:
            log = self._string(lambda h, p, s, b, r: self.lib.clGetProgramBuildInfo(
                h, self.device, p, s, b, r), program, 0x1183)
            raise RuntimeError(f"clBuildProgram failed ({rc}): {log[-2000:]}")
        kernel = self.lib.clCreateKernel(program, b"litmus", ctypes.byref(err))
        self.check(err.value, "clCreateKernel")
        cooperative = ctypes.c_uint32()
        max_active = ctypes.c_size_t()
        if self.lib.clGetKernelWorkGroupInfo(kernel, self.device, 0x4F00, 4,
                                             ctypes.byref(cooperative), None) != 0:
            cooperative.value = 0
        if self.lib.clGetKernelWorkGroupInfo(kernel, self.device, 0x4F01,
                                             ctypes.sizeof(max_active),
                                             ctypes.byref(max_active), None) != 0:
            max_active.value = 0
        return program, kernel, bool(cooperative.value), max_active.value

    def run(self, kernel, words, groups, instances, chunked):
        lib, err = self.lib, ctypes.c_int32()
        mem_host = (ctypes.c_int32 * words)()
        status_host = (ctypes.c_int32 * groups)()
        buffers = []
        for host in (mem_host, status_host):
            buf = lib.clCreateBuffer(self.context, 1 | 32, ctypes.sizeof(host), host,
                                     ctypes.byref(err))  # READ_WRITE | COPY_HOST_PTR
            self.check(err.value, "clCreateBuffer")
            buffers.append(ctypes.c_void_p(buf))
        try:
            for index, buf in enumerate(buffers):
                self.check(lib.clSetKernelArg(kernel, index, ctypes.sizeof(buf),
                                              ctypes.byref(buf)), "clSetKernelArg")
            for index, value in ((2, instances), (3, chunked)):
                v = ctypes.c_uint32(value)
                self.check(lib.clSetKernelArg(kernel, index, 4, ctypes.byref(v)),
                           "clSetKernelArg")
            gsize, lsize = ctypes.c_size_t(groups), ctypes.c_size_t(1)
            start = time.perf_counter()
            self.check(lib.clEnqueueNDRangeKernel(self.queue, kernel, 1, None,
                                                  ctypes.byref(gsize), ctypes.byref(lsize),
                                                  0, None, None), "clEnqueueNDRangeKernel")
            self.check(lib.clFinish(self.queue), "clFinish")
            seconds = time.perf_counter() - start
            for buf, host in zip(buffers, (mem_host, status_host)):
                self.check(lib.clEnqueueReadBuffer(self.queue, buf, 1, 0, ctypes.sizeof(host),
                                                   host, 0, None, None), "clEnqueueReadBuffer")
        finally:
            for buf in buffers:
                lib.clReleaseMemObject(buf)
        return list(mem_host), list(status_host), seconds


def worker():
    """Answers one JSON line per request on stdin: {"source"} builds and
    keeps the program, {"run": [instances, chunked, groups, words]} runs it."""
    def reply(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()
    try:
        cl = CL()
        reply({"hello": cl.describe()})
    except Exception as e:  # noqa: BLE001 - reported to the parent
        reply({"error": str(e)})
        return 1
    kernel = None
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "source" in request:
                if kernel is not None:
                    cl.lib.clReleaseKernel(kernel[1])
                    cl.lib.clReleaseProgram(kernel[0])
                    kernel = None
                start = time.perf_counter()
                program, k, cooperative, max_active = cl.build(request["source"])
                kernel = (program, k)
                reply({"built": time.perf_counter() - start, "cooperative": cooperative,
                       "max_active": max_active})
            else:
                instances, chunked, groups, words = request["run"]
                mem, status, seconds = cl.run(kernel[1], words, groups, instances, chunked)
                reply({"mem": mem, "status": status, "seconds": seconds})
        except Exception as e:  # noqa: BLE001
            reply({"error": str(e)})
    return 0


# ---------------------------------------------------------------- parent

class Worker:
    """The worker process, restarted after a hang."""

    def __init__(self, env):
        self.env = env
        self.proc = None
        self.hello = None
        self.source = None
        self.buffer = b""

    def start(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=self.env, start_new_session=True)
        self.buffer = b""
        self.source = None
        self.hello = self.request(None, 120)
        if self.hello is None or "hello" not in self.hello:
            return None
        return self.hello["hello"]

    def start_retrying(self, attempts=5):
        """start(), again after a pause when it fails (a driver library being
        rewritten by a build, say); exits after `attempts` failures."""
        for attempt in range(attempts):
            hello = self.start()
            if hello is not None:
                return hello
            self.stop()
            time.sleep(5 * (attempt + 1))
        raise SystemExit(f"progress_bench: the OpenCL worker did not start: {self.hello}")

    def stop(self):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None

    def request(self, obj, timeout):
        """Sends obj (None: nothing) and waits for one reply line; None on
        timeout or if the worker died."""
        if obj is not None:
            try:
                self.proc.stdin.write((json.dumps(obj) + "\n").encode())
                self.proc.stdin.flush()
            except BrokenPipeError:
                return None
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def ensure(self, source, build_timeout):
        if self.proc is None:
            self.start_retrying()
        if self.source == source:
            return {"built": 0.0, "cached": True}
        answer = self.request({"source": source}, build_timeout)
        if answer is None:
            self.stop()
            return {"error": "build timed out"}
        if "error" not in answer:
            self.source = source
        return answer


def judge(test, finals, instances, groups, answer, form, mapping_chunked):
    """The result of one completed launch: ok, gave-up or wrong."""
    lengths = [len(p) for p in test]
    threads = len(test)
    words = 1 + max(i.loc for p in test for i in p)
    unstarted = False
    for g, value in enumerate(answer["status"][:groups]):
        t = g // instances if mapping_chunked else g % threads
        if form == "cooperative":
            if value == 0:
                unstarted = True
                continue
            done = value & 255 == lengths[t]
        else:
            done = value == (1 << lengths[t]) - 1
        if not done:
            return "gave-up"
    if unstarted:
        return "unstarted"
    mem = answer["mem"]
    for i in range(instances):
        if tuple(mem[i * STRIDE:i * STRIDE + words]) not in finals:
            return "wrong"
    return "ok"


def final_memories(graph, test):
    return {s.memory for s in graph.states
            if all(pc == len(p) for pc, p in zip(s.pcs, test))}


def select_tests(args):
    if args.tests:
        return [litmus.parse(t) for t in args.tests]
    if args.short:
        return [litmus.parse(t) for t in SHORT_TESTS]
    bounds = litmus.BOUNDS
    if args.bounds:
        bounds = [tuple(int(x) for x in b.split(",")) for b in args.bounds]
    tests = [t for b in bounds for t in litmus.generate(*b)]
    if args.sample and args.sample < len(tests):
        step = len(tests) / args.sample
        tests = [tests[int(k * step)] for k in range(args.sample)]
    return tests


def consistent_models(results, verdicts):
    """{strength: [models not refuted]} given {test text: terminated?}."""
    consistent = {}
    for strength in oracle.STRENGTHS:
        consistent[strength] = [m for m in oracle.MODELS
                                if all(ok or not verdicts[text][(m, strength)]
                                       for text, ok in results.items())]
    return consistent


# The models above each one (CONCUR'18 §5: fair > LOBE > HSA+OBE > HSA, OBE > unfair).
ABOVE = {"unfair": {"HSA", "OBE", "HSA+OBE", "LOBE", "fair"}, "HSA": {"HSA+OBE", "LOBE", "fair"},
         "OBE": {"HSA+OBE", "LOBE", "fair"}, "HSA+OBE": {"LOBE", "fair"}, "LOBE": {"fair"},
         "fair": set()}


def strongest(models):
    """The models of `models` that no other one of them is above: with the
    refuted models closed upwards, these name the whole set."""
    return [m for m in models if not ABOVE[m] & set(models)]


def format_models(consistent):
    return "; ".join(f"{s}: {' and '.join(strongest(consistent[s])) or 'none'}"
                     for s in oracle.STRENGTHS)


def run_config(args):
    env = dict(os.environ)
    units = args.units
    tests = select_tests(args)
    verdicts, finals = {}, {}
    for test in tests:
        graph = oracle.StateGraph(test)
        text = litmus.format_test(test)
        verdicts[text] = graph.verdicts()
        finals[text] = final_memories(graph, test)
    mappings = args.mappings.split(",") if args.mappings else MAPPINGS
    worker = Worker(env)
    hello = worker.start_retrying()
    print(f"progress: configuration {args.config}: {hello['platform']} ({hello['version']}), "
          f"device {hello['device']}, {hello['compute_units']} compute units reported; "
          f"LP_NUM_THREADS={os.environ.get('LP_NUM_THREADS', 'unset')}, "
          f"CK_POLICY={os.environ.get('CK_POLICY', 'unset')}; units used for N: {units}; "
          f"kernel form: {args.kernel}; timeout {args.timeout}s; {len(tests)} tests",
          flush=True)
    records = []
    start = time.monotonic()
    build_seconds = []
    for index, test in enumerate(tests):
        text = litmus.format_test(test)
        source = kernel_source(test, args.kernel)
        words = 1 + max(i.loc for p in test for i in p)
        for mapping, instances, groups in launches(len(test), units, args.instances_per_unit,
                                                   mappings):
            record = {"test": text, "mapping": mapping, "instances": instances, "N": groups,
                      "size": size_class(groups, units)}
            built = worker.ensure(source, args.build_timeout)
            if "error" in built:
                record.update(result="error", detail=built["error"])
                records.append(record)
                continue
            if not built.get("cached"):
                build_seconds.append(built["built"])
                if args.kernel == "cooperative" and not built.get("cooperative"):
                    raise SystemExit("progress_bench: the kernel is not cooperative "
                                     "(is this the patched Mesa?)")
            chunked = mapping == "chunked"
            answer = worker.request({"run": [instances, int(chunked), groups,
                                             instances * STRIDE]}, args.timeout)
            if answer is None:
                worker.stop()
                record["result"] = "hang"
            elif "error" in answer:
                record.update(result="error", detail=answer["error"])
            else:
                record["result"] = judge(test, finals[text], instances, groups, answer,
                                         args.kernel, chunked)
                record["seconds"] = answer["seconds"]
            records.append(record)
            if args.verbose or record["result"] not in ("ok", "hang"):
                print(f"  {record['result']:8} {mapping:11} I={instances:<3} N={groups:<3} "
                      f"{text}" + (f"  ({record.get('detail')})" if "detail" in record else ""),
                      flush=True)
        if args.json and (index + 1) % 25 == 0:  # partial results, in case of a crash
            with open(args.json + ".partial", "w") as f:
                json.dump({"config": args.config, "records": records}, f)
        if args.progress and (index + 1) % 50 == 0:
            print(f"  ... {index + 1}/{len(tests)} tests, {time.monotonic() - start:.0f}s",
                  flush=True)
    if args.confirm:
        confirm_hangs(args, worker, tests, verdicts, finals, records)
    worker.stop()
    elapsed = time.monotonic() - start
    summary = {"config": args.config, "hello": hello, "units": units,
               "lp_num_threads": os.environ.get("LP_NUM_THREADS"),
               "policy": os.environ.get("CK_POLICY"), "kernel": args.kernel,
               "timeout": args.timeout, "tests": len(tests), "seconds": elapsed,
               "build_seconds": sum(build_seconds), "builds": len(build_seconds),
               "records": records}
    report(summary, verdicts)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f)
    return check_promises(summary, verdicts, args.expect)


def confirm_hangs(args, worker, tests, verdicts, finals, records):
    """Runs each hung launch again with --confirm seconds when its test must
    end under weak LOBE or its N is at most the units: those hangs refute
    the models a CPU is expected to give, so a slow launch (a loaded
    machine) must not pass for one. One that completes this time is 'slow'
    and counts as terminated."""
    by_text = {litmus.format_test(t): t for t in tests}
    for record in records:
        if record["result"] != "hang" or not (verdicts[record["test"]][("LOBE", "weak")]
                                              or record["size"] == "N<=units"):
            continue
        test = by_text[record["test"]]
        built = worker.ensure(kernel_source(test, args.kernel), args.build_timeout)
        if "error" in built:
            continue
        chunked = record["mapping"] == "chunked"
        answer = worker.request({"run": [record["instances"], int(chunked), record["N"],
                                         record["instances"] * STRIDE]}, args.confirm)
        if answer is None:
            worker.stop()
            record["confirmed"] = True
        elif "error" not in answer:
            result = judge(test, finals[record["test"]], record["instances"], record["N"],
                           answer, args.kernel, chunked)
            record.update(result="slow" if result == "ok" else result,
                          seconds=answer["seconds"])
        print(f"  {'confirmed hang' if answer is None else record['result']:14} "
              f"{record['mapping']:11} I={record['instances']:<3} N={record['N']:<3} "
              f"{record['test']}", flush=True)


def group_results(records, key):
    """{key: {test: terminated?}}: a test terminated in a group when every
    launch of it there did."""
    groups = {}
    for r in records:
        if r["result"] == "error":
            continue
        groups.setdefault(key(r), {})
        ok = r["result"] in ("ok", "slow")
        groups[key(r)][r["test"]] = groups[key(r)].get(r["test"], True) and ok
    return groups


def report(summary, verdicts):
    records = summary["records"]
    counts = {}
    for r in records:
        counts[r["result"]] = counts.get(r["result"], 0) + 1
    times = sorted(r["seconds"] for r in records if "seconds" in r)
    median = times[len(times) // 2] * 1000 if times else 0
    print(f"progress: {summary['config']}: {len(records)} launches of {summary['tests']} tests "
          f"in {summary['seconds']:.0f}s ({summary['builds']} builds, "
          f"{summary['build_seconds']:.0f}s); "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + f"; median completed launch {median:.2f} ms", flush=True)
    print(f"  {'launches':30} {'tests':>5} {'ended':>5} {'hung':>5} {'other':>5}  "
          "consistent with (strongest models not refuted)")
    rows = [("all", lambda r: "all"),
            ("by size", lambda r: r["size"]),
            ("by mapping and size", lambda r: f"{r['mapping']}, {r['size']}")]
    for _, key in rows:
        for name, results in sorted(group_results(records, key).items()):
            hung_tests = len({r["test"] for r in records
                              if key(r) == name and r["result"] == "hang"})
            gave_up = len({r["test"] for r in records if key(r) == name
                           and r["result"] in ("gave-up", "wrong", "unstarted")})
            ended = sum(results.values())
            print(f"  {name:30} {len(results):5} {ended:5} {hung_tests:5} {gave_up:5}  "
                  f"{format_models(consistent_models(results, verdicts))}")
    errors = [r for r in records if r["result"] == "error"]
    for r in errors[:5]:
        print(f"  error: {r['test']} {r['mapping']} N={r['N']}: {r.get('detail', '')[:300]}")


# Launch results that fail any --expect, whatever the model: no progress
# model ends a test in a memory none of its executions ends with, or lets a
# loop end without its condition. (Under kills, a cooperative kernel's
# killed litmus thread gives up as the spec allows: promise nothing there.)
FAULTS = {"error": "failed with an OpenCL error",
          "wrong": "ended in a memory that no execution of their test ends with",
          "gave-up": "ended with a work-group that did not pass all its instructions"}


def check_promises(summary, verdicts, expect):
    """--expect SIZE=MODEL/STRENGTH: fail unless the launches of that size
    class ('N<=units', 'N>units' or 'all') are consistent with the model,
    and unless no launch at all is one of FAULTS."""
    failed = False
    for promise in expect or []:
        size, _, model = promise.rpartition("=")
        model, _, strength = model.partition("/")
        strength = strength or "weak"
        results = group_results(summary["records"],
                                lambda r: "all" if size == "all" else r["size"]).get(size)
        if results is None:
            print(f"progress: FAIL {promise}: no launches of that size")
            failed = True
            continue
        refuting = sorted(t for t, ok in results.items()
                          if not ok and verdicts[t][(model, strength)])
        if refuting:
            failed = True
            print(f"progress: FAIL {summary['config']} {size} promises {strength} {model}, "
                  f"but {len(refuting)} tests that must end under it did not: "
                  + "; ".join(refuting[:5]))
        else:
            print(f"progress: PASS {summary['config']} {size} is consistent with "
                  f"{strength} {model} ({len(results)} tests)")
    for result, what in FAULTS.items():
        faulty = [r for r in summary["records"] if r["result"] == result]
        if faulty and expect:
            print(f"progress: FAIL {len(faulty)} launches {what}: "
                  + "; ".join(f"{r['test']} ({r['mapping']}, N={r['N']})" for r in faulty[:5]))
            failed = True
    return 1 if failed else 0


def summarize(paths):
    """One table over the configurations' JSON files."""
    rows = []
    for path in paths:
        with open(path) as f:
            summary = json.load(f)
        tests = [litmus.parse(t) for t in sorted({r["test"] for r in summary["records"]})]
        verdicts = {litmus.format_test(t): oracle.StateGraph(t).verdicts() for t in tests}
        for size, results in sorted(group_results(summary["records"],
                                                  lambda r: r["size"]).items()):
            hung = len({r["test"] for r in summary["records"]
                        if r["size"] == size and r["result"] == "hang"})
            rows.append((summary["config"], summary.get("lp_num_threads"), size, len(results),
                         sum(results.values()), hung,
                         consistent_models(results, verdicts), summary["seconds"]))
    print("| configuration | LP_NUM_THREADS | N | tests | ended | hung | weak | "
          "strong | run time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for config, lp, size, n, ended, hung, consistent, seconds in rows:
        print(f"| {config} | {lp or '-'} | {size} | {n} | {ended} | {hung} | "
              f"{' and '.join(strongest(consistent['weak'])) or 'none'} | "
              f"{' and '.join(strongest(consistent['strong'])) or 'none'} | {seconds:.0f} s |")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--config", default="opencl", help="a name for the printed results")
    parser.add_argument("--kernel", choices=("ordinary", "cooperative"), default="ordinary")
    parser.add_argument("--units", type=int,
                        default=int(os.environ.get("LP_NUM_THREADS", os.cpu_count())),
                        help="compute units, for N (default: LP_NUM_THREADS)")
    parser.add_argument("--instances-per-unit", type=int, default=4,
                        help="instances per unit in the many-work-group launches (default 4)")
    parser.add_argument("--mappings", help="comma-separated subset of " + ",".join(MAPPINGS))
    parser.add_argument("--timeout", type=float, default=3.0,
                        help="seconds before a launch counts as hung (default 3)")
    parser.add_argument("--confirm", type=float, metavar="SECONDS",
                        help="run again, with this timeout, hung launches whose test must "
                             "end under weak LOBE or whose N is at most the units")
    parser.add_argument("--build-timeout", type=float, default=120.0)
    parser.add_argument("--short", action="store_true", help="the fixed short sample")
    parser.add_argument("--sample", type=int, help="every k-th generated test, this many")
    parser.add_argument("--bounds", action="append",
                        help="T,I bounds to generate (default litmus.BOUNDS); repeatable")
    parser.add_argument("--test", dest="tests", action="append", help="one test's text")
    parser.add_argument("--expect", action="append",
                        help="SIZE=MODEL[/STRENGTH]: fail unless consistent (SIZE: all, "
                             "N<=units, N>units), or if any launch was wrong, gave up or "
                             "failed")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--summary", nargs="+", metavar="JSON",
                        help="print one table over earlier --json files and exit")
    parser.add_argument("--print-kernel", action="store_true",
                        help="print the kernels of the selected tests and exit")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.worker:
        return worker()
    if args.summary:
        return summarize(args.summary)
    if args.print_kernel:
        for test in select_tests(args):
            print(kernel_source(test, args.kernel))
        return 0
    return run_config(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
