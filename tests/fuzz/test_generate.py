#!/usr/bin/env python3
"""The fuzzer's parts that need no device (tests/fuzz/generate.py and the
oracle's comparison in fuzz.py): same seed, same program; leaving items out
keeps the rest; the transmit record fits; every builtin and every invalid
kind shows up; a difference in memory is seen; an invalid variant's log must
name its rule."""
import argparse
import os
import re
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fuzz  # noqa: E402
import generate  # noqa: E402


def kernel_body(src):
    return src[src.index("kernel void fuzz"):]


# OpenCL C's scalar sizes are generate.SCALARS; a vector's alignment is its size
DECLARATION = re.compile(r"^\s*(.+?)\s*\b(\w+)((?:\[\d+\])*)\s*(?:=.*)?;$")


def size_and_alignment(type_name, structs):
    type_name = type_name.strip()
    if type_name.endswith("*"):
        return 8, 8
    if type_name in structs:
        return structs[type_name]
    vector = re.fullmatch(r"([a-z]+?)(2|4|8|16)", type_name)
    if vector:
        size = generate.SCALARS[vector.group(1)] * int(vector.group(2))
        return size, size
    return generate.SCALARS[type_name], generate.SCALARS[type_name]


def lay_out(declarations, structs):
    """(size, alignment) of a C struct with these declarations, in order."""
    offset, alignment = 0, 1
    for declaration in declarations:
        type_name, _, dims = DECLARATION.match(declaration).groups()
        size, align = size_and_alignment(type_name, structs)
        for n in re.findall(r"\d+", dims):
            size *= int(n)
        offset = generate.align_up(offset, align) + size
        alignment = max(alignment, align)
    return offset, alignment


def transmit_record_bytes(src):
    """The transmit record's size, read off the program: its variables in
    the order they are declared, padding between them counted."""
    structs = {}
    for fields, name in re.findall(r"typedef struct \{(.*?)\} (\w+);", src, re.S):
        size, align = lay_out([f + ";" for f in fields.split(";") if f.strip()], structs)
        structs[name] = (generate.align_up(size, align), align)
    transmits = [line.strip()[len("transmit "):] for line in kernel_body(src).splitlines()
                 if line.strip().startswith("transmit ")]
    return lay_out(transmits, structs)[0]


