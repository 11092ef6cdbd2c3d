"""More circuit evaluators (Multisim's stand-ins: ngspice's console and KiCad's schematic simulator), read on the
host. ``checks/circuit.py`` holds the first two kinds (``spice_value``, ``spice_wave``); these add:

- ``spice_values``: ``artifact``; ``values`` {vector: {"number": x, "tolerance": t | "rel": r}}: several values
  one ``print`` wrote to one file (``print transfer_function output_impedance_at_v(out) > FILE`` writes a line
  ``name = value`` each; a complex value ``pole(1) = -1.0e+03,0.0e+00`` is read as its real part); one milestone
  per vector
- ``spice_raw``: ``artifact``; what ngspice's ``write FILE vec`` writes (a raw file: a text header, then the
  values as text with ``set filetype=ascii``, else binary doubles); ``ascii`` (true: the instruction asks for the
  ASCII form), ``plot`` (its ``Plotname``, e.g. "Transient Analysis"), ``vector`` (the variable checked), and the
  curve keys of ``kicad_sim_csv``
- ``kicad_sim_csv``: ``artifact``; what KiCad's simulator writes with File > Save as .csv file (semicolon-separated;
  the scale, time, frequency or the swept source, and each plotted signal: a header row of names and a row per
  point, or, as older versions write, a row per signal); ``signal`` (the trace, e.g. ``V(/out)``; matched without
  regard to case, and a trace ``V(/out) (gain)``/``(mag)`` counts for an AC sweep's magnitude); ``points``
  [[x, y], ...] the curve passes through (``tolerance`` absolute on y, default 0.02; ``log_x`` for an AC sweep);
  ``x_range`` [lo, hi] the data covers (within 1 %); ``min_rows`` (default 10)
- ``spice_netlist``: ``artifact``; a SPICE netlist (KiCad's File > Export > Netlist, Spice tab): ``elements``
  {"R1": {"nodes": ["in", "out"], "value": "1k"}}: the element's line joins those nodes in that order (a node's
  sheet path ``/`` and case do not count; ``GND``, ``gnd`` and ``0`` are all ground) and carries that value
  (numbers compared as SPICE numbers, ``4k7`` = ``4.7k`` = 4700; a source's description as text with spaces
  squashed, case ignored); one milestone per element, one for the file being a netlist (``.end``)
- ``kicad_fields``: ``artifact`` (default ``schematic``); a saved KiCad schematic; ``fields`` {ref: {"Footprint":
  "..."}} (a symbol's fields as saved), ``numbers`` {ref: {"number": x, "rel": r}} (a value read as a SPICE
  number: a resistor chosen to meet a target, written as ``7.15k``, ``7k15`` or ``7150``), ``keep_values``
  {ref: value} (one milestone: the parts the task did not touch)
- ``kicad_via``: ``artifact`` (default ``board``); a saved KiCad board: ``vias`` [{"at": [x, y], "tol": mm}] (a
  through via at each place), ``count`` (how many vias), ``keep_at`` {ref: [x, y]} (footprints left in place)
- ``kicad_erc``: ``artifact`` (default ``report``); the report KiCad's Electrical Rules Checker saves (Save...):
  ``errors`` (the count its closing line gives), ``violations`` {type: symbol reference or ""} (each listed)

A missing file, or one that is not of the kind asked for (an empty file, a PNG under a ``.csv`` name, a KiCad
schematic saved as the netlist), fails its milestones naming the artifact; it is never an evaluator error.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, Callable, Mapping, Sequence

from pytest_cua import EvalContext

from ..artifacts import Check, artifact, identify, load, squash
from .circuit import NUMBER, Curve, curve_checks, printed_value
from .kicad import Sexp, child, children, pcb_checks, read, schematic_parts


# --- numbers as SPICE and KiCad write them --------------------------------------------------------------------

_SCALE = {"f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "m": 1e-3, "k": 1e3, "meg": 1e6, "g": 1e9,
          "t": 1e12}
_SPICE_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*(meg|[fpnuµmkgt])?(\d*)\s*"
                           r"(?:ohms?|[fhvaΩ])?\s*$", re.IGNORECASE)


def spice_number(text: str) -> float | None:
    """A value as SPICE or KiCad writes it (``4.7k``, ``4k7``, ``2.2u``, ``1Meg``, ``100nF``, ``330``), or None.
    SPICE's ``m`` is milli and ``meg`` mega (case ignored); a digit after the unit letter is the decimals."""
    match = _SPICE_NUMBER.match(text or "")
    if not match:
        return None
    mantissa, unit, decimals = match.groups()
    if decimals and ("." in mantissa or "e" in mantissa.lower() or not unit):
        return None
    value = float(f"{mantissa}.{decimals}" if decimals else mantissa)
    return value * _SCALE[unit.lower()] if unit else value


