#!/usr/bin/env python3
"""Differential fuzzer for cooperative kernels (tools/ck fuzz, docs/fuzzing.md).

For each program of tests/fuzz/generate.py (seeds S, S+1, ...):

  * PoCL (the builtins defined away by include/cooperative_kernels.cl.h,
    persistent threads) with N = 1 gives the reference memory, launched
    twice: a reference whose launches differ is not trusted (the first
    Mesa configuration's memory is the reference then);
  * the patched Mesa runs it through rusticl (and Clover, for a Mesa that
    has it: --platforms), under the policies
    never, default and random:SEED (those with CK_CHECK=1: every launch's
    protocol log replayed against the FSE'17 rules), each with N work-groups
    drawn from 1 .. 4x the compute units;
  * any final memory (res[] and the per-item area) of a configuration's
    first launch (the one that compiled the kernel) that differs from the
    reference is a mismatch, and so is a repeat that differs from the
    first launch, except a PoCL run with N > 1 that alone
    disagrees with PoCL's N = 1 (a PoCL bug, known/pocl-concurrent-groups.cl:
    counted and saved as a reference disagreement); a worker that dies is a crash; a build or a
    launch that does not answer within its timeout is a hang, even if a
    re-run (--confirm) ends, whose time the finding reports; a valid
    program that does not build, or builds with a warning, is a wrong
    diagnostic, and so (counted with them) is a SPIR-V module that zink
    (--rusticl-driver zink, ZINK_DEBUG=spirv) built for the Vulkan driver
    and spirv-val rejects;
  * every --invalid-every'th program also has an invalid variant (one
    violation of the build rules), which must fail to build (or warn, for
    `undefined after fork`) naming the rule and a line of the violation
    (and the rule's message, where kinds share a tag; --invalid-kinds
    picks the kinds).

Each finding is saved under OUT/findings/ with its program, its launch
description and what happened, and (--shrink) reduced by leaving out the
generator's removable items one chunk at a time while the same finding
remains. The last line is
    fuzz: P programs, M mismatches, C crashes, H hangs, W wrong diagnostics
and the exit status is 1 on any finding.

OpenCL is called through ctypes in worker processes (this file with
--worker), one per configuration, so a hang or a crash never blocks the
fuzzer: the worker is killed and a new one started.
"""
import argparse
import base64
import concurrent.futures
import ctypes
import glob
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ZINK_SPIRV_VAL = os.path.join(HERE, "..", "host", "zink_spirv_val.sh")
sys.path.insert(0, HERE)
import generate  # noqa: E402

CL_EVENT_COMMAND_EXECUTION_STATUS = 0x11D3


class Stopped(Exception):
    """A SIGINT or SIGTERM ended the run: it stops starting workers, and the
    program it interrupted is not counted."""


# The signal that stopped the run (0 while it goes on). Workers run in
# sessions of their own (so that a hung one is killed with its threads),
# out of reach of a signal to the fuzzer's process group: the handler
# kills them.
stop_signal = 0


# ---------------------------------------------------------------- worker