class GenerateTest(unittest.TestCase):
    def test_same_seed_same_program(self):
        for seed in range(1, 40):
            self.assertEqual(generate.generate(seed, 3)[0], generate.generate(seed, 3)[0])
        self.assertNotEqual(generate.generate(1, 3)[0], generate.generate(2, 3)[0])

    def test_every_builtin_and_transmit_kind(self):
        text = "".join(generate.generate(seed, 1 + seed % 4)[0] for seed in range(1, 120))
        for needle in ("offer_kill();", "request_fork();", "global_barrier();",
                       "resizing_global_barrier();", "query_kill_count()", "transmit global const uint *",
                       "typedef struct", "barrier(CLK_LOCAL_MEM_FENCE)", "atomic_min", "atomic_xor",
                       "SYNC_ARG);", "transmit uint tl0", "uint pre = k1;"):
            self.assertIn(needle, text)

    def test_struct_argument(self):
        # off: the programs of earlier runs, unchanged; on: the kernel takes
        # `KArg ka` and reads it at work-item-dependent and guarded indices
        for seed in range(1, 40):
            plain, info = generate.generate(seed, 3)
            self.assertNotIn("KArg", plain)
            self.assertNotIn("karg", info)
        text = ""
        for seed in range(1, 40):
            src, info = generate.generate(seed, 1 + seed % 4, struct_arg=True)
            self.assertEqual(src, generate.generate(seed, 1 + seed % 4, struct_arg=True)[0])
            self.assertIn("uint k1, KArg ka CK_SYNC_PARAM)", src)
            self.assertEqual(len(info["karg"]), generate.KARG_WORDS)
            text += kernel_body(src)
        for needle in ("ka.w[(", "ka.l[(", "ka.h[(", "ka.c[(", ") < 8u) ? ka.w["):
            self.assertIn(needle, text)

    def test_transmit_record_fits(self):
        # the record is laid out from the program text, not from the
        # generator's bookkeeping: the uniform loops' counters (transmit
        # uint tlN, declared last) are part of it, and seeds 26 and 98618
        # once took one with the record already at 248 bytes
        for seed in list(range(1, 200)) + [26, 98618]:
            for struct_arg in (False, True):
                src, info = generate.generate(seed, 1 + seed % 4, struct_arg=struct_arg)
                size = transmit_record_bytes(src)
                self.assertLessEqual(size, 248, f"seed {seed}")
                self.assertEqual(size, info["transmit_bytes"], f"seed {seed}")

    def test_dropping_keeps_the_rest(self):
        for seed in range(1, 20):
            src, info = generate.generate(seed, 2)
            items = info["removable"]
            if len(items) < 2:
                continue
            dropped, _ = generate.generate(seed, 2, [items[-1]])
            # the random stream is the same: the program only loses lines
            full = kernel_body(src).splitlines()
            less = kernel_body(dropped).splitlines()
            self.assertLessEqual(len(less), len(full))
            it = iter(full)
            self.assertTrue(all(any(line == f for f in it) for line in less), f"seed {seed}")

    def test_no_schedule_dependent_value_reaches_memory(self):
        # get_group_id & co. appear only in the invariant checks and the
        # final hash's guard
        # final hash's guard, and in blocking blocks the active count that
        # work-item 0 broadcasts and the work-group's own flag in ctr[]
        allowed = re.compile(r"^\s*(if \(|for \(uint q|ql\d+ = |xm\d+ = get_num_groups\(0\);$|"
                             r"atomic_xchg\(&ctr\[\d+u \+ get_group_id\(0\)\], 1u\);$|"
                             r"while \(.*ctr\[\d+u \+ get_group_id\(0\)\].*\)$)")
        for seed in range(1, 60):
            src, _ = generate.generate(seed, 3)
            for line in kernel_body(src).splitlines():
                if re.search(r"get_(group_id|num_groups|global_id|global_size)", line):
                    self.assertRegex(line, allowed, f"seed {seed}: {line}")

    def test_blocking_blocks_cover_every_kind_and_form(self):
        # Over a few hundred seeds every kind of wait, in each load form and
        # loop form, appears; each block holds no kill or fork point (the
        # work-groups it waits for must stay active) and starts where the
        # active work-groups all arrive: the kernel's start or right after
        # a global barrier.
        seen = set()
        for seed in range(1, 300):
            src, info = generate.generate(seed, 3)
            seen.update(info["blocking"])
            lines = kernel_body(src).splitlines()
            for i, line in enumerate(lines):
                if "/* blocking:" not in line:
                    continue
                indent = len(line) - len(line.lstrip())
                end = next(j for j in range(i + 1, len(lines))
                           if lines[j].startswith(" " * indent + "}") and
                           len(lines[j]) - len(lines[j].lstrip()) == indent)
                block = "\n".join(lines[i:end])
                self.assertNotRegex(block, r"offer_kill|request_fork|query_kill_count|"
                                    r"global_barrier|resizing_global_barrier", f"seed {seed}")
                before = [l.strip() for l in lines[:i] if l.strip()]
                builtins = [l for l in before if re.search(
                    r"offer_kill|request_fork|global_barrier\(\)|resizing_global_barrier|\bs\d+\(", l)]
                if builtins:
                    self.assertRegex(builtins[-1], r"^(resizing_)?global_barrier\(\);$|^for \(tl",
                                     f"seed {seed}: the block does not follow a global barrier")
                # a block's slots are its own: another contribution would
                # race with the lock's plain read-modify-write, change what
                # the XF barrier's second round reads (seed 109049) or the
                # value the generator computed for the slot
                own = set(re.findall(r"res\[(\d+)\]", block))
                rest = "\n".join(lines[:i] + lines[end:])
                for slot in own:
                    self.assertNotIn(f"&res[{slot}]", rest, f"seed {seed}: slot {slot}")
                    self.assertIn(slot, info["expected"], f"seed {seed}: slot {slot}")
        want = {f"{k}/{f}/{u}" for k in generate.BLOCKING_KINDS
                for f in list(generate.BLOCKING_LOADS) + ["atomic"] for u in ("uniform", "divergent")}
        self.assertEqual(seen, want)

    def test_atomic_waits_fall_back_before_opencl_c_3(self):
        # the relaxed atomic wait is a macro: atomic_load_explicit where the
        # compiler is OpenCL C 3.0, the volatile load elsewhere
        src, info = next((s, i) for s, i in (generate.generate(seed, 3) for seed in range(1, 60))
                         if any("/atomic/" in b for b in i["blocking"]))
        self.assertIn("CK_RELAXED_LOAD(ctr[", kernel_body(src))
        macro = "\n".join(generate.ATOMIC_LOAD_MACRO)
        self.assertIn(macro, src)
        self.assertRegex(macro, r"__OPENCL_C_VERSION__ >= 300\n#define CK_RELAXED_LOAD\(w\) "
                         r"atomic_load_explicit.*memory_order_relaxed.*\n#else\n"
                         r"#define CK_RELAXED_LOAD\(w\) \(\*\(volatile global uint \*\)")

    def test_dropped_blocks_expect_their_first_values(self):
        for seed in range(1, 40):
            src, info = generate.generate(seed, 2)
            if not info["blocking"]:
                continue
            ids = [i for i in info["removable"]
                   if "/* blocking:" not in generate.generate(seed, 2, [i])[0]]
            if not ids:
                continue
            _, less = generate.generate(seed, 2, ids)
            self.assertEqual(set(less["expected"]), set(info["expected"]))
            for slot, value in less["expected"].items():
                self.assertEqual(value, less["slot_init"][slot], f"seed {seed}")
            return
        self.fail("no seed with a droppable blocking block")

    def test_ordinary_programs_wait_without_builtins(self):
        # --ordinary: blocking blocks only, in every kind and form, no
        # builtin of the extension, no transmit variable, every slot that a
        # block writes expected
        seen = set()
        for seed in range(1, 120):
            src, info = generate.generate(seed, 3, ordinary=True)
            body = kernel_body(src)
            self.assertNotRegex(body, r"offer_kill|request_fork|query_kill_count|global_barrier|"
                                r"transmit ", f"seed {seed}")
            self.assertTrue(info["ordinary"] and 1 <= len(info["blocking"]) <= 3)
            written = {a or b for a, b in re.findall(r"&res\[(\d+)\]|res\[(\d+)\] = ", body)}
            final_hash = str(info["res_words"] - 1)
            self.assertEqual(written - {final_hash}, set(info["expected"]), f"seed {seed}")
            seen.update(info["blocking"])
        want = {f"{k}/{f}/{u}" for k in generate.BLOCKING_KINDS
                for f in list(generate.BLOCKING_LOADS) + ["atomic"] for u in ("uniform", "divergent")}
        self.assertEqual(seen, want)

    def test_invalid_variants_are_marked(self):
        for kind in generate.INVALID_KINDS:
            src, info = generate.generate(5, 2, (), kind)
            self.assertIn("/*INVALID*/", src)
            self.assertEqual(info["rule"], generate.INVALID_KINDS[kind][0])

    def test_transmit_placements(self):
        # valid: declared in the root scope after a loop and a branch of it
        for seed in range(1, 40):
            body = kernel_body(generate.generate(seed, 2)[0])
            if "uint pre = k1;" in body:
                self.assertLess(body.index("   for (uint p = 0u;"), body.index("   transmit "))
        # invalid: each kind of place outside the root scope
        text = "".join(generate.generate(seed, 1, (), "transmit-nested")[0] for seed in range(1, 40))
        for opening in ("   { /*INVALID*/", "   if (k0 != ", "   for (uint v = 0u;",
                        "   for (transmit uint nested"):
            self.assertIn(opening, text)

    def test_active_count_variants(self):
        # a builtin under a condition on M (get_num_groups(0) or
        # get_global_size(0)), in every form, in a kernel that kills or forks
        text = ""
        for seed in range(1, 80):
            src, info = generate.generate(seed, 1 + seed % 4, (), "active-count")
            self.assertEqual(info["message"], generate.INVALID_MESSAGES["active-count"])
            lines = kernel_body(src).splitlines()
            marked = next(i for i, l in enumerate(lines) if "/*INVALID*/" in l)
            self.assertRegex("\n".join(lines[marked - 2:marked]),
                             r"(if|for) \(.*(get_num_groups\(0\)|get_global_size\(0\)|active %)")
            self.assertRegex(kernel_body(src), r"\b(offer_kill|request_fork)\(\);")
            text += src
        for needle in ("offer_kill(); /*INVALID*/", "request_fork(); /*INVALID*/",
                       "query_kill_count(); /*INVALID*/", "   global_barrier(); /*INVALID*/",
                       "resizing_global_barrier(); /*INVALID*/", "if (get_num_groups(0) >",
                       "if (get_global_size(0) >", "const uint active = get_num_groups(0);",
                       "const uint active = get_global_size(0);", "v < get_num_groups(0);",
                       "v < get_global_size(0);"):
            self.assertIn(needle, text)

    def test_mutations(self):
        for mutation in generate.MUTATIONS:
            src, _ = generate.generate(5, 2, mutation=mutation)
            self.assertNotEqual(src, generate.generate(5, 2)[0])
        # wrong-block flips a bit of a slot with an expected value
        src, info = generate.generate(5, 2, mutation="wrong-block")
        self.assertIn(f"atomic_xor(&res[{min(map(int, info['expected']))}], 1u);", src)


