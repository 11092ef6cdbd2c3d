"""VS Code checks (code-server): the files VS Code itself writes, copied out of the container: the user
``settings.json`` and ``keybindings.json`` of its user-data dir (JSON with comments, as VS Code writes them),
the workspace's files, and the manifest of an installed extension.

Kinds (ground-truth keys in brackets):

- ``vscode_setting``: user settings changed [``artifact`` (default "settings"), ``values`` {setting: value},
  ``keeps`` {setting: value} (start settings that must stay)]
- ``vscode_keybinding``: a keyboard shortcut bound [``artifact`` (default "keybindings"), ``bindings``
  [{"key": "ctrl+alt+d", "command": "..."}]: each present, the key compared without regard to the order or
  case of its modifiers]
- ``vscode_file``: a workspace file written [``artifact``, ``lines``: its exact lines (trailing white space and
  a final newline ignored) or ``contains`` [texts]; ``absent`` [artifact names]: files that must no longer
  exist (a rename or a delete)]
- ``vscode_replace``: a search and replace across files [``artifacts`` [names], ``old``, ``new``, ``counts``
  {name: occurrences of ``new``}]: no file holds ``old`` any more, each holds ``new`` as often as expected,
  and the rest of each file is unchanged (``sources`` {name: start file}: the start file with ``old``
  replaced by ``new`` is what the file must be)
- ``vscode_extension``: an extension installed from a VSIX [``artifact`` (default "manifest": the
  ``package.json`` in the extensions folder), ``name``, ``publisher``, ``version``]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import fixtures_dir

from ..artifacts import Check, artifact


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (VS Code's settings files) as plain JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_string = False
            i += 1
        elif c == '"':
            in_string = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    plain = "".join(out)
    # trailing commas before } or ]
    result: list[str] = []
    in_string = False
    for k, c in enumerate(plain):
        if c == '"' and (k == 0 or plain[k - 1] != "\\"):
            in_string = not in_string
        if not in_string and c == ",":
            rest = plain[k + 1:].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        result.append(c)
    return "".join(result)


def read_jsonc(path: Path) -> Any:
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        return None
    try:
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise AssertionError(f"{path.name}: not JSON ({exc})") from None


def _settings(ctx: Any, name: str) -> dict[str, Any]:
    data = read_jsonc(artifact(ctx, name))
    assert isinstance(data, dict), f"{name}: not a JSON object of settings"
    return data


def setting_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "settings")
    values = truth.get("values") or {}
    if not values:
        raise ValueError("vscode_setting: ground truth needs 'values'")
    checks: list[Check] = []
    for key, want in sorted(values.items()):
        def check(key: str = key, want: Any = want) -> None:
            got = _settings(ctx, name)
            assert key in got, f"{name}: {key!r} is not set"
            assert got[key] == want, f"{name}: {key} is {got[key]!r}, expected {want!r}"
        checks.append((f"{key} = {json.dumps(want)}", check))
    if truth.get("keeps"):
        def check_keeps() -> None:
            got = _settings(ctx, name)
            lost = {k: got.get(k) for k, v in truth["keeps"].items() if got.get(k) != v}
            assert not lost, f"{name}: settings the task did not ask to change were changed: {lost}"
        checks.append(("the other settings are kept", check_keeps))
    return checks


def _key(text: str) -> tuple[str, ...]:
    """A key chord normalized: each press's modifiers sorted, lower case ("Ctrl+Alt+D" == "alt+ctrl+d")."""
    return tuple("+".join(sorted(part.split("+")[:-1]) + [part.split("+")[-1]]) for part in
                 str(text).lower().replace(" +", "+").replace("+ ", "+").split())