def _tolerance(spec: Mapping[str, Any], expected: float, default: float = 0.01) -> float:
    return float(spec["rel"]) * abs(expected) if "rel" in spec else float(spec.get("tolerance", default))


# --- several printed values -------------------------------------------------------------------------------------

def values_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "values")
    checks: list[Check] = []
    for vector, spec in sorted((truth.get("values") or {}).items()):
        def check(vector: str = vector, spec: Mapping[str, Any] = spec) -> None:
            text = load(ctx, name, "text", lambda p: p.read_text(encoding="utf-8", errors="replace"))
            if not re.search(rf"^\s*{re.escape(vector)}\s*=", text, re.IGNORECASE | re.MULTILINE):
                raise AssertionError(f"{name}: no value of {vector} in {text[:160]!r}")
            value = printed_value(text, vector)
            expected = float(spec["number"])
            tol = _tolerance(spec, expected)
            assert abs(value - expected) <= tol, f"{name}: {vector} = {value:g}, expected {expected:g} (±{tol:g})"
        checks.append((f"{name} {vector} = {spec['number']:g}", check))
    return checks


# --- curves ----------------------------------------------------------------------------------------------------

def _sorted_curve(xs: Sequence[float], ys: Sequence[float]) -> Curve:
    pairs = sorted(zip(xs, ys))
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _cached(load_curve: Callable[[], Curve]) -> Callable[[], Curve]:
    cache: dict[str, Curve] = {}

    def curve() -> Curve:
        if "xy" not in cache:
            cache["xy"] = load_curve()
        return cache["xy"]
    return curve


# --- ngspice raw files -------------------------------------------------------------------------------------------

