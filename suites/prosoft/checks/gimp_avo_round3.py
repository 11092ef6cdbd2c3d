"""Checks of the third round of GIMP and Avogadro tasks (``make/gimp_avo_round3.py``).

Kind ``gimp_round3``: the picture GIMP exported. Ground-truth keys:

- ``artifact`` (default "image"), ``format``, ``size``: as for ``gimp_image``
- ``source`` + ``ops`` + ``tolerance``: content against the start picture put through ``ops``: those of
  ``gimp_more.transform_more`` plus ``["offset", dx, dy]`` (Layer > Transform > Offset with Wrap around: the
  picture moved right by dx and down by dy, what leaves one edge coming back at the other). A picture with an
  alpha channel is compared as it shows over white, so a colour-to-alpha cut-out compares with its source.
- ``alpha``: "white" (Colors > Color to Alpha with white): the alpha of each pixel is what GIMP leaves after
  taking white out of the expected picture, ``max(255 - r, 255 - g, 255 - b)``, on average within 2 values
- ``palette``: n (Image > Mode > Indexed): the file is palette-based (PNG colour type 3) and uses at most n
  colours, more than one
- ``dpi``: the print resolution stored in the file (PNG pHYs, JPEG JFIF), both axes within 0.5
- ``jpeg_quality``: the JPEG quality the file was written with, estimated from its luminance quantisation
  table (libjpeg's standard table scaled by the quality, as GIMP and Pillow write it), within 2

Kind ``gamess_input``: a GAMESS input file Avogadro wrote (Input > GAMESS, Save File). Ground-truth keys:

- ``artifact`` (default "input"); ``formula`` and ``keeps`` as for ``molecule`` (``checks/avogadro.py``), read
  from the ``$DATA`` group (one atom a line: label, nuclear charge, x, y, z; the parser is registered there as
  the format "gamess")
- ``keywords``: {"RUNTYP": "OPTIMIZE", "GBASIS": "N31", ...}: each keyword has that value in some group
  (``$CONTRL``, ``$BASIS``, ...); ``absent``: keywords no group may set (e.g. DFTTYP for a Hartree-Fock run)

Kind ``lammps_input``: a LAMMPS input script Avogadro wrote (Input > LAMMPS, Generate). Ground-truth keys:
``artifact`` (default "input"); ``commands``: {"run": "1000", "units": "real"}: the script has that command with
those arguments (white space folded; the last such line counts, as LAMMPS runs them in order); ``mentions``:
{"fix": "nvt"}: some line of that command has that word among its arguments.
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Any, Mapping, Sequence

from .gimp_more import transform_more
from . import avogadro
from .imaging_common import Check, artifact, expected_image, image_checks, open_image

OWN_OPS = ("offset",)


def transform_round3(image: Any, ops: Sequence[Sequence[Any]]) -> Any:
    """``image`` put through ``ops`` (``offset`` here, the rest by ``gimp_more.transform_more``)."""
    import numpy as np
    from PIL import Image

    for op in ops:
        if op[0] == "offset":
            array = np.asarray(image)
            image = Image.fromarray(np.roll(array, (int(op[2]), int(op[1])), axis=(0, 1)), image.mode)
        else:
            image = transform_more(image, [op])
    return image


def over_white(image: Any) -> Any:
    """The picture as it shows over white, RGB."""
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")


@lru_cache(maxsize=None)
def _standard_tables() -> dict[int, tuple[int, ...]]:
    """Quality 1..100 -> libjpeg's luminance table at that quality (natural order), written by Pillow."""
    from PIL import Image

    tables = {}
    for quality in range(1, 101):
        buffer = io.BytesIO()
        Image.new("RGB", (8, 8)).save(buffer, "JPEG", quality=quality)
        tables[quality] = tuple(Image.open(io.BytesIO(buffer.getvalue())).quantization[0])
    return tables


def jpeg_quality(image: Any) -> int | None:
    """The quality whose standard luminance table is nearest the file's (None: no tables, not a JPEG)."""
    tables = getattr(image, "quantization", None)
    if not tables:
        return None
    table = tuple(tables[min(tables)])
    return min(_standard_tables().items(), key=lambda item: sum(abs(a - b) for a, b in zip(item[1], table)))[0]