class OracleTest(unittest.TestCase):
    def test_a_difference_is_seen(self):
        a = {"status": 0, "res": [1, 2, 3], "out": [0, 0]}
        b = {"status": 0, "res": [1, 2, 3], "out": [0, 0]}
        self.assertEqual(fuzz.memory_digest(a), fuzz.memory_digest(b))
        for area, index in (("res", 1), ("out", 0)):
            c = {k: (list(v) if isinstance(v, list) else v) for k, v in a.items()}
            c[area][index] ^= 1
            self.assertNotEqual(fuzz.memory_digest(a), fuzz.memory_digest(c))
            self.assertIn(f"{area}[{index}]", fuzz.first_difference(c, a))
        c = dict(a, status=-1150)
        self.assertNotEqual(fuzz.memory_digest(a), fuzz.memory_digest(c))

    def test_expected_values_are_checked(self):
        info = {"expected": {"8": 5, "9": 0xFFFFFFFF}}
        right = {"status": 0, "res": [0] * 8 + [5, 0xFFFFFFFF], "out": []}
        self.assertEqual(fuzz.expected_differences(right, info), "")
        wrong = dict(right, res=[0] * 8 + [4, 0xFFFFFFFF])
        self.assertEqual(fuzz.expected_differences(wrong, info), "res[8] = 0x4, expected 0x5")
        self.assertIn("failed", fuzz.expected_differences(dict(right, status=-5), info))
        self.assertEqual(fuzz.expected_differences(dict(right, status=-5), {}), "")

    def test_triage_counts_memories_not_res(self):
        # seed 100334: PoCL with N = 2 lost an item whose contributions to
        # res[] were already there; only out[] showed it
        right = {"status": 0, "res": [5, 7], "out": [3, 9]}
        lost = {"status": 0, "res": [5, 7], "out": [3, 0]}
        ranked = fuzz.distinct_memories([right, lost, right, dict(right), lost, right])
        self.assertEqual([count for count, _ in ranked], [4, 2])
        self.assertIs(ranked[0][1], right)
        self.assertEqual(fuzz.first_difference(ranked[1][1], ranked[0][1], "most common"),
                         "out[1] = 0x0, most common 0x9")


