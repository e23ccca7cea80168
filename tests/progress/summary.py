"""Counts of the generated progress litmus tests per progress model.

    python3 tests/progress/summary.py [--list] [--paper | --paper-bounds]

For each of OOPSLA'21's five bounds (Table 2), then for all of them: how
many generated tests terminate under each model and strength, the classes
(the set of models under which a test terminates) with their sizes, and
OOPSLA'21's Table 4 (distinguishing and conformance tests, weak column over
the tests that terminate under weak fairness, strong column over the rest).
--list also prints every test with its weak and strong classes.  --paper
generates with OOPSLA'21's reading of the spin constraint (spins="fail");
--paper-bounds also keeps only the tests whose LTS fits the action and
state bounds of that synthesis run (OOPSLA'21 Table 2).
"""
import sys
from collections import Counter

import litmus
import oracle

# OOPSLA'21's order of the models it characterises tests with (it leaves
# HSA+OBE out, §4.1); each model's strictly less fair models.
LESS_FAIR = {"HSA": ("unfair",), "OBE": ("unfair",), "LOBE": ("unfair", "HSA", "OBE"),
             "fair": ("unfair", "HSA", "OBE", "LOBE")}
# OOPSLA'21 Table 2: the (actions, states) bounds of each synthesis run.
PAPER_LTS_BOUNDS = {(2, 2): (8, 8), (2, 3): (14, 12), (2, 4): (16, 24),
                    (3, 3): (16, 24), (3, 4): (16, 24)}


def lts_size(test, graph):
    """(actions, states) of the test's LTS as OOPSLA'21 counts them: a state
    is (memory, pcs), without our `started`; an action is one step."""
    states = {(state.memory, state.pcs) for state in graph.states}
    actions = sum(pc < len(program) for _, pcs in states for pc, program in zip(pcs, test))
    return actions, len(states)


def class_name(verdicts, strength):
    """The models under which a test terminates, e.g. "{OBE, HSA+OBE, LOBE, fair}"."""
    return "{" + ", ".join(m for m in oracle.MODELS if verdicts[m, strength]) + "}"


def table4(results):
    """Rows (model, weak D, weak C, strong D, strong C) as in OOPSLA'21 Table 4."""
    weak = [v for _, v in results if v["fair", "weak"]]
    strong_only = [v for _, v in results if not v["fair", "weak"]]
    rows = []
    for model, less in LESS_FAIR.items():
        row = [model]
        for strength, tests in (("weak", weak), ("strong", strong_only)):
            conform = [v for v in tests if v[model, strength]]
            row += [sum(not any(v[m, strength] for m in less) for v in conform), len(conform)]
        rows.append(row)
    return rows


def report(title, results, out):
    print(f"== {title}: {len(results)} tests", file=out)
    for strength in oracle.STRENGTHS:
        counts = "  ".join(f"{m} {sum(v[m, strength] for _, v in results)}" for m in oracle.MODELS)
        print(f"  terminate ({strength}): {counts}", file=out)
    for strength in oracle.STRENGTHS:
        print(f"  classes ({strength}):", file=out)
        classes = Counter(class_name(v, strength) for _, v in results)
        for name, count in sorted(classes.items(), key=lambda item: (-item[1], item[0])):
            print(f"    {count:4}  {name}", file=out)
    print("  Table 4 form: model  weak D  weak C  strong D  strong C", file=out)
    for row in table4(results):
        print("    {:<5} {:7} {:7} {:9} {:9}".format(*row), file=out)


def main(argv, out=sys.stdout):
    bounded = "--paper-bounds" in argv
    spins = "fail" if bounded or "--paper" in argv else "starve"
    everything = []
    for bound in litmus.BOUNDS:
        results = []
        for test in litmus.generate(*bound, spins):
            graph = oracle.StateGraph(test)
            if bounded and any(size > limit for size, limit
                               in zip(lts_size(test, graph), PAPER_LTS_BOUNDS[bound])):
                continue
            results.append((test, graph.verdicts()))
        report("{} work-groups, {} instructions".format(*bound), results, out)
        if "--list" in argv:
            for test, v in results:
                print(f"    {litmus.format_test(test):44} weak {class_name(v, 'weak')}"
                      f"  strong {class_name(v, 'strong')}", file=out)
        everything += results
    report("all bounds", everything, out)


if __name__ == "__main__":
    main(sys.argv[1:])
