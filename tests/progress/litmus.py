"""Progress litmus tests: a tiny language, a generator, and OpenCL emission.

The language.  A test is a tuple of programs, one per work-group (only one
work-item of each group acts); program t runs as work-group t.  A program is
a tuple of instructions over a few global words (all 0 at the start), each
instruction one atomic step:

    st l v        store v to l; go on
    ld l e        spin: load l; go on when it was e
    xchg l e n    spin: exchange n into l; go on when the old value was e
    cas l e n     spin: compare-and-swap l from e to n; go on when it succeeded

A work-group terminates when it passes its last instruction.  A spin step
that fails stays at the same instruction, so the work-group is enabled
until it terminates (no instruction disables it).  OOPSLA'21 (Sorensen et
al., §3) has a single instruction, an atomic load or exchange that branches
to any instruction when the old value equals a given one.  These four are
its cases that branch back to themselves (spins) or to the next instruction
(st); with two values a CAS loop is one of them too (see
`instruction_menu`).  What this language lacks is branching elsewhere:
skipping forward, and loops over several instructions.

The generator.  `generate(threads, instructions)` enumerates every test with
that many work-groups and instructions in total (each work-group at least
one) over LOCATIONS words and the values VALUES, and keeps those that
satisfy all of:

  1. possible termination: from every reachable state, some path ends every
     work-group (the test terminates under strongly fair scheduling);
  2. needs progress: some reachable cycle exists (the test is not
     guaranteed to terminate under an unfair scheduler);
  3. every spin can starve: each spin instruction is where its work-group
     fails a step inside some reachable cycle (with spins="fail": each spin
     fails in some reachable state);
  4. every store matters: each store changes its word in some reachable
     state, and some other work-group spins on that word;

and that are canonical under renaming of the words (a test is kept only if
its text is the smallest among its word permutations; the initial value 0
is fixed, so with two values no value renaming preserves a test).  Tests
are not identified up to permuting work-groups: the models depend on ids.

1 and 2 are OOPSLA'21's synthesis constraints (§5.1: possible termination,
non-termination cycle; "always enabled" holds by construction).  3 and 4
stand in for its minimality heuristics (§5.2): 3 is a stronger "all
branches possible" (a spin that never fails is a store or a no-op, one
that fails but cannot fail for ever is a delayed store; spins="fail" is
the paper's reading), 4 is "inter-thread influence" required of every store
rather than of one.  The instruction
menu (`instruction_menu`) holds only behaviourally distinct instructions.
"""
from itertools import permutations, product
from typing import NamedTuple, Optional

import oracle

LOCATIONS = 2
VALUES = (0, 1)
# OOPSLA'21 Table 2: its five synthesis runs, as (work-groups, instructions).
BOUNDS = ((2, 2), (2, 3), (2, 4), (3, 3), (3, 4))
LOCATION_NAMES = "xyzw"
SPINS = ("ld", "xchg", "cas")
WRITES = ("st", "xchg", "cas")


class Instr(NamedTuple):
    """One instruction; `expect` is None for st, `write` is None for ld."""

    op: str
    loc: int
    expect: Optional[int] = None
    write: Optional[int] = None

    def execute(self, value):
        """One atomic step on a word holding `value`: (goes on, new value)."""
        op, _, expect, write = self
        if op == "st":
            return True, write
        if op == "ld":
            return value == expect, value
        if op == "xchg":
            return value == expect, write
        if op == "cas":
            return (True, write) if value == expect else (False, value)
        raise ValueError(f"unknown op {op!r}")

    def __str__(self):
        args = [LOCATION_NAMES[self.loc]]
        args += [str(v) for v in (self.expect, self.write) if v is not None]
        return " ".join([self.op, *args])


def parse(text):
    """The test written as in `format_test`: programs separated by '|',
    instructions by ';', e.g. "cas x 0 1; st x 0 | cas x 0 1; st x 0"."""
    test = []
    for program in text.split("|"):
        instrs = []
        for word in program.split(";"):
            op, name, *values = word.split()
            loc, values = LOCATION_NAMES.index(name), [int(v) for v in values]
            if op == "st":
                instrs.append(Instr(op, loc, write=values[0]))
            elif op == "ld":
                instrs.append(Instr(op, loc, expect=values[0]))
            else:
                instrs.append(Instr(op, loc, *values))
        test.append(tuple(instrs))
    return tuple(test)


def format_test(test):
    """One-line text of `test`, readable back by `parse`."""
    return " | ".join("; ".join(map(str, program)) for program in test)


def _c_statement(instr, word):
    """The instruction as C over `word` (an lvalue), for pseudo-code."""
    op, _, expect, write = instr
    if op == "st":
        return f"{word} = {write};"
    if op == "ld":
        return f"while ({word} != {expect});"
    if op == "xchg":
        return f"while (xchg(&{word}, {write}) != {expect});"
    return f"while (!cas(&{word}, {expect}, {write}));"


def pseudo_code(test):
    """`test` as C-like pseudo-code, one column per work-group."""
    columns = [[f"WG {t}"] + [_c_statement(i, LOCATION_NAMES[i.loc]) for i in program]
               for t, program in enumerate(test)]
    widths = [max(map(len, column)) for column in columns]
    rows = max(map(len, columns))
    return "\n".join(
        " | ".join(column[r].ljust(w) if r < len(column) else " " * w
                   for column, w in zip(columns, widths)).rstrip()
        for r in range(rows))


