#!/usr/bin/env python3
"""Random cooperative kernels whose final memory is deterministic by construction.

    generate.py --seed S [--size K] [--drop 3,7,..] [--invalid KIND] [--struct-arg] [--info]

prints one OpenCL C program (a kernel `fuzz`) built from seed S, standard
library only. Same seed, same options: same program, byte for byte.

How the result stays independent of the scheduler (docs/fuzzing.md):

  * the kernel runs in *phases*, each ended by a global barrier or a resizing
    global barrier (in helpers too, and inside uniform loops whose counters
    are `transmit` variables);
  * the work of a phase is handed out through an atomic counter (ctr[]):
    either a whole work-group takes a task (work-item 0 takes it and
    broadcasts it through local memory; the task's L items are task*L+lid),
    or each work-item takes items on its own (divergent loop). Whoever takes
    an item, the item is done exactly once, whole: kill and fork points lie
    only between tasks, never inside one;
  * an item's contribution is a function of the item, the kernel's
    arguments, read-only input, the transmit variables, and result slots of
    *earlier* phases (complete after the barrier): every slot has one
    commutative atomic operation (add, xor, or, and, min, max), and the
    per-item area is written by its item only;
  * transmit variables change only in phase-level code, to values every
    work-group computes alike, so a joining work-group receives the value
    every other one holds;
  * the work-item functions that depend on the schedule (get_group_id,
    get_num_groups, get_global_id, ...) appear only in invariant checks that
    set a failure bit in res[0] when an invariant of the spec breaks;
  * query_kill_count() only decides how often to offer a kill;
  * some phases start with a *blocking block*, where the active work-groups
    wait for each other in loops (a ticket lock around plain
    read-modify-writes, a message from work-group 0 behind a flag, an XF
    barrier between two rounds of tasks), polling with a volatile load or
    an atomic_add(p, 0), one work-item or all of them: right after a global
    barrier and with no kill or fork point inside, so every work-group that
    one waits for is active and reaches the block (the spec's fairness
    promise); what they contribute is as deterministic as the rest.

So res[] is the same on every correct implementation, for any N, any
policy; on PoCL the builtins are defined away (include/cooperative_kernels.cl.h)
and it runs as persistent threads.

--drop takes the ids of removable items (`--info` lists them) to leave out:
the program stays valid and deterministic (the runner's shrinker uses it).
--invalid KIND adds one violation of the spec's build rules and prints, on
stderr with --info, the rule and line the build log must name.
"""
import argparse
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "..", "include", "cooperative_kernels.cl.h")

TRANSMIT_LIMIT = 248  # bytes of a transmit record (a work-group slot)
OPS = ["add", "xor", "or", "and", "min", "max"]
OP_INIT = {"add": 0, "xor": 0, "or": 0, "and": 0xFFFFFFFF, "min": 0xFFFFFFFF, "max": 0}

SCALARS = {  # name: (size, signed-or-float tag)
    "char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4,
    "long": 8, "ulong": 8, "float": 4,
}
INVALID_KINDS = {
    # kind: (rule tag in the build log, fails the build?)
    "divergent-builtin": ("[workgroup-uniform control flow]", True),
    "divergent-barrier": ("[workgroup-uniform control flow]", True),
    "group-barrier": ("[kernel-uniform control flow]", True),
    "transmit-nested": ("[transmit]", True),
    "transmit-over-limit": ("[transmit]", True),
    "transmit-local-pointer": ("[transmit]", True),
    "undefined-after-fork": ("[undefined after fork]", False),
    "unreachable-builtin": ("[unreachable builtin]", True),
    "recursion": ("[recursion]", True),
    "transmit-in-helper": ("[transmit]", True),
    "divergent-moved": ("[workgroup-uniform control flow]", True),
    "active-count": ("[workgroup-uniform control flow]", True),
}
# What the build log must say besides the tag, where kinds share a tag but
# not a rule (spec statement 10.8-wgu-active-count).
INVALID_MESSAGES = {
    "active-count": "depends on get_num_groups(0) or get_global_size(0)",
}
# For the fuzzer's self-test only: a valid statement that claims a rule, so
# the invalid-variant check must report a wrong diagnostic.
SELFTEST_KINDS = {"selftest-valid": ("[workgroup-uniform control flow]", True)}
# Mutations that break the determinism or the termination by construction,
# which the oracle must catch (the fuzzer's self-test).
MUTATIONS = {
    "nondeterministic": ["if (get_local_id(0) == 0)",
                         "   atomic_add(&res[1], get_num_groups(0) + get_group_id(0));"],
    "hang": ["if (get_group_id(0) == 0) {",
             "   while (atomic_or(&res[1], 0u) == 0u)",
             "      ;",
             "}"],
    # deterministic, so every implementation agrees, but a blocking block's
    # slot ends one bit off the value the generator computed (work-group 0
    # flips it at the end): only the expected values can catch it
    "wrong-block": [],
}

D_WORDS = 256          # read-only input words
# The by-value struct argument of --struct-arg programs: 64 bytes, indexed
# per work-item (llvmpipe crashed on such loads before patch 0071).
KARG_TYPEDEF = "typedef struct { uint w[8]; ulong l[2]; ushort h[4]; uchar c[8]; } KArg;"
KARG_WORDS = 16
MAX_PHASES = 8
ITEM_AREA = 64         # per-item words per phase
BLOCKING_KINDS = ["ticket-lock", "message", "xf-barrier"]
BLOCKING_LOADS = {  # how a waiting work-item reads the word it waits on
    "volatile": "(*(volatile global uint *)&{})",
    "rmw": "atomic_add(&{}, 0u)",
}
# OpenCL C 3.0's form: a relaxed atomic_load_explicit (the load SPIR-V's
# OpAtomicLoad becomes, a coherent load in NIR), where the compiler is
# OpenCL C 3.0 (rusticl built with -cl-std=CL3.0); the volatile load
# elsewhere (Clover's OpenCL C 1.1, PoCL's 1.2), the same program. Half the
# volatile waits take it, drawn from a stream of their own.
ATOMIC_LOAD = "CK_RELAXED_LOAD({})"
ATOMIC_LOAD_MACRO = [
    "/* a blocking block's relaxed atomic wait, where OpenCL C 3.0 has it */",
    "#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 300",
    "#define CK_RELAXED_LOAD(w) atomic_load_explicit((volatile global atomic_uint *)&(w), "
    "memory_order_relaxed, memory_scope_device)",
    "#else",
    "#define CK_RELAXED_LOAD(w) (*(volatile global uint *)&(w))",
    "#endif",
]
PLAIN_OPS = {  # a slot's operation as a plain read-modify-write
    "add": "{0} + {1}", "xor": "{0} ^ {1}", "or": "{0} | {1}", "and": "{0} & {1}",
    "min": "min({0}, {1})", "max": "max({0}, {1})",
}
XF_FLAGS = 64          # the XF barrier's flags: work-groups of a launch, at most
MASK = 0xFFFFFFFF