def gimp_round3_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    import numpy as np

    name = truth.get("artifact", "image")
    base = {k: truth[k] for k in ("artifact", "format", "size") if k in truth}
    checks: list[Check] = image_checks(ctx, base, "gimp_round3") if set(base) - {"artifact"} else []

    def load() -> Any:
        return open_image(artifact(ctx, name, "image"))

    ops = truth.get("ops") or []
    described = ", ".join(" ".join(str(a) for a in op) for op in ops) or "unchanged"

    def expected() -> Any:
        return transform_round3(expected_image(truth["source"], []), ops).convert("RGB")

    if "source" in truth:
        tolerance = float(truth.get("tolerance", 4))

        def check_content() -> None:
            want, image = expected(), load()
            assert image.size == want.size, (f"{name}: {image.width}x{image.height} px, cannot match "
                                             f"{truth['source']} after {described} ({want.width}x{want.height})")
            diff = float(np.abs(np.asarray(over_white(image), float) - np.asarray(want, float)).mean())
            assert diff <= tolerance, (f"{name}: differs from {truth['source']} after {described} by {diff:.2f} per "
                                       f"value on average (at most {tolerance} allowed)")
        checks.append((f"{name} shows {truth['source']} after {described}", check_content))
    if truth.get("alpha"):
        if truth["alpha"] != "white" or "source" not in truth:
            raise ValueError(f"gimp_round3 ground truth: alpha {truth['alpha']!r} (only 'white', with a source)")

        def check_alpha() -> None:
            image, want = load(), expected()
            assert image.mode in ("RGBA", "LA") or "transparency" in image.info, (
                f"{name}: no alpha channel (mode {image.mode}): white was not made transparent")
            assert image.size == want.size, f"{name}: {image.width}x{image.height} px, expected {want.size}"
            alpha = np.asarray(image.convert("RGBA"), float)[..., 3]
            target = (255 - np.asarray(want, float)).max(axis=2)
            diff = float(np.abs(alpha - target).mean())
            assert diff <= 2, (f"{name}: transparency differs by {diff:.1f} per pixel from white taken out of "
                               f"{truth['source']} (at most 2 allowed)")
        checks.append((f"{name} has white made transparent", check_alpha))
    if "palette" in truth:
        most = int(truth["palette"])

        def check_palette() -> None:
            image = load()
            assert image.mode in ("P", "1"), f"{name}: pixel mode {image.mode}, not indexed (a palette)"
            used = len(image.convert("RGB").getcolors(1 << 24) or [])
            assert 1 < used <= most, f"{name}: uses {used} colours, expected 2 to {most}"
        checks.append((f"{name} is indexed with at most {most} colours", check_palette))
    if "dpi" in truth:
        dpi = float(truth["dpi"])

        def check_dpi() -> None:
            got = load().info.get("dpi")
            assert got, f"{name}: stores no resolution"
            assert all(abs(float(v) - dpi) <= 0.5 for v in got), (
                f"{name}: resolution {float(got[0]):g}x{float(got[1]):g} dpi, expected {dpi:g}")
        checks.append((f"{name} is set to {dpi:g} dpi", check_dpi))
    if "jpeg_quality" in truth:
        quality = int(truth["jpeg_quality"])

        def check_quality() -> None:
            image = load()
            got = jpeg_quality(image)
            assert got is not None, f"{name}: saved as {image.format}, has no JPEG quality"
            assert abs(got - quality) <= 2, f"{name}: written at JPEG quality about {got}, expected {quality}"
        checks.append((f"{name} has JPEG quality {quality}", check_quality))
    if not checks:
        raise ValueError(f"gimp_round3 ground truth for {name!r} asks for no checks")
    return checks


def gamess_groups(text: str) -> dict[str, str]:
    """The ``$NAME ... $END`` groups of a GAMESS input: name (upper case) -> body."""
    import re

    return {m.group(1).upper(): m.group(2) for m in re.finditer(r"\$(\w+)(.*?)\$END", text, re.S | re.I)}


