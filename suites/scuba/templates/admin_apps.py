"""Admin persona: Lightning apps and custom tabs (SCUBA's ``create_app`` and ``create_custom_tab``), read from
Metadata API retrieves of the packages SCUBA's retrieval workflows name.

- ``create_app`` (``app_name``, ``comma_separated_objects_list``, ``comma_separated_user_profiles`` as profile
  file names): retrieve the app ``<app name with _ for spaces>`` and every Profile. The app exists 0.3; each
  listed object is a navigation item (``standard-<object>`` or ``<object>``) 0.3 / n; the profiles whose
  ``applicationVisibilities`` make the app visible are exactly the listed ones 0.4.
- ``create_custom_tab`` (``object_name`` without ``__c``, ``tab_style`` as the tab's motif, ``profile_name``,
  ``app_name`` as the app's fullName): retrieve the tab with every Profile, then the tab with every
  CustomApplication. The tab exists 0.25, its motif is the style 0.25, exactly one profile has it
  ``DefaultOn`` and it is the profile 0.25, exactly one app has it as a navigation item and it is the app 0.25.

Profiles are compared by their file names decoded (``Custom%3A Sales Profile`` is ``Custom: Sales Profile``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence
from xml.etree import ElementTree as ET

from pytest_cua.actions import Action, Check, Click, Done, Fill, SelectOption, Uncheck

from pytest_cua import EvalContext, milestone

from . import metadata_io as md
from . import shared as s
from .common import goto

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _split(value: Any) -> list[str]:
    """SCUBA splits these lists on ", " exactly."""
    return [x for x in str(value or "").split(", ") if x]


def app_name(truth: Mapping[str, Any]) -> str:
    return str(truth.get("app_name", "")).replace(" ", "_")


class CreateApp(s.ScubaTemplate):
    """A Lightning app with its navigation items, visible to exactly the listed profiles."""

    name = "create_app"
    ground_truth_keys = ("app_name", "comma_separated_objects_list", "comma_separated_user_profiles")
    objects = ("Profile",)
    # the app, then 0.3 / n per navigation item (see weights()), then the profiles
    milestones = {"app": 0.3, "navigation items": 0.3, "app visible to the profiles": 0.4}

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        items = _split(truth.get("comma_separated_objects_list"))
        if not items:
            raise ValueError(f"ground truth 'comma_separated_objects_list' names no object: {truth!r}")
        out = {"app": self.milestones["app"]}
        out.update({f"navigation item {o}": self.milestones["navigation items"] / len(items) for o in items})
        out["app visible to the profiles"] = self.milestones["app visible to the profiles"]
        return out

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        full = app_name(truth)
        found = md.retrieve(ctx.env.org, {"CustomApplication": [full], "Profile": ["*"]})
        app = found.get("applications", {}).get(full)
        tabs = [(t.text or "").replace("standard-", "") for t in md.items(app, "tabs")]
        if s.exact() and len(tabs) == 1:  # SCUBA: xmltodict reads one item as a string, iterated by character
            tabs = list(md.items(app, "tabs")[0].text or "")
        profile_key = (lambda name: name) if s.exact() else md.profile_key  # SCUBA compares file names as given
        with milestone("app"):
            assert app is not None, f"no app {full!r}"
        for obj in _split(truth.get("comma_separated_objects_list")):
            with milestone(f"navigation item {obj}"):
                assert obj in tabs, f"{obj!r} is not a navigation item of {full!r} (items: {tabs})" if app is not None \
                    else f"no app {full!r}"
        with milestone("app visible to the profiles"):
            seen = {profile_key(name) for name, body in found.get("profiles", {}).items()
                    if any(md.text(v, "application") == full and md.text(v, "visible") == "true"
                           for v in md.items(body, "applicationVisibilities"))}
            wanted = {profile_key(p) for p in _split(truth.get("comma_separated_user_profiles"))}
            assert seen == wanted, f"{full!r} is visible to {sorted(seen)}, expected exactly {sorted(wanted)}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        full, label = app_name(truth), str(truth["app_name"])
        tabs = [f"standard-{o}" for o in _split(truth["comma_separated_objects_list"])]
        files = {f"applications/{full}.app": md.component(
            "CustomApplication", formFactors="Large", isNavAutoTempTabsDisabled=False,
            isNavPersonalizationDisabled=False, label=label, navType="Standard", tabs=tabs, uiType="Lightning")}
        visible = md.element("applicationVisibilities", application=full, default=False, visible=True)
        profiles = md.resolve_profiles(sf, _split(truth["comma_separated_user_profiles"]))
        for name in profiles:
            path, text = md.profile_file(name, visible)
            files[path] = text
        md.deploy(sf, files, {"CustomApplication": [full], "Profile": profiles})


    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > App Manager > New Lightning App: the name, Next through the options, each object as a navigation
        item, each profile, Save & Finish."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        from pytest_cua.orgs.localorg.ui.routes_apps import _PAGES

        steps: list[Action] = [*s.setup_link(env, "App Manager"), s.click_button("New Lightning App"),
                               Fill("label=App Name", str(truth["app_name"])), s.click_button("Next"),
                               s.click_button("Next"), s.click_button("Next")]
        for obj in _split(truth.get("comma_separated_objects_list")):
            described = s.describe(env, obj)
            label = _PAGES.get(f"standard-{obj}") or str((described or {}).get("labelPlural") or obj)
            steps += [SelectOption("label=Available Items", label), s.click_button("Add")]
        steps.append(s.click_button("Next"))
        labels = s.profile_labels(sf)
        for profile in _split(truth.get("comma_separated_user_profiles")):
            steps += [SelectOption("label=Available Profiles", labels.get(md.profile_key(profile), profile)),
                      s.click_button("Add")]
        return [*steps, s.click_button("Save & Finish"), Done()]


def _tabs_as_scuba_reads(app: Any) -> Any:
    """An app's tabs for a membership test: the list of them, or under the exact scoring, with a single tab,
    its name itself (SCUBA's xmltodict reading: ``in`` is then a substring test)."""
    tabs = [t.text or "" for t in md.items(app, "tabs")]
    return tabs[0] if s.exact() and len(tabs) == 1 else tabs


class CreateCustomTab(s.ScubaTemplate):
    """A tab for a custom object with a style, on for exactly one profile and in exactly one app."""

    name = "create_custom_tab"
    ground_truth_keys = ("app_name", "object_name", "profile_name", "tab_style")
    objects = ("Profile",)
    milestones = {"custom tab": 0.25, "tab style": 0.25, "tab visible only to the profile": 0.25,
                  "tab only in the app": 0.25}

    def check(self, ctx: EvalContext) -> None:
        truth, sf = ctx.truth, ctx.env.org
        tab = f"{truth.get('object_name', '')}__c"
        with_profiles = md.retrieve(sf, {"CustomTab": [tab], "Profile": ["*"]})
        with_apps = md.retrieve(sf, {"CustomTab": [tab], "CustomApplication": ["*"]})
        body = with_apps.get("tabs", {}).get(tab)
        with milestone("custom tab"):
            assert body is not None, f"no custom tab {tab!r}"
        with milestone("tab style"):
            motif = md.text(body, "motif")
            assert motif == truth.get("tab_style"), f"tab style {motif!r}, expected {truth.get('tab_style')!r}"
        with milestone("tab visible only to the profile"):
            on = [name for name, p in with_profiles.get("profiles", {}).items()
                  if any(md.text(v, "visibility") == "DefaultOn" and md.text(v, "tab") == tab
                         for v in md.items(p, "tabVisibilities"))]
            wanted = str(truth.get("profile_name", ""))
            key = (lambda name: name) if s.exact() else md.profile_key  # SCUBA compares file names as given
            assert [key(n) for n in on] == [key(wanted)], \
                f"{tab!r} is Default On for {on}, expected only {wanted!r}"
        with milestone("tab only in the app"):
            apps = [name for name, a in with_apps.get("applications", {}).items()
                    if tab in _tabs_as_scuba_reads(a)]
            assert apps == [truth.get("app_name")], f"{tab!r} is in the apps {apps}, expected only " \
                                                    f"{truth.get('app_name')!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        tab, app = f"{truth['object_name']}__c", str(truth["app_name"])
        current = md.retrieve(sf, {"CustomApplication": [app]}).get("applications", {}).get(app)
        if current is None:
            raise md.MetadataCallError(f"the org has no app {app!r}")
        current.append(ET.fromstring(f"<tabs>{tab}</tabs>"))
        app_text = md.component("CustomApplication", *(ET.tostring(c, encoding="unicode") for c in current))
        [profile] = md.resolve_profiles(sf, [str(truth["profile_name"])])
        path, text = md.profile_file(profile, md.element("tabVisibilities", tab=tab, visibility="DefaultOn"))
        md.deploy(sf, {f"tabs/{tab}.tab": md.component("CustomTab", customObject=True, motif=truth["tab_style"]),
                       f"applications/{app}.app": app_text, path: text},
                  {"CustomTab": [tab], "CustomApplication": [app], "Profile": [profile]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Tabs > New: the object and its style, Default Off for all profiles but the one, only the app."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        tab, app = f"{truth['object_name']}__c", str(truth["app_name"])
        label = sf.restful(f"sobjects/{tab}/describe").get("label", tab)
        app_label = md.text(md.read_one(sf, "CustomApplication", app), "label") or app
        profile = s.profile_labels(sf).get(md.profile_key(str(truth["profile_name"])), str(truth["profile_name"]))
        style = str(truth["tab_style"]).split(": ", 1)[-1]
        # Setup > Create > Custom Tab (Lightning Setup's Create menu; Setup > Tabs > New opens the same wizard)
        return [goto(env, "/lightning/setup/SetupOneHome/home"), s.open_create_menu(),
                Click('role=menuitem[name="Custom Tab"]'), SelectOption("label=Object", label),
                s.click_button("Tab Style"), s.click_button(style), s.click_button("Next"),
                SelectOption("label=Tab Visibility for all profiles", "Default Off"),
                SelectOption(f"label=Tab Visibility for {profile}", "Default On"), s.click_button("Next"),
                Uncheck("label=Select/Deselect All"), Check(f"label=Include Tab in {app_label}"),
                s.click_button("Save"), Done()]


TEMPLATES = [CreateApp(), CreateCustomTab()]