class CL:
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
            "clCreateProgramWithBinary": (vp, [vp, u32, P(vp), P(sz), P(ctypes.c_char_p), P(i32),
                                               P(i32)]),
            "clGetProgramInfo": (i32, [vp, u32, sz, vp, P(sz)]),
            "clBuildProgram": (i32, [vp, u32, P(vp), ctypes.c_char_p, vp, vp]),
            "clGetProgramBuildInfo": (i32, [vp, vp, u32, sz, vp, P(sz)]),
            "clCreateKernel": (vp, [vp, ctypes.c_char_p, P(i32)]),
            "clGetKernelInfo": (i32, [vp, u32, sz, vp, P(sz)]),
            "clGetKernelWorkGroupInfo": (i32, [vp, vp, u32, sz, vp, P(sz)]),
            "clSetKernelArg": (i32, [vp, u32, sz, vp]),
            "clEnqueueReadBuffer": (i32, [vp, vp, u32, sz, sz, vp, u32, vp, vp]),
            "clEnqueueNDRangeKernel": (i32, [vp, vp, u32, P(sz), P(sz), P(sz), u32, vp, P(vp)]),
            "clWaitForEvents": (i32, [u32, P(vp)]),
            "clGetEventInfo": (i32, [vp, u32, sz, vp, P(sz)]),
            "clReleaseEvent": (i32, [vp]),
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
        self.context = lib.clCreateContext(None, 1, ctypes.byref(device), None, None, ctypes.byref(err))
        self.check(err.value, "clCreateContext")
        self.queue = lib.clCreateCommandQueue(self.context, device, 0, ctypes.byref(err))
        self.check(err.value, "clCreateCommandQueue")
        self.program = self.kernel = None

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
                "device": self._string(self.lib.clGetDeviceInfo, self.device, 0x102B),
                "extensions": self._string(self.lib.clGetDeviceInfo, self.device, 0x1030),
                "compute_units": cus.value}

    def release(self):
        if self.kernel:
            self.lib.clReleaseKernel(self.kernel)
        if self.program:
            self.lib.clReleaseProgram(self.program)
        self.program = self.kernel = None

    def build(self, source, options="", binary=None, want_binary=False):
        """The program from `source`, or from `binary` (what an earlier
        build's CL_PROGRAM_BINARIES gave) where there is one; with
        want_binary, the answer carries the built program's binary."""
        self.release()
        err = ctypes.c_int32()
        if binary is None:
            src = ctypes.c_char_p(source.encode())
            program = self.lib.clCreateProgramWithSource(self.context, 1, ctypes.byref(src), None,
                                                          ctypes.byref(err))
            self.check(err.value, "clCreateProgramWithSource")
        else:
            length, status = ctypes.c_size_t(len(binary)), ctypes.c_int32()
            data = ctypes.c_char_p(binary)
            program = self.lib.clCreateProgramWithBinary(self.context, 1, ctypes.byref(self.device),
                                                          ctypes.byref(length), ctypes.byref(data),
                                                          ctypes.byref(status), ctypes.byref(err))
            self.check(err.value or status.value, "clCreateProgramWithBinary")
        self.program = program
        rc = self.lib.clBuildProgram(program, 1, ctypes.byref(self.device), options.encode(),
                                     None, None)
        log = self._string(lambda h, p, s, b, r: self.lib.clGetProgramBuildInfo(
            h, self.device, p, s, b, r), program, 0x1183)
        if rc != 0:
            return {"built": False, "rc": rc, "log": log[-6000:]}
        self.kernel = self.lib.clCreateKernel(program, b"fuzz", ctypes.byref(err))
        self.check(err.value, "clCreateKernel")
        nargs = ctypes.c_uint32()
        self.lib.clGetKernelInfo(self.kernel, 0x1191, 4, ctypes.byref(nargs), None)
        coop = ctypes.c_uint32()
        if self.lib.clGetKernelWorkGroupInfo(self.kernel, self.device, 0x4F00, 4,
                                             ctypes.byref(coop), None) != 0:
            coop.value = 0
        self.nargs = nargs.value
        answer = {"built": True, "log": log[-6000:], "cooperative": bool(coop.value),
                  "nargs": nargs.value}
        if want_binary:
            answer["binary"] = base64.b64encode(self.binary()).decode()
        return answer

    def binary(self):
        size = ctypes.c_size_t()
        self.check(self.lib.clGetProgramInfo(self.program, 0x1165, ctypes.sizeof(size),  # SIZES
                                             ctypes.byref(size), None), "clGetProgramInfo")
        data = ctypes.create_string_buffer(size.value)
        pointer = ctypes.c_void_p(ctypes.addressof(data))
        self.check(self.lib.clGetProgramInfo(self.program, 0x1166, ctypes.sizeof(pointer),  # BINARIES
                                             ctypes.byref(pointer), None), "clGetProgramInfo")
        return data.raw

    def run(self, info, groups):
        lib, err = self.lib, ctypes.c_int32()
        res = (ctypes.c_uint32 * info["res_words"])()
        for slot, value in info["slot_init"].items():
            res[int(slot)] = value
        hosts = [res, (ctypes.c_uint32 * info["in_words"])(*info["in"]),
                 (ctypes.c_uint32 * info["counters"])(), (ctypes.c_uint32 * info["out_words"])()]
        karg = info.get("karg")
        if self.nargs == 7 + (karg is not None):  # CK_SYNC_PARAM, where the extension is absent
            hosts.append((ctypes.c_uint32 * 2)())
        buffers = []
        try:
            for host in hosts:
                buf = lib.clCreateBuffer(self.context, 1 | 32, ctypes.sizeof(host), host,
                                         ctypes.byref(err))  # READ_WRITE | COPY_HOST_PTR
                self.check(err.value, "clCreateBuffer")
                buffers.append(ctypes.c_void_p(buf))
            args = [(ctypes.sizeof(b), ctypes.byref(b)) for b in buffers[:4]]
            k0, k1 = ctypes.c_uint32(info["k0"]), ctypes.c_uint32(info["k1"])
            args += [(4, ctypes.byref(k0)), (4, ctypes.byref(k1))]
            if karg is not None:
                struct = (ctypes.c_uint32 * len(karg))(*karg)
                args.append((ctypes.sizeof(struct), ctypes.byref(struct)))
            if len(buffers) == 5:
                args.append((ctypes.sizeof(buffers[4]), ctypes.byref(buffers[4])))
            for index, (size, ptr) in enumerate(args):
                self.check(lib.clSetKernelArg(self.kernel, index, size, ptr), "clSetKernelArg")
            L = info["local_size"]
            gsize, lsize = ctypes.c_size_t(groups * L), ctypes.c_size_t(L)
            event = ctypes.c_void_p()
            start = time.perf_counter()
            offset = ctypes.c_size_t(info.get("offset", 0))
            self.check(lib.clEnqueueNDRangeKernel(self.queue, self.kernel, 1, ctypes.byref(offset),
                                                  ctypes.byref(gsize),
                                                  ctypes.byref(lsize), 0, None, ctypes.byref(event)),
                       "clEnqueueNDRangeKernel")
            lib.clWaitForEvents(1, ctypes.byref(event))
            status = ctypes.c_int32()
            lib.clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, ctypes.byref(status), None)
            lib.clReleaseEvent(event)
            lib.clFinish(self.queue)
            seconds = time.perf_counter() - start
            for index in (0, 3):
                self.check(lib.clEnqueueReadBuffer(self.queue, buffers[index], 1, 0,
                                                   ctypes.sizeof(hosts[index]), hosts[index], 0, None,
                                                   None), "clEnqueueReadBuffer")
        finally:
            for buf in buffers:
                lib.clReleaseMemObject(buf)
        return {"status": status.value, "res": list(hosts[0]), "out": list(hosts[3]),
                "seconds": seconds}