class InvalidCheckTest(unittest.TestCase):
    """The invalid-variant check needs the rule's tag, its message where
    kinds share a tag, and a line of the violation."""

    class Builder:
        def __init__(self, log):
            self.log = log

        def build(self, source, timeout):
            return {"built": False, "log": self.log}

    def check(self, kind, message):
        src, info = generate.generate(7, 2, (), kind)
        line = info["line"]
        f = fuzz.Fuzzer.__new__(fuzz.Fuzzer)
        f.a = argparse.Namespace(build_timeout=5, struct_arg=False)
        f.counts = {"builds": 0}
        log = f"input.cl:{line}:7: error: 'offer_kill' is reached in control flow that {message}"
        f.configs = [fuzz.Config(name, {}, 1, [1]) for name in ("clover/never", "clover/default",
                                                             "rusticl/never")]
        for c in f.configs:
            c.worker = self.Builder(log + f" {info['rule']}")
        _, _, findings, checked = f.check_invalid(7, 2, kind)
        self.assertEqual(checked, 2)  # once per frontend
        return findings

    def test_active_count_needs_its_message(self):
        self.assertEqual(self.check("active-count", "depends on get_num_groups(0) or "
                                    "get_global_size(0), which change"), [])
        wrong = self.check("active-count", "depends on the local id")
        self.assertEqual([x["kind"] for x in wrong], ["wrong", "wrong"])
        self.assertIn("does not say", wrong[0]["what"])
        # a kind without a message of its own: the tag and the line suffice
        self.assertEqual(self.check("divergent-builtin", "depends on the local id"), [])


