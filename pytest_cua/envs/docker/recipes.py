"""Image recipes: what a desktop image is built from, and the hash that decides whether to rebuild.

A recipe is a JSON file (``fixtures/images/<name>.json``)::

    {
      "name": "cua-desktop-base",          image name (tag ``latest``); defaults to the file stem
      "description": "...",
      "base": null,                        another recipe's name to build on (its root file system), or null
      "debian": {"suite": "bookworm", "variant": "minbase"},   only for recipes without a base
      "packages": ["xvfb", ...],           Debian packages (apt-get install --no-install-recommends)
      "pip": ["pyautogui==0.9.54"],        pip packages, installed after the Debian packages
      "files": [{"src": "files/libreoffice/registrymodifications.xcu", "dest": "/root/.config/...",
                 "mode": "0644"}],         copied into the root file system; src relative to the recipe
      "run": ["mkdir -p /root/Desktop"],   shell commands run in the chroot at the end
      "env": {"DISPLAY": ":0"},
      "workdir": "/root",
      "cmd": ["python3", "/opt/cua/executor.py", "serve"]
    }

The recipe hash covers the recipe file, every file it copies and the base recipe's hash. The executor is not
part of any image: the environment copies it into each container before it starts
(``pytest_cua.envs.docker.client.executor_bundle``), so an executor change rebuilds nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from pytest_cua.package_data import as_in_checkout, fixtures_dir

DEFAULT_RECIPE_DIR = Path(os.environ.get("PYTEST_CUA_RECIPES") or fixtures_dir("images"))
"""Where recipes are looked up by name: ``$PYTEST_CUA_RECIPES``, else the package's ``fixtures/images``."""
_KNOWN = {"name", "description", "base", "debian", "packages", "pip", "files", "run", "env", "workdir", "cmd",
          "labels"}


class RecipeError(ValueError):
    """A recipe that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class FileCopy:
    src: Path
    dest: str
    mode: int | None = None


@dataclass
class Recipe:
    """One parsed recipe file."""

    path: Path
    name: str
    description: str = ""
    base: "Recipe | None" = None
    suite: str = "bookworm"
    variant: str = "minbase"
    packages: list[str] = field(default_factory=list)
    pip: list[str] = field(default_factory=list)
    files: list[FileCopy] = field(default_factory=list)
    run: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/root"
    cmd: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def image(self) -> str:
        """The image reference this recipe builds."""
        return f"{self.name}:latest"

    def chain(self) -> list["Recipe"]:
        """This recipe and its bases, root first."""
        out: list[Recipe] = []
        node: Recipe | None = self
        while node is not None:
            out.append(node)
            node = node.base
        return out[::-1]

    def effective_env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for r in self.chain():
            env.update(r.env)
        return env

    def effective_cmd(self) -> list[str]:
        for r in reversed(self.chain()):
            if r.cmd:
                return list(r.cmd)
        return []

    def recipe_hash(self) -> str:
        """sha256 over the base hash, this recipe file and every file it copies (first 16 hex digits)."""
        h = hashlib.sha256()
        if self.base is not None:
            h.update(self.base.recipe_hash().encode())
        h.update(self.path.read_bytes())
        for copy in sorted(self.files, key=lambda c: c.dest):
            h.update(copy.dest.encode())
            for path in _walk(copy.src):
                h.update(str(path.relative_to(copy.src)).encode() if copy.src.is_dir() else b"")
                h.update(path.read_bytes())
        return h.hexdigest()[:16]


def _walk(src: Path) -> list[Path]:
    if src.is_dir():
        return sorted(p for p in src.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return [src]


def find_recipe(name_or_path: str, search: Path | None = None) -> Path:
    """Resolve ``cua-desktop-base`` or a path to a recipe file; errors list what exists."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".json" and candidate.is_file():
        return candidate
    dirs = [d for d in (search, DEFAULT_RECIPE_DIR) if d is not None]
    for d in dirs:
        path = d / f"{name_or_path}.json"
        if path.is_file():
            return path
    known = sorted({p.stem for d in dirs if d.is_dir() for p in d.glob("*.json")})
    raise RecipeError(f"no image recipe {name_or_path!r} in {', '.join(str(d) for d in dirs)} "
                      f"(known: {', '.join(known) or 'none'})")