def apply_op(op, x, y):
    """A slot's operation on two uint words, as OpenCL computes it."""
    return {"add": (x + y) & MASK, "xor": x ^ y, "or": x | y, "and": x & y,
            "min": min(x, y), "max": max(x, y)}[op]


class Type:
    def __init__(self, decl, size, align, leaves, suffix=""):
        self.decl, self.size, self.align, self.leaves, self.suffix = decl, size, align, leaves, suffix


def align_up(x, a):
    return (x + a - 1) // a * a


class Gen:
    def __init__(self, seed, size=3, drop=(), invalid=None, mutation=None, struct_arg=False,
                 ordinary=False):
        self.r = random.Random(seed * 7919 + size)
        self.ordinary = ordinary
        self.seed, self.size, self.drop, self.invalid = seed, size, set(drop), invalid
        self.mutation = mutation
        self.struct_arg = struct_arg
        self.max_depth = 2 if size <= 2 else 3
        self.next_id = 0
        self.removable = []
        self.structs = []
        self.struct_text = []
        self.helpers = {}      # name -> (kind, lines)
        self.used_helpers = set()
        self.transmits = []    # (name, Type)
        self.lines_meta = {}
        self.slot_ops = {}     # slot -> op
        self.next_slot = 8     # res[0]: invariant failures; 1..7 spare
        self.item_base = None
        self.phase_slots = []  # list per phase of slots
        self.phase = 0
        self.counter = 0       # ctr[] words used
        self.local_arrays = 0
        self.invalid_line_marker = None
        self.undefined_var = None
        # the blocking blocks have a random stream of their own, so that a
        # seed's program is otherwise the one it was before they came
        self.rb = random.Random(seed ^ 0xB10C)
        self.ra = random.Random(seed ^ 0xA70)  # the atomic form's draws
        self.blocking = []     # (kind, load form, uniform) of each block
        # a blocking block's slots are its own: some it writes with plain
        # read-modify-writes (under its lock) or reads before its phase ends
        # (the XF barrier's first round), and the final value of each is
        # computed here (self.expected, info["expected"]: an oracle that
        # needs no reference implementation)
        self.block_slots = set()
        self.expected = {}
        self.in_words = input_words(seed)
        self.loop_trips = {}   # a uniform loop's counter: its trip count

    # ------------------------------------------------------------ helpers
    def rid(self):
        """A removable item's id; True if it is kept."""
        i = self.next_id
        self.next_id += 1
        self.removable.append(i)
        return i not in self.drop

    def pick(self, seq):
        return self.r.choice(seq)

    def chance(self, p):
        return self.r.random() < p

    # ------------------------------------------------------------ types
    def scalar_type(self):
        name = self.pick(list(SCALARS))
        s = SCALARS[name]
        return Type(name, s, s, [("", name)])

    def vector_type(self):
        base = self.pick(["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float"])
        n = self.pick([2, 4, 8, 16] if SCALARS[base] <= 2 else [2, 4, 8])
        s = SCALARS[base] * n
        comps = "0123456789abcdef"
        return Type(f"{base}{n}", s, s, [(f".s{comps[i]}", base) for i in range(n)])

    def struct_type(self, depth):
        index = len(self.structs)
        name = f"S{index}"
        self.structs.append(None)  # keeps the name; nested structures come first
        fields, leaves, off, al = [], [], 0, 1
        for i in range(self.r.randint(1, 4)):
            t = self.any_type(depth + 1, allow_pointer=False)
            off = align_up(off, t.align)
            fields.append(f"   {t.decl} f{i}{t.suffix};")
            leaves += [(f".f{i}{p}", b) for p, b in t.leaves]
            off += t.size
            al = max(al, t.align)
        size = align_up(off, al)
        self.structs[index] = None
        self.struct_text.append(f"typedef struct {{\n" + "\n".join(fields) + f"\n}} {name};")
        return Type(name, size, al, leaves)

    def array_type(self, depth):
        t = self.pick([self.scalar_type, self.vector_type])() if depth > 0 or self.chance(0.6) \
            else self.struct_type(depth + 1)
        n = self.r.randint(1, 4)
        leaves = [(f"[{i}]{p}", b) for i in range(n) for p, b in t.leaves]
        return Type(t.decl, t.size * n, t.align, leaves, suffix=f"[{n}]" + t.suffix)

    def any_type(self, depth=0, allow_pointer=True):
        kinds = [self.scalar_type, self.scalar_type, self.vector_type]
        if depth < 2:
            kinds += [lambda: self.struct_type(depth), lambda: self.array_type(depth)]
        if allow_pointer and depth == 0 and self.chance(0.15):
            return Type("global const uint *", 8, 8, [("", "ptr")])
        t = self.pick(kinds)()
        return t

    # ------------------------------------------------------------ expressions
    def leaf_expr(self, ctx):
        """A uint expression that every work-item computing the same item
        (or, at phase level, every work-group) computes alike."""
        c = self.r.random()
        atoms = ctx["atoms"]
        if ctx.get("helper"):  # a helper sees its parameters and `in` only
            if c < 0.3:
                return f"{self.r.randint(0, 99)}u"
            if c < 0.4:
                return f"in[({self.leaf_expr(ctx)}) & {D_WORDS - 1}u]"
            return self.pick(atoms)
        if c < 0.25:
            return f"{self.r.choice([self.r.randint(0, 9), self.r.getrandbits(32)])}u"
        if c < 0.3 and self.struct_arg:
            return self.struct_arg_expr(ctx)
        if c < 0.35:
            return self.pick(["k0", "k1"])
        if c < 0.5 and self.transmits:
            name, t = self.pick(self.transmits)
            path, base = self.pick(t.leaves)
            if base == "ptr":
                return f"{name}[{self.leaf_expr(ctx)} & 63u]"
            return f"((uint){name}{path})"
        if c < 0.6 and ctx.get("earlier"):
            return f"res[{self.pick(ctx['earlier'])}]"
        if c < 0.65 and ctx.get("earlier_phases"):
            q = self.pick(ctx["earlier_phases"])
            return f"outb[{q * ITEM_AREA}u + (({self.leaf_expr(ctx)}) & {ITEM_AREA - 1}u)]"
        if c < 0.7:
            return f"in[({self.leaf_expr(ctx)}) & {D_WORDS - 1}u]"
        if atoms:
            return self.pick(atoms)
        return f"{self.r.randint(0, 99)}u"

    def struct_arg_expr(self, ctx):
        """An element of the by-value struct argument `ka`, at an index that
        may differ between work-items (and, guarded, may be out of range)."""
        i = self.leaf_expr(ctx)
        forms = [
            lambda: f"ka.w[({i}) & 7u]",
            lambda: f"(uint)(ka.l[({i}) & 1u] >> {self.pick([0, 17, 32])})",
            lambda: f"(uint)ka.h[({i}) & 3u]",
            lambda: f"(uint)ka.c[({i}) & 7u]",
            lambda: f"((({i}) < 8u) ? ka.w[{i}] : {self.r.getrandbits(32)}u)",
        ]
        return forms[self.r.randint(0, len(forms) - 1)]()

    def expr(self, ctx, depth=0):
        if depth >= self.max_depth or self.chance(0.35):
            return self.leaf_expr(ctx)
        a, b = self.expr(ctx, depth + 1), self.expr(ctx, depth + 1)
        form = self.r.randint(0, 14)
        if form <= 5:
            return f"({a} {self.pick(['+', '-', '*', '^', '&', '|'])} {b})"
        if form == 6:
            return f"({a} {self.pick(['<<', '>>'])} ({b} & 31u))"
        if form == 7:
            return f"rotate({a}, {b})"
        if form == 8:
            return f"{self.pick(['min', 'max', 'mul_hi', 'add_sat', 'hadd'])}({a}, {b})"
        if form == 9:
            return f"({a} {self.pick(['/', '%'])} ({b} | 1u))"
        if form == 10:
            return f"(({self.expr(ctx, depth + 1)} {self.pick(['<', '>', '==', '!='])} {a}) ? {b} : {self.expr(ctx, depth + 1)})"
        if form == 11:
            return f"{self.pick(['clz', 'abs'])}({a})"
        if form == 12 and ctx.get("pure_helpers", True) and self.chance(0.5):
            h = self.pure_helper()
            return f"{h}({a}, {b}, in)"
        return f"({a} + {b})"

    # ------------------------------------------------------------ helpers (functions)
    def pure_helper(self):
        pure = [n for n, (k, _) in self.helpers.items() if k == "pure"]
        if pure and (len(pure) >= 3 or self.chance(0.6)):
            name = self.pick(pure)
        else:
            name = f"h{len(self.helpers)}"
            self.helpers[name] = ("pure", None)
            ctx0 = {"atoms": ["a", "b"], "pure_helpers": False, "helper": True}
            ctx = {"atoms": ["a", "b", "x"], "pure_helpers": False, "helper": True}
            lines = [f"uint {name}(uint a, uint b, global const uint *in)", "{",
                     f"   uint x = {self.expr(ctx0)};"]
            if self.chance(0.6):  # divergent loop on the arguments
                lines += [f"   for (uint j = 0; j < (a & 7u); ++j)",
                          f"      x = {self.expr({'atoms': ['a', 'b', 'x', 'j'], 'pure_helpers': False, 'helper': True})};"]
            if self.chance(0.5):
                lines += [f"   if ({self.expr(ctx)} & 1u)",
                          f"      return x ^ {self.expr(ctx)};"]
            lines += [f"   return x + b;", "}"]
            self.helpers[name] = ("pure", lines)
        self.used_helpers.add(name)
        return name

    def sync_helper(self, level):
        """A void helper holding work-group builtins (level 'wg': offer_kill,
        request_fork, query_kill_count), or global barriers too ('kernel')."""
        name = f"s{len(self.helpers)}"
        self.helpers[name] = (level, None)
        lines = [f"void {name}(global uint *res CK_SYNC_PARAM)", "{"]
        lines += ["   " + l for l in self.invariant_check("res")]
        callee = [n for n, (k, l) in self.helpers.items()
                  if l and (k == "wg" or (k == "kernel" and level == "kernel"))]
        if callee and self.chance(0.3):  # nested: before any fork point of this helper
            lines.append(f"   {self.pick(callee)}(res SYNC_ARG);")
        body = []
        for _ in range(self.r.randint(1, 3)):
            body += self.sync_stmt(level, in_helper=True)
        if not any(b for b in body):
            body = ["offer_kill();"]
        lines += ["   " + l for l in body] + ["}"]
        self.helpers[name] = (level, lines)
        self.used_helpers.add(name)
        return name

    def invariant_check(self, res="res"):
        """Schedule-dependent work-item functions, checked against the spec's
        invariants; a failure sets a bit of res[0]."""
        c = self.r.randint(0, 3)
        if c == 0:
            cond, bit = "get_group_id(0) >= get_num_groups(0)", 1
        elif c == 1:
            cond, bit = ("get_global_id(0) != get_global_offset(0) + get_group_id(0) * get_local_size(0)"
                         " + get_local_id(0)"), 2
        elif c == 2:
            # M may change between two calls (other work-groups' kills and
            # forks), so the two are not compared with each other
            cond, bit = ("get_global_size(0) % get_local_size(0) != 0u || get_global_size(0) < "
                         "(get_group_id(0) + 1u) * get_local_size(0)"), 4
        else:
            cond, bit = f"get_local_size(0) != {self.L}u || get_local_id(0) >= {self.L}u", 8
        return [f"if ({cond})", f"   atomic_or(&{res}[0], {bit}u);"]

    # ------------------------------------------------------------ statements
    def new_slot(self):
        s = self.next_slot
        self.next_slot += 1
        self.slot_ops[s] = self.pick(OPS)
        self.phase_slots[-1].append(s)
        return s

    def contribution(self, ctx):
        # a blocking block's own slots take nothing else in their phase
        shared = [s for s in self.phase_slots[-1] if s not in self.block_slots]
        slot = self.new_slot() if (self.chance(0.5) or not shared) else self.pick(shared)
        return [f"atomic_{self.slot_ops[slot]}(&res[{slot}], {self.expr(ctx)});"]

    def sync_stmt(self, level, in_helper=False):
        """One builtin statement at a point where `level` allows it: 'wg'
        (between tasks: work-group uniform), 'kernel' (phase level). In a
        helper, nothing reads the helper's parameters (undefined after a
        fork point)."""
        keep = self.rid()
        kinds = ["kill", "kill", "fork", "query-loop", "query-last"]
        if not in_helper:
            kinds += ["invariant"]
            if len(self.helpers) < 10:
                kinds += ["wg-helper"] + (["kernel-helper"] if level == "kernel" else [])
        if level == "kernel":
            kinds += ["global", "resizing"]
        c = self.pick(kinds)
        if c == "kill":
            out = ["offer_kill();"]
        elif c == "fork":
            out = ["request_fork();"]
        elif c == "query-loop":  # ask, and give back as many as asked (bounded)
            out = [f"for (uint q = 0; q < min(query_kill_count(), {self.r.randint(1, 4)}u); ++q)",
                   "   offer_kill();"]
        elif c == "query-last" and in_helper:
            out = ["if (query_kill_count() > 0u)", "   offer_kill();"]
        elif c == "query-last":
            # get_num_groups(0) can change between two work-items' calls
            # (other work-groups' kills and forks), so "am I the last?" is
            # decided by work-item 0 and broadcast; the build rejects it
            # read by every work-item (spec revision 16, docs/fuzzing.md)
            v = f"ql{len(self.locals)}"
            self.locals.append(f"local uint {v};")
            out = ["barrier(CLK_LOCAL_MEM_FENCE);",
                   "if (get_local_id(0) == 0)",
                   f"   {v} = get_group_id(0) + 1u == get_num_groups(0);",
                   "barrier(CLK_LOCAL_MEM_FENCE);",
                   f"if (query_kill_count() > 0u && {v})",
                   "   offer_kill();"]
        elif c == "invariant":
            out = self.invariant_check()
        elif c == "wg-helper":
            out = [f"{self.sync_helper('wg')}(res SYNC_ARG);"]
        elif c == "kernel-helper":
            out = [f"{self.sync_helper('kernel')}(res SYNC_ARG);"]
        elif c == "global":
            out = ["global_barrier();"]
        else:
            out = ["resizing_global_barrier();"]
        return out if keep else []

    def task_body(self, ctx):
        """Straight-line and divergent code for one item (`item`), plus a
        local-memory exchange within the group when the loop is per group."""
        lines = []
        nvars = 0
        for _ in range(self.r.randint(1, 2 + self.size)):
            keep = self.rid()
            mark = len(lines)
            c = self.r.randint(0, 5)
            if c <= 1:
                lines += self.contribution(ctx)
            elif c == 2:
                v = f"v{nvars}"
                nvars += 1
                lines.append(f"uint {v} = {self.expr(ctx)};")
                ctx["atoms"].append(v)
            elif c == 3:  # divergent branch
                lines.append(f"if (({self.expr(ctx)}) & {self.pick([1, 2, 3, 4])}u) {{")
                lines += ["   " + l for l in self.contribution(ctx)]
                lines.append("} else {")
                lines += ["   " + l for l in self.contribution(ctx)]
                lines.append("}")
            elif c == 4:  # divergent loop
                j = f"j{nvars}"
                nvars += 1
                lines.append(f"for (uint {j} = 0; {j} < (({self.expr(ctx)}) & 3u); ++{j})")
                ctx2 = dict(ctx, atoms=ctx["atoms"] + [j])
                lines += ["   " + l for l in self.contribution(ctx2)]
            else:  # per-item plain store: one writer per word and phase
                lines.append(f"if (item < {ITEM_AREA}u)")
                lines.append(f"   outb[{(self.phase - 1) * ITEM_AREA}u + item] = {self.expr(ctx)};")
            if not keep:
                if c == 2:
                    ctx["atoms"].pop()
                del lines[mark:]
        if ctx.get("group") and self.L > 1 and self.chance(0.6):
            # exchange through local memory: each work-item publishes a value
            # of its item, the group reads a neighbour's after the barrier
            keep = self.rid()
            mark = len(lines)
            la = f"lm{self.local_arrays}"
            self.local_arrays += 1
            self.locals.append(f"local uint {la}[{self.L}];")
            k = self.r.randint(1, self.L - 1)
            lines += [f"{la}[get_local_id(0)] = {self.expr(ctx)};",
                      "barrier(CLK_LOCAL_MEM_FENCE);",
                      f"uint nb{la} = {la}[(get_local_id(0) + {k}u) % {self.L}u];"]
            ctx["atoms"].append(f"nb{la}")
            lines += self.contribution(ctx)
            lines.append("barrier(CLK_LOCAL_MEM_FENCE);")
            if not keep:
                del lines[mark:]
        return lines

    def work_loop(self, earlier, counter_expr, loop_var):
        ctx = {"atoms": ["item", "item", "lid"] + ([loop_var] if loop_var else []),
               "earlier": earlier, "earlier_phases": list(range(self.phase - 1))}
        tasks = self.r.randint(0, 8 + 12 * self.size)
        lines = []
        if self.chance(0.6):  # a whole group per task, broadcast by work-item 0
            ctx["group"] = True
            t = f"task{self.phase}"
            self.locals.append(f"local uint {t};")
            lines += ["for (;;) {",
                      "   barrier(CLK_LOCAL_MEM_FENCE);",
                      "   if (get_local_id(0) == 0)",
                      f"      {t} = atomic_inc(&ctr[{counter_expr}]);",
                      "   barrier(CLK_LOCAL_MEM_FENCE);",
                      f"   if ({t} >= {tasks}u)",
                      "      break;",
                      "   {",
                      "      uint lid = get_local_id(0);",
                      f"      uint item = {t} * {self.L}u + lid;"]
            lines += ["      " + l for l in self.task_body(ctx)]
            lines.append("   }")
            for _ in range(self.r.randint(1, 3)):  # kill and fork points between tasks
                lines += ["   " + l for l in self.sync_stmt("wg")]
            lines.append("}")
        else:  # each work-item takes items on its own (divergent loop)
            lines += ["for (;;) {",
                      f"   uint item = atomic_inc(&ctr[{counter_expr}]);",
                      f"   if (item >= {tasks * self.L}u)",
                      "      break;",
                      "   uint lid = item % 5u;"]
            lines += ["   " + l for l in self.task_body(ctx)]
            lines.append("}")
        return lines

    def phase_code(self, loop_var):
        """One phase: transmit updates, a work loop, builtins, and the
        barrier that ends it."""
        earlier = [s for slots in self.phase_slots for s in slots]
        self.phase_slots.append([])
        p = self.phase
        self.phase += 1
        counter = self.counter
        self.counter += 4
        counter_expr = f"{counter}u + ({loop_var} & 3u)" if loop_var else f"{counter}u"
        lines = []
        if self.rb.random() < 0.35:
            lines += self.blocking_block(p, loop_var)
        ctx = {"atoms": [loop_var] if loop_var else [], "earlier": earlier, "pure_helpers": True,
               "earlier_phases": list(range(p))}
        for _ in range(self.r.randint(0, 2)):
            if self.transmits:
                keep = self.rid()
                mark = len(lines)
                name, t = self.pick(self.transmits)
                path, base = self.pick(t.leaves)
                if base == "ptr":
                    lines.append(f"{name} = in + (({self.expr(ctx)}) & 127u);")
                elif base == "float":
                    lines.append(f"{name}{path} = (float)(({self.expr(ctx)}) & 0xffffu);")
                else:
                    lines.append(f"{name}{path} = ({base})({self.expr(ctx)});")
                if not keep:
                    del lines[mark:]
        for _ in range(self.r.randint(0, 1)):
            lines += self.sync_stmt("kernel")
        lines += self.work_loop(earlier, counter_expr, loop_var)
        for _ in range(self.r.randint(0, 2)):
            lines += self.sync_stmt("kernel")
        if self.chance(0.3):
            if earlier and self.chance(0.5):
                # a decision on earlier results, broadcast by work-item 0:
                # work-group uniform (the compiler's taint of global memory
                # is per buffer, and res[] holds id-dependent contributions,
                # so only a broadcast makes it uniform), for work-group
                # builtins only
                b = f"bc{p}"
                self.locals.append(f"local uint {b};")
                lines += ["barrier(CLK_LOCAL_MEM_FENCE);",
                          "if (get_local_id(0) == 0)",
                          f"   {b} = res[{self.pick(earlier)}];",
                          "barrier(CLK_LOCAL_MEM_FENCE);",
                          f"if ({b} & {self.pick([1, 2, 4])}u) {{"]
                lines += ["   " + l for l in self.sync_stmt("wg")]
                lines += ["}"]
            else:  # kernel-uniform: read-only input and arguments
                lines += [f"if ((in[{self.r.randint(0, D_WORDS - 1)}] ^ {self.pick(['k0', 'k1'])}) & {self.pick([1, 2, 4])}u) {{"]
                lines += ["   " + l for l in self.sync_stmt("kernel")]
                lines += ["}"]
        lines.append(self.pick(["global_barrier();", "resizing_global_barrier();"]))
        return lines

    # ------------------------------------------------------------ blocking blocks
    def blocking_slot(self):
        s = self.next_slot
        self.next_slot += 1
        self.slot_ops[s] = self.rb.choice(OPS)
        self.phase_slots[-1].append(s)
        self.block_slots.add(s)
        return s

    def ctr_words(self, n):
        base = self.counter
        self.counter += n
        return base

    def task_value(self, t, extra=""):
        """A task's contribution: a function of the task number, the input
        and (extra) results complete before it; with the same function in
        Python, `value(t, extra_value)`, for the expected memory."""
        a, b = self.rb.getrandbits(32) | 1, self.rb.getrandbits(32)
        words = self.in_words

        def value(task, extra_value=0):
            return ((task * a + b) & MASK) ^ words[task & (D_WORDS - 1)] ^ extra_value
        return f"(({t} * {a}u + {b}u) ^ in[{t} & {D_WORDS - 1}u]{extra})", value

    def expect(self, slot, values):
        """The final value of a blocking block's slot (which nothing else
        writes): its operation over `values` from the slot's first value."""
        x = OP_INIT[self.slot_ops[slot]]
        for v in values:
            x = apply_op(self.slot_ops[slot], x, v)
        self.expected[slot] = x

    def blocking_block(self, p, loop_var):
        """A block in which the active work-groups wait for each other. It
        starts right after a global barrier (or at the kernel's start) and
        holds no kill or fork point, so the work-groups it waits for are the
        active ones, which all reach it; M is read once, by work-item 0, and
        broadcast. Its words in ctr[] are its own; in a uniform loop each
        trip has its own task counters and message (loop_var & 3)."""
        keep = self.rid()
        kind = self.rb.choice(BLOCKING_KINDS)
        form = self.rb.choice(sorted(BLOCKING_LOADS))
        if form == "volatile" and self.ra.random() < 0.5:
            form = "atomic"
        uniform = self.rb.random() < 0.5
        trip = f"({loop_var} & 3u)" if loop_var else "0u"
        load = lambda word: (ATOMIC_LOAD if form == "atomic" else BLOCKING_LOADS[form]).format(word)
        # the wait loop, run by work-item 0 alone or by every work-item
        wait = lambda cond: ((["if (get_local_id(0) == 0)"] if not uniform else [])
                             + [("   " if not uniform else "") + l
                                for l in [f"while ({cond})", "   ;"]])
        tasks = self.rb.randint(1, 40)
        trips = range(self.loop_trips[loop_var]) if loop_var else range(1)
        slots_before = len(self.phase_slots[-1])
        lines = [f"{{ /* blocking: {kind}, {form} load, {'uniform' if uniform else 'divergent'} wait */"]
        body = []
        if kind == "ticket-lock":
            # tickets, the one served, and a task counter per trip
            w = self.ctr_words(6)
            s = self.blocking_slot()
            term, value = self.task_value("t")
            rmw = PLAIN_OPS[self.slot_ops[s]].format(f"res[{s}]", term)
            expect = lambda: self.expect(s, [value(t) for _ in trips for t in range(tasks)])
            ticket, served, task = f"ctr[{w}u]", f"ctr[{w + 1}u]", f"ctr[{w + 2}u + {trip}]"
            if uniform:
                bt, bk = f"bt{p}", f"bk{p}"
                self.locals += [f"local uint {bt};", f"local uint {bk};"]
                body += ["for (;;) {",
                         "   if (get_local_id(0) == 0) {",
                         f"      {bt} = atomic_inc(&{task});",
                         f"      if ({bt} < {tasks}u)",
                         f"         {bk} = atomic_inc(&{ticket});",
                         "   }",
                         "   barrier(CLK_LOCAL_MEM_FENCE);",
                         f"   const uint t = {bt}, tk = {bk};",
                         "   barrier(CLK_LOCAL_MEM_FENCE);",
                         f"   if (t >= {tasks}u)",
                         "      break;",
                         f"   while ({load(served)} != tk)",
                         "      ;",
                         "   barrier(CLK_GLOBAL_MEM_FENCE);",
                         "   if (get_local_id(0) == 0) {",
                         "      mem_fence(CLK_GLOBAL_MEM_FENCE);",
                         f"      res[{s}] = {rmw};",
                         "      mem_fence(CLK_GLOBAL_MEM_FENCE);",
                         f"      atomic_inc(&{served});",
                         "   }",
                         "}"]
            else:
                body += ["if (get_local_id(0) == 0) {",
                         "   for (;;) {",
                         f"      const uint t = atomic_inc(&{task});",
                         f"      if (t >= {tasks}u)",
                         "         break;",
                         f"      const uint tk = atomic_inc(&{ticket});",
                         f"      while ({load(served)} != tk)",
                         "         ;",
                         "      mem_fence(CLK_GLOBAL_MEM_FENCE);",
                         f"      res[{s}] = {rmw};",
                         "      mem_fence(CLK_GLOBAL_MEM_FENCE);",
                         f"      atomic_inc(&{served});",
                         "   }",
                         "}",
                         "barrier(CLK_GLOBAL_MEM_FENCE);"]
        elif kind == "message":
            # work-group 0 writes K words, then the flag; every active
            # work-group waits for it and folds the words into an
            # idempotent slot (or, and, min, max: the same whoever folds)
            k = self.rb.randint(1, 16)
            w = self.ctr_words(4 + 4 * k)
            s = self.next_slot
            self.next_slot += 1
            self.slot_ops[s] = self.rb.choice(["or", "and", "min", "max"])
            self.phase_slots[-1].append(s)
            self.block_slots.add(s)
            flag, data = f"ctr[{w}u + {trip}]", f"ctr[{w + 4}u + {trip} * {k}u + get_local_id(0)]"
            term, value = self.task_value('k', ' ^ ' + trip)
            # the work-items below k fold the words: min(k, L) of them
            expect = lambda: self.expect(s, [value(i, j & 3) for j in trips
                                             for i in range(min(k, self.L))])
            body += ["if (get_group_id(0) == 0 && get_local_id(0) == 0) {",
                     f"   for (uint k = 0; k < {k}u; k++)",
                     f"      ctr[{w + 4}u + {trip} * {k}u + k] = {term};",
                     "   mem_fence(CLK_GLOBAL_MEM_FENCE);",
                     f"   atomic_xchg(&{flag}, 1u);",
                     "}"]
            body += wait(f"{load(flag)} == 0u")
            body += ["mem_fence(CLK_GLOBAL_MEM_FENCE);",
                     "barrier(CLK_GLOBAL_MEM_FENCE);",
                     f"if (get_local_id(0) < {k}u)",
                     f"   atomic_{self.slot_ops[s]}(&res[{s}], {data});"]
        else:
            # two rounds of tasks with an XF barrier between them: the
            # second reads the first's slot, complete only after it
            w = self.ctr_words(8 + XF_FLAGS)
            first, second = self.blocking_slot(), self.blocking_slot()
            flags = w + 8
            xm = f"xm{p}"
            self.locals.append(f"local uint {xm};")

            def round_of(slot, counter, extra):
                term, value = self.task_value('t', extra)
                return ["if (get_local_id(0) == 0) {",
                        "   for (;;) {",
                        f"      const uint t = atomic_inc(&ctr[{counter}u + {trip}]);",
                        f"      if (t >= {tasks}u)",
                        "         break;",
                        f"      atomic_{self.slot_ops[slot]}(&res[{slot}], {term});",
                        "   }",
                        "}"], value
            master_wait = (["for (uint g = 1; g < m; g++)",
                            f"   while ({load(f'ctr[{flags}u + g]')} == 0u)",
                            "      ;"] if uniform else
                           ["for (uint g = 1u + get_local_id(0); g < m; g += get_local_size(0))",
                            f"   while ({load(f'ctr[{flags}u + g]')} == 0u)",
                            "      ;"])
            body += ["barrier(CLK_LOCAL_MEM_FENCE);",
                     "if (get_local_id(0) == 0)",
                     f"   {xm} = get_num_groups(0);",
                     "barrier(CLK_LOCAL_MEM_FENCE);",
                     f"const uint m = min({xm}, {XF_FLAGS}u);"]
            lines_first, first_value = round_of(first, w, "")
            body += lines_first
            body += ["barrier(CLK_GLOBAL_MEM_FENCE);",
                     "if (get_group_id(0) == 0) {"]
            body += ["   " + l for l in master_wait]
            body += ["   mem_fence(CLK_GLOBAL_MEM_FENCE);",
                     "   barrier(CLK_GLOBAL_MEM_FENCE);",
                     "   for (uint g = 1u + get_local_id(0); g < m; g += get_local_size(0)) {",
                     "      mem_fence(CLK_GLOBAL_MEM_FENCE);",
                     f"      atomic_xchg(&ctr[{flags}u + g], 0u);",
                     "   }",
                     "} else {",
                     "   if (get_local_id(0) == 0) {",
                     "      mem_fence(CLK_GLOBAL_MEM_FENCE);",
                     f"      atomic_xchg(&ctr[{flags}u + get_group_id(0)], 1u);",
                     "   }"]
            body += ["   " + l for l in wait(f"{load(f'ctr[{flags}u + get_group_id(0)]')} == 1u")]
            body += ["   mem_fence(CLK_GLOBAL_MEM_FENCE);",
                     "   barrier(CLK_GLOBAL_MEM_FENCE);",
                     "}"]
            lines_second, second_value = round_of(second, w + 4, f" ^ res[{first}]")
            body += lines_second

            def expect():
                # each trip's second round reads the first slot as the
                # trip's first round left it
                firsts, seconds, x = [], [], OP_INIT[self.slot_ops[first]]
                for j in trips:
                    for t in range(tasks):
                        firsts.append(first_value(t))
                        x = apply_op(self.slot_ops[first], x, firsts[-1])
                    seconds += [second_value(t, x) for t in range(tasks)]
                self.expect(first, firsts)
                self.expect(second, seconds)
        lines += ["   " + l for l in body] + ["}"]
        if not keep:  # its slots stay as they were
            for slot in self.phase_slots[-1][slots_before:]:
                self.expect(slot, [])
            return []
        expect()
        self.blocking.append((kind, form, uniform))
        return lines

    def tail_code(self):
        """After the last global barrier: some work-groups (never 0, which
        hashes the transmit variables at the end) return early, and the
        others share a last phase of work with work-group builtins only (a
        returned work-group stays active, so no global barrier may follow;
        kills stop at it)."""
        earlier = [s for slots in self.phase_slots for s in slots]
        self.phase_slots.append([])
        self.phase += 1
        counter = self.counter
        self.counter += 4
        lines = [f"if (get_group_id(0) != 0 && ((get_group_id(0) ^ k{self.r.randint(0, 1)}) & "
                 f"{self.pick([1, 2, 3])}u))",
                 "   return;"]
        lines += self.work_loop(earlier, f"{counter}u", None)
        for _ in range(self.r.randint(0, 2)):
            lines += self.sync_stmt("wg")
        return lines

    def record_bytes(self, loop_counters):
        """The transmit record's size with the variables and that many loop
        counters (declared after them)."""
        return align_up(self.transmit_bytes, 4) + 4 * loop_counters if loop_counters \
            else self.transmit_bytes

    # ------------------------------------------------------------ program
    def generate(self):
        r = self.r
        self.L = self.pick([1, 2, 4, 8, 8, 16, 32])
        self.locals = []
        # transmit variables, within the limit (padding counts)
        budget = self.pick([64, 128, 200, 248])
        off = 0
        for i in range(r.randint(1, 3 + self.size)):
            t = self.any_type()
            end = align_up(off, t.align) + t.size
            if end > budget:
                continue
            off = end
            self.transmits.append((f"t{i}", t))
        self.transmit_bytes = off
        phases = []
        nphase = r.randint(1, min(MAX_PHASES - 1, 1 + self.size))
        loops = 0
        body = []
        if self.ordinary:
            # an ordinary kernel: blocking blocks only, one after the other
            # (each has its own words and slots, so work-groups in different
            # blocks do not meet); no builtin, no transmit variable
            self.transmits, self.transmit_bytes, nphase = [], 0, 0
            for p in range(self.rb.randint(1, 3)):
                self.phase_slots.append([])
                self.phase += 1
                body += self.blocking_block(p, None)
        while self.phase < nphase:
            # a uniform loop's counter is a `transmit uint` too: only if it
            # fits in the record (seed 98618 took a loop with the record full)
            if r.random() < 0.3 and loops < 2 and self.record_bytes(loops + 1) <= TRANSMIT_LIMIT:
                lv = f"tl{loops}"
                loops += 1
                trips = r.randint(1, 3)
                self.loop_trips[lv] = trips
                body.append(f"for ({lv} = 0; {lv} < {trips}u; ++{lv}) {{")
                for _ in range(r.randint(1, 2)):
                    body += ["   " + l for l in self.phase_code(lv)]
                body.append("}")
            else:
                body += self.phase_code(None)
        if r.random() < 0.4 and not self.ordinary:
            body += self.tail_code()
        self.loops = loops
        self.transmit_bytes = self.record_bytes(loops)
        self.item_base = self.next_slot
        n_slots = self.next_slot
        # transmit declarations and their first values, in some programs
        # after a loop and a branch of the root scope (the root scope is
        # where they belong, not before any control flow); that choice has
        # its own random stream, so that a seed's program is otherwise the
        # one it was before
        prelude = []
        if random.Random(self.seed ^ 0x7A5C0).random() < 0.3:
            prelude = ["uint pre = k1;",
                       "for (uint p = 0u; p < (k0 & 3u) + 1u; ++p)",
                       "   pre = pre * 747796405u + p;",
                       "if (pre & 1u)",
                       "   pre ^= k0;"]
        decl = []
        for name, t in self.transmits:
            decl.append(f"transmit {t.decl} {name}{t.suffix};")
        for lv in range(loops):
            decl.append(f"transmit uint tl{lv} = 0;")
        ctx0 = {"atoms": [], "earlier": [], "pure_helpers": False}
        init = []
        saved = self.transmits
        self.transmits = []
        for name, t in saved:
            for path, base in t.leaves:
                if base == "ptr":
                    init.append(f"{name} = in + ({self.expr(ctx0)} & 127u);")
                elif base == "float":
                    init.append(f"{name}{path} = (float)({self.expr(ctx0)} & 0xffffu);")
                else:
                    init.append(f"{name}{path} = ({base})({self.expr(ctx0)}"
                                + (" ^ pre" if prelude else "") + ");")
        self.transmits = saved
        # the transmit variables' values go into the result at the end
        final_slot = n_slots
        n_slots += 1
        self.slot_ops[final_slot] = "xor"
        fin = ["if (get_group_id(0) == 0 && get_local_id(0) == 0) {", "   uint h = 0;"]
        for name, t in self.transmits:
            for path, base in t.leaves:
                if base == "ptr":
                    fin.append(f"   h = h * 31u + (uint)({name} - in);")
                else:
                    fin.append(f"   h = h * 31u + (uint){name}{path};")
        for lv in range(loops):
            fin.append(f"   h = h * 31u + tl{lv};")
        fin += [f"   atomic_xor(&res[{final_slot}], h);"]
        if self.mutation == "wrong-block" and self.expected:
            fin.append(f"   atomic_xor(&res[{min(self.expected)}], 1u);")
        fin.append("}")
        # invalid variants
        inv_before, inv_after, extra_funcs, extra_decl = [], [], [], []
        if self.invalid:
            inv_before, inv_after, extra_funcs, extra_decl = self.invalid_code()
        if self.invalid == "divergent-moved":
            # one of the program's own builtin calls, moved under a local-id
            # condition
            calls = [i for i, l in enumerate(body)
                     if l.strip() in ("offer_kill();", "request_fork();", "global_barrier();",
                                      "resizing_global_barrier();")]
            if calls:
                i = self.pick(calls)
                indent = body[i][:len(body[i]) - len(body[i].lstrip())]
                body[i:i + 1] = [f"{indent}if (get_local_id(0) + 1u < get_local_size(0) || "
                                 f"get_local_size(0) == 1u) /*INVALID*/",
                                 f"{indent}   {body[i].strip()} /*INVALID*/"]
            else:
                inv_before = ["if (get_local_id(0) < 1u) /*INVALID*/", "   offer_kill(); /*INVALID*/"]
        mutated = MUTATIONS[self.mutation] if self.mutation else []
        body_lines = (["   " + l for l in self.locals + prelude + decl + extra_decl + init + mutated + inv_before + body
                       + inv_after + fin])
        out = []
        out.append(f"/* generated by tests/fuzz/generate.py --seed {self.seed} --size {self.size}"
                   + (f" --drop {','.join(map(str, sorted(self.drop)))}" if self.drop else "")
                   + (f" --invalid {self.invalid}" if self.invalid else "")
                   + (f" --mutation {self.mutation}" if self.mutation else "")
                   + (" --ordinary" if self.ordinary else "") + " */")
        with open(HEADER) as f:
            out += f.read().splitlines()
        out += ["/* helpers that hold global barriers take the fallback's sync words too */",
                "#if defined(cl_ext_cooperative_kernels) && !defined(CK_DEFINE_AWAY)",
                "#define SYNC_ARG", "#else", "#define SYNC_ARG , ck_sync", "#endif"]
        out += ATOMIC_LOAD_MACRO
        out += self.struct_text
        text = "\n".join(body_lines)
        used, todo = set(), [n for n in self.helpers if re.search(rf"\b{n}\(", text)]
        while todo:
            n = todo.pop()
            if n in used:
                continue
            used.add(n)
            htext = "\n".join(self.helpers[n][1][2:])
            todo += [m for m in self.helpers if re.search(rf"\b{m}\(", htext)]
        for name in sorted(used, key=lambda n: int(n[1:])):
            out += self.helpers[name][1]
        out += extra_funcs
        if self.struct_arg:
            out.append(KARG_TYPEDEF)
        out.append("kernel void fuzz(global uint *res, global const uint *in, global uint *ctr, "
                   "global uint *outb, uint k0, uint k1"
                   + (", KArg ka" if self.struct_arg else "") + " CK_SYNC_PARAM)")
        out.append("{")
        out += body_lines
        out.append("}")
        src = "\n".join(out) + "\n"
        self.info = {
            "seed": self.seed, "size": self.size, "local_size": self.L,
            "res_words": n_slots, "counters": self.counter + 4, "in_words": D_WORDS,
            "out_words": max(1, self.phase) * ITEM_AREA,
            "k0": self.r.getrandbits(32), "k1": self.r.getrandbits(32),
            **({"karg": [self.r.getrandbits(32) for _ in range(KARG_WORDS)]}
               if self.struct_arg else {}),
            "slot_init": {str(s): OP_INIT[op] for s, op in self.slot_ops.items()},
            "expected": {str(s): v for s, v in sorted(self.expected.items())},
            "removable": self.removable, "transmit_bytes": self.transmit_bytes,
            "blocking": [f"{kind}/{form}/{'uniform' if uniform else 'divergent'}"
                         for kind, form, uniform in self.blocking],
            "ordinary": self.ordinary,
            "in_seed": self.seed,
            # a global work offset for some launches (kept in every
            # work-group, forked ones too)
            "offset": self.pick([0, 0, self.L * self.r.randint(1, 9), self.r.randint(1, 1000)]),
        }
        if self.invalid:
            rule, fails = {**INVALID_KINDS, **SELFTEST_KINDS}[self.invalid]
            line = next(i for i, l in enumerate(src.splitlines(), 1) if "/*INVALID*/" in l)
            self.info.update(invalid=self.invalid, rule=rule, build_fails=fails, line=line,
                             message=INVALID_MESSAGES.get(self.invalid))
        return src

    def invalid_code(self):
        k = self.invalid
        before, after, funcs, decl = [], [], [], []
        M = "/*INVALID*/"
        if k == "divergent-builtin":
            b = self.pick(["offer_kill();", "request_fork();", "(void)query_kill_count();"])
            before = [f"if (get_local_id(0) < {max(1, self.L // 2)}u)", f"   {b} {M}"]
        elif k == "divergent-barrier":
            b = self.pick(["global_barrier();", "resizing_global_barrier();"])
            before = [f"if (get_global_id(0) % 2u == 0u)", f"   {b} {M}"]
        elif k == "group-barrier":
            b = self.pick(["global_barrier();", "resizing_global_barrier();"])
            before = [f"if (get_group_id(0) == 0u)", f"   {b} {M}"]
        elif k == "transmit-nested":
            # outside the kernel's root scope: in a plain block, a branch, a
            # loop's body or a loop's init
            where = self.pick(["block", "if", "loop", "for-init"])
            if where == "for-init":
                before = [f"for (transmit uint nested = 0u; nested < (k0 & 1u) + 1u; ++nested) {M}",
                          "   res[1] = nested;"]
            else:
                opening = {"block": "{",
                           "if": f"if (k0 != {self.r.getrandbits(32)}u) {{",
                           "loop": "for (uint v = 0u; v < (k0 & 1u) + 1u; ++v) {"}[where]
                before = [f"{opening} {M}", f"   transmit uint nested = k0; {M}",
                          "   res[1] = nested;", "}"]
        elif k == "transmit-over-limit":
            room = TRANSMIT_LIMIT - self.transmit_bytes
            n = room // 16 + 2
            decl = [f"transmit uint4 over[{n}]; {M}"]
            before = ["over[0].s0 = k0;"]
        elif k == "transmit-local-pointer":
            self.locals.append("local uint lbuf[4];")
            decl = [f"transmit local uint *lp = lbuf; {M}"]
        elif k == "undefined-after-fork":
            before = ["uint cached = get_local_id(0) + k0;", "request_fork();",
                      f"atomic_add(&res[1], cached); {M}"]
        elif k == "unreachable-builtin":
            funcs = ["void never_called(void)", "{", f"   request_fork(); {M}", "}"]
        elif k == "transmit-in-helper":
            funcs = ["void with_transmit(global uint *res, uint k)", "{",
                     f"   transmit uint carried; {M}", "   carried = k;", "   request_fork();",
                     "   atomic_add(&res[1], 0u * carried);", "}"]
            before = ["with_transmit(res, k0);"]
        elif k == "divergent-moved":
            pass  # done on the body in generate()
        elif k == "active-count":
            # a builtin under a condition on M in a kernel that kills or
            # forks: each work-item reads M when it calls get_num_groups(0),
            # and another work-group's kill or fork may fall between two
            # reads, so a work-group could split at the builtin
            m = self.pick(["get_num_groups(0)", "get_global_size(0)"])
            form = self.pick(["if", "variable", "loop"])
            builtins = ["offer_kill();", "(void)query_kill_count();", "global_barrier();"]
            if form != "loop":  # a fork point in the loop: its counter undefined after fork too
                builtins += ["request_fork();", "resizing_global_barrier();"]
            b = self.pick(builtins)
            if b not in ("offer_kill();", "request_fork();"):
                # the rule holds only in a kernel that kills or forks
                before = [self.pick(["offer_kill();", "request_fork();"])]
            if form == "if":
                before += [f"if ({m} > {self.r.randint(1, 8)}u)", f"   {b} {M}"]
            elif form == "variable":  # through a private variable
                before += [f"const uint active = {m};", f"if (active % {self.pick([2, 3, 4])}u == 0u)",
                           f"   {b} {M}"]
            else:  # a loop's exit condition
                before += [f"for (uint v = 0u; v < {m}; v += {self.pick([1, 2, 4])}u)", f"   {b} {M}"]
        elif k == "selftest-valid":
            before = [f"res[1] = k0; {M}"]
        elif k == "recursion":
            funcs = [f"void rec(global uint *res, uint n) {M}", "{",
                     "   if (n > 0u)", "      rec(res, n - 1u);", f"   offer_kill(); {M}", "}"]
            before = ["rec(res, 2u);"]
        return before, after, funcs, decl