class ConfigTest(unittest.TestCase):
    def test_ordinary_launches_stay_within_the_units_in_use(self):
        # cap:K leaves K units to every kernel: an ordinary launch of more
        # work-groups than that is not promised to finish its waits (the
        # first long run with ordinary variants hung at cap:1 with N = 2)
        a = self.args(policies="never,default,cap:1", rusticl_driver="llvmpipe")
        configs = fuzz.configs_from_args(a, "/tmp")
        units = {c.name: c.units for c in configs}
        self.assertEqual(units, {"rusticl/never/2u": 2, "rusticl/default/3u": 3,
                                 "rusticl/cap:1/2u": 1})
        # rusticl compiles OpenCL C 3.0: the relaxed atomic waits
        self.assertEqual({c.options for c in configs}, {"-cl-std=CL3.0"})
        self.assertEqual({c.env["RUSTICL_ENABLE"] for c in configs}, {"llvmpipe"})

    def test_zink_runs_over_the_vulkan_driver_of_the_environment(self):
        a = self.args(policies="never", rusticl_driver="zink")
        [config] = fuzz.configs_from_args(a, "/tmp")
        self.assertEqual((config.env["RUSTICL_ENABLE"], config.env["GALLIUM_DRIVER"],
                          config.env["LIBGL_ALWAYS_SOFTWARE"]), ("swrast", "zink", "1"))

    @staticmethod
    def args(**kw):
        return argparse.Namespace(units="2,3", platforms="rusticl", pocl_icd=None, out="/tmp",
                                  rusticl_icd="/nonexistent", clover_icd=None, pipe_dir=None,
                                  reuse_binary="", rusticl_options="-cl-std=CL3.0", **kw)