def parse_gamess(text: str) -> avogadro.Molecule:
    """The atoms of a GAMESS input's ``$DATA`` group (after its title and symmetry lines); no bonds."""
    groups = gamess_groups(text)
    assert "DATA" in groups, "no $DATA group"
    lines = [line.split() for line in groups["DATA"].strip().splitlines()[2:] if line.strip()]
    mol = avogadro.Molecule()
    for fields in lines:
        assert len(fields) >= 5, f"not an atom line: {' '.join(fields)!r}"
        element = avogadro._element(str(round(float(fields[1]))))
        mol.atoms.append((element, float(fields[2]), float(fields[3]), float(fields[4])))
    return mol


avogadro.PARSERS.setdefault("gamess", parse_gamess)


def gamess_keywords(text: str) -> dict[str, str]:
    """Every KEY=VALUE of the input's groups other than $DATA, keys upper case."""
    out: dict[str, str] = {}
    for group, body in gamess_groups(text).items():
        if group != "DATA":
            for token in body.split():
                if "=" in token:
                    key, _, value = token.partition("=")
                    out[key.upper()] = value.upper()
    return out


def gamess_input_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "input")
    checks = avogadro.molecule_checks(ctx, {**{k: truth[k] for k in ("formula", "keeps") if k in truth},
                                            "artifact": name, "format": "gamess"})
    want = {str(k).upper(): str(v).upper() for k, v in (truth.get("keywords") or {}).items()}
    absent = [str(k).upper() for k in truth.get("absent") or []]

    def keywords() -> dict[str, str]:
        text = artifact(ctx, name, "text").read_text(encoding="utf-8", errors="replace")
        assert "DATA" in gamess_groups(text), f"{name}: not a GAMESS input (no $DATA ... $END group)"
        return gamess_keywords(text)
    for key, value in want.items():
        def check_keyword(key: str = key, value: str = value) -> None:
            got = keywords().get(key)
            assert got == value, f"{name}: {key}={got if got is not None else '(not set)'}, expected {key}={value}"
        checks.append((f"{name} sets {key}={value}", check_keyword))
    if absent:
        def check_absent() -> None:
            found = {k: v for k, v in keywords().items() if k in absent}
            assert not found, f"{name}: sets {', '.join(f'{k}={v}' for k, v in found.items())}"
        checks.append((f"{name} sets none of {', '.join(absent)}", check_absent))
    return checks


def lammps_commands(text: str) -> dict[str, list[list[str]]]:
    """Command -> the argument lists of its lines, in order (comments and blank lines left out)."""
    out: dict[str, list[list[str]]] = {}
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            out.setdefault(words[0], []).append(words[1:])
    return out


def lammps_input_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "input")
    checks: list[Check] = []

    def commands() -> dict[str, list[list[str]]]:
        found = lammps_commands(artifact(ctx, name, "text").read_text(encoding="utf-8", errors="replace"))
        assert "units" in found and "run" in found, f"{name}: not a LAMMPS input script (no units and run commands)"
        return found
    for command, arguments in (truth.get("commands") or {}).items():
        def check_command(command: str = command, arguments: str = str(arguments)) -> None:
            lines = commands().get(command)
            assert lines, f"{name}: no {command} command"
            assert lines[-1] == arguments.split(), (f"{name}: {command} {' '.join(lines[-1])}, expected "
                                                    f"{command} {arguments}")
        checks.append((f"{name}: {command} {arguments}", check_command))
    for command, word in (truth.get("mentions") or {}).items():
        def check_mention(command: str = command, word: str = str(word)) -> None:
            lines = commands().get(command) or []
            assert any(word in args for args in lines), (
                f"{name}: no {command} line with {word} ({'; '.join(' '.join(a) for a in lines) or 'none'})")
        checks.append((f"{name} has a {command} with {word}", check_mention))
    if not checks:
        raise ValueError(f"lammps_input ground truth for {name!r} asks for no checks")
    return checks


KINDS = {"gimp_round3": gimp_round3_checks, "gamess_input": gamess_input_checks, "lammps_input": lammps_input_checks}