def keybinding_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "keybindings")
    bindings = truth.get("bindings") or []
    if not bindings:
        raise ValueError("vscode_keybinding: ground truth needs 'bindings'")
    checks: list[Check] = []
    for binding in bindings:
        def check(binding: Mapping[str, Any] = binding) -> None:
            data = read_jsonc(artifact(ctx, name)) or []
            assert isinstance(data, list), f"{name}: not a JSON list of keybindings"
            entries = [e for e in data if isinstance(e, dict)]
            same_command = [e for e in entries if e.get("command") == binding["command"]]
            assert same_command, f"{name}: no keybinding for {binding['command']!r}"
            assert any(_key(e.get("key", "")) == _key(binding["key"]) for e in same_command), (
                f"{name}: {binding['command']} is bound to {[e.get('key') for e in same_command]}, "
                f"expected {binding['key']!r}")
        checks.append((f"{binding['key']} runs {binding['command']}", check))
    return checks


def _lines(path: Path) -> list[str]:
    return [ln.rstrip() for ln in path.read_text(encoding="utf-8", errors="replace").rstrip("\n").split("\n")]


def file_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact")
    checks: list[Check] = []
    if name:
        if "lines" in truth:
            def check_lines() -> None:
                got = _lines(artifact(ctx, name))
                want = [str(x).rstrip() for x in truth["lines"]]
                assert got == want, f"{name}: lines {got!r}, expected {want!r}"
            checks.append((f"{name} holds the expected text", check_lines))
        elif "contains" in truth:
            def check_contains() -> None:
                text = artifact(ctx, name).read_text(encoding="utf-8", errors="replace")
                missing = [t for t in truth["contains"] if t not in text]
                assert not missing, f"{name}: lacks {missing!r}"
            checks.append((f"{name} holds the expected text", check_contains))
        else:
            def check_exists() -> None:
                artifact(ctx, name)
            checks.append((f"{name} exists", check_exists))
    for gone in truth.get("absent") or []:
        def check_absent(gone: str = gone) -> None:
            path = ctx.artifacts.get(gone)
            assert path is None or not Path(path).is_file(), f"{gone} still exists"
        checks.append((f"{gone} no longer exists", check_absent))
    if not checks:
        raise ValueError("vscode_file: ground truth needs 'artifact' or 'absent'")
    return checks


def replace_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    for key in ("artifacts", "old", "new"):
        if key not in truth:
            raise ValueError(f"vscode_replace: ground truth needs {key!r}")
    old, new = str(truth["old"]), str(truth["new"])
    counts = truth.get("counts") or {}
    sources = truth.get("sources") or {}
    checks: list[Check] = []
    for name in truth["artifacts"]:
        def check(name: str = name) -> None:
            text = artifact(ctx, name).read_text(encoding="utf-8", errors="replace")
            assert old not in text, f"{name}: still holds {old!r} {text.count(old)} time(s)"
            if name in counts:
                assert text.count(new) == int(counts[name]), (
                    f"{name}: {new!r} {text.count(new)} time(s), expected {counts[name]}")
            if name in sources:
                source = fixtures_dir("prosoft") / sources[name]
                if not source.is_file():
                    raise ValueError(f"vscode_replace: sources[{name!r}] {sources[name]!r} not found ({source})")
                want = source.read_text(encoding="utf-8").replace(old, new)
                assert text.rstrip("\n") == want.rstrip("\n"), f"{name}: other text changed besides the replacement"
        checks.append((f"{name}: {old!r} replaced by {new!r}", check))
    return checks


def extension_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "manifest")
    for key in ("name", "publisher", "version"):
        if key not in truth:
            raise ValueError(f"vscode_extension: ground truth needs {key!r}")

    def check() -> None:
        data = read_jsonc(artifact(ctx, name))
        assert isinstance(data, dict), f"{name}: not an extension manifest"
        got = {k: data.get(k) for k in ("name", "publisher", "version")}
        want = {k: truth[k] for k in ("name", "publisher", "version")}
        assert got == want, f"{name}: extension {got}, expected {want}"
    return [(f"extension {truth['publisher']}.{truth['name']} {truth['version']} installed", check)]


KINDS = {
    "vscode_setting": setting_checks,
    "vscode_keybinding": keybinding_checks,
    "vscode_file": file_checks,
    "vscode_replace": replace_checks,
    "vscode_extension": extension_checks,
}