def parse_raw(data: bytes) -> dict[str, Any]:
    """The first plot of an ngspice raw file: {"plot", "ascii", "variables": [names], "columns": [[values]]}
    (a complex value's real part). AssertionError when it is not a raw file."""
    marker = re.search(rb"^(Values|Binary):[ \t]*\r?\n", data, re.MULTILINE)
    assert marker, "not an ngspice raw file (no 'Values:' or 'Binary:' section)"
    header = data[:marker.start()].decode("utf-8", "replace")
    fields = dict(re.findall(r"^([A-Za-z. ]+):[ \t]*(.*)$", header, re.MULTILINE))
    assert "Variables" in header and "No. Variables" in fields, "not an ngspice raw file (no variable list)"
    nvars, npoints = int(fields["No. Variables"]), int(fields.get("No. Points", "0"))
    listed = re.search(r"^Variables:[ \t]*\r?\n(.*)", header, re.MULTILINE | re.DOTALL)
    var_lines = listed.group(1).strip().splitlines() if listed else []
    names = [line.split()[1] for line in var_lines[:nvars] if len(line.split()) >= 2]
    assert len(names) == nvars, f"the raw file names {len(names)} variables, its header says {nvars}"
    complex_values = "complex" in fields.get("Flags", "").lower()
    body = data[marker.end():]
    columns: list[list[float]] = [[] for _ in range(nvars)]
    ascii_form = marker.group(1) == b"Values"
    if ascii_form:
        tokens = body.decode("utf-8", "replace").split()
        per_point = nvars + 1  # the point's index, then one value per variable
        for p in range(len(tokens) // per_point):
            chunk = tokens[p * per_point:(p + 1) * per_point]
            for k, token in enumerate(chunk[1:]):
                columns[k].append(float(token.split(",")[0]))
    else:
        width = 16 if complex_values else 8
        count = min(npoints, len(body) // (width * nvars))
        for p in range(count):
            for k in range(nvars):
                offset = (p * nvars + k) * width
                columns[k].append(struct.unpack_from("<d", body, offset)[0])
    return {"plot": fields.get("Plotname", "").strip(), "ascii": ascii_form, "variables": names,
            "columns": columns}


def raw_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "raw")
    vector = str(truth.get("vector", "v(out)"))
    cache: dict[str, Any] = {}

    def raw() -> dict[str, Any]:
        if "raw" not in cache:
            path = artifact(ctx, name)
            try:
                cache["raw"] = parse_raw(path.read_bytes())
            except AssertionError as exc:
                raise AssertionError(f"{name} ({path.name}): {exc}; it is {identify(path)}") from None
            except (ValueError, IndexError, struct.error) as exc:
                raise AssertionError(f"{name} ({path.name}): a broken raw file ({type(exc).__name__}: {exc})") from None
        return dict(cache["raw"])

    checks: list[Check] = []

    def check_form() -> None:
        got = raw()
        if truth.get("ascii"):
            assert got["ascii"], f"{name}: a binary raw file, expected the ASCII form (set filetype=ascii)"
    checks.append((f"{name} is an ngspice raw file{' in ASCII' if truth.get('ascii') else ''}", check_form))
    if truth.get("plot"):
        def check_plot() -> None:
            got = raw()
            assert got["plot"].lower() == str(truth["plot"]).lower(), (
                f"{name}: the plot is {got['plot']!r}, expected {truth['plot']!r}")
        checks.append((f"{name} holds a {truth['plot']}", check_plot))

    def curve() -> Curve:
        got = raw()
        lowered = [v.lower() for v in got["variables"]]
        assert vector.lower() in lowered, f"{name}: no vector {vector} (it holds {', '.join(got['variables'])})"
        return _sorted_curve(got["columns"][0], got["columns"][lowered.index(vector.lower())])

    def check_vector() -> None:
        curve()
    checks.append((f"{name} holds the vector {vector}", check_vector))
    return checks + curve_checks(name, _cached(curve), truth)


# --- KiCad's simulator: the plot saved as CSV ------------------------------------------------------------------------

def parse_sim_csv(text: str) -> tuple[str, dict[str, list[float]]]:
    """(the scale's name, {signal: values}) of a CSV KiCad's simulator saved, with the scale's values under
    that name; either a header row of names and a row per point, or a row per signal. AssertionError when it
    is not one."""
    rows = [[c.strip() for c in line.rstrip(";").split(";")] for line in text.splitlines() if line.strip()]
    assert rows, "no rows"
    assert all(len(r) >= 2 for r in rows), "not a semicolon-separated table (KiCad's simulator separates by ';')"

    def numbers(cells: Sequence[str]) -> list[float]:
        try:
            return [float(c) for c in cells]
        except ValueError:
            raise AssertionError(f"a row that is not numbers: {';'.join(cells)[:80]!r}") from None

    if len(rows) > 1 and re.fullmatch(NUMBER, rows[1][0]) and not re.fullmatch(NUMBER, rows[0][0]):
        names = rows[0]  # a header row, then one row per point
        body = [numbers(r) for r in rows[1:]]
        assert all(len(r) == len(names) for r in body), "rows of other lengths than the header"
        series = {n: [r[k] for r in body] for k, n in enumerate(names)}
        return names[0], series
    series = {r[0]: numbers(r[1:]) for r in rows}  # a row per signal, the scale first
    assert len({len(v) for v in series.values()}) == 1, "signals of different lengths"
    return rows[0][0], series


def _signal(series: Mapping[str, list[float]], wanted: str) -> str | None:
    """The name of the trace ``wanted`` (case ignored; an AC sweep's magnitude trace counts)."""
    for key in series:
        plain = key.lower().replace(" ", "")
        if plain == wanted.lower().replace(" ", "") or plain in (
                wanted.lower().replace(" ", "") + s for s in ("(gain)", "(mag)", "(magnitude)")):
            return key
    return None


def sim_csv_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "data")
    signal = str(truth.get("signal", "V(/out)"))

    def curve() -> Curve:
        path = artifact(ctx, name, "text")
        try:
            scale, series = parse_sim_csv(path.read_text(encoding="utf-8", errors="replace"))
        except AssertionError as exc:
            raise AssertionError(f"{name} ({path.name}) is not a simulator plot saved as CSV: {exc}") from None
        key = _signal(series, signal)
        traces = [k for k in series if k != scale]
        assert key is not None and key != scale, f"{name}: no signal {signal} (it holds {', '.join(traces)})"
        return _sorted_curve(series[scale], series[key])

    curve = _cached(curve)

    def check_signal() -> None:
        curve()
    return [(f"{name} holds the signal {signal}", check_signal), *curve_checks(name, curve, truth)]