def input_words(seed):
    r = random.Random(seed ^ 0x5EED)
    return [r.getrandbits(32) for _ in range(D_WORDS)]


def generate(seed, size=3, drop=(), invalid=None, mutation=None, struct_arg=False, ordinary=False):
    g = Gen(seed, size, drop, invalid, mutation, struct_arg, ordinary)
    src = g.generate()
    info = g.info
    info["in"] = input_words(seed)
    return src, info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--size", type=int, default=3)
    ap.add_argument("--drop", default="")
    ap.add_argument("--invalid", choices=sorted({**INVALID_KINDS, **SELFTEST_KINDS}))
    ap.add_argument("--mutation", choices=sorted(MUTATIONS))
    ap.add_argument("--struct-arg", action="store_true",
                    help="give the kernel a by-value struct argument, read at indices that differ "
                    "between work-items (tools/ck fuzz's programs since patch 0071)")
    ap.add_argument("--ordinary", action="store_true",
                    help="an ordinary kernel (no builtin): blocking blocks only, for launches of at "
                    "most as many work-groups as compute units")
    ap.add_argument("--info", action="store_true", help="print the launch description (JSON) on stderr")
    a = ap.parse_args(argv)
    drop = [int(x) for x in a.drop.split(",") if x]
    src, info = generate(a.seed, a.size, drop, a.invalid, a.mutation, a.struct_arg, a.ordinary)
    sys.stdout.write(src)
    if a.info:
        info = dict(info)
        info.pop("in")
        json.dump(info, sys.stderr)
        sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