def opencl_spin_condition(instr, word):
    """OpenCL C that makes one attempt of the spinning instruction `instr`
    (ld, xchg or cas) on `word`, a global int pointer expression, and is
    true when the attempt fails: `while (...);` runs the instruction."""
    op, _, expect, write = instr
    return {"ld": f"atomic_or({word}, 0) != {expect}",
            "xchg": f"atomic_xchg({word}, {write}) != {expect}",
            "cas": f"atomic_cmpxchg({word}, {expect}, {write}) != {expect}"}[op]


def to_opencl(test, name="progress_litmus"):
    """One OpenCL C kernel running `test`: launch len(test) work-groups on
    a zeroed buffer of ints; work-item 0 of group t runs program t with
    global atomics (st: atomic_xchg; ld: atomic_or of 0)."""
    lines = [f"// {format_test(test)}",
             f"kernel void {name}(volatile global int *mem)",
             "{",
             "    if (get_local_id(0) != 0)",
             "        return;",
             "    switch (get_group_id(0)) {"]
    for t, program in enumerate(test):
        lines.append(f"    case {t}:")
        for instr in program:
            word = f"&mem[{instr.loc}]"
            if instr.op == "st":
                lines.append(f"        atomic_xchg({word}, {instr.write});")
                continue
            lines += [f"        while ({opencl_spin_condition(instr, word)})", "            ;"]
        lines.append("        break;")
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def instruction_menu():
    """The behaviourally distinct instructions over LOCATIONS and VALUES.

    With two values, `xchg l e n` for n != e rewrites, when it fails, the
    value already there, so it is `cas l e n`; `cas l e e` is `ld l e`.  The
    menu keeps st, ld, xchg l v v and cas l v (1 - v).
    """
    return [instr
            for loc in range(LOCATIONS) for v in VALUES
            for instr in (Instr("st", loc, write=v), Instr("ld", loc, expect=v),
                          Instr("xchg", loc, v, v), Instr("cas", loc, v, 1 - v))]


def canonical(test):
    """The smallest text of `test` under permutations of its words."""
    locations = 1 + max(i.loc for program in test for i in program)
    return min(format_test(tuple(tuple(Instr(i.op, perm[i.loc], i.expect, i.write)
                                       for i in program) for program in test))
               for perm in permutations(range(locations)))


def is_progress_litmus(test, spins="starve"):
    """Whether `test` satisfies the generator's constraints 1-4 (see the
    module docstring).  spins="fail" weakens 3 to OOPSLA'21's reading, "all
    branches possible": each spin fails in some reachable state."""
    if not _interacts(test, False):
        return False
    graph = oracle.StateGraph(test)
    if not graph.cycles or not graph.terminates("fair", "strong"):
        return False
    states = graph.states
    if spins == "starve":
        failing = {(t, states[component[0]].pcs[t])
                   for component, movers in graph.cycles
                   for t in range(len(test)) if movers >> t & 1}
    else:
        failing = {(t, states[s].pcs[t]) for s, edges in enumerate(graph.succ)
                   for t, target in edges if states[target].pcs[t] == states[s].pcs[t]}
    sites = [(t, pc, instr) for t, program in enumerate(test) for pc, instr in enumerate(program)]
    if any(instr.op in SPINS and (t, pc) not in failing for t, pc, instr in sites):
        return False
    changing = {(t, state.pcs[t]) for state in states for t, program in enumerate(test)
                if state.pcs[t] < len(program) and program[state.pcs[t]].op == "st"
                and state.memory[program[state.pcs[t]].loc] != program[state.pcs[t]].write}
    return all((t, pc) in changing for t, pc, instr in sites if instr.op == "st")


def _location_masks(program):
    """(words it spins on, words it writes, words it stores to) as masks."""
    masks = [0, 0, 0]
    for instr in program:
        bit = 1 << instr.loc
        for k, ops in enumerate((SPINS, WRITES, ("st",))):
            if instr.op in ops:
                masks[k] |= bit
    return masks


def _interacts(test, spun_words_written_by_others):
    """Every stored-to word is spun on by another work-group (part of
    constraint 4) and, if asked, every spun-on word is written by another.
    The latter follows from constraints 1 and 3 (a spin that can fail for
    ever can only be escaped through another work-group's write), so the
    generator uses it as a cheap pre-filter."""
    masks = [_location_masks(program) for program in test]
    for t, (spun, _, stored) in enumerate(masks):
        others_spin = others_write = 0
        for u, (u_spun, u_written, _) in enumerate(masks):
            if u != t:
                others_spin |= u_spun
                others_write |= u_written
        if stored & ~others_spin or (spun_words_written_by_others and spun & ~others_write):
            return False
    return True


def _compositions(total, parts):
    """Every tuple of `parts` positive ints summing to `total`, in order."""
    if parts == 1:
        yield (total,)
        return
    for first in range(1, total - parts + 2):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def generate(threads, instructions, spins="starve"):
    """Every canonical test with `threads` work-groups and `instructions`
    instructions in total that satisfies constraints 1-4 (`spins` as in
    `is_progress_litmus`), in a fixed order."""
    menu = instruction_menu()
    programs = {k: list(product(menu, repeat=k)) for k in range(1, instructions - threads + 2)}
    for sizes in _compositions(instructions, threads):
        for test in product(*(programs[k] for k in sizes)):
            # Cheap syntactic tests first.
            if (_interacts(test, spins == "starve")
                    and canonical(test) == format_test(test)
                    and is_progress_litmus(test, spins)):
                yield test