def worker():
    def reply(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()
    try:
        cl = CL()
        reply({"hello": cl.describe()})
    except Exception as e:  # noqa: BLE001 - reported to the parent
        reply({"error": str(e)})
        return 1
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "source" in request:
                binary = request.get("binary")
                reply(cl.build(request["source"], request["options"],
                               base64.b64decode(binary) if binary else None,
                               request.get("want_binary", False)))
            else:
                reply(launch_until_varied(cl, request["info"], request["groups"],
                                          request.get("repeats", 1)))
        except Exception as e:  # noqa: BLE001
            reply({"error": str(e)})
    return 0


def launch_until_varied(cl, info, groups, repeats):
    """The launch up to `repeats` times (a race may show once in a
    thousand): the first answer, the one the oracle judges (its launch
    compiled the kernel), with 'varied': the index of the first repeat
    whose memory differs from it and 'varied_memory': that memory."""
    first = cl.run(info, groups)
    for i in range(1, repeats):
        again = cl.run(info, groups)
        if memory_digest(again) != memory_digest(first):
            return dict(first, varied=i,
                        varied_memory={k: again[k] for k in ("status", "res", "out")})
    return first


# ---------------------------------------------------------------- parent

class Worker:
    def __init__(self, name, env, logdir, options="", cwd=None):
        self.name, self.env, self.logdir, self.options = name, env, logdir, options
        self.cwd = cwd  # where zink writes the SPIR-V it builds (ZINK_DEBUG=spirv)
        self.proc = None
        self.buffer = b""
        self.hello = None
        self.source = None
        self.wanted = (None, 0, None)
        self.launched = False  # a launch of the wanted program ended in this process
        self.errfile = os.path.join(logdir, f"worker-{name.replace(':', '_').replace('/', '_')}.stderr")

    def start(self):
        self.stop()
        if stop_signal:
            raise Stopped()
        self.err = open(self.errfile, "wb")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     env=self.env, cwd=self.cwd, start_new_session=True)
        self.buffer = b""
        self.source = None
        answer = self.request(None, 120)
        if not answer or "hello" not in answer:
            if stop_signal:
                raise Stopped()
            raise SystemExit(f"fuzz: the OpenCL worker for {self.name} did not start: {answer} "
                             f"{self.stderr_tail()}")
        self.hello = answer["hello"]

    def stderr_tail(self, n=3000):
        try:
            with open(self.errfile, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def kill(self):
        """Kills the worker from a signal handler: the thread that talks to
        it sees it die."""
        proc = self.proc
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop(self):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None
            self.err.close()

    def request(self, obj, timeout):
        """One reply, or {'hang': True} on timeout, {'crash': ...} if the worker died."""
        if self.proc is None:
            self.start()
        if obj is not None:
            try:
                self.proc.stdin.write((json.dumps(obj) + "\n").encode())
                self.proc.stdin.flush()
            except BrokenPipeError:
                return self._died()
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                return {"hang": True}
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return self._died()
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def _died(self):
        rc = self.proc.wait()
        tail = self.stderr_tail()
        self.proc = None
        self.err.close()
        return {"crash": f"worker exited with {rc}", "stderr": tail}

    def build(self, source, timeout, binary=None, want_binary=False):
        """`binary`: the program as another worker of the same frontend built
        it (base64), to build from instead of the source."""
        self.wanted = (source, timeout, binary)
        self.launched = False
        request = {"source": source, "options": self.options, "want_binary": want_binary}
        if binary:
            request["binary"] = binary
        answer = self.request(request, timeout)
        self.source = source if answer.get("built") else None
        return answer

    def run(self, info, groups, timeout, repeats=1, compile_timeout=0):
        """A launch, with compile_timeout more seconds when it is the first
        of the program in this worker process: llvmpipe compiles the kernel
        then, unless the shader cache has it (not when the worker that
        compiled it last was killed before it finished)."""
        if self.proc is None or self.source != self.wanted[0]:
            # a new worker after a crash or a hang: the program again first
            answer = self.build(*self.wanted)
            if not answer.get("built"):
                return answer if ("hang" in answer or "crash" in answer) else \
                    {"crash": "the program did not build again in a new worker", "detail": answer}
        first = not self.launched
        answer = self.request({"info": info, "groups": groups, "repeats": repeats},
                              timeout + 0.2 * repeats + (compile_timeout if first else 0))
        self.launched = True  # a new worker (after a hang or a crash) builds again
        return answer


def make_icd(out, name, vendors_dir, pattern):
    """An ICD directory that names only the vendors files of `vendors_dir`
    whose name matches `pattern`."""
    d = os.path.join(out, "icd", name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    found = False
    for f in sorted(os.listdir(vendors_dir)):
        if f.endswith(".icd") and re.search(pattern, f):
            shutil.copy(os.path.join(vendors_dir, f), d)
            found = True
    return d if found else None


class Config:
    def __init__(self, name, env, units, groups_choices, reference=False, options="",
                 reuse_binary=False):
        self.name, self.env, self.groups_choices, self.reference = name, env, groups_choices, reference
        self.units = units  # an ordinary kernel's work-groups wait for each other up to this many
        self.options = options
        # built from the binary of the lane's first configuration, not the source
        self.reuse_binary = reuse_binary
        # the configurations of one lane run one after the other, the lanes at once
        self.lane = name.split("/")[0]
        self.worker = None
        # zink's SPIR-V modules land here, each validated after the launches
        # that built it (spirv_findings)
        self.spirv_dir = None


def configs_from_args(a, logdir):
    base = dict(os.environ)
    for k in ("CK_POLICY", "CK_CHECK", "CK_TRACE", "CK_STATS", "CK_CAP_FILE", "LP_NUM_THREADS",
              "OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "LP_CL", "RUSTICL_ENABLE"):
        base.pop(k, None)
    # llvmpipe compiles a kernel at its first launch and keeps it in the
    # shader cache: the other policies and unit counts of a frontend find it
    # there (the policy and LP_NUM_THREADS do not change the code)
    base.setdefault("MESA_SHADER_CACHE_DIR", os.path.join(os.path.abspath(a.out), "shader-cache"))
    configs = []
    U = [int(u) for u in str(a.units).split(",")]
    if a.pocl_icd and "pocl" in a.platforms:
        env = dict(base, OCL_ICD_VENDORS=a.pocl_icd, POCL_CPU_MAX_CU_COUNT=str(a.pocl_units),
                   POCL_MAX_PTHREAD_COUNT=str(a.pocl_units),
                   POCL_CACHE_DIR=os.path.join(a.out, "pocl-cache"))
        configs.append(Config("pocl", env, a.pocl_units, list(range(1, a.pocl_units + 1)),
                              reference=True,
                              options=a.pocl_options))
    for fe in ("clover", "rusticl"):
        if fe not in a.platforms:
            continue
        icd = a.clover_icd if fe == "clover" else a.rusticl_icd
        env = dict(base, OCL_ICD_VENDORS=icd)
        if fe == "clover":
            env["LP_CL"] = "1"
            if a.pipe_dir:
                env["GALLIUM_PIPE_SEARCH_DIR"] = a.pipe_dir
        elif a.rusticl_driver == "zink":
            # zink over the Vulkan driver that VK_DRIVER_FILES names
            # (lavapipe: `tools/ck env --driver zink`), which dispatches a
            # cooperative launch whole: the policies change nothing there
            # The SPIR-V zink builds for the Vulkan driver is validated too:
            # lavapipe accepts some that is not valid for Vulkan.
            env.update(RUSTICL_ENABLE="swrast", GALLIUM_DRIVER="zink", LIBGL_ALWAYS_SOFTWARE="1",
                       ZINK_DEBUG="spirv")
        else:
            env["RUSTICL_ENABLE"] = "llvmpipe"
        for index, policy in enumerate(a.policies.split(",")):
            # the policies take the unit counts in turn
            units = U[index % len(U)]
            e = dict(env, CK_POLICY=policy, LP_NUM_THREADS=str(units))
            if policy.startswith("random"):
                e["CK_CHECK"] = "1"
            name = f"{fe}/{policy}" + (f"/{units}u" if len(U) > 1 else "")
            # an ordinary launch's work-groups all run at once up to the
            # units in use: the cap's, under cap:K
            in_use = min(units, int(policy[4:])) if policy.startswith("cap:") else units
            configs.append(Config(name, e, in_use, list(range(1, 4 * units + 1)),
                                  options=a.rusticl_options if fe == "rusticl" else "",
                                  reuse_binary=fe in a.reuse_binary.split(",")))
    for c in configs:
        if c.env.get("ZINK_DEBUG") == "spirv":
            c.spirv_dir = os.path.join(logdir, "spirv-" + c.name.replace(":", "_").replace("/", "_"))
            os.makedirs(c.spirv_dir, exist_ok=True)
        c.worker = Worker(c.name, c.env, logdir, c.options, cwd=c.spirv_dir)
    return configs


def spirv_findings(c):
    """(findings, modules) for the SPIR-V modules zink wrote since the last
    call for configuration `c` (none where it writes none), which are then
    removed: each must pass spirv-val as zink_spirv_val.sh runs it."""
    if not c.spirv_dir:
        return [], 0
    findings, modules = [], 0
    for module in sorted(glob.glob(os.path.join(c.spirv_dir, "*.spv"))):
        check = subprocess.run([ZINK_SPIRV_VAL, module], capture_output=True, text=True)
        if check.returncode != 0:
            findings.append({"kind": "wrong", "config": c.name,
                             "what": "zink built SPIR-V that is not valid for Vulkan",
                             "detail": (check.stdout + check.stderr).strip()[:2000]})
        os.remove(module)
        modules += 1
    return findings, modules


def memory_digest(answer):
    return hashlib.sha1(json.dumps([answer["status"], answer["res"], answer["out"]]).encode()).hexdigest()[:12]


def distinct_memories(answers):
    """The distinct final memories among `answers`, the most frequent first,
    as [launches, the first answer with it]. The whole memory, as the oracle
    compares it: a lost item may leave res[] alone (an or, and, min or max
    already at its value) and show only in out[]."""
    seen = {}
    for answer in answers:
        seen.setdefault(memory_digest(answer), [0, answer])[0] += 1
    return sorted(seen.values(), key=lambda entry: -entry[0])


def nonzero_words(res):
    """The words of res[] that are not 0, as triage prints them."""
    return ", ".join(f"res[{i}] = {x:#x}" for i, x in enumerate(res) if x) or "res[] all 0"


def first_difference(a, b, b_name="reference"):
    if a["status"] != b["status"]:
        return f"status {a['status']} vs {b['status']}"
    for area in ("res", "out"):
        for i, (x, y) in enumerate(zip(a[area], b[area])):
            if x != y:
                return f"{area}[{i}] = {x:#x}, {b_name} {y:#x}"
    return "no difference"


def expected_differences(answer, info):
    """Where a launch's res[] differs from the values the generator computed
    for its blocking blocks' slots ('' where it does not)."""
    if answer["status"] != 0 and info.get("expected"):
        return f"the launch failed (event status {answer['status']})"
    return "; ".join(f"res[{slot}] = {answer['res'][int(slot)]:#x}, expected {value:#x}"
                     for slot, value in info.get("expected", {}).items()
                     if answer["res"][int(slot)] != value)


VALID_WARNING = re.compile(r"\[undefined after fork\]|\[workgroup-uniform|\[kernel-uniform|\[transmit\]")


class Fuzzer:
    def __init__(self, a):
        self.a = a
        self.out = a.out
        os.makedirs(os.path.join(self.out, "findings"), exist_ok=True)
        self.logdir = os.path.join(self.out, "logs")
        os.makedirs(self.logdir, exist_ok=True)
        self.configs = configs_from_args(a, self.logdir)
        self.counts = {"programs": 0, "launches": 0, "builds": 0, "binary_builds": 0,
                       "mismatches": 0, "crashes": 0, "hangs": 0, "wrong": 0, "invalid_right": 0,
                       "invalid_wrong": 0, "slow": 0, "reference": 0, "ordinary": 0,
                       "ordinary_findings": 0, "spirv_modules": 0}
        self.findings = []
        self.times = {c.name: [0.0, 0.0] for c in self.configs}
        self.lock = threading.Lock()
        self.repeats = a.repeats

    def log(self, msg):
        if not self.a.quiet:
            print(msg, flush=True)

    # one program, every configuration: returns a list of findings
    def tally(self, key, config=None, build=0.0, run=0.0):
        """Counts (key) and times (config) from the lanes' threads."""
        with self.lock:
            if key:
                self.counts[key] += 1
            if config:
                self.times[config][0] += build
                self.times[config][1] += run

    # one program, every configuration: returns a list of findings
    def check_program(self, seed, size, drop=(), only=None, mutation=None, ordinary=False):
        src, info = generate.generate(seed, size, drop, mutation=mutation,
                                      struct_arg=self.a.struct_arg, ordinary=ordinary)
        rng = random.Random(seed)
        plan = {}  # lane: [(config, values of N)], in the order of the configurations
        for c in self.configs:
            if only and c.name not in only:
                continue
            # an ordinary kernel's work-groups wait for each other: at most
            # as many as the units, which run them all at once
            choices = c.groups_choices[:c.units] if ordinary else c.groups_choices
            groups_list = sorted(set(rng.sample(choices, min(self.a.launches, len(choices)))))
            if c.reference and 1 not in groups_list:
                groups_list = [1] + groups_list
            if only and only[c.name]:
                groups_list = only[c.name]
            plan.setdefault(c.lane, []).append((c, groups_list))

        from_binary = set()  # configurations that built the program from their lane's binary

        def run_lane(configs):
            answers, binary = [], None
            for i, (c, groups_list) in enumerate(configs):
                build_from = binary if c.reuse_binary else None
                if build_from:
                    from_binary.add(c.name)
                pass_on = any(later.reuse_binary for later, _ in configs[i + 1:])
                answers.append(self.check_config(c, groups_list, seed, src, info,
                                                 build_from, pass_on and not binary))
                binary = binary or answers[-1][2]
            return answers

        # The lanes (PoCL, Clover, rusticl) run at once: most of a program's
        # time is llvmpipe compiling the kernel at the first launch of each
        # frontend (the configurations after it find the kernel in the
        # shader cache), and the lanes' workers are separate processes.
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.a.jobs) as pool:
            lanes = list(pool.map(run_lane, plan.values()))
        by_config = {}
        for configs, answers in zip(plan.values(), lanes):
            for (c, _), answer in zip(configs, answers):
                by_config[c.name] = answer
        findings, results = [], []  # results: (config, groups, answer)
        for c in self.configs:
            if c.name in by_config:
                findings += by_config[c.name][0]
                results += by_config[c.name][1]
        # A repeat whose memory differs from its configuration's first
        # launch is a finding of its own: the generator's programs are
        # deterministic, so one of the two is wrong.
        for c, groups, ans in results:
            if "varied" in ans:
                findings.append({"kind": "reference" if c.reference else "mismatch",
                                 "config": c.name, "groups": groups,
                                 "reference": f"{c.name} N={groups}, its first launch",
                                 "detail": f"repeat {ans['varied']}: "
                                 + first_difference(ans["varied_memory"], ans, "the first")})
        # The blocking blocks' slots hold what the generator computed for
        # them, in every launch (PoCL's too: a PoCL launch that alone misses
        # them is a reference disagreement).
        for c, groups, ans in results:
            wrong = expected_differences(ans, info)
            if wrong:
                findings.append({"kind": "reference" if c.reference else "mismatch",
                                 "config": c.name, "groups": groups,
                                 "reference": "the generator's expected values",
                                 "detail": wrong})
        # The reference is PoCL's N = 1 (one work-group at a time: PoCL's
        # concurrent work-groups are the known bug below), and only if its
        # two launches agreed; else the first Mesa configuration's answer.
        trusted = [r for r in results if r[0].reference and r[1] == 1 and "varied" not in r[2]]
        results_judged = [r for r in results if not (r[0].reference and "varied" in r[2])]
        if results_judged:
            ref = trusted[0] if trusted else \
                next((r for r in results_judged if not r[0].reference), results_judged[0])
            results = results_judged
            differ = [(c, groups, ans) for c, groups, ans in results
                      if memory_digest(ans) != memory_digest(ref[2])]
            # PoCL 3.1 built with -cl-opt-disable loses or repeats work-items
            # when two of its work-groups run a work loop at once
            # (known/pocl-concurrent-groups.cl, seed 97150). A reference run
            # with N > 1 that disagrees alone, every Mesa run agreeing with
            # PoCL's N = 1, is that bug, and is reported apart.
            mesa_agrees = all(c.reference for c, _, _ in differ) and \
                any(not c.reference for c, _, _ in results)
            for c, groups, ans in differ:
                findings.append({"kind": "reference" if mesa_agrees else "mismatch",
                                 "config": c.name, "groups": groups,
                                 "reference": f"{ref[0].name} N={ref[1]}",
                                 "detail": first_difference(ans, ref[2])})
        for f in findings:
            if f["config"] in from_binary:
                f["from"] = "binary"  # triage: --run-saved ... --from-binary
        return src, info, findings

    def check_config(self, c, groups_list, seed, src, info, build_from=None, want_binary=False):
        """check_launches, and the SPIR-V zink built for them."""
        findings, results, binary = self.check_launches(c, groups_list, src, info, build_from,
                                                        want_binary)
        invalid, modules = spirv_findings(c)
        if modules:
            with self.lock:
                self.counts["spirv_modules"] += modules
        return findings + invalid, results, binary

    def check_launches(self, c, groups_list, src, info, build_from, want_binary):
        """The program built and launched with each N in one configuration:
        (findings, [(config, groups, answer)], binary). It is built from the
        binary `build_from` where there is one, else from source; with
        want_binary, the binary it returns is this build's, for the next
        configuration of the lane."""
        findings, results = [], []
        w = c.worker
        t0 = time.monotonic()
        answer = w.build(src, self.a.build_timeout, build_from, want_binary=want_binary)
        self.tally("builds", c.name, build=time.monotonic() - t0)
        what = "build"
        if build_from:
            what += " from the binary"
            self.tally("binary_builds")
        binary = answer.get("binary")
        if "hang" in answer or "crash" in answer or "error" in answer:
            kind = "hang" if "hang" in answer else "crash"
            findings.append({"kind": kind, "config": c.name, "what": what, "detail": answer})
            return findings, results, binary
        if not answer["built"]:
            findings.append({"kind": "wrong", "config": c.name,
                             "what": f"a valid program did not {what}", "detail": answer["log"]})
            return findings, results, binary
        if not c.reference and VALID_WARNING.search(answer["log"]):
            findings.append({"kind": "wrong", "config": c.name,
                             "what": "a valid program built with a cooperative-kernel warning",
                             "detail": answer["log"]})
        for groups in groups_list:
            timeout = self.a.run_timeout
            t0 = time.monotonic()
            # the reference twice: it is trusted only if its launches agree
            ans = w.run(info, groups, timeout, 2 if c.reference else self.repeats,
                        compile_timeout=self.a.build_timeout)
            self.tally("launches", c.name, run=time.monotonic() - t0)
            if "hang" in ans:
                # A launch past the watchdog is a hang, even if it ends
                # later: again, in a new worker, with --confirm seconds,
                # only to report how long it takes.
                detail = f"no answer within {timeout:g} s"
                if self.a.confirm:
                    w.build(*w.wanted)
                    t0 = time.monotonic()
                    again = w.run(info, groups, self.a.confirm,
                                  compile_timeout=self.a.build_timeout)
                    self.tally("slow", c.name, run=time.monotonic() - t0)
                    detail += (f"; a re-run in a new worker ended in {time.monotonic() - t0:.1f} s"
                               if "hang" not in again else
                               f"; nor a re-run in a new worker within {self.a.confirm:g} s")
                findings.append({"kind": "hang", "config": c.name, "groups": groups,
                                 "timeout": timeout, "detail": detail})
                continue
            if "crash" in ans or "error" in ans:
                findings.append({"kind": "crash", "config": c.name, "groups": groups, "detail": ans})
                continue
            results.append((c, groups, ans))
        return findings, results, binary

    def self_test(self):
        """The oracle must be able to fail: a program made nondeterministic
        must show a mismatch, one whose blocking block ends off the
        generator's value a mismatch, one made to spin for ever a hang, and
        a valid statement that claims to break a rule a wrong diagnostic."""
        ok = True
        same = all(generate.generate(s, 3)[0] == generate.generate(s, 3)[0] for s in range(1, 30))
        print(f"self-test: the generator gives the same program for the same seed: {same}")
        ok &= same
        for c in self.configs:
            c.worker.start()
        _, _, f = self.check_program(1, 1, mutation="nondeterministic")
        got = sum(1 for x in f if x["kind"] == "mismatch")
        print(f"self-test: nondeterministic program: {got} mismatches (want > 0)")
        ok &= got > 0
        # deterministic and wrong alike everywhere: only the generator's
        # expected values see it (seed 3 has a blocking block)
        _, _, f = self.check_program(3, 1, mutation="wrong-block")
        got = sum(1 for x in f if x["kind"] == "mismatch" and "expected" in x["detail"])
        print(f"self-test: a blocking block's slot off by one bit: {got} mismatches with the "
              f"expected values (want > 0)")
        ok &= got > 0
        _, info, f = self.check_program(3, 1, ordinary=True)
        print(f"self-test: an ordinary program ({'+'.join(info['blocking'])}): {len(f)} findings "
              "(want 0)")
        ok &= not f
        mesa = next(c.name for c in self.configs if not c.reference)
        saved = self.a.run_timeout, self.a.build_timeout, self.a.confirm
        self.a.run_timeout, self.a.build_timeout, self.a.confirm = 5, 40, 10
        _, _, f = self.check_program(1, 1, only={mesa: [2]}, mutation="hang")
        self.a.run_timeout, self.a.build_timeout, self.a.confirm = saved
        got = sum(1 for x in f if x["kind"] == "hang")
        print(f"self-test: spinning program on {mesa}: {got} hangs (want 1)")
        ok &= got == 1
        _, _, f, n = self.check_invalid(1, 1, "selftest-valid")
        got = sum(1 for x in f if x["kind"] == "wrong")
        print(f"self-test: a valid statement claimed invalid: {got} wrong diagnostics of {n} builds "
              f"(want {n} > 0)")
        ok &= n > 0 and got == n
        reference = next((c for c in self.configs if c.reference), None)
        if reference:
            # the reference's build options keep it off the PoCL bug that
            # seed 60011 found (the kernel says how)
            with open(os.path.join(HERE, "known", "pocl-divergent-loop.cl")) as f:
                reference.worker.build(f.read(), self.a.build_timeout)
            info = {"res_words": 1, "slot_init": {}, "in_words": 1, "in": [0], "counters": 1,
                    "out_words": 1, "k0": 0, "k1": 0, "local_size": 4}
            got = reference.worker.run(info, 1, self.a.run_timeout).get("res", [None])[0]
            print(f"self-test: known/pocl-divergent-loop.cl on {reference.name} "
                  f"({reference.options or 'no options'}): res[0] = {got} (want 1)")
            ok &= got == 1
        src, info, f = self.check_program(1, 1)
        print(f"self-test: the same program unmutated: {len(f)} findings (want 0)")
        ok &= not f
        reusing = next((c for c in self.configs if c.reuse_binary), None)
        if reusing:
            ok &= self.run_saved_agrees(reusing, self.save(1, 1, src, info, f, under="self-test"))
        for c in self.configs:
            c.worker.stop()
        print(f"self-test: {'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1

    def run_saved_agrees(self, c, d):
        """The triage of a finding marked "from": "binary": --run-saved on
        c's platform must build the saved program again from its binary
        and end with the memory that the build from source ends with."""
        runs = []
        for flag in ([], ["--from-binary"]):
            command = [sys.executable, os.path.abspath(__file__), "--run-saved", d, "2", "3",
                       *flag, *c.options.split()]
            try:
                p = subprocess.run(command, env=c.env, capture_output=True, text=True,
                                   timeout=2 * self.a.build_timeout)
                runs.append((p.returncode, p.stdout.splitlines() + p.stderr.splitlines()))
            except subprocess.TimeoutExpired:
                runs.append((None, [f"{' '.join(command)}: no end within "
                                    f"{2 * self.a.build_timeout} s"]))
        (rc, source), (rc_binary, binary) = runs
        from_binary = [line for line in binary if line.startswith("built again from")]

        def memories(lines):
            return [line for line in lines if re.match(r"\d+ launches: memory ", line)]
        agrees = rc == 0 == rc_binary and from_binary and memories(source) and \
            memories(source) == memories(binary)
        print(f"self-test: --run-saved --from-binary on {c.name}: "
              f"{from_binary[0] if from_binary else 'not built from a binary'}; "
              f"{'the same memory as from source' if agrees else 'differs'} (want the same)")
        if not agrees:
            print("\n".join(source + binary))
        return bool(agrees)

    def check_invalid(self, seed, size, kind):
        """Builds the invalid variant once per Mesa frontend: it must fail
        (or, for a warning rule, succeed with the warning), the log naming
        the rule and a line of the violation. Returns the findings and how
        many builds were checked."""
        src, info = generate.generate(seed, size, (), kind, struct_arg=self.a.struct_arg)
        findings = []
        lines = {i for i, l in enumerate(src.splitlines(), 1) if "/*INVALID*/" in l}
        lines |= {i - 1 for i in lines}
        checked = 0
        frontends = set()
        for c in self.configs:
            frontend = c.name.split("/")[0]
            if c.reference or frontend in frontends:
                continue
            frontends.add(frontend)
            checked += 1
            answer = c.worker.build(src, self.a.build_timeout)
            self.counts["builds"] += 1
            if "hang" in answer or "crash" in answer or "error" in answer:
                findings.append({"kind": "hang" if "hang" in answer else "crash", "config": c.name,
                                 "what": f"build of invalid variant {kind}", "detail": answer})
                continue
            log = answer.get("log", "")
            problems = []
            if answer["built"] == info["build_fails"]:
                problems.append("the build " + ("succeeded" if answer["built"] else "failed"))
            if info["rule"] not in log:
                problems.append(f"the log does not name {info['rule']}")
            elif info.get("message") and info["message"] not in log:
                problems.append(f"the log does not say '{info['message']}'")
            named = {int(m) for m in re.findall(r":(\d+):\d+:", log)} | \
                {int(m) for m in re.findall(r":(\d+): ", log)}
            if not (named & lines):
                problems.append(f"the log names none of lines {sorted(lines)}")
            if problems:
                findings.append({"kind": "wrong", "config": c.name, "what": f"invalid variant {kind}: "
                                 + "; ".join(problems), "detail": log})
        return src, info, findings, checked

    def save(self, seed, size, src, info, findings, tag="", under="findings"):
        d = os.path.join(self.out, under, f"seed-{seed}{tag}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "program.cl"), "w") as f:
            f.write(src)
        info = dict(info)
        info["in"] = f"generate.input_words({seed})"
        with open(os.path.join(d, "info.json"), "w") as f:
            json.dump(info, f, indent=1)
        with open(os.path.join(d, "findings.json"), "w") as f:
            json.dump(findings, f, indent=1)
        return d

    def shrink(self, seed, size, finding, d):
        """Leaves out removable items, in chunks, while the same kind of
        finding remains in the same configuration."""
        _, info = generate.generate(seed, size, struct_arg=self.a.struct_arg)
        items = list(info["removable"])
        only = {finding["config"]: ([finding["groups"]] if "groups" in finding else None)}
        ref = next((c.name for c in self.configs if c.reference), None)
        if ref and finding["kind"] == "mismatch":
            only[ref] = None
        drop = []
        tries = 0

        def still(dropped):
            nonlocal tries
            tries += 1
            self.repeats = self.a.shrink_repeats
            try:
                _, _, fs = self.check_program(seed, size, dropped, only=only)
            finally:
                self.repeats = self.a.repeats
            return any(f["kind"] == finding["kind"] and f["config"] == finding["config"] for f in fs)

        chunk = max(1, len(items) // 2)
        while chunk >= 1 and tries < self.a.shrink_tries:
            progressed = False
            for i in range(0, len(items), chunk):
                part = [x for x in items[i:i + chunk] if x not in drop]
                if not part or tries >= self.a.shrink_tries:
                    continue
                if still(drop + part):
                    drop += part
                    progressed = True
            if not progressed:
                chunk //= 2
        src, _ = generate.generate(seed, size, drop, struct_arg=self.a.struct_arg)
        with open(os.path.join(d, "reduced.cl"), "w") as f:
            f.write(src)
        with open(os.path.join(d, "reduce.txt"), "w") as f:
            f.write(f"tests/fuzz/generate.py --seed {seed} --size {size}"
                    f"{' --struct-arg' if self.a.struct_arg else ''}"
                    f" --drop {','.join(map(str, sorted(drop)))}\n"
                    f"{len(drop)} of {len(items)} removable items left out, {tries} tries\n")
        self.log(f"  reduced: {len(drop)} of {len(items)} items left out ({d}/reduced.cl)")

    def record(self, seed, size, src, info, findings, tag=""):
        if not findings:
            return
        d = self.save(seed, size, src, info, findings, tag)
        for f in findings:
            key = {"mismatch": "mismatches", "crash": "crashes", "hang": "hangs", "wrong": "wrong",
                   "reference": "reference"}[f["kind"]]
            self.counts[key] += 1
            detail = f.get("detail", "")
            if isinstance(detail, dict):
                detail = json.dumps(detail)[:400]
            self.log(f"  FINDING seed {seed}{tag}: {f['kind']} on {f['config']}"
                     + (f" N={f['groups']}" if "groups" in f else "")
                     + (f": {f['what']}" if "what" in f else "") + f" {str(detail)[:300]}")
        self.findings.append((seed, d, findings))
        if self.a.shrink and not tag:
            first = next((f for f in findings if f["kind"] in ("mismatch", "crash", "hang")), None) or \
                next((f for f in findings if f["kind"] != "reference"), None)
            if first:
                self.shrink(seed, size, first, d)

    def stop_on_signal(self, signum, frame):
        global stop_signal
        stop_signal = signum
        for c in self.configs:
            c.worker.kill()

    def run(self):
        a = self.a
        start = time.monotonic()
        signal.signal(signal.SIGINT, self.stop_on_signal)
        signal.signal(signal.SIGTERM, self.stop_on_signal)
        kinds = sorted(a.invalid_kinds.split(",")) if a.invalid_kinds else sorted(generate.INVALID_KINDS)
        try:
            for c in self.configs:
                c.worker.start()
                self.log(f"config {c.name}: {c.worker.hello['platform']}, {c.worker.hello['device']}, "
                         f"{c.worker.hello['compute_units']} compute units, N from {c.groups_choices}")
            for i in range(a.count):
                seed = a.seed + i
                size = 1 + seed % a.max_size
                t0 = time.monotonic()
                src, info, findings = self.check_program(seed, size)
                # what the killed workers answered is not a finding
                if stop_signal:
                    raise Stopped()
                self.counts["programs"] += 1
                self.record(seed, size, src, info, findings)
                line = (f"program {i + 1}/{a.count} seed {seed} size {size}: L={info['local_size']} "
                        f"transmit {info['transmit_bytes']} B, {len(findings)} findings")
                if a.invalid_every and i % a.invalid_every == 0:
                    kind = kinds[(seed // a.invalid_every) % len(kinds)]
                    isrc, iinfo, ifind, nchecked = self.check_invalid(seed, size, kind)
                    if stop_signal:
                        raise Stopped()
                    bad = len(ifind)
                    self.counts["invalid_wrong"] += sum(1 for f in ifind if f["kind"] == "wrong")
                    self.counts["invalid_right"] += max(0, nchecked - bad)
                    self.record(seed, size, isrc, iinfo, ifind, tag=f"-invalid-{kind}")
                    line += f"; invalid {kind}: {'wrong' if bad else 'right'}"
                if a.ordinary_every and i % a.ordinary_every == 0:
                    osrc, oinfo, ofind = self.check_program(seed, size, ordinary=True)
                    if stop_signal:
                        raise Stopped()
                    self.counts["ordinary"] += 1
                    self.counts["ordinary_findings"] += sum(1 for f in ofind if f["kind"] != "reference")
                    self.record(seed, size, osrc, oinfo, ofind, tag="-ordinary")
                    line += (f"; ordinary {'+'.join(oinfo['blocking'])}: "
                             f"{len(ofind)} findings")
                self.log(line + f" ({time.monotonic() - t0:.1f} s)")
                if a.time_limit and time.monotonic() - start > a.time_limit:
                    self.log(f"fuzz: time limit of {a.time_limit} s reached")
                    break
        except Stopped:
            self.log(f"fuzz: stopped by {signal.Signals(stop_signal).name}; "
                     "what it interrupted is not counted")
        for c in self.configs:
            c.worker.stop()
        minutes = (time.monotonic() - start) / 60
        k = self.counts
        print(f"configurations: {len(self.configs)} ({', '.join(c.name for c in self.configs)})")
        print(f"launches: {k['launches']}, builds: {k['builds']} ({k['binary_builds']} from a binary), "
              f"hangs re-run with --confirm: {k['slow']}")
        print("seconds building / running: " + ", ".join(
            f"{name} {b:.0f}/{r:.0f}" for name, (b, r) in self.times.items()))
        print(f"invalid variants: {k['invalid_right']} rejected right, {k['invalid_wrong']} wrong")
        print(f"ordinary variants: {k['ordinary']}, {k['ordinary_findings']} findings")
        if any(c.spirv_dir for c in self.configs):
            print(f"zink SPIR-V modules validated: {k['spirv_modules']}")
        print(f"rate: {k['programs'] / minutes if minutes else 0:.2f} programs per minute "
              f"({minutes:.1f} minutes)")
        print(f"reference disagreements: {k['reference']} (PoCL with N > 1 alone, "
              "known/pocl-concurrent-groups.cl)")
        if self.findings:
            print("findings: " + ", ".join(d for _, d, _ in self.findings))
        print(f"fuzz: {k['programs']} programs, {k['mismatches']} mismatches, {k['crashes']} crashes, "
              f"{k['hangs']} hangs, {k['wrong']} wrong diagnostics")
        if k["mismatches"] or k["crashes"] or k["hangs"] or k["wrong"]:
            return 1
        return 128 + stop_signal if stop_signal else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker()
    if len(sys.argv) > 1 and sys.argv[1] == "--run-file":
        # --run-file FILE.cl GROUPS LOCAL REPEATS [OPTIONS]: a saved or
        # hand-reduced kernel `fuzz` with the generator's arguments, built
        # with OPTIONS and launched REPEATS times on the platform the
        # environment selects; prints the words of res[] that are not 0
        # (triage)
        cl = CL()
        answer = cl.build(open(sys.argv[2]).read(), " ".join(sys.argv[6:]))
        if not answer["built"]:
            print(answer["log"])
            return 1
        groups, local, repeats = map(int, sys.argv[3:6])
        info = {"res_words": 64, "slot_init": {}, "in_words": generate.D_WORDS,
                "in": generate.input_words(1), "counters": 64, "out_words": 64 * generate.MAX_PHASES,
                "k0": 1, "k1": 2, "local_size": local}
        if "KArg ka" in open(sys.argv[2]).read():
            info["karg"] = list(range(1, generate.KARG_WORDS + 1))
        first = launch_until_varied(cl, info, groups, repeats)
        if "varied" in first:
            print(f"launch {first['varied'] + 1} differs from the first: "
                  f"{first_difference(first['varied_memory'], first, 'the first')}")
            return 1
        print(f"{repeats} launches, the same memory: {nonzero_words(first['res'])}")
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--run-saved":
        # --run-saved DIR GROUPS REPEATS [--from-binary] [OPTIONS]: a saved
        # finding (OUT/findings/seed-S) launched REPEATS times with its own
        # launch description on the platform the environment selects; prints
        # each distinct final memory (res[] and out[]) with how many launches
        # ended with it, its res[] and where it first differs from the most
        # common one (triage of a finding that shows in some launches only).
        # --from-binary: built again from the first build's binary, as the
        # configurations of a finding marked "from": "binary" were.
        d = sys.argv[2]
        with open(os.path.join(d, "info.json")) as f:
            info = json.load(f)
        info["in"] = generate.input_words(info["in_seed"])
        from_binary = sys.argv[5:6] == ["--from-binary"]
        options = " ".join(sys.argv[6 if from_binary else 5:])
        cl = CL()
        with open(os.path.join(d, "program.cl")) as f:
            answer = cl.build(f.read(), options, want_binary=from_binary)
        if answer["built"] and from_binary:
            binary = base64.b64decode(answer["binary"])
            answer = cl.build(None, options, binary=binary)
            print(f"built again from the first build's binary ({len(binary)} bytes)")
        if not answer["built"]:
            print(answer["log"])
            return 1
        groups, repeats = int(sys.argv[3]), int(sys.argv[4])
        ranked = distinct_memories(cl.run(info, groups) for _ in range(repeats))
        common = ranked[0][1]
        for count, answer in ranked:
            differs = "" if answer is common else \
                f"; {first_difference(answer, common, 'most common')}"
            print(f"{count} launches: memory {memory_digest(answer)}: "
                  f"{nonzero_words(answer['res'])}{differs}")
        return 0 if len(ranked) == 1 else 1
    if len(sys.argv) > 1 and sys.argv[1] == "--build-only":
        # --build-only FILE: build FILE on the platform the environment selects
        cl = CL()
        answer = cl.build(open(sys.argv[2]).read())
        print(f"{cl.describe()['platform']}: build {'success' if answer['built'] else 'failure'}")
        print(answer["log"])
        return 0 if answer["built"] else 1
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-size", type=int, default=4, help="program sizes cycle through 1..K")
    ap.add_argument("--no-struct-arg", dest="struct_arg", action="store_false",
                    help="the programs of runs before patch 0071, without the by-value struct "
                    "argument (generate.py --struct-arg)")
    ap.add_argument("--out", default="_build/fuzz")
    ap.add_argument("--vendors", help="a directory of .icd files naming rusticl (*rusticl*.icd) "
                    "and Clover (ck-mesa*.icd); or give --rusticl-icd / --clover-icd")
    ap.add_argument("--clover-icd")
    ap.add_argument("--rusticl-icd")
    ap.add_argument("--pipe-dir", help="GALLIUM_PIPE_SEARCH_DIR for Clover")
    ap.add_argument("--pocl-icd")
    ap.add_argument("--platforms", default="pocl,rusticl",
                    help="of pocl, rusticl and clover (a Mesa before 25 on a driver with native IR)")
    ap.add_argument("--policies", default="never,default,random:1,random:2,cap:1")
    ap.add_argument("--rusticl-driver", choices=("llvmpipe", "zink"), default="llvmpipe",
                    help="rusticl's driver: zink runs over the Vulkan driver that VK_DRIVER_FILES "
                    "names (give --policies never: nothing resizes a launch there)")
    ap.add_argument("--units", default="2,3",
                    help="llvmpipe compute units (LP_NUM_THREADS), a list that the policies take in turn")
    ap.add_argument("--pocl-units", type=int, default=2)
    ap.add_argument("--reuse-binary", default="rusticl",
                    help="frontends whose configurations after the first build the program from the "
                    "first's binary (clCreateProgramWithBinary), a list, '' for none: the first "
                    "build checks the source's compilation and its log, the others programs "
                    "loaded from a binary, as an application that saves its binaries runs them")
    ap.add_argument("--pocl-options", default="-cl-opt-disable",
                    help="build options of the reference: PoCL 3.1's optimizations miscompile a "
                    "divergent loop after a barrier (tests/fuzz/known/pocl-divergent-loop.cl)")
    ap.add_argument("--rusticl-options", default="-cl-std=CL3.0",
                    help="rusticl's build options: OpenCL C 3.0, so that the blocking blocks' "
                    "relaxed atomic waits are atomic_load_explicit there (Clover compiles OpenCL C "
                    "1.1, PoCL 3.1 1.2: the volatile load)")
    ap.add_argument("--launches", type=int, default=4,
                    help="values of N per configuration (a launch takes milliseconds; the compile "
                    "at the first one most of the time)")
    ap.add_argument("--build-timeout", type=float, default=180)
    ap.add_argument("--run-timeout", type=float, default=60)
    ap.add_argument("--confirm", type=float, default=300,
                    help="a launch that timed out (a hang) runs again in a new worker with this many "
                    "seconds, for the finding's report (0: no second run)")
    ap.add_argument("--jobs", type=int, default=3,
                    help="lanes (PoCL, Clover, rusticl) that run a program at once")
    ap.add_argument("--invalid-every", type=int, default=3)
    ap.add_argument("--ordinary-every", type=int, default=4,
                    help="every K'th program also has an ordinary variant (generate.py --ordinary: "
                    "blocking blocks only, no builtin) launched with N up to the units (0: none)")
    ap.add_argument("--invalid-kinds", help="the invalid variants to take in turn, a list (default: "
                    "every kind)")
    ap.add_argument("--shrink", action="store_true")
    ap.add_argument("--shrink-tries", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=10,
                    help="each Mesa launch runs this many times in a row (races are rare)")
    ap.add_argument("--shrink-repeats", type=int, default=400,
                    help="launches per try while shrinking (a rare race must show again)")
    ap.add_argument("--time-limit", type=float, default=0)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--self-test", action="store_true",
                    help="check that the oracle finds a nondeterministic program, a hang and a "
                    "wrong diagnostic")
    a = ap.parse_args()
    unknown = set(a.invalid_kinds.split(",") if a.invalid_kinds else []) - set(generate.INVALID_KINDS)
    if unknown:
        ap.error(f"unknown invalid kinds: {', '.join(sorted(unknown))}")
    os.makedirs(a.out, exist_ok=True)
    if a.vendors:
        if "clover" in a.platforms:
            a.clover_icd = a.clover_icd or make_icd(a.out, "clover", a.vendors, r"^(?!.*rusticl).*mesa")
        a.rusticl_icd = a.rusticl_icd or make_icd(a.out, "rusticl", a.vendors, r"rusticl")
    for fe in ("clover", "rusticl"):
        if fe in a.platforms and not getattr(a, f"{fe}_icd"):
            ap.error(f"no ICD for {fe}: give --vendors or --{fe}-icd, or leave it out of --platforms")
    fuzzer = Fuzzer(a)
    return fuzzer.self_test() if a.self_test else fuzzer.run()


if __name__ == "__main__":
    sys.exit(main())