# --- SPICE netlists ---------------------------------------------------------------------------------------------

def _node(name: str) -> str:
    plain = name.strip().lstrip("/").lower()
    return "0" if plain in ("0", "gnd") else plain


def parse_spice_netlist(text: str) -> dict[str, tuple[list[str], str]]:
    """{element name (upper case): ([nodes], value text)} of a two-terminal-per-line SPICE netlist (R, C, L, V, I,
    D elements: name, two nodes, the rest); AssertionError when the text is not a netlist."""
    lines = [ln.strip() for ln in text.splitlines()]
    assert any(ln.lower() == ".end" for ln in lines), "no '.end' line: not a SPICE netlist"
    out: dict[str, tuple[list[str], str]] = {}
    for line in lines[1:]:  # the first line is the title
        if not line or line[0] in "*.+":
            continue
        parts = line.split(None, 3)
        if len(parts) >= 3 and parts[0][0].upper() in "RCLVID":
            out[parts[0].upper()] = ([_node(parts[1]), _node(parts[2])], parts[3] if len(parts) > 3 else "")
    assert out, "no elements"
    return out


def _same_value(got: str, want: Any) -> bool:
    number = spice_number(str(want))
    if number is not None:
        actual = spice_number(got)
        return actual is not None and math.isclose(actual, number, rel_tol=1e-6)
    return squash(got).lower() == squash(str(want)).lower()


def netlist_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "netlist")

    def elements() -> dict[str, tuple[list[str], str]]:
        path = artifact(ctx, name, "text")
        try:
            return parse_spice_netlist(path.read_text(encoding="utf-8", errors="replace"))
        except AssertionError as exc:
            raise AssertionError(f"{name} ({path.name}): {exc}; it is {identify(path)}") from None

    def check_netlist() -> None:
        elements()
    checks: list[Check] = [(f"{name} is a SPICE netlist", check_netlist)]
    for ref, spec in sorted((truth.get("elements") or {}).items()):
        def check(ref: str = ref, spec: Mapping[str, Any] = spec) -> None:
            found = elements()
            assert ref.upper() in found, f"{name}: no element {ref} (found {', '.join(sorted(found))})"
            nodes, value = found[ref.upper()]
            want_nodes = [_node(n) for n in spec.get("nodes", [])]
            if want_nodes:
                assert nodes == want_nodes, f"{name}: {ref} joins {' '.join(nodes)}, expected {' '.join(want_nodes)}"
            if "value" in spec:
                assert _same_value(value, spec["value"]), f"{name}: {ref} has the value {value!r}, expected {spec['value']!r}"
        label = " ".join(str(n) for n in spec.get("nodes", []))
        checks.append((f"{name} {ref} {label} {spec.get('value', '')}".rstrip(), check))
    return checks