class FakeWorker:
    """A worker that answers after `delay` seconds with res = [value], or
    res = [value[N]] where value maps N to a result."""
    def __init__(self, value, delay, builds=True):
        self.value, self.delay, self.builds = value, delay, builds
        self.requests = []  # (binary, want_binary) of each build

    def build(self, source, timeout, binary=None, want_binary=False):
        time.sleep(self.delay)
        self.requests.append((binary, want_binary))
        answer = {"built": self.builds, "log": ""}
        if want_binary and self.builds:
            answer["binary"] = f"binary of {source}"
        return answer

    def run(self, info, groups, timeout, repeats=1, compile_timeout=0):
        time.sleep(self.delay)
        self.repeats_asked = getattr(self, "repeats_asked", []) + [(groups, repeats)]
        if getattr(self, "answers", None):
            return self.answers.pop(0)
        value = self.value[groups] if isinstance(self.value, dict) else self.value
        return {"status": 0, "res": [value], "out": [], "seconds": self.delay}

    wanted = (None, 0, None)


class LanesTest(unittest.TestCase):
    def fuzzer(self, values, delay, jobs, pocl_groups=(1,), reuse_binary=(), not_building=()):
        f = fuzz.Fuzzer.__new__(fuzz.Fuzzer)
        f.a = argparse.Namespace(launches=len(pocl_groups), struct_arg=False, build_timeout=5, run_timeout=5,
                                 confirm=0, jobs=jobs, quiet=True)
        f.configs = []
        for name, value in values:
            c = fuzz.Config(name, {}, 1, list(pocl_groups) if name == "pocl" else [1],
                            reference=name == "pocl", reuse_binary=name.split("/")[0] in reuse_binary)
            c.worker = FakeWorker(value, delay, builds=name not in not_building)
            f.configs.append(c)
        f.counts = {"builds": 0, "binary_builds": 0, "launches": 0, "slow": 0, "wrong": 0}
        f.times = {c.name: [0.0, 0.0] for c in f.configs}
        f.lock = threading.Lock()
        f.repeats = 1
        return f

    def test_lanes_run_at_once_and_report_in_order(self):
        values = [("pocl", 1), ("clover/a", 2), ("clover/b", 1), ("rusticl/a", 3), ("rusticl/b", 1)]
        f = self.fuzzer(values, 0.2, 3)
        start = time.monotonic()
        _, _, findings = f.check_program(1, 1)
        # two configurations of 0.4 s per lane, not five one after the other
        self.assertLess(time.monotonic() - start, 1.5)
        self.assertEqual([x["config"] for x in findings], ["clover/a", "rusticl/a"])
        self.assertEqual(f.counts["launches"], 5)
        serial = self.fuzzer(values, 0.2, 1)
        start = time.monotonic()
        self.assertEqual(serial.check_program(1, 1)[2], findings)
        self.assertGreater(time.monotonic() - start, 1.9)


    def test_reference_disagreeing_alone_is_reported_apart(self):
        # PoCL's N = 2 differs and every Mesa run agrees with PoCL's N = 1:
        # PoCL's own bug (known/pocl-concurrent-groups.cl), not a mismatch
        pocl = ("pocl", {1: 7, 2: 9})
        f = self.fuzzer([pocl, ("clover/a", 7), ("rusticl/a", 7)], 0, 3, pocl_groups=(1, 2))
        findings = f.check_program(1, 1)[2]
        self.assertEqual([(x["kind"], x["config"], x["groups"]) for x in findings],
                         [("reference", "pocl", 2)])
        # a Mesa run that differs too makes every difference a mismatch
        f = self.fuzzer([pocl, ("clover/a", 7), ("rusticl/a", 9)], 0, 3, pocl_groups=(1, 2))
        self.assertEqual([(x["kind"], x["config"]) for x in f.check_program(1, 1)[2]],
                         [("mismatch", "pocl"), ("mismatch", "rusticl/a")])


    def test_the_first_launch_is_judged_and_a_differing_repeat_is_a_finding(self):
        # The first launch (it compiled the kernel) was wrong, a repeat
        # right: both the first launch and the repeat's difference count.
        f = self.fuzzer([("pocl", 7), ("clover/a", 7), ("rusticl/a", 7)], 0, 3)
        f.configs[1].worker.answers = [{"status": 0, "res": [8], "out": [], "varied": 1,
                                        "varied_memory": {"status": 0, "res": [7], "out": []}}]
        findings = f.check_program(1, 1)[2]
        self.assertEqual(sorted((x["kind"], x["config"]) for x in findings),
                         [("mismatch", "clover/a"), ("mismatch", "clover/a")])
        self.assertTrue(any("repeat 1" in x["detail"] for x in findings))
        self.assertTrue(any("res[0] = 0x8, reference 0x7" in x["detail"] for x in findings))

    def test_a_hang_is_a_finding_even_if_a_re_run_ends(self):
        f = self.fuzzer([("pocl", 7), ("clover/a", 7), ("rusticl/a", 7)], 0, 3)
        f.a.confirm = 30
        f.configs[2].worker.answers = [{"hang": True}, {"status": 0, "res": [7], "out": []}]
        findings = f.check_program(1, 1)[2]
        self.assertEqual([(x["kind"], x["config"]) for x in findings], [("hang", "rusticl/a")])
        self.assertIn("no answer within 5 s; a re-run in a new worker ended in", findings[0]["detail"])

    def test_the_reference_is_pocl_n1_launched_twice_and_trusted_only_if_it_agrees(self):
        f = self.fuzzer([("pocl", {1: 7, 2: 7}), ("clover/a", 7), ("rusticl/a", 7)], 0, 3,
                        pocl_groups=(2,))
        f.a.launches = 1
        self.assertEqual(f.check_program(1, 1)[2], [])
        self.assertEqual(f.configs[0].worker.repeats_asked, [(1, 2), (2, 2)])
        # PoCL's N = 1 launches differ: a reference finding, and the Mesa
        # configurations are judged against the first of them
        f = self.fuzzer([("pocl", 9), ("clover/a", 7), ("rusticl/a", 8)], 0, 3)
        f.configs[0].worker.answers = [{"status": 0, "res": [9], "out": [], "varied": 1,
                                        "varied_memory": {"status": 0, "res": [7], "out": []}}]
        findings = f.check_program(1, 1)[2]
        self.assertEqual([(x["kind"], x["config"]) for x in findings],
                         [("reference", "pocl"), ("mismatch", "rusticl/a")])

    def test_later_configurations_build_from_the_first_ones_binary(self):
        # Clover caches no compilation: its first configuration builds the
        # source and hands its binary on (--reuse-binary); rusticl's build
        # from source, and a first build that fails hands nothing on
        names = ["pocl", "clover/a", "clover/b", "clover/c", "rusticl/a", "rusticl/b"]
        f = self.fuzzer([(n, 1) for n in names], 0, 3, reuse_binary=("clover",))
        src, _, findings = f.check_program(1, 1)
        self.assertEqual(findings, [])
        requests = {c.name: c.worker.requests for c in f.configs}
        binary = f"binary of {src}"
        self.assertEqual(requests["clover/a"], [(None, True)])
        self.assertEqual(requests["clover/b"], [(binary, False)])
        self.assertEqual(requests["clover/c"], [(binary, False)])
        self.assertEqual(requests["rusticl/b"], [(None, False)])
        self.assertEqual(requests["pocl"], [(None, False)])
        self.assertEqual(f.counts["binary_builds"], 2)
        f = self.fuzzer([(n, 1) for n in names], 0, 3, reuse_binary=("clover",),
                        not_building=("clover/a",))
        findings = f.check_program(1, 1)[2]
        self.assertEqual([(x["kind"], x["config"]) for x in findings], [("wrong", "clover/a")])
        self.assertEqual(f.configs[2].worker.requests, [(None, True)])
        self.assertEqual(f.configs[3].worker.requests, [(binary, False)])

    def test_a_binary_is_asked_for_only_where_it_is_reused_and_findings_say_so(self):
        # a lane of one configuration hands nothing on (its binary would
        # cross the worker's pipe for nothing); a finding on a configuration
        # built from the binary says so, for --run-saved --from-binary
        f = self.fuzzer([("pocl", 1), ("clover/a", 1), ("rusticl/a", 1)], 0, 3,
                        reuse_binary=("clover",))
        self.assertEqual(f.check_program(1, 1)[2], [])
        self.assertEqual(f.configs[1].worker.requests, [(None, False)])
        f = self.fuzzer([("pocl", 1), ("clover/a", 2), ("clover/b", 2), ("rusticl/a", 1)], 0, 3,
                        reuse_binary=("clover",))
        findings = f.check_program(1, 1)[2]
        self.assertEqual([(x["config"], x.get("from")) for x in findings],
                         [("clover/a", None), ("clover/b", "binary")])


