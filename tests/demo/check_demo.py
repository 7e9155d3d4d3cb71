"""Checks the output of examples/demo.sh (argv[1]) and the report's JSON of its view (argv[2]).

Each demo kernel is a point of the plot (its letter drawn inside the axes) and of the JSON
(intensity and performance at the plotted level), with its exact work where it was counted
(native or emul); the roofs hold at least one compute and one bandwidth line, among them the
bound of the plotted level; nothing is "not plotted". Exit status 1 with the reasons otherwise.
"""
import json
import re
import sys

# demo.c's default sizes and call counts: W of all calls of each kernel.
EXPECTED_FLOPS = {
    "daxpy": 200 * 2 * 10000,
    "dgemm_naive": 5 * 2 * 120**3,
    "horner": 50 * 2 * 16 * 10000,
}


def first(lines, start, test):
    return next((i for i in range(start, len(lines)) if test(lines[i])), None)


def plot_of(text):
    """The plot's lines inside the axes, its legend {kernel: letter} and its roofs; None for
    each part the output lacks."""
    lines = text.splitlines()
    start = first(lines, 0, lambda l: l.startswith("Roofline: "))
    axis = None if start is None else first(lines, start, lambda l: "└" in l)
    if axis is None:
        return None, None, None
    body = [l.split("┤", 1)[-1].split("│", 1)[-1] for l in lines[start + 2:axis]]
    at = first(lines, axis, lambda l: l.strip().startswith("points:"))
    letters = None if at is None else {
        name: letter for letter, name in re.findall(r"([A-Za-z]) (\S+)", lines[at].split(":", 1)[1])}
    at = first(lines, axis, lambda l: l.strip().startswith("roofs"))
    roofs = None
    if at is not None:
        roofs = []
        for l in lines[at + 1:]:
            if not l.startswith("    "):
                break
            roofs.append(l.strip())
    return body, letters, roofs


def main():
    text = open(sys.argv[1]).read()
    report = json.load(open(sys.argv[2]))
    errors = []
    if "not plotted" in text:
        errors.append("a kernel is not plotted")
    body, letters, roofs = plot_of(text)
    if body is None:
        errors.append("no roofline plot in the output")
    if letters is None:
        errors.append("the plot has no points")
    if roofs is None:
        errors.append("the plot has no roofs")
    body, letters, roofs = body or [], letters or {}, roofs or []
    for name in EXPECTED_FLOPS:
        if name not in letters:
            errors.append(f"{name}: not in the plot's legend")
        elif not any(letters[name] in row for row in body):
            errors.append(f"{name}: its letter {letters[name]} is not drawn in the plot")
    if not any("GFlop/s" in r for r in roofs):
        errors.append(f"no compute roof: {roofs}")
    if not any("GB/s" in r for r in roofs):
        errors.append(f"no bandwidth roof: {roofs}")
    level = report["view"]["level"]
    lines = report["roofs"]["lines"] if report.get("roofs") else []
    if not any(l["kind"] == "bandwidth" and l["level"] == level and l["bound"] for l in lines):
        errors.append(f"no bandwidth roof of the plotted level {level}")
    rows = {r["region"]: r for r in report["rows"] if r.get("group") is None}
    for name, flops in EXPECTED_FLOPS.items():
        r = rows.get(name)
        if r is None:
            errors.append(f"{name}: no row in the report")
            continue
        if not (r["intensity"] and r["intensity"] > 0 and r["plot"]["y"] and r["plot"]["y"] > 0):
            errors.append(f"{name}: no point at {level} (intensity {r['intensity']}, P {r['plot']['y']})")
        if r["sources"].get("flops") in ("native", "emul") and r["flops"] != flops:
            errors.append(f"{name}: W {r['flops']}, expected exactly {flops}")
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    if not errors:
        print(f"demo: {len(EXPECTED_FLOPS)} kernels plotted at {level} under {len(roofs)} roofs")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