def _naming(name: str, check: Callable[[], None]) -> Callable[[], None]:
    """``check``, its miss prefixed with the artifact's name when the message does not start with it (the KiCad
    reader names only the file)."""
    def named() -> None:
        try:
            check()
        except AssertionError as exc:
            message = str(exc)
            raise AssertionError(message if message.startswith("artifact") else f"artifact {name!r}: {message}") from None
    return named


def _kicad_file(ctx: EvalContext, name: str, head: str, reader: Callable[[Sexp], Any]) -> Any:
    """``reader`` of artifact ``name`` parsed as a ``(head ...)`` KiCad file; a file of another kind fails naming
    the artifact."""
    found: list[Any] = []
    _naming(name, lambda: found.append(load(ctx, name, "text", lambda p: reader(read(p, head)))))()
    return found[0]


# --- KiCad schematic fields ------------------------------------------------------------------------------------------

def fields_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "schematic")
    checks: list[Check] = []

    def parts() -> dict[str, dict[str, Any]]:
        return _kicad_file(ctx, name, "kicad_sch", schematic_parts)

    def part(ref: str) -> dict[str, Any]:
        found = parts()
        assert ref in found, f"{name}: no symbol {ref} (found {', '.join(sorted(found))})"
        return found[ref]

    for ref, fields in sorted((truth.get("fields") or {}).items()):
        for field, value in sorted(fields.items()):
            def check_field(ref: str = ref, field: str = field, value: str = value) -> None:
                got = part(ref).get(field.lower())
                assert got == value, f"{name}: {ref}'s {field} is {got!r}, expected {value!r}"
            checks.append((f"{name} {ref} {field} = {value}", check_field))
    for ref, spec in sorted((truth.get("numbers") or {}).items()):
        def check_number(ref: str = ref, spec: Mapping[str, Any] = spec) -> None:
            text = str(part(ref).get("value"))
            value = spice_number(text)
            assert value is not None, f"{name}: {ref}'s value {text!r} is not a number"
            expected = float(spec["number"])
            tol = _tolerance(spec, expected)
            assert abs(value - expected) <= tol, f"{name}: {ref} = {text} ({value:g}), expected {expected:g} (±{tol:g})"
        checks.append((f"{name} {ref} ≈ {spec['number']:g}", check_number))
    if truth.get("keep_values"):
        def check_keep() -> None:
            found = parts()
            wrong = [f"{ref}: {found.get(ref, {}).get('value')!r} (expected {value!r})"
                     for ref, value in sorted(truth["keep_values"].items()) if found.get(ref, {}).get("value") != value]
            assert not wrong, f"{name}: parts the task did not ask to change were changed or lost: {'; '.join(wrong)}"
        checks.append((f"{name} other parts unchanged", check_keep))
    return checks


# --- KiCad's ERC report -----------------------------------------------------------------------------------------

def parse_erc_report(text: str) -> dict[str, Any]:
    """{"errors", "warnings", "violations": [(type, severity, [where lines])]} of the report KiCad 6's
    Electrical Rules Checker saves; AssertionError when the text is not one."""
    assert text.lstrip().startswith("ERC report"), "not an ERC report (it does not start with 'ERC report')"
    total = re.search(r"\*\*\s*ERC messages:\s*(\d+)\s+Errors\s+(\d+)\s+Warnings\s+(\d+)", text)
    assert total, "no '** ERC messages: N  Errors N  Warnings N' line: the checker was not run"
    violations = []
    for match in re.finditer(r"^\[([a-z_]+)\]:.*\n\s*; Severity: (\w+)((?:\n\s+@.*)*)", text, re.MULTILINE):
        violations.append((match.group(1), match.group(2), [w.strip() for w in match.group(3).splitlines() if w.strip()]))
    return {"errors": int(total.group(2)), "warnings": int(total.group(3)), "violations": violations}