def load_recipe(name_or_path: str | Path, *, _seen: tuple[str, ...] = ()) -> Recipe:
    """Load a recipe and its bases; every error names the file and the field."""
    path = find_recipe(str(name_or_path)).resolve()
    if str(path) in _seen:
        raise RecipeError(f"{path}: field 'base': recipes form a cycle ({' -> '.join(_seen + (str(path),))})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RecipeError(f"{path}: cannot be read as JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise RecipeError(f"{path}: a recipe must be a JSON object")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise RecipeError(f"{path}: field {unknown[0]!r} is not a recipe field (known: {', '.join(sorted(_KNOWN))})")

    def strs(name: str) -> list[str]:
        value = data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise RecipeError(f"{path}: field {name!r} must be a list of non-empty strings, got {value!r}")
        return list(value)

    def str_map(name: str) -> dict[str, str]:
        value = data.get(name, {})
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                      for k, v in value.items()):
            raise RecipeError(f"{path}: field {name!r} must be an object of strings, got {value!r}")
        return dict(value)

    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name or name.lower() != name or " " in name:
        raise RecipeError(f"{path}: field 'name' must be a lower-case image name, got {name!r}")
    base = None
    if data.get("base") is not None:
        base_name = data["base"]
        if not isinstance(base_name, str):
            raise RecipeError(f"{path}: field 'base' must be a recipe name, got {base_name!r}")
        try:
            base = load_recipe(find_recipe(base_name, path.parent), _seen=_seen + (str(path),))
        except RecipeError as exc:
            raise RecipeError(f"{path}: field 'base': {exc}") from None
    debian = data.get("debian", {})
    if not isinstance(debian, Mapping) or set(debian) - {"suite", "variant"}:
        raise RecipeError(f"{path}: field 'debian' must be an object with 'suite' and/or 'variant', got {debian!r}")
    if base is not None and debian:
        raise RecipeError(f"{path}: field 'debian' only applies to recipes without a 'base'")
    files = []
    raw_files = data.get("files", [])
    if not isinstance(raw_files, list):
        raise RecipeError(f"{path}: field 'files' must be a list of {{src, dest, mode}} objects")
    for i, item in enumerate(raw_files):
        where = f"{path}: field 'files[{i}]'"
        if not isinstance(item, Mapping) or not isinstance(item.get("src"), str) or \
                not isinstance(item.get("dest"), str) or not item["dest"].startswith("/"):
            raise RecipeError(f"{where} must have a 'src' path and an absolute 'dest', got {item!r}")
        src = (path.parent / item["src"]).resolve()
        if not src.exists():  # a packaged recipe: its src was written where the recipe stands in a checkout
            src = (as_in_checkout(path.parent) / item["src"]).resolve()
        if not src.exists():
            raise RecipeError(f"{where}: src {item['src']!r} does not exist (resolved to "
                              f"{(path.parent / item['src']).resolve()})")
        mode = item.get("mode")
        if mode is not None:
            try:
                mode = int(str(mode), 8)
            except ValueError:
                raise RecipeError(f"{where}: mode must be an octal string like '0755', got {mode!r}") from None
        files.append(FileCopy(src, item["dest"], mode))
    cmd = strs("cmd")
    workdir = data.get("workdir", "/root")
    if not isinstance(workdir, str) or not workdir.startswith("/"):
        raise RecipeError(f"{path}: field 'workdir' must be an absolute path, got {workdir!r}")
    return Recipe(path=path, name=name, description=str(data.get("description", "")), base=base,
                  suite=str(debian.get("suite", base.suite if base else "bookworm")),
                  variant=str(debian.get("variant", "minbase")), packages=strs("packages"), pip=strs("pip"),
                  files=files, run=strs("run"), env=str_map("env"), workdir=workdir, cmd=cmd,
                  labels=str_map("labels"))