# A compute shader whose atomic's operands are int for a uint result (what
# zink built before patch 0050): spirv-val rejects it; with uint operands
# it is valid.
ATOMIC_MODULE = """
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %counter
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %block Block
               OpMemberDecorate %block 0 Offset 0
               OpDecorate %counter DescriptorSet 0
               OpDecorate %counter Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
      %int_1 = OpConstant %int 1
      %block = OpTypeStruct %uint
  %block_ptr = OpTypePointer StorageBuffer %block
   %uint_ptr = OpTypePointer StorageBuffer %uint
    %counter = OpVariable %block_ptr StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
       %word = OpAccessChain %uint_ptr %counter %uint_0
        %old = OpAtomicIAdd %uint %word %uint_1 %uint_0 OPERAND
               OpReturn
               OpFunctionEnd
"""


class ZinkSpirvTest(unittest.TestCase):
    def test_an_invalid_module_is_a_finding_and_every_module_is_removed(self):
        import subprocess
        import tempfile
        # spirv-tools is one of the packages tools/ck installs
        with tempfile.TemporaryDirectory() as d:
            for name, operand in (("dump00", "%uint_2"), ("dump01", "%int_1")):
                source = os.path.join(d, name + ".spvasm")
                with open(source, "w") as f:
                    f.write(ATOMIC_MODULE.replace("OPERAND", operand))
                subprocess.run(["spirv-as", "--target-env", "vulkan1.3", source, "-o",
                                os.path.join(d, name + ".spv")], check=True)
                os.remove(source)
            c = fuzz.Config("rusticl/never", {}, 1, [1])
            c.spirv_dir = d
            findings, modules = fuzz.spirv_findings(c)
            self.assertEqual(modules, 2)
            self.assertEqual(len(findings), 1, findings)
            self.assertEqual(findings[0]["kind"], "wrong")
            self.assertIn("AtomicIAdd", findings[0]["detail"])
            self.assertEqual(os.listdir(d), [])
            self.assertEqual(fuzz.spirv_findings(c), ([], 0))

    def test_a_configuration_without_zink_validates_nothing(self):
        self.assertEqual(fuzz.spirv_findings(fuzz.Config("pocl", {}, 1, [1])), ([], 0))


class WorkerTimeoutTest(unittest.TestCase):
    def test_the_first_launch_in_each_process_has_the_compile_time(self):
        # llvmpipe compiles at the first launch in a process: after a hang
        # the new worker compiles again (seed 80006: its compiles on the
        # loaded machine counted as hangs when only the first launch of a
        # configuration had the build timeout)
        w = fuzz.Worker("fake", {}, "/tmp")
        answers = iter([{"built": True}, {"res": []}, {"res": []}, {"hang": True},
                        {"built": True}, {"res": []}])
        launches = []

        def request(obj, timeout):
            if "info" in obj:
                launches.append(round(timeout, 1))
            answer = next(answers)
            if "hang" in answer:
                w.proc = None
            return answer
        w.request = request
        w.proc = object()
        w.build("kernel", 100)
        for _ in range(4):
            w.run({}, 1, 10, compile_timeout=100)
        self.assertEqual(launches, [110.2, 10.2, 10.2, 110.2])


if __name__ == "__main__":
    unittest.main()