def erc_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    """``kicad_erc``: ``artifact`` (default ``report``); ``errors`` (how many); ``violations`` {type: symbol
    reference it names, or ""}: each an error or warning of that type the report lists (on that symbol)."""
    name = truth.get("artifact", "report")

    def report() -> dict[str, Any]:
        path = artifact(ctx, name, "text")
        try:
            return parse_erc_report(path.read_text(encoding="utf-8", errors="replace"))
        except AssertionError as exc:
            raise AssertionError(f"{name} ({path.name}): {exc}; it is {identify(path)}") from None

    checks: list[Check] = []
    if "errors" in truth:
        def check_errors() -> None:
            got = report()["errors"]
            assert got == int(truth["errors"]), f"{name}: {got} error(s), expected {truth['errors']}"
        checks.append((f"{name} counts {truth['errors']} error(s)", check_errors))
    for kind, ref in sorted((truth.get("violations") or {}).items()):
        def check_violation(kind: str = kind, ref: str = ref) -> None:
            found = [v for v in report()["violations"] if v[0] == kind]
            assert found, f"{name}: no {kind} violation (found: {sorted({v[0] for v in report()['violations']})})"
            if ref:
                assert any(re.search(rf"Symbol {re.escape(ref)} ", w) for v in found for w in v[2]), (
                    f"{name}: the {kind} violations name {[w for v in found for w in v[2]]}, not {ref}")
        checks.append((f"{name} lists {kind}{' on ' + ref if ref else ''}", check_violation))
    return checks


# --- KiCad board: vias ----------------------------------------------------------------------------------------------

def board_vias(tree: Sexp) -> list[dict[str, Any]]:
    """Each via of a board: {"at": (x, y), "size", "drill", "layers"}."""
    out = []
    for via in children(tree, "via"):
        at, size, drill, layers = child(via, "at"), child(via, "size"), child(via, "drill"), child(via, "layers")
        if at is None or len(at) < 3:
            continue
        out.append({"at": (float(at[1]), float(at[2])), "size": float(size[1]) if size is not None else math.nan,
                     "drill": float(drill[1]) if drill is not None else math.nan,
                     "layers": [str(x) for x in layers[1:]] if layers is not None else []})
    return out


def via_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    """``kicad_via``: ``artifact`` (default ``board``); ``vias`` [{"at": [x, y], "tol": mm (default 0.05)}]: a
    through via (F.Cu to B.Cu) at each place; ``count``: how many vias the board has; ``keep_at`` {ref: [x, y]}:
    footprints the task did not ask to move (one milestone)."""
    name = truth.get("artifact", "board")
    checks: list[Check] = []

    def board() -> Sexp:
        return _kicad_file(ctx, name, "kicad_pcb", lambda tree: tree)

    for spec in truth.get("vias") or []:
        def check_via(spec: Mapping[str, Any] = spec) -> None:
            vias = board_vias(board())
            x, y = spec["at"]
            near = [v for v in vias if math.dist(v["at"], (x, y)) <= float(spec.get("tol", 0.05))]
            assert near, f"{name}: no via at ({x:g}, {y:g}) (vias at {[v['at'] for v in vias] or 'none'})"
            assert {"F.Cu", "B.Cu"} <= set(near[0]["layers"]), f"{name}: the via joins {near[0]['layers']}, not F.Cu-B.Cu"
        checks.append((f"{name} via at ({spec['at'][0]:g}, {spec['at'][1]:g})", check_via))
    if "count" in truth:
        def check_count() -> None:
            n = len(board_vias(board()))
            assert n == int(truth["count"]), f"{name}: {n} via(s), expected {truth['count']}"
        checks.append((f"{name} has {truth['count']} via(s)", check_count))
    if truth.get("keep_at"):  # kicad_pcb's milestone, as the first board tasks have it
        checks += [(label, _naming(name, check))
                   for label, check in pcb_checks(ctx, {"artifact": name, "keep_at": truth["keep_at"]})]
    return checks


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {
    "spice_values": values_checks, "spice_raw": raw_checks, "kicad_sim_csv": sim_csv_checks,
    "spice_netlist": netlist_checks, "kicad_fields": fields_checks, "kicad_erc": erc_checks, "kicad_via": via_checks}
