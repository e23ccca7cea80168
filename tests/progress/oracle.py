"""Termination oracle for progress litmus tests under GPU progress models.

A test (see litmus.py) is a tuple of per-work-group programs; every
instruction is one atomic step, and a work-group is enabled from the start
until its program counter passes its last instruction (spin loops never
disable it).  Following Sorensen, Evrard and Donaldson, "GPU schedulers: how
fair is fair enough?" (CONCUR'18, §3 and §5), a progress model is a thread
fairness criterion: in each state s it names the set F(s) of live
work-groups that the scheduler must treat fairly.  With `started` the
work-groups that have taken at least one step and `alive` those that have
not terminated:

    unfair   F = {}
    HSA      F = {the lowest-id alive work-group}
    OBE      F = started & alive
    HSA+OBE  F = HSA | OBE
    LOBE     F = {t alive : some started work-group has id >= t}
    fair     F = alive

(OOPSLA'21, Sorensen et al., "Specifying and testing GPU workgroup progress
models", Table 1 and §4.1, list the same sets.)  `started` is part of the
state, so F is a function of the state.  Along any execution `started` only
grows and `alive` only shrinks, so F is constant on every strongly connected
component (SCC) of the state graph.

Two fairness strengths, as in OOPSLA'21 §2.2 and §4.2:

weak (the CONCUR'18 semi-fairness)
    An infinite execution is weakly M-fair if every work-group that is
    eventually always in F takes infinitely many steps.
strong
    An infinite execution is strongly M-fair if, for every state s visited
    infinitely often and every t in F(s), the step of t from s is taken
    infinitely often (per-transition strong fairness; each work-group has
    exactly one step from each state, so a transition is a (state,
    work-group) pair).

A test terminates under M (with a given strength) when the finite state
graph has no infinite M-fair execution from the initial state.  Decided on
the reachable graph, an infinite execution ends inside one SCC, which gives:

weak
    M fails iff some reachable SCC with at least one internal edge has, for
    every t in its F, an internal edge taken by t (a cycle through all those
    edges is a fair lasso; any fair execution ends in such an SCC).
strong
    M fails iff some reachable set of states S is strongly connected, has an
    internal edge, and is closed under the F-steps (every step of a t in F
    from a state of S stays in S).  Found by the usual refinement: in each
    SCC drop the states with an F-step leaving it, recompute the SCCs of the
    rest, repeat.  For every model but `unfair` this is OOPSLA'21's Listing 2
    check (from every reachable state, a path of F-steps ends the test); for
    `unfair` every cycle is a non-terminating execution.

Strong fairness guarantees at least as much as weak for the same F, and a
larger F guarantees at least as much as a smaller one.
"""
from typing import NamedTuple

MODELS = ("unfair", "HSA", "OBE", "HSA+OBE", "LOBE", "fair")
STRENGTHS = ("weak", "strong")


def fair_set(model, alive, started):
    """F of `model` as a bit mask over work-group ids, from the masks of the
    alive and started work-groups."""
    if model == "unfair":
        return 0
    if model == "fair":
        return alive
    hsa = alive & -alive  # lowest set bit
    obe = started & alive
    if model == "HSA":
        return hsa
    if model == "OBE":
        return obe
    if model == "HSA+OBE":
        return hsa | obe
    if model == "LOBE":
        return ((1 << started.bit_length()) - 1) & alive
    raise ValueError(f"unknown model {model!r}")


class State(NamedTuple):
    memory: tuple
    pcs: tuple
    started: int  # bit t: work-group t has taken a step


def _sccs(nodes, succ, inside):
    """Tarjan's SCCs of the subgraph on `nodes` (edges to states not in the
    set `inside` are ignored), iteratively, in a deterministic order."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ[root]))]
        while work:
            node, edges = work[-1]
            for _, target in edges:
                if target not in inside:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(succ[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    result.append(component)
    return result


class StateGraph:
    """The reachable states of a test and their steps.

    `states[i]` is a State, state 0 is the initial one (memory all zero,
    every pc 0, nothing started); `succ[i]` lists (work-group, target index)
    for every alive work-group, in id order.  `cycles` holds the SCCs that
    have an internal edge, each as (member indices, mask of the work-groups
    that take an internal step).
    """

    def __init__(self, test):
        self.test = test
        locations = 1 + max(instr.loc for program in test for instr in program)
        initial = State((0,) * locations, (0,) * len(test), 0)
        self.states, self.succ = [initial], []
        index = {initial: 0}
        for state in self.states:  # grows while iterating: a BFS
            edges = []
            for t, program in enumerate(test):
                pc = state.pcs[t]
                if pc == len(program):
                    continue
                instr = program[pc]
                advances, value = instr.execute(state.memory[instr.loc])
                memory = state.memory
                if value != memory[instr.loc]:
                    memory = memory[:instr.loc] + (value,) + memory[instr.loc + 1:]
                pcs = state.pcs[:t] + (pc + advances,) + state.pcs[t + 1:] if advances else state.pcs
                target = State(memory, pcs, state.started | 1 << t)
                if target not in index:
                    index[target] = len(self.states)
                    self.states.append(target)
                edges.append((t, index[target]))
            self.succ.append(edges)
        everything = range(len(self.states))
        self.cycles = []
        for component in _sccs(everything, self.succ, everything):
            members = set(component)
            movers = 0
            for s in component:
                for t, target in self.succ[s]:
                    if target in members:
                        movers |= 1 << t
            if movers:
                self.cycles.append((component, movers))

    def fair_set(self, model, s):
        """F of `model` in state index `s`."""
        state = self.states[s]
        alive = sum(1 << t for t, program in enumerate(self.test)
                    if state.pcs[t] < len(program))
        return fair_set(model, alive, state.started)

    def terminates(self, model, strength="weak"):
        """True iff every `strength`-ly `model`-fair execution terminates."""
        for component, movers in self.cycles:
            fair = self.fair_set(model, component[0])
            if strength == "weak":
                if fair & ~movers == 0:
                    return False
            elif self._closed_cycle_within(component, fair):
                return False
        return True

    def _closed_cycle_within(self, component, fair):
        """Whether `component` holds a strongly connected set with an
        internal edge that no step of a work-group in `fair` leaves."""
        pending = [component]
        while pending:
            members = set(pending.pop())
            leaving = {s for s in members
                       if any(fair >> t & 1 and target not in members
                              for t, target in self.succ[s])}
            if not leaving:
                if any(target in members for s in members for _, target in self.succ[s]):
                    return True
                continue
            rest = members - leaving
            pending.extend(_sccs(sorted(rest), self.succ, rest))
        return False

    def verdicts(self):
        """{(model, strength): terminates} for every model and strength."""
        return {(model, strength): self.terminates(model, strength)
                for strength in STRENGTHS for model in MODELS}
